//! One module per subcommand: glue between the edges and the core.

pub mod extract;
