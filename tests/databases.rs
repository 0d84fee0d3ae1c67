//! Files that hold many sessions (an opencode database), through the binary: each session is
//! known, counted, changed, selected, forgotten and searched on its own, the agent's files are
//! never touched, and nothing of the private copy stays behind.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::{Handbook, NOW, coverage, json_lines, sessions};
use crate::opencode_db::{OpencodeDb, Session, assistant, bash, file_tool, text, user};

/// A session whose build fails, then passes after an edit.
fn fixing(id: &str) -> Session {
    Session::new(id, "Fix the build")
        .message(
            &format!("msg_{id}_1"),
            user(),
            &[(
                &format!("prt_{id}_1"),
                text("The build is red; fix it. Always run `make check` before you say you're done."),
            )],
        )
        .message(
            &format!("msg_{id}_2"),
            assistant(&format!("msg_{id}_1")),
            &[
                (
                    &format!("prt_{id}_2"),
                    bash("c1", "make build", "src/main.c:3: error: expected ';' before '}' token", 2),
                ),
                (&format!("prt_{id}_3"), file_tool("c2", "edit", "/w/app/src/main.c", "Edit applied.")),
                (&format!("prt_{id}_4"), bash("c3", "make build", "ok", 0)),
                (&format!("prt_{id}_5"), text("Fixed: a missing semicolon.")),
            ],
        )
}

fn greeting(id: &str) -> Session {
    Session::new(id, "Hello")
        .message(&format!("msg_{id}_1"), user(), &[(&format!("prt_{id}_1"), text("what's 2+2?"))])
        .message(&format!("msg_{id}_2"), assistant(&format!("msg_{id}_1")), &[(&format!("prt_{id}_2"), text("4"))])
}

/// A folder holding `opencode.db` with a fixing session and its sub-agent (both left in the
/// WAL) and a greeting (checkpointed into the database file).
fn database() -> (tempfile::TempDir, PathBuf, OpencodeDb) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opencode.db");
    let mut db = OpencodeDb::create(&path);
    db.write(&[greeting("ses_greet")]).checkpoint();
    db.write(&[fixing("ses_fix"), greeting("ses_child").child_of("ses_fix")]);
    (dir, path, db)
}

fn extract(hb: &Handbook, source: &Path, extra: &[&str]) -> Vec<Value> {
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .args(["--json", "extract", "--all"])
        .args(extra)
        .arg(source)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    json_lines(&output.stdout)
}

