//! One module per subcommand: glue between the edges and the core. Each stays short: a
//! function over 60 lines here means a decision that belongs in the core.
#![warn(clippy::too_many_lines)]

pub(crate) mod completions;
pub(crate) mod config;
pub(crate) mod consolidate;
pub(crate) mod diff;
pub(crate) mod doctor;
pub(crate) mod extract;
pub(crate) mod forget;
pub(crate) mod integrate;
pub(crate) mod log;
pub(crate) mod mcp;
pub(crate) mod note;
pub(crate) mod promote;
pub(crate) mod reset;
pub(crate) mod review;
pub(crate) mod search;
pub(crate) mod status;
pub(crate) mod summary;
pub(crate) mod undo;
pub(crate) mod update;
pub(crate) mod why;
