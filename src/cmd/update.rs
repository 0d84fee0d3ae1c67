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
    if extract.dry_run {
        // A dry run is read by a person: it reports, and consolidation (which has no dry
        // run of its own) is left out, so nothing is written.
        super::extract::run(settings, extract, term)?;
        term.note("consolidate: skipped (dry run)");
        return Ok(());
    }
    let quiet = Terminal { quiet: true, progress: false, ..*term };
    super::extract::run(settings, extract, &quiet)?;
    super::consolidate::run(settings, consolidate, &quiet)
}
