//! The edges: everything that touches the outside world. Files (atomic writes, the lock,
//! the workspace), discovery of transcripts, git repositories, and the terminal.

pub mod discover;
pub mod extraction;
pub mod fault;
pub mod fsio;
pub mod git;
pub mod ledger;
pub mod lines;
pub mod lock;
pub mod model;
pub mod parallel;
pub mod search;
pub mod templates;
pub mod terminal;
pub mod transcript;
pub mod workspace;