fn outcomes(lines: &[Value]) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = sessions(lines)
        .iter()
        .map(|r| {
            let path = r["path"].as_str().unwrap();
            let id = path.rsplit("(session ").next().unwrap().trim_end_matches(')');
            (id.to_string(), r["outcome"].as_str().unwrap().to_string())
        })
        .collect();
    found.sort();
    found
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// Every file beside the database, with its bytes and modification time.
fn files_of(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.clone(), std::fs::read(&p).unwrap(), std::fs::metadata(&p).unwrap().modified().unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn every_session_of_a_database_is_its_own() {
    let (dir, path, _db) = database();
    let hb = Handbook::new();
    let before = files_of(dir.path());
    let lines = extract(&hb, &path, &[]);
    let want = [("ses_child", "excluded"), ("ses_fix", "extracted"), ("ses_greet", "no-op")];
    assert_eq!(outcomes(&lines), pairs(&want));
    assert_eq!(coverage(&lines)["sessions"], 3, "{lines:?}");
    let record = hb.stage1("ses_fix").expect("the fixing session's record");
    let memory = record["raw_memory"].as_str().unwrap();
    assert!(memory.contains("expected ';' before '}' token"), "{memory}");
    assert!(memory.contains("message msg_ses_fix_2, part prt_ses_fix_2"), "cites the part: {memory}");
    assert_eq!(files_of(dir.path()), before, "the agent's files are never written");
    let left: Vec<_> = std::fs::read_dir(hb.state()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.iter().all(|n| !n.to_string_lossy().starts_with(".tmp-")), "the private copy is gone: {left:?}");
    let state = hb.sources();
    let members = state["members"][path.to_str().unwrap()].as_object().unwrap();
    assert_eq!(members.keys().collect::<Vec<_>>(), ["ses_child", "ses_fix", "ses_greet"]);

    let again = extract(&hb, &path, &[]);
    assert_eq!(coverage(&again)["unchanged"], 3, "{again:?}");
    assert_eq!(coverage(&again)["sessions"], 3);
}

#[test]
fn one_new_message_reads_one_session() {
    let (_dir, path, mut db) = database();
    let hb = Handbook::new();
    extract(&hb, &path, &[]);
    let more = greeting("ses_greet").message(
        "msg_ses_greet_3",
        user(),
        &[("prt_ses_greet_3", text("Remember that the staging host is db2.internal."))],
    );
    db.write(&[more]);
    let lines = extract(&hb, &path, &[]);
    assert_eq!(outcomes(&lines), pairs(&[("ses_greet", "extracted")]), "only the changed session is read: {lines:?}");
    assert_eq!(coverage(&lines)["unchanged"], 2);
    let memory = hb.stage1("ses_greet").unwrap()["raw_memory"].as_str().unwrap().to_string();
    assert!(memory.contains("db2.internal"), "{memory}");

    db.update_part("prt_ses_fix_5", &text("Fixed: a missing semicolon in src/main.c."));
    let lines = extract(&hb, &path, &[]);
    assert_eq!(outcomes(&lines), pairs(&[("ses_fix", "extracted")]), "an updated part is a change: {lines:?}");
}

#[test]
fn sessions_are_picked_forgotten_and_vanish_one_by_one() {
    let (_dir, path, db) = database();
    let hb = Handbook::new();
    let picked = extract(&hb, &path, &["--session", "ses_fix"]);
    assert_eq!(outcomes(&picked), pairs(&[("ses_fix", "extracted")]));
    assert_eq!(coverage(&picked)["sessions"], 1);
    extract(&hb, &path, &[]);

    let forget = hb.cmd().env("HANDBOOK_NOW", NOW).args(["forget", "ses_fix"]).output().unwrap();
    assert!(forget.status.success(), "{}", String::from_utf8_lossy(&forget.stderr));
    assert!(hb.stage1("ses_fix").is_none(), "its record is gone");
    let after = extract(&hb, &path, &[]);
    assert_eq!(coverage(&after)["sessions"], 3);
    assert!(hb.stage1("ses_fix").is_none(), "a forgotten session is not learned again");

    db.conn.execute("DELETE FROM session WHERE id = 'ses_greet'", []).unwrap();
    let after = extract(&hb, &path, &[]);
    assert_eq!(coverage(&after)["vanished"], 1, "{after:?}");
    assert_eq!(coverage(&after)["sessions"], 2);
    let state = hb.sources();
    assert_eq!(state["members"][path.to_str().unwrap()]["ses_greet"]["state"], "vanished");
}

#[test]
fn a_session_in_the_database_and_in_an_export_is_one_session() {
    let (dir, path, _db) = database();
    let export = json!({
        "info": {"id": "ses_fix", "slug": "brave-otter", "projectID": "global", "directory": "/w/app",
                 "title": "Fix the build", "version": "1.18.33", "time": {"created": 1_796_000_000_000_i64, "updated": 1_796_000_000_900_i64}},
        "messages": [{"info": {"id": "msg_ses_fix_1", "sessionID": "ses_fix", "role": "user", "time": {"created": 1_796_000_000_000_i64}},
                      "parts": [{"id": "prt_ses_fix_1", "sessionID": "ses_fix", "messageID": "msg_ses_fix_1", "type": "text", "text": "The build is red; fix it. Remember that the build needs GNU make 4.4."}]}]
    });
    let export_path = dir.path().join("fix-export.json");
    std::fs::write(&export_path, serde_json::to_string_pretty(&export).unwrap()).unwrap();
    let hb = Handbook::new();
    let lines = extract(&hb, &path, &[]);
    assert_eq!(coverage(&lines)["extracted"], 1);
    let lines = extract(&hb, &export_path, &[]);
    let report = sessions(&lines)[0];
    assert_eq!(report["outcome"], "excluded", "{report}");
    assert!(report["reason"].as_str().unwrap().starts_with("duplicate of"), "{report}");

    // The session leaves the database; its export is then the copy that holds it.
    _db.conn.execute("DELETE FROM session WHERE id = 'ses_fix'", []).unwrap();
    let lines = extract(&hb, &path, &[]);
    assert_eq!(coverage(&lines)["vanished"], 1, "{lines:?}");
    let lines = extract(&hb, &export_path, &[]);
    let report = sessions(&lines)[0];
    assert_eq!(report["outcome"], "extracted", "the export is read again: {lines:?}");
    assert!(hb.stage1("ses_fix").is_some());
}

#[test]
fn a_database_that_cannot_be_opened_fails_for_this_run_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opencode.db");
    std::fs::write(&path, b"not a database at all, just bytes\n").unwrap();
    let hb = Handbook::new();
    let output = hb.cmd().env("HANDBOOK_NOW", NOW).args(["--json", "extract", "--all"]).arg(&path).output().unwrap();
    let lines = json_lines(&output.stdout);
    assert_eq!(coverage(&lines)["failed"], 1, "{lines:?}");
    let report = sessions(&lines)[0];
    assert_eq!(report["outcome"], "failed", "{report}");
    assert!(report["path"].as_str().unwrap().ends_with("opencode.db"), "{report}");
    let reason = report["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("cannot open as an SQLite database") && reason.ends_with("skipped for this run"),
        "{reason}"
    );
    std::fs::remove_file(&path).unwrap();
    let mut db = OpencodeDb::create(&path);
    db.write(&[fixing("ses_fix")]);
    let lines = extract(&hb, &path, &[]);
    assert_eq!(outcomes(&lines), pairs(&[("ses_fix", "extracted")]), "{lines:?}");
    assert!(hb.sources()["sources"].get(path.to_str().unwrap()).is_none(), "no failure is kept for the file itself");
}

