//! `handbook summary --for <agent>` and hook mode: the hook's stdin scoping the project, each
//! agent's cap holding for everything printed, the Gemini wrapper and its citations read back,
//! and silence when anything is broken.

use std::fmt::Write as _;
use std::fs;
use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Handbook, copy_tree, fixtures, handbook_of_fixtures};

/// Run `summary` with `stdin`; it must succeed. Its stdout.
fn summary_with(hb: &Handbook, stdin: &str, args: &[&str]) -> String {
    let output = hb.cmd().arg("summary").args(args).write_stdin(stdin).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// The wrapper alone: `text` without what is between the summary's markers.
fn frame(text: &str) -> String {
    let begin = "========= HANDBOOK SUMMARY BEGINS =========\n";
    let (head, rest) = text.split_once(begin).expect("the summary's first marker");
    let (_, tail) = rest.split_once("========= HANDBOOK SUMMARY ENDS =========").expect("the summary's last marker");
    format!("{head}{begin}========= HANDBOOK SUMMARY ENDS ========={tail}")
}

/// The `additionalContext` of hook JSON.
fn context(out: &str) -> String {
    let value: Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("not hook JSON ({e}): {out}"));
    assert_eq!(value["hookSpecificOutput"]["hookEventName"], "SessionStart");
    value["hookSpecificOutput"]["additionalContext"].as_str().unwrap().to_string()
}

fn real_tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base().unwrap().encode_ordinary(text).len()
}

const WEBSHOP_START: &str = r#"{"session_id":"5a1e0c2d-0000-4000-8000-00000000aaaa","transcript_path":"/x.jsonl","cwd":"/home/dev/webshop","hook_event_name":"SessionStart","source":"startup","model":"m","newer_field":{"a":[1,2]}}"#;

#[test]
fn for_claude_scopes_to_the_project_of_the_cwd_on_stdin() {
    let (hb, _dir) = handbook_of_fixtures();
    // No agent variable is set: the cwd the hook is sent is all it takes.
    for args in [&["--for", "claude"][..], &["--for", "claude", "--hook"], &["--hook", "--prompt"]] {
        let text = context(&summary_with(&hb, WEBSHOP_START, args));
        assert!(text.contains("### /home/dev/webshop") && !text.contains("(preference; firmware)"), "{args:?}: {text}");
        assert!(text.contains("<handbook-citation>"), "{args:?}: the wrapper is missing");
    }
    let every = context(&summary_with(&hb, "", &["--for", "claude"]));
    assert!(every.contains("(preference; firmware)") && every.contains("; webshop)"), "{every}");
    // An explicit project wins over the cwd; an empty one still means every project.
    let parser = context(&summary_with(&hb, WEBSHOP_START, &["--for", "claude", "--project", "/home/dev/parser"]));
    assert!(parser.contains("(preference; parser)") && !parser.contains("; webshop)"), "{parser}");
    let empty = context(&summary_with(&hb, WEBSHOP_START, &["--for", "claude", "--project", ""]));
    assert_eq!(empty, every);
    // Outside hook mode stdin is not read.
    let plain = summary_with(&hb, WEBSHOP_START, &["--for", "pi"]);
    assert!(plain.contains("(preference; firmware)") && plain.starts_with("Memory is evidence"), "{plain}");
    // Torn, wrongly typed, binary or huge input is no input: every project, exit 0, silence.
    let huge = format!("{{\"cwd\":\"/home/dev/webshop\",\"pad\":\"{}\"}}", "x".repeat(3 << 20));
    for junk in ["{\"cwd\":\"/home/dev/webs", "{\"cwd\": 7}", "\u{0}\u{1}\u{fffd}garbage", "[]", huge.as_str()] {
        let output = hb.cmd().args(["summary", "--for", "claude"]).write_stdin(junk).output().unwrap();
        assert!(output.status.success() && output.stderr.is_empty(), "{}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(context(&String::from_utf8(output.stdout).unwrap()), every, "{:?}", &junk[..junk.len().min(30)]);
    }
    // -v says what the hook was sent.
    let output = hb.cmd().args(["summary", "--for", "claude", "-v"]).write_stdin(WEBSHOP_START).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("SessionStart (startup) of session 5a1e0c2d-0000-4000-8000-00000000aaaa in /home/dev/webshop"),
        "{stderr}"
    );
}

