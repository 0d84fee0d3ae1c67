//! A symbolic link inside the workspace is never followed: each command that would write,
//! remove or read through one refuses and names it, and the folder it points to is left
//! exactly as it was.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::common::{Handbook, NOW, copy_tree, fixtures};

const SESSION: &str = "generic-make-0001";

/// The `generic` fixture copied to a private folder.
fn generic() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("generic"), dir.path());
    dir
}

/// Run handbook with a fixed clock and a retention window wide enough for the fixture.
fn run(hb: &Handbook, args: &[&str], source: Option<&Path>) -> std::process::Output {
    let mut cmd = hb.cmd();
    cmd.env("HANDBOOK_NOW", NOW).env("HANDBOOK_MAX_UNUSED_DAYS", "3650").args(args).args(source);
    cmd.output().unwrap()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A folder outside the workspace holding one file the test expects to find unchanged.
fn precious(name: &str) -> (tempfile::TempDir, PathBuf) {
    let outside = tempfile::tempdir().unwrap();
    let file = outside.path().join(name);
    fs::write(&file, "keep me").unwrap();
    (outside, file)
}

/// The names in a folder, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// Assert that a run failed, saying that `link` is a link it will not follow.
fn assert_refused(output: &std::process::Output, link: &Path) {
    let err = stderr(output);
    assert!(!output.status.success(), "the run went through the link: {err}");
    assert!(err.contains(&format!("{} is a symbolic link", link.display())), "{err}");
}

#[test]
fn consolidate_refuses_a_linked_summaries_folder_and_keeps_what_it_holds() {
    let source = generic();
    let hb = Handbook::new();
    let extracted = run(&hb, &["extract", "--all"], Some(source.path()));
    assert!(extracted.status.success(), "{}", stderr(&extracted));
    let (outside, keep) = precious("mine.md");
    let link = hb.home.path().join("rollout_summaries");
    symlink(outside.path(), &link).unwrap();

    let output = run(&hb, &["consolidate", "--force"], None);
    assert_refused(&output, &link);
    assert_eq!(fs::read_to_string(&keep).unwrap(), "keep me");
    assert_eq!(names(outside.path()), ["mine.md"], "nothing was written into the linked folder");
}

#[test]
fn extract_refuses_a_linked_record_folder_and_overwrites_nothing() {
    let source = generic();
    let hb = Handbook::new();
    let record = handbook::core::stage1::file_name(SESSION);
    let (outside, keep) = precious(&record);
    fs::create_dir_all(hb.state()).unwrap();
    let link = hb.state().join("stage1");
    symlink(outside.path(), &link).unwrap();

    let output = run(&hb, &["extract", "--all"], Some(source.path()));
    assert_refused(&output, &link);
    assert_eq!(fs::read_to_string(&keep).unwrap(), "keep me");
    assert_eq!(names(outside.path()), [record]);
}

#[test]
fn forget_refuses_a_linked_record_folder_and_removes_nothing() {
    let source = generic();
    let hb = Handbook::new();
    let updated = run(&hb, &["update", "--all"], Some(source.path()));
    assert!(updated.status.success(), "{}", stderr(&updated));
    // The records move out of the workspace, and a link to them takes their place.
    let outside = tempfile::tempdir().unwrap();
    let moved = outside.path().join("stage1");
    fs::rename(hb.state().join("stage1"), &moved).unwrap();
    let link = hb.state().join("stage1");
    symlink(&moved, &link).unwrap();
    let before = names(&moved);
    assert!(before.contains(&handbook::core::stage1::file_name(SESSION)), "{before:?}");

    let output = hb.cmd().args(["forget", SESSION]).output().unwrap();
    assert_refused(&output, &link);
    assert_eq!(names(&moved), before, "a record outside the workspace was removed");
}

#[test]
fn note_refuses_a_linked_notes_folder() {
    let hb = Handbook::new();
    let outside = tempfile::tempdir().unwrap();
    fs::create_dir_all(hb.home.path().join("extensions/ad_hoc")).unwrap();
    let link = hb.home.path().join("extensions/ad_hoc/notes");
    symlink(outside.path(), &link).unwrap();

    let output = hb.cmd().env("HANDBOOK_NOW", NOW).args(["note", "Staging needs the VPN."]).output().unwrap();
    assert_refused(&output, &link);
    assert!(names(outside.path()).is_empty(), "the note was written outside the workspace");
}

#[test]
fn a_note_that_is_a_link_is_never_read() {
    let source = generic();
    let hb = Handbook::new();
    let noted = hb.cmd().env("HANDBOOK_NOW", NOW).args(["note", "Staging needs the VPN."]).output().unwrap();
    assert!(noted.status.success(), "{}", stderr(&noted));
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("private.md");
    fs::write(&target, "# Private\n\nOUTSIDE-TEXT-7f3a must never reach the handbook.\n").unwrap();
    let link = hb.home.path().join("extensions/ad_hoc/notes/2026-11-29T12-00-01-private.md");
    symlink(&target, &link).unwrap();

    let output = run(&hb, &["update", "--all"], Some(source.path()));
    assert_refused(&output, &link);
    hb.assert_nowhere("OUTSIDE-TEXT-7f3a");

    // Linked in after a good consolidation, it is not passed over as if it were not there.
    fs::remove_file(&link).unwrap();
    let output = run(&hb, &["update", "--all"], Some(source.path()));
    assert!(output.status.success(), "{}", stderr(&output));
    symlink(&target, &link).unwrap();
    let output = run(&hb, &["consolidate", "--force"], None);
    assert_refused(&output, &link);
    hb.assert_nowhere("OUTSIDE-TEXT-7f3a");
    let summary = hb.cmd().arg("summary").output().unwrap();
    assert!(summary.status.success(), "{}", stderr(&summary));
    assert!(!String::from_utf8_lossy(&summary.stdout).contains("OUTSIDE-TEXT-7f3a"));
}

#[test]
fn search_skips_a_linked_summary_with_a_warning() {
    let source = generic();
    let hb = Handbook::new();
    let updated = run(&hb, &["update", "--all"], Some(source.path()));
    assert!(updated.status.success(), "{}", stderr(&updated));
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("private.md");
    fs::write(&target, "OUTSIDE-TEXT-7f3a\n").unwrap();
    let link = hb.home.path().join("rollout_summaries/zz-private.md");
    symlink(&target, &link).unwrap();

    let output = hb.cmd().args(["search", "OUTSIDE-TEXT-7f3a"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&output.stdout).contains("OUTSIDE-TEXT-7f3a"));
    let err = stderr(&output);
    assert!(err.contains(&format!("{} is a symbolic link", link.display())), "{err}");
}

#[test]
fn a_linked_home_is_still_a_home() {
    let source = generic();
    let hb = Handbook::new();
    let parent = tempfile::tempdir().unwrap();
    let link = parent.path().join("home-link");
    symlink(hb.home.path(), &link).unwrap();
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_handbook"));
    cmd.env_clear().env("HOME", hb.user.path()).env("HANDBOOK_NOW", NOW).env("HANDBOOK_MAX_UNUSED_DAYS", "3650");
    let output = cmd.arg("--home").arg(&link).args(["update", "--all"]).arg(source.path()).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(hb.home.path().join("MEMORY.md").is_file());
    assert!(hb.stage1(SESSION).is_some());
}
