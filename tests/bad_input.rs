//! Bad input never crashes a run or loses what is stored: each problem is a warning that
//! names the file (and line), and the coverage line counts it.

use std::fs;
use std::io::Write;

use crate::common::{Handbook, copy_tree, coverage, fixtures, sessions};

fn good_session(dir: &std::path::Path) {
    copy_tree(&fixtures().join("generic"), &dir.join("generic"));
}

#[test]
fn a_fifty_megabyte_line_is_skipped_with_a_warning_and_the_rest_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.jsonl");
    let mut file = fs::File::create(&path).unwrap();
    writeln!(file, r#"{{"session_id":"huge-1","cwd":"/w/huge"}}"#).unwrap();
    writeln!(file, r#"{{"role":"user","content":"Fix the build. We always build with make release."}}"#).unwrap();
    let blob = "x".repeat(50 * 1024 * 1024);
    writeln!(file, r#"{{"role":"tool","id":"1","content":"{blob}"}}"#).unwrap();
    writeln!(file, r#"{{"role":"tool_call","id":"2","command":"make release"}}"#).unwrap();
    writeln!(file, r#"{{"role":"tool","id":"2","exit_code":0,"content":"ok"}}"#).unwrap();
    drop(file);
    let hb = Handbook::new();
    let lines = hb.extract_json(&[dir.path()], &[]);
    let report = sessions(&lines)[0];
    assert_eq!(report["outcome"], "extracted");
    let warning = &report["warnings"][0];
    assert_eq!(warning["line"], 3);
    assert!(warning["message"].as_str().unwrap().contains("over the 16 MB limit"), "{warning}");
    let record = hb.stage1("huge-1").unwrap();
    assert!(record["raw_memory"].as_str().unwrap().contains("verified build command: `make release`"));
}

#[test]
fn empty_binary_and_unrecognised_files_are_skipped_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("empty.jsonl"), "").unwrap();
    fs::write(dir.path().join("blank.jsonl"), "\n\n  \n").unwrap();
    fs::write(dir.path().join("binary.jsonl"), [0u8, 159, 146, 150, 0, 1, 2, 3, 255, 254]).unwrap();
    fs::write(dir.path().join("other.jsonl"), "{\"kind\":\"metrics\",\"value\":3}\n").unwrap();
    good_session(dir.path());
    let hb = Handbook::new();
    let output = hb.cmd().args(["--json", "extract", "--all"]).arg(dir.path()).output().unwrap();
    assert!(output.status.success());
    let lines = crate::common::json_lines(&output.stdout);
    let c = coverage(&lines);
    assert_eq!((c["skipped"].as_u64(), c["extracted"].as_u64()), (Some(4), Some(1)));
    let stderr = String::from_utf8(output.stderr).unwrap();
    for expected in [
        "empty.jsonl: empty file; skipped",
        "blank.jsonl: empty file; skipped",
        "binary.jsonl: binary data, not a transcript; skipped",
        "other.jsonl: not a recognised transcript format (use --format to force one); skipped",
    ] {
        assert!(stderr.contains(expected), "missing {expected:?} in\n{stderr}");
    }
}

#[test]
fn an_unreadable_file_fails_alone_and_keeps_what_was_stored() {
    let dir = tempfile::tempdir().unwrap();
    good_session(dir.path());
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let file = dir.path().join("generic/firmware-session.jsonl");
    let before = hb.stage1("generic-make-0001").unwrap();
    // Replace the transcript with one whose reads fail. File permissions do not stop root,
    // which CI may run as; /proc/self/mem refuses reads at offset 0 for everyone.
    fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink("/proc/self/mem", &file).unwrap();
    let lines = hb.extract_json(&[dir.path()], &[]);
    let c = coverage(&lines);
    assert_eq!(c["failed"], 1, "{c}");
    assert!(c["failures"][0][0].as_str().unwrap().ends_with("firmware-session.jsonl"), "{c}");
    assert!(c["failures"][0][1].as_str().unwrap().contains("error"), "{c}");
    assert_eq!(hb.stage1("generic-make-0001").unwrap(), before, "a failed read lost the earlier extraction");
}

#[test]
fn a_symlink_loop_is_a_warning_and_the_walk_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    good_session(dir.path());
    std::os::unix::fs::symlink(dir.path(), dir.path().join("generic/loop")).unwrap();
    let hb = Handbook::new();
    let output = hb.cmd().args(["--json", "extract", "--all"]).arg(dir.path()).output().unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8(output.stderr).unwrap().contains("symlink loop"));
    assert_eq!(coverage(&crate::common::json_lines(&output.stdout))["extracted"], 1);
}

#[test]
fn a_damaged_state_file_is_an_error_that_names_it_and_is_not_overwritten() {
    let hb = Handbook::new();
    fs::create_dir_all(hb.state()).unwrap();
    fs::write(hb.state().join("sources.json"), "{ torn").unwrap();
    let output = hb.cmd().args(["extract", "--all"]).arg(fixtures().join("trivial")).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8(output.stderr).unwrap().contains("sources.json is damaged; move it aside"));
    assert_eq!(fs::read_to_string(hb.state().join("sources.json")).unwrap(), "{ torn");
}
