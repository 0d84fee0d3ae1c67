//! The pure core: parse → filter → redact → extract → (consolidate → render).
//!
//! Nothing in here touches the file system, the environment, the clock, the network or the
//! terminal: time and file contents come in as values, results go out as values. That keeps
//! every rule testable on string literals and every output deterministic.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod citations;
pub mod consolidate;
pub mod dates;
pub mod escape;
pub mod extract;
pub mod filter;
pub mod formats;
pub mod injection;
pub mod layout;
pub mod manifest;
pub mod model;
pub mod notes;
pub mod patterns;
pub mod pipeline;
pub mod project;
pub mod redact;
pub mod search;
pub mod select;
pub mod session;
pub mod stage1;
pub mod state;
pub mod summary;
pub mod templates;
pub mod tokens;
pub mod words;
