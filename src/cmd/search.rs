//! `handbook search`: ranked, time-scoped search over the handbook, the rollout summaries,
//! the notes and, when asked, the transcripts; or, with no words, the sessions of a period.
//!
//! Files are read in parallel and tested as raw bytes first: only files (and transcript
//! lines) that can match are decoded, split into documents and ranked.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Result, bail};
use jiff::Timestamp;
use serde::Serialize;

use crate::config::{SearchScope, SearchSettings, Settings};
use crate::core::layout::{MEMORY, NOTES_DIR, ROLLOUT_SUMMARIES, SUMMARY};
use crate::core::project::display_name;
use crate::core::search::docs::{self, Doc, Kind};
use crate::core::search::transcripts::{TranscriptSink, prefilter};
use crate::core::search::{Collection, Hit, Query, highlight, in_period, rank, same_project};
use crate::core::stage1::Stage1;
use crate::core::state::SourceState;
use crate::core::words::count;
use crate::edge::git::{Projects, project_of_dir};
use crate::edge::parallel;
use crate::edge::terminal::{Terminal, escape};
use crate::edge::transcript::{SearchRead, search_transcript};
use crate::edge::workspace::Workspace;
use crate::{EXIT_NOTHING_FOUND, EXIT_OK};

const MATCH_ON: &str = "\x1b[1;31m";
const PATH_ON: &str = "\x1b[35m";
const LINE_ON: &str = "\x1b[32m";
const DIM_ON: &str = "\x1b[2m";
const OFF: &str = "\x1b[0m";

/// Run `search`; the exit status is 0 with results, 1 with none.
pub fn run(settings: &Settings, opts: &SearchSettings, term: &Terminal) -> Result<u8> {
    let workspace = Workspace::new(&settings.home);
    let project = opts.project.as_deref().map(project_of_dir);
    if opts.query.iter().all(|w| w.trim().is_empty()) {
        if opts.since.is_none() && opts.until.is_none() {
            bail!("nothing to search for: give words to look for, or --since/--until to list the sessions of a period");
        }
        if !workspace.exists() {
            term.json("totals", &serde_json::json!({ "sessions": 0, "more": 0 }))?;
            term.note(&no_handbook(settings));
            return Ok(EXIT_NOTHING_FOUND);
        }
        return list_sessions(&workspace, opts, project.as_deref(), term);
    }
    let query = Query::new(&opts.query, opts.regex, opts.case_sensitive)?;
    if !workspace.exists() {
        term.json(
            "totals",
            &Totals { results: 0, more: 0, files: 0, documents: 0, home: &settings.home.to_string_lossy() },
        )?;
        term.note(&no_handbook(settings));
        return Ok(EXIT_NOTHING_FOUND);
    }
    let mut corpus = Corpus::default();
    search_workspace(&workspace, opts.scope, &query, &mut corpus, term)?;
    if opts.scope.transcripts {
        search_transcripts(&workspace, opts, &query, &mut corpus, term)?;
    }
    let hits = rank(&corpus.docs, &query, corpus.collection);
    let mut projects = RolloutProjects::new(&workspace);
    let kept: Vec<&Hit> = hits
        .iter()
        .filter(|hit| {
            let doc = &corpus.docs[hit.doc];
            in_period(doc.date, doc.date_end, opts.since, opts.until)
                && project.as_deref().is_none_or(|key| same_project(projects.of(doc).as_deref(), key))
        })
        .collect();
    let shown = opts.limit.map_or(kept.len(), |limit| limit.min(kept.len()));
    for hit in &kept[..shown] {
        let doc = &corpus.docs[hit.doc];
        print_hit(hit, doc, projects.of(doc).as_deref(), &workspace, &query, term)?;
    }
    let more = kept.len() - shown;
    term.json(
        "totals",
        &Totals {
            results: shown,
            more,
            files: corpus.files,
            documents: corpus.collection.documents,
            home: &settings.home.to_string_lossy(),
        },
    )?;
    if kept.is_empty() {
        term.note(&format!("no results for {}", describe_query(opts)));
        return Ok(EXIT_NOTHING_FOUND);
    }
    if more > 0 {
        term.note(&format!("{}; raise --limit to see them (0 shows all)", count(more, "more result")));
    }
    Ok(EXIT_OK)
}

