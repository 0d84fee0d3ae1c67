//! `handbook update`: extract, then consolidate, under one hold of the workspace lock so no
//! other run slips in between. Made for cron: silent unless something is wrong (warnings and
//! errors on stderr). Until the handbook has been consolidated once, it also says what it left
//! out and what would take it in, so a first run never looks as if it learnt everything.

use anyhow::Result;

use crate::config::{ConsolidateSettings, ExtractSettings, Settings};
use crate::core::consolidate::report::LeftOut;
use crate::edge::signal::Stop;
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

/// Run `update`.
pub(crate) fn run(
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
    let workspace = Workspace::new(&settings.home);
    let _lock = workspace.lock(extract.lock_wait)?;
    let first = !workspace.consolidated_before();
    let quiet = Terminal { quiet: true, progress: false, ..*term };
    // A signal during extraction leaves consolidation for the next run.
    let mut notes = super::extract::extract(&workspace, settings, extract, &quiet, &Stop::install()?)?;
    let report = super::consolidate::consolidate_and_report(&workspace, settings, consolidate, &quiet)?;
    let LeftOut { unused, over_max, max_unused_days, max } = report.left_out;
    notes.extend(crate::core::select::left_out_notes(unused, over_max, max_unused_days, max));
    for note in notes.iter().filter(|_| first) {
        term.note(note);
    }
    crate::edge::doors::refresh(settings, term);
    Ok(())
}
