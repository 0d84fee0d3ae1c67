//! Writes a synthetic corpus of realistic Codex and Claude Code transcripts for benchmarks:
//! many turns, long tool outputs (build logs, file dumps), failing and passing commands,
//! edits, reasoning, token counts, and the echoed copies Codex writes.
//!
//! ```text
//! cargo run --release --example corpus -- OUT_DIR TOTAL_BYTES FILES [SEED]
//! ```
//!
//! With FILES = 1 the whole size goes into one Claude session, to measure the memory a single
//! huge transcript takes. With `--mixed` after the seed, the sessions rotate through the
//! agents handbook reads: Codex, Claude Code, pi (a v3 tree), Gemini CLI (an upsert log) and
//! opencode (sessions of one SQLite database, `opencode/opencode.db`); with `--opencode`, every
//! session goes into that database; with `--generic`, every session is a small generic JSONL
//! file of four records (a prompt, a command, its output, an answer), a thousand to a folder,
//! the way years of agent use pile up (TOTAL_BYTES is then ignored). Output is deterministic
//! for a given seed.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::Path;

use serde_json::{Value, json};

#[path = "../tests/opencode_db.rs"]
mod opencode_db;

/// A small deterministic generator (xorshift64*), so the corpus is the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const PROMPTS: &[&str] = &[
    "The integration tests fail after the refactor; find out why and fix them.",
    "Add pagination to the orders endpoint and cover it with tests.",
    "Why does the release build take so long? Make it faster if you can.",
    "Rename the config loader to settings and update every caller.",
    "Please add structured logging to the worker. We use tracing, not log.",
    "The CI lint job is red. Fix the warnings without changing behaviour.",
    "Write a migration that adds an index on orders.created_at.",
    "Remember that the staging database is read-only on weekends.",
    "No, keep the old function name for now; only change the internals.",
    "Always run the formatter before you commit anything.",
];
const COMMANDS: &[(&str, &str)] = &[
    ("cargo test --workspace", "error[E0308]: mismatched types"),
    ("cargo build --release", "error: linking with `cc` failed: exit status: 1"),
    ("npm test", "FAIL src/orders.test.ts > paginates results"),
    ("pnpm lint", "src/worker.ts:12:7  error  'x' is assigned a value but never used"),
    ("pytest -q tests/test_orders.py", "E   AssertionError: assert 20 == 25"),
    ("go test ./...", "--- FAIL: TestPaginate (0.01s)"),
    ("make build", "make: *** [Makefile:14: build] Error 2"),
];
const WORDS: &[&str] = &[
    "order",
    "worker",
    "config",
    "settings",
    "request",
    "response",
    "handler",
    "queue",
    "index",
    "cache",
    "token",
    "parser",
    "render",
    "layout",
    "session",
    "migration",
    "schema",
    "client",
    "server",
    "retry",
    "timeout",
    "batch",
];

fn log_output(rng: &mut Rng, bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 128);
    let mut n = 0;
    while out.len() < bytes {
        n += 1;
        let (a, b, c) = (rng.pick(WORDS), rng.pick(WORDS), rng.pick(WORDS));
        let line = match rng.below(4) {
            0 => format!("   Compiling {a}-{b} v0.{}.{} (/work/{c})\n", rng.below(9), rng.below(20)),
            1 => format!("test {a}::{b}::{c}_{n} ... ok\n"),
            2 => format!(
                "src/{a}/{b}.rs:{}:{}: note: {c} \"{a}\" checked in {}ms\n",
                rng.below(900),
                rng.below(80),
                rng.below(500)
            ),
            _ => format!("{{\"level\":\"info\",\"target\":\"{a}\",\"msg\":\"{b} {c}\",\"n\":{n}}}\n"),
        };
        out.push_str(&line);
    }
    out
}

