//! opencode's stores, read without ever writing to them: its SQLite database (through a
//! private snapshot, since even a read-only open touches the `-shm` file and an `immutable`
//! one misses what is still in the `-wal`), and its older `storage/` tree of JSON files. Both
//! become the record stream of [`crate::core::formats::opencode`], one session at a time.

use std::collections::VecDeque;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The name of the private copy in its folder.
const COPY: &str = "opencode.db";

use anyhow::{Context, Result, anyhow, bail};
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, types::ValueRef};
use serde_json::Value;

use super::discover;
use super::transcript::{FileRead, SearchRead, Searched, read_stream};
use crate::core::formats::is_opencode_database;
use crate::core::formats::opencode::{message_line, part_line, session_line};
use crate::core::pipeline::Sink;
use crate::core::session::Agent;
use crate::core::state::FileStat;

/// Copies tried before a database that keeps changing is left for the next run.
const TRIES: u32 = 5;

/// True for an opencode database file name (`opencode.db`, `opencode-<channel>.db`).
pub(crate) fn is_database(path: &Path) -> bool {
    is_opencode_database(discover::name_of(path))
}

/// The database and its `-wal` as one stat: summed size, newest modification time. Equal
/// stats mean nothing was written. (The `-shm` is left out: readers touch it too.)
pub(crate) fn database_stat(db: &Path) -> Result<FileStat> {
    let mut stat = discover::plain_stat(db)?;
    if let Some(wal) = optional_stat(&wal_of(db))? {
        stat = FileStat { size: stat.size + wal.size, mtime_ns: stat.mtime_ns.max(wal.mtime_ns) };
    }
    Ok(stat)
}

fn wal_of(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

fn optional_stat(path: &Path) -> Result<Option<FileStat>> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        _ => discover::plain_stat(path).map(Some),
    }
}

/// One session of a database.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Member {
    pub(crate) id: String,
    pub(crate) parent: Option<String>,
    pub(crate) title: Option<String>,
    /// Changes when any of its messages or parts is added, updated or removed: `size` is
    /// their rows plus the bytes of their data, `mtime_ns` the newest `time_updated`.
    pub(crate) stat: FileStat,
}

/// A private, consistent copy of a database and its `-wal`, opened there; removed on drop.
pub(crate) struct Snapshot {
    conn: Connection,
    source: PathBuf,
    // Dropped after the connection, which may still write its `-shm` there; shared with the
    // connections other threads open on the same copy.
    dir: Arc<tempfile::TempDir>,
}

/// What another thread needs to read the same private copy: it opens a connection of its
/// own (a connection serves one thread at a time), and the copy lives while one is open.
#[derive(Clone)]
pub(crate) struct Shared {
    source: PathBuf,
    dir: Arc<tempfile::TempDir>,
}

impl Shared {
    /// A snapshot of its own on the same copy.
    pub(crate) fn open(&self) -> Result<Snapshot> {
        let conn = open_copy(&self.dir.path().join(COPY))
            .with_context(|| format!("{}: cannot open its copy again", self.source.display()))?;
        Ok(Snapshot { conn, source: self.source.clone(), dir: Arc::clone(&self.dir) })
    }
}

/// Why one try at a snapshot did not give one.
enum Miss {
    /// opencode was writing: try again.
    Busy(String),
    /// Trying again will not help.
    Fatal(anyhow::Error),
}

impl Snapshot {
    /// Copy `db` and its `-wal` into a new folder under `scratch` and open the copy. Retries
    /// briefly while opencode is mid-write, then fails saying the database was skipped.
    pub(crate) fn take(db: &Path, scratch: &Path) -> Result<Snapshot> {
        Snapshot::take_with(db, scratch, TRIES, &mut || {})
    }

