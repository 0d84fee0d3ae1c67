//! One session never harms another: hostile session ids, folders, branches and titles never
//! take another session's place, forge the handbook's structure, or crowd the others out.

use std::fs;
use std::path::Path;

use crate::common::{Handbook, NOW};

/// A generic transcript of session `id` in `cwd`: the user states a rule, and `command`
/// passes.
fn transcript(dir: &Path, file: &str, id: &str, cwd: &str, command: &str) {
    let first = serde_json::json!({ "session_id": id, "cwd": cwd });
    let lines = [
        first.to_string(),
        format!(
            r#"{{"role":"user","content":"Build the image. We always build with `{command}`.","timestamp":"2026-11-27T10:00:05Z"}}"#
        ),
        format!(
            r#"{{"role":"tool_call","name":"shell","id":"1","command":"{command}","timestamp":"2026-11-27T10:00:07Z"}}"#
        ),
        r#"{"role":"tool","id":"1","exit_code":0,"content":"ok","timestamp":"2026-11-27T10:00:09Z"}"#.to_string(),
    ];
    fs::write(dir.join(file), lines.join("\n") + "\n").unwrap();
}

/// `update --all` on `dir`: extract and consolidate; the run's output.
fn update(hb: &Handbook, dir: &Path) -> std::process::Output {
    hb.cmd()
        .env("HANDBOOK_NOW", NOW)
        .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
        .args(["update", "--all"])
        .arg(dir)
        .output()
        .unwrap()
}

fn read(hb: &Handbook, file: &str) -> String {
    fs::read_to_string(hb.home.path().join(file)).unwrap()
}

#[test]
fn an_id_equal_to_another_ids_file_name_keeps_its_own_record() {
    let dir = tempfile::tempdir().unwrap();
    // The name an unsafe id was once stored under, used as a second session's id.
    let crafted = format!("x_y-{}", &blake3::hash(b"x/y").to_hex()[..12]);
    transcript(dir.path(), "a.jsonl", "x/y", "/w/alpha", "make alpha");
    transcript(dir.path(), "b.jsonl", &crafted, "/w/beta", "make beta");
    let hb = Handbook::new();
    let output = update(&hb, dir.path());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    for id in ["x/y", crafted.as_str()] {
        let record = hb.stage1(id).unwrap_or_else(|| panic!("no record of {id}"));
        assert_eq!(record["session_id"], id, "the record of {id} holds another session");
    }
    let memory = read(&hb, "MEMORY.md");
    assert!(memory.contains("make alpha") && memory.contains("make beta"), "{memory}");
}
