//! The conventions every command keeps: completion scripts, errors as JSON under `--json`,
//! one colour rule for errors and warnings, `summary --output` and a cap too small for any
//! entry, search results shown once, and `doctor` on a healthy and on a broken home.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::common::{Handbook, NOW, fixtures, json_lines};

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            fs::create_dir_all(&target).unwrap();
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A handbook of the Claude Code fixtures, read from where Claude Code keeps them.
fn claude_home() -> Handbook {
    let hb = Handbook::new();
    let projects = hb.user.path().join(".claude/projects");
    copy_tree(&fixtures().join("claude-preferences/projects"), &projects);
    hb.update(&projects);
    hb
}

#[test]
fn completions_name_every_command_for_every_shell() {
    let hb = Handbook::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        // A broken config must not break a shell's startup file.
        let out = hb.cmd().env("HANDBOOK_CONFIG", "/nonexistent.toml").args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}: {}", String::from_utf8_lossy(&out.stderr));
        let script = String::from_utf8(out.stdout).unwrap();
        for command in ["extract", "update", "summary", "search", "integrate", "doctor", "completions"] {
            assert!(script.contains(command), "{shell}'s script does not name {command}");
        }
    }
    assert!(!hb.cmd().args(["completions", "tcsh"]).output().unwrap().status.success());
}

#[test]
fn under_json_an_error_is_the_last_line_on_stdout_too() {
    let hb = Handbook::new();
    let missing = hb.user.path().join("no/such/folder/summary.md");
    let out = hb.cmd().args(["--json", "summary", "--output"]).arg(&missing).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("handbook: error: cannot write the summary to"), "{stderr}");
    let lines = json_lines(&out.stdout);
    let last = lines.last().expect("a JSON line");
    assert_eq!(last["type"], "error");
    let message = last["data"]["message"].as_str().unwrap();
    assert!(message.contains(&hb.user.path().join("no/such/folder").display().to_string()), "{message}");
    assert!(!hb.user.path().join("no").exists(), "the folder was created");

    let out = hb.cmd().args(["--json", "search", "--bogus"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.last().unwrap()["type"], "error", "{lines:?}");
    assert!(lines.last().unwrap()["data"]["message"].as_str().unwrap().contains("--bogus"));

    let out = hb.cmd().args(["--json", "--config", "/nonexistent.toml", "status"]).output().unwrap();
    assert_eq!(json_lines(&out.stdout).last().unwrap()["type"], "error");
    let out = hb.cmd().args(["--config", "/nonexistent.toml", "status"]).output().unwrap();
    assert!(out.stdout.is_empty(), "an error is on stdout only under --json");
}

#[test]
fn errors_and_warnings_follow_one_colour_rule() {
    let hb = Handbook::new();
    let error = |args: &[&str], env: &[(&str, &str)]| {
        let mut cmd = hb.cmd();
        for (k, v) in env {
            cmd.env(k, v);
        }
        String::from_utf8(cmd.args(args).output().unwrap().stderr).unwrap()
    };
    let bad = ["--config", "/nonexistent.toml", "status"];
    assert!(error(&[&["--color", "always"], &bad[..]].concat(), &[]).contains("handbook: \x1b[31merror\x1b[0m: "));
    assert!(error(&bad, &[("HANDBOOK_COLOR", "always")]).contains("\x1b[31merror"));
    assert!(error(&bad, &[("HANDBOOK_COLOR", "always"), ("NO_COLOR", "1")]).starts_with("handbook: error: "));
    assert!(error(&bad, &[]).starts_with("handbook: error: "), "no colour off a terminal");
    // A flag clap refuses, by the same rule.
    let refused = ["status", "--bogus"];
    assert!(error(&[&["--color", "always"], &refused[..]].concat(), &[]).contains("\x1b["));
    assert!(error(&refused, &[("HANDBOOK_COLOR", "always")]).contains("\x1b["));
    assert!(!error(&refused, &[("HANDBOOK_COLOR", "always"), ("NO_COLOR", "1")]).contains('\x1b'));
    assert!(!error(&[&["--color", "never"], &refused[..]].concat(), &[("HANDBOOK_COLOR", "always")]).contains('\x1b'));
    assert!(error(&refused, &[]).starts_with("error: "), "no colour off a terminal");
    // A warning, by the same rule.
    let hb = claude_home();
    let out = hb.cmd().args(["--color", "always", "summary", "--max-tokens", "5"]).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.starts_with("handbook: \x1b[33mwarning\x1b[0m: "), "{stderr}");
    let out = hb.cmd().args(["--color", "never", "summary", "--max-tokens", "5"]).output().unwrap();
    assert!(String::from_utf8(out.stderr).unwrap().starts_with("handbook: warning: "));
}

