//! pi sessions through the whole binary: every case of `fixtures-pi/` against its
//! `expect.toml`, found by `search --in transcripts` from their active branch alone, and taken
//! back out of the handbook by `forget`.
//!
//! The pi cases live beside `fixtures/`, not in it, so the figures of the tests that run the
//! whole of `fixtures/` (counts, rankings, the rendered snapshot) stay those of that corpus.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{Handbook, NOW, copy_tree, json_lines};
use crate::fixtures::check_case;

/// The repository's `fixtures-pi/` folder.
fn pi_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures-pi")
}

#[test]
fn every_pi_fixture_case_meets_its_expectations() {
    let mut cases: Vec<_> = fs::read_dir(pi_fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expect.toml").is_file())
        .collect();
    cases.sort();
    assert!(cases.len() >= 9, "expected the pi fixture cases, found {}", cases.len());
    for case in cases {
        check_case(&case);
    }
}

#[test]
fn all_pi_fixtures_in_one_run_leak_nothing() {
    let hb = Handbook::new();
    hb.extract_json(&[&pi_fixtures()], &["--include-subagents"]);
    let secrets = fs::read_to_string(pi_fixtures().join("pi-secrets/secrets.txt")).unwrap();
    for secret in secrets.lines().filter(|l| !l.is_empty()) {
        hb.assert_nowhere(secret);
    }
    for needle in ["CANARY", "moonbeam", "blue door", "push directly to main"] {
        hb.assert_nowhere(needle);
    }
}

/// Some pi fixtures copied to a private folder and run through `update --all`.
fn pi_handbook() -> (Handbook, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    for case in ["pi-tree", "pi-instructions", "pi-failure-fix"] {
        copy_tree(&pi_fixtures().join(case), &dir.path().join(case));
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

fn the_session(dir: &Path, case: &str) -> std::path::PathBuf {
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