/// The documents that can match, and the statistics of everything searched.
#[derive(Default)]
struct Corpus {
    docs: Vec<Doc>,
    collection: Collection,
    files: usize,
}

/// The workspace files in scope, read in parallel; only those whose bytes match are split
/// into documents, the rest only counted.
fn search_workspace(
    workspace: &Workspace,
    scope: SearchScope,
    query: &Query,
    corpus: &mut Corpus,
    term: &Terminal,
) -> Result<()> {
    let files = workspace_files(workspace, scope)?;
    let read = parallel::map(&files, |(relative, kind)| -> Result<Option<(Vec<Doc>, usize, usize)>> {
        let raw = match std::fs::read(workspace.file(relative)) {
            Ok(raw) => raw,
            // Removed since the folder was listed (a consolidation ran): nothing to search.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(
                    anyhow::Error::new(e).context(format!("cannot read {}", workspace.file(relative).display()))
                );
            }
        };
        if !query.matches_bytes(&raw) {
            let count = match kind {
                // Counting their documents means splitting them.
                Kind::Memory | Kind::Summary => {
                    split(*kind, relative, &String::from_utf8_lossy(&raw), &|_| false).count
                }
                _ => 1,
            };
            return Ok(Some((Vec::new(), count, raw.len())));
        }
        let split = split(*kind, relative, &String::from_utf8_lossy(&raw), &|body| query.is_match(body));
        Ok(Some((split.docs, split.count, raw.len())))
    });
    for result in read {
        match result {
            Ok(Some((docs, count, bytes))) => {
                corpus.files += 1;
                corpus.collection.documents += count;
                corpus.collection.total_bytes += bytes;
                corpus.docs.extend(docs);
            }
            Ok(None) => {}
            Err(e) => term.warn(&format!("{e:#}; skipped")),
        }
    }
    Ok(())
}

/// The documents of a workspace file that `keep` accepts, and how many it holds.
fn split(kind: Kind, relative: &str, text: &str, keep: &dyn Fn(&str) -> bool) -> docs::Split {
    match kind {
        Kind::Memory => docs::memory_docs(relative, text, keep),
        Kind::Summary => docs::summary_docs(relative, text, keep),
        Kind::Rollout => docs::Split { docs: vec![docs::rollout_doc(relative, text)], count: 1 },
        Kind::Note | Kind::Transcript => docs::Split { docs: vec![docs::note_doc(relative, text)], count: 1 },
    }
}

/// Workspace-relative paths of the files to search, in a stable order.
fn workspace_files(workspace: &Workspace, scope: SearchScope) -> Result<Vec<(String, Kind)>> {
    let mut files = Vec::new();
    if scope.memory {
        files.push((MEMORY.to_string(), Kind::Memory));
        files.push((SUMMARY.to_string(), Kind::Summary));
    }
    if scope.summaries {
        files.extend(markdown_in(workspace, ROLLOUT_SUMMARIES)?.into_iter().map(|f| (f, Kind::Rollout)));
    }
    if scope.notes {
        files.extend(markdown_in(workspace, NOTES_DIR)?.into_iter().map(|f| (f, Kind::Note)));
    }
    Ok(files)
}

/// The `.md` files directly in a workspace folder, sorted; none when it does not exist.
fn markdown_in(workspace: &Workspace, dir: &str) -> Result<Vec<String>> {
    let path = workspace.file(dir);
    let entries = match std::fs::read_dir(&path) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(anyhow::Error::new(e).context(format!("cannot read {}", path.display()))),
    };
    let mut files: Vec<String> = entries
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("{dir}/{name}"))
        .collect();
    files.sort();
    Ok(files)
}

