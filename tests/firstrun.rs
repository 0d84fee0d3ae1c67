//! The first ten minutes: a first run learns from all of the history and says what it left
//! out, a wrong home is named, a note reaches the summary, and forget and reset say what
//! they did and can be taken back.

use std::fs;
use std::path::Path;

use crate::common::{Handbook, copy_tree, coverage, fixtures, json_lines};

/// Half a year after the newest fixture: every session is months old.
const LATER: &str = "2027-06-01T00:00:00Z";
const GENERIC: &str = "generic-make-0001";
const CODEX: &str = "019d7a10-4c2e-7b31-9a55-0c0de0000001";

/// Fixture cases copied to a private folder (freshly written on disk, old by their records).
fn cases(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in names {
        copy_tree(&fixtures().join(name), &dir.path().join(name));
    }
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn last<'a>(lines: &'a [serde_json::Value], kind: &str) -> &'a serde_json::Value {
    &lines.iter().rev().find(|l| l["type"] == kind).unwrap_or_else(|| panic!("no {kind} in {lines:?}"))["data"]
}

#[test]
fn a_first_update_learns_from_all_of_the_history() {
    let dir = cases(&["codex-failure-fix", "generic", "codex-legacy"]);
    let hb = Handbook::new();
    let output = hb.cmd().env("HANDBOOK_NOW", LATER).args(["--json", "update"]).arg(dir.path()).output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let lines = json_lines(&output.stdout);
    let c = coverage(&lines);
    assert_eq!((c["too_old"].as_u64(), c["still_active"].as_u64()), (Some(0), Some(0)), "{c}");
    let extracted = c["extracted"].as_u64().unwrap();
    assert!(extracted >= 2, "{c}");
    let report = last(&lines, "consolidate");
    assert_eq!(report["selected"].as_u64(), Some(extracted), "{report}");
    assert_eq!(report["left_out"], serde_json::json!({"unused": 0, "over_max": 0}));
    // An hour later the handbook is no smaller: its lessons get the whole retention window.
    let hour_later = "2027-06-01T01:00:00Z";
    let again = hb.cmd().env("HANDBOOK_NOW", hour_later).args(["--json", "consolidate", "--force"]).output().unwrap();
    let report = last(&json_lines(&again.stdout), "consolidate").clone();
    assert_eq!(report["selected"].as_u64(), Some(extracted), "{report}");
    // A window that was set is kept, and the run says what it left out.
    let set =
        hb.cmd().env("HANDBOOK_NOW", hour_later).args(["consolidate", "--max-unused-days", "30"]).output().unwrap();
    assert!(
        text(&set.stdout).contains("left out as unused for more than 30 days (--max-unused-days)"),
        "{}",
        text(&set.stdout)
    );
}

#[test]
fn a_model_engine_keeps_its_age_window_and_the_built_in_engine_has_none() {
    let hb = Handbook::new();
    let shown = |engine: &str| {
        let out =
            hb.cmd().env("HANDBOOK_ENGINE", engine).env("HANDBOOK_LLM_COMMAND", "cat").arg("config").output().unwrap();
        text(&out.stdout)
            .lines()
            .find(|l| l.starts_with("extract.max_age_days") || l.starts_with("max_age_days"))
            .map(str::to_string)
    };
    assert!(shown("builtin").unwrap().contains("none (the built-in engine reads every age)"), "{:?}", shown("builtin"));
    assert!(shown("command").unwrap().contains("10d"), "{:?}", shown("command"));
    // An old session is read by the built-in engine, and left alone as too old when asked.
    let dir = cases(&["generic"]);
    let lines = json_lines(
        &hb.cmd().env("HANDBOOK_NOW", LATER).args(["--json", "extract"]).arg(dir.path()).output().unwrap().stdout,
    );
    assert_eq!(coverage(&lines)["extracted"], 1);
    let other = Handbook::new();
    let out = other
        .cmd()
        .env("HANDBOOK_NOW", LATER)
        .args(["--json", "extract", "--max-age", "10d"])
        .arg(dir.path())
        .output()
        .unwrap();
    let lines = json_lines(&out.stdout);
    assert_eq!(coverage(&lines)["too_old"], 1);
    assert_eq!(
        last(&lines, "totals")["left_out"],
        serde_json::json!([{"sessions": 1, "why": "too old", "include": "--all"}])
    );
    assert!(
        text(&out.stderr).contains("1 session left alone: sessions untouched for over 10 days are too old; --all"),
        "{}",
        text(&out.stderr)
    );
}

/// Append a record stamped `at` to the generic fixture's transcript under `root`.
fn write_record_at(root: &Path, at: &str) {
    let file = root.join("generic/firmware-session.jsonl");
    let mut body = fs::read_to_string(&file).unwrap();
    body.push_str(&format!("{{\"role\":\"assistant\",\"content\":\"Still working.\",\"timestamp\":\"{at}\"}}\n"));
    fs::write(&file, body).unwrap();
}

