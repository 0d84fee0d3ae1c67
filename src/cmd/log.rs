//! `handbook log`: the generations kept, newest first, the pending one (review mode) first
//! of all.

use anyhow::Result;

use crate::config::Settings;
use crate::core::trust::generations::{Generation, log_line};
use crate::edge::generations::load_log;
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

/// Run `log`.
pub(crate) fn run(settings: &Settings, term: &Terminal) -> Result<()> {
    let workspace = Workspace::new(&settings.home);
    crate::edge::generations::finish_commit_when_free(&workspace)?;
    let log = load_log(&workspace)?;
    let current = log.current().map(|g| g.id);
    let listed = log.pending.iter().chain(log.generations.iter().rev());
    for generation in listed {
        let is_current = generation.id != 0 && Some(generation.id) == current;
        term.json("generation", &object(generation, is_current))?;
        term.line(&log_line(generation, is_current))?;
    }
    if log.generations.is_empty() && log.pending.is_none() {
        term.note("no generation yet: each consolidation that changes the handbook records one");
    }
    Ok(())
}

/// A generation as `--json` prints it: its record, and whether it is current or pending.
fn object(generation: &Generation, current: bool) -> serde_json::Value {
    let mut value = serde_json::to_value(generation).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.insert("current".into(), current.into());
        map.insert("pending".into(), (generation.id == 0).into());
        if generation.id == 0 {
            map.remove("id");
        }
    }
    value
}
