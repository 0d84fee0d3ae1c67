//! A command-line LLM (`llm`, `ollama run`, `claude -p`, `codex exec -`): the prompt on
//! stdin, the answer on stdout, within the timeout.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use super::{Attempt, CallError};
use crate::config::EngineSettings;
use crate::core::model::Prompt;

/// The longest answer read, in bytes.
const MAX_OUTPUT: u64 = 16 * 1024 * 1024;
/// Bytes of stderr quoted when a command fails.
const STDERR_TAIL: usize = 600;
/// How long to wait for the last output once the command is over.
const GRACE: Duration = Duration::from_secs(2);

pub(crate) fn attempt(settings: &EngineSettings, prompt: &Prompt) -> Attempt {
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
    // Not joined: a command that never reads its input must not hold up the run; the thread
    // ends when the pipe closes. One that exits without reading all of it is its own business.
    thread::spawn(move || {
        if let Some(stdin) = stdin.as_mut() {
            let _ = stdin.write_all(input.as_bytes());
        }
    });
    let stdout = child.stdout.take().map(reader);
    let stderr = child.stderr.take().map(reader);
    let deadline = Instant::now() + settings.timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                kill_group(child.id());
                let _ = child.kill();
                let _ = child.wait();
                let err = collect(stderr, Instant::now() + GRACE);
                return Attempt::Failed(CallError::Call(format!(
                    "`{command}` gave no answer within {} s{}",
                    settings.timeout.as_secs_f64(),
                    quoted(&err)
                )));
            }
            Ok(None) => thread::sleep(Duration::from_millis(20)),
            Err(e) => return Attempt::Failed(CallError::Call(format!("cannot wait for `{command}`: {e}"))),
        }
    };
    // The answer is complete once the command is over: whatever it left running in the
    // background is stopped, and its pipes are read no longer than the timeout allows.
    // (While a member lives, the group's id cannot be reused; with none left, hitting
    // another group would take a wrap of the pid space within these milliseconds.)
    kill_group(child.id());
    let until = deadline.max(Instant::now() + GRACE);
    let out = collect(stdout, until);
    let err = collect(stderr, until);
    if status.success() {
        return Attempt::Done(String::from_utf8_lossy(&out).into_owned());
    }
    let reason = format!("`{command}` failed ({status}){}", quoted(&err));
    // 126 and 127: the shell could not run it at all, so no session can.
    match status.code() {
        Some(126 | 127) => Attempt::Failed(CallError::Setup(reason)),
        _ => Attempt::Failed(CallError::Call(reason)),
    }
}

/// A thread reading `stream` to its end (or [`MAX_OUTPUT`]); its bytes arrive on the channel.
fn reader(stream: impl Read + Send + 'static) -> Receiver<Vec<u8>> {
    let (send, receive) = mpsc::channel();
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stream.take(MAX_OUTPUT).read_to_end(&mut bytes);
        let _ = send.send(bytes);
    });
    receive
}

/// What a reader read, if it finished by `until`; nothing otherwise.
fn collect(reader: Option<Receiver<Vec<u8>>>, until: Instant) -> Vec<u8> {
    reader.and_then(|r| r.recv_timeout(until.saturating_duration_since(Instant::now())).ok()).unwrap_or_default()
}

/// `: <stderr tail>` for a failure reason, or nothing when stderr was empty. Redacted before
/// it is cut: a cut inside a token leaves a piece that no rule recognises.
fn quoted(stderr: &[u8]) -> String {
    let tail = tail(&crate::core::redact::redact(&String::from_utf8_lossy(stderr)));
    if tail.is_empty() { tail } else { format!(": {tail}") }
}

/// Kill the process group `pgid` (std can only kill the one child). The shell's `kill` is
/// the portable way to signal a group without unsafe code; `-N` names a group in every
/// shell's `kill`, while dash's refuses `--`.
fn kill_group(pgid: u32) {
    let _ = Command::new("sh")
        .arg("-c")
        .arg(format!("kill -9 -{pgid} 2>/dev/null"))
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
        let hung = attempt(&settings("echo loading the model >&2; sleep 30 & sleep 30", 300), &prompt());
        assert!(
            matches!(&hung, Attempt::Failed(CallError::Call(r))
                if r.contains("gave no answer within 0.3 s") && r.ends_with(": loading the model")),
            "{hung:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(20));
    }

    #[test]
    fn a_background_child_holding_the_pipes_does_not_hold_up_the_answer() {
        let started = Instant::now();
        let done = attempt(&settings("sleep 30 & echo '{}'", 60_000), &prompt());
        assert!(matches!(&done, Attempt::Done(text) if text.trim() == "{}"), "{done:?}");
        assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    }

    #[test]
    fn a_secret_cut_by_the_stderr_tail_is_hidden_whole() {
        // The tail starts inside the token: what is left of it no rule would recognise.
        let stderr = format!("auth ghp_16C7e42F292c6912E7710c838347Ae178B4a{}", " x".repeat(290));
        let reason = CallError::Call(quoted(stderr.as_bytes())).redacted().to_string();
        assert!(!reason.contains("838347Ae178B4a"), "{reason}");
    }
}