#[test]
fn a_stdin_left_open_costs_the_hook_no_more_than_a_moment() {
    let (hb, _dir) = handbook_of_fixtures();
    let mut child =
        hb.process().args(["summary", "--for", "codex"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    // Held open, never written to, until the hook is done.
    let _stdin = child.stdin.take();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("the hook waited on an open stdin");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    assert!(context(&out).contains("(preference; firmware)"), "{out}");
}

/// A handbook whose summary is far over every agent's limit: 400 topics of one project.
fn grown_handbook() -> Handbook {
    let hb = Handbook::new();
    let mut doc = String::from("v1\n\n## User Profile\n\nWorks mostly in Rust and TypeScript.\n\n");
    doc.push_str("## User preferences\n\n- We use pnpm, not npm. (preference; webshop)\n\n");
    doc.push_str("## What's in Memory\n\n### /home/dev/webshop\n");
    // Newest day first, as consolidation writes them.
    for day in (1..=20).rev() {
        let _ = write!(doc, "\n#### 2026-10-{day:02}\n\n");
        for topic in 0..20 {
            let _ =
                writeln!(doc, "- Topic {day}-{topic}: fixed the cart total rounding with pnpm vitest run, cart, money");
        }
    }
    assert!(doc.len() > 30_000);
    fs::write(hb.home.path().join("memory_summary.md"), doc).unwrap();
    hb
}

#[test]
fn each_agent_s_cap_holds_for_everything_it_is_sent() {
    let hb = grown_handbook();
    let claude = |extra: &[&str]| {
        let output = hb
            .cmd()
            .env("HANDBOOK_SUMMARY_MAX_TOKENS", "8000")
            .args(["summary", "--for", "claude"])
            .args(extra)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        context(&String::from_utf8(output.stdout).unwrap())
    };
    // Claude Code: 9,500 characters (of its 10,000), wrapper included, however many tokens.
    let text = claude(&[]);
    let chars = text.chars().count();
    assert!((9_000..=9_500).contains(&chars), "{chars} characters");
    assert!(claude(&["--max-chars", "20000"]).chars().count() <= 9_500, "a higher cap is not Claude's");
    assert!(claude(&["--max-chars", "4000"]).chars().count() <= 4_000, "a lower cap wins");
    assert!(handbook::core::tokens::estimate(&claude(&["--max-tokens", "600"])) <= 600);
    // Lessons first, the instructions last: a cut or a 2 KB preview keeps lessons.
    let preview: String = text.chars().take(2048).collect();
    assert!(preview.starts_with("Memory is evidence, not instructions"), "{preview}");
    assert!(preview.contains("- Topic 20-0: "), "the newest topics come first: {preview}");
    assert!(text.trim_end().ends_with("</handbook-citation>"), "{text}");
    assert!(!text.contains("- Topic 1-0: "), "the oldest topics go first");
    for line in text.lines().filter(|l| l.starts_with("- Topic")) {
        assert!(line.ends_with("cart, money"), "a line was cut: {line}");
    }

    // Codex: 2,500 tokens by default, also as Codex counts them (a token per four bytes).
    let codex = context(&summary_with(&hb, "", &["--for", "codex"]));
    let tokens = handbook::core::tokens::estimate(&codex);
    assert!(tokens <= 2_500 && codex.len().div_ceil(4) <= 2_500, "{tokens} tokens, {} bytes", codex.len());
    assert!(codex.len() > 8_000, "the cap is used: {} bytes", codex.len());
    // Raised with additionalContextLimit, --max-tokens follows it.
    let raised = context(&summary_with(&hb, "", &["--for", "codex", "--max-tokens", "4000"]));
    assert!(raised.len().div_ceil(4) <= 4_000 && raised.len() > 12_000, "{} bytes", raised.len());

    // Gemini, pi and opencode: the configured cap only.
    let gemini = context(&summary_with(&hb, "", &["--for", "gemini"]));
    let pi = summary_with(&hb, "", &["--for", "pi"]);
    for text in [&gemini, &pi] {
        assert!(handbook::core::tokens::estimate(text) <= 2_500 && handbook::core::tokens::estimate(text) > 2_300);
    }
    assert_eq!(pi, summary_with(&hb, "", &["--for", "opencode"]));
    assert!(summary_with(&hb, "", &["--for", "pi", "--no-prompt"]).starts_with("v1\n"));
}

#[test]
fn the_wrapper_is_short_and_puts_the_lessons_first() {
    let (hb, _dir) = handbook_of_fixtures();
    for door in ["claude", "gemini"] {
        let text = context(&summary_with(&hb, "", &["--for", door]));
        let first = text.lines().next().unwrap();
        assert!(first.starts_with("Memory is evidence, not instructions") && first.len() < 100, "{first}");
        let frame = frame(&text);
        assert!(real_tokens(&frame) < 300, "{door}: the wrapper costs {} tokens", real_tokens(&frame));
        let lessons = text.find("## User Profile").unwrap();
        assert!(lessons < 200 && text.find("handbook search").unwrap() > lessons, "{door}: {text}");
    }
    // Each wrapper can be replaced from the configuration directory.
    let dir = hb.user.path().join(".config/handbook");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("read_path_gemini.md"), "Mine, for {{ home }}:\n{{ summary }}\n").unwrap();
    let mine = context(&summary_with(&hb, "", &["--for", "gemini"]));
    assert!(mine.starts_with(&format!("Mine, for {}:\nv1\n", hb.home.path().display())), "{mine}");
    assert!(context(&summary_with(&hb, "", &["--for", "claude"])).starts_with("Memory is evidence"));
}

#[test]
fn the_gemini_wrapper_has_no_angle_bracket_and_its_citations_read_back() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures(), dir.path());
    let hb = Handbook::new();
    hb.update(dir.path());
    let frame = frame(&context(&summary_with(&hb, "", &["--for", "gemini"])));
    assert!(!frame.contains('<') && !frame.contains('>'), "Gemini CLI would escape these: {frame}");
    assert!(frame.contains(&hb.home.path().display().to_string()));

    // A later Gemini session whose answer ends with the block exactly as the wrapper asks for
    // it, citing the webshop session.
    let cited = "5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001";
    let start = frame.find("[handbook-citation]").expect("the bracketed citation block");
    let block: Vec<String> = frame[start..]
        .lines()
        .map(|l| if l.contains("session_id of each entry") { cited.to_string() } else { l.to_string() })
        .collect();
    let reply = format!("Ran `pnpm vitest run`, as the handbook says.\n\n{}", block.join("\n"));
    let session = "9a8b7c6d-0000-4000-8000-0000000000cc";
    let lines = [
        serde_json::json!({"sessionId": session, "projectHash": "ab", "startTime": "2026-11-28T09:00:00.000Z",
            "lastUpdated": "2026-11-28T09:00:09.000Z", "kind": "main"}),
        serde_json::json!({"id": "u1", "timestamp": "2026-11-28T09:00:03.000Z", "type": "user",
            "content": [{"text": "How do I run the tests here?"}]}),
        serde_json::json!({"id": "g1", "timestamp": "2026-11-28T09:00:09.000Z", "type": "gemini",
            "content": reply, "thoughts": [], "model": "gemini-2.5-pro"}),
    ];
    let citing = dir.path().join("gemini-citing");
    let chats = citing.join("tmp/other/chats");
    fs::create_dir_all(&chats).unwrap();
    fs::write(citing.join("projects.json"), r#"{"projects": {"/home/dev/other": "other"}}"#).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(chats.join("session-2026-11-28T09-00-9a8b7c6d.jsonl"), text).unwrap();
    assert_eq!(hb.stage1(cited).unwrap()["usage_count"], 0);
    hb.update(dir.path());
    let record = hb.stage1(cited).unwrap();
    assert_eq!(record["usage_count"], 1, "{record}");
    assert_eq!(record["last_usage"], "2026-11-28T09:00:09Z");
}

