//! `integrate`: each agent's settings file written into, merged into, left alone the second
//! time, and restored by `--remove`; `--check`; bad files and links refused; file doors kept
//! fresh by consolidate, update and note.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{Handbook, fixtures};

fn run(hb: &Handbook, args: &[&str]) -> (bool, String, String) {
    let out = hb.cmd().env("HANDBOOK_NOW", "2026-11-20T10:00:00Z").arg("integrate").args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(hb: &Handbook, args: &[&str]) -> String {
    let (success, stdout, stderr) = run(hb, args);
    assert!(success, "integrate {args:?}: {stderr}");
    stdout
}

fn backups(path: &Path) -> Vec<PathBuf> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut found: Vec<PathBuf> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(&format!("{name}.handbook-backup-")))
        .collect();
    found.sort();
    found
}

/// Every file integrate writes, with settings of the user's own to merge into, and a piece
/// of what handbook's entry there holds.
fn cases(user: &Path) -> Vec<(Vec<&'static str>, PathBuf, &'static str, &'static str)> {
    vec![
        (
            vec!["claude"],
            user.join(".claude/settings.json"),
            "{\n  \"model\": \"opus\",\n  \"env\": {\n    \"A\": \"1\"\n  }\n}\n",
            "summary --for claude --hook",
        ),
        (
            vec!["claude", "--mcp"],
            user.join(".claude.json"),
            "{\n  \"numStartups\": 3,\n  \"projects\": {}\n}\n",
            "\"type\": \"stdio\"",
        ),
        (
            vec!["codex"],
            user.join(".codex/hooks.json"),
            "{\n    \"hooks\": {\n        \"Stop\": []\n    }\n}\n",
            "summary --for codex --hook",
        ),
        (
            vec!["codex", "--mcp"],
            user.join(".codex/config.toml"),
            "# mine\nmodel = \"o4\" # fast\n",
            "[mcp_servers.handbook]",
        ),
        (
            vec!["gemini", "--mcp"],
            user.join(".gemini/settings.json"),
            "{\n  \"theme\": \"dark\"\n}\n",
            "\"timeout\": 30000",
        ),
        (
            vec!["opencode", "--mcp"],
            user.join(".config/opencode/opencode.json"),
            "{\n  \"mcp\": {\n    \"docs\": {\n      \"type\": \"remote\",\n      \"url\": \"https://docs.example/mcp\"\n    }\n  }\n}\n",
            "\"type\": \"local\"",
        ),
        (
            vec!["opencode"],
            user.join(".config/opencode/opencode.json"),
            "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"instructions\": [\n    \"AGENTS.md\"\n  ]\n}\n",
            "/.handbook/doors/opencode.md",
        ),
    ]
}

#[test]
fn every_settings_file_is_written_merged_kept_and_restored() {
    for with_settings in [false, true] {
        let hb = Handbook::new();
        for (args, path, original, ours) in cases(hb.user.path()) {
            if with_settings {
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(&path, original).unwrap();
            }
            let shown = ok(&hb, &args);
            assert!(shown.contains(&format!("+++ {}", path.display())), "{args:?}: {shown}");
            assert_eq!(
                fs::read_to_string(&path).ok().as_deref(),
                with_settings.then_some(original),
                "a diff writes nothing"
            );
            let write: Vec<&str> = args.iter().copied().chain(["--write"]).collect();
            ok(&hb, &write);
            let written = fs::read_to_string(&path).unwrap();
            assert!(written.contains(ours), "{args:?}: {written}");
            let made = backups(&path);
            assert_eq!(made.len(), usize::from(with_settings), "{args:?}: {made:?}");
            if with_settings {
                assert_eq!(fs::read_to_string(&made[0]).unwrap(), original);
                let first_line = original.lines().nth(1).unwrap();
                assert!(written.contains(first_line), "{args:?}: other settings kept: {written}");
            }
            let (success, stdout, _) = run(&hb, &write);
            assert!(success && stdout.contains("unchanged:"), "{args:?}: {stdout}");
            assert_eq!(fs::read_to_string(&path).unwrap(), written, "{args:?}: a second --write changes nothing");
            assert_eq!(backups(&path).len(), made.len(), "{args:?}: and backs up nothing");
            let remove: Vec<&str> = args.iter().copied().chain(["--remove"]).collect();
            ok(&hb, &remove);
            assert_eq!(fs::read_to_string(&path).ok().as_deref(), with_settings.then_some(original), "{args:?}");
            // Two doors share opencode's file: the next one counts its own backups.
            backups(&path).iter().for_each(|b| fs::remove_file(b).unwrap());
        }
    }
}

