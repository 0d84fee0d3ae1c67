//! Reading one transcript file through the core pipeline: detect its format, stream its
//! lines (bounded memory, whatever the file size, decompressing a `.jsonl.zst` as it goes),
//! hash it on the same pass, and turn every bad line, and damaged compressed data, into a
//! warning that names the line.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;
use std::rc::Rc;
use std::sync::{LazyLock, Mutex};

use anyhow::{Context, Result};

use super::discover::is_compressed;
use super::lines::{Line, LineSource, Lines, MAX_LINE_BYTES, MatchingLines};
use super::opencode;
use crate::core::formats::{FileHint, Sniffed, format_by_location, refined, sniff};
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

impl<S> FileRead<S> {
    /// The same read, with a session's sink turned into `f`'s answer.
    pub(crate) fn map<T>(self, f: impl FnOnce(Agent, Finished<S>) -> Finished<T>) -> FileRead<T> {
        match self {
            FileRead::Session { agent, finished, hash } => {
                FileRead::Session { agent, finished: Box::new(f(agent, *finished)), hash }
            }
            FileRead::NotATranscript { reason, hash } => FileRead::NotATranscript { reason, hash },
        }
    }
}

/// Content hash of a whole transcript: of the bytes its lines are made of, which for a
/// `.jsonl.zst` are the decompressed ones (up to where damaged data stops the decoder), and
/// for a session of opencode's older tree are its files together. So it is the hash
/// [`read_transcript`] computes as it reads, and a transcript keeps it whether it is stored
/// plain or compressed, at whatever level and by whichever zstd.
pub(crate) fn hash_file(path: &Path) -> Result<String> {
    if opencode::is_legacy_session(path) {
        return opencode::legacy_hash(path);
    }
    let opened = open(path)?;
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(opened.bytes).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(hasher.finalize().to_hex().to_string())
}

/// Read the transcript at `path`, as `forced` when given, feeding its events to the sink
/// `make_sink` builds. An error means the file could not be read at all.
pub(crate) fn read_transcript<S: Sink>(
    path: &Path,
    forced: Option<Agent>,
    make_sink: impl FnOnce() -> S,
) -> Result<FileRead<S>> {
    if opencode::is_legacy_session(path) && forced.is_none_or(|f| f == Agent::Opencode) {
        return opencode::read_legacy(path, make_sink);
    }
    let Opened { bytes, damage, size } = open(path)?;
    let reader = BufReader::with_capacity(buffer_for(&bytes, size), bytes);
    read_from(reader, &path.to_string_lossy(), &damage, forced, make_sink)
        .with_context(|| format!("cannot read {}", path.display()))
}

/// [`read_transcript`] over any reader; `name` is the file's path, for the format hints, and
/// `damage` says whether the reader stopped at damaged compressed data.
/// Read a stream of transcript lines that is not a file of its own (a session assembled
/// from a database or from many files), as [`read_transcript`] reads a file.
pub(crate) fn read_stream<R: Read, S: Sink>(
    reader: BufReader<R>,
    name: &str,
    forced: Option<Agent>,
    make_sink: impl FnOnce() -> S,
) -> io::Result<FileRead<S>> {
    read_from(reader, name, &Damage::default(), forced, make_sink)
}

fn read_from<R: Read, S: Sink>(
    reader: BufReader<R>,
    name: &str,
    damage: &Damage,
    forced: Option<Agent>,
    make_sink: impl FnOnce() -> S,
) -> io::Result<FileRead<S>> {
    let mut lines = Lines::new(reader);
    let read = read_lines(&mut lines, name, damage, forced, make_sink)?;
    let hash = lines.finish_hash()?;
    Ok(match read {
        Ok((agent, finished)) => FileRead::Session { agent, finished: Box::new(finished), hash },
        Err(reason) => FileRead::NotATranscript { reason, hash },
    })
}

