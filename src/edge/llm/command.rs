//! A command-line LLM (`llm`, `ollama run`, `claude -p`, `codex exec -`): the prompt on
//! stdin, the answer on stdout, within the timeout.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::{Attempt, CallError};
use crate::config::EngineSettings;
use crate::core::engine::Prompt;

/// The longest answer read, in bytes.
const MAX_OUTPUT: u64 = 16 * 1024 * 1024;
/// Bytes of stderr quoted when a command fails.
const STDERR_TAIL: usize = 600;

pub fn attempt(settings: &EngineSettings, prompt: &Prompt) -> Attempt {
    let command = settings.command.as_deref().unwrap_or_default();
    // Its own process group, so a timeout stops everything it started.
    let spawned = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => return Attempt::Failed(CallError::Setup(format!("cannot run `{command}`: {e}"))),
    };
    let input = prompt.as_text();
    let mut stdin = child.stdin.take();
    let writer = thread::spawn(move || {
        // A command that exits without reading all of its input is its own business.
        if let Some(stdin) = stdin.as_mut() {
            let _ = stdin.write_all(input.as_bytes());
        }
    });
    let stdout = child.stdout.take().map(|out| thread::spawn(move || read_all(out)));
    let stderr = child.stderr.take().map(|err| thread::spawn(move || read_all(err)));
    let deadline = Instant::now() + settings.timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                kill_group(child.id());
                let _ = child.kill();
                let _ = child.wait();
                return Attempt::Failed(CallError::Call(format!(
                    "`{command}` gave no answer within {} s",
                    settings.timeout.as_secs_f64()
                )));
            }
            Ok(None) => thread::sleep(Duration::from_millis(20)),
            Err(e) => return Attempt::Failed(CallError::Call(format!("cannot wait for `{command}`: {e}"))),
        }
    };
    let _ = writer.join();
    let out = stdout.and_then(|h| h.join().ok()).unwrap_or_default();
    let err = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    if status.success() {
        return Attempt::Done(String::from_utf8_lossy(&out).into_owned());
    }
    let tail = tail(&String::from_utf8_lossy(&err));
    let reason =
        format!("`{command}` failed ({status}){}", if tail.is_empty() { String::new() } else { format!(": {tail}") });
    // 126 and 127: the shell could not run it at all, so no session can.
    match status.code() {
        Some(126 | 127) => Attempt::Failed(CallError::Setup(reason)),
        _ => Attempt::Failed(CallError::Call(reason)),
    }
}

fn read_all(stream: impl Read) -> Vec<u8> {
    let mut bytes = Vec::new();
    let _ = stream.take(MAX_OUTPUT).read_to_end(&mut bytes);
    bytes
}

/// Kill the process group `pgid` (std can only kill the one child). The shell's `kill` is
/// the portable way to signal a group without unsafe code.
fn kill_group(pgid: u32) {
    let _ = Command::new("sh")
        .arg("-c")
        .arg(format!("kill -9 -- -{pgid} 2>/dev/null"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// The last lines of a command's stderr, on one line.
fn tail(text: &str) -> String {
    let text = text.trim();
    let start = text.len().saturating_sub(STDERR_TAIL);
    let start = (start..text.len()).find(|i| text.is_char_boundary(*i)).unwrap_or(text.len());
    let cut = &text[start..];
    let joined = cut.split_whitespace().collect::<Vec<_>>().join(" ");
    if start > 0 { format!("…{joined}") } else { joined }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{EngineKind, EngineSettings};

    fn settings(command: &str, timeout_ms: u64) -> EngineSettings {
        let mut s = EngineSettings::builtin();
        s.kind = EngineKind::Command;
        s.command = Some(command.to_string());
        s.timeout = Duration::from_millis(timeout_ms);
        s
    }

    fn prompt() -> Prompt {
        Prompt::new("test", "system".to_string(), "user", serde_json::json!({}), "t")
    }

    #[test]
    fn the_prompt_goes_in_and_the_answer_comes_out() {
        let Attempt::Done(text) = attempt(&settings("tr a-z A-Z", 10_000), &prompt()) else { panic!("failed") };
        assert!(text.starts_with("SYSTEM") && text.contains("HANDBOOK-INTERNAL-PROMPT"), "{text}");
    }

    #[test]
    fn failures_quote_stderr_and_a_missing_command_is_a_setup_problem() {
        let failed = attempt(&settings("echo oops >&2; exit 3", 10_000), &prompt());
        assert!(
            matches!(&failed, Attempt::Failed(CallError::Call(r)) if r.contains("exit status: 3") && r.ends_with(": oops")),
            "{failed:?}"
        );
        let missing = attempt(&settings("no-such-llm-command-here", 10_000), &prompt());
        assert!(matches!(missing, Attempt::Failed(CallError::Setup(_))), "{missing:?}");
    }

    #[test]
    fn a_hung_command_is_stopped_with_its_children() {
        let started = Instant::now();
        let hung = attempt(&settings("sleep 30 & sleep 30", 300), &prompt());
        assert!(
            matches!(&hung, Attempt::Failed(CallError::Call(r)) if r.contains("gave no answer within")),
            "{hung:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(20));
    }
}