#[test]
fn a_file_laid_out_by_hand_comes_back_the_same_in_content_and_order() {
    let hb = Handbook::new();
    let path = hb.user.path().join(".config/opencode/opencode.json");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let original = r#"{"zeta": 1, "instructions": ["AGENTS.md"], "alpha": {"b": 2, "a": 1}}"#;
    fs::write(&path, original).unwrap();
    ok(&hb, &["opencode", "--write"]);
    ok(&hb, &["opencode", "--remove"]);
    let back = fs::read_to_string(&path).unwrap();
    let parsed: serde_json::Value = serde_json::from_str(&back).unwrap();
    assert_eq!(parsed, serde_json::from_str::<serde_json::Value>(original).unwrap());
    let order: Vec<usize> =
        ["zeta", "instructions", "alpha", "\"b\"", "\"a\""].iter().map(|k| back.find(k).unwrap()).collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{back}");
}

#[test]
fn pi_gets_an_extension_of_its_own_and_nothing_else_is_touched() {
    let hb = Handbook::new();
    let ext = hb.user.path().join(".pi/agent/extensions/handbook.ts");
    let (_, _, stderr) = run(&hb, &["pi", "--mcp", "--write"]);
    assert!(stderr.contains("pi has no MCP client"), "{stderr}");
    let text = fs::read_to_string(&ext).unwrap();
    assert!(text.contains(env!("CARGO_BIN_EXE_handbook")) && text.contains("before_agent_start"), "{text}");
    ok(&hb, &["pi", "--check"]);
    ok(&hb, &["pi", "--remove"]);
    assert!(!ext.exists());
    fs::write(&ext, "export default () => {}\n").unwrap();
    let (success, _, stderr) = run(&hb, &["pi", "--write"]);
    assert!(!success && stderr.contains("not written by handbook"), "{stderr}");
    assert_eq!(fs::read_to_string(&ext).unwrap(), "export default () => {}\n");
}

#[test]
fn check_says_whether_the_door_is_there_and_what_to_run() {
    let hb = Handbook::new();
    let (success, stdout, _) = run(&hb, &["claude", "--check"]);
    assert!(!success && stdout.contains("run `handbook integrate claude --write`"), "{stdout}");
    ok(&hb, &["claude", "--write"]);
    let stdout = ok(&hb, &["claude", "--check"]);
    assert!(stdout.contains(&format!("runs {}", env!("CARGO_BIN_EXE_handbook"))), "{stdout}");
    let listed = ok(&hb, &[]);
    assert!(listed.contains("claude: door in place"), "{listed}");
}

#[test]
fn codex_check_reads_the_trust_codex_records() {
    let hb = Handbook::new();
    ok(&hb, &["codex", "--write"]);
    let (success, stdout, _) = run(&hb, &["codex", "--check"]);
    assert!(!success && stdout.contains("type /hooks"), "{stdout}");
    let hooks = hb.user.path().join(".codex/hooks.json");
    let config = format!("[hooks.state.\"{}:session_start:0:0\"]\ntrusted_hash = \"sha256:0123\"\n", hooks.display());
    fs::write(hb.user.path().join(".codex/config.toml"), config).unwrap();
    let stdout = ok(&hb, &["codex", "--check"]);
    assert!(stdout.contains("Codex records this hook as trusted"), "{stdout}");
}

#[test]
fn a_file_that_does_not_parse_is_named_with_its_line_and_left_alone() {
    let hb = Handbook::new();
    let json = hb.user.path().join(".claude/settings.json");
    fs::create_dir_all(json.parent().unwrap()).unwrap();
    fs::write(&json, "{\n  \"model\": \"opus\"\n  \"x\": 1\n}\n").unwrap();
    let (success, _, stderr) = run(&hb, &["claude", "--write"]);
    assert!(!success, "{stderr}");
    assert!(
        stderr.contains(&format!("{}: line 3, column 3", json.display())) && stderr.contains("nothing was written"),
        "{stderr}"
    );
    let toml = hb.user.path().join(".codex/config.toml");
    fs::create_dir_all(toml.parent().unwrap()).unwrap();
    fs::write(&toml, "a = 1\nb = = 2\n").unwrap();
    let (success, _, stderr) = run(&hb, &["codex", "--mcp", "--write"]);
    assert!(!success && stderr.contains(&format!("{}: line 2", toml.display())), "{stderr}");
    assert_eq!(fs::read_to_string(&toml).unwrap(), "a = 1\nb = = 2\n");
    assert!(backups(&json).is_empty() && backups(&toml).is_empty());
}

