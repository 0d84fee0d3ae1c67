//! Sessions are read on every core, and settled in one order: what a run reports and writes
//! does not depend on how many threads read.

use std::path::Path;

use crate::common::{Handbook, NOW, copy_tree, fixtures};

/// Stdout of `extract --all --json` on the fixtures, on the cores `cpus` names (all when
/// `None`), and every file of the workspace after it.
fn run(cpus: Option<&str>) -> (String, Vec<(String, String)>) {
    run_on(cpus, &[], &fixtures())
}

/// [`run`] with `args` after `extract`, over the transcripts under `sources`.
fn run_on(cpus: Option<&str>, args: &[&str], sources: &Path) -> (String, Vec<(String, String)>) {
    let hb = Handbook::new();
    let mut cmd = match cpus {
        Some(cpus) => {
            let mut cmd = std::process::Command::new("taskset");
            cmd.args(["-c", cpus]).arg(hb.process().get_program());
            cmd.args(hb.process().get_args());
            cmd.env_clear().envs(hb.process().get_envs().filter_map(|(k, v)| Some((k, v?))));
            cmd
        }
        None => hb.process(),
    };
    let output =
        cmd.env("HANDBOOK_NOW", NOW).args(["--json", "extract", "--all"]).args(args).arg(sources).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let home = hb.home.path();
    let files = hb
        .every_file()
        .into_iter()
        .map(|(path, text)| (path.strip_prefix(home).unwrap_or(Path::new("?")).display().to_string(), text))
        .filter(|(path, _)| !path.ends_with("lock"))
        .collect();
    (String::from_utf8(output.stdout).unwrap(), files)
}

#[test]
fn one_thread_and_every_core_give_the_same_run() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let taskset = std::process::Command::new("taskset").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(cores < 2 || taskset, "taskset (util-linux) pins a run to one core for this test");
    if cores < 2 {
        return;
    }
    let (one_out, one_files) = run(Some("0"));
    let (all_out, all_files) = run(None);
    assert_eq!(one_out, all_out, "the report");
    assert_eq!(one_files.len(), all_files.len());
    for (one, all) in one_files.iter().zip(&all_files) {
        assert_eq!(one, all, "the workspace");
    }
}

#[test]
fn one_thread_and_two_write_the_same_bytes_whatever_the_cores() {
    // Four copies of every fixture: which copy keeps a session and which are its duplicates
    // is decided in the order sessions settle, so a settling order that followed the threads
    // would show here.
    let sources = tempfile::tempdir().unwrap();
    for copy in ["a", "b", "c", "d"] {
        copy_tree(&fixtures(), &sources.path().join(copy));
    }
    let (one_out, one_files) = run_on(None, &["--threads", "1"], sources.path());
    let (two_out, two_files) = run_on(None, &["--threads", "2"], sources.path());
    assert!(one_out.contains("duplicate"), "the copies are duplicates of each other");
    assert_eq!(one_out, two_out, "the report");
    assert_eq!(one_files.len(), two_files.len());
    for (one, two) in one_files.iter().zip(&two_files) {
        assert_eq!(one, two, "the workspace");
    }
}