/// What a search read of one transcript gave.
pub(crate) struct Searched<S> {
    pub(crate) read: SearchRead<S>,
    /// Lines in the file, and the bytes they are made of (decompressed, for a `.jsonl.zst`):
    /// the collection statistics of a ranked search.
    pub(crate) lines: u64,
    pub(crate) bytes: u64,
    /// The file's size on disk when it was opened, to compare with the size extraction saw.
    pub(crate) size: u64,
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
    if opencode::is_legacy_session(path) && forced.is_none_or(|f| f == Agent::Opencode) {
        let size = opencode::legacy_stat(path).map_or(0, |stat| stat.size);
        return searched_whole(read_transcript(path, forced, make_sink)?, size);
    }
    // An export is one document: every line of it is read, or none.
    let forced = forced.or_else(|| sniff_export(path));
    if let Some(prefilter) = prefilter {
        let Opened { bytes, size, .. } = open(path)?;
        let mut scan = MatchingLines::new(bytes, Some(&prefilter.words), 0);
        if scan.next_line().with_context(|| format!("cannot read {}", path.display()))?.is_none() {
            let (lines, bytes) = (scan.lines_seen(), scan.bytes_read());
            return Ok(Searched { read: SearchRead::NoMatch, lines, bytes, size });
        }
    }
    let head = if forced.is_some() { 1 } else { SNIFF_LINES };
    let Opened { bytes, damage, size } = open(path)?;
    let mut lines = MatchingLines::new(bytes, prefilter.map(|p| p.lines(forced)), head);
    let read = match read_lines(&mut lines, &path.to_string_lossy(), &damage, forced, make_sink)
        .with_context(|| format!("cannot read {}", path.display()))?
    {
        Ok((_, finished)) => SearchRead::Session(Box::new(finished)),
        Err(reason) => SearchRead::NotATranscript(reason),
    };
    Ok(Searched { read, lines: lines.lines_seen(), bytes: lines.bytes_read(), size })
}

/// A search read of a session that is read whole, whatever can match; `size` is what
/// extraction recorded as its size.
fn searched_whole<S>(read: FileRead<S>, size: u64) -> Result<Searched<S>> {
    let read = match read {
        FileRead::Session { finished, .. } => SearchRead::Session(finished),
        FileRead::NotATranscript { reason, .. } => SearchRead::NotATranscript(reason),
    };
    Ok(Searched { read, lines: 0, bytes: 0, size })
}

/// opencode when the file at `path` is an `opencode export` document (a `.json` file whose
/// first lines say so), so that a search reads all of it.
fn sniff_export(path: &Path) -> Option<Agent> {
    if path.extension().is_none_or(|e| e != "json") {
        return None;
    }
    let mut head = Vec::new();
    File::open(path).ok()?.take(64 * 1024).read_to_end(&mut head).ok()?;
    let head = String::from_utf8_lossy(&head);
    let lines = head.lines().filter(|l| !l.trim().is_empty()).take(SNIFF_LINES);
    matches!(sniff(lines), Some(Sniffed::Known(Agent::Opencode))).then_some(Agent::Opencode)
}

/// Detect the format from the first lines (unless `forced`), then feed every line to a
/// pipeline. `Err` says why the file is not a transcript.
fn read_lines<L: LineSource, S: Sink>(
    lines: &mut L,
    name: &str,
    damage: &Damage,
    forced: Option<Agent>,
    make_sink: impl FnOnce() -> S,
) -> io::Result<Result<(Agent, Finished<S>), String>> {
    // Hold the first lines back until the format is known.
    let mut held: Vec<(u64, Line, Vec<u8>)> = Vec::new();
    let mut held_bytes = 0;
    let agent = match forced {
        Some(agent) => Some(agent),
        None => {
            while held.iter().filter(|(_, l, b)| matches!(l, Line::Text { .. }) && !is_blank(b)).count() < SNIFF_LINES
                && held_bytes < SNIFF_BYTES
            {
                let Some((n, line)) = lines.next_line()? else {
                    break;
                };
                held_bytes += lines.bytes().len();
                held.push((n, line, lines.bytes().to_vec()));
            }
            let texts = held
                .iter()
                .filter(|(_, l, _)| matches!(l, Line::Text { .. }))
                .filter_map(|(_, _, b)| std::str::from_utf8(b).ok());
            match sniff(texts) {
                Some(Sniffed::Known(agent)) => Some(refined(agent, format_by_location(name))),
                Some(Sniffed::Unsupported(what)) => {
                    return Ok(Err(format!("{what} transcripts are not supported yet")));
                }
                None => format_by_location(name),
            }
        }
    };
    let Some(agent) = agent else {
        return Ok(Err(not_a_transcript(&held, damage)));
    };
    let (hint, note) = hint_for(name, agent);
    let mut pipeline = SessionPipeline::new(agent, hint, make_sink());
    if let Some(note) = note {
        pipeline.warn(0, note);
    }
    let mut fed = Fed::default();
    for (n, line, bytes) in &held {
        fed.feed(&mut pipeline, *n, *line, bytes, damage);
    }
    drop(held);
    while let Some((n, line)) = lines.next_line()? {
        fed.feed(&mut pipeline, n, line, lines.bytes(), damage);
    }
    if fed.last.is_none() {
        return Ok(Err(damage.get().map_or_else(|| "empty file".to_string(), Damaged::unreadable)));
    }
    fed.report_damage(&mut pipeline, damage);
    Ok(Ok((agent, pipeline.finish())))
}