#[cfg(unix)]
#[test]
fn a_linked_settings_file_is_shown_but_never_written_through() {
    let hb = Handbook::new();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("settings.json");
    fs::write(&target, "{\n  \"model\": \"opus\"\n}\n").unwrap();
    let link = hb.user.path().join(".claude/settings.json");
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let shown = ok(&hb, &["claude"]);
    assert!(shown.contains("summary --for claude"), "{shown}");
    let (success, _, stderr) = run(&hb, &["claude", "--write"]);
    assert!(!success && stderr.contains("is a symbolic link") && stderr.contains("nothing was written"), "{stderr}");
    assert_eq!(fs::read_to_string(&target).unwrap(), "{\n  \"model\": \"opus\"\n}\n");
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn file_doors_follow_the_summary_and_are_left_alone_when_it_did_not_change() {
    use std::os::unix::fs::MetadataExt;
    let hb = Handbook::new();
    ok(&hb, &["opencode", "--write"]);
    let door = hb.home.path().join(".handbook/doors/opencode.md");
    assert_eq!(fs::read_to_string(&door).unwrap(), "", "there before anything is known, and empty");
    hb.update(&fixtures());
    let prompt = hb.cmd().args(["summary", "--prompt"]).output().unwrap();
    let text = fs::read_to_string(&door).unwrap();
    assert!(!text.is_empty());
    assert_eq!(text.as_bytes(), prompt.stdout, "the door holds what `summary --prompt` prints");
    let before = fs::metadata(&door).unwrap();
    hb.cmd().args(["note", "use pnpm here"]).assert().success();
    hb.cmd().args(["consolidate"]).assert().success();
    let after = fs::metadata(&door).unwrap();
    let now = hb.cmd().args(["summary", "--prompt"]).output().unwrap().stdout;
    assert_eq!(fs::read(&door).unwrap(), now);
    if now == prompt.stdout {
        assert_eq!(
            (after.ino(), after.mtime_nsec()),
            (before.ino(), before.mtime_nsec()),
            "unchanged bytes, untouched file"
        );
    }
    ok(&hb, &["opencode", "--check"]);
}

#[cfg(unix)]
#[test]
fn a_file_door_turned_into_a_link_is_warned_about_and_not_written_through() {
    let hb = Handbook::new();
    ok(&hb, &["opencode", "--write"]);
    let door = hb.home.path().join(".handbook/doors/opencode.md");
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("elsewhere.md");
    fs::write(&target, "mine").unwrap();
    fs::remove_file(&door).unwrap();
    std::os::unix::fs::symlink(&target, &door).unwrap();
    let stderr = hb.update(&fixtures());
    assert!(stderr.contains(&format!("the file door {} was left as it was", door.display())), "{stderr}");
    assert!(stderr.contains("handbook integrate opencode --write"), "{stderr}");
    assert_eq!(fs::read_to_string(&target).unwrap(), "mine");
}

#[test]
fn a_summary_that_does_not_parse_still_gets_its_file_door() {
    let hb = Handbook::new();
    let summary = hb.home.path().join("memory_summary.md");
    fs::write(&summary, b"\x00\x01 not a summary {{ }}\n".repeat(200)).unwrap();
    let (success, _, stderr) = run(&hb, &["opencode", "--write"]);
    assert!(success, "the door does not depend on the summary: {stderr}");
    assert!(stderr.contains("memory_summary.md") && stderr.contains("handbook consolidate"), "{stderr}");
    let door = hb.home.path().join(".handbook/doors/opencode.md");
    assert_eq!(fs::read_to_string(&door).unwrap(), "", "there before an agent is told to read it");
    let settings = fs::read_to_string(hb.user.path().join(".config/opencode/opencode.json")).unwrap();
    assert!(settings.contains("/.handbook/doors/opencode.md"), "{settings}");
    // Once there is a summary again, consolidation fills the door.
    fs::remove_file(&summary).unwrap();
    hb.update(&fixtures());
    assert!(!fs::read_to_string(&door).unwrap().is_empty());
    let (success, _, stderr) = run(&hb, &["opencode", "--write"]);
    assert!(success && !stderr.contains("warning"), "{stderr}");
}

/// A hook whose binary was uninstalled ends with status 0 and no output at all, in the shells
/// the agents run hooks with (Claude Code and Gemini CLI: bash; Codex: `$SHELL`, else sh),
/// while `--check` and `doctor` still name the missing binary.
#[cfg(unix)]
#[test]
fn a_hook_whose_binary_is_gone_ends_quietly_and_check_still_says_so() {
    let hb = Handbook::new();
    hb.update(&fixtures());
    let bin = tempfile::tempdir().unwrap();
    let copy = bin.path().join("handbook");
    // A second name for the binary (a copy where the folders are on different disks), so
    // taking it away leaves the one the other tests run.
    if fs::hard_link(env!("CARGO_BIN_EXE_handbook"), &copy).is_err() {
        fs::copy(env!("CARGO_BIN_EXE_handbook"), &copy).unwrap();
    }
    let mut commands = Vec::new();
    for (door, file) in
        [("claude", ".claude/settings.json"), ("codex", ".codex/hooks.json"), ("gemini", ".gemini/settings.json")]
    {
        let out = hb.process_of(&copy).args(["integrate", door, "--write"]).output().unwrap();
        assert!(out.status.success(), "{door}: {}", String::from_utf8_lossy(&out.stderr));
        let settings: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(hb.user.path().join(file)).unwrap()).unwrap();
        let command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"].as_str().unwrap().to_string();
        assert!(
            command.starts_with(&format!("[ -x {} ] || exit 0; {} --home ", copy.display(), copy.display())),
            "{command}"
        );
        commands.push((door, command));
    }
    let start = r#"{"session_id":"s","cwd":"/home/dev/webshop","hook_event_name":"SessionStart","source":"startup"}"#;
    let hook = |shell: &str, command: &str| {
        use std::io::Write;
        let mut child = std::process::Command::new(shell)
            .args(["-c", command])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", hb.user.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A guard that ends the hook at once never reads it: the pipe may be closed by then.
        let _ = child.stdin.take().unwrap().write_all(start.as_bytes());
        child.wait_with_output().unwrap()
    };
    let shells: Vec<&str> = ["sh", "bash"].into_iter().filter(|s| which(s)).collect();
    assert!(!shells.is_empty());
    for shell in &shells {
        for (door, command) in &commands {
            let out = hook(shell, command);
            assert_eq!(out.status.code(), Some(0), "{shell} {door}");
            assert!(String::from_utf8_lossy(&out.stdout).contains("additionalContext"), "{shell} {door}");
            assert!(out.stderr.is_empty(), "{shell} {door}: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
    fs::remove_file(&copy).unwrap();
    for shell in &shells {
        for (door, command) in &commands {
            let out = hook(shell, command);
            assert_eq!(out.status.code(), Some(0), "{shell} {door}");
            assert!(
                out.stdout.is_empty() && out.stderr.is_empty(),
                "{shell} {door}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let (success, stdout, _) = run(&hb, &["gemini", "--check"]);
    assert!(!success, "{stdout}");
    assert!(stdout.contains(&format!("runs {}, which does not exist", copy.display())), "{stdout}");
    assert!(stdout.contains("until then the hook passes nothing, and the agent starts without a word"), "{stdout}");
    let doctor = hb.cmd().arg("doctor").output().unwrap();
    let doctor = String::from_utf8_lossy(&doctor.stdout);
    for door in ["claude", "codex", "gemini"] {
        assert!(doctor.contains(&format!("problem: doors: {door}: SessionStart hook in")), "{doctor}");
    }
    assert!(doctor.contains("which does not exist"), "{doctor}");
}

#[cfg(unix)]
fn which(program: &str) -> bool {
    std::process::Command::new(program).args(["-c", ":"]).output().is_ok_and(|o| o.status.success())
}

/// `summary --output FILE` remembers FILE and how it was printed: every run that changes the
/// summary rewrites it; `doctor` names it when stale or missing with the command that writes
/// it again; once deleted it is forgotten, with a warning, and never made again.
#[test]
fn a_file_summary_output_wrote_is_kept_fresh_until_it_is_deleted() {
    let hb = Handbook::new();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("summary.md");
    let write =
        || hb.cmd().args(["summary", "--for", "pi", "--max-tokens", "2000", "--output"]).arg(&file).output().unwrap();
    // Before there is a summary the file is there, empty, so an agent never reads its path.
    let out = write();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "");
    assert!(stderr.contains("stays empty until then") && stderr.contains("is kept fresh from now on"), "{stderr}");
    assert!(!String::from_utf8_lossy(&write().stderr).contains("kept fresh"), "said once");
    let printed = || hb.cmd().args(["summary", "--for", "pi", "--max-tokens", "2000"]).output().unwrap().stdout;
    hb.update(&fixtures());
    assert!(!printed().is_empty());
    assert_eq!(fs::read(&file).unwrap(), printed(), "update rewrote it as it was first printed");
    let doctor = || String::from_utf8_lossy(&hb.cmd().arg("doctor").output().unwrap().stdout).into_owned();
    let shown = file.display().to_string();
    assert!(
        doctor().contains(&format!("ok: doors: {shown}, from `summary --output`, holds the summary")),
        "{}",
        doctor()
    );
    let again = format!("`handbook summary --for pi --max-tokens 2000 --output {shown}` writes it again");
    fs::write(&file, "an older summary\n").unwrap();
    let found = doctor();
    assert!(
        found
            .contains(&format!("problem: doors: {shown}, from `summary --output`, is older than the summary: {again}")),
        "{found}"
    );
    hb.cmd().args(["note", "staging needs the VPN"]).assert().success();
    assert_eq!(fs::read(&file).unwrap(), printed(), "a note that changed the summary rewrote it");
    fs::remove_file(&file).unwrap();
    let found = doctor();
    assert!(
        found.contains(&format!("problem: doors: {shown}, from `summary --output`, is missing: {again}")),
        "{found}"
    );
    let out = hb.cmd().arg("consolidate").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success()
            && stderr.contains(&format!(
                "{shown}, which `handbook summary --output` wrote, is gone, so it is no longer kept fresh"
            )),
        "{stderr}"
    );
    assert!(!file.exists(), "a deleted file is not made again");
    assert!(!doctor().contains(&shown), "and is forgotten");
}

/// `reset` keeps the files agents are told to read, registered and in place, emptied: an agent
/// reads nothing stale, and the next consolidation fills them again.
#[test]
fn reset_empties_the_files_agents_read_and_the_next_run_fills_them() {
    let hb = Handbook::new();
    ok(&hb, &["opencode", "--write"]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("summary.md");
    hb.cmd().args(["summary", "--for", "pi", "--output"]).arg(&file).assert().success();
    hb.update(&fixtures());
    let door = hb.home.path().join(".handbook/doors/opencode.md");
    let filled = || [&door, &file].map(|p| !fs::read_to_string(p).unwrap().is_empty());
    assert_eq!(filled(), [true, true]);
    let out = hb.cmd().args(["reset", "--yes"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.contains("2 kept-fresh files agents read, now empty (the next consolidation fills them)"),
        "{stdout}"
    );
    assert_eq!(filled(), [false, false]);
    hb.update(&fixtures());
    assert_eq!(filled(), [true, true]);
}

/// `--project-level` writes each door into the repository the current folder is in (found by
/// its `.git`), not the user's settings; a second write changes nothing; `--remove` leaves no
/// file behind. opencode's project door gets a file door of its own.
#[test]
fn project_level_doors_go_into_the_repository_and_out_again() {
    let hb = Handbook::new();
    hb.update(&fixtures());
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    fs::create_dir_all(root.join(".git")).unwrap();
    let inside = root.join("src/deep");
    fs::create_dir_all(&inside).unwrap();
    for (agent, file, ours) in [
        ("claude", root.join(".claude/settings.local.json"), "summary --for claude --hook"),
        ("codex", root.join(".codex/hooks.json"), "summary --for codex --hook"),
        ("gemini", root.join(".gemini/settings.json"), "summary --for gemini --hook"),
        ("pi", root.join(".pi/extensions/handbook.ts"), "before_agent_start"),
        ("opencode", root.join("opencode.json"), "/.handbook/doors/opencode-"),
    ] {
        let run = |action: &str| {
            let out =
                hb.cmd().current_dir(&inside).args(["integrate", agent, "--project-level", action]).output().unwrap();
            (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
        };
        let (success, stdout) = run("--write");
        assert!(success, "{agent}: {stdout}");
        let text = fs::read_to_string(&file).unwrap_or_else(|e| panic!("{agent}: {}: {e}", file.display()));
        assert!(text.contains(ours), "{agent}: {text}");
        let (success, stdout) = run("--write");
        assert!(success && stdout.contains("unchanged:"), "{agent}: {stdout}");
        assert_eq!(fs::read_to_string(&file).unwrap(), text, "{agent}");
        if agent == "opencode" {
            let door = text.split('"').find(|s| s.contains("/.handbook/doors/opencode-")).unwrap().to_string();
            assert!(!fs::read_to_string(&door).unwrap().is_empty(), "the project's door holds its summary");
            let (success, stdout) = run("--check");
            assert!(success, "{stdout}");
        }
        let (success, stdout) = run("--remove");
        assert!(success, "{agent}: {stdout}");
        assert!(!file.exists(), "{agent}: {}", file.display());
    }
    for own in [".claude", ".codex", ".gemini", ".pi"] {
        assert!(!hb.user.path().join(own).exists(), "the user's own {own} was left alone");
    }
}

#[test]
fn project_level_mcp_servers_go_into_the_repository_and_out_again() {
    let hb = Handbook::new();
    hb.update(&fixtures());
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    fs::create_dir_all(root.join(".git")).unwrap();
    for (agent, file, ours) in [
        ("claude", root.join(".mcp.json"), "\"type\": \"stdio\""),
        ("codex", root.join(".codex/config.toml"), "[mcp_servers.handbook]"),
        ("gemini", root.join(".gemini/settings.json"), "\"mcpServers\""),
        ("opencode", root.join("opencode.json"), "\"type\": \"local\""),
    ] {
        let run = |action: &str| {
            let out = hb
                .cmd()
                .current_dir(root)
                .args(["integrate", agent, "--project-level", "--mcp", action])
                .output()
                .unwrap();
            (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
        };
        let (success, stdout) = run("--write");
        assert!(success, "{agent}: {stdout}");
        let text = fs::read_to_string(&file).unwrap_or_else(|e| panic!("{agent}: {}: {e}", file.display()));
        assert!(text.contains(ours) && text.contains("mcp"), "{agent}: {text}");
        let (success, stdout) = run("--write");
        assert!(success && stdout.contains("unchanged:"), "{agent}: {stdout}");
        assert_eq!(fs::read_to_string(&file).unwrap(), text, "{agent}");
        let (success, stdout) = run("--remove");
        assert!(success, "{agent}: {stdout}");
        assert!(!file.exists(), "{agent}: {}", file.display());
    }
}

#[test]
fn a_handbook_installed_under_another_name_knows_its_own_doors() {
    let hb = Handbook::new();
    hb.update(&fixtures());
    let bin = tempfile::tempdir().unwrap();
    let renamed = bin.path().join("hb");
    if fs::hard_link(env!("CARGO_BIN_EXE_handbook"), &renamed).is_err() {
        fs::copy(env!("CARGO_BIN_EXE_handbook"), &renamed).unwrap();
    }
    let integrate = |args: &[&str]| {
        let out = hb.process_of(&renamed).arg("integrate").args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for (agent, file) in [
        ("claude", ".claude/settings.json"),
        ("codex", ".codex/config.toml"),
        ("gemini", ".gemini/settings.json"),
        ("opencode", ".config/opencode/opencode.json"),
    ] {
        let path = hb.user.path().join(file);
        integrate(&[agent, "--mcp", "--write"]);
        let written = fs::read_to_string(&path).unwrap();
        assert!(written.contains(&renamed.display().to_string()), "{agent}: {written}");
        let again = integrate(&[agent, "--mcp", "--write"]);
        assert!(again.contains("unchanged:"), "{agent}: {again}");
        assert_eq!(fs::read_to_string(&path).unwrap(), written, "{agent}: one entry, not two");
        integrate(&[agent, "--mcp", "--remove"]);
        let left = fs::read_to_string(&path).unwrap_or_default();
        assert!(!left.contains(&renamed.display().to_string()), "{agent}: removed: {left}");
    }
}
