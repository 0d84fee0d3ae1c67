//! `handbook mcp`: the server spoken to over its stdin and stdout as an agent would, on a
//! handbook built from a fixture: the handshake, the tools, references refused, a note
//! redacted, reads while the lock is held, and a missing workspace that never ends it.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Handbook, NOW, fixtures};

/// A running server and the lines it prints, read on a thread so a hang fails the test.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Server {
    fn start(hb: &Handbook, extra: &[&str]) -> Server {
        let mut child = hb
            .process()
            .env("HANDBOOK_NOW", NOW)
            .arg("mcp")
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut server = Server { child, stdin, lines, next_id: 0 };
        let init = server.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "handbook", "{init}");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Send a request and return its response; every line on stdout must be a protocol message.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.lines.recv_timeout(Duration::from_secs(60)).expect("the server answers within a minute");
            let message: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON-RPC on stdout ({e}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "{line}");
            if message["id"] == id {
                return message;
            }
        }
    }

    /// Call a tool: whether it answered with an error, and its text.
    fn call(&mut self, tool: &str, arguments: Value) -> (bool, String) {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = &response["result"];
        assert!(result.is_object(), "{tool} gave no result: {response}");
        let text: Vec<&str> =
            result["content"].as_array().unwrap().iter().map(|c| c["text"].as_str().unwrap()).collect();
        (result["isError"] == true, text.join("\n"))
    }

    /// Close stdin; the server must end by itself, successfully. Its stderr.
    fn stop(mut self) -> String {
        drop(self.stdin.take());
        let output = self.child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{:?}: {stderr}", output.status);
        stderr
    }
}

const SESSION: &str = "019d7a10-4c2e-7b31-9a55-0c0de0000001";

fn handbook() -> Handbook {
    let hb = Handbook::new();
    hb.update(&fixtures().join("codex-failure-fix"));
    hb
}

/// The first `MEMORY.md:N-M` reference of an answer.
fn memory_reference(text: &str) -> String {
    let start = text.find("MEMORY.md:").unwrap_or_else(|| panic!("no MEMORY.md reference in:\n{text}"));
    text[start..].split([' ', '\n']).next().unwrap().to_string()
}

#[test]
fn the_tools_are_listed_with_how_to_use_and_cite_them() {
    let hb = handbook();
    let mut server = Server::start(&hb, &[]);
    let tools = server.request("tools/list", json!({}));
    let tools = tools["result"]["tools"].as_array().unwrap().clone();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["list", "note", "read", "search"]);
    let search = tools.iter().find(|t| t["name"] == "search").unwrap();
    assert!(search["description"].as_str().unwrap().contains("<handbook-citation>"), "{search}");
    assert_eq!(search["inputSchema"]["required"], json!(["query"]), "{search}");
    assert!(search["inputSchema"]["properties"]["in"].is_object(), "{search}");
    let limit = &search["inputSchema"]["properties"]["limit"];
    assert_eq!((&limit["type"], &limit["format"]), (&json!("integer"), &Value::Null), "no nonstandard format: {limit}");
    let read = tools.iter().find(|t| t["name"] == "read").unwrap();
    assert!(read["description"].as_str().unwrap().contains("MEMORY.md:12-40"), "{read}");
    assert_eq!(server.stop(), "", "nothing on stderr without -v");
}

#[test]
fn search_results_carry_the_reference_and_sessions_to_read_and_cite() {
    let hb = handbook();
    let mut server = Server::start(&hb, &[]);
    let (error, found) = server.call("search", json!({"query": "clippy all-targets", "limit": 3}));
    assert!(!error, "{found}");
    assert!(found.contains("[1] ") && found.contains(&format!("session {SESSION}")), "{found}");
    assert!(found.contains("<handbook-citation>"), "{found}");
    let reference = memory_reference(&found);

    // The reference reads back as exactly those lines; one line of it as its task group.
    let (error, lines) = server.call("read", json!({"reference": reference}));
    assert!(!error && lines.starts_with(&format!("{reference}\n")), "{lines}");
    let first_line = reference.trim_start_matches("MEMORY.md:").split('-').next().unwrap().to_string();
    let (error, group) = server.call("read", json!({"reference": format!("MEMORY.md:{first_line}")}));
    assert!(!error, "{group}");
    assert!(group.starts_with("MEMORY.md:1-") && group.contains("# Task Group: github.com/acme/parser"), "{group}");
    assert!(group.contains(&format!("session ids: {SESSION}\n")), "{group}");

    // A session id reads its rollout summary.
    let (error, rollout) = server.call("read", json!({"reference": SESSION}));
    assert!(!error && rollout.starts_with("rollout_summaries/2026-"), "{rollout}");
    assert!(rollout.contains(&format!("session_id: {SESSION}")), "{rollout}");

    let (error, outline) = server.call("list", json!({}));
    assert!(!error, "{outline}");
    assert!(outline.contains("  Task Group: github.com/acme/parser\n"), "{outline}");
    assert!(outline.contains(&format!("session {SESSION}")), "{outline}");
    let (error, nothing) = server.call("search", json!({"query": "zebracorn"}));
    assert!(!error && nothing.starts_with("no results for \"zebracorn\""), "{nothing}");
    assert_eq!(server.stop(), "");
}

