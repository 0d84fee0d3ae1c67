//! The edges: everything that touches the outside world. Files (atomic writes, the lock,
//! the workspace), discovery of transcripts, git repositories, and the terminal.

pub(crate) mod agents;
pub(crate) mod control;
pub(crate) mod coverage;
pub(crate) mod discover;
pub(crate) mod doors;
pub(crate) mod extraction;
pub(crate) mod fault;
pub(crate) mod freshness;
pub(crate) mod fsio;
pub(crate) mod generations;
pub(crate) mod git;
pub(crate) mod ledger;
pub(crate) mod lines;
pub(crate) mod lock;
pub(crate) mod mcp;
pub(crate) mod model;
pub(crate) mod notes;
pub(crate) mod opencode;
pub(crate) mod parallel;
pub(crate) mod records;
pub(crate) mod search;
pub(crate) mod signal;
pub(crate) mod stdin;
pub(crate) mod summary;
pub(crate) mod survey;
pub(crate) mod templates;
pub(crate) mod terminal;
pub(crate) mod transcript;
pub(crate) mod workspace;
