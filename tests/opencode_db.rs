//! Builds opencode databases for tests from plain values, never from a committed binary: the
//! tables opencode 1.18 writes (the columns handbook reads, and the others as they are), in
//! WAL mode, with what is written after [`OpencodeDb::checkpoint`] left in the `-wal` when the
//! database is closed, as a running opencode leaves it.
#![allow(dead_code, reason = "each test binary that includes this uses a part of it")]

use std::path::Path;

use rusqlite::{Connection, config::DbConfig, params};
use serde_json::Value;

/// The tables of opencode 1.18.33's database that hold sessions (other tables it has:
/// account, credential, event, todo, permission, session_share, session_message, workspace...).
const SCHEMA: &str = "
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, sandboxes TEXT NOT NULL DEFAULT '[]');
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  workspace_id TEXT, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL, path TEXT, title TEXT NOT NULL,
  version TEXT NOT NULL, share_url TEXT, summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER,
  summary_diffs TEXT, metadata TEXT, cost REAL NOT NULL DEFAULT 0, tokens_input INTEGER NOT NULL DEFAULT 0,
  tokens_output INTEGER NOT NULL DEFAULT 0, tokens_reasoning INTEGER NOT NULL DEFAULT 0,
  tokens_cache_read INTEGER NOT NULL DEFAULT 0, tokens_cache_write INTEGER NOT NULL DEFAULT 0, revert TEXT,
  permission TEXT, agent TEXT, model TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
  time_compacting INTEGER, time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
CREATE TABLE todo (session_id TEXT NOT NULL, content TEXT NOT NULL, status TEXT NOT NULL, priority TEXT NOT NULL,
  position INTEGER NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
";

/// One session to write: its messages in order, each with its parts in order. Times are
/// given out from `start` on, one millisecond apart, in the order things are written.
#[derive(Debug, Clone, Default)]
pub struct Session {
    pub id: String,
    pub parent: Option<String>,
    pub title: String,
    pub directory: String,
    pub messages: Vec<Message>,
}

#[derive(Debug, Clone, Default)]
pub struct Message {
    pub id: String,
    /// The `data` column: the message info without its id (`{"role": ...}`).
    pub data: Value,
    /// `(id, data)` of each part.
    pub parts: Vec<(String, Value)>,
}

impl Session {
    pub fn new(id: &str, title: &str) -> Session {
        Session { id: id.to_string(), title: title.to_string(), directory: "/w/app".to_string(), ..Session::default() }
    }

    pub fn child_of(mut self, parent: &str) -> Session {
        self.parent = Some(parent.to_string());
        self
    }

    /// Add a message with its parts.
    pub fn message(mut self, id: &str, data: Value, parts: &[(&str, Value)]) -> Session {
        let parts = parts.iter().map(|(id, data)| (id.to_string(), data.clone())).collect();
        self.messages.push(Message { id: id.to_string(), data, parts });
        self
    }
}

/// An open database being written, as opencode holds it.
pub struct OpencodeDb {
    pub conn: Connection,
    clock: i64,
}

impl OpencodeDb {
    /// A new database at `path` in WAL mode, never checkpointed on its own or on close.
    pub fn create(path: &Path) -> OpencodeDb {
        let conn = Connection::open(path).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true).unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        conn.execute("INSERT INTO project VALUES ('global', '/', NULL, NULL, 0, 0, '[]')", []).unwrap();
        OpencodeDb { conn, clock: 1_796_000_000_000 }
    }

    fn tick(&mut self) -> i64 {
        self.clock += 1;
        self.clock
    }

    /// Write every session, each in one transaction.
    pub fn write(&mut self, sessions: &[Session]) -> &mut OpencodeDb {
        for session in sessions {
            self.write_session(session);
        }
        self
    }

    fn write_session(&mut self, s: &Session) {
        let now = self.tick();
        self.conn.execute_batch("BEGIN").unwrap();
        self.conn
            .execute(
                "INSERT OR REPLACE INTO session (id, project_id, parent_id, slug, directory, title, version, \
                 time_created, time_updated) VALUES (?1, 'global', ?2, 'brave-otter', ?3, ?4, '1.18.33', ?5, ?5)",
                params![s.id, s.parent, s.directory, s.title, now],
            )
            .unwrap();
        for m in &s.messages {
            let now = self.tick();
            self.conn
                .execute(
                    "INSERT OR REPLACE INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
                    params![m.id, s.id, now, m.data.to_string()],
                )
                .unwrap();
            for (id, data) in &m.parts {
                let now = self.tick();
                self.conn
                    .execute(
                        "INSERT OR REPLACE INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                        params![id, m.id, s.id, now, data.to_string()],
                    )
                    .unwrap();
            }
        }
        self.conn.execute_batch("COMMIT").unwrap();
    }

    /// Move everything written so far into the database file; what follows stays in the WAL.
    pub fn checkpoint(&mut self) -> &mut OpencodeDb {
        self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
        self
    }

    /// Change the data of part `id`, as opencode does while a tool runs.
    pub fn update_part(&mut self, id: &str, data: &Value) -> &mut OpencodeDb {
        let now = self.tick();
        self.conn
            .execute("UPDATE part SET data = ?2, time_updated = ?3 WHERE id = ?1", params![id, data.to_string(), now])
            .unwrap();
        self
    }
}

/// A text part.
pub fn text(text: &str) -> Value {
    serde_json::json!({"type": "text", "text": text})
}

/// A completed bash call with its exit status.
pub fn bash(call: &str, command: &str, output: &str, exit: i64) -> Value {
    serde_json::json!({"type": "tool", "tool": "bash", "callID": call, "state": {"status": "completed",
        "input": {"command": command, "description": "run"}, "output": output,
        "metadata": {"output": output, "exit": exit, "truncated": false}, "title": command,
        "time": {"start": 1, "end": 2}}})
}

/// A completed call of `tool` on `path` (edit, write, read).
pub fn file_tool(call: &str, tool: &str, path: &str, output: &str) -> Value {
    serde_json::json!({"type": "tool", "tool": tool, "callID": call, "state": {"status": "completed",
        "input": {"filePath": path}, "output": output, "metadata": {}, "title": path, "time": {"start": 1, "end": 2}}})
}

pub fn user() -> Value {
    serde_json::json!({"role": "user", "time": {"created": 1_796_000_000_000_i64}, "agent": "build",
        "model": {"providerID": "mock", "modelID": "m1"}})
}

pub fn assistant(parent: &str) -> Value {
    serde_json::json!({"role": "assistant", "parentID": parent, "mode": "build", "agent": "build",
        "path": {"cwd": "/w/app", "root": "/w/app"}, "modelID": "m1", "providerID": "mock",
        "time": {"created": 1_796_000_000_100_i64}, "finish": "stop"})
}