#[cfg(unix)]
#[test]
fn references_out_of_the_handbook_are_refused() {
    let hb = handbook();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.md"), "OUTSIDE-THE-HANDBOOK\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), hb.home.path().join("rollout_summaries/link.md"))
        .unwrap();
    let mut server = Server::start(&hb, &[]);
    let absolute = outside.path().join("secret.md").display().to_string();
    for (reference, says) in [
        ("../../etc/passwd", "may not leave the handbook"),
        (absolute.as_str(), "not absolute paths"),
        (".handbook/sources.json", "is not a handbook file"),
        ("rollout_summaries/link.md", "is a symbolic link"),
        ("MEMORY.md:999", "past the end"),
    ] {
        let (error, text) = server.call("read", json!({"reference": reference}));
        assert!(error, "{reference} was read: {text}");
        assert!(text.contains(says), "{reference}: {text}");
        assert!(!text.contains("OUTSIDE-THE-HANDBOOK"), "{text}");
    }
    let (error, text) = server.call("search", json!({"query": "x", "in": "memory,elsewhere"}));
    assert!(error && text.contains("unknown place to search \"elsewhere\""), "{text}");
    server.stop();
}

#[test]
fn a_note_is_written_redacted_and_found() {
    let hb = handbook();
    let mut server = Server::start(&hb, &[]);
    let token = format!("ghp_{}", "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lm1Nb2V".get(..36).unwrap());
    let (error, text) =
        server.call("note", json!({"text": format!("The staging deploy token is {token}; it needs the VPN.")}));
    assert!(!error, "{text}");
    assert!(
        text.contains("note written: extensions/ad_hoc/notes/2026-11-29T12-00-00-") && text.contains("(github)"),
        "{text}"
    );
    assert!(!text.contains(&token), "{text}");
    let notes: Vec<_> =
        fs::read_dir(hb.home.path().join("extensions/ad_hoc/notes")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    let written = fs::read_to_string(&notes[0]).unwrap();
    assert!(written.contains("[REDACTED:github]; it needs the VPN.") && !written.contains(&token), "{written}");
    // With the built-in engine the note is taken in at once, as `handbook note` does.
    assert!(text.contains("the note is in the summary now"), "{text}");
    let summary = fs::read_to_string(hb.home.path().join("memory_summary.md")).unwrap();
    assert!(summary.contains("it needs the VPN"), "{summary}");
    let (error, found) = server.call("search", json!({"query": "staging VPN", "in": "notes"}));
    assert!(!error && found.contains("[1] extensions/ad_hoc/notes/2026-11-29T12-00-00-"), "{found}");
    let (error, empty) = server.call("note", json!({"text": "  "}));
    assert!(error && empty.contains("the note is empty"), "{empty}");
    hb.assert_nowhere(&token);
    server.stop();
}

#[test]
fn reads_go_on_while_another_run_holds_the_lock_and_a_note_says_it_waited() {
    let hb = handbook();
    let lock = fs::OpenOptions::new().write(true).open(hb.home.path().join(".handbook/lock")).unwrap();
    lock.try_lock().unwrap();
    let mut server = Server::start(&hb, &["--wait", "0.2"]);
    let (error, found) = server.call("search", json!({"query": "clippy"}));
    assert!(!error && found.contains("[1] "), "{found}");
    let (error, text) = server.call("note", json!({"text": "use the VPN"}));
    assert!(error, "{text}");
    assert!(text.contains("the note was not written: another handbook run holds the workspace lock"), "{text}");
    drop(lock);
    let (error, text) = server.call("note", json!({"text": "use the VPN"}));
    assert!(!error, "{text}");
    server.stop();
}

#[test]
fn files_are_escaped_and_long_answers_cut() {
    let hb = handbook();
    let notes = hb.home.path().join("extensions/ad_hoc/notes");
    fs::create_dir_all(&notes).unwrap();
    fs::write(notes.join("2026-11-29T10-00-00-ansi.md"), "# Hand written\n\nclear \u{1b}[2J screen\n").unwrap();
    fs::write(notes.join("2026-11-29T11-00-00-long.md"), "a long line of the note\n".repeat(2000)).unwrap();
    let mut server = Server::start(&hb, &[]);
    let (error, text) =
        server.call("read", json!({"reference": "extensions/ad_hoc/notes/2026-11-29T10-00-00-ansi.md"}));
    assert!(!error && text.contains("clear \\u{1b}[2J screen") && !text.contains('\u{1b}'), "{text:?}");
    let (error, text) =
        server.call("read", json!({"reference": "extensions/ad_hoc/notes/2026-11-29T11-00-00-long.md"}));
    assert!(!error, "{text}");
    assert!(text.chars().count() < 20_200, "{} characters", text.chars().count());
    assert!(text.contains("\n[cut: ") && text.contains("read fewer lines at a time"), "{}", &text[text.len() - 200..]);
    server.stop();
}

#[test]
fn a_missing_handbook_is_a_tool_error_that_says_what_to_run() {
    let hb = Handbook::new();
    let mut server = Server::start(&hb, &["-v"]);
    for (tool, arguments) in
        [("search", json!({"query": "cargo"})), ("read", json!({"reference": "MEMORY.md"})), ("list", json!({}))]
    {
        let (error, text) = server.call(tool, arguments);
        assert!(
            error && text.contains("no handbook yet in") && text.contains("run `handbook update`"),
            "{tool}: {text}"
        );
    }
    let stderr = server.stop();
    assert!(stderr.contains("handbook mcp: search: failed: no handbook yet"), "{stderr}");
}