fn output_size(rng: &mut Rng) -> usize {
    match rng.below(10) {
        0..=4 => 500 + rng.below(4_000) as usize,
        5..=7 => 5_000 + rng.below(30_000) as usize,
        8 => 40_000 + rng.below(120_000) as usize,
        _ => 200_000 + rng.below(400_000) as usize,
    }
}

fn ts(file: usize, step: usize) -> String {
    let seconds = (file * 7_200 + step * 3) as i64;
    let t = jiff::Timestamp::from_second(1_793_000_000 + seconds).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    t.strftime("%Y-%m-%dT%H:%M:%S.000Z").to_string()
}

/// A small session's time: sessions ten minutes apart from late 2023 on, so 100,000 of them
/// span about two years of use.
fn small_ts(file: usize, step: usize) -> String {
    let t = jiff::Timestamp::from_second(1_700_000_000 + (file * 600 + step * 3) as i64);
    t.unwrap_or(jiff::Timestamp::UNIX_EPOCH).strftime("%Y-%m-%dT%H:%M:%S.000Z").to_string()
}

fn uuid(rng: &mut Rng) -> String {
    let (a, b) = (rng.next(), rng.next());
    format!(
        "{:08x}-{:04x}-7{:03x}-8{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        b >> 52,
        b & 0xffff_ffff_ffff
    )
}

fn write_line(out: &mut impl Write, value: &Value) -> usize {
    let text = value.to_string();
    out.write_all(text.as_bytes()).and_then(|_| out.write_all(b"\n")).expect("write corpus");
    text.len() + 1
}

