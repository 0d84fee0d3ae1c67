//! Gemini CLI recordings end to end: found in their default folder, searched as the replay of
//! their log (never a rewound or replaced message), forgotten like any session, and a project
//! folder named by slug resolved through `projects.json`. (Their fixture cases,
//! `fixtures/gemini-*`, are checked with every other case by `tests/fixtures.rs`.)

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{Handbook, NOW, copy_tree, fixtures, json_lines, sessions};

const REPLAY: &str = "92a3b4c5-1a2b-4c3d-8e9f-000000000007";
const REPLAY_FILE: &str = "tmp/cli/chats/session-2026-11-26T11-00-92a3b4c5.jsonl";

/// The replay fixture as Gemini CLI lays it out under a user's home, and a handbook that
/// has read it by default (no source named).
fn replay_in_home() -> Handbook {
    let hb = Handbook::new();
    copy_tree(&fixtures().join("gemini-replay"), &hb.user.path().join(".gemini"));
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
        .args(["--json", "extract", "--all"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let lines = json_lines(&output.stdout);
    let found: Vec<&Value> = sessions(&lines);
    assert_eq!(found.len(), 1, "{lines:?}");
    assert_eq!((found[0]["agent"].as_str(), found[0]["session_id"].as_str()), (Some("gemini"), Some(REPLAY)));
    assert_eq!(found[0]["project"], "/home/dev/cli", "the slug is resolved through projects.json");
    hb
}

/// `search --json --limit 0 <args>`: the exit code and the results.
fn search(hb: &Handbook, args: &[&str]) -> (i32, Vec<Value>) {
    let output =
        hb.cmd().env("HANDBOOK_NOW", NOW).args(["search", "--json", "--limit", "0"]).args(args).output().unwrap();
    let results = json_lines(&output.stdout).into_iter().filter(|l| l["type"] == "result").map(|l| l["data"].clone());
    (output.status.code().unwrap(), results.collect())
}

fn line_holds(path: &str, line: u64, word: &str) -> bool {
    let text = fs::read_to_string(path).unwrap();
    text.lines().nth(line as usize - 1).is_some_and(|l| l.contains(word))
}

#[test]
fn search_finds_what_survives_the_replay_and_nothing_rewound() {
    let hb = replay_in_home();
    let (code, found) = search(&hb, &["--in", "transcripts", "to_writer"]);
    assert_eq!(code, 0);
    assert!(!found.is_empty());
    for result in &found {
        let path = result["path"].as_str().unwrap();
        assert!(path.ends_with(REPLAY_FILE), "{result}");
        assert!(line_holds(path, result["line"].as_u64().unwrap(), "to_writer"), "{result}");
    }
    // In the raw file, and a word search would read their lines; the replay drops them.
    let raw = fs::read_to_string(hb.user.path().join(".gemini").join(REPLAY_FILE)).unwrap();
    for gone in ["first attempt", "second attempt", "unexpected argument"] {
        assert!(raw.contains(gone), "the fixture lost {gone:?}");
        for args in [vec!["--in", "transcripts", gone], vec!["--in", "transcripts", "--regex", gone]] {
            let (code, found) = search(&hb, &args);
            assert_eq!(code, 1, "{args:?} found {found:?}");
        }
    }
}

#[test]
fn a_recording_outside_its_folder_is_still_searched_as_a_replay() {
    // Not under `.gemini/tmp`: only its first lines say what it is, and the search must
    // still read every line of it, as it does for the format extraction found.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("export.jsonl");
    fs::copy(fixtures().join("gemini-replay").join(REPLAY_FILE), &file).unwrap();
    let hb = Handbook::new();
    hb.update(dir.path());
    let (code, found) = search(&hb, &["--in", "transcripts", "first attempt"]);
    assert_eq!(code, 1, "{found:?}");
    let (code, found) = search(&hb, &["--in", "transcripts", "serde_json::to_writer"]);
    assert_eq!((code, found.is_empty()), (0, false));
}

#[test]
fn a_forgotten_recording_leaves_the_handbook_and_is_not_read_again() {
    let hb = replay_in_home();
    assert!(hb.stage1(REPLAY).is_some());
    hb.cmd().args(["forget", REPLAY]).assert().success();
    assert!(hb.stage1(REPLAY).is_none(), "the stage-1 record outlived forget");
    let output = hb.cmd().env("HANDBOOK_NOW", NOW).args(["--json", "extract", "--all"]).output().unwrap();
    assert!(output.status.success());
    let lines = json_lines(&output.stdout);
    assert!(hb.stage1(REPLAY).is_none(), "a forgotten session was extracted again: {lines:?}");
    for (path, text) in hb.every_file() {
        assert!(!text.contains("serde_json::to_writer"), "{} still holds the session", path.display());
    }
}

#[test]
fn gemini_cli_home_moves_the_default_folder_and_a_bad_registry_is_a_warning() {
    let hb = Handbook::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let gemini = elsewhere.path().join(".gemini");
    copy_tree(&fixtures().join("gemini-failure-fix"), &gemini);
    fs::write(gemini.join("projects.json"), "{ torn").unwrap();
    let output = hb
        .cmd()
        .env("GEMINI_CLI_HOME", elsewhere.path())
        .env("HANDBOOK_NOW", NOW)
        .args(["--json", "extract", "--all"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let lines = json_lines(&output.stdout);
    let found = sessions(&lines);
    assert_eq!(found.len(), 1, "{lines:?}");
    assert_eq!(found[0]["outcome"], "extracted");
    let warnings = found[0]["warnings"].as_array().unwrap();
    let malformed = Path::new(&gemini).join("projects.json").display().to_string() + " is malformed";
    assert!(warnings.iter().any(|w| w["message"].as_str().unwrap().starts_with(&malformed)), "{warnings:?}");
    assert_eq!(found[0]["project"], "unknown", "no project without the registry or directories");
}
