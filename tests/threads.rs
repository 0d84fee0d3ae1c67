//! Sessions are read on every core, and settled in one order: what a run reports and writes
//! does not depend on how many threads read.

use std::path::Path;

use crate::common::{Handbook, NOW, fixtures};

/// Stdout of `extract --all --json` on the fixtures, on the cores `cpus` names (all when
/// `None`), and every file of the workspace after it.
fn run(cpus: Option<&str>) -> (String, Vec<(String, String)>) {
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
    let output = cmd.env("HANDBOOK_NOW", NOW).args(["--json", "extract", "--all"]).arg(fixtures()).output().unwrap();
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