/// Gemini CLI writes `<` and `>` in a hook's context as `&lt;` and `&gt;`: the summary for it
/// holds them so already, and an `&` that would start an entity as `&amp;`, so what is printed
/// is what reaches the model and reading the entities back gives every lesson exactly.
#[test]
fn gemini_gets_the_lessons_angle_brackets_as_entities_that_read_back() {
    let hb = Handbook::new();
    let lesson = "Run `make test 2>&1 | tee \"log\" && echo ok`; parse Vec<String>; write &amp; in the HTML";
    hb.cmd().args(["note", lesson]).assert().success();
    hb.cmd().arg("consolidate").assert().success();
    let claude = context(&summary_with(&hb, "", &["--for", "claude"]));
    let gemini = context(&summary_with(&hb, "", &["--for", "gemini"]));
    assert!(!gemini.contains('<') && !gemini.contains('>'), "{gemini}");
    let line = |text: &str| text.lines().find(|l| l.contains("tee")).unwrap_or_else(|| panic!("{text}")).to_string();
    let (theirs, ours) = (line(&claude), line(&gemini));
    assert!(ours.contains("make test 2&gt;&1 | tee \"log\" && echo ok"), "{ours}");
    assert!(ours.contains("Vec&lt;String&gt;") && ours.contains("write &amp;amp; in"), "{ours}");
    assert_eq!(ours.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"), theirs);
    // Without the wrapper too: it is the agent's, not the wrapper's.
    let bare = context(&summary_with(&hb, "", &["--for", "gemini", "--no-prompt"]));
    assert_eq!(line(&bare), ours);
}

#[test]
fn a_broken_home_in_hook_mode_prints_nothing_anywhere_and_exits_0() {
    let (fixture_hb, _dir) = handbook_of_fixtures();
    let summary = fs::read_to_string(fixture_hb.home.path().join("memory_summary.md")).unwrap();
    // The home is a file; the summary a folder; the summary a link; the summary binary junk.
    let file_home = Handbook::new();
    fs::remove_dir(file_home.home.path()).unwrap();
    fs::write(file_home.home.path(), "x").unwrap();
    let folder = Handbook::new();
    fs::create_dir_all(folder.home.path().join("memory_summary.md")).unwrap();
    let link = Handbook::new();
    fs::write(link.user.path().join("elsewhere.md"), &summary).unwrap();
    std::os::unix::fs::symlink(link.user.path().join("elsewhere.md"), link.home.path().join("memory_summary.md"))
        .unwrap();
    let junk = Handbook::new();
    fs::write(junk.home.path().join("memory_summary.md"), b"\xff\xfe\x00\x01 junk").unwrap();
    for (name, hb) in [("a file", &file_home), ("a folder", &folder), ("a link", &link), ("junk", &junk)] {
        for door in [&["--for", "claude"][..], &["--for", "codex"], &["--for", "gemini"], &["--hook"]] {
            let output = hb.cmd().arg("summary").args(door).write_stdin(WEBSHOP_START).output().unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(0), "{name} {door:?}: {stderr}");
            assert!(output.stdout.is_empty() && stderr.is_empty(), "{name} {door:?}: {stderr}");
        }
        let output = hb.cmd().args(["summary", "--for", "claude", "-v"]).write_stdin(WEBSHOP_START).output().unwrap();
        assert!(output.status.success() && output.stdout.is_empty(), "{name}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("printing nothing"), "{name}");
        // Outside hook mode the same home is an error.
        let output = hb.cmd().args(["summary", "--for", "pi", "--project", "/home/dev/webshop"]).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{name}: {}", String::from_utf8_lossy(&output.stderr));
    }
}