/// Why a file whose format is not known is not read: `held` are its first lines.
fn not_a_transcript(held: &[(u64, Line, Vec<u8>)], damage: &Damage) -> String {
    if let Some(damaged) = damage.get() {
        damaged.unreadable()
    } else if held.iter().all(|(_, _, b)| is_blank(b)) {
        "empty file".to_string()
    } else if held.iter().any(|(_, _, b)| looks_binary(b)) {
        "binary data, not a transcript".to_string()
    } else {
        "not a recognised transcript format (use --format to force one)".to_string()
    }
}

/// How far the lines fed to a pipeline went, so damaged compressed data is reported once, at
/// the line where it stopped the read.
#[derive(Default)]
struct Fed {
    /// The last line fed, and whether it had a line ending.
    last: Option<(u64, bool)>,
    /// The damage was reported with the torn line it cut off.
    damage_reported: bool,
}

impl Fed {
    fn feed<S: Sink>(&mut self, pipeline: &mut SessionPipeline<S>, n: u64, line: Line, bytes: &[u8], damage: &Damage) {
        let terminated = !matches!(line, Line::Text { terminated: false });
        self.last = Some((n, terminated));
        self.damage_reported |= feed(pipeline, n, line, bytes, damage.get());
    }

    /// Warn about damaged compressed data unless the torn line it left said so already: at
    /// the line it cut off, or the line after the last whole one.
    fn report_damage<S: Sink>(&self, pipeline: &mut SessionPipeline<S>, damage: &Damage) {
        let (Some(damaged), false) = (damage.get(), self.damage_reported) else {
            return;
        };
        let (n, terminated) = self.last.unwrap_or((0, true));
        let at = if terminated { n + 1 } else { n };
        pipeline.warn(at, format!("{}; nothing after this can be read, what came before was", damaged.what()));
    }
}

/// Feed one line to the pipeline, warning about it when it is skipped. True when the line is
/// a torn last line left by `damaged` compressed data, and the warning said so.
fn feed<S: Sink>(
    pipeline: &mut SessionPipeline<S>,
    n: u64,
    line: Line,
    bytes: &[u8],
    damaged: Option<&Damaged>,
) -> bool {
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
                return false;
            }
            // The fast path: almost every line is valid UTF-8.
            let text = match std::str::from_utf8(bytes) {
                Ok(text) => std::borrow::Cow::Borrowed(text),
                Err(_) => String::from_utf8_lossy(bytes),
            };
            let lossy = matches!(text, std::borrow::Cow::Owned(_));
            match (pipeline.feed(n, &text), damaged) {
                (Ok(()), _) if lossy => pipeline.warn(n, "invalid UTF-8; undecodable bytes replaced".to_string()),
                (Ok(()), _) => {}
                (Err(error), Some(damaged)) if !terminated => {
                    let what = damaged.what();
                    pipeline.warn(error.line(), format!("{what}, in the middle of this line: {error}; skipped"));
                    return true;
                }
                (Err(error), None) if !terminated => {
                    pipeline.warn(error.line(), format!("torn last line (still being written?): {error}; skipped"))
                }
                (Err(error), _) if lossy => pipeline.warn(error.line(), format!("invalid UTF-8 and {error}; skipped")),
                (Err(error), _) => pipeline.warn(error.line(), format!("{error}; skipped")),
            }
        }
    }
    false
}

