//! `handbook update`: extract, then consolidate. Made for cron: silent unless something is
//! wrong (warnings and errors on stderr).

use anyhow::Result;

use crate::config::{ConsolidateSettings, ExtractSettings, Settings};
use crate::edge::terminal::Terminal;

/// Run `update`.
pub fn run(
    settings: &Settings,
    extract: &ExtractSettings,
    consolidate: &ConsolidateSettings,
    term: &Terminal,
) -> Result<()> {
    let quiet = Terminal { quiet: true, progress: false, ..*term };
    super::extract::run(settings, extract, &quiet)?;
    super::consolidate::run(settings, consolidate, &quiet)
}