fn codex_session(dir: &Path, file: usize, budget: usize, rng: &mut Rng) -> usize {
    let id = uuid(rng);
    let path = dir.join(format!(
        "codex/sessions/2026/11/{:02}/rollout-2026-11-{:02}T10-00-00-{id}.jsonl",
        file % 28 + 1,
        file % 28 + 1
    ));
    fs::create_dir_all(path.parent().unwrap()).expect("create corpus folder");
    let mut out = BufWriter::new(File::create(&path).expect("create corpus file"));
    let mut written = write_line(
        &mut out,
        &json!({"timestamp": ts(file, 0), "type": "session_meta", "payload": {
        "id": id, "timestamp": ts(file, 0), "cwd": format!("/work/project-{}", file % 40), "originator": "codex_cli_rs",
        "cli_version": "0.171.0", "source": "cli", "base_instructions": {"text": "You are Codex. ".repeat(200)},
        "git": {"branch": "main", "repository_url": format!("git@github.com:acme/project-{}.git", file % 40)}}}),
    );
    let mut step = 1;
    while written < budget {
        let prompt = rng.pick(PROMPTS);
        written += write_line(
            &mut out,
            &json!({"timestamp": ts(file, step), "type": "turn_context", "payload": {"cwd": format!("/work/project-{}", file % 40), "model": "gpt-5.3-codex", "approval_policy": "on-request", "sandbox_policy": {"type": "workspace-write"}}}),
        );
        written += write_line(
            &mut out,
            &json!({"timestamp": ts(file, step), "type": "event_msg", "payload": {"type": "user_message", "message": prompt}}),
        );
        written += write_line(
            &mut out,
            &json!({"timestamp": ts(file, step), "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}}),
        );
        for _ in 0..(2 + rng.below(6)) {
            if written >= budget {
                break;
            }
            step += 1;
            let (command, error) = COMMANDS[rng.below(COMMANDS.len() as u64) as usize];
            let failed = rng.below(3) == 0;
            let call = format!("call_{step}");
            written += write_line(
                &mut out,
                &json!({"timestamp": ts(file, step), "type": "response_item", "payload": {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Let me check the build output before changing anything."}], "encrypted_content": "gAAAA".repeat(300)}}),
            );
            written += write_line(
                &mut out,
                &json!({"timestamp": ts(file, step), "type": "response_item", "payload": {"type": "function_call", "name": "exec_command", "arguments": json!({"cmd": command, "workdir": "/work"}).to_string(), "call_id": call}}),
            );
            let size = output_size(rng).min(budget.saturating_sub(written).max(500));
            let mut log = log_output(rng, size);
            if failed {
                log.push_str(error);
                log.push('\n');
            }
            let output = format!(
                "Chunk ID: {step:x}\nWall time: 2.1 seconds\nProcess exited with code {}\nOutput:\n{log}",
                if failed { 1 } else { 0 }
            );
            written += write_line(
                &mut out,
                &json!({"timestamp": ts(file, step), "type": "response_item", "payload": {"type": "function_call_output", "call_id": call, "output": output}}),
            );
            if rng.below(2) == 0 {
                let patch = format!(
                    "*** Begin Patch\n*** Update File: src/{}.rs\n@@\n-old\n+new\n*** End Patch",
                    rng.pick(WORDS)
                );
                written += write_line(
                    &mut out,
                    &json!({"timestamp": ts(file, step), "type": "response_item", "payload": {"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": format!("p{step}")}}),
                );
                written += write_line(
                    &mut out,
                    &json!({"timestamp": ts(file, step), "type": "response_item", "payload": {"type": "custom_tool_call_output", "call_id": format!("p{step}"), "output": "Success."}}),
                );
            }
            written += write_line(
                &mut out,
                &json!({"timestamp": ts(file, step), "type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": {"input_tokens": step * 1000, "output_tokens": step * 50}}}}),
            );
        }
        let answer = format!("Done: {} now passes.", rng.pick(WORDS));
        written += write_line(
            &mut out,
            &json!({"timestamp": ts(file, step), "type": "event_msg", "payload": {"type": "agent_message", "message": answer}}),
        );
        written += write_line(
            &mut out,
            &json!({"timestamp": ts(file, step), "type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]}}),
        );
        step += 1;
    }
    written
}

fn claude_session(dir: &Path, file: usize, budget: usize, rng: &mut Rng) -> usize {
    let id = uuid(rng);
    let path = dir.join(format!("claude/projects/-work-project-{}/{id}.jsonl", file % 40));
    fs::create_dir_all(path.parent().unwrap()).expect("create corpus folder");
    let mut out = BufWriter::new(File::create(&path).expect("create corpus file"));
    let cwd = format!("/work/project-{}", file % 40);
    let entry = |kind: &str, step: usize, message: Value| {
        json!({"type": kind, "uuid": format!("{id}-{step}"), "parentUuid": null, "isSidechain": false, "userType": "external",
               "cwd": cwd, "sessionId": id, "version": "2.1.300", "gitBranch": "main", "timestamp": ts(file, step), "message": message})
    };
    let mut written = 0;
    let mut step = 0;
    while written < budget {
        step += 1;
        written += write_line(&mut out, &entry("user", step, json!({"role": "user", "content": rng.pick(PROMPTS)})));
        for _ in 0..(2 + rng.below(6)) {
            if written >= budget {
                break;
            }
            step += 1;
            let (command, error) = COMMANDS[rng.below(COMMANDS.len() as u64) as usize];
            let failed = rng.below(3) == 0;
            let msg = format!("msg_{step}");
            let tool = format!("toolu_{step}");
            written += write_line(
                &mut out,
                &entry(
                    "assistant",
                    step,
                    json!({"id": msg, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "thinking", "thinking": "Looking at the failure first. ".repeat(20), "signature": "sig".repeat(100)}]}),
                ),
            );
            written += write_line(
                &mut out,
                &entry(
                    "assistant",
                    step + 10_000,
                    json!({"id": msg, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": tool, "name": "Bash", "input": {"command": command, "description": "run"}}]}),
                ),
            );
            let size = output_size(rng).min(budget.saturating_sub(written).max(500));
            let mut log = log_output(rng, size);
            if failed {
                log.insert_str(0, "Exit code 1\n");
                log.push_str(error);
            }
            written += write_line(
                &mut out,
                &entry(
                    "user",
                    step + 20_000,
                    json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool, "content": log, "is_error": failed}]}),
                ),
            );
            if rng.below(2) == 0 {
                let edit = format!("toolu_e{step}");
                written += write_line(
                    &mut out,
                    &entry(
                        "assistant",
                        step + 30_000,
                        json!({"id": format!("msg_e{step}"), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                    "content": [{"type": "tool_use", "id": edit, "name": "Edit", "input": {"file_path": format!("{cwd}/src/{}.ts", rng.pick(WORDS)), "old_string": "a".repeat(200), "new_string": "b".repeat(200)}}]}),
                    ),
                );
                written += write_line(
                    &mut out,
                    &entry(
                        "user",
                        step + 40_000,
                        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": edit, "content": "The file has been updated successfully."}]}),
                    ),
                );
            }
        }
        written += write_line(
            &mut out,
            &entry(
                "assistant",
                step + 50_000,
                json!({"id": format!("msg_t{step}"), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "The change is in and the tests pass."}]}),
            ),
        );
    }
    written
}