#[test]
fn still_active_is_judged_by_the_newest_record_and_said_by_a_first_update() {
    let dir = cases(&["generic", "codex-failure-fix"]);
    // A copied folder is freshly written on disk, yet its sessions are days old: read.
    let now = "2026-12-01T12:00:00Z";
    let hb = Handbook::new();
    let copied = json_lines(
        &hb.cmd()
            .env("HANDBOOK_NOW", now)
            .args(["--json", "extract", "--dry-run"])
            .arg(dir.path())
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(
        (coverage(&copied)["still_active"].as_u64(), coverage(&copied)["extracted"].as_u64()),
        (Some(0), Some(2))
    );
    // A session whose newest record is an hour old is being written: left alone, and a
    // first update says so, with the flag that reads it.
    write_record_at(dir.path(), "2026-12-01T11:00:00Z");
    let output = hb.cmd().env("HANDBOOK_NOW", now).arg("update").arg(dir.path()).output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(output.stdout.is_empty(), "{}", text(&output.stdout));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(
            "1 session left alone: sessions written to in the last 6 h count as still active; --min-idle 0 (or --all) reads them now"
        ),
        "{stderr}"
    );
    let status = json_lines(&hb.cmd().args(["--json", "status"]).output().unwrap().stdout);
    let counts = &status[0]["data"]["last_extract_coverage"];
    assert_eq!(
        (counts["still_active"].as_u64(), counts["too_old"].as_u64(), counts["extracted"].as_u64()),
        (Some(1), Some(0), Some(1)),
        "{counts}"
    );
    let status = text(&hb.cmd().arg("status").output().unwrap().stdout);
    assert!(status.contains("  2 sessions: 1 extracted, 0 no-op, 0 unchanged, 1 still active, 0 too old,"), "{status}");
    // `doctor` says the same, from what the last extract recorded.
    let doctor = text(&hb.cmd().env("HANDBOOK_NOW", now).arg("doctor").output().unwrap().stdout);
    assert!(
        doctor.contains(
            "note: sessions: at the last extract (2026-12-01T12:00:00Z), 1 session left alone: sessions written to in the last 6 h count as still active; --min-idle 0 (or --all) reads them now"
        ),
        "{doctor}"
    );
    // Consolidated once, a cron run stays quiet about it; --json still carries it.
    let output = hb.cmd().env("HANDBOOK_NOW", "2026-12-01T12:30:00Z").arg("update").arg(dir.path()).output().unwrap();
    assert!(output.stderr.is_empty(), "{}", text(&output.stderr));
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", "2026-12-01T12:30:00Z")
        .args(["--json", "update"])
        .arg(dir.path())
        .output()
        .unwrap();
    let totals = last(&json_lines(&output.stdout), "totals").clone();
    assert_eq!(totals["left_out"][0]["why"], "still active", "{totals}");
    // Idle long enough, it is read.
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", "2026-12-01T18:00:00Z")
        .args(["--json", "extract"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(coverage(&json_lines(&output.stdout))["extracted"], 1);
}

#[test]
fn a_wrong_home_is_named_with_what_to_do_at_every_command() {
    let place = tempfile::tempdir().unwrap();
    let file = place.path().join("a-file");
    fs::write(&file, "not a folder").unwrap();
    let busy = place.path().join("busy");
    fs::create_dir(&busy).unwrap();
    fs::write(busy.join("thesis.tex"), "mine").unwrap();
    let hb = Handbook::new();
    for (home, says) in [(&file, "is a file, not a folder"), (&busy, "is not a handbook workspace and is not empty")] {
        for args in [
            &["status"][..],
            &["update"],
            &["extract"],
            &["consolidate"],
            &["summary"],
            &["note", "x"],
            &["search", "x"],
            &["forget", "x"],
            &["reset", "--yes"],
            &["log"],
            &["diff"],
            &["undo"],
            &["review"],
            &["why", "L-00000000"],
            &["promote", "L-00000000"],
            &["doctor"],
            &["integrate"],
            &["integrate", "claude", "--write"],
            &["mcp"],
        ] {
            // The file by HANDBOOK_HOME, the folder by --home.
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_handbook"));
            cmd.env_clear().env("HOME", hb.user.path()).env("XDG_DATA_HOME", hb.user.path());
            match home == &file {
                true => cmd.env("HANDBOOK_HOME", home),
                false => cmd.arg("--home").arg(home),
            };
            let output = cmd.args(args).stdin(std::process::Stdio::null()).output().unwrap();
            let stderr = text(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains(&home.display().to_string()) && stderr.contains(says), "{args:?}: {stderr}");
            assert!(stderr.contains("point --home (or HANDBOOK_HOME) at"), "{args:?}: {stderr}");
        }
        // `config` still shows the settings, and says what is wrong with the home.
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_handbook"));
        let output =
            cmd.env_clear().env("HOME", hb.user.path()).arg("--home").arg(home).arg("config").output().unwrap();
        let stderr = text(&output.stderr);
        assert!(output.status.success() && !output.stdout.is_empty(), "config: {stderr}");
        assert!(stderr.contains("warning:") && stderr.contains(says), "config: {stderr}");
    }
    assert!(!hb.user.path().join(".claude/settings.json").exists(), "no door for a wrong home");
    assert_eq!(fs::read_to_string(&file).unwrap(), "not a folder");
    assert_eq!(fs::read_dir(&busy).unwrap().count(), 1, "nothing was written into the folder");
    // A folder that cannot be read (meaningless for a user who reads everything).
    let locked = place.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::write(locked.join("x"), "").unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read_dir(&locked).is_err() {
        for args in
            [&["status"][..], &["update"], &["summary"], &["note", "x"], &["search", "x"], &["log"], &["doctor"]]
        {
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_handbook"));
            let output =
                cmd.env_clear().env("HOME", hb.user.path()).arg("--home").arg(&locked).args(args).output().unwrap();
            let stderr = text(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains("cannot read handbook's home"), "{args:?}: {stderr}");
        }
    }
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o700)).unwrap();
}

