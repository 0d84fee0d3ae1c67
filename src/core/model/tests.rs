//! The prompts and the checks on answers, on string literals.

use super::*;

#[test]
fn a_plain_answer_is_read() {
    let reply = r##"{"raw_memory": "---\nkeywords: pnpm\n---", "rollout_summary": "# Fixed the tests", "rollout_slug": "Fix Tests!"}"##;
    assert_eq!(
        parse_stage_one(reply).unwrap(),
        StageOne::Memory {
            raw_memory: "---\nkeywords: pnpm\n---".to_string(),
            rollout_summary: "# Fixed the tests".to_string(),
            rollout_slug: "fix_tests".to_string(),
        }
    );
}

#[test]
fn a_key_in_the_slug_is_redacted_before_it_is_lowercased() {
    let reply = r#"{"raw_memory": "x", "rollout_summary": "y", "rollout_slug": "deploy AKIAIOSFODNN7EXAMPLE"}"#;
    let StageOne::Memory { rollout_slug, .. } = parse_stage_one(reply).unwrap() else { panic!("no-op") };
    assert!(!rollout_slug.contains("akiaiosfodnn7example"), "{rollout_slug}");
}

#[test]
fn json_is_found_in_prose_and_fences() {
    let reply = "Sure! Here is the JSON:\n```json\n{\"raw_memory\": \"a {brace} \\\"quoted\\\"\", \"rollout_summary\": \"b\", \"rollout_slug\": null}\n```\nDone.";
    let StageOne::Memory { raw_memory, rollout_slug, .. } = parse_stage_one(reply).unwrap() else { panic!("no-op") };
    assert_eq!(raw_memory, "a {brace} \"quoted\"");
    assert_eq!(rollout_slug, "");
    // A broken object before a good one is skipped.
    let reply = "{oops} then {\"raw_memory\": \"x\", \"rollout_summary\": \"y\"}";
    assert!(matches!(parse_stage_one(reply).unwrap(), StageOne::Memory { .. }));
}

#[test]
fn empty_fields_are_a_no_op_and_extra_fields_are_ignored() {
    let reply = r#"{"raw_memory": "", "rollout_summary": "", "rollout_slug": ""}"#;
    assert_eq!(parse_stage_one(reply).unwrap(), StageOne::NoOp);
    let reply = r#"{"raw_memory": "  ", "rollout_summary": "something", "rollout_slug": "", "confidence": 0.9}"#;
    assert_eq!(parse_stage_one(reply).unwrap(), StageOne::NoOp);
    let reply = r#"{"raw_memory": "m", "rollout_summary": "s", "notes": ["extra"]}"#;
    assert!(matches!(parse_stage_one(reply).unwrap(), StageOne::Memory { .. }));
}

#[test]
fn raw_line_breaks_in_strings_are_forgiven() {
    let reply =
        "{\"raw_memory\": \"line one\nline two\tend\", \"rollout_summary\": \"# T\n\nbody\", \"rollout_slug\": \"x\"}";
    let StageOne::Memory { raw_memory, rollout_summary, .. } = parse_stage_one(reply).unwrap() else { panic!("no-op") };
    assert_eq!(raw_memory, "line one\nline two\tend");
    assert_eq!(rollout_summary, "# T\n\nbody");
}

#[test]
fn malformed_answers_say_what_is_wrong() {
    assert_eq!(parse_stage_one("").unwrap_err().to_string(), "the answer is empty");
    assert!(
        parse_stage_one("I cannot help with that.")
            .unwrap_err()
            .to_string()
            .starts_with("the answer holds no JSON object")
    );
    assert_eq!(
        parse_stage_one(r#"{"raw_memory": "m"}"#).unwrap_err().to_string(),
        "the answer has no `rollout_summary`"
    );
    assert_eq!(
        parse_stage_one(r#"{"raw_memory": 3, "rollout_summary": "s"}"#).unwrap_err().to_string(),
        "`raw_memory` is a number, not a string"
    );
    assert!(parse_stage_one(r#"{"raw_memory": "m", "rollout_summary": "s""#).is_err());
    assert!(
        parse_stage_one(r#"{"raw_memory": "m" "rollout_summary": "s"}"#)
            .unwrap_err()
            .to_string()
            .starts_with("the answer's JSON does not parse")
    );
    assert_eq!(
        parse_stage_one("[1, 2]").unwrap_err().to_string(),
        "the answer holds no JSON object (it begins \"[1, 2]\")"
    );
}

#[test]
fn answers_are_redacted_and_clipped() {
    let big = "line of text\n".repeat(5000);
    let reply = serde_json::json!({
        "raw_memory": format!("key sk-abc123def456ghi789jkl012\n{big}"),
        "rollout_summary": "ok",
        "rollout_slug": "x"
    })
    .to_string();
    let StageOne::Memory { raw_memory, .. } = parse_stage_one(&reply).unwrap() else { panic!("no-op") };
    assert!(raw_memory.starts_with("key [REDACTED:openai]\n"));
    assert!(raw_memory.len() <= MAX_ANSWER_FIELD + 40 && raw_memory.ends_with("bytes cut …]"));
}

#[test]
fn every_prompt_carries_the_marker() {
    let template = "path {{ rollout_path }} in {{ cwd }}:\n{{ transcript }}";
    let prompt = stage_one_prompt(
        "system",
        template,
        &StageOneInput {
            rollout_path: "/t.jsonl",
            cwd: "/w",
            agent: "codex",
            project: "/w",
            transcript: "[line 1] user: hi",
        },
    );
    assert!(prompt.user.starts_with(PROMPT_MARKER));
    assert!(prompt.user.ends_with("path /t.jsonl in /w:\n[line 1] user: hi"));
    assert!(prompt.as_text().contains(PROMPT_MARKER));
    assert_eq!(prompt.schema["required"], serde_json::json!(["rollout_summary", "rollout_slug", "raw_memory"]));
}

#[test]
fn the_transcript_budget_leaves_room() {
    assert_eq!(transcript_budget(100, "", ""), 256);
    let budget = transcript_budget(32_000, "system words", "input words");
    assert!(budget < 22_400 && budget > 22_000, "{budget}");
}

#[test]
fn facts_come_from_the_models_raw_memory() {
    let raw = "---\ndescription: d\ntask_outcome: partial\nkeywords: pnpm, `vitest`, Cart\n---\n### Task 1: Fix the cart total\ntask_outcome: success\n### Task 2: Add a test\ntask_outcome: fail\n";
    let facts = facts_from_answer(raw, "# ignored");
    let tasks: Vec<(&str, Outcome)> = facts.tasks.iter().map(|t| (t.title.as_str(), t.outcome)).collect();
    assert_eq!(tasks, [("Fix the cart total", Outcome::Success), ("Add a test", Outcome::Fail)]);
    assert_eq!(facts.keywords, ["pnpm", "vitest", "cart"]);
    assert_eq!(facts.outcome, Outcome::Partial);
    let bare = facts_from_answer("just prose", "# Deployed the app\n\nmore");
    assert_eq!(bare.tasks[0].title, "Deployed the app");
    assert_eq!(bare.tasks[0].outcome, Outcome::Uncertain);
}

#[test]
fn an_answer_cut_off_mid_object_is_recognised_even_with_a_whole_object_quoted_inside() {
    assert!(opens_with_complete_object("Sure: {\"a\": \"{}\"} and more text that rambles"));
    assert!(!opens_with_complete_object("{\"rollout_summary\": \"uses {\\\"x\\\": 1} in the config and then"));
    assert!(!opens_with_complete_object("no object at all"));
}