    /// [`Snapshot::take`], calling `during_copy` between the copy and the check that
    /// nothing changed meanwhile (tests write there).
    fn take_with(db: &Path, scratch: &Path, tries: u32, during_copy: &mut dyn FnMut()) -> Result<Snapshot> {
        let mut why = String::new();
        for attempt in 0..tries {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(25 << attempt.min(4)));
            }
            match Snapshot::try_take(db, scratch, during_copy) {
                Ok(snapshot) => return Ok(snapshot),
                Err(Miss::Busy(reason)) => why = reason,
                Err(Miss::Fatal(e)) => return Err(e),
            }
        }
        bail!(
            "{}: the database is being written ({why}); skipped for this run, it is read again on the next",
            db.display()
        )
    }

    fn try_take(db: &Path, scratch: &Path, during_copy: &mut dyn FnMut()) -> Result<Snapshot, Miss> {
        let fatal = |e: anyhow::Error| Miss::Fatal(e);
        let wal = wal_of(db);
        let before = (discover::plain_stat(db).map_err(fatal)?, optional_stat(&wal).map_err(fatal)?);
        std::fs::create_dir_all(scratch)
            .with_context(|| format!("cannot create {}", scratch.display()))
            .map_err(fatal)?;
        let dir = tempfile::Builder::new()
            .prefix("opencode-")
            .tempdir_in(scratch)
            .with_context(|| format!("cannot create a folder in {}", scratch.display()))
            .map_err(fatal)?;
        let copy = dir.path().join(COPY);
        copy_file(db, &copy).map_err(fatal)?;
        if before.1.is_some() {
            copy_file(&wal, &wal_of(&copy)).map_err(fatal)?;
        }
        during_copy();
        let after = (discover::plain_stat(db).map_err(fatal)?, optional_stat(&wal).map_err(fatal)?);
        if before != after {
            return Err(Miss::Busy("it changed while it was copied".to_string()));
        }
        let conn = open_copy(&copy).map_err(|e| match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Miss::Busy(e.to_string()),
            _ => Miss::Fatal(anyhow!("{}: cannot open as an SQLite database: {e}", db.display())),
        })?;
        let snapshot = Snapshot { conn, source: db.to_path_buf(), dir: Arc::new(dir) };
        snapshot.check_tables().map_err(fatal)?;
        Ok(snapshot)
    }

    fn check_tables(&self) -> Result<()> {
        for table in ["session", "message", "part"] {
            let found: Option<String> = self
                .conn
                .query_row("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?1", [table], |r| r.get(0))
                .optional()
                .with_context(|| format!("{}: cannot read the database", self.source.display()))?;
            if found.is_none() {
                bail!(
                    "{}: no `{table}` table, so not an opencode database of a known version; skipped",
                    self.source.display()
                );
            }
        }
        Ok(())
    }

    /// What another thread needs to read this copy too.
    pub(crate) fn shared(&self) -> Shared {
        Shared { source: self.source.clone(), dir: Arc::clone(&self.dir) }
    }

    /// Every session in it, oldest first: id, parent, title, and a fingerprint of its rows.
    pub(crate) fn sessions(&self) -> Result<Vec<Member>> {
        const SQL: &str = "SELECT s.id, s.parent_id, s.title, \
               (SELECT count(*) + coalesce(sum(length(m.data)), 0) FROM message m WHERE m.session_id = s.id) \
             + (SELECT count(*) + coalesce(sum(length(p.data)), 0) FROM part p WHERE p.session_id = s.id), \
             max(coalesce(s.time_updated, 0), \
                 coalesce((SELECT max(m.time_updated) FROM message m WHERE m.session_id = s.id), 0), \
                 coalesce((SELECT max(p.time_updated) FROM part p WHERE p.session_id = s.id), 0)) \
             FROM session s ORDER BY s.time_created, s.id";
        let context = || format!("{}: cannot list its sessions", self.source.display());
        let mut statement = self.conn.prepare(SQL).with_context(context)?;
        let rows = statement
            .query_map([], |row| {
                let size: i64 = row.get(3)?;
                let newest_ms: i64 = row.get(4)?;
                Ok(Member {
                    id: row.get(0)?,
                    parent: row.get(1)?,
                    title: row.get(2)?,
                    stat: FileStat { size: size.max(0) as u64, mtime_ns: newest_ms.saturating_mul(1_000_000) },
                })
            })
            .with_context(context)?;
        rows.collect::<Result<Vec<_>, _>>().with_context(context)
    }

    /// Read session `id` through the core pipeline, as [`super::transcript::read_transcript`]
    /// reads a file: the content hash is over the record stream that was read.
    pub(crate) fn read<S: Sink>(&self, id: &str, make_sink: impl FnOnce() -> S) -> Result<FileRead<S>> {
        Ok(self.read_counted(id, make_sink)?.0)
    }

    /// [`Snapshot::read`] for a search, with the lines and bytes read for its statistics.
    pub(crate) fn search<S: Sink>(&self, id: &str, make_sink: impl FnOnce() -> S) -> Result<Searched<S>> {
        let (read, lines, bytes) = self.read_counted(id, make_sink)?;
        let read = match read {
            FileRead::Session { finished, .. } => SearchRead::Session(finished),
            FileRead::NotATranscript { reason, .. } => SearchRead::NotATranscript(reason),
        };
        // A session's size is its rows' fingerprint, which a search has no use for.
        Ok(Searched { read, lines, bytes, size: 0 })
    }

    fn read_counted<S: Sink>(&self, id: &str, make_sink: impl FnOnce() -> S) -> Result<(FileRead<S>, u64, u64)> {
        let context = || format!("{}: cannot read session {id}", self.source.display());
        let info = self.session_info(id).with_context(context)?;
        let Some(info) = info else {
            bail!("{}: no session {id} in the database; it was deleted", self.source.display());
        };
        let messages = self.messages(id).with_context(context)?;
        let mut feed =
            LineFeed::new(DatabaseLines { conn: &self.conn, first: Some(info), messages, parts: VecDeque::new() });
        let name = self.source.to_string_lossy();
        let read =
            read_stream(BufReader::with_capacity(256 * 1024, &mut feed), &name, Some(Agent::Opencode), make_sink)
                .with_context(context)?;
        Ok((read, feed.lines, feed.bytes))
    }

    /// The session's row as the session info of an export.
    fn session_info(&self, id: &str) -> rusqlite::Result<Option<String>> {
        let mut statement = self.conn.prepare_cached("SELECT * FROM session WHERE id = ?1")?;
        let names: Vec<String> = statement.column_names().map(str::to_string).collect();
        statement
            .query_row([id], |row| {
                let mut info = serde_json::Map::new();
                let mut time = serde_json::Map::new();
                for (i, name) in names.iter().enumerate() {
                    let value = json_of(row.get_ref(i)?);
                    match name.as_str() {
                        "time_created" => drop(time.insert("created".into(), value)),
                        "time_updated" => drop(time.insert("updated".into(), value)),
                        "parent_id" => drop(info.insert("parentID".into(), value)),
                        "project_id" => drop(info.insert("projectID".into(), value)),
                        "id" | "slug" | "directory" | "title" | "version" => drop(info.insert(name.clone(), value)),
                        _ => {}
                    }
                }
                info.insert("time".into(), Value::Object(time));
                Ok(session_line(&Value::Object(info)))
            })
            .optional()
    }

    /// The session's messages in opencode's order, as stream lines.
    fn messages(&self, id: &str) -> rusqlite::Result<VecDeque<(String, String)>> {
        let mut statement =
            self.conn.prepare_cached("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id")?;
        let rows =
            statement.query_map([id], |row| Ok((row.get::<_, String>(0)?, text_of(row.get_ref(1)?).into_owned())))?;
        rows.collect()
    }
}