#[test]
fn the_sessions_of_a_database_are_searched() {
    let (_dir, path, _db) = database();
    let hb = Handbook::new();
    extract(&hb, &path, &[]);
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .args(["search", "--json", "--in", "transcripts", "--since", "2000-01-01", "semicolon"])
        .output()
        .unwrap();
    let found: Vec<Value> = json_lines(&output.stdout).into_iter().filter(|l| l["type"] == "result").collect();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let hit = &found[0]["data"];
    assert!(hit["path"].as_str().unwrap().ends_with("/opencode.db"), "{hit}");
    assert_eq!(hit["file"], hit["path"], "the database is the file: {hit}");
    assert_eq!(hit["session_id"], "ses_fix");
    assert_eq!(hit["place"], "message msg_ses_fix_2, part prt_ses_fix_5", "the part that holds it: {hit}");
    assert!(hit.get("line").is_none(), "a database has no lines: {hit}");
    let text = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .args(["search", "--in", "transcripts", "--since", "2000-01-01", "semicolon"])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&text.stdout);
    assert!(shown.contains("opencode.db (message msg_ses_fix_2, part prt_ses_fix_5): "), "{shown}");
    assert!(shown.contains("session ses_fix)"), "{shown}");
}

#[test]
fn a_home_holding_every_agent_is_read_without_naming_a_source() {
    let hb = Handbook::new();
    let user = hb.user.path();
    let fixtures = crate::common::fixtures();
    let plant = |from: &str, to: &str| crate::common::copy_tree(&fixtures.join(from), &user.join(to));
    plant("codex-failure-fix/sessions", ".codex/sessions");
    plant("claude-preferences/projects", ".claude/projects");
    plant("pi-failure-fix/sessions", ".pi/agent/sessions");
    plant("pi-tree/sessions", ".omp/agent/sessions");
    plant("gemini-failure-fix/tmp", ".gemini/tmp");
    std::fs::copy(fixtures.join("gemini-failure-fix/projects.json"), user.join(".gemini/projects.json")).unwrap();
    std::fs::create_dir_all(user.join(".local/share/opencode")).unwrap();
    let mut db = OpencodeDb::create(&user.join(".local/share/opencode/opencode.db"));
    db.write(&[fixing("ses_fix"), greeting("ses_child").child_of("ses_fix"), greeting("ses_greet")]);

    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
        .args(["--json", "update", "--all"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let lines = json_lines(&output.stdout);
    assert_eq!(coverage(&lines)["sessions"], 8, "five files and a database of three: {lines:?}");
    let mut agents: Vec<&str> =
        sessions(&lines).iter().filter(|r| r["outcome"] == "extracted").map(|r| r["agent"].as_str().unwrap()).collect();
    agents.sort();
    assert_eq!(agents, ["claude", "codex", "gemini", "omp", "opencode", "pi"], "{lines:?}");
}

#[test]
fn a_database_that_cannot_be_opened_is_no_part_of_a_run_for_other_sessions() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("opencode.db"), b"not a database\n").unwrap();
    let rollout =
        "codex-failure-fix/sessions/2026/11/20/rollout-2026-11-20T09-00-00-019d7a10-4c2e-7b31-9a55-0c0de0000001.jsonl";
    std::fs::copy(crate::common::fixtures().join(rollout), dir.path().join("rollout.jsonl")).unwrap();
    let hb = Handbook::new();
    let lines = extract(&hb, dir.path(), &["--session", "rollout"]);
    assert_eq!(coverage(&lines)["sessions"], 1, "{lines:?}");
    assert_eq!(coverage(&lines)["failed"], 0, "{lines:?}");
}

#[test]
fn a_session_deleted_from_its_database_is_counted_gone_by_search() {
    let (_dir, path, db) = database();
    let hb = Handbook::new();
    extract(&hb, &path, &[]);
    db.conn.execute("DELETE FROM session WHERE id = 'ses_fix'", []).unwrap();
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .args(["search", "--in", "transcripts", "--since", "2000-01-01", "semicolon"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("warning"), "{stderr}");
    assert!(stderr.contains("1 transcript was deleted since the last extract"), "{stderr}");
}
