//! The report of an `extract` run: a line (or `session` object) per transcript acted on,
//! then the coverage line (or `totals` object) that accounts for every session, with what
//! the run left out and what would take it in.

use anyhow::Result;

use crate::core::state::{Coverage, LeftOut, SessionReport};
use crate::edge::terminal::Terminal;

/// Print the report, sorted by path. Quiet, only a failure of this run is said.
pub(crate) fn report(
    term: &Terminal,
    reports: &mut [SessionReport],
    coverage: &mut Coverage,
    dry_run: bool,
    left_out: &[LeftOut],
) -> Result<()> {
    reports.sort_by(|a, b| a.path.cmp(&b.path));
    coverage.failures.sort();
    for r in reports.iter() {
        term.json("session", r)?;
        if !term.quiet {
            term.line(&r.line())?;
        }
    }
    let totals = serde_json::json!({ "coverage": coverage, "dry_run": dry_run, "left_out": left_out });
    term.json("totals", &totals)?;
    // Quiet means silent unless something is wrong, and a session that failed this run is.
    match (term.quiet, coverage.quiet_warning()) {
        (true, Some(warning)) => term.warn(&warning),
        (true, None) => {}
        (false, _) => term.line(&coverage.closing_line(dry_run))?,
    }
    Ok(())
}