#[test]
fn a_cap_too_small_for_any_entry_says_so() {
    let hb = claude_home();
    let out = hb.cmd().args(["summary", "--max-tokens", "5"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "v1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the cap (5 tokens) leaves room for no entry"), "{stderr}");
    assert!(stderr.contains("raise --max-tokens"), "{stderr}");
    let out = hb.cmd().args(["summary", "--max-tokens", "2500"]).output().unwrap();
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    // Hook mode stays silent all the same.
    let out = hb.cmd().args(["summary", "--hook", "--max-tokens", "5"]).output().unwrap();
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn status_says_to_consolidate_when_the_cap_was_lowered_since() {
    let hb = claude_home();
    let config = hb.user.path().join(".config/handbook/config.toml");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    fs::write(&config, "summary_max_tokens = 120\n").unwrap();
    let status = || String::from_utf8(hb.cmd().arg("status").output().unwrap().stdout).unwrap();
    let before = status();
    assert!(
        before.contains(" tokens of 120, ")
            && before.contains("over the cap: run `handbook consolidate` to fit it again"),
        "{before}"
    );
    hb.cmd().arg("consolidate").assert().success();
    let after = status();
    assert!(after.contains(" tokens of 120, ") && !after.contains("over the cap"), "{after}");
}

#[test]
fn search_shows_each_line_once() {
    let hb = Handbook::new();
    hb.update(&fixtures());
    let out = hb.cmd().args(["--json", "search", "--limit", "0", "cargo"]).output().unwrap();
    let results: Vec<_> = json_lines(&out.stdout).into_iter().filter(|l| l["type"] == "result").collect();
    assert!(results.len() > 3, "{results:?}");
    let mut places = BTreeSet::new();
    let mut texts = BTreeSet::new();
    for r in &results {
        let d = &r["data"];
        assert!(places.insert((d["path"].to_string(), d["line"].to_string())), "shown twice: {d}");
        let said = (d["path"].to_string(), d["text"].to_string(), d["session_id"].to_string(), d["date"].to_string());
        assert!(texts.insert(said), "shown twice: {d}");
    }
}

fn doctor(hb: &Handbook, env: &[(&str, &str)]) -> (Option<i32>, String, Vec<serde_json::Value>) {
    let run = |json: bool| {
        let mut cmd = hb.cmd();
        cmd.env("HANDBOOK_NOW", NOW);
        for (k, v) in env {
            cmd.env(k, v);
        }
        if json {
            cmd.arg("--json");
        }
        cmd.arg("doctor").output().unwrap()
    };
    let (text, json) = (run(false), run(true));
    assert_eq!(text.status.code(), json.status.code());
    (text.status.code(), String::from_utf8(text.stdout).unwrap(), json_lines(&json.stdout))
}

#[test]
fn doctor_is_quiet_about_a_healthy_home() {
    let hb = claude_home();
    let out = hb.cmd().args(["integrate", "claude", "--write"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (code, text, json) = doctor(&hb, &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("ok: sources: reading") && text.contains(".claude/projects"), "{text}");
    assert!(text.contains("ok: doors: the claude door works"), "{text}");
    assert!(text.ends_with("doctor: nothing wrong\n"), "{text}");
    let totals = json.last().unwrap();
    assert_eq!((totals["type"].as_str(), totals["data"]["problems"].as_u64()), (Some("totals"), Some(0)));
}

#[test]
fn doctor_names_what_is_wrong_and_how_to_fix_it() {
    // No transcripts where the agents keep them, a hook whose binary is gone, a key a
    // variable overrides, one nothing reads, and a secret in the workspace.
    let hb = Handbook::new();
    hb.update(&fixtures().join("claude-preferences"));
    let settings = hb.user.path().join(".claude/settings.json");
    fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let hook = r#"{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"/gone/handbook summary --for claude --hook"}]}]}}"#;
    fs::write(&settings, hook).unwrap();
    let config = hb.user.path().join(".config/handbook/config.toml");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    fs::write(&config, "max_age_days = 3\nmodel = \"gpt\"\n").unwrap();
    let note = hb.home.path().join("extensions/ad_hoc/notes/x.md");
    fs::create_dir_all(note.parent().unwrap()).unwrap();
    fs::write(&note, "deploy token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n").unwrap();
    let (code, text, json) = doctor(&hb, &[("HANDBOOK_MAX_AGE_DAYS", "5")]);
    assert_eq!(code, Some(1), "{text}");
    for expected in [
        "problem: sources: no transcripts found: none of",
        ".codex/sessions",
        "problem: doors: claude: SessionStart hook in",
        "/gone/handbook, which",
        "`max_age_days` in",
        "variable HANDBOOK_MAX_AGE_DAYS wins",
        "`model` in",
        "no command reads it",
        "problem: scan: extensions/ad_hoc/notes/x.md:1: looks like a secret",
    ] {
        assert!(text.contains(expected), "{expected:?} not in:\n{text}");
    }
    let problems = json.iter().filter(|l| l["type"] == "finding" && l["data"]["level"] == "fail").count();
    assert_eq!(json.last().unwrap()["data"]["problems"].as_u64(), Some(problems as u64));
    assert!(problems >= 3, "{json:?}");
}

/// The README's first steps, walked in a scratch HOME by `scripts/readme-walk`: every command
/// prints what the README shows.
#[test]
fn the_readme_s_first_steps_hold() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/readme-walk");
    let out = std::process::Command::new("bash")
        .arg(&script)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HANDBOOK_BIN", env!("CARGO_BIN_EXE_handbook"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}
