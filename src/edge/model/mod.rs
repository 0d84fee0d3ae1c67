//! Model engines, the I/O half: asking a model and getting its answer back. [`Model`] is
//! what `extract` and `consolidate` use: the templates, the client, and every answer checked
//! (and a malformed one asked for again) before anything of it is kept. Below it, [`Client`]
//! makes one call with retries: `openai` speaks the chat-completions API any
//! OpenAI-compatible server offers, `anthropic` the Messages API, `command` runs a
//! command-line LLM. The prompts and the checks on answers are pure and live in
//! `core::model`.

mod anthropic;
mod command;
mod engine;
mod http;
mod openai;
mod retry;

use std::time::Duration;

use crate::config::{EngineKind, EngineSettings};
use crate::core::model::Prompt;

pub(crate) use engine::{CONSOLIDATE_TEMPLATES, Consolidation, EXTRACT_TEMPLATES, Model};
pub(crate) use retry::{MAX_WAIT, backoff};

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallError {
    /// This call failed (a malformed answer, a timeout, an error status after the retries,
    /// a command that exited non-zero): the session fails and is retried on a later run.
    Call(String),
    /// Every call would fail the same way (a refused key, an unknown model, a server that
    /// cannot be found, a command that cannot start): the run stops and says what to fix.
    Setup(String),
    /// The model answered, but not with what was asked (no JSON, the wrong fields, an
    /// answer cut off at the token limit). Like `Call`, but worth asking again at once:
    /// sampling may well give a good answer the next time.
    Malformed(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Call(reason) | CallError::Setup(reason) | CallError::Malformed(reason) => f.write_str(reason),
        }
    }
}

impl std::error::Error for CallError {}

impl CallError {
    /// The error with any secret in its reason redacted: reasons quote server answers,
    /// command lines and stderr, and end up in `sources.json` and on the terminal.
    pub(crate) fn redacted(self) -> CallError {
        let clean = |reason: String| crate::core::redact::redact(&reason).into_owned();
        match self {
            CallError::Call(reason) => CallError::Call(clean(reason)),
            CallError::Setup(reason) => CallError::Setup(clean(reason)),
            CallError::Malformed(reason) => CallError::Malformed(clean(reason)),
        }
    }
}

/// What one attempt gave, for the retry loop.
#[derive(Debug)]
enum Attempt {
    Done(String),
    /// Worth trying again (429, 5xx, a dropped connection), after `after` if the server said.
    /// When the server could not be reached at all, running out of retries stops the run.
    Retry {
        reason: String,
        after: Option<Duration>,
        unreachable: bool,
    },
    Failed(CallError),
}

/// A successful reply's text; but an answer the server cut off at the token limit before
/// its JSON object closed is a failure that says so, not a puzzle for the parser.
fn finished(url: &str, text: String, cut_off: bool, limit: usize) -> Attempt {
    if cut_off && !crate::core::model::opens_with_complete_object(&text) {
        return Attempt::Failed(CallError::Malformed(format!(
            "{url}: the answer was cut off at the limit of {limit} tokens before its JSON was complete"
        )));
    }
    Attempt::Done(text)
}

/// How an OpenAI-compatible server takes the answer's schema. Servers differ: the first
/// that works is kept for the rest of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonMode {
    /// `response_format: {type: json_schema, json_schema: {...}}` (OpenAI, vLLM, Ollama).
    Schema,
    /// `response_format: {type: json_object, schema: {...}}` (llama.cpp and most others).
    Object,
    /// No response format: the first JSON object in the text.
    Text,
}

/// A model, as one phase of a run uses it.
pub(crate) struct Client {
    settings: EngineSettings,
    agent: ureq::Agent,
    json_mode: JsonMode,
    /// Input tokens sent this run (estimated).
    pub(crate) sent_tokens: u64,
    /// Requests made this run, retries included.
    pub(crate) requests: u64,
}

impl Client {
    pub(crate) fn new(settings: &EngineSettings) -> Client {
        Client {
            agent: http::agent(settings.timeout),
            settings: settings.clone(),
            json_mode: JsonMode::Schema,
            sent_tokens: 0,
            requests: 0,
        }
    }

    /// Ask the model; the reply's text. 429 and 5xx answers (and dropped connections) are
    /// retried with exponential backoff and jitter, honouring `Retry-After`.
    pub(crate) fn complete(&mut self, prompt: &Prompt) -> Result<String, CallError> {
        self.sent_tokens += prompt.tokens() as u64;
        let mut retries = 0;
        loop {
            self.requests += 1;
            let attempt = match self.settings.kind {
                EngineKind::OpenAi => openai::attempt(&self.agent, &self.settings, prompt, &mut self.json_mode),
                EngineKind::Anthropic => anthropic::attempt(&self.agent, &self.settings, prompt),
                EngineKind::Command => command::attempt(&self.settings, prompt),
                EngineKind::Builtin => {
                    return Err(CallError::Setup("the builtin engine has no model to call".to_string()));
                }
            };
            match attempt {
                Attempt::Done(text) => return Ok(text),
                Attempt::Failed(error) => return Err(error),
                // A rate limit of an hour holds for every session: stop and say when to come back.
                Attempt::Retry { reason, after: Some(after), .. } if after > MAX_WAIT => {
                    return Err(CallError::Setup(format!(
                        "{reason}; the server asks to wait {} s before the next request, so this run stops here",
                        after.as_secs()
                    )));
                }
                Attempt::Retry { reason, unreachable, .. } if retries >= self.settings.max_retries => {
                    let tries = retries + 1;
                    let plural = if tries == 1 { "try" } else { "tries" };
                    let reason = format!("{reason} (gave up after {tries} {plural})");
                    return Err(if unreachable { CallError::Setup(reason) } else { CallError::Call(reason) });
                }
                Attempt::Retry { after, .. } => {
                    std::thread::sleep(backoff(self.settings.retry_delay, retries, after));
                    retries += 1;
                }
            }
        }
    }
}
