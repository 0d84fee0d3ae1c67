//! Reading one transcript file through the core pipeline: detect its format, stream its
//! lines (bounded memory, whatever the file size), hash it on the same pass, and turn every
//! bad line into a warning that names the line.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;
use std::sync::{LazyLock, Mutex};

use anyhow::{Context, Result};

use super::lines::{Line, LineSource, Lines, MAX_LINE_BYTES, MatchingLines};
use crate::core::formats::{FileHint, Sniffed, format_by_location, sniff};
use crate::core::pipeline::{Finished, SessionPipeline, Sink};
use crate::core::search::transcripts::Prefilter;
use crate::core::session::Agent;

/// Non-blank lines looked at to detect a format.
const SNIFF_LINES: usize = 8;
/// Bytes of those lines kept for detection at most.
const SNIFF_BYTES: usize = 4 * 1024 * 1024;

/// What reading a file gave.
pub(crate) enum FileRead<S> {
    /// A transcript, read through the pipeline.
    Session { agent: Agent, finished: Box<Finished<S>>, hash: String },
    /// Not a transcript: empty, binary, or of no known format.
    NotATranscript { reason: String, hash: String },
}

/// Content hash of a whole file.
pub(crate) fn hash_file(path: &Path) -> Result<String> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(file).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(hasher.finalize().to_hex().to_string())
}

/// Read the transcript at `path`, as `forced` when given, feeding its events to the sink
/// `make_sink` builds. An error means the file could not be read at all.
pub(crate) fn read_transcript<S: Sink>(
    path: &Path,
    forced: Option<Agent>,
    make_sink: impl FnOnce() -> S,
) -> Result<FileRead<S>> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    read_from(BufReader::with_capacity(256 * 1024, file), &path.to_string_lossy(), forced, make_sink)
        .with_context(|| format!("cannot read {}", path.display()))
}

/// [`read_transcript`] over any reader; `name` is the file's path, for the format hints.
pub(crate) fn read_from<R: Read, S: Sink>(
    reader: BufReader<R>,
    name: &str,
    forced: Option<Agent>,
    make_sink: impl FnOnce() -> S,
) -> std::io::Result<FileRead<S>> {
    let mut lines = Lines::new(reader);
    let read = read_lines(&mut lines, name, forced, make_sink)?;
    let hash = lines.finish_hash()?;
    Ok(match read {
        Ok((agent, finished)) => FileRead::Session { agent, finished: Box::new(finished), hash },
        Err(reason) => FileRead::NotATranscript { reason, hash },
    })
}

/// What a search read of one transcript gave.
pub(crate) struct Searched<S> {
    pub(crate) read: SearchRead<S>,
    /// Lines in the file, and its size: the collection statistics of a ranked search.
    pub(crate) lines: u64,
    pub(crate) bytes: u64,
}

/// How far a search read a transcript.
pub(crate) enum SearchRead<S> {
    /// Read through the pipeline.
    Session(Box<Finished<S>>),
    /// Scanned: no line can match.
    NoMatch,
    /// Not (or no longer) a transcript, and why.
    NotATranscript(String),
}

/// Read the transcript at `path` for a search. With a prefilter, a file none of whose lines
/// can match is only scanned; one that has such lines is read again for its first lines
/// (format and metadata; one when the format is known) and the lines `prefilter.lines`
/// matches. Without one, every line is read.
pub(crate) fn search_transcript<S: Sink>(
    path: &Path,
    forced: Option<Agent>,
    prefilter: Option<&Prefilter>,
    make_sink: impl FnOnce() -> S,
) -> Result<Searched<S>> {
    let open = || File::open(path).with_context(|| format!("cannot open {}", path.display()));
    if let Some(prefilter) = prefilter {
        let mut scan = MatchingLines::new(open()?, Some(&prefilter.words), 0);
        if scan.next_line().with_context(|| format!("cannot read {}", path.display()))?.is_none() {
            return Ok(Searched { read: SearchRead::NoMatch, lines: scan.lines_seen(), bytes: scan.bytes_read() });
        }
    }
    let head = if forced.is_some() { 1 } else { SNIFF_LINES };
    let mut lines = MatchingLines::new(open()?, prefilter.map(|p| p.lines(forced)), head);
    let read = match read_lines(&mut lines, &path.to_string_lossy(), forced, make_sink)
        .with_context(|| format!("cannot read {}", path.display()))?
    {
        Ok((_, finished)) => SearchRead::Session(Box::new(finished)),
        Err(reason) => SearchRead::NotATranscript(reason),
    };
    Ok(Searched { read, lines: lines.lines_seen(), bytes: lines.bytes_read() })
}

