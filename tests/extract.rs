//! `handbook extract` end to end: change tracking, windows, limits, the lock, the output
//! contract.

use std::fs;
use std::path::Path;

use predicates::prelude::*;

use crate::common::{Handbook, copy_tree, coverage, fixtures, json_lines, sessions};

const CODEX_CASE: &str = "codex-failure-fix";
const CODEX_ID: &str = "019d7a10-4c2e-7b31-9a55-0c0de0000001";

/// A private copy of some fixture cases, so a test may change them.
fn copy_cases(cases: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for case in cases {
        copy_tree(&fixtures().join(case), &dir.path().join(case));
    }
    dir
}

/// Append a record stamped now to the transcript of `case` under `root`, as an agent still
/// writing it would: the newest record's own time is what makes a session active.
fn append_record_now(root: &Path, case: &str) {
    let now = jiff::Timestamp::now();
    let (file, line) = match case {
        CODEX_CASE => (
            codex_file(root),
            format!(
                r#"{{"timestamp":"{now}","type":"event_msg","payload":{{"type":"agent_message","message":"Still working."}}}}"#
            ),
        ),
        "generic" => (
            root.join("generic/firmware-session.jsonl"),
            format!(r#"{{"role":"assistant","content":"Still working.","timestamp":"{now}"}}"#),
        ),
        other => panic!("no record to append to {other}"),
    };
    let mut text = fs::read_to_string(&file).unwrap();
    text.push_str(&line);
    text.push('\n');
    fs::write(&file, text).unwrap();
}

fn codex_file(root: &Path) -> std::path::PathBuf {
    root.join(CODEX_CASE).join(format!("sessions/2026/11/20/rollout-2026-11-20T09-00-00-{CODEX_ID}.jsonl"))
}

/// Add a user turn with a lesson to a Codex transcript: a real change to it.
fn append_a_lesson(file: &Path) {
    let mut text = fs::read_to_string(file).unwrap();
    text.push_str(r#"{"timestamp":"2026-11-20T09:05:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"Remember that release builds need the nightly toolchain."}}"#);
    text.push('\n');
    fs::write(file, text).unwrap();
}

#[test]
fn a_second_run_with_nothing_changed_reads_nothing() {
    let hb = Handbook::new();
    let first = hb.extract_json(&[&fixtures()], &[]);
    assert_eq!(coverage(&first)["extracted"], 28);
    let sources_before = fs::read(hb.state().join("sources.json")).unwrap();
    let second = hb.extract_json(&[&fixtures()], &[]);
    let c = coverage(&second);
    assert_eq!((c["extracted"].as_u64(), c["unchanged"].as_u64()), (Some(0), c["sessions"].as_u64()));
    assert!(sessions(&second).is_empty());
    // Only the run time moves; every file entry is as it was.
    let before: serde_json::Value = serde_json::from_slice(&sources_before).unwrap();
    assert_eq!(before["sources"], hb.sources()["sources"]);
}

#[test]
fn a_touched_file_is_recognised_by_its_hash_and_a_changed_one_is_read_again() {
    let dir = copy_cases(&[CODEX_CASE]);
    let file = codex_file(dir.path());
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let first = hb.stage1(CODEX_ID).unwrap();

    let later = fs::FileTimes::new().set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(60));
    fs::File::options().write(true).open(&file).unwrap().set_times(later).unwrap();
    let touched = hb.extract_json(&[dir.path()], &[]);
    assert_eq!(coverage(&touched)["unchanged"], 1);

    append_a_lesson(&file);
    let changed = hb.extract_json(&[dir.path()], &[]);
    assert_eq!(coverage(&changed)["extracted"], 1);
    let second = hb.stage1(CODEX_ID).unwrap();
    assert_ne!(first["source_hash"], second["source_hash"]);
    assert!(
        second["raw_memory"].as_str().unwrap().contains("Remember that release builds need the nightly toolchain.")
    );
}

/// A run that changes one of the known transcripts appends that change to the state's
/// journal instead of rewriting the whole state; a command that rewrites the state folds the
/// journal in.
#[test]
fn the_state_is_written_in_proportion_to_what_changed() {
    let dir = copy_cases(&[CODEX_CASE, "generic"]);
    let file = codex_file(dir.path());
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let (state, journal) = (hb.state().join("sources.json"), hb.state().join("sources.log"));
    let snapshot = fs::read(&state).unwrap();
    assert!(!journal.exists(), "a first run writes the state whole");

    append_a_lesson(&file);
    let changed = hb.extract_json(&[dir.path()], &[]);
    assert_eq!(coverage(&changed)["extracted"], 1);
    assert_eq!(fs::read(&state).unwrap(), snapshot, "the state file was rewritten for one change");
    let lines = fs::read_to_string(&journal).unwrap();
    let key = fs::canonicalize(&file).unwrap();
    assert_eq!(lines.lines().count(), 2, "one changed transcript and the run's time:\n{lines}");
    assert!(lines.contains(&serde_json::to_string(key.to_str().unwrap()).unwrap()), "{lines}");
    let size = fs::metadata(&file).unwrap().len();
    assert_eq!(hb.sources()["sources"][key.to_str().unwrap()]["size"], size);

    let again = hb.extract_json(&[dir.path()], &[]);
    assert_eq!(coverage(&again)["unchanged"], coverage(&again)["sessions"], "the journal is read back");
    let forget = hb.cmd().args(["forget", CODEX_ID]).output().unwrap();
    assert!(forget.status.success(), "{}", String::from_utf8_lossy(&forget.stderr));
    assert!(!journal.exists(), "a whole rewrite folds the journal in");
    assert_eq!(hb.sources()["sources"][key.to_str().unwrap()]["size"], size);
}

#[test]
fn a_vanished_transcript_is_remembered_and_its_lessons_kept_until_consolidation() {
    let dir = copy_cases(&[CODEX_CASE, "generic"]);
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let file = codex_file(dir.path());
    fs::remove_file(&file).unwrap();
    let lines = hb.extract_json(&[dir.path()], &[]);
    assert_eq!(coverage(&lines)["vanished"], 1);
    let key = fs::canonicalize(dir.path()).unwrap().join(file.strip_prefix(dir.path()).unwrap());
    assert_eq!(hb.sources()["sources"][key.to_str().unwrap()]["state"], "vanished");
    assert!(hb.stage1(CODEX_ID).is_some(), "stage-1 output dropped before consolidation");
}

#[test]
fn dry_run_writes_nothing() {
    let hb = Handbook::new();
    let output = hb.cmd().args(["extract", "--all", "--dry-run"]).arg(fixtures()).output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("extract (dry run, nothing written): 39 sessions: 28 extracted"), "{stdout}");
    assert!(!hb.state().join("sources.json").exists());
    assert!(!hb.state().join("stage1").exists());
}

