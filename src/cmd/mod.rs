//! One module per subcommand: glue between the edges and the core.

pub mod config;
pub mod consolidate;
pub mod extract;
pub mod forget;
pub mod note;
pub mod reset;
pub mod search;
pub mod status;
pub mod summary;
pub mod update;