#[test]
fn a_note_reaches_the_summary_at_once_with_the_built_in_engine() {
    let dir = cases(&["generic"]);
    let hb = Handbook::new();
    hb.update(dir.path());
    let output = hb.cmd().args(["note", "Staging deploys need the VPN up first."]).output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("the note is in the summary now"), "{}", text(&output.stderr));
    let summary = text(&hb.cmd().arg("summary").output().unwrap().stdout);
    assert!(summary.contains("Staging deploys need the VPN up first."), "{summary}");
    // A model engine consolidates at the next run, and the note says when.
    let output = hb
        .cmd()
        .env("HANDBOOK_CONSOLIDATE_ENGINE", "command")
        .env("HANDBOOK_LLM_COMMAND", "exit 1")
        .args(["--json", "note", "Release builds need the nightly toolchain."])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("reaches the summary at the next `handbook consolidate`"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(json_lines(&output.stdout)[0]["data"]["consolidated"], false);
    assert!(!text(&hb.cmd().arg("summary").output().unwrap().stdout).contains("nightly toolchain"));
}

#[test]
fn reset_keeps_the_notes_and_the_forgotten_list_and_says_so() {
    let dir = cases(&["generic", "codex-failure-fix"]);
    let hb = Handbook::new();
    hb.update(dir.path());
    hb.cmd().args(["note", "Staging deploys need the VPN up first."]).assert().success();
    hb.cmd().args(["forget", GENERIC]).assert().success();
    let output = hb.cmd().args(["reset", "--yes"]).output().unwrap();
    let stdout = text(&output.stdout);
    assert!(
        stdout
            .contains("reset: kept 1 note (`handbook reset --notes` removes them) and the list of 1 forgotten session"),
        "{stdout}"
    );
    assert_eq!(fs::read_dir(hb.home.path().join("extensions/ad_hoc/notes")).unwrap().count(), 1);
    assert!(!hb.home.path().join("MEMORY.md").exists());
    let output = hb.cmd().args(["--json", "reset", "--yes", "--notes"]).output().unwrap();
    let report = &json_lines(&output.stdout)[0]["data"];
    assert_eq!((report["notes_kept"].as_u64(), report["forgotten_kept"].as_u64()), (Some(0), Some(1)), "{report}");
    assert!(!hb.home.path().join("extensions").exists());
}

#[test]
fn forget_says_what_it_did_and_undo_takes_it_back() {
    let dir = cases(&["generic", "codex-failure-fix"]);
    let hb = Handbook::new();
    hb.update(dir.path());
    let first = text(&hb.cmd().args(["forget", GENERIC]).output().unwrap().stdout);
    assert_eq!(
        first,
        format!("forgot {GENERIC}: removed its extracted record; its lessons go at the next consolidate\n")
    );
    let second = text(&hb.cmd().args(["forget", GENERIC]).output().unwrap().stdout);
    assert_eq!(second, format!("already forgotten: {GENERIC}; nothing to remove\n"));
    // Asked for by id, or met again unchanged, it is reported as forgotten, not unchanged.
    let lines = hb.extract_json(&[dir.path()], &["--session", GENERIC]);
    let c = coverage(&lines);
    assert_eq!((c["unchanged"].as_u64(), c["excluded"].as_u64()), (Some(0), Some(1)), "{c}");
    assert_eq!(c["reasons"]["excluded: forgotten"], 1, "{c}");
    let out = hb.cmd().arg("extract").arg("--all").arg(dir.path()).output().unwrap();
    assert!(text(&out.stdout).contains("1 excluded (1 forgotten)"), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("1 session left out as forgotten; `handbook forget --undo <id>`"),
        "{}",
        text(&out.stderr)
    );
    // Taken back, it is read again at the next extract, and learned from.
    let undo = text(&hb.cmd().args(["forget", "--undo", GENERIC]).output().unwrap().stdout);
    assert_eq!(undo, format!("took back the forget of {GENERIC}: it is read again at the next extract\n"));
    assert!(hb.stage1(GENERIC).is_none());
    let lines = hb.extract_json(&[dir.path()], &[]);
    assert_eq!(coverage(&lines)["extracted"], 1, "{lines:?}");
    assert!(hb.stage1(GENERIC).is_some() && hb.stage1(CODEX).is_some());
    assert_eq!(hb.sources()["excluded"], serde_json::Value::Null);
}
