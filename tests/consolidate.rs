//! `handbook consolidate` and `update` end to end: the rendered workspace, no-op runs,
//! determinism, forgetting, hand edits, and a run killed half-way.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{Handbook, NOW, copy_tree, fixtures, json_lines};

/// Run handbook with a fixed clock and a retention window wide enough for every fixture.
fn run(hb: &Handbook, args: &[&str]) -> std::process::Output {
    let output = hb.cmd().env("HANDBOOK_NOW", NOW).env("HANDBOOK_MAX_UNUSED_DAYS", "3650").args(args).output().unwrap();
    assert!(output.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    output
}

/// Copy all fixtures to a private folder, extract and consolidate them.
fn consolidated() -> (Handbook, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures(), dir.path());
    let hb = Handbook::new();
    run(&hb, &["update", "--all", dir.path().to_str().unwrap()]);
    (hb, dir)
}

/// Every workspace file (not `.handbook/`), with the fixture folder's path replaced by a
/// placeholder so snapshots do not depend on where the test ran.
fn workspace_files(home: &Path, root: &Path) -> Vec<(String, String)> {
    let root = fs::canonicalize(root).unwrap().to_string_lossy().into_owned();
    let mut files: Vec<(String, String)> = walkdir::WalkDir::new(home)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.file_name() != ".handbook")
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(home).unwrap().to_string_lossy().into_owned();
            (rel, fs::read_to_string(e.path()).unwrap().replace(&root, "<FIXTURES>"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn the_rendered_workspace_matches_its_snapshot() {
    let (hb, dir) = consolidated();
    let files = workspace_files(hb.home.path(), dir.path());
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/workspace");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        let _ = fs::remove_dir_all(&snapshots);
        for (rel, text) in &files {
            let path = snapshots.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
    }
    let expected = workspace_files(&snapshots, dir.path());
    let names = |f: &[(String, String)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&files), names(&expected), "files differ: run with UPDATE_SNAPSHOTS=1 to accept");
    for ((name, got), (_, want)) in files.iter().zip(&expected) {
        assert!(
            got == want,
            "{name} differs from tests/snapshots/workspace/{name}: run with UPDATE_SNAPSHOTS=1 to accept\n{got}"
        );
    }
    assert!(!hb.home.path().join("phase2_workspace_diff.md").exists(), "the diff file outlived the run");
}

#[test]
fn a_second_consolidation_is_a_no_op() {
    let (hb, dir) = consolidated();
    let before = workspace_files(hb.home.path(), dir.path());
    let output = run(&hb, &["consolidate"]);
    assert!(String::from_utf8_lossy(&output.stdout).contains("nothing changed since the last consolidation"));
    assert_eq!(workspace_files(hb.home.path(), dir.path()), before);
}

#[test]
fn the_result_does_not_depend_on_discovery_order() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures(), dir.path());
    let mut cases: Vec<PathBuf> =
        fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    let forward = Handbook::new();
    let mut args: Vec<String> = vec!["extract".into(), "--all".into()];
    args.extend(cases.iter().map(|c| c.to_string_lossy().into_owned()));
    run(&forward, &args.iter().map(String::as_str).collect::<Vec<_>>());
    run(&forward, &["consolidate"]);
    let backward = Handbook::new();
    cases.reverse();
    for case in &cases {
        run(&backward, &["extract", "--all", case.to_str().unwrap()]);
    }
    run(&backward, &["consolidate"]);
    assert_eq!(workspace_files(forward.home.path(), dir.path()), workspace_files(backward.home.path(), dir.path()));
}