/// Detect the format from the first lines (unless `forced`), then feed every line to a
/// pipeline. `Err` says why the file is not a transcript.
fn read_lines<L: LineSource, S: Sink>(
    lines: &mut L,
    name: &str,
    forced: Option<Agent>,
    make_sink: impl FnOnce() -> S,
) -> std::io::Result<Result<(Agent, Finished<S>), String>> {
    // Hold the first lines back until the format is known.
    let mut held: Vec<(u64, Line, Vec<u8>)> = Vec::new();
    let mut held_bytes = 0;
    let mut saw_any = false;
    let agent = match forced {
        Some(agent) => Some(agent),
        None => {
            while held.iter().filter(|(_, l, b)| matches!(l, Line::Text { .. }) && !is_blank(b)).count() < SNIFF_LINES
                && held_bytes < SNIFF_BYTES
            {
                let Some((n, line)) = lines.next_line()? else {
                    break;
                };
                saw_any = true;
                held_bytes += lines.bytes().len();
                held.push((n, line, lines.bytes().to_vec()));
            }
            let texts = held
                .iter()
                .filter(|(_, l, _)| matches!(l, Line::Text { .. }))
                .filter_map(|(_, _, b)| std::str::from_utf8(b).ok());
            match sniff(texts) {
                Some(Sniffed::Known(agent)) => Some(agent),
                Some(Sniffed::Unsupported(what)) => {
                    return Ok(Err(format!("{what} transcripts are not supported yet")));
                }
                None => format_by_location(name),
            }
        }
    };
    let Some(agent) = agent else {
        let reason = if !saw_any || held.iter().all(|(_, _, b)| is_blank(b)) {
            "empty file".to_string()
        } else if held.iter().any(|(_, _, b)| looks_binary(b)) {
            "binary data, not a transcript".to_string()
        } else {
            "not a recognised transcript format (use --format to force one)".to_string()
        };
        return Ok(Err(reason));
    };
    let (hint, note) = hint_for(name, agent);
    let mut pipeline = SessionPipeline::new(agent, hint, make_sink());
    if let Some(note) = note {
        pipeline.warn(0, note);
    }
    for (n, line, bytes) in &held {
        feed(&mut pipeline, *n, *line, bytes);
    }
    drop(held);
    while let Some((n, line)) = lines.next_line()? {
        saw_any = true;
        feed(&mut pipeline, n, line, lines.bytes());
    }
    if !saw_any {
        return Ok(Err("empty file".to_string()));
    }
    Ok(Ok((agent, pipeline.finish())))
}