/// The largest window (back-reference distance) a compressed transcript may ask for, as a
/// power of two: 128 MiB, zstd's own default limit, stated here because it bounds the memory
/// one read can take. Codex's default level asks for a few MiB; a frame that wants more is
/// reported as damaged rather than allowed to claim gigabytes.
const MAX_WINDOW_LOG: u32 = 27;

/// A transcript file opened for reading.
struct Opened {
    bytes: Bytes,
    /// Set if the bytes stop early because the compressed data is damaged.
    damage: Damage,
    /// The file's size on disk.
    size: u64,
}

/// Open the transcript at `path`; a `.jsonl.zst` is decompressed as it is read.
fn open(path: &Path) -> Result<Opened> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let damage = Damage::default();
    let bytes = match is_compressed(path) {
        false => Bytes::Plain(file),
        true => {
            let watched = Watched { file, read: 0, failed: false };
            let mut decoder = zstd::stream::read::Decoder::new(watched)
                .with_context(|| format!("cannot start decompressing {}", path.display()))?;
            decoder.window_log_max(MAX_WINDOW_LOG).with_context(|| format!("cannot decompress {}", path.display()))?;
            Bytes::Zstd(Box::new(Zstd { decoder, decoded: 0, damage: damage.clone() }))
        }
    };
    Ok(Opened { bytes, damage, size })
}

/// Bytes read from a transcript at a time: 256 KiB, or less for a smaller plain file. The
/// buffer is zeroed before its first read, and most sessions are a few kilobytes.
fn buffer_for(bytes: &Bytes, size: u64) -> usize {
    const MAX: usize = 256 * 1024;
    match bytes {
        Bytes::Plain(_) => usize::try_from(size).unwrap_or(MAX).saturating_add(1).clamp(8 * 1024, MAX),
        Bytes::Zstd(_) => MAX,
    }
}

/// The bytes a transcript's lines are made of.
enum Bytes {
    Plain(File),
    Zstd(Box<Zstd>),
}

impl Read for Bytes {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Bytes::Plain(file) => file.read(buf),
            Bytes::Zstd(zstd) => zstd.read(buf),
        }
    }
}

/// A decompressing reader that ends where the compressed data is damaged (cut mid-frame, a
/// corrupt block, not zstd at all), recording why, so the lines before it are still read; a
/// failure to read the file itself stays an error, as it is for a plain file.
struct Zstd {
    decoder: zstd::stream::read::Decoder<'static, BufReader<Watched>>,
    decoded: u64,
    damage: Damage,
}

impl Read for Zstd {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.damage.get().is_some() {
            return Ok(0);
        }
        loop {
            match self.decoder.read(buf) {
                Ok(n) => {
                    self.decoded += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if self.decoder.get_ref().get_ref().failed => return Err(e),
                // A file of no bytes at all is empty, not a frame cut short.
                Err(_) if self.decoder.get_ref().get_ref().read == 0 => return Ok(0),
                Err(e) => {
                    let cut = e.kind() == io::ErrorKind::UnexpectedEof;
                    let _ = self.damage.0.set(Damaged { error: e.to_string(), cut, decoded: self.decoded });
                    return Ok(0);
                }
            }
        }
    }
}

/// The compressed file under the decoder, noting whether reading it failed (an I/O error,
/// not damaged data) and how much of it was read.
struct Watched {
    file: File,
    read: u64,
    failed: bool,
}

impl Read for Watched {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let result = self.file.read(buf);
        match &result {
            Ok(n) => self.read += *n as u64,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => self.failed = true,
        }
        result
    }
}

