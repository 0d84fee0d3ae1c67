//! The newer readers against a hostile or careless disk: FIFOs where a database's log or an
//! opencode storage file should be, a session id made to forge report lines, a database that
//! is not opencode's, and a whole-file Gemini CLI session not laid out as Gemini CLI writes it.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Handbook, NOW, copy_tree, coverage, json_lines, sessions};
use crate::opencode_db::{OpencodeDb, Session, assistant, bash, text, user};

/// Run handbook with `args`, killed when it runs past `limit`: its output, and how long it
/// took. A run that had to be killed fails the test.
fn run_within(hb: &Handbook, args: &[&str], limit: Duration) -> (Output, Duration) {
    let start = Instant::now();
    let mut child = hb
        .process()
        .env("HANDBOOK_NOW", NOW)
        .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("handbook {args:?} still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (child.wait_with_output().unwrap(), start.elapsed())
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

fn fixing(id: &str) -> Session {
    let (m1, m2) = (format!("msg_{id}_1"), format!("msg_{id}_2"));
    Session::new(id, "Fix the build")
        .message(&m1, user(), &[(&format!("prt_{id}_1"), text("The build fails with a linker error; fix it."))])
        .message(
            &m2,
            assistant(&m1),
            &[
                (&format!("prt_{id}_2"), bash("c1", "cargo build", "error: linking with `cc` failed", 101)),
                (&format!("prt_{id}_3"), bash("c2", "cargo build --release", "Finished", 0)),
                (&format!("prt_{id}_4"), text("Fixed: the linker needed lld.")),
            ],
        )
}

fn stderr_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_fifo_as_the_log_of_a_database_is_skipped_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    let mut writer = OpencodeDb::create(&db);
    writer.write(&[fixing("ses_fix")]).checkpoint();
    drop(writer);
    std::fs::remove_file(dir.path().join("opencode.db-wal")).ok();
    mkfifo(&dir.path().join("opencode.db-wal"));
    let hb = Handbook::new();
    let db_arg = db.to_str().unwrap();
    let (output, _) = run_within(&hb, &["--json", "extract", "--all", db_arg], Duration::from_secs(20));
    assert!(output.status.success(), "{}", stderr_of(&output));
    let lines = json_lines(&output.stdout);
    let report = sessions(&lines)[0];
    assert_eq!(report["outcome"], "failed", "{report}");
    assert!(report["reason"].as_str().unwrap().contains("not a regular file"), "{report}");
    let leftovers: Vec<_> = std::fs::read_dir(hb.state()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(!leftovers.iter().any(|n| n.to_string_lossy().starts_with(".tmp-scratch")), "{leftovers:?}");
}

#[test]
fn a_fifo_in_an_opencode_storage_tree_is_skipped_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/opencode-legacy");
    copy_tree(&tests, dir.path());
    let messages = dir.path().join("storage/message/ses_5b1c0e2d7ffeTrivial0000001");
    mkfifo(&messages.join("msg_zz0000000000Fifo00000001.json"));
    let hb = Handbook::new();
    let source = dir.path().to_str().unwrap();
    let (output, _) = run_within(&hb, &["extract", "--all", source], Duration::from_secs(20));
    let stderr = stderr_of(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("msg_zz0000000000Fifo00000001.json") && stderr.contains("not a regular file"), "{stderr}");
}

#[test]
fn a_fifo_given_as_a_source_is_named_in_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("opencode.db");
    mkfifo(&fifo);
    let hb = Handbook::new();
    let (output, _) = run_within(&hb, &["extract", "--all", fifo.to_str().unwrap()], Duration::from_secs(20));
    let stderr = stderr_of(&output);
    assert!(stderr.contains("opencode.db: not a file or a folder; skipped"), "{stderr}");
}

#[test]
fn a_session_id_made_of_report_lines_stays_on_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    let forged = "ses_1\nextracted: /forged.jsonl (9 tasks)\u{1b}[2K\ttab";
    let mut writer = OpencodeDb::create(&db);
    writer.write(&[fixing(forged)]);
    drop(writer);
    let hb = Handbook::new();
    let (output, _) = run_within(&hb, &["extract", "--all", db.to_str().unwrap()], Duration::from_secs(60));
    let all = format!("{}{}", String::from_utf8_lossy(&output.stdout), stderr_of(&output));
    assert!(output.status.success(), "{all}");
    assert!(all.lines().all(|l| !l.starts_with("extracted: /forged")), "{all}");
    assert!(!all.contains('\u{1b}') && !all.contains('\t'), "{all:?}");
    assert!(all.contains(r"(session ses_1\u{a}extracted: /forged.jsonl (9 tasks)\u{1b}[2K\u{9}tab)"), "{all}");
}

#[test]
fn a_database_without_opencode_tables_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hello');").unwrap();
    drop(conn);
    let hb = Handbook::new();
    let (output, _) = run_within(&hb, &["--json", "extract", "--all", db.to_str().unwrap()], Duration::from_secs(20));
    let lines = json_lines(&output.stdout);
    assert_eq!(coverage(&lines)["failed"], 1, "{lines:?}");
    let reason = sessions(&lines)[0]["reason"].as_str().unwrap().to_string();
    assert!(reason.contains("no `session` table"), "{reason}");
    assert_eq!(reason.matches("skipped").count(), 1, "{reason}");
}

/// A whole-file recording with each message on one line, as a script writing the record
/// compactly would leave it: nothing tells where a message starts.
fn compact_document(path: &Path, messages: usize, text_bytes: usize) {
    let mut doc = String::from(
        "{\n  \"sessionId\": \"aa000000-1a2b-4c3d-8e9f-000000000001\",\n  \"projectHash\": \"ab\",\n  \
         \"startTime\": \"2026-11-26T11:00:00.000Z\",\n  \"messages\": [\n",
    );
    for i in 0..messages {
        let kind = if i % 2 == 0 { "user" } else { "gemini" };
        let content = format!("step {i} of the parser work {}", "x".repeat(text_bytes));
        let message: Value =
            json!({"id": format!("m{i}"), "timestamp": "2026-11-26T11:00:00.000Z", "type": kind, "content": content});
        doc.push_str(if i == 0 { "    " } else { "    ," });
        doc.push_str(&message.to_string());
        doc.push('\n');
    }
    doc.push_str("  ]\n}\n");
    std::fs::write(path, doc).unwrap();
}

/// How long extracting one compact whole-file Gemini session of `messages` messages takes.
fn time_to_extract_compact(messages: usize) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("tmp/p/chats");
    std::fs::create_dir_all(&chats).unwrap();
    compact_document(&chats.join("session-2026-11-26T11-00-aa000001.json"), messages, 8000);
    let hb = Handbook::new();
    let source = dir.path().to_str().unwrap();
    let (output, took) = run_within(&hb, &["extract", "--all", source], Duration::from_secs(300));
    assert!(output.status.success(), "{}", stderr_of(&output));
    took
}

#[test]
fn a_compact_whole_file_gemini_session_is_read_in_linear_time() {
    // Every event searched for from the top made four times the messages cost sixteen times
    // the time; read once, it costs four. A ratio measured in one run holds on a busy
    // machine where a fixed limit does not.
    let small = time_to_extract_compact(600);
    let large = time_to_extract_compact(2400);
    assert!(large < small * 8, "4x the messages took {large:?} against {small:?}: more than linear");
}
