//! Handbook's own words read back in a later session (the summary, search hits, the workspace
//! files, a pasted summary) are never learned again, while a reply's citation block still
//! counts as use.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::Handbook;

pub const CWD: &str = "/home/dev/webshop";

/// A summary holding a preference and a failure tip that no session of the project said.
const SUMMARY: &str = "v1\n\n## User Profile\n\nLessons from 4 sessions (claude) across 1 project.\n\n## User preferences\n\n- \"We use pnpm, not npm.\" (preference; webshop)\n\n## General Tips\n\n- webshop: `npm test` failed with `npm error Missing script: \"test\"` -> `pnpm vitest run` succeeded instead\n";

/// Search hits with the same lessons.
const HITS: &str = "memory_summary.md:9: - \"We use pnpm, not npm.\" (preference; webshop)\nMEMORY.md:537: - `npm test` failed with `npm error Missing script: \"test\"` -> `pnpm vitest run` succeeded instead (1 session) [Task 1]  (2026-11-22, session 5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001)\n";

/// One Claude Code record of the session `id`, at second `i`.
pub fn record(id: &str, i: usize, kind: &str, content: Value) -> Value {
    json!({
        "type": kind, "uuid": format!("{id}-{i}"), "parentUuid": null, "isSidechain": false,
        "timestamp": format!("2026-11-22T14:00:{i:02}.000Z"), "cwd": CWD, "sessionId": id,
        "message": {"role": kind, "content": content},
    })
}

/// A Claude Code session in `dir`: the user's request, one tool call and its output, then
/// `reply`. `tool` is the call's name and input.
pub fn session(dir: &Path, id: &str, request: &str, tool: (&str, Value), output: &str, reply: &str) {
    let (name, input) = tool;
    let records = [
        record(id, 1, "user", json!(request)),
        record(id, 2, "assistant", json!([{"type": "tool_use", "id": "toolu_1", "name": name, "input": input}])),
        record(id, 3, "user", json!([{"type": "tool_result", "tool_use_id": "toolu_1", "content": output}])),
        record(id, 4, "assistant", json!([{"type": "text", "text": reply}])),
    ];
    let folder = dir.join("projects/-home-dev-webshop");
    fs::create_dir_all(&folder).unwrap();
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    fs::write(folder.join(format!("{id}.jsonl")), text).unwrap();
}

/// A command-line model that keeps every prompt it is given in `dir/prompts.txt` and finds
/// nothing to learn; the `--llm-command` that runs it.
pub fn recording_model(dir: &Path) -> String {
    let script = dir.join("model.sh");
    let prompts = dir.join("prompts.txt");
    let reply = r#"{"raw_memory": "", "rollout_summary": "", "rollout_slug": ""}"#;
    fs::write(&script, format!("#!/bin/sh\ncat >> '{}'\nprintf '%s' '{reply}'\n", prompts.display())).unwrap();
    format!("sh {}", script.display())
}

/// What the built-in extractor kept of session `id` (its stage-1 record as text, empty for a
/// no-op) and what a model was shown of it.
pub fn learned(dir: &Path, id: &str) -> (String, String) {
    let hb = Handbook::new();
    hb.extract_json(&[dir], &[]);
    let record = hb.stage1(id).map(|r| r.to_string()).unwrap_or_default();
    let work = tempfile::tempdir().unwrap();
    let model = Handbook::new();
    model.extract_json(&[dir], &["--engine", "command", "--llm-command", &recording_model(work.path())]);
    let prompt = fs::read_to_string(work.path().join("prompts.txt")).unwrap();
    (record, prompt)
}

fn assert_not_learned(dir: &Path, id: &str, request: &str) {
    let (record, prompt) = learned(dir, id);
    assert!(prompt.contains(request), "the session reached the model: {prompt}");
    for (what, text) in [("stage-1 record", &record), ("model prompt", &prompt)] {
        for lesson in ["We use pnpm", "pnpm vitest run", "Missing script"] {
            assert!(!text.contains(lesson), "{lesson:?} in the {what}:\n{text}");
        }
    }
}

const REQUEST: &str = "Add a unit test for the cart total.";

#[test]
fn a_printed_summary_is_not_learned_again() {
    let dir = tempfile::tempdir().unwrap();
    session(dir.path(), "echo-summary", REQUEST, ("Bash", json!({"command": "handbook summary"})), SUMMARY, "Done.");
    assert_not_learned(dir.path(), "echo-summary", REQUEST);
}

#[test]
fn search_hits_are_not_learned_again() {
    let dir = tempfile::tempdir().unwrap();
    let tool = ("Bash", json!({"command": "handbook search pnpm"}));
    session(dir.path(), "echo-search", REQUEST, tool, HITS, "Done.");
    assert_not_learned(dir.path(), "echo-search", REQUEST);
}

#[test]
fn a_workspace_file_read_back_is_not_learned_again() {
    let dir = tempfile::tempdir().unwrap();
    let tool = ("Bash", json!({"command": "cat ~/.local/share/handbook/memory_summary.md"}));
    session(dir.path(), "echo-cat", REQUEST, tool, SUMMARY, "Done.");
    assert_not_learned(dir.path(), "echo-cat", REQUEST);
    let read = ("Read", json!({"file_path": "/home/dev/.local/share/handbook/memory_summary.md"}));
    let numbered: String = SUMMARY.lines().enumerate().map(|(i, l)| format!("{:>6}→{l}\n", i + 1)).collect();
    session(dir.path(), "echo-read", REQUEST, read, &numbered, "Done.");
    assert_not_learned(dir.path(), "echo-read", REQUEST);
}

#[test]
fn a_summary_pasted_by_the_user_is_not_learned_again() {
    let dir = tempfile::tempdir().unwrap();
    let pasted = format!("This is what you remember:\n\n{SUMMARY}\n{REQUEST}");
    let tool = ("Bash", json!({"command": "ls src"}));
    session(dir.path(), "echo-paste", &pasted, tool, "cart.ts", "Done.");
    assert_not_learned(dir.path(), "echo-paste", REQUEST);
    // The same user typing the preference is learned: the paste is what is left out.
    let own = format!("{REQUEST} We use pnpm, not npm.");
    session(dir.path(), "echo-own", &own, ("Bash", json!({"command": "ls src"})), "cart.ts", "Done.");
    let (record, _) = learned(dir.path(), "echo-own");
    assert!(record.contains("We use pnpm, not npm."), "{record}");
}

#[test]
fn a_citation_block_still_counts_as_use() {
    let dir = tempfile::tempdir().unwrap();
    let reply = "Used the handbook: pnpm it is.\n<handbook-citation>\n<citation_entries>\nMEMORY.md:537-537|note=[pnpm]\n</citation_entries>\n<session_ids>\n5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001\n</session_ids>\n</handbook-citation>";
    session(dir.path(), "echo-cites", REQUEST, ("Bash", json!({"command": "handbook summary"})), SUMMARY, reply);
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let sources = hb.sources();
    let cited: Vec<&Value> = sources["sources"].as_object().unwrap().values().map(|e| &e["cited"]).collect();
    assert_eq!(cited, [&json!({"5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001": 1})]);
    let record = hb.stage1("echo-cites").map(|r| r.to_string()).unwrap_or_default();
    assert!(!record.contains("We use pnpm"), "{record}");
}