/// Where decompressing a transcript stopped at damaged data, once it did: set by the decoder
/// and read by whoever reports on the file, which by then owns the decoder no more. A plain
/// file's is never set. (One read runs on one thread, so an `Rc` is enough.)
#[derive(Clone, Default)]
struct Damage(Rc<OnceCell<Damaged>>);

impl Damage {
    fn get(&self) -> Option<&Damaged> {
        self.0.get()
    }
}

/// Why the compressed data could not be decoded further.
#[derive(Debug)]
struct Damaged {
    /// zstd's own words.
    error: String,
    /// The data stops in the middle of a frame: the file was cut short.
    cut: bool,
    /// Decompressed bytes read before it.
    decoded: u64,
}

impl Damaged {
    /// What happened, as the start of a warning.
    fn what(&self) -> String {
        match self.cut {
            true => "compressed data ends mid-frame (file cut short?)".to_string(),
            false => format!("compressed data is damaged ({})", self.error),
        }
    }

    /// Why a file that gave no line at all is not read.
    fn unreadable(&self) -> String {
        match (self.cut, self.decoded) {
            (false, 0) => format!(
                "not zstd-compressed data despite the .zst name ({}); rename it if it is plain text",
                self.error
            ),
            _ => format!("{} before its first line; restore the file to read it", self.what()),
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

/// Each project's folders: the slug `projects.json` names, and the SHA-256 of its path, which
/// is what Gemini CLI named the folder before it used slugs.
fn folders_of(projects: HashMap<String, String>) -> HashMap<String, String> {
    use sha2::Digest;
    let mut folders = HashMap::new();
    for (path, slug) in projects {
        let hash: String = sha2::Sha256::digest(path.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
        folders.insert(hash, path.clone());
        folders.insert(slug, path);
    }
    folders
}

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
            Ok(registry) => (folders_of(registry.projects), None),
            Err(e) => (
                HashMap::new(),
                Some(format!(
                    "{} is malformed ({e}); sessions' projects unknown unless they name them",
                    file.display()
                )),
            ),
        },
        // Gemini CLI writes the file only since it named project folders by slug; before, the
        // folder is a hash and there is nothing to map it with.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (HashMap::new(), None),
        Err(e) => (
            HashMap::new(),
            Some(format!("cannot read {} ({e}); sessions' projects unknown unless they name them", file.display())),
        ),
    };
    let projects = Projects::new(projects);
    read.insert(home.to_path_buf(), projects.clone());
    (projects, warning)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::session::{Event, LineWarning};

    /// Every event, as its debug form.
    #[derive(Default)]
    struct Events(Vec<String>);

    impl Sink for Events {
        fn push(&mut self, event: &Event<'_>) {
            self.0.push(format!("{event:?}"));
        }
    }

    const ROLLOUT: &str = concat!(
        r#"{"timestamp":"2026-01-02T03:04:05.000Z","type":"session_meta","payload":{"id":"019b0000-0000-7000-8000-000000000001","cwd":"/w"}}"#,
        "\n",
        r#"{"timestamp":"2026-01-02T03:04:06.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"first question"}]}}"#,
        "\n",
        r#"{"timestamp":"2026-01-02T03:04:07.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"first answer"}]}}"#,
        "\n",
        r#"{"timestamp":"2026-01-02T03:04:08.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"second question"}]}}"#,
        "\n",
    );

    fn compress(data: &[u8]) -> Vec<u8> {
        zstd::encode_all(data, 3).unwrap()
    }

    /// Write `bytes` as `name` in `dir`; its path.
    fn file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    struct Read {
        events: Vec<String>,
        warnings: Vec<LineWarning>,
        hash: String,
        id: Option<String>,
    }

    fn read(path: &Path) -> std::result::Result<Read, String> {
        match read_transcript(path, None, Events::default).unwrap() {
            FileRead::Session { finished, hash, .. } => {
                let Finished { meta, sink, warnings, .. } = *finished;
                Ok(Read { events: sink.0, warnings, hash, id: meta.id })
            }
            FileRead::NotATranscript { reason, .. } => Err(reason),
        }
    }

    const NAME: &str = "rollout-2026-01-02T03-04-05-019b0000-0000-7000-8000-000000000001.jsonl";

    #[test]
    fn gemini_folders_named_by_slug_or_by_hash_map_to_their_project() {
        let projects = HashMap::from([("/home/dev/cli".to_string(), "cli".to_string())]);
        let folders = folders_of(projects);
        assert_eq!(folders.get("cli").map(String::as_str), Some("/home/dev/cli"));
        // `printf %s /home/dev/cli | sha256sum`
        let hash = "befd2bd557306b568691483b3ebded5f0189233610bc62a37aa18d7fb34fa8e3";
        assert_eq!(folders.get(hash).map(String::as_str), Some("/home/dev/cli"));
        assert_eq!(folders.len(), 2);
    }

    #[test]
    fn a_gemini_home_without_a_project_map_is_no_warning() {
        let dir = tempfile::tempdir().unwrap();
        let (projects, warning) = gemini_projects(dir.path());
        assert!(projects.is_empty());
        assert_eq!(warning, None, "older Gemini CLI versions write no projects.json");
        let other = tempfile::tempdir().unwrap();
        std::fs::create_dir(other.path().join("projects.json")).unwrap();
        let (_, warning) = gemini_projects(other.path());
        assert!(warning.is_some_and(|w| w.starts_with("cannot read ")), "one that cannot be read is worth saying");
    }

    #[test]
    fn a_compressed_rollout_reads_as_its_plain_twin_with_the_same_hash() {
        let dir = tempfile::tempdir().unwrap();
        let plain = file(&dir, NAME, ROLLOUT.as_bytes());
        let zst = file(&dir, &format!("{NAME}.zst"), &compress(ROLLOUT.as_bytes()));
        let (a, b) = (read(&plain).unwrap(), read(&zst).unwrap());
        assert_eq!(a.events, b.events);
        assert_eq!(b.events.len(), 3, "{:?}", b.events);
        assert!(b.warnings.is_empty(), "{:?}", b.warnings);
        assert_eq!(a.hash, b.hash, "the hash is over the lines, not their encoding");
        assert_eq!(hash_file(&zst).unwrap(), b.hash);
        assert_eq!(hash_file(&plain).unwrap(), blake3::hash(ROLLOUT.as_bytes()).to_hex().to_string());
        assert_eq!(b.id.as_deref(), Some("019b0000-0000-7000-8000-000000000001"));
    }

    #[test]
    fn concatenated_frames_read_as_one_file() {
        let dir = tempfile::tempdir().unwrap();
        let (head, tail) = ROLLOUT.split_at(ROLLOUT.find("\n{").unwrap() + 1);
        let zst = file(&dir, &format!("{NAME}.zst"), &[compress(head.as_bytes()), compress(tail.as_bytes())].concat());
        assert_eq!(read(&zst).unwrap().events.len(), 3);
    }

    #[test]
    fn a_cut_file_keeps_the_lines_before_the_cut_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        // Two frames, so the cut leaves the first one whole.
        let first_lines = &ROLLOUT[..ROLLOUT.match_indices('\n').nth(1).unwrap().0 + 1];
        let mut bytes = compress(first_lines.as_bytes());
        let second = compress(&ROLLOUT.as_bytes()[first_lines.len()..]);
        bytes.extend_from_slice(&second[..second.len() / 2]);
        let zst = file(&dir, &format!("{NAME}.zst"), &bytes);
        let cut = read(&zst).unwrap();
        assert_eq!(cut.events.len(), 1, "the first frame's user turn: {:?}", cut.events);
        assert_eq!(cut.warnings.len(), 1, "{:?}", cut.warnings);
        let warning = &cut.warnings[0];
        assert_eq!(warning.line, 3, "the line after the last whole one: {warning:?}");
        assert!(warning.message.starts_with("compressed data ends mid-frame (file cut short?)"), "{warning:?}");
        assert_eq!(hash_file(&zst).unwrap(), cut.hash, "an unchanged damaged file hashes as it read");
    }

