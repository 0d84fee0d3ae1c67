//! Ctrl-C and SIGTERM during `extract` and `update`: the run stops at the next session
//! boundary, keeps what it finished, says so, and releases the lock.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::Handbook;

/// `count` generic sessions, each asking for something worth keeping.
fn sessions(dir: &Path, count: usize) {
    for n in 0..count {
        let text = format!(
            "{{\"session_id\":\"slow-{n:02}\",\"cwd\":\"/w/app\"}}\n\
             {{\"role\":\"user\",\"content\":\"Fix the parser, and from now on always run cargo fmt first ({n}).\",\"timestamp\":\"2026-11-27T10:00:00Z\"}}\n\
             {{\"role\":\"assistant\",\"content\":\"Done.\",\"timestamp\":\"2026-11-27T10:00:05Z\"}}\n"
        );
        fs::write(dir.join(format!("session-{n:02}.jsonl")), text).unwrap();
    }
}

/// A command-line model that notes each call in `calls` and takes its time to answer with
/// a no-op.
fn slow_model(dir: &Path, calls: &Path) -> String {
    let script = dir.join("slow-llm.sh");
    let body = format!(
        "cat >/dev/null\necho call >> '{}'\nsleep 0.3\nprintf '%s' '{{\"raw_memory\": \"\", \"rollout_summary\": \"\", \"rollout_slug\": \"\"}}'\n",
        calls.display()
    );
    fs::write(&script, body).unwrap();
    format!("sh {}", script.display())
}

/// Send `signal` to the process once `ready` holds (or after ten seconds).
fn signal_when(pid: u32, signal: &str, ready: impl Fn() -> bool) {
    let until = Instant::now() + Duration::from_secs(10);
    while !ready() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Command::new("kill").args([signal, &pid.to_string()]).status().unwrap();
    assert!(sent.success(), "kill {signal} {pid}");
}

const SESSIONS: usize = 20;

fn interrupted_run(signal: &str) -> (Handbook, tempfile::TempDir, std::process::Output) {
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    sessions(dir.path(), SESSIONS);
    let calls = work.path().join("calls");
    let hb = Handbook::new();
    let child = hb
        .process()
        .args(["extract", "--all", "--engine", "command", "--max-retries", "0", "--limit", "0"])
        .args(["--llm-command", &slow_model(work.path(), &calls)])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Signal once the second call has begun: the first session is finished by then.
    let started = || fs::read_to_string(&calls).is_ok_and(|c| c.lines().count() >= 2);
    signal_when(child.id(), signal, started);
    let output = child.wait_with_output().unwrap();
    (hb, dir, output)
}

#[test]
fn ctrl_c_keeps_the_finished_sessions_and_exits_130() {
    let (hb, dir, output) = interrupted_run("-INT");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(stdout.contains("deferred to a later run"), "the coverage so far is printed:\n{stdout}");
    // What finished is committed: the state knows it, and the next run reads only the rest.
    let known = hb.sources()["sources"].as_object().unwrap().len();
    assert!((1..SESSIONS).contains(&known), "{known} sessions recorded of {SESSIONS}");
    let failed = hb.sources()["sources"].as_object().unwrap().values().filter(|e| e["state"] == "failed").count();
    assert_eq!(failed, 0, "a session cut short by the signal is not a failure");
    let next = hb.cmd().args(["--json", "extract", "--all", "--wait", "0"]).arg(dir.path()).output().unwrap();
    assert!(next.status.success(), "the lock was released: {}", String::from_utf8_lossy(&next.stderr));
    let totals = crate::common::json_lines(&next.stdout).pop().unwrap();
    assert_eq!(totals["data"]["coverage"]["unchanged"], known as u64, "finished sessions are not read again");
}

#[test]
fn sigterm_exits_143_with_the_state_consistent() {
    let (hb, _dir, output) = interrupted_run("-TERM");
    assert_eq!(output.status.code(), Some(143), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("terminated"));
    let status = hb.cmd().args(["--json", "status"]).output().unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
}

#[test]
fn a_second_ctrl_c_stops_at_once_and_leaves_a_readable_state() {
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    sessions(dir.path(), SESSIONS);
    let calls = work.path().join("calls");
    // The second call hangs: only a second Ctrl-C gets the run out of it before it ends.
    let script = work.path().join("hanging-llm.sh");
    let body = format!(
        "cat >/dev/null\necho call >> '{0}'\n[ \"$(wc -l < '{0}')\" -ge 2 ] && sleep 8\nprintf '%s' '{{\"raw_memory\": \"\", \"rollout_summary\": \"\", \"rollout_slug\": \"\"}}'\n",
        calls.display()
    );
    fs::write(&script, body).unwrap();
    let hb = Handbook::new();
    let child = hb
        .process()
        .args(["extract", "--all", "--engine", "command", "--max-retries", "0", "--timeout", "60"])
        .args(["--llm-command", &format!("sh {}", script.display())])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    signal_when(pid, "-INT", || fs::read_to_string(&calls).is_ok_and(|c| c.lines().count() >= 2));
    std::thread::sleep(Duration::from_millis(100));
    let second = Instant::now();
    signal_when(pid, "-INT", || true);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    assert!(
        second.elapsed() < Duration::from_secs(4),
        "the second Ctrl-C waited for the session: {:?}",
        second.elapsed()
    );
    // Whatever was written is whole: the next run reads the state and finishes the rest.
    let next = hb.cmd().args(["extract", "--all", "--wait", "0"]).arg(dir.path()).output().unwrap();
    assert!(next.status.success(), "{}", String::from_utf8_lossy(&next.stderr));
    assert_eq!(hb.sources()["sources"].as_object().unwrap().len(), SESSIONS);
}
