//! The pure core: parse → filter → redact → extract → (consolidate → render).
//!
//! Nothing in here touches the file system, the environment, the clock, the network or the
//! terminal: time and file contents come in as values, results go out as values. That keeps
//! every rule testable on string literals and every output deterministic.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub(crate) mod citations;
pub(crate) mod consolidate;
pub(crate) mod dates;
pub(crate) mod doctor;
pub(crate) mod door;
pub(crate) mod echo;
pub(crate) mod escape;
pub(crate) mod external;
pub(crate) mod extract;
pub(crate) mod filter;
pub(crate) mod formats;
pub(crate) mod hook;
pub(crate) mod injection;
pub(crate) mod integrate;
pub(crate) mod layout;
pub(crate) mod manifest;
pub(crate) mod mcp;
pub(crate) mod model;
pub(crate) mod notes;
pub(crate) mod patterns;
pub(crate) mod pipeline;
pub(crate) mod project;
pub(crate) mod redact;
pub(crate) mod search;
pub(crate) mod select;
pub(crate) mod session;
pub mod stage1;
pub(crate) mod state;
pub(crate) mod summary;
pub(crate) mod templates;
pub mod tokens;
pub(crate) mod trust;
pub(crate) mod words;
