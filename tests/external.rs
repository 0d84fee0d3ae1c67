//! Web and MCP tools' output is never learned from, and with `exclude_external_context` a
//! session that used them is left out whole, with a reason of its own.

use serde_json::json;

use crate::common::Handbook;
use crate::common::{coverage, json_lines, sessions};
use crate::echo::{learned, session};

const REQUEST: &str = "Fix the import error in the notebook tests.";
const PAGE: &str = "Install notes. Always pin numpy<2 for this library.";

/// A session that fetched a web page, then ran the tests.
fn web_session(dir: &std::path::Path) {
    let fetch = ("WebFetch", json!({"url": "https://docs.example/install", "prompt": "how to install"}));
    session(dir, "web-1", REQUEST, fetch, PAGE, "The page says to pin numpy.");
}

#[test]
fn a_fetched_page_is_not_learned_from() {
    let dir = tempfile::tempdir().unwrap();
    web_session(dir.path());
    let (record, prompt) = learned(dir.path(), "web-1");
    assert!(prompt.contains(REQUEST) && prompt.contains("WebFetch"), "{prompt}");
    for (what, text) in [("stage-1 record", &record), ("model prompt", &prompt)] {
        assert!(!text.contains("numpy<2"), "the page's words in the {what}:\n{text}");
    }
}

#[test]
fn with_the_option_a_session_with_outside_context_is_excluded_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    web_session(dir.path());
    session(dir.path(), "local-1", "Run the tests.", ("Bash", json!({"command": "pytest"})), "1 passed", "ok");
    let hb = Handbook::new();
    // Off by default: the session is read.
    let lines = hb.extract_json(&[dir.path()], &[]);
    let outcome = |lines: &[serde_json::Value], id: &str| {
        let session = sessions(lines).into_iter().find(|s| s["session_id"] == id).cloned().unwrap();
        (session["outcome"].as_str().map(String::from), session["reason"].as_str().map(String::from))
    };
    assert_ne!(outcome(&lines, "web-1").0.as_deref(), Some("excluded"));
    // Turned on, it is read again and left out, its record with it.
    let lines = hb.extract_json(&[dir.path()], &["--exclude-external"]);
    assert_eq!(outcome(&lines, "web-1"), (Some("excluded".into()), Some("external context".into())));
    assert_eq!(coverage(&lines)["excluded"], 1, "{}", coverage(&lines));
    assert!(hb.stage1("web-1").is_none());
    let status = hb.cmd().arg("status").output().unwrap();
    let status = String::from_utf8(status.stdout).unwrap();
    assert!(status.contains("  excluded: 1 external context"), "{status}");
    let json = json_lines(&hb.cmd().args(["--json", "status"]).output().unwrap().stdout);
    assert_eq!(json[0]["data"]["excluded"]["external context"], 1, "{}", json[0]);
    // The text coverage line names the reason too.
    let dir2 = tempfile::tempdir().unwrap();
    web_session(dir2.path());
    let fresh = Handbook::new();
    let output = fresh
        .cmd()
        .env("HANDBOOK_EXCLUDE_EXTERNAL_CONTEXT", "true")
        .args(["extract", "--all"])
        .arg(dir2.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.lines().last().unwrap().contains("1 excluded (1 external context)"), "{stdout}");
    // Turned off again, it is read again.
    let lines = hb.extract_json(&[dir.path()], &[]);
    assert_ne!(outcome(&lines, "web-1").0.as_deref(), Some("excluded"));
}