/// A second Codex session in the parser project: it verifies `cargo test` too, and says
/// something of its own.
fn second_parser_session(dir: &Path) -> PathBuf {
    let id = "019d7a10-4c2e-7b31-9a55-0c0de00000aa";
    let path = dir.join(format!("extra/rollout-2026-11-26T10-00-00-{id}.jsonl"));
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let lines = [
        format!(r#"{{"timestamp":"2026-11-26T10:00:00.000Z","type":"session_meta","payload":{{"id":"{id}","timestamp":"2026-11-26T10:00:00.000Z","cwd":"/home/dev/acme-parser","git":{{"repository_url":"git@github.com:acme/parser.git"}}}}}}"#),
        r#"{"timestamp":"2026-11-26T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"Add a fuzz test for the lexer. Remember that fuzzing needs the nightly toolchain."}}"#.to_string(),
        r#"{"timestamp":"2026-11-26T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cargo test\"}","call_id":"c1"}}"#.to_string(),
        r#"{"timestamp":"2026-11-26T10:00:09.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Process exited with code 0\nOutput:\nok"}}"#.to_string(),
    ];
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn forgetting_removes_what_only_that_session_supported() {
    let (hb, dir) = consolidated();
    second_parser_session(dir.path());
    run(&hb, &["update", "--all", dir.path().to_str().unwrap()]);
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(memory.contains("- verified test command: `cargo test` (2 sessions)"), "{memory}");
    let clippy = "Always run `cargo clippy --all-targets -- -D warnings` before you say you're done.";
    assert!(memory.contains(clippy), "{memory}");

    // The transcript that alone taught the clippy rule is deleted.
    let first = dir.path().join("codex-failure-fix/sessions/2026/11/20");
    fs::remove_dir_all(&first).unwrap();
    run(&hb, &["update", "--all", dir.path().to_str().unwrap()]);
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(!memory.contains(clippy), "a lesson only the deleted session supported survived");
    assert!(memory.contains("- verified test command: `cargo test` (1 session)"), "{memory}");
    assert!(memory.contains("Fuzzing needs the nightly toolchain."));
    hb.assert_nowhere("tokenizer` in this scope");

    // `forget` does the same for a session whose transcript is still there.
    run(&hb, &["forget", "019d7a10-4c2e-7b31-9a55-0c0de00000aa"]);
    run(&hb, &["update", "--all", dir.path().to_str().unwrap()]);
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(!memory.contains("fuzzing needs the nightly toolchain"), "a forgotten session's lesson survived");
    assert!(!memory.contains("github.com/acme/parser"));
}

#[test]
fn hand_edits_to_memory_survive_consolidation() {
    let (hb, dir) = consolidated();
    let path = hb.home.path().join("MEMORY.md");
    let memory = fs::read_to_string(&path).unwrap();
    let removed = memory.lines().find(|l| l.contains("We use pnpm, not npm.")).unwrap().to_string();
    let anchor = memory.lines().find(|l| l.starts_with("## Reusable knowledge")).unwrap().to_string();
    let edited = memory.replace(&format!("{removed}\n"), "").replace(
        &format!("{anchor}\n"),
        &format!("{anchor}\n\n- staging deploys need the VPN up first (added by hand)\n"),
    );
    fs::write(&path, &edited).unwrap();

    let output = run(&hb, &["consolidate"]);
    assert!(
        // MEMORY.md by hand, and the summary, which drops the removed lesson.
        String::from_utf8_lossy(&output.stdout).contains("2 modified"),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    // More sessions arrive; the edits hold.
    second_parser_session(dir.path());
    run(&hb, &["update", "--all", dir.path().to_str().unwrap()]);
    let memory = fs::read_to_string(&path).unwrap();
    assert!(!memory.contains("We use pnpm, not npm."), "a line removed by hand came back");
    assert!(
        memory.contains("- staging deploys need the VPN up first (added by hand)"),
        "a line added by hand was lost"
    );
    assert!(memory.contains("Fuzzing needs the nightly toolchain."), "the new session was not consolidated");
    // The summary agents load lost the removed lesson too.
    let summary = fs::read_to_string(hb.home.path().join("memory_summary.md")).unwrap();
    assert!(!summary.contains("We use pnpm, not npm."), "{summary}");
}

#[test]
fn a_killed_consolidation_loses_nothing_and_the_next_run_completes() {
    let (reference, reference_dir) = consolidated();
    let expected = workspace_files(reference.home.path(), reference_dir.path());

    for point in ["after-sync", "between-writes", "after-write"] {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&fixtures(), dir.path());
        let hb = Handbook::new();
        run(&hb, &["extract", "--all", dir.path().to_str().unwrap()]);
        let killed = hb
            .cmd()
            .env("HANDBOOK_NOW", NOW)
            .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
            .env("HANDBOOK_FAULT", point)
            .arg("consolidate")
            .output()
            .unwrap();
        assert!(!killed.status.success(), "the fault at {point} did not stop the run");
        assert!(!hb.state().join("manifest.json").exists(), "{point}: a baseline was committed by a killed run");

        let output = run(&hb, &["consolidate"]);
        assert!(String::from_utf8_lossy(&output.stdout).contains("consolidate: "), "{point}");
        assert_eq!(
            workspace_files(hb.home.path(), dir.path()),
            expected,
            "{point}: the recovered handbook differs from a clean run's"
        );
        assert!(hb.state().join("manifest.json").exists());
        assert!(!hb.state().join("pending.json").exists());
        assert!(!hb.home.path().join("phase2_workspace_diff.md").exists());
        let again = run(&hb, &["consolidate"]);
        assert!(String::from_utf8_lossy(&again.stdout).contains("nothing changed"), "{point}");
        // What the killed run wrote was handbook's own, not the user's edits.
        let edits = fs::read_to_string(hb.state().join("edits.json")).unwrap_or_default();
        assert!(!edits.contains("removed") && !edits.contains("added"), "{point}: learned edits: {edits}");
    }
}

#[test]
fn nothing_secret_or_never_to_be_learned_reaches_the_handbook() {
    let (hb, _dir) = consolidated();
    let secrets = fs::read_to_string(fixtures().join("secrets/secrets.txt")).unwrap();
    for secret in secrets.lines().filter(|l| !l.is_empty()) {
        hb.assert_nowhere(secret);
    }
    for canary in
        ["CANARY", "previous instructions", "attacker.example", "Always use ripgrep", "Always deploy on Fridays"]
    {
        hb.assert_nowhere(canary);
    }
}

#[test]
fn update_is_silent_when_all_is_well() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("codex-failure-fix"), dir.path());
    let hb = Handbook::new();
    let output = run(&hb, &["update", "--all", dir.path().to_str().unwrap()]);
    assert!(output.stdout.is_empty(), "{}", String::from_utf8_lossy(&output.stdout));
    assert!(output.stderr.is_empty(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(hb.home.path().join("MEMORY.md").exists());
}

#[test]
fn update_speaks_up_when_a_session_fails_and_a_dry_run_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("codex-failure-fix"), dir.path());
    let hb = Handbook::new();
    let source = dir.path().to_str().unwrap();
    let output = run(&hb, &["update", "--all", "--dry-run", source]);
    assert!(String::from_utf8_lossy(&output.stdout).contains("extract (dry run, nothing written): 1 session"));
    assert!(String::from_utf8_lossy(&output.stderr).contains("consolidate: skipped (dry run)"));
    assert!(!hb.home.path().join("MEMORY.md").exists() && !hb.state().join("manifest.json").exists());

    let failing = ["update", "--all", "--engine", "command", "--llm-command", "echo model gone >&2; exit 3", source];
    let output = hb.cmd().env("HANDBOOK_NOW", NOW).args(failing).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("extraction failed: model: `echo model gone >&2; exit 3` failed"), "{stderr}");
}

