//! pi sessions through the whole binary: found by `search --in transcripts` from their active
//! branch alone, and taken back out of the handbook by `forget`. (Their fixture cases,
//! `fixtures/pi-*`, are checked with every other case by `tests/fixtures.rs`.)

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{Handbook, NOW, copy_tree, fixtures, json_lines};

/// Some pi fixtures copied to a private folder and run through `update --all`.
fn pi_handbook() -> (Handbook, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    for case in ["pi-tree", "pi-instructions", "pi-failure-fix"] {
        copy_tree(&fixtures().join(case), &dir.path().join(case));
    }
    let hb = Handbook::new();
    hb.update(dir.path());
    (hb, dir)
}

/// The results of `search --json --limit 0` with `args`, and its exit status.
fn search(hb: &Handbook, args: &[&str]) -> (Vec<Value>, i32) {
    let output =
        hb.cmd().env("HANDBOOK_NOW", NOW).args(["search", "--json", "--limit", "0"]).args(args).output().unwrap();
    let mut lines = json_lines(&output.stdout);
    lines.pop();
    (lines.into_iter().map(|l| l["data"].clone()).collect(), output.status.code().unwrap())
}

fn the_session(dir: &Path, case: &str) -> PathBuf {
    let folder = walkdir::WalkDir::new(dir.join(case)).into_iter().filter_map(Result::ok);
    folder.map(|e| e.into_path()).find(|p| p.extension().is_some_and(|e| e == "jsonl")).unwrap()
}

#[test]
fn search_finds_the_active_branch_of_a_pi_session_and_nothing_else() {
    let (hb, dir) = pi_handbook();
    let file = the_session(dir.path(), "pi-tree");
    let lines = fs::read_to_string(&file).unwrap();
    let (found, code) = search(&hb, &["--in", "transcripts", "HashMap"]);
    assert_eq!(code, 0, "nothing found");
    assert!(!found.is_empty());
    for result in &found {
        assert_eq!(result["path"].as_str().unwrap(), file.to_str().unwrap());
        let line = result["line"].as_u64().unwrap() as usize;
        assert!(lines.lines().nth(line - 1).unwrap().contains("HashMap"), "line {line} does not hold the match");
    }
    assert!(found.iter().any(|r| r["text"].as_str().unwrap().contains("Use a HashMap with capacity instead.")));
    // In the raw files, and never to be found: the abandoned branch, instruction bodies,
    // thinking, the system prompt.
    assert!(lines.contains("moonbeam"));
    for query in ["moonbeam", "CANARY", "blue door", "deploy on fridays"] {
        let (found, code) = search(&hb, &["--in", "transcripts", query]);
        assert_eq!(code, 1, "{query} found: {found:?}");
    }
}

#[test]
fn forget_takes_a_pi_session_out_of_the_handbook() {
    let (hb, dir) = pi_handbook();
    let preference = "We use uv, not pip";
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(memory.contains(preference), "{memory}");
    hb.cmd().args(["forget", "0c0de000-0000-4000-8000-00000000a001"]).assert().success();
    hb.update(dir.path());
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(!memory.contains(preference), "a forgotten pi session's lesson survived: {memory}");
    assert!(memory.contains("cargo bench"), "the other sessions stay: {memory}");
    assert!(hb.stage1("0c0de000-0000-4000-8000-00000000a001").is_none());
}