#[test]
fn limit_takes_the_newest_and_defers_the_rest() {
    let hb = Handbook::new();
    let lines = hb.extract_json(&[&fixtures()], &["--limit", "3"]);
    let c = coverage(&lines);
    assert_eq!(sessions(&lines).len(), 3);
    assert_eq!(c["deferred"], 36);
    let rest = hb.extract_json(&[&fixtures()], &[]);
    assert_eq!(coverage(&rest)["unchanged"], 3);
    assert_eq!(sessions(&rest).len(), 36);
}

#[test]
fn session_picks_one_transcript_by_id() {
    let hb = Handbook::new();
    let lines = hb.extract_json(&[&fixtures()], &["--session", CODEX_ID]);
    let reports = sessions(&lines);
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0]["session_id"], CODEX_ID);
}

#[test]
fn idle_and_age_windows_skip_active_and_old_sessions() {
    let dir = copy_cases(&[CODEX_CASE, "generic"]);
    let hb = Handbook::new();
    // Sessions whose newest records were written just now: still active.
    append_record_now(dir.path(), CODEX_CASE);
    append_record_now(dir.path(), "generic");
    let output = hb.cmd().args(["--json", "extract"]).arg(dir.path()).output().unwrap();
    let lines = json_lines(&output.stdout);
    assert_eq!(coverage(&lines)["still_active"], 2);
    // A clock a year ahead makes them too old, where there is an age window (the built-in
    // engine has none unless it is set).
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", "2027-12-01T00:00:00Z")
        .env("HANDBOOK_MAX_AGE_DAYS", "10")
        .args(["--json", "extract"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(coverage(&json_lines(&output.stdout))["too_old"], 2);
    // A day ahead, with the default windows, they are extracted.
    let tomorrow = jiff::Timestamp::now() + jiff::SignedDuration::from_hours(24);
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", tomorrow.to_string())
        .args(["--json", "extract"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(coverage(&json_lines(&output.stdout))["extracted"], 2);
}

#[test]
fn sub_agents_are_extracted_only_on_request() {
    let hb = Handbook::new();
    let case = fixtures().join("subagents");
    let lines = hb.extract_json(&[&case], &["--include-subagents"]);
    assert_eq!(coverage(&lines)["extracted"], 3);
    let record = hb.stage1("agent-a7c91e").expect("the sub-agent's own record");
    assert_eq!(record["facts"]["tasks"][0]["verified"][0]["command"], "cargo check --all-targets");
    // The parent agent's words to its sub-agent are not the user's preferences.
    assert!(!record["raw_memory"].as_str().unwrap().contains("Always use ripgrep"));
}

#[test]
fn a_held_lock_makes_a_second_run_wait_then_exit_3() {
    let hb = Handbook::new();
    fs::create_dir_all(hb.state()).unwrap();
    let lock = fs::File::create(hb.state().join("lock")).unwrap();
    lock.lock().unwrap();
    hb.cmd()
        .args(["extract", "--all", "--wait", "0.3"])
        .arg(fixtures().join("trivial"))
        .assert()
        .code(3)
        .stderr(predicate::str::contains("another handbook run holds the workspace lock"));
    lock.unlock().unwrap();
    hb.cmd().args(["extract", "--all", "--wait", "0"]).arg(fixtures().join("trivial")).assert().success();
}

#[test]
fn text_output_lists_sessions_and_ends_with_the_coverage_line() {
    let hb = Handbook::new();
    let output = hb.cmd().args(["extract", "--all"]).arg(fixtures()).output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let last = stdout.lines().last().unwrap();
    assert_eq!(
        last,
        "extract: 39 sessions: 28 extracted, 6 no-op, 0 unchanged, 0 still active, 0 too old, 5 excluded \
         (1 handbook's own prompt, 4 sub-agent), 0 failed; 15 warnings"
    );
    assert!(stdout.contains("excluded: "), "{stdout}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("torn last line"), "{stderr}");
}

#[test]
fn quiet_prints_only_warnings() {
    let hb = Handbook::new();
    let output = hb.cmd().args(["--quiet", "extract", "--all"]).arg(fixtures()).output().unwrap();
    assert!(output.status.success());
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8(output.stderr).unwrap().contains("warning"));
}

#[test]
fn json_output_is_one_object_per_line_with_a_final_totals_object() {
    let hb = Handbook::new();
    let lines = hb.extract_json(&[&fixtures()], &[]);
    assert_eq!(lines.last().unwrap()["type"], "totals");
    assert!(lines[..lines.len() - 1].iter().all(|l| l["type"] == "session"));
    let paths: Vec<&str> = sessions(&lines).iter().map(|s| s["path"].as_str().unwrap()).collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted, "sessions are reported in path order");
}

#[test]
fn state_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let hb = Handbook::new();
    hb.extract_json(&[&fixtures().join(CODEX_CASE)], &[]);
    for (path, _) in hb.every_file() {
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{} is {mode:o}", path.display());
    }
    let mode = fs::metadata(hb.state()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
}

#[test]
fn default_sources_are_the_agents_homes() {
    let hb = Handbook::new();
    let codex = hb.user.path().join(".codex/sessions");
    copy_tree(&fixtures().join(CODEX_CASE).join("sessions"), &codex);
    let claude = hb.user.path().join(".claude/projects");
    copy_tree(&fixtures().join("claude-preferences/projects"), &claude);
    let output = hb.cmd().args(["--json", "extract", "--all"]).output().unwrap();
    assert!(output.status.success());
    assert_eq!(coverage(&json_lines(&output.stdout))["extracted"], 2);
}

#[test]
fn no_sources_at_all_is_not_an_error() {
    let hb = Handbook::new();
    hb.cmd()
        .args(["extract"])
        .assert()
        .success()
        .stderr(predicate::str::contains("no transcripts found"))
        .stdout(predicate::str::contains("0 sessions"));
}

#[test]
fn a_missing_source_is_an_error_that_names_it() {
    let hb = Handbook::new();
    hb.cmd()
        .args(["extract", "/no/such/folder"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("/no/such/folder: source does not exist"));
}

#[test]
fn asking_for_sub_agents_later_reads_the_ones_excluded_before() {
    let hb = Handbook::new();
    let case = fixtures().join("subagents");
    assert_eq!(coverage(&hb.extract_json(&[&case], &[]))["excluded"], 2);
    let again = hb.extract_json(&[&case], &["--include-subagents"]);
    assert_eq!(coverage(&again)["extracted"], 2, "{}", coverage(&again));
}

#[test]
fn an_archived_transcript_keeps_its_lessons() {
    let dir = copy_cases(&[CODEX_CASE]);
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    // Codex archives a session by moving it, modification time and all.
    let from = codex_file(dir.path());
    let to = dir.path().join("archived").join(from.file_name().unwrap());
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    fs::rename(&from, &to).unwrap();
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", "2030-01-01T00:00:00Z")
        .args(["--json", "extract"])
        .arg(dir.path())
        .output()
        .unwrap();
    let lines = json_lines(&output.stdout);
    let c = coverage(&lines);
    assert_eq!(
        (c["unchanged"].as_u64(), c["vanished"].as_u64(), c["too_old"].as_u64()),
        (Some(1), Some(0), Some(0)),
        "{c}"
    );
    let record = hb.stage1(CODEX_ID).unwrap();
    assert!(
        record["rollout_path"]
            .as_str()
            .unwrap()
            .ends_with(&format!("archived/{}", to.file_name().unwrap().to_string_lossy()))
    );
}

#[test]
fn generic_files_of_the_same_name_are_different_sessions() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["tool-a", "tool-b"] {
        fs::create_dir_all(dir.path().join(sub)).unwrap();
        let lines = [
            format!(
                r#"{{"role":"user","content":"Build {sub}. We always build with make release.","timestamp":"2026-11-20T10:00:00Z"}}"#
            ),
            r#"{"role":"tool_call","id":"1","command":"make release"}"#.to_string(),
            r#"{"role":"tool","id":"1","exit_code":0,"content":"ok"}"#.to_string(),
        ];
        fs::write(dir.path().join(sub).join("chat.jsonl"), lines.join("\n") + "\n").unwrap();
    }
    let hb = Handbook::new();
    assert_eq!(coverage(&hb.extract_json(&[dir.path()], &[]))["extracted"], 2);
}

#[test]
fn a_damaged_record_is_reported_and_rewritten() {
    let dir = copy_cases(&[CODEX_CASE]);
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let record = hb.state().join("stage1").join(format!("{CODEX_ID}.json"));
    fs::write(&record, "{ damaged").unwrap();
    let mut text = fs::read_to_string(codex_file(dir.path())).unwrap();
    text.push_str(r#"{"timestamp":"2026-11-20T09:06:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"Also run the benches."}}"#);
    text.push('\n');
    fs::write(codex_file(dir.path()), text).unwrap();
    let output = hb.cmd().args(["--json", "extract", "--all"]).arg(dir.path()).output().unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("is damaged"));
    assert_eq!(coverage(&json_lines(&output.stdout))["extracted"], 1);
    assert!(hb.stage1(CODEX_ID).is_some());
}

#[test]
fn a_wrongly_forced_format_is_not_kept_for_good() {
    let dir = copy_cases(&["generic"]);
    let hb = Handbook::new();
    // Read as Claude Code, the generic transcript yields nothing but warnings.
    let forced = hb.extract_json(&[dir.path()], &["--format", "claude"]);
    assert_eq!(coverage(&forced)["extracted"], 0, "{forced:?}");
    assert!(coverage(&forced)["warnings"].as_u64().unwrap() > 0);
    // Without --format it is read again, detected, and extracted.
    let detected = hb.extract_json(&[dir.path()], &[]);
    assert_eq!(coverage(&detected)["extracted"], 1, "{detected:?}");
    assert_eq!(
        hb.stage1("generic-make-0001").unwrap()["rollout_path"].as_str().map(|p| p.ends_with(".jsonl")),
        Some(true)
    );
    // And a run after that has nothing to do.
    let again = hb.extract_json(&[dir.path()], &[]);
    assert_eq!(coverage(&again)["unchanged"], 1);
    // Forcing the format it already has changes nothing either.
    let same = hb.extract_json(&[dir.path()], &["--format", "generic"]);
    assert_eq!(coverage(&same)["unchanged"], 1);
}

#[test]
fn a_run_that_reads_nothing_says_which_flag_would_read_it() {
    // Written to just now: still active under the default idle window.
    let dir = copy_cases(&["generic"]);
    append_record_now(dir.path(), "generic");
    let hb = Handbook::new();
    let output = hb.cmd().arg("extract").arg(dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("count as still active; --min-idle 0 (or --all) reads them now"), "{stderr}");
    let output = hb.cmd().args(["extract", "--session", "no-such-session"]).arg(dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no transcript matches --session no-such-session"), "{stderr}");
}
