//! Reading what a search ranks: the workspace files in scope and the transcripts extraction
//! has read, in parallel and as raw bytes first; and the projects of rollout summaries, from
//! their stage-1 records.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::Result;

use super::git::Projects;
use super::opencode::{Snapshot, is_legacy_session};
use super::parallel;
use super::terminal::Terminal;
use super::transcript::{SearchRead, Searched, search_transcript};
use super::workspace::Workspace;
use crate::config::SearchScope;
use crate::core::layout::{MEMORY, NOTES_DIR, ROLLOUT_SUMMARIES, SUMMARY};
use crate::core::search::Query;
use crate::core::search::bounds::{Bounds, transcripts_in};
use crate::core::search::corpus::{Corpus, TranscriptOf, file_split, transcript_docs};
use crate::core::search::docs::{Doc, Kind, Split};
use crate::core::search::transcripts::{TranscriptSink, prefilter};
use crate::core::state::{SourceEntry, SourceKey};

/// Add the workspace files in scope to the corpus. A file that cannot be read is warned
/// about and skipped; one removed since its folder was listed (a consolidation ran) is
/// skipped quietly.
pub(crate) fn read_workspace(
    workspace: &Workspace,
    scope: SearchScope,
    query: &Query,
    corpus: &mut Corpus,
    term: &Terminal,
) -> Result<()> {
    let files = workspace_files(workspace, scope)?;
    let read = parallel::map(&files, |(relative, kind)| read_file(workspace, relative, *kind, query));
    for result in read {
        match result {
            Ok(Some((split, bytes))) => corpus.add_file(split, bytes),
            Ok(None) => {}
            Err(e) => term.warn(&format!("{e:#}; skipped")),
        }
    }
    Ok(())
}

/// A workspace file's documents that can match and its size; `None` when it is gone.
fn read_file(workspace: &Workspace, relative: &str, kind: Kind, query: &Query) -> Result<Option<(Split, usize)>> {
    let Some(raw) = workspace.read_bytes(relative)? else { return Ok(None) };
    Ok(Some((file_split(kind, relative, &raw, query), raw.len())))
}