/// A column's value as JSON.
fn json_of(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(n) => Value::from(n),
        ValueRef::Real(x) => Value::from(x),
        ValueRef::Text(t) | ValueRef::Blob(t) => Value::from(String::from_utf8_lossy(t).into_owned()),
    }
}

/// A `data` column as text, whether it was stored as text or as bytes.
fn text_of(value: ValueRef<'_>) -> std::borrow::Cow<'_, str> {
    match value {
        // Borrowed as it is stored (valid UTF-8, the common case): a part's data can be
        // megabytes of tool output, copied once more into its stream line.
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t),
        ValueRef::Null => "null".into(),
        ValueRef::Integer(n) => n.to_string().into(),
        ValueRef::Real(x) => x.to_string().into(),
    }
}

/// The lines of one session of a database: its info, then each message and its parts, the
/// parts of one message at a time.
struct DatabaseLines<'c> {
    conn: &'c Connection,
    first: Option<String>,
    messages: VecDeque<(String, String)>,
    parts: VecDeque<String>,
}

impl Iterator for DatabaseLines<'_> {
    type Item = io::Result<String>;

    fn next(&mut self) -> Option<io::Result<String>> {
        if let Some(first) = self.first.take() {
            return Some(Ok(first));
        }
        if let Some(part) = self.parts.pop_front() {
            return Some(Ok(part));
        }
        let (id, data) = self.messages.pop_front()?;
        match parts_of(self.conn, &id) {
            Ok(parts) => self.parts = parts,
            Err(e) => return Some(Err(io::Error::other(format!("cannot read the parts of message {id}: {e}")))),
        }
        Some(Ok(message_line(&id, &data)))
    }
}