/// Search the transcripts extraction has read (and not excluded), line by line through the
/// readers and the filter, skipping the ones outside the period before reading them.
fn search_transcripts(
    workspace: &Workspace,
    opts: &SearchSettings,
    query: &Query,
    corpus: &mut Corpus,
    term: &Terminal,
) -> Result<()> {
    let sources = workspace.load_sources()?;
    let entries: Vec<_> = sources
        .sources
        .iter()
        .filter(|(_, entry)| matches!(entry.state, SourceState::Extracted | SourceState::NoOp))
        .filter(|(_, entry)| entry.session_id.as_ref().is_none_or(|id| !sources.excluded.contains(id)))
        .filter(|(_, entry)| entry.updated_at.is_none() || in_period(entry.updated_at, None, opts.since, opts.until))
        .collect();
    let prefilter = prefilter(query);
    let read = parallel::map(&entries, |(path, entry)| {
        search_transcript(Path::new(path.as_str()), entry.format, prefilter.as_ref(), || TranscriptSink::new(query))
    });
    let mut projects = Projects::new();
    let mut gone = 0;
    for ((path, entry), result) in entries.iter().zip(read) {
        let searched = match result {
            Ok(searched) => searched,
            // Deleted since the last extract, which will mark it vanished.
            Err(_) if !Path::new(path.as_str()).exists() => {
                gone += 1;
                continue;
            }
            Err(e) => {
                term.warn(&format!("{e:#}; skipped"));
                continue;
            }
        };
        // Problems with single lines were reported when the file was extracted; a file that
        // changed since may hold new ones, and results the handbook does not know yet.
        if searched.bytes != entry.size {
            term.note(&format!("{path}: changed since it was extracted; run `handbook extract` to learn from it"));
        }
        corpus.files += 1;
        corpus.collection.documents += searched.lines as usize;
        corpus.collection.total_bytes += searched.bytes as usize;
        let finished = match searched.read {
            SearchRead::Session(finished) => finished,
            SearchRead::NoMatch => continue,
            SearchRead::NotATranscript(reason) => {
                term.warn(&format!("{path}: {reason}; skipped (it was a transcript when extracted)"));
                continue;
            }
        };
        if finished.sink.found.is_empty() {
            continue;
        }
        let session_id = entry.session_id.clone().or_else(|| finished.meta.id.clone());
        let stored = session_id.as_deref().and_then(|id| workspace.load_stage1(id).ok().flatten());
        let project = match stored {
            Some(record) => record.project,
            None => projects.key(finished.meta.git_remote.as_deref(), finished.meta.cwd.as_deref()),
        };
        for found in finished.sink.found {
            corpus.docs.push(Doc {
                path: path.to_string(),
                first_line: found.line as usize,
                text: found.text,
                fixed_line: true,
                kind: Kind::Transcript,
                session_id: session_id.clone(),
                date: entry.updated_at,
                date_end: None,
                project: Some(project.clone()),
            });
        }
    }
    if gone > 0 {
        term.note(&format!(
            "{gone} {} deleted since the last extract; not searched",
            if gone == 1 { "transcript was" } else { "transcripts were" }
        ));
    }
    Ok(())
}

/// The project of a rollout summary is not in its header: it comes from the session's
/// stage-1 record, looked up once per session and only when a filter asks.
struct RolloutProjects<'w> {
    workspace: &'w Workspace,
    cache: HashMap<String, Option<String>>,
}

impl<'w> RolloutProjects<'w> {
    fn new(workspace: &'w Workspace) -> RolloutProjects<'w> {
        RolloutProjects { workspace, cache: HashMap::new() }
    }

    fn of(&mut self, doc: &Doc) -> Option<String> {
        if doc.project.is_some() || doc.kind != Kind::Rollout {
            return doc.project.clone();
        }
        let id = doc.session_id.as_deref()?;
        let workspace = self.workspace;
        self.cache
            .entry(id.to_string())
            .or_insert_with(|| workspace.load_stage1(id).ok().flatten().map(|record| record.project))
            .clone()
    }
}

#[derive(Serialize)]
struct HitJson<'a> {
    path: &'a str,
    /// The file's absolute path.
    file: String,
    line: usize,
    kind: &'static str,
    score: f64,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    project: Option<&'a str>,
}

#[derive(Serialize)]
struct Totals<'a> {
    results: usize,
    /// Results the limit cut.
    more: usize,
    files: usize,
    documents: usize,
    home: &'a str,
}

