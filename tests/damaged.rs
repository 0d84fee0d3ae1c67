//! Damaged or unreadable state: what handbook learned survives, and a rebuild says what it
//! recovered.

use std::fs;

use crate::common::{Handbook, NOW, copy_tree, fixtures};

const GENERIC: &str = "generic-make-0001";

/// The generic fixture in a folder of its own, run through `update`.
fn updated_generic() -> (Handbook, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("generic"), dir.path());
    let hb = Handbook::new();
    hb.update(dir.path());
    (hb, dir)
}

#[test]
fn a_rebuilt_state_keeps_the_forgotten_sessions() {
    let (hb, dir) = updated_generic();
    hb.cmd().args(["forget", GENERIC]).assert().success();
    // The advice for a damaged state file: move it aside and run again.
    fs::rename(hb.state().join("sources.json"), hb.state().join("sources.json.damaged")).unwrap();
    let _ = fs::remove_file(hb.state().join("sources.log"));
    let stderr = hb.update(dir.path());
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
    hb.update(dir.path());
    fs::remove_file(&path).unwrap();
    let _ = fs::remove_file(hb.state().join("sources.log"));
    let stderr = hb.update(dir.path());
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
    hb.update(dir.path());
    assert!(hb.stage1(GENERIC).is_none(), "a forgotten session was extracted again");
}

/// True when permissions hold here: not so for root, which reads a file of mode 000.
#[cfg(unix)]
fn permissions_hold() -> bool {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let probe = dir.path().join("probe");
    fs::write(&probe, "x").unwrap();
    fs::set_permissions(&probe, fs::Permissions::from_mode(0o000)).unwrap();
    fs::read(&probe).is_err()
}

#[cfg(unix)]
#[test]
fn a_source_folder_that_cannot_be_read_keeps_its_lessons() {
    use std::os::unix::fs::PermissionsExt;
    if !permissions_hold() {
        eprintln!("skipped: permissions do not hold for this user");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("sessions");
    copy_tree(&fixtures().join("generic"), &folder);
    let hb = Handbook::new();
    hb.update(dir.path());
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o000)).unwrap();
    let output = hb.cmd().args(["--json", "extract", "--all"]).arg(dir.path()).output().unwrap();
    let consolidated = hb.cmd().args(["consolidate", "--force"]).output().unwrap();
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o755)).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success() && consolidated.status.success(), "{stderr}");
    assert!(stderr.contains("cannot read") && stderr.contains("sessions"), "{stderr}");
    assert_eq!(crate::common::coverage(&crate::common::json_lines(&output.stdout))["vanished"], 0, "{stderr}");
    assert!(hb.stage1(GENERIC).is_some(), "what was learned from an unreadable folder was dropped");
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(memory.contains(GENERIC), "{memory}");
}

/// A folder that cannot be reached for another reason than permissions (here a symbolic link
/// to itself, as a broken mount can be): its transcripts are not known to be gone.
#[cfg(unix)]
#[test]
fn a_source_folder_that_cannot_be_reached_keeps_its_lessons() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("sessions");
    copy_tree(&fixtures().join("generic"), &folder);
    let hb = Handbook::new();
    hb.update(dir.path());
    let aside = tempfile::tempdir().unwrap();
    fs::rename(&folder, aside.path().join("sessions")).unwrap();
    std::os::unix::fs::symlink(&folder, &folder).unwrap();
    let output = hb.cmd().args(["--json", "extract", "--all"]).arg(dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(crate::common::coverage(&crate::common::json_lines(&output.stdout))["vanished"], 0, "{stderr}");
    hb.cmd().args(["consolidate", "--force"]).assert().success();
    assert!(hb.stage1(GENERIC).is_some(), "what was learned from an unreachable folder was dropped");
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(memory.contains(GENERIC), "{memory}");
}

/// The path of a session's stage-1 record.
fn record_path(hb: &Handbook, session_id: &str) -> std::path::PathBuf {
    hb.state().join("stage1").join(handbook::core::stage1::file_name(session_id))
}

#[test]
fn a_record_moved_aside_is_rebuilt_from_its_transcript() {
    let (hb, dir) = updated_generic();
    let record = record_path(&hb, GENERIC);
    fs::rename(&record, hb.state().join("record.aside")).unwrap();
    let stderr = hb.update(dir.path());
    assert!(record.exists(), "nothing rebuilt the record: {stderr}");
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(memory.contains(GENERIC), "{memory}");
}

#[test]
fn a_damaged_record_is_set_aside_and_rebuilt_from_its_transcript() {
    let (hb, dir) = updated_generic();
    let record = record_path(&hb, GENERIC);
    fs::write(&record, "{ torn").unwrap();
    let stderr = hb.update(dir.path());
    assert!(stderr.contains("is damaged") && stderr.contains("read again"), "{stderr}");
    hb.update(dir.path());
    assert!(hb.stage1(GENERIC).is_some(), "nothing rebuilt the record");
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(memory.contains(GENERIC), "{memory}");
}

/// `consolidate --force` at the fixtures' clock; its stderr.
fn consolidate(hb: &Handbook) -> String {
    let output = hb.cmd().env("HANDBOOK_NOW", NOW).args(["consolidate", "--force"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    stderr
}

/// Add a line by hand to MEMORY.md; the file as it is then.
fn edit_by_hand(hb: &Handbook) -> String {
    let path = hb.home.path().join("MEMORY.md");
    let edited = format!("{}- my own line, added by hand\n", fs::read_to_string(&path).unwrap());
    fs::write(&path, &edited).unwrap();
    edited
}

#[test]
fn without_a_manifest_the_hand_edited_handbook_is_kept() {
    for damage in ["missing", "damaged"] {
        let (hb, _dir) = updated_generic();
        let edited = edit_by_hand(&hb);
        let manifest = hb.state().join("manifest.json");
        match damage {
            "missing" => fs::remove_file(&manifest).unwrap(),
            _ => fs::write(&manifest, "{ torn").unwrap(),
        }
        let stderr = consolidate(&hb);
        let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
        assert_eq!(memory, edited, "{damage}: the hand-edited MEMORY.md was not kept: {stderr}");
        assert!(stderr.contains("MEMORY.md and memory_summary.md are kept as they are"), "{damage}: {stderr}");
        let rebuilt: serde_json::Value = serde_json::from_str(&fs::read_to_string(&manifest).unwrap()).unwrap();
        assert!(rebuilt["files"]["MEMORY.md"].is_string(), "{damage}: no new baseline");
        assert!(!consolidate(&hb).contains("kept as they are"), "{damage}: the new baseline is trusted");
    }
}

#[test]
fn garbage_baseline_copies_pin_nothing_and_forget_still_works() {
    let (hb, _dir) = updated_generic();
    edit_by_hand(&hb);
    for entry in fs::read_dir(hb.state().join("objects")).unwrap() {
        fs::write(entry.unwrap().path(), "garbage").unwrap();
    }
    let stderr = consolidate(&hb);
    hb.cmd().args(["forget", GENERIC]).assert().success();
    consolidate(&hb);
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(!memory.contains(GENERIC), "a forgotten session stayed, pinned as a hand edit:\n{memory}");
    assert!(stderr.contains("is missing or damaged"), "{stderr}");
}
