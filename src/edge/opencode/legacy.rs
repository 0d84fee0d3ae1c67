//! opencode's older `storage/` tree (before its database): a session is
//! `session/<projectID>/<sessionID>.json`, its messages `message/<sessionID>/<messageID>.json`,
//! their parts `part/<messageID>/<partID>.json`. The session file is what discovery finds;
//! the rest is gathered here into the same record stream a database session gives.

use std::io::{self, BufReader};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;

use super::LineFeed;
use crate::core::formats::opencode::{message_line, part_line, session_line, skipped_line};
use crate::core::pipeline::Sink;
use crate::core::session::Agent;
use crate::core::state::FileStat;
use crate::edge::discover;
use crate::edge::transcript::{FileRead, read_stream};

/// True for a session file of the tree: `…/session/<projectID>/ses_….json`.
pub(crate) fn is_legacy_session(path: &Path) -> bool {
    let name = discover::name_of(path);
    let folder = || path.parent().and_then(Path::parent).and_then(Path::file_name);
    name.starts_with("ses_") && name.ends_with(".json") && folder() == Some("session".as_ref())
}

/// The session, as the tree lays it out.
struct Tree {
    session_file: PathBuf,
    id: String,
    storage: PathBuf,
}

impl Tree {
    fn of(path: &Path) -> Tree {
        let id = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let storage = path.ancestors().nth(3).map(Path::to_path_buf).unwrap_or_default();
        Tree { session_file: path.to_path_buf(), id, storage }
    }

    fn messages_dir(&self) -> PathBuf {
        self.storage.join("message").join(&self.id)
    }

    fn parts_dir(&self, message: &str) -> PathBuf {
        self.storage.join("part").join(message)
    }

    /// The session's messages, by (creation time, id) as opencode orders them; a file that
    /// does not parse keeps its place by name and is reported when read.
    fn messages(&self) -> Vec<(i64, String, PathBuf)> {
        let mut messages: Vec<(i64, String, PathBuf)> = json_files(&self.messages_dir())
            .into_iter()
            .map(|path| {
                let id = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                let created = read_json(&path).ok().and_then(|v| v.get("time")?.get("created")?.as_i64());
                (created.unwrap_or(i64::MAX), id, path)
            })
            .collect();
        messages.sort();
        messages
    }
}

/// The `.json` files of a folder, by name; none when it does not exist.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn read_json(path: &Path) -> Result<Value> {
    let mut text = String::new();
    super::open_regular(path)
        .and_then(|mut file| io::Read::read_to_string(&mut file, &mut text))
        .with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))
}

/// The session file, its messages' and their parts' files and folders as one stat: summed
/// size, newest modification time. Any message or part added, changed or removed changes it.
pub(crate) fn legacy_stat(path: &Path) -> Result<FileStat> {
    let tree = Tree::of(path);
    let mut stat = discover::plain_stat(path)?;
    let mut add = |path: &Path| {
        if let Ok(more) = discover::plain_stat(path) {
            stat = FileStat { size: stat.size + more.size, mtime_ns: stat.mtime_ns.max(more.mtime_ns) };
        }
    };
    let messages_dir = tree.messages_dir();
    add(&messages_dir);
    for message in json_files(&messages_dir) {
        add(&message);
        let parts_dir = tree.parts_dir(&message.file_stem().unwrap_or_default().to_string_lossy());
        add(&parts_dir);
        json_files(&parts_dir).iter().for_each(|part| add(part));
    }
    Ok(stat)
}

/// The record stream of a session of the tree, built file by file as it is read.
fn legacy_lines(path: &Path) -> Result<impl Iterator<Item = io::Result<String>>> {
    let tree = Tree::of(path);
    let info = read_json(&tree.session_file)?;
    let first = std::iter::once(Ok(session_line(&info)));
    let storage = tree.storage.clone();
    let relative = move |p: &Path| p.strip_prefix(&storage).unwrap_or(p).display().to_string();
    let messages = tree.messages().into_iter().flat_map(move |(_, id, message_path)| {
        let message = match read_json(&message_path) {
            Ok(info) => message_line(&id, &info.to_string()),
            Err(e) => skipped_line(&relative(&message_path), &format!("{:#}", e.root_cause())),
        };
        let parts = json_files(&tree.parts_dir(&id)).into_iter().map({
            let relative = relative.clone();
            move |part_path| {
                let part_id = part_path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                Ok(match read_json(&part_path) {
                    Ok(part) => part_line(&part_id, &id, &part.to_string()),
                    Err(e) => skipped_line(&relative(&part_path), &format!("{:#}", e.root_cause())),
                })
            }
        });
        std::iter::once(Ok(message)).chain(parts)
    });
    Ok(first.chain(messages))
}

/// Read the session whose file of the tree is `path`, as a transcript is read.
pub(crate) fn read_legacy<S: Sink>(path: &Path, make_sink: impl FnOnce() -> S) -> Result<FileRead<S>> {
    let feed = LineFeed::new(legacy_lines(path)?);
    read_stream(BufReader::new(feed), &path.to_string_lossy(), Some(Agent::Opencode), make_sink)
        .with_context(|| format!("cannot read {}", path.display()))
}

/// The content hash a read of the session at `path` gives.
pub(crate) fn legacy_hash(path: &Path) -> Result<String> {
    let mut hasher = blake3::Hasher::new();
    hasher
        .update_reader(LineFeed::new(legacy_lines(path)?))
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(hasher.finalize().to_hex().to_string())
}
