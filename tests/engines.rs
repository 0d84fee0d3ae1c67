//! Model engines against a stub server in this process (and a script for the command
//! engine): the JSON-mode fallbacks, retries, timeouts, malformed answers, no-ops, the
//! Anthropic shape, failures kept for a later run, redaction before anything is sent, the
//! recursion marker, and incremental model consolidation.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Handbook, NOW, copy_tree, fixtures, json_lines};
use crate::stub::{Reply, Request, Stub};

/// A stage-one answer with lessons.
fn answer(summary: &str) -> String {
    json!({
        "raw_memory": format!("---\ndescription: {summary}\ntask_outcome: success\nkeywords: model, lessons\n---\n### Task 1: {summary}\ntask_outcome: success\nReusable knowledge:\n- learned by the model"),
        "rollout_summary": format!("# {summary}\n\nRollout context: test.\n"),
        "rollout_slug": "model-summary"
    })
    .to_string()
}

const NO_OP: &str = r#"{"raw_memory": "", "rollout_summary": "", "rollout_slug": ""}"#;

/// One fixture case copied to a temporary folder; its transcripts.
fn case(name: &str) -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join(name), dir.path());
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir.path())
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .map(|e| e.path().to_path_buf())
        .collect();
    files.sort();
    (dir, files)
}

/// `extract --all --json` with the openai engine at `url`; the JSON lines and stderr.
fn extract_openai(hb: &Handbook, url: &str, sources: &[&Path], extra: &[&str]) -> (i32, Vec<Value>, String) {
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .env("HANDBOOK_RETRY_DELAY", "0.01")
        .env("OPENAI_API_KEY", "sk-test-key-not-a-real-one-1234567890")
        .args(["--json", "extract", "--all", "--engine", "openai", "--model", "test-model", "--base-url", url])
        .args(extra)
        .args(sources)
        .output()
        .unwrap();
    (output.status.code().unwrap(), json_lines(&output.stdout), String::from_utf8_lossy(&output.stderr).into_owned())
}

fn sessions(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l["type"] == "session").map(|l| &l["data"]).collect()
}

fn totals(lines: &[Value]) -> &Value {
    &lines.iter().find(|l| l["type"] == "totals").expect("totals")["data"]
}

#[test]
fn a_model_answer_becomes_the_stage_one_record() {
    let stub = Stub::start(|_, _| Reply::chat(&answer("Fixed the cart total")));
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    let (code, lines, stderr) = extract_openai(&hb, &format!("{}/v1", stub.url), &[dir.path()], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(sessions(&lines)[0]["outcome"], "extracted");
    let record = hb.stage1("5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001").unwrap();
    assert!(record["raw_memory"].as_str().unwrap().contains("learned by the model"));
    assert_eq!(record["rollout_summary"], "# Fixed the cart total\n\nRollout context: test.");
    assert_eq!(record["rollout_slug"], "model-summary");
    // The built-in facts stay alongside, for consolidation.
    assert!(!record["facts"]["tasks"].as_array().unwrap().is_empty());

    let requests = stub.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), Some("Bearer sk-test-key-not-a-real-one-1234567890"));
    let body = request.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["max_tokens"], 8000, "the answer is bounded (a quarter of the default context)");
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["required"],
        json!(["rollout_summary", "rollout_slug", "raw_memory"])
    );
    let user = request.user_message();
    assert!(user.starts_with("<handbook-internal-prompt/>"), "{user}");
    assert!(user.contains("pnpm vitest run") && user.contains("[line "), "the transcript is missing:\n{user}");
    assert!(!body.to_string().contains("CANARY"), "filtered text reached the model");
    // The key is never written anywhere.
    hb.assert_nowhere("sk-test-key-not-a-real-one");
}

#[test]
fn secrets_are_redacted_before_anything_is_sent() {
    let stub = Stub::start(|_, _| Reply::chat(&answer("Deploy")));
    let (dir, _) = case("secrets");
    let hb = Handbook::new();
    let (code, _, stderr) = extract_openai(&hb, &stub.url, &[dir.path()], &[]);
    assert_eq!(code, 0, "{stderr}");
    let secrets = fs::read_to_string(fixtures().join("secrets/secrets.txt")).unwrap();
    let sent: String = stub.requests().iter().map(|r| r.body.clone()).collect();
    assert!(sent.contains("[REDACTED:"), "the secrets' lines were not sent at all");
    for secret in secrets.lines().filter(|s| !s.trim().is_empty()) {
        assert!(!sent.contains(secret), "{secret} was sent to the model");
    }
}