#[test]
fn the_cooldown_skips_a_consolidation_unless_forced() {
    let (hb, _dir) = consolidated();
    fs::write(hb.home.path().join("extra.md"), "a file the user added\n").unwrap();
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .env("HANDBOOK_CONSOLIDATE_COOLDOWN_HOURS", "6")
        .arg("consolidate")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&output.stdout).contains("within the cooldown"));
    let forced = run(&hb, &["consolidate", "--force"]);
    assert!(
        String::from_utf8_lossy(&forced.stdout).contains("1 file added"),
        "{}",
        String::from_utf8_lossy(&forced.stdout)
    );
}

/// A generic session in the webshop project that repeats one of its preferences.
fn webshop_session_repeating_pnpm(dir: &Path) {
    let path = dir.join("extra/webshop-again.jsonl");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let lines = [
        r#"{"session_id":"webshop-again","cwd":"/home/dev/webshop"}"#,
        r#"{"role":"user","content":"Add a checkout test. We use pnpm, not npm.","timestamp":"2026-11-28T10:00:00Z"}"#,
        r#"{"role":"tool_call","id":"1","command":"pnpm vitest run"}"#,
        r#"{"role":"tool","id":"1","exit_code":0,"content":"ok","timestamp":"2026-11-28T10:01:00Z"}"#,
    ];
    fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn a_lesson_removed_by_hand_stays_removed_when_more_sessions_support_it() {
    let (hb, dir) = consolidated();
    let path = hb.home.path().join("MEMORY.md");
    let memory = fs::read_to_string(&path).unwrap();
    // The rule was said twice in the first session and merged into one lesson.
    let line = memory.lines().find(|l| l.starts_with("- ") && l.contains("We use pnpm, not npm.")).unwrap().to_string();
    fs::write(&path, memory.replace(&format!("{line}\n"), "")).unwrap();
    run(&hb, &["consolidate"]);
    webshop_session_repeating_pnpm(dir.path());
    run(&hb, &["update", "--all", dir.path().to_str().unwrap()]);
    let memory = fs::read_to_string(&path).unwrap();
    assert!(
        memory.contains("- verified test command: `pnpm vitest run` (2 sessions)"),
        "the new session was not consolidated"
    );
    assert!(!memory.contains("We use pnpm, not npm."), "a removed lesson came back with a new count:\n{memory}");
}

#[test]
fn removing_a_task_group_by_hand_removes_that_group_only() {
    let (hb, _dir) = consolidated();
    let path = hb.home.path().join("MEMORY.md");
    let memory = fs::read_to_string(&path).unwrap();
    let start = memory.find("# Task Group: /home/dev/webshop").unwrap();
    let end = start + memory[start + 1..].find("\n# Task Group: ").unwrap() + 2;
    let keywords_before = memory.matches("### keywords").count();
    let removed = memory[start..end].matches("### keywords").count();
    fs::write(&path, format!("{}{}", &memory[..start], &memory[end..])).unwrap();
    run(&hb, &["consolidate"]);
    run(&hb, &["consolidate", "--force"]);
    let memory = fs::read_to_string(&path).unwrap();
    assert!(!memory.contains("# Task Group: /home/dev/webshop"), "{memory}");
    assert_eq!(memory.matches("### keywords").count(), keywords_before - removed, "other groups lost their structure");
    assert!(!memory.contains("\n\n\n"), "blank runs left behind");
}

#[test]
fn a_summary_edited_into_bad_shape_is_repaired_not_learned() {
    let (hb, _dir) = consolidated();
    let path = hb.home.path().join("memory_summary.md");
    let summary = fs::read_to_string(&path).unwrap();
    fs::write(&path, summary.trim_start_matches("v1\n")).unwrap();
    run(&hb, &["consolidate"]);
    assert!(fs::read_to_string(&path).unwrap().starts_with("v1\n"));
}

#[test]
fn secrets_typed_into_memory_by_hand_are_redacted_everywhere() {
    let (hb, _dir) = consolidated();
    let path = hb.home.path().join("MEMORY.md");
    let memory = fs::read_to_string(&path).unwrap();
    fs::write(&path, format!("{memory}\n- deploy token ghp_16C7e42F292c6912E7710c838347Ae178B4a\n")).unwrap();
    run(&hb, &["consolidate"]);
    hb.assert_nowhere("ghp_16C7e42F");
    assert!(fs::read_to_string(&path).unwrap().contains("- deploy token [REDACTED:github]"));
}

#[test]
fn a_new_summary_cap_rebuilds_the_summary() {
    let (hb, _dir) = consolidated();
    let small = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
        .env("HANDBOOK_SUMMARY_MAX_TOKENS", "300")
        .arg("consolidate")
        .output()
        .unwrap();
    assert!(small.status.success());
    let tokens = |hb: &Handbook| {
        handbook::core::tokens::estimate(&fs::read_to_string(hb.home.path().join("memory_summary.md")).unwrap())
    };
    assert!(tokens(&hb) <= 300);
    let output = run(&hb, &["consolidate"]);
    assert!(!String::from_utf8_lossy(&output.stdout).contains("nothing changed"));
    assert!(tokens(&hb) > 300);
}

#[test]
fn sessions_left_out_are_counted_with_the_setting_that_left_them_out() {
    let (hb, _dir) = consolidated();
    // The legacy Codex and Gemini CLI sessions are over a year and a quarter of a year old:
    // a 30-day window leaves them out, and says so.
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .args(["--json", "consolidate", "--max-unused-days", "30", "--max-raw-memories", "7"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = &json_lines(&output.stdout)[0]["data"];
    assert_eq!(report["left_out"], serde_json::json!({"unused": 2, "over_max": 19}), "{report}");
    assert_eq!(report["selected"], 7);
    let text = hb.cmd().env("HANDBOOK_NOW", NOW).args(["consolidate", "--max-unused-days", "30"]).output().unwrap();
    let line = String::from_utf8_lossy(&text.stdout);
    assert!(line.contains("26 sessions, 2 left out as unused for more than 30 days (--max-unused-days)"), "{line}");
}

#[test]
fn a_session_that_only_knew_its_folder_joins_the_project_named_there() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("codex-failure-fix"), dir.path());
    let day = dir.path().join("sessions/2026/11/20");
    let original = fs::read_dir(&day).unwrap().next().unwrap().unwrap().path();
    // The same folder, recorded without its repository (an older agent, say).
    let text = fs::read_to_string(&original).unwrap();
    let first_line_end = text.find('\n').unwrap();
    let (meta, rest) = text.split_at(first_line_end);
    let git = meta.find(",\"git\":{").unwrap();
    let meta = format!("{}}}}}", &meta[..git]);
    let copy = format!("{meta}{rest}").replace("0c0de0000001", "0c0de00000f1");
    fs::write(day.join("rollout-2026-11-20T10-00-00-019d7a10-4c2e-7b31-9a55-0c0de00000f1.jsonl"), copy).unwrap();
    let hb = Handbook::new();
    run(&hb, &["update", "--all", dir.path().to_str().unwrap()]);
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    let groups: Vec<&str> = memory.lines().filter(|l| l.starts_with("# Task Group: ")).collect();
    assert_eq!(groups, ["# Task Group: github.com/acme/parser"], "{memory}");
    assert!(memory.contains("0c0de00000f1") && memory.contains("0c0de0000001"));
}
