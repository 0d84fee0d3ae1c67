//! `handbook status`: coverage, the last runs, whether the workspace moved since the last
//! consolidation, the summary's size, and a scan of the workspace for secrets and for
//! instruction-like text.

use std::collections::BTreeMap;

use anyhow::Result;
use jiff::Timestamp;
use serde::Serialize;

use crate::config::Settings;
use crate::core::doctor::{Flagged as Finding, scan};
use crate::core::layout::{SUMMARY, timestamp};
use crate::core::manifest::Snapshot;
use crate::core::manifest::{self, Change};
use crate::core::state::{Counts, SourceState, Sources};
use crate::core::tokens::estimate;
use crate::core::trust::Overview;
use crate::core::words::count;
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

#[derive(Serialize)]
struct Status {
    home: String,
    exists: bool,
    /// State files that could not be read, with why.
    damaged: Vec<String>,
    sessions: BTreeMap<&'static str, u64>,
    /// Excluded sessions by why (`sub-agent`, `external context`, ...).
    excluded: BTreeMap<String, u64>,
    failures: Vec<Failure>,
    last_extract: Option<Timestamp>,
    /// Every count of the last extract's coverage line, still active and too old included:
    /// what it left for later as well as what it read.
    last_extract_coverage: Option<Counts>,
    last_consolidate: Option<Timestamp>,
    extracted_records: usize,
    changes_since_consolidation: Vec<Change>,
    summary_tokens: Option<usize>,
    summary_chars: Option<usize>,
    summary_max_tokens: usize,
    secrets: Vec<Finding>,
    instruction_like: Vec<Finding>,
    /// Generations, the pending change, stale, held-back and promoted lessons.
    #[serde(skip_serializing_if = "Option::is_none")]
    lessons: Option<Overview>,
}

#[derive(Serialize)]
struct Failure {
    path: String,
    reason: String,
    tries: u32,
}

/// Run `status`.
pub(crate) fn run(settings: &Settings, term: &Terminal) -> Result<()> {
    let status = gather(settings, term)?;
    term.json("status", &status)?;
    if !term.json {
        for line in render(&status) {
            term.line(&line)?;
        }
    }
    Ok(())
}

fn gather(settings: &Settings, term: &Terminal) -> Result<Status> {
    let workspace = Workspace::new(&settings.home);
    let mut status = Status {
        home: settings.home.display().to_string(),
        exists: workspace.exists(),
        damaged: Vec::new(),
        sessions: BTreeMap::new(),
        excluded: BTreeMap::new(),
        failures: Vec::new(),
        last_extract: None,
        last_extract_coverage: None,
        last_consolidate: None,
        extracted_records: 0,
        changes_since_consolidation: Vec::new(),
        summary_tokens: None,
        summary_chars: None,
        summary_max_tokens: settings.summary_max_tokens,
        secrets: Vec::new(),
        instruction_like: Vec::new(),
        lessons: None,
    };
    if !status.exists {
        return Ok(status);
    }
    // Damaged state is what `status` is for: report it and show the rest.
    match workspace.load_sources() {
        Ok(sources) => count_sessions(&mut status, &sources),
        Err(e) => status.damaged.push(format!("{e:#}")),
    }
    status.last_extract_coverage = workspace.last_extract()?.map(|last| last.counts);
    let snapshot = workspace.snapshot()?;
    match workspace.load_manifest() {
        Ok(manifest) => {
            status.last_consolidate = manifest.consolidated_at;
            status.changes_since_consolidation = manifest::changes(&manifest.files, &snapshot.hashes());
        }
        Err(e) => status.damaged.push(format!("{e:#}")),
    }
    status.extracted_records = workspace.stage1_briefs(false, &mut |w| term.warn(&w), &|_| ())?.len();
    if let Some(summary) = snapshot.text(SUMMARY) {
        status.summary_tokens = Some(estimate(&summary));
        status.summary_chars = Some(summary.chars().count());
    }
    scan_files(&mut status, &snapshot);
    match crate::edge::generations::overview(&workspace) {
        Ok(overview) => status.lessons = Some(overview),
        Err(e) => status.damaged.push(format!("{e:#}")),
    }
    Ok(status)
}

