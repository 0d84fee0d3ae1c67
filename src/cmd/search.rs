//! `handbook search`: ranked, time-scoped search over the handbook, the rollout summaries,
//! the notes and, when asked, the transcripts; or, with no words, the sessions of a period.
//!
//! Files are read in parallel and tested as raw bytes first: only files (and transcript
//! lines) that can match are decoded, split into documents and ranked.

use anyhow::{Result, bail};

use crate::config::{SearchSettings, Settings};
use crate::core::search::bounds::{Bounds, kept_hits, sessions_in, shown};
use crate::core::search::corpus::Corpus;
use crate::core::search::render::{HitJson, SessionJson, Totals, hit_line, listed, no_results, session_line};
use crate::core::search::{Hit, Query, rank};
use crate::core::words::count;
use crate::edge::git::project_of_dir;
use crate::edge::search::{RolloutProjects, file_of, read_transcripts, read_workspace};
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;
use crate::{EXIT_NOTHING_FOUND, EXIT_OK};

/// Run `search`; the exit status is 0 with results, 1 with none.
pub(crate) fn run(settings: &Settings, opts: &SearchSettings, term: &Terminal) -> Result<u8> {
    let workspace = Workspace::new(&settings.home);
    let project = opts.project.as_deref().map(project_of_dir);
    let bounds = Bounds { since: opts.since, until: opts.until, project: project.as_deref() };
    if opts.query.iter().all(|w| w.trim().is_empty()) {
        return list_sessions(settings, &workspace, opts.limit, &bounds, term);
    }
    let query = Query::new(&opts.query, opts.regex, opts.case_sensitive)?;
    let home = settings.home.to_string_lossy();
    if !workspace.exists() {
        term.json("totals", &Totals { results: 0, more: 0, files: 0, documents: 0, home: &home })?;
        term.note(&no_handbook(settings));
        return Ok(EXIT_NOTHING_FOUND);
    }
    let mut corpus = Corpus::default();
    read_workspace(&workspace, opts.scope, &query, &mut corpus, term)?;
    if opts.scope.transcripts {
        read_transcripts(&workspace, &bounds, &query, &mut corpus, term)?;
    }
    let hits = rank(&corpus.docs, &query, corpus.collection);
    let mut projects = RolloutProjects::new(&workspace);
    let kept = kept_hits(&hits, &corpus.docs, &bounds, &mut |doc| projects.of(doc));
    let shown = shown(kept.len(), opts.limit);
    for hit in &kept[..shown] {
        print_hit(hit, &corpus, &mut projects, &workspace, &query, term)?;
    }
    let more = kept.len() - shown;
    let (files, documents) = (corpus.files, corpus.collection.documents);
    term.json("totals", &Totals { results: shown, more, files, documents, home: &home })?;
    if kept.is_empty() {
        term.note(&no_results(&opts.query, opts.since, opts.until, opts.project.as_deref()));
        return Ok(EXIT_NOTHING_FOUND);
    }
    if more > 0 {
        term.note(&format!("{}; raise --limit to see them (0 shows all)", count(more, "more result")));
    }
    Ok(EXIT_OK)
}

fn print_hit(
    hit: &Hit,
    corpus: &Corpus,
    projects: &mut RolloutProjects,
    workspace: &Workspace,
    query: &Query,
    term: &Terminal,
) -> Result<()> {
    let doc = &corpus.docs[hit.doc];
    if term.json {
        let project = projects.of(doc);
        term.json("result", &HitJson::new(hit, doc, project.as_deref(), file_of(workspace, doc)))?;
    } else {
        term.styled_line(&hit_line(hit, doc, query, term.color_stdout))?;
    }
    Ok(())
}

/// The sessions of a period from their stage-1 records, newest first.
fn list_sessions(
    settings: &Settings,
    workspace: &Workspace,
    limit: Option<usize>,
    bounds: &Bounds,
    term: &Terminal,
) -> Result<u8> {
    if bounds.since.is_none() && bounds.until.is_none() {
        bail!("nothing to search for: give words to look for, or --since/--until to list the sessions of a period");
    }
    if !workspace.exists() {
        term.json("totals", &serde_json::json!({ "sessions": 0, "more": 0 }))?;
        term.note(&no_handbook(settings));
        return Ok(EXIT_NOTHING_FOUND);
    }
    let listed = workspace.stage1_briefs(false, &mut |warning| term.warn(&warning), &listed)?;
    let sessions = sessions_in(listed.into_iter().map(|filed| filed.brief).collect(), bounds);
    let shown = shown(sessions.len(), limit);
    for record in &sessions[..shown] {
        if term.json {
            term.json("session", &SessionJson::new(record))?;
        } else {
            term.line(&session_line(record))?;
        }
    }
    let more = sessions.len() - shown;
    term.json("totals", &serde_json::json!({ "sessions": shown, "more": more }))?;
    if sessions.is_empty() {
        term.note("no sessions in that period");
        return Ok(EXIT_NOTHING_FOUND);
    }
    if more > 0 {
        term.note(&format!("{}; raise --limit to see them (0 shows all)", count(more, "more session")));
    }
    Ok(EXIT_OK)
}

fn no_handbook(settings: &Settings) -> String {
    format!("no handbook yet in {}: run `handbook update` (or extract and consolidate) first", settings.home.display())
}
