//! Damaged or unreadable state: what handbook learned survives, and a rebuild says what it
//! recovered.

use std::fs;
use std::path::Path;

use crate::common::{Handbook, NOW, copy_tree, fixtures};

const GENERIC: &str = "generic-make-0001";

/// `update --all` on `source`; its stderr.
fn update(hb: &Handbook, source: &Path) -> String {
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
        .args(["update", "--all"])
        .arg(source)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    stderr
}

/// The generic fixture in a folder of its own, run through `update`.
fn updated_generic() -> (Handbook, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("generic"), dir.path());
    let hb = Handbook::new();
    update(&hb, dir.path());
    (hb, dir)
}

#[test]
fn a_rebuilt_state_keeps_the_forgotten_sessions() {
    let (hb, dir) = updated_generic();
    hb.cmd().args(["forget", GENERIC]).assert().success();
    // The advice for a damaged state file: move it aside and run again.
    fs::rename(hb.state().join("sources.json"), hb.state().join("sources.json.damaged")).unwrap();
    let _ = fs::remove_file(hb.state().join("sources.log"));
    let stderr = update(&hb, dir.path());
    assert!(hb.stage1(GENERIC).is_none(), "a forgotten session was extracted again");
    assert!(stderr.contains("sources.json was rebuilt; 1 forgotten session kept"), "{stderr}");
    assert_eq!(hb.sources()["excluded"], serde_json::json!([GENERIC]));
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(!memory.contains(GENERIC), "{memory}");
}

#[test]
fn the_forgotten_list_of_an_earlier_state_file_moves_to_its_own_file() {
    let (hb, dir) = updated_generic();
    // An earlier handbook kept the list inside sources.json only.
    let path = hb.state().join("sources.json");
    let mut state: serde_json::Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    state["excluded"] = serde_json::json!(["some-old-session"]);
    fs::write(&path, serde_json::to_string(&state).unwrap()).unwrap();
    let _ = fs::remove_file(hb.state().join("forgotten.json"));
    update(&hb, dir.path());
    fs::remove_file(&path).unwrap();
    let _ = fs::remove_file(hb.state().join("sources.log"));
    let stderr = update(&hb, dir.path());
    assert!(stderr.contains("sources.json was rebuilt; 1 forgotten session kept"), "{stderr}");
    assert_eq!(hb.sources()["excluded"], serde_json::json!(["some-old-session"]));
}

#[test]
fn a_reset_of_a_damaged_state_keeps_the_forgotten_sessions() {
    let (hb, dir) = updated_generic();
    hb.cmd().args(["forget", GENERIC]).assert().success();
    fs::write(hb.state().join("sources.json"), "{ torn").unwrap();
    let output = hb.cmd().args(["--json", "reset", "--yes"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(crate::common::json_lines(&output.stdout)[0]["data"]["forgotten_kept"], 1);
    update(&hb, dir.path());
    assert!(hb.stage1(GENERIC).is_none(), "a forgotten session was extracted again");
}