/// One tool step of a synthetic session: the command, its output, and whether it failed.
struct Step {
    command: &'static str,
    output: String,
    failed: bool,
}

fn step(rng: &mut Rng, budget: usize, written: usize) -> Step {
    let (command, error) = COMMANDS[rng.below(COMMANDS.len() as u64) as usize];
    let failed = rng.below(3) == 0;
    let size = output_size(rng).min(budget.saturating_sub(written).max(500));
    let mut output = log_output(rng, size);
    if failed {
        output.push_str(error);
        output.push('\n');
    }
    Step { command, output, failed }
}

/// A pi session (format v3): a header, then entries linked by `id`/`parentId`.
fn pi_session(dir: &Path, file: usize, budget: usize, rng: &mut Rng) -> usize {
    let id = uuid(rng);
    let cwd = format!("/work/project-{}", file % 40);
    let path =
        dir.join(format!("pi/agent/sessions/--work-project-{}--/2026-11-01T10-00-00-000Z_{id}.jsonl", file % 40));
    fs::create_dir_all(path.parent().unwrap()).expect("create corpus folder");
    let mut out = BufWriter::new(File::create(&path).expect("create corpus file"));
    let mut written =
        write_line(&mut out, &json!({"type": "session", "version": 3, "id": id, "timestamp": ts(file, 0), "cwd": cwd}));
    let mut parent = Value::Null;
    let mut n = 0;
    let mut entry = |out: &mut BufWriter<File>, step: usize, message: Value| {
        n += 1;
        let this = format!("{n:08x}");
        let line =
            json!({"type": "message", "id": this, "parentId": parent, "timestamp": ts(file, step), "message": message});
        parent = Value::String(this);
        write_line(out, &line)
    };
    let mut at = 1;
    while written < budget {
        written +=
            entry(&mut out, at, json!({"role": "user", "content": [{"type": "text", "text": rng.pick(PROMPTS)}]}));
        for _ in 0..(2 + rng.below(6)) {
            if written >= budget {
                break;
            }
            at += 1;
            let Step { command, output, failed } = step(rng, budget, written);
            let call = format!("toolu_{at}");
            written += entry(
                &mut out,
                at,
                json!({"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "Looking at the failure first. ".repeat(20)},
                    {"type": "toolCall", "id": call, "name": "bash", "arguments": {"command": command}}],
                    "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "toolUse"}),
            );
            written += entry(
                &mut out,
                at,
                json!({"role": "toolResult", "toolCallId": call, "toolName": "bash",
                       "content": [{"type": "text", "text": output}], "isError": failed}),
            );
        }
        written += entry(
            &mut out,
            at,
            json!({"role": "assistant", "content": [{"type": "text", "text": "The change is in and the tests pass."}], "stopReason": "stop"}),
        );
        at += 1;
    }
    written
}

/// A Gemini CLI chat recording: a metadata line, then messages, each model message written
/// twice as its tool call gains a result (the upserts the real log holds).
fn gemini_session(dir: &Path, file: usize, budget: usize, rng: &mut Rng) -> usize {
    let id = uuid(rng);
    let path = dir.join(format!("gemini/tmp/project-{}/chats/session-2026-11-01T10-00-{}.jsonl", file % 40, &id[..8]));
    fs::create_dir_all(path.parent().unwrap()).expect("create corpus folder");
    let mut out = BufWriter::new(File::create(&path).expect("create corpus file"));
    let cwd = format!("/work/project-{}", file % 40);
    let mut written = write_line(
        &mut out,
        &json!({"sessionId": id, "projectHash": format!("{:016x}", file % 40), "startTime": ts(file, 0),
                "lastUpdated": ts(file, 0), "kind": "main", "directories": [cwd]}),
    );
    let mut at = 0;
    while written < budget {
        at += 1;
        written += write_line(
            &mut out,
            &json!({"id": format!("m{at}"), "timestamp": ts(file, at), "type": "user", "content": [{"text": rng.pick(PROMPTS)}]}),
        );
        for _ in 0..(2 + rng.below(6)) {
            if written >= budget {
                break;
            }
            at += 1;
            let Step { command, output, failed } = step(rng, budget, written);
            let call = json!({"id": format!("run_shell_command-{at}"), "name": "run_shell_command", "args": {"command": command}, "status": "executing", "timestamp": ts(file, at)});
            let message = |call: Value| {
                json!({"id": format!("m{at}"), "timestamp": ts(file, at), "type": "gemini", "content": "", "model": "gemini-2.5-pro",
                       "thoughts": [{"subject": "Checking", "description": "Looking at the failure first.", "timestamp": ts(file, at)}],
                       "toolCalls": [call]})
            };
            written += write_line(&mut out, &message(call.clone()));
            let mut done = call;
            done["status"] = json!(if failed { "error" } else { "success" });
            done["result"] = json!([{"functionResponse": {"id": format!("run_shell_command-{at}"), "name": "run_shell_command",
                                     "response": {"output": output}}}]);
            written += write_line(&mut out, &message(done));
        }
        at += 1;
        written += write_line(
            &mut out,
            &json!({"id": format!("m{at}"), "timestamp": ts(file, at), "type": "gemini", "content": "The change is in and the tests pass.", "model": "gemini-2.5-pro"}),
        );
    }
    written
}

/// One opencode session in `db`: per turn a user message with the prompt, and an assistant
/// message with reasoning, a bash call with its output and exit status, and an answer.
fn opencode_session(db: &mut opencode_db::OpencodeDb, file: usize, budget: usize, rng: &mut Rng) -> usize {
    use opencode_db::{Session, assistant, bash, text, user};
    let id = format!("ses_{:026}", file);
    let mut session = Session::new(&id, "Fix the build");
    session.directory = format!("/work/project-{}", file % 40);
    let (mut written, mut turn) = (0, 0);
    while written < budget {
        turn += 1;
        let (ask, answer) = (format!("msg_{file:012}_{turn:05}a"), format!("msg_{file:012}_{turn:05}b"));
        let prompt = text(rng.pick(PROMPTS));
        written += prompt.to_string().len();
        let mut parts = vec![(
            format!("prt_{file:012}_{turn:05}_000"),
            json!({"type": "reasoning", "text": "Looking at the failure first. ".repeat(20)}),
        )];
        for n in 1..(3 + rng.below(6)) {
            let Step { command, output, failed } = step(rng, budget, written);
            let call = bash(&format!("call_{turn}_{n}"), command, &output, if failed { 1 } else { 0 });
            written += call.to_string().len();
            parts.push((format!("prt_{file:012}_{turn:05}_{n:03}"), call));
        }
        parts.push((format!("prt_{file:012}_{turn:05}_999"), text("The change is in and the tests pass.")));
        let parts: Vec<(&str, Value)> = parts.iter().map(|(id, v)| (id.as_str(), v.clone())).collect();
        session = session.message(&ask, user(), &[(&format!("prt_{file:012}_{turn:05}_p"), prompt)]);
        session = session.message(&answer, assistant(&ask), &parts);
    }
    db.write(&[session]);
    written
}

/// A small generic session of four records: a prompt, one shell command, its output (failing
/// one time in three), and the answer.
fn generic_session(dir: &Path, file: usize, rng: &mut Rng) -> usize {
    let id = uuid(rng);
    let path = dir.join(format!("generic/{:04}/{id}.jsonl", file / 1000));
    if file.is_multiple_of(1000) {
        fs::create_dir_all(path.parent().unwrap()).expect("create corpus folder");
    }
    let mut out = BufWriter::new(File::create(&path).expect("create corpus file"));
    let (command, error) = COMMANDS[rng.below(COMMANDS.len() as u64) as usize];
    let failed = rng.below(3) == 0;
    let size = 100 + rng.below(300) as usize;
    let mut output = log_output(rng, size);
    if failed {
        output.push_str(error);
    }
    let cwd = format!("/work/project-{}", file % 40);
    let mut written = write_line(
        &mut out,
        &json!({"role": "user", "content": rng.pick(PROMPTS), "timestamp": small_ts(file, 0), "session_id": id, "cwd": cwd}),
    );
    written += write_line(
        &mut out,
        &json!({"role": "tool_call", "name": "shell", "id": "1", "command": command, "timestamp": small_ts(file, 1)}),
    );
    written += write_line(
        &mut out,
        &json!({"role": "tool", "id": "1", "exit_code": i32::from(failed), "content": output, "timestamp": small_ts(file, 2)}),
    );
    let answer = format!("Done: {} now passes.", rng.pick(WORDS));
    written + write_line(&mut out, &json!({"role": "assistant", "content": answer, "timestamp": small_ts(file, 3)}))
}

/// The corpus's opencode database, created empty.
fn open_database(dir: &Path) -> opencode_db::OpencodeDb {
    fs::create_dir_all(dir.join("opencode")).expect("create corpus folder");
    let db = opencode_db::OpencodeDb::create(&dir.join("opencode/opencode.db"));
    db.conn.pragma_update(None, "synchronous", "OFF").expect("set up the database");
    db
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: corpus OUT_DIR TOTAL_BYTES FILES [SEED]");
        std::process::exit(2);
    }
    let dir = Path::new(&args[1]);
    let total: usize = args[2].parse().expect("TOTAL_BYTES is a number");
    let files: usize = args[3].parse().expect("FILES is a number");
    let mut rng = Rng(args.get(4).and_then(|s| s.parse().ok()).unwrap_or(0x5eed_1234_abcd_ef01));
    let mode = args.get(5).map(String::as_str).unwrap_or("");
    let per_file = total / files.max(1);
    let mut database: Option<opencode_db::OpencodeDb> = None;
    let mut written = 0;
    for file in 0..files {
        written += match (files > 1, mode, file % 5) {
            (_, "--generic", _) => generic_session(dir, file, &mut rng),
            (false, _, _) => claude_session(dir, file, per_file, &mut rng),
            (true, "--opencode", _) | (true, "--mixed", 4) => {
                opencode_session(database.get_or_insert_with(|| open_database(dir)), file, per_file, &mut rng)
            }
            (true, "--mixed", 2) => pi_session(dir, file, per_file, &mut rng),
            (true, "--mixed", 3) => gemini_session(dir, file, per_file, &mut rng),
            (true, "--mixed", 0) => codex_session(dir, file, per_file, &mut rng),
            (true, "--mixed", _) => claude_session(dir, file, per_file, &mut rng),
            (true, _, _) if file % 2 == 0 => codex_session(dir, file, per_file, &mut rng),
            (true, _, _) => claude_session(dir, file, per_file, &mut rng),
        };
    }
    if let Some(db) = database.as_mut() {
        db.checkpoint();
    }
    println!("{written} bytes in {files} sessions under {}", dir.display());
}