fn feed<S: Sink>(pipeline: &mut SessionPipeline<S>, n: u64, line: Line, bytes: &[u8]) {
    match line {
        Line::TooLong { len } => pipeline.warn(
            n,
            format!(
                "line is {:.1} MB, over the {} MB limit; skipped",
                len as f64 / 1e6,
                MAX_LINE_BYTES / (1024 * 1024)
            ),
        ),
        Line::Text { terminated } => {
            if looks_binary(bytes) {
                pipeline.warn(n, "binary data; skipped".to_string());
                return;
            }
            // The fast path: almost every line is valid UTF-8.
            let text = match std::str::from_utf8(bytes) {
                Ok(text) => std::borrow::Cow::Borrowed(text),
                Err(_) => String::from_utf8_lossy(bytes),
            };
            let lossy = matches!(text, std::borrow::Cow::Owned(_));
            match pipeline.feed(n, &text) {
                Ok(()) if lossy => pipeline.warn(n, "invalid UTF-8; undecodable bytes replaced".to_string()),
                Ok(()) => {}
                Err(error) if !terminated => {
                    pipeline.warn(error.line(), format!("torn last line (still being written?): {error}; skipped"))
                }
                Err(error) if lossy => pipeline.warn(error.line(), format!("invalid UTF-8 and {error}; skipped")),
                Err(error) => pipeline.warn(error.line(), format!("{error}; skipped")),
            }
        }
    }
}

fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(u8::is_ascii_whitespace)
}

/// NUL bytes, or mostly control bytes, mean this is not text.
fn looks_binary(bytes: &[u8]) -> bool {
    let sample = &bytes[..bytes.len().min(4096)];
    if memchr::memchr(0, sample).is_some() {
        return true;
    }
    let control = sample.iter().filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x1b)).count();
    !sample.is_empty() && control * 10 > sample.len()
}

/// What the reader of `agent` is told about the file at `name`, and a warning about where
/// that came from, for the first session that needed it.
fn hint_for(name: &str, agent: Agent) -> (FileHint, Option<String>) {
    let mut hint = FileHint::from_path(name);
    let mut note = None;
    if agent == Agent::Gemini
        && let Some((home, folder)) = gemini_project_folder(name)
    {
        let (projects, warning) = gemini_projects(&home);
        note = warning;
        hint.project = projects.get(&folder).cloned();
    }
    (hint, note)
}

/// `(<gemini home>, <project folder>)` of a recording under `<home>/tmp/<folder>/chats/`.
fn gemini_project_folder(name: &str) -> Option<(std::path::PathBuf, String)> {
    let path = Path::new(name);
    let chats = path.ancestors().find(|a| a.file_name().is_some_and(|n| n == "chats"))?;
    let folder = chats.parent()?;
    let tmp = folder.parent().filter(|t| t.file_name().is_some_and(|n| n == "tmp"))?;
    Some((tmp.parent()?.to_path_buf(), folder.file_name()?.to_string_lossy().into_owned()))
}

type Projects = std::sync::Arc<HashMap<String, String>>;

/// Gemini CLI's map of project folders to project paths (`<home>/projects.json`, which maps
/// paths to folder names), read once per run; the warning comes with the first read of it.
fn gemini_projects(home: &Path) -> (Projects, Option<String>) {
    static READ: LazyLock<Mutex<HashMap<std::path::PathBuf, Projects>>> = LazyLock::new(Default::default);
    // A poisoned lock only means another thread panicked while reading; the map is still whole.
    let mut read = READ.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(projects) = read.get(home) {
        return (projects.clone(), None);
    }
    #[derive(serde::Deserialize)]
    struct Registry {
        projects: HashMap<String, String>,
    }
    let file = home.join("projects.json");
    let (projects, warning) = match std::fs::read_to_string(&file) {
        Ok(text) => match serde_json::from_str::<Registry>(&text) {
            Ok(registry) => (registry.projects.into_iter().map(|(path, folder)| (folder, path)).collect(), None),
            Err(e) => (
                HashMap::new(),
                Some(format!(
                    "{} is malformed ({e}); sessions' projects unknown unless they name them",
                    file.display()
                )),
            ),
        },
        Err(e) => (
            HashMap::new(),
            Some(format!("cannot read {} ({e}); sessions' projects unknown unless they name them", file.display())),
        ),
    };
    let projects = Projects::new(projects);
    read.insert(home.to_path_buf(), projects.clone());
    (projects, warning)
}