    #[test]
    fn a_cut_in_a_long_file_tears_one_line_and_keeps_the_blocks_before() {
        // zstd decodes whole blocks of up to 128 KiB: a long file cut in its middle gives the
        // lines of the blocks before the cut, the last of them torn.
        let mut text = ROLLOUT.lines().next().unwrap().to_string() + "\n";
        for i in 0..3000u32 {
            text += &format!(
                r#"{{"timestamp":"2026-01-02T03:04:06.000Z","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"question {i} {}"}}]}}}}"#,
                blake3::hash(&i.to_le_bytes()).to_hex()
            );
            text.push('\n');
        }
        let whole = compress(text.as_bytes());
        let dir = tempfile::tempdir().unwrap();
        let zst = file(&dir, &format!("{NAME}.zst"), &whole[..whole.len() / 2]);
        let cut = read(&zst).unwrap();
        assert!(cut.events.len() > 100 && cut.events.len() < 3000, "{} events", cut.events.len());
        assert_eq!(cut.warnings.len(), 1, "{:?}", cut.warnings);
        let warning = &cut.warnings[0];
        assert_eq!(warning.line, cut.events.len() as u64 + 2, "the line after the last one read");
        assert!(
            warning.message.starts_with("compressed data ends mid-frame (file cut short?), in the middle of this line"),
            "{warning:?}"
        );
        assert!(cut.events.iter().all(|e| !e.contains("question 2999 ")));
        assert_eq!(hash_file(&zst).unwrap(), cut.hash);
        // A cut inside the only block leaves nothing to read.
        let short = compress(ROLLOUT.as_bytes());
        let zst = file(&dir, &format!("{NAME}.zst"), &short[..short.len() / 2]);
        let reason = read(&zst).err().unwrap();
        assert_eq!(
            reason,
            "compressed data ends mid-frame (file cut short?) before its first line; restore the file to read it"
        );
    }