/// Workspace-relative paths of the files to search, in a stable order.
pub(crate) fn workspace_files(workspace: &Workspace, scope: SearchScope) -> Result<Vec<(String, Kind)>> {
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

/// The `.md` entries directly in a workspace folder, sorted; none when it does not exist.
/// One that is not a plain file is refused when it is read, with a warning naming it.
fn markdown_in(workspace: &Workspace, dir: &str) -> Result<Vec<String>> {
    let names = workspace.list(dir)?;
    Ok(names.into_iter().filter(|name| name.ends_with(".md")).map(|name| format!("{dir}/{name}")).collect())
}

/// Add the transcripts extraction has read (and not excluded) to the corpus, line by line
/// through the readers and the filter, skipping the ones outside the period unread.
pub(crate) fn read_transcripts(
    workspace: &Workspace,
    bounds: &Bounds,
    query: &Query,
    corpus: &mut Corpus,
    term: &Terminal,
) -> Result<()> {
    let sources = workspace.load_sources()?;
    let (files, members): (Vec<_>, Vec<_>) =
        transcripts_in(&sources, bounds).into_iter().partition(|(key, _)| key.member.is_none());
    let prefilter = prefilter(query);
    let read = parallel::map(&files, |(key, entry)| {
        search_transcript(Path::new(&*key.path), entry.format, prefilter.as_ref(), || TranscriptSink::new(query))
    });
    let mut projects = Projects::new();
    let mut gone = 0;
    for ((key, entry), result) in files.iter().zip(read) {
        match result {
            Ok(searched) => add_transcript(workspace, &mut projects, key, entry, searched, corpus, term),
            // Deleted since the last extract, which will mark it vanished.
            Err(_) if !Path::new(&*key.path).exists() => gone += 1,
            Err(e) => term.warn(&format!("{e:#}; skipped")),
        }
    }
    gone += read_members(workspace, &members, query, &mut projects, corpus, term)?;
    if gone > 0 {
        term.note(&format!(
            "{gone} {} deleted since the last extract; not searched",
            if gone == 1 { "transcript was" } else { "transcripts were" }
        ));
    }
    Ok(())
}

/// Search the sessions that live in databases: one private copy of each database, its
/// sessions read one after the other. How many databases are gone.
fn read_members(
    workspace: &Workspace,
    members: &[(&SourceKey, &SourceEntry)],
    query: &Query,
    projects: &mut Projects,
    corpus: &mut Corpus,
    term: &Terminal,
) -> Result<u64> {
    let scratch = workspace.scratch(true);
    let mut gone = 0;
    for chunk in members.chunk_by(|a, b| a.0.path == b.0.path) {
        let db = Path::new(&*chunk[0].0.path);
        let snapshot = match scratch.path().and_then(|dir| Snapshot::take(db, dir)) {
            Ok(snapshot) => snapshot,
            Err(_) if !db.exists() => {
                gone += 1;
                continue;
            }
            Err(e) => {
                term.warn(&format!("{e:#}; not searched"));
                continue;
            }
        };
        let held: HashSet<String> = match snapshot.sessions() {
            Ok(members) => members.into_iter().map(|m| m.id).collect(),
            Err(e) => {
                term.warn(&format!("{e:#}; not searched"));
                continue;
            }
        };
        for (key, entry) in chunk {
            let id = key.member.as_deref().unwrap_or_default();
            // Deleted from the database since the last extract, which will mark it vanished.
            if !held.contains(id) {
                gone += 1;
                continue;
            }
            match snapshot.search(id, || TranscriptSink::new(query)) {
                Ok(searched) => add_transcript(workspace, projects, key, entry, searched, corpus, term),
                Err(e) => term.warn(&format!("{key}: {e:#}; skipped")),
            }
        }
    }
    Ok(gone)
}

/// Count a searched transcript and keep its matching records, each carrying the session's
/// id and project: from its stage-1 record when there is one, else from where it ran.
fn add_transcript(
    workspace: &Workspace,
    projects: &mut Projects,
    key: &SourceKey,
    entry: &SourceEntry,
    searched: Searched<TranscriptSink<'_>>,
    corpus: &mut Corpus,
    term: &Terminal,
) {
    // Problems with single lines were reported when the file was extracted; a file that
    // changed since may hold new ones, and results the handbook does not know yet.
    let path = key.to_string();
    // A database session's size counts its rows, not bytes; its changes are found by extract.
    if key.member.is_none() && searched.size != entry.size {
        term.note(&format!("{path}: changed since it was extracted; run `handbook extract` to learn from it"));
    }
    corpus.add_transcript(searched.lines, searched.bytes);
    let finished = match searched.read {
        SearchRead::Session(finished) => finished,
        SearchRead::NoMatch => return,
        SearchRead::NotATranscript(reason) => {
            term.warn(&format!("{path}: {reason}; skipped (it was a transcript when extracted)"));
            return;
        }
    };
    if finished.sink.found.is_empty() {
        return;
    }
    let session_id = entry.session_id.as_deref().map(str::to_string).or_else(|| finished.meta.id.clone());
    let stored = session_id.as_deref().and_then(|id| workspace.load_stage1(id).ok().flatten());
    let project = match stored {
        Some(record) => record.project,
        None => projects.key(finished.meta.git_remote.as_deref(), finished.meta.cwd.as_deref()),
    };
    let of = TranscriptOf { session_id, date: entry.updated_at, project };
    // A session read as a stream of records has no file lines to cite: its places do.
    let streamed = key.member.is_some() || is_legacy_session(Path::new(&*key.path));
    let meta = &finished.meta;
    let place = |line: u64| streamed.then(|| meta.place(line).into_owned());
    // A result names the file (a database's session is named by its id, beside it).
    corpus.docs.extend(transcript_docs(&key.path, finished.sink.found, &of, place));
}

/// The absolute path of a document's file (a transcript's path already is).
pub(crate) fn file_of(workspace: &Workspace, doc: &Doc) -> String {
    if doc.kind == Kind::Transcript {
        doc.path.clone()
    } else {
        workspace.file(&doc.path).to_string_lossy().into_owned()
    }
}

/// The project of a rollout summary is not in its header: it comes from the session's
/// stage-1 record, looked up once per session and only when asked.
pub(crate) struct RolloutProjects<'w> {
    workspace: &'w Workspace,
    cache: HashMap<String, Option<String>>,
}

impl<'w> RolloutProjects<'w> {
    pub(crate) fn new(workspace: &'w Workspace) -> RolloutProjects<'w> {
        RolloutProjects { workspace, cache: HashMap::new() }
    }

    /// The project of a document: its own, or for a rollout summary its session's.
    pub(crate) fn of(&mut self, doc: &Doc) -> Option<String> {
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