fn print_hit(
    hit: &Hit,
    doc: &Doc,
    project: Option<&str>,
    workspace: &Workspace,
    query: &Query,
    term: &Terminal,
) -> Result<()> {
    let date = doc.date.map(day);
    if term.json {
        let file = if doc.kind == Kind::Transcript {
            doc.path.clone()
        } else {
            workspace.file(&doc.path).to_string_lossy().into_owned()
        };
        term.json(
            "result",
            &HitJson {
                path: &doc.path,
                file,
                line: hit.line,
                kind: doc.kind.name(),
                score: (hit.score * 1e4).round() / 1e4,
                text: &hit.text,
                session_id: doc.session_id.as_deref(),
                date,
                project,
            },
        )?;
        return Ok(());
    }
    let about: Vec<String> =
        [date, doc.session_id.as_ref().map(|id| format!("session {id}"))].into_iter().flatten().collect();
    let about = if about.is_empty() { String::new() } else { format!("  ({})", about.join(", ")) };
    let text = escape(&hit.text);
    let line = if term.color_stdout {
        format!(
            "{PATH_ON}{}{OFF}:{LINE_ON}{}{OFF}: {}{DIM_ON}{}{OFF}",
            escape(&doc.path),
            hit.line,
            highlight(&text, query, MATCH_ON, OFF),
            escape(&about)
        )
    } else {
        format!("{}:{}: {}{}", escape(&doc.path), hit.line, text, escape(&about))
    };
    term.styled_line(&line)?;
    Ok(())
}

/// The sessions of a period from their stage-1 records, newest first.
fn list_sessions(workspace: &Workspace, opts: &SearchSettings, project: Option<&str>, term: &Terminal) -> Result<u8> {
    let records = workspace.all_stage1(&mut |warning| term.warn(&warning))?;
    let mut sessions: Vec<&Stage1> = records
        .iter()
        .filter(|r| in_period(Some(r.updated_at), None, opts.since, opts.until))
        .filter(|r| project.is_none_or(|key| same_project(Some(&r.project), key)))
        .collect();
    sessions.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then_with(|| a.session_id.cmp(&b.session_id)));
    let shown = opts.limit.map_or(sessions.len(), |limit| limit.min(sessions.len()));
    for record in &sessions[..shown] {
        let summary = one_line(record);
        if term.json {
            term.json(
                "session",
                &SessionJson {
                    session_id: &record.session_id,
                    updated_at: record.updated_at,
                    started_at: record.started_at,
                    project: &record.project,
                    agent: record.agent.name(),
                    summary: &summary,
                    rollout_path: &record.rollout_path,
                },
            )?;
        } else {
            term.line(&format!(
                "{}  {}  {}  {}  ({})",
                record.updated_at.strftime("%Y-%m-%d %H:%M"),
                display_name(&record.project),
                record.agent.name(),
                summary,
                record.session_id
            ))?;
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

#[derive(Serialize)]
struct SessionJson<'a> {
    session_id: &'a str,
    updated_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    started_at: Option<Timestamp>,
    project: &'a str,
    agent: &'static str,
    summary: &'a str,
    rollout_path: &'a str,
}

/// A session in one line: its summary's title, else its own title, else its slug.
fn one_line(record: &Stage1) -> String {
    record
        .rollout_summary
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .or(record.title.as_deref())
        .unwrap_or(&record.rollout_slug)
        .to_string()
}

fn no_handbook(settings: &Settings) -> String {
    format!("no handbook yet in {}: run `handbook update` (or extract and consolidate) first", settings.home.display())
}

fn day(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%d").to_string()
}

fn describe_query(opts: &SearchSettings) -> String {
    let words = opts.query.iter().map(|w| format!("{w:?}")).collect::<Vec<_>>().join(" ");
    let mut bounds = Vec::new();
    if let Some(since) = opts.since {
        bounds.push(format!("since {since}"));
    }
    if let Some(until) = opts.until {
        bounds.push(format!("until {until}"));
    }
    if let Some(project) = &opts.project {
        bounds.push(format!("in project {}", project.display()));
    }
    if bounds.is_empty() { words } else { format!("{words} ({})", bounds.join(", ")) }
}