    #[test]
    fn corrupt_data_is_a_warning_naming_the_damage() {
        let dir = tempfile::tempdir().unwrap();
        let first_lines = &ROLLOUT[..ROLLOUT.find("\n{").unwrap() + 1];
        let mut bytes = compress(first_lines.as_bytes());
        let mut second = compress(&ROLLOUT.as_bytes()[first_lines.len()..]);
        // Break the second frame's header: its magic number stays, its descriptor goes bad.
        second[4] = 0xff;
        second[5] = 0xff;
        bytes.extend_from_slice(&second);
        let zst = file(&dir, &format!("{NAME}.zst"), &bytes);
        let damaged = read(&zst).unwrap();
        assert_eq!(damaged.events.len(), 0, "the session meta is not an event: {:?}", damaged.events);
        assert_eq!(damaged.id.as_deref(), Some("019b0000-0000-7000-8000-000000000001"));
        assert_eq!(damaged.warnings.len(), 1, "{:?}", damaged.warnings);
        assert_eq!(damaged.warnings[0].line, 2);
        assert!(damaged.warnings[0].message.starts_with("compressed data is damaged ("), "{:?}", damaged.warnings);
    }

    #[test]
    fn plain_text_named_zst_and_an_empty_zst_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let fake = file(&dir, &format!("{NAME}.zst"), ROLLOUT.as_bytes());
        let reason = read(&fake).err().unwrap();
        assert!(reason.starts_with("not zstd-compressed data despite the .zst name ("), "{reason}");
        let empty = file(&dir, "other.jsonl.zst", b"");
        assert_eq!(read(&empty).err().unwrap(), "empty file");
        assert_eq!(hash_file(&empty).unwrap(), blake3::hash(b"").to_hex().to_string());
    }

    #[test]
    fn a_search_reads_inside_a_compressed_file() {
        let dir = tempfile::tempdir().unwrap();
        let zst = file(&dir, &format!("{NAME}.zst"), &compress(ROLLOUT.as_bytes()));
        let searched = search_transcript(&zst, None, None, Events::default).unwrap();
        let SearchRead::Session(finished) = searched.read else { panic!("not read as a session") };
        assert!(finished.sink.0.iter().any(|e| e.contains("second question")), "{:?}", finished.sink.0);
        assert_eq!((searched.lines, searched.bytes), (4, ROLLOUT.len() as u64));
        assert_eq!(searched.size, std::fs::metadata(&zst).unwrap().len());
    }
}