fn parts_of(conn: &Connection, message: &str) -> rusqlite::Result<VecDeque<String>> {
    let mut statement = conn.prepare_cached("SELECT id, data FROM part WHERE message_id = ?1 ORDER BY id")?;
    let rows = statement.query_map([message], |row| {
        let id: String = row.get(0)?;
        Ok(part_line(&id, message, &text_of(row.get_ref(1)?)))
    })?;
    rows.collect()
}

/// Open the private copy. It is written to only by SQLite itself, to rebuild the `-shm` of
/// the copied `-wal`; queries are kept from writing.
fn open_copy(copy: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(copy, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    conn.busy_timeout(Duration::from_millis(200))?;
    conn.pragma_update(None, "query_only", true)?;
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0))?;
    Ok(conn)
}

fn copy_file(from: &Path, to: &Path) -> Result<()> {
    let context = || format!("cannot copy {} to {}", from.display(), to.display());
    let mut source = open_regular(from).with_context(context)?;
    let mut copy = std::fs::File::create(to).with_context(context)?;
    io::copy(&mut source, &mut copy).with_context(context)?;
    Ok(())
}

/// Open a file to read only when it is a regular one: opening a FIFO waits for a writer that
/// may never come, and a device (`/dev/zero`, `/dev/urandom`) never ends.
pub(super) fn open_regular(path: &Path) -> io::Result<std::fs::File> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file; only regular files are read"));
    }
    std::fs::File::open(path)
}

/// Lines from an iterator as a byte stream, each ended by a newline.
struct LineFeed<I> {
    source: I,
    buffer: Vec<u8>,
    at: usize,
    /// Lines and bytes handed out so far.
    lines: u64,
    bytes: u64,
}

impl<I: Iterator<Item = io::Result<String>>> LineFeed<I> {
    fn new(source: I) -> LineFeed<I> {
        LineFeed { source, buffer: Vec::new(), at: 0, lines: 0, bytes: 0 }
    }
}

impl<I: Iterator<Item = io::Result<String>>> Read for LineFeed<I> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at == self.buffer.len() {
            let Some(line) = self.source.next() else { return Ok(0) };
            self.buffer = line?.into_bytes();
            self.buffer.push(b'\n');
            self.at = 0;
            self.lines += 1;
            self.bytes += self.buffer.len() as u64;
        }
        let n = out.len().min(self.buffer.len() - self.at);
        out[..n].copy_from_slice(&self.buffer[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

mod legacy;
pub(crate) use legacy::{is_legacy_session, legacy_hash, legacy_stat, read_legacy};

#[cfg(test)]
mod tests;