#[test]
fn a_rejected_json_schema_falls_back_to_json_object_and_is_remembered() {
    let stub = Stub::start(|request, _| match request.json()["response_format"]["type"].as_str() {
        Some("json_schema") => Reply::error(400, "response_format json_schema is not supported"),
        _ => Reply::chat(&answer("Fell back")),
    });
    let (dir, _) = case("claude-preferences");
    let (dir2, _) = case("codex-failure-fix");
    let hb = Handbook::new();
    let (code, lines, stderr) = extract_openai(&hb, &stub.url, &[dir.path(), dir2.path()], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(totals(&lines)["coverage"]["extracted"], 2);
    let formats: Vec<String> = stub
        .requests()
        .iter()
        .map(|r| r.json()["response_format"]["type"].as_str().unwrap_or("none").to_string())
        .collect();
    // One rejection, then json_object (with the schema) for both sessions.
    assert_eq!(formats, ["json_schema", "json_object", "json_object"]);
    assert!(stub.requests()[1].json()["response_format"]["schema"]["properties"]["raw_memory"].is_object());
}

#[test]
fn plain_text_is_the_last_fallback() {
    let stub = Stub::start(|request, _| {
        if request.json().get("response_format").is_some() {
            Reply::error(400, "unsupported parameter: response_format")
        } else {
            Reply::chat(&format!("Here is what I found:\n```json\n{}\n```\nHope this helps.", answer("From prose")))
        }
    });
    let (dir, _) = case("claude-preferences");
    let (dir2, _) = case("codex-failure-fix");
    let hb = Handbook::new();
    let (code, _, stderr) = extract_openai(&hb, &stub.url, &[dir.path(), dir2.path()], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stub.requests().len(), 4, "three tries for the first session, one for the second");
    assert!(stub.requests()[3].json().get("response_format").is_none());
    assert_eq!(
        hb.stage1("5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001").unwrap()["rollout_summary"],
        "# From prose\n\nRollout context: test."
    );
}

#[test]
fn rate_limits_wait_for_retry_after_then_succeed() {
    let stub = Stub::start(|_, index| match index {
        0 => Reply::error(429, "slow down").with_header("retry-after", "1"),
        _ => Reply::chat(&answer("After waiting")),
    });
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    let started = Instant::now();
    let (code, lines, stderr) = extract_openai(&hb, &stub.url, &[dir.path()], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(totals(&lines)["coverage"]["extracted"], 1);
    assert_eq!(stub.requests().len(), 2);
    assert!(started.elapsed() >= Duration::from_secs(1), "Retry-After was not honoured");
}

#[test]
fn a_rate_limit_longer_than_handbook_waits_stops_the_run() {
    let stub = Stub::start(|_, _| Reply::error(429, "quota exhausted").with_header("retry-after", "3600"));
    let (dir, _) = case("claude-preferences");
    let (dir2, _) = case("codex-failure-fix");
    let hb = Handbook::new();
    let (code, lines, stderr) = extract_openai(&hb, &stub.url, &[dir.path(), dir2.path()], &[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("429") && stderr.contains("asks to wait 3600 s"), "{stderr}");
    assert_eq!(stub.requests().len(), 1, "no retry before the hour is up, and no other session tried");
    assert_eq!(totals(&lines)["coverage"]["deferred"], 2, "sessions wait for the next run without using a try");
}

#[test]
fn server_errors_are_retried_with_backoff() {
    let stub = Stub::start(|_, index| match index {
        0 | 1 => Reply::error(500, "internal error"),
        _ => Reply::chat(&answer("Third time")),
    });
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    let (code, lines, stderr) = extract_openai(&hb, &stub.url, &[dir.path()], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(totals(&lines)["coverage"]["extracted"], 1);
    assert_eq!(stub.requests().len(), 3);
}

#[test]
fn a_failed_session_keeps_its_record_and_is_tried_again_later() {
    let (dir, files) = case("claude-preferences");
    let hb = Handbook::new();
    // First the built-in engine, so the session has a record to keep.
    hb.extract_json(&[dir.path()], &[]);
    let before = hb.stage1("5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001").unwrap();

    let stub = Stub::start(|_, _| Reply::error(503, "overloaded"));
    // A changed transcript is read again.
    let mut text = fs::read_to_string(&files[0]).unwrap();
    text.push('\n');
    fs::write(&files[0], &text).unwrap();
    let (code, lines, stderr) = extract_openai(&hb, &stub.url, &[dir.path()], &["--max-retries", "1"]);
    assert_eq!(code, 0, "a failed session does not fail the run: {stderr}");
    let coverage = &totals(&lines)["coverage"];
    assert_eq!(coverage["failed"], 1);
    let rerun = hb
        .cmd()
        .env("HANDBOOK_RETRY_DELAY", "0")
        .args(["extract", "--all", "--engine", "openai", "--model", "m", "--base-url", &stub.url, "--max-retries", "0"])
        .arg(dir.path())
        .output()
        .unwrap();
    let line = String::from_utf8_lossy(&rerun.stdout).into_owned();
    assert!(line.contains("answered 503: overloaded"), "the coverage line does not say why:\n{line}");
    assert_eq!(stub.requests().len(), 3, "two tries, then one");
    assert_eq!(hb.stage1("5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001").unwrap(), before, "the earlier record was lost");
    let entry = &hb.sources()["sources"][files[0].to_str().unwrap()];
    assert_eq!(entry["state"], "failed");
    assert_eq!(entry["tries"], 2);
    assert!(entry["last_error"].as_str().unwrap().starts_with("model: "), "{entry}");
    // A touch is not a change: the count goes on.
    fs::File::options().write(true).open(&files[0]).unwrap().set_modified(std::time::SystemTime::now()).unwrap();
    let (_, _, _) = extract_openai(&hb, &stub.url, &[dir.path()], &["--max-retries", "0"]);
    assert_eq!(hb.sources()["sources"][files[0].to_str().unwrap()]["tries"], 3);
    // A changed transcript starts the count again.
    text.push('\n');
    fs::write(&files[0], &text).unwrap();
    let (_, _, _) = extract_openai(&hb, &stub.url, &[dir.path()], &["--max-retries", "0"]);
    assert_eq!(hb.sources()["sources"][files[0].to_str().unwrap()]["tries"], 1);
}

#[test]
fn a_hung_server_times_out_and_fails_only_that_session() {
    let stub = Stub::start(|request, _| {
        if request.user_message().contains("vitest") {
            Reply::chat(&answer("Too late")).after(Duration::from_secs(30))
        } else {
            Reply::chat(&answer("On time"))
        }
    });
    let (dir, _) = case("claude-preferences");
    let (dir2, _) = case("codex-failure-fix");
    let hb = Handbook::new();
    let started = Instant::now();
    let (code, lines, stderr) = extract_openai(&hb, &stub.url, &[dir.path(), dir2.path()], &["--timeout", "0.5"]);
    assert_eq!(code, 0, "{stderr}");
    let coverage = &totals(&lines)["coverage"];
    assert_eq!((coverage["failed"].as_u64(), coverage["extracted"].as_u64()), (Some(1), Some(1)), "{coverage}");
    let failed = sessions(&lines).into_iter().find(|s| s["outcome"] == "failed").unwrap().clone();
    assert!(failed["reason"].as_str().unwrap().contains("within the timeout"), "{failed}");
    assert!(started.elapsed() < Duration::from_secs(15), "the timeout was not applied");
}

#[test]
fn malformed_answers_fail_the_session_and_extra_fields_do_not() {
    let stub = Stub::start(|request, _| {
        if request.user_message().contains("vitest") {
            Reply::chat("{\"raw_memory\": \"unterminated, with ghp_abcdefghijklmnopqrstuvwxyz0123456789")
        } else {
            let mut value: Value = serde_json::from_str(&answer("With extras")).unwrap();
            value["confidence"] = json!(0.8);
            value["tags"] = json!(["a"]);
            Reply::chat(&value.to_string())
        }
    });
    let (dir, _) = case("claude-preferences");
    let (dir2, _) = case("codex-failure-fix");
    let hb = Handbook::new();
    let (code, lines, stderr) = extract_openai(&hb, &stub.url, &[dir.path(), dir2.path()], &[]);
    assert_eq!(code, 0, "{stderr}");
    let failed = sessions(&lines).into_iter().find(|s| s["outcome"] == "failed").expect("a failed session").clone();
    let reason = failed["reason"].as_str().unwrap();
    assert!(reason.contains("malformed answer") && reason.contains("unterminated"), "{failed}");
    assert!(reason.ends_with("(asked twice)"), "{reason}");
    assert_eq!(stub.requests().iter().filter(|r| r.user_message().contains("vitest")).count(), 2);
    assert!(!reason.contains("ghp_abc"), "a secret in the answer reached the report: {reason}");
    hb.assert_nowhere("ghp_abc");
    assert!(
        hb.stage1("019d7a10-4c2e-7b31-9a55-0c0de0000001").unwrap()["rollout_summary"]
            .as_str()
            .unwrap()
            .contains("With extras")
    );
}

#[test]
fn a_no_op_answer_leaves_no_record() {
    let stub = Stub::start(|_, _| Reply::chat(NO_OP));
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    let (code, lines, stderr) = extract_openai(&hb, &stub.url, &[dir.path()], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(sessions(&lines)[0]["outcome"], "no-op");
    assert!(hb.stage1("5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001").is_none());
}

#[test]
fn a_refused_key_stops_the_run_and_records_nothing() {
    // Some proxies quote the key they refused.
    let stub = Stub::start(|_, _| Reply::error(401, "invalid api key sk-test-key-not-a-real-one-1234567890"));
    let (dir, _) = case("claude-preferences");
    let (dir2, _) = case("codex-failure-fix");
    let hb = Handbook::new();
    let (code, lines, stderr) = extract_openai(&hb, &stub.url, &[dir.path(), dir2.path()], &[]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("extraction stopped") && stderr.contains("401") && stderr.contains("check the API key"),
        "{stderr}"
    );
    assert!(!stderr.contains("sk-test-key"), "the key was printed: {stderr}");
    hb.assert_nowhere("sk-test-key");
    assert_eq!(stub.requests().len(), 1, "one refusal is enough");
    assert_eq!(totals(&lines)["coverage"]["deferred"], 2);
    let sources = hb.sources();
    assert!(sources["sources"].as_object().is_none_or(|s| s.values().all(|e| e["state"] != "failed")));
}

#[test]
fn a_dead_server_is_named() {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    let (code, _, stderr) =
        extract_openai(&hb, &format!("http://127.0.0.1:{port}/v1"), &[dir.path()], &["--max-retries", "1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains(&format!("cannot reach the model server at http://127.0.0.1:{port}/v1")), "{stderr}");
}

#[test]
fn the_input_token_allowance_defers_the_rest() {
    let stub = Stub::start(|_, _| Reply::chat(&answer("One")));
    // Path order puts the Codex session first; it is the older one, so it is the one that waits.
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("codex-failure-fix"), &dir.path().join("a"));
    copy_tree(&fixtures().join("claude-preferences"), &dir.path().join("b"));
    let old =
        dir.path().join("a/sessions/2026/11/20/rollout-2026-11-20T09-00-00-019d7a10-4c2e-7b31-9a55-0c0de0000001.jsonl");
    let a_day_ago = std::time::SystemTime::now() - Duration::from_secs(86_400);
    fs::File::options().write(true).open(&old).unwrap().set_modified(a_day_ago).unwrap();
    let hb = Handbook::new();
    let (code, lines, stderr) = extract_openai(&hb, &stub.url, &[dir.path()], &["--max-input-tokens-per-run", "10"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stub.requests().len(), 1);
    assert!(stub.requests()[0].user_message().contains("vitest"), "the newer (Claude) session goes first");
    assert_eq!(totals(&lines)["coverage"]["deferred"], 1);
}

#[test]
fn the_anthropic_engine_speaks_the_messages_api() {
    let stub = Stub::start(|_, _| Reply::messages(&answer("From Claude")));
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    let output = hb
        .cmd()
        .env("ANTHROPIC_API_KEY", "sk-ant-test-0000000000000000000000")
        .args(["extract", "--all", "--engine", "anthropic", "--model", "claude-test", "--base-url", &stub.url])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let request = &stub.requests()[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some("sk-ant-test-0000000000000000000000"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    let body = request.json();
    assert_eq!(body["model"], "claude-test");
    assert!(body["max_tokens"].as_u64().unwrap() >= 1024);
    assert!(body["system"].as_str().unwrap().contains("minimum") || body["system"].as_str().unwrap().contains("no-op"));
    assert!(request.user_message().starts_with("<handbook-internal-prompt/>"));
    assert_eq!(
        hb.stage1("5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001").unwrap()["rollout_summary"],
        "# From Claude\n\nRollout context: test."
    );
    // Without a key the engine says what is missing.
    let output =
        hb.cmd().args(["extract", "--all", "--engine", "anthropic", "--model", "m"]).arg(dir.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("needs an API key in $ANTHROPIC_API_KEY"));
}

#[test]
fn the_anthropic_engine_retries_overload_and_reads_no_ops_and_malformed_answers() {
    let stub = Stub::start(|request, index| match index {
        0 => Reply::error(529, r#"{"type":"error","error":{"type":"overloaded_error"}}"#),
        _ if request.user_message().contains("vitest") => Reply::messages(NO_OP),
        _ => Reply::messages("I could not decide."),
    });
    let (dir, _) = case("claude-preferences");
    let (dir2, _) = case("codex-failure-fix");
    let hb = Handbook::new();
    let output = hb
        .cmd()
        .env("ANTHROPIC_API_KEY", "sk-ant-test-0000000000000000000000")
        .env("HANDBOOK_RETRY_DELAY", "0")
        .args([
            "--json",
            "extract",
            "--all",
            "--engine",
            "anthropic",
            "--model",
            "claude-test",
            "--base-url",
            &stub.url,
        ])
        .arg(dir.path())
        .arg(dir2.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let lines = json_lines(&output.stdout);
    let coverage = &totals(&lines)["coverage"];
    assert_eq!((coverage["no_op"].as_u64(), coverage["failed"].as_u64()), (Some(1), Some(1)), "{coverage}");
    assert_eq!(stub.requests().len(), 4, "the overloaded request tried again, the malformed answer asked twice");
    let failed = sessions(&lines).into_iter().find(|s| s["outcome"] == "failed").unwrap().clone();
    assert!(failed["reason"].as_str().unwrap().contains("malformed answer"), "{failed}");
}

/// A fake agent CLI: it answers from a file, and like a real agent it writes a transcript of
/// the prompt it was given (generic format) into `sessions/`.
fn fake_agent(dir: &Path, reply: &str) -> String {
    fs::write(dir.join("reply.json"), reply).unwrap();
    fs::create_dir_all(dir.join("sessions")).unwrap();
    let script = r#"#!/bin/sh
n=$(ls "$DIR/sessions" | wc -l | tr -d ' ')
content=$(sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' -e 's/\r//g' | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n/\\n/g')
printf '{"role":"user","content":"%s","timestamp":"2026-11-28T10:00:00Z","session_id":"fake-%s","cwd":"/w"}\n' "$content" "$n" > "$DIR/sessions/run-$n.jsonl"
printf '{"role":"assistant","content":"done","timestamp":"2026-11-28T10:00:01Z"}\n' >> "$DIR/sessions/run-$n.jsonl"
cat "$DIR/reply.json"
"#;
    let path = dir.join("fake-llm.sh");
    fs::write(&path, script.replace("$DIR", &dir.display().to_string())).unwrap();
    format!("sh {}", path.display())
}

#[test]
fn the_command_engine_runs_a_command_line_llm_and_never_learns_from_itself() {
    let work = tempfile::tempdir().unwrap();
    let command = fake_agent(work.path(), &answer("From the command"));
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    let run = |sources: &Path| {
        hb.cmd()
            .args(["--json", "extract", "--all", "--engine", "command", "--llm-command", &command])
            .arg(sources)
            .output()
            .unwrap()
    };
    let output = run(dir.path());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(
        hb.stage1("5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001").unwrap()["rollout_summary"],
        "# From the command\n\nRollout context: test."
    );
    // The agent left a transcript of handbook's prompt: it is recognised and excluded.
    let output = run(&work.path().join("sessions"));
    let lines = json_lines(&output.stdout);
    let session = &sessions(&lines)[0];
    assert_eq!(
        (session["outcome"].as_str(), session["reason"].as_str()),
        (Some("excluded"), Some("handbook's own prompt"))
    );
    assert!(hb.stage1("fake-0").is_none());
}

#[test]
fn a_failing_command_fails_the_session_with_its_stderr() {
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    let output = hb
        .cmd()
        .args([
            "--json",
            "extract",
            "--all",
            "--engine",
            "command",
            "--llm-command",
            "echo 'model not loaded' >&2; exit 1",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(output.status.success());
    let lines = json_lines(&output.stdout);
    let reason = sessions(&lines)[0]["reason"].as_str().unwrap().to_string();
    assert!(reason.contains("exit status: 1") && reason.ends_with("model not loaded"), "{reason}");
    let slow = hb
        .cmd()
        .args(["--json", "extract", "--all", "--engine", "command", "--timeout", "0.3", "--llm-command", "sleep 20"])
        .arg(dir.path())
        .output()
        .unwrap();
    let lines = json_lines(&slow.stdout);
    assert!(sessions(&lines)[0]["reason"].as_str().unwrap().contains("gave no answer within 0.3 s"));
}

/// A stub model for consolidation: group calls get lessons naming the group's first task;
/// the summary call gets a profile. Every request is kept for the test to inspect.
fn consolidation_stub(fail_summary: bool) -> Stub {
    Stub::start(move |request: &Request, _| {
        let user = request.user_message();
        if user.contains("Rewrite the lessons of one task group") {
            let project = user.split('`').nth(1).unwrap_or("?").to_string();
            Reply::chat(
                &json!({
                    "user_preferences": [format!("\"model preference for {project}\" [Task 1]")],
                    "reusable_knowledge": [format!("model knowledge for {project} [Task 1]"), "unsupported [Task 99]"],
                    "failures": []
                })
                .to_string(),
            )
        } else if fail_summary {
            Reply::chat("no json at all")
        } else {
            Reply::chat(
                &json!({
                    "user_profile": "A developer the model describes.",
                    "user_preferences": ["model-wide preference"],
                    "general_tips": ["webshop: model tip"]
                })
                .to_string(),
            )
        }
    })
}

fn consolidate_openai(hb: &Handbook, url: &str) -> std::process::Output {
    hb.cmd()
        .env("HANDBOOK_NOW", NOW)
        .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
        .args(["consolidate", "--force", "--engine", "openai", "--model", "test-model", "--base-url", url])
        .output()
        .unwrap()
}

#[test]
fn model_consolidation_rewrites_only_the_touched_groups() {
    let (dir, _) = case("claude-preferences");
    let (dir2, _) = case("codex-failure-fix");
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let stub = consolidation_stub(false);
    let output = consolidate_openai(&hb, &stub.url);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(memory.contains("- \"model preference for /home/dev/webshop\" [Task 1]"), "{memory}");
    assert!(memory.contains("model knowledge for /home/dev/webshop [Task 1]"));
    assert!(!memory.contains("[Task 99]") && !memory.contains("unsupported"), "an invented task survived");
    assert!(memory.contains("### rollout_summary_files"), "the layout is handbook's");
    let summary = fs::read_to_string(hb.home.path().join("memory_summary.md")).unwrap();
    assert!(summary.starts_with("v1\n\n## User Profile\n\nA developer the model describes.\n"), "{summary}");
    assert!(summary.contains("- model-wide preference") && summary.contains("- webshop: model tip"));
    assert!(summary.contains("## What's in Memory\n\n### /home/dev/webshop"));
    assert_eq!(stub.requests().len(), 2, "one group and the summary");
    for request in stub.requests() {
        assert!(request.user_message().starts_with("<handbook-internal-prompt/>"));
    }

    // A second project arrives: only its group is sent; the first keeps the model's lessons.
    hb.extract_json(&[dir2.path()], &[]);
    let stub = consolidation_stub(false);
    let output = consolidate_openai(&hb, &stub.url);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let groups: Vec<String> = stub
        .requests()
        .iter()
        .map(|r| r.user_message())
        .filter(|u| u.contains("Rewrite the lessons of one task group"))
        .map(|u| u.split('`').nth(1).unwrap().to_string())
        .collect();
    assert_eq!(groups, ["github.com/acme/parser"]);
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(memory.contains("model preference for /home/dev/webshop"), "the untouched group lost its lessons");
    assert!(memory.contains("model preference for github.com/acme/parser"));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("openai test-model: 1 task group rewritten in 2 calls"), "{text}");
}

#[test]
fn a_failed_model_consolidation_keeps_the_baseline() {
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let good = consolidation_stub(false);
    assert!(consolidate_openai(&hb, &good.url).status.success());
    let manifest = fs::read_to_string(hb.state().join("manifest.json")).unwrap();
    let summary = fs::read_to_string(hb.home.path().join("memory_summary.md")).unwrap();
    let bad = consolidation_stub(true);
    // Something must change for the model to be asked again.
    let (dir2, _) = case("codex-failure-fix");
    hb.extract_json(&[dir2.path()], &[]);
    let output = consolidate_openai(&hb, &bad.url);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the model consolidation failed") && stderr.contains("malformed answer for the summary"),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(hb.state().join("manifest.json")).unwrap(), manifest, "the baseline moved");
    assert_eq!(fs::read_to_string(hb.home.path().join("memory_summary.md")).unwrap(), summary);
    // The next good run completes it.
    let output = consolidate_openai(&hb, &good.url);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap().contains("github.com/acme/parser"));
}

/// A stub that answers a group call with the lessons it was given, plus one lesson per new
/// session citing that session's tasks and one citing every task: what a model that
/// merges without forgetting would write. Handbook must do the forgetting.
fn echoing_stub() -> Stub {
    Stub::start(|request: &Request, _| {
        let user = request.user_message();
        if !user.contains("Rewrite the lessons of one task group") {
            return Reply::chat(r#"{"user_profile": "", "user_preferences": [], "general_tips": []}"#);
        }
        let section = |start: &str, end: &str| -> String {
            let from = user.find(start).map_or(0, |i| i + start.len());
            user[from..].split(end).next().unwrap_or("").to_string()
        };
        let mut knowledge: Vec<String> = section("Its current lessons:", "New or changed sessions")
            .lines()
            .filter_map(|l| l.strip_prefix("- "))
            .filter(|l| *l != "(none)" && l.contains("lesson"))
            .map(str::to_string)
            .collect();
        let mut all = String::new();
        for line in user.lines().filter(|l| l.starts_with("Task ") || l.starts_with("- Task ")) {
            if let Some(n) = line.trim_start_matches("- ").strip_prefix("Task ").and_then(|r| r.split(':').next()) {
                all.push_str(&format!("[Task {n}]"));
            }
        }
        for header in user.lines().filter(|l| l.starts_with("--- session ")) {
            let id = header.split_whitespace().nth(2).unwrap_or("?");
            let refs: String =
                header.split(['(', ')']).nth(1).unwrap_or("").split(", ").map(|t| format!("[{t}]")).collect();
            knowledge.push(format!("lesson only session {} taught {refs}", &id[id.len() - 4..]));
        }
        knowledge.push(format!("shared lesson {all}"));
        Reply::chat(&json!({"user_preferences": [], "reusable_knowledge": knowledge, "failures": []}).to_string())
    })
}

#[test]
fn model_consolidation_forgets_what_only_a_deleted_session_taught() {
    let (dir, files) = case("claude-preferences");
    // A second session in the same project.
    let second = files[0].with_file_name("5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000002.jsonl");
    let text = fs::read_to_string(&files[0]).unwrap();
    fs::write(&second, text.replace("2b7e1f000001", "2b7e1f000002")).unwrap();
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let stub = echoing_stub();
    let output = consolidate_openai(&hb, &stub.url);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(memory.contains("lesson only session 0001 taught [Task"), "{memory}");
    assert!(memory.contains("lesson only session 0002 taught [Task"), "{memory}");
    assert!(memory.contains("shared lesson [Task 1]"), "{memory}");

    // The second transcript goes; the next consolidation sends the group with its removed
    // tasks and keeps only what the first session supports.
    fs::remove_file(&second).unwrap();
    hb.extract_json(&[dir.path()], &[]);
    let stub = echoing_stub();
    let output = consolidate_openai(&hb, &stub.url);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let group_call = stub.requests()[0].user_message();
    let removed = group_call.split("Tasks removed from the group").nth(1).unwrap();
    assert!(removed.contains("Removed "), "the removed tasks were not named:\n{group_call}");
    assert!(!group_call.contains("--- session "), "an unchanged session was sent again:\n{group_call}");
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(memory.contains("lesson only session 0001 taught [Task"), "{memory}");
    assert!(!memory.contains("session 0002"), "a deleted session's lesson survived:\n{memory}");
    assert!(!memory.contains("Removed"), "{memory}");
    assert!(memory.contains("shared lesson [Task 1]"), "a lesson another session supports was lost:\n{memory}");
}

#[test]
fn a_malformed_consolidation_answer_is_asked_for_once_more() {
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let good = consolidation_stub(false);
    let url = good.url.clone();
    // The first group answer is cut off at the token limit; the second is good.
    let flaky = Stub::start(move |request: &Request, index| match index {
        0 => Reply::chat_cut_off(
            r#"{"user_preferences": ["\"model preference for /home/dev/webshop\" [Task 1]", "and so on and so on"#,
        ),
        _ => {
            let agent = ureq::Agent::new_with_defaults();
            let body = request.json();
            let text = agent
                .post(format!("{url}/chat/completions"))
                .send_json(&body)
                .unwrap()
                .body_mut()
                .read_to_string()
                .unwrap();
            Reply::json(200, serde_json::from_str(&text).unwrap())
        }
    });
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
        .args(["--json", "consolidate", "--force", "--engine", "openai", "--model", "m", "--base-url", &flaky.url])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(json_lines(&output.stdout)[0]["data"]["model_calls"], 3, "the group twice, then the summary");
    let memory = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    assert!(memory.contains("model preference for /home/dev/webshop\" [Task 1]") && !memory.contains("so on"));

    // Cut off every time: the run fails, says why, and keeps what it had.
    let before = fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    let cut = Stub::start(|_, _| Reply::chat_cut_off(r#"{"user_preferences": ["and so on"#));
    let (dir2, _) = case("codex-failure-fix");
    hb.extract_json(&[dir2.path()], &[]);
    let output = consolidate_openai(&hb, &cut.url);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cut off at the limit of 8000 tokens") && stderr.contains("(asked twice)"), "{stderr}");
    assert_eq!(cut.requests().len(), 2);
    assert_eq!(fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap(), before);
}

#[test]
fn engine_settings_come_from_the_config_file_and_the_environment() {
    let stub = Stub::start(|_, _| Reply::chat(&answer("Configured")));
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    let config = hb.user.path().join(".config/handbook");
    fs::create_dir_all(&config).unwrap();
    fs::write(
        config.join("config.toml"),
        format!("engine = \"openai\"\nbase_url = \"{}/v1\"\nmodel = \"from-file\"\napi_key_env = \"MY_KEY\"\ntimeout = 30\n", stub.url),
    )
    .unwrap();
    let output = hb
        .cmd()
        .env("MY_KEY", "key-from-my-var")
        .env("HANDBOOK_EXTRACT_MODEL", "from-env")
        .args(["extract", "--all"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let request = &stub.requests()[0];
    assert_eq!(request.json()["model"], "from-env");
    assert_eq!(request.header("authorization"), Some("Bearer key-from-my-var"));
    // A typo in the engine's name is an error that says where it came from.
    let output = hb.cmd().env("HANDBOOK_ENGINE", "opnai").args(["extract", "--all"]).arg(dir.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("HANDBOOK_ENGINE: unknown engine \"opnai\""));
}

#[test]
fn prompt_templates_can_be_replaced() {
    let stub = Stub::start(|_, _| Reply::chat(NO_OP));
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    let config = hb.user.path().join(".config/handbook");
    fs::create_dir_all(&config).unwrap();
    fs::write(config.join("stage_one_system.md"), "MY OWN SYSTEM PROMPT").unwrap();
    let (code, _, stderr) = extract_openai(&hb, &stub.url, &[dir.path()], &[]);
    assert_eq!(code, 0, "{stderr}");
    let system = stub.requests()[0].json()["messages"][0]["content"].as_str().unwrap().to_string();
    assert_eq!(system, "MY OWN SYSTEM PROMPT");
}

/// End to end against a real model server, when one is given:
/// `HANDBOOK_TEST_LLM_URL=$(../shared/tools/local-llm.sh url) cargo test --test integration -- --ignored`.
#[test]
#[ignore = "needs a model server: set HANDBOOK_TEST_LLM_URL"]
fn end_to_end_against_a_real_model() {
    let Ok(url) = std::env::var("HANDBOOK_TEST_LLM_URL") else {
        panic!("set HANDBOOK_TEST_LLM_URL to an OpenAI-compatible base URL");
    };
    let model = std::env::var("HANDBOOK_TEST_LLM_MODEL").unwrap_or_else(|_| "local".to_string());
    let (dir, _) = case("claude-preferences");
    let (dir2, _) = case("codex-failure-fix");
    let hb = Handbook::new();
    let engine =
        ["--engine", "openai", "--model", &model, "--base-url", &url, "--context-tokens", "4096", "--timeout", "600"];
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .args(["--json", "extract", "--all"])
        .args(engine)
        .arg(dir.path())
        .arg(dir2.path())
        .output()
        .unwrap();
    let lines = json_lines(&output.stdout);
    eprintln!(
        "extract: {}\n{}",
        String::from_utf8_lossy(&output.stderr),
        serde_json::to_string_pretty(&lines).unwrap()
    );
    assert!(output.status.success());
    let coverage = &totals(&lines)["coverage"];
    assert_eq!(coverage["sessions"], 2, "{coverage}");
    assert_eq!(coverage["failed"], 0, "{coverage}");
    // Consolidation gets inputs of its own: a small model may rightly call both sessions no-ops.
    let hb = Handbook::new();
    let output = hb.cmd().env("HANDBOOK_NOW", NOW).args(["extract", "--all"]).arg(dir.path()).arg(dir2.path()).output();
    assert!(output.unwrap().status.success());
    // A model this small sometimes loops until its answer limit, twice in a row; such a run
    // must fail cleanly (the model named, nothing committed), and a later one succeed.
    let mut tries = 0;
    let output = loop {
        tries += 1;
        let output = hb
            .cmd()
            .env("HANDBOOK_NOW", NOW)
            .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
            .args(["--json", "consolidate", "--force"])
            .args(engine)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        eprintln!("consolidate, try {tries}: {}{stderr}", String::from_utf8_lossy(&output.stdout));
        if output.status.success() || tries == 3 {
            break output;
        }
        assert!(stderr.contains("the model consolidation failed"), "{stderr}");
        assert!(!hb.state().join("manifest.json").exists(), "a failed run committed a baseline");
    };
    assert!(output.status.success(), "three consolidations in a row failed");
    let report = &json_lines(&output.stdout)[0];
    assert!(report["data"]["model_calls"].as_u64().unwrap() >= 2, "{report}");
    let memory = std::fs::read_to_string(hb.home.path().join("MEMORY.md")).unwrap();
    eprintln!("MEMORY.md:\n{memory}");
    let summary = hb.cmd().arg("summary").output().unwrap();
    let summary = String::from_utf8_lossy(&summary.stdout).into_owned();
    eprintln!("summary:\n{summary}");
    assert!(summary.starts_with("v1\n"));
}

#[test]
fn a_consolidation_with_nothing_selected_asks_the_model_nothing() {
    let (dir, _) = case("trivial");
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let stub = consolidation_stub(false);
    let output = consolidate_openai(&hb, &stub.url);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(stub.requests().len(), 0, "a model given nothing can only invent");
    let summary = fs::read_to_string(hb.home.path().join("memory_summary.md")).unwrap();
    assert!(!summary.contains("A developer the model describes."), "{summary}");
}

/// A consolidation stub that answers each task-group call with `group(project)` and the
/// summary call with `summary`.
fn scripted_consolidation(group: impl Fn(&str) -> Reply + Send + Sync + 'static, summary: Reply) -> Stub {
    Stub::start(move |request: &Request, _| match request.task_group() {
        Some(project) => group(&project),
        None => summary.clone(),
    })
}

/// Grounded lessons for the webshop group of `claude-preferences` (tasks 1 and 2).
fn webshop_lessons() -> Reply {
    Reply::lessons(
        &["\"We use pnpm, not npm.\" -> use pnpm [Task 1]"],
        &["verified test command: `pnpm vitest run` [Task 1]", "the staging API needs the VPN [Task 1]"],
        &[],
    )
}

/// `consolidate --json` with the openai engine at `url`: the report, and stderr.
fn consolidate_json(hb: &Handbook, url: &str) -> (Value, String) {
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
        .args(["--json", "consolidate", "--force", "--engine", "openai", "--model", "m", "--base-url", url])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    (json_lines(&output.stdout)[0]["data"].clone(), stderr)
}

fn read(hb: &Handbook, file: &str) -> String {
    fs::read_to_string(hb.home.path().join(file)).unwrap()
}

#[test]
fn group_lessons_that_cite_no_task_of_their_group_are_dropped() {
    let (dir, _) = case("claude-preferences");
    let (dir2, _) = case("codex-failure-fix");
    let hb = Handbook::new();
    hb.extract_json(&[dir.path(), dir2.path()], &[]);
    let stub = scripted_consolidation(
        |project| match project {
            // The parser group has one task: a number beyond it is dropped, whatever another
            // group holds.
            "github.com/acme/parser" => Reply::lessons(
                &["\"Always run clippy\" -> run `cargo clippy --all-targets -- -D warnings` [Task 1]", "uncited"],
                &["verified test command: `cargo test` [Task 1]", "a webshop task cited here [Task 2]"],
                &["`cargo test` failed with E0425 -> fix the rename [Task 1]", "made up [Task 7]", "  "],
            ),
            _ => webshop_lessons(),
        },
        Reply::summary("Works on the webshop with pnpm.", &[], &["webshop: verified `pnpm vitest run`"]),
    );
    let (report, stderr) = consolidate_json(&hb, &stub.url);
    assert_eq!(
        report["ungrounded"],
        json!([{"part": "github.com/acme/parser", "dropped": 3, "of": 6, "builtin_kept": false}]),
        "{report}"
    );
    assert!(!stderr.contains("mostly ungrounded"), "{stderr}");
    let memory = read(&hb, "MEMORY.md");
    assert!(memory.contains("- verified test command: `cargo test` [Task 1]"), "{memory}");
    assert!(memory.contains("-> fix the rename [Task 1]") && memory.contains("run clippy"), "{memory}");
    for invented in ["uncited", "a webshop task cited here", "made up"] {
        assert!(!memory.contains(invented), "{invented:?} survived:\n{memory}");
    }
    assert!(memory.contains("- the staging API needs the VPN [Task 1]"), "the other group's own task");
}

#[test]
fn a_mostly_ungrounded_group_answer_keeps_the_built_in_lessons() {
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let stub = scripted_consolidation(
        |_| Reply::lessons(&["\"Use yarn\" [Task 1]", "tabs over spaces"], &["deploy with helm [Task 9]"], &["guess"]),
        Reply::summary("", &[], &["webshop: verified `pnpm vitest run`"]),
    );
    let (report, stderr) = consolidate_json(&hb, &stub.url);
    assert!(
        stderr.contains(
            "warning: task group /home/dev/webshop: the model's answer was mostly ungrounded (3 of 4 lines dropped"
        ),
        "{stderr}"
    );
    assert_eq!(report["ungrounded"][0]["builtin_kept"], true, "{report}");
    let memory = read(&hb, "MEMORY.md");
    assert!(!memory.contains("Use yarn"), "a lesson of a mostly ungrounded answer was kept:\n{memory}");
    assert!(memory.contains("- verified test command: `pnpm vitest run` (1 session) [Task 1]"), "{memory}");
}

#[test]
fn an_invented_profile_claim_is_dropped_and_the_built_in_profile_kept() {
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let stub = scripted_consolidation(
        |_| webshop_lessons(),
        Reply::summary(
            "The user is a senior Haskell developer who prefers tabs.",
            &["Use pnpm, never npm (webshop)"],
            &["webshop: verified `pnpm vitest run`"],
        ),
    );
    let (report, stderr) = consolidate_json(&hb, &stub.url);
    assert_eq!(report["ungrounded"], json!([{"part": "summary", "dropped": 1, "of": 3, "builtin_kept": false}]));
    assert!(!stderr.contains("mostly ungrounded"), "{stderr}");
    let summary = read(&hb, "memory_summary.md");
    assert!(summary.starts_with("v1\n\n## User Profile\n\nLessons from 1 session (claude)"), "{summary}");
    assert!(!summary.contains("Haskell") && !summary.contains("tabs"), "{summary}");
    assert!(summary.contains("\n- Use pnpm, never npm (webshop)\n"), "a grounded preference was lost:\n{summary}");
}

#[test]
fn a_summary_tip_naming_a_command_no_session_ran_is_dropped() {
    let (dir, _) = case("claude-preferences");
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let tips = [
        "webshop: verified `pnpm vitest run`",
        "webshop: the staging API needs the VPN",
        "webshop: restart with `kubectl rollout restart deploy/web` after a deploy",
    ];
    let stub = scripted_consolidation(|_| webshop_lessons(), Reply::summary("Works on the webshop.", &[], &tips));
    let (report, _) = consolidate_json(&hb, &stub.url);
    assert_eq!(report["ungrounded"][0]["dropped"], 1, "{report}");
    let summary = read(&hb, "memory_summary.md");
    assert!(
        summary.contains(
            "## General Tips\n\n- webshop: verified `pnpm vitest run`\n- webshop: the staging API needs the VPN\n\n"
        ),
        "{summary}"
    );
    assert!(!summary.contains("kubectl"), "{summary}");
    assert!(summary.contains("## User Profile\n\nWorks on the webshop.\n"), "{summary}");

    // Mostly invented: the built-in summary stands, and the run says so.
    let hb = Handbook::new();
    hb.extract_json(&[dir.path()], &[]);
    let stub = scripted_consolidation(
        |_| webshop_lessons(),
        Reply::summary("A Go developer at Initech.", &["Use Bazel"], &[tips[0], tips[2]]),
    );
    let (report, stderr) = consolidate_json(&hb, &stub.url);
    assert!(
        stderr.contains("warning: the summary: the model's answer was mostly ungrounded (3 of 4 lines dropped"),
        "{stderr}{report}"
    );
    assert_eq!(report["ungrounded"][0], json!({"part": "summary", "dropped": 3, "of": 4, "builtin_kept": true}));
    let summary = read(&hb, "memory_summary.md");
    assert!(summary.starts_with("v1\n\n## User Profile\n\nLessons from 1 session (claude)"), "{summary}");
    assert!(
        summary.contains("\n- No, use pnpm: run `pnpm vitest run` for the unit tests. (correction; webshop)\n"),
        "{summary}"
    );
    assert!(!summary.contains("Bazel") && !summary.contains("Initech"), "{summary}");
}
