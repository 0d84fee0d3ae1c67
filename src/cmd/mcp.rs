//! `handbook mcp`: serve the handbook to an agent over MCP on stdio. The tools and the
//! server are in `edge::mcp`; what they decide and how they answer, in `core::mcp`.

use std::sync::Arc;

use anyhow::Result;

use crate::config::{McpSettings, Settings};
use crate::edge::mcp::{Options, serve};

/// Run `mcp` until the client closes stdin.
pub(crate) fn run(settings: &Settings, opts: &McpSettings) -> Result<()> {
    if opts.verbose {
        eprintln!("handbook mcp: serving {} on stdio", settings.home.display());
    }
    serve(Options {
        home: settings.home.clone(),
        lock_wait: opts.lock_wait,
        fixed_now: opts.fixed_now,
        verbose: opts.verbose,
        take_in: {
            let (settings, note) = (settings.clone(), opts.note.clone());
            Arc::new(move || super::note::take_in(&settings, &note))
        },
    })
}