/// Sessions per state, the failures with why, and the last extraction.
fn count_sessions(status: &mut Status, sources: &Sources) {
    let states = [
        SourceState::Extracted,
        SourceState::NoOp,
        SourceState::Excluded,
        SourceState::Skipped,
        SourceState::Failed,
        SourceState::Vanished,
    ];
    for state in states {
        status.sessions.insert(state.name(), sources.sources.values().filter(|e| e.state == state).count() as u64);
    }
    for entry in sources.sources.values().filter(|e| e.state == SourceState::Excluded) {
        let why = entry.reason.as_ref().map_or("unknown", |r| r.label());
        *status.excluded.entry(why.to_string()).or_default() += 1;
    }
    for (path, entry) in sources.sources.iter().filter(|(_, e)| e.state == SourceState::Failed) {
        let reason = entry.last_error.as_deref().unwrap_or_default().to_string();
        status.failures.push(Failure { path: path.to_string(), reason, tries: entry.tries });
    }
    status.last_extract = sources.last_extract;
}

/// Every line of every workspace file checked for secrets and for instruction-like text.
fn scan_files(status: &mut Status, snapshot: &Snapshot) {
    let found = scan(&snapshot.files);
    (status.secrets, status.instruction_like) = (found.secrets, found.instruction_like);
}

fn render(status: &Status) -> Vec<String> {
    let mut out = vec![format!("handbook: {}", status.home)];
    if !status.exists {
        out.push(
            "no workspace yet: run `handbook update` (or `handbook extract` then `handbook consolidate`)".to_string(),
        );
        return out;
    }
    for damage in &status.damaged {
        out.push(format!("damaged: {damage}"));
    }
    let known: u64 = status.sessions.values().sum();
    let counts: Vec<String> = ["extracted", "no-op", "excluded", "skipped", "failed", "vanished"]
        .iter()
        .map(|state| format!("{} {state}", status.sessions.get(state).copied().unwrap_or(0)))
        .collect();
    out.push(format!("sessions: {known} known: {}", counts.join(", ")));
    if !status.excluded.is_empty() {
        let why: Vec<String> = status.excluded.iter().map(|(reason, n)| format!("{n} {reason}")).collect();
        out.push(format!("  excluded: {}", why.join(", ")));
    }
    for f in &status.failures {
        out.push(format!("  failed: {}: {} ({})", f.path, f.reason, count(f.tries as usize, "try")));
    }
    let when = |t: Option<Timestamp>| t.map_or_else(|| "never".to_string(), timestamp);
    out.push(format!("last extract: {}", when(status.last_extract)));
    if let Some(counts) = &status.last_extract_coverage {
        let [(_, sessions), rest @ ..] = counts.named();
        let rest: Vec<String> = rest.iter().map(|(name, n)| format!("{n} {name}")).collect();
        out.push(format!("  {}: {}", count(sessions as usize, "session"), rest.join(", ")));
    }
    out.push(format!(
        "last consolidate: {} ({} extracted)",
        when(status.last_consolidate),
        count(status.extracted_records, "session")
    ));
    out.push(workspace_line(status));
    out.extend(status.lessons.iter().flat_map(Overview::lines));
    match (status.summary_tokens, status.summary_chars) {
        (Some(tokens), Some(chars)) => {
            // A cap lowered since the last consolidation: the file waits to be fitted again.
            let over = match tokens > status.summary_max_tokens {
                true => "; over the cap: run `handbook consolidate` to fit it again",
                false => "",
            };
            out.push(format!("summary: {tokens} tokens of {}, {chars} characters{over}", status.summary_max_tokens))
        }
        _ => out.push("summary: none yet".to_string()),
    }
    if status.secrets.is_empty() {
        out.push("secrets: none found".to_string());
    } else {
        out.push(format!("secrets: {} found; remove them and run `handbook consolidate`", status.secrets.len()));
        out.extend(status.secrets.iter().map(|f| format!("  {}:{}: {}", f.path, f.line, f.what)));
    }
    if status.instruction_like.is_empty() {
        out.push("instruction-like lines: none found".to_string());
    } else {
        out.push(format!("instruction-like lines: {} found; review them", status.instruction_like.len()));
        out.extend(status.instruction_like.iter().map(|f| format!("  {}:{}: {}", f.path, f.line, f.what)));
    }
    out
}

/// Whether the workspace moved since the last consolidation, and which files.
fn workspace_line(status: &Status) -> String {
    if status.last_consolidate.is_none() {
        return "workspace: not consolidated yet (run `handbook consolidate`)".to_string();
    }
    if status.changes_since_consolidation.is_empty() {
        return "workspace: as the last consolidation left it".to_string();
    }
    let list: Vec<String> = status
        .changes_since_consolidation
        .iter()
        .take(8)
        .map(|c| format!("{} {}", c.status.letter(), c.path))
        .collect();
    let more = status.changes_since_consolidation.len().saturating_sub(8);
    let more = if more > 0 { format!(", {more} more") } else { String::new() };
    format!(
        "workspace: {} changed since the last consolidation ({}{more})",
        count(status.changes_since_consolidation.len(), "file"),
        list.join(", ")
    )
}
