//! Model engines, the pure half: the prompts handbook sends, the transcript as a model reads
//! it ([`transcript`]), the consolidation requests and answers ([`consolidate`], the
//! summary's in [`summary`]), and the checks every answer passes before anything of it is
//! kept ([`json_object`] finds the JSON, an [`AnswerError`] says what was wrong with it,
//! [`ground`] drops what no input supports). Asking (the templates on disk, HTTP, a
//! command, retries) is in `edge::model`.
//!
//! A model writes the lessons; handbook owns every format. Answers are JSON whose strings are
//! checked, clipped and redacted, and the files are assembled around them, so a weak or
//! confused model can make a session's lessons poorer but cannot break the workspace.

mod answer;
pub(crate) mod consolidate;
pub(crate) mod ground;
pub(crate) mod summary;
pub(crate) mod transcript;

use serde_json::{Value, json};

use crate::core::extract::render::one_line;
use crate::core::extract::{Facts, Outcome, TaskFacts, clip_at_word};
use crate::core::filter::PROMPT_MARKER;
use crate::core::redact::redact;
use crate::core::templates;
use crate::core::tokens::estimate;

pub(crate) use answer::{AnswerError, json_object, opens_with_complete_object};

/// Longest `raw_memory` or `rollout_summary` kept from an answer, in bytes.
const MAX_ANSWER_FIELD: usize = 32 * 1024;
/// Longest slug kept, in characters.
const MAX_SLUG: usize = 80;

/// One request to a model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Prompt {
    /// What the prompt is for, in errors and logs: `stage one`, `task group …`, `summary`.
    pub(crate) purpose: String,
    pub(crate) system: String,
    /// Always starts with handbook's marker, so a transcript of this very request (an agent
    /// CLI run as the `command` engine writes one) is recognised and never extracted.
    pub(crate) user: String,
    /// The JSON schema the answer must follow.
    pub(crate) schema: Value,
    /// The schema's name, for servers that want one.
    pub(crate) schema_name: &'static str,
}

impl Prompt {
    pub(crate) fn new(
        purpose: impl Into<String>,
        system: String,
        user: &str,
        schema: Value,
        schema_name: &'static str,
    ) -> Prompt {
        Prompt { purpose: purpose.into(), system, user: format!("{PROMPT_MARKER}\n{user}"), schema, schema_name }
    }

    /// Estimated tokens of the whole request.
    pub(crate) fn tokens(&self) -> usize {
        estimate(&self.system) + estimate(&self.user)
    }

    /// The whole prompt as one text, for engines without a separate system prompt.
    pub(crate) fn as_text(&self) -> String {
        format!("{}\n\n{}", self.system.trim_end(), self.user)
    }
}

/// The stage-one answer's schema: the three fields handbook stores per session.
pub(crate) fn stage_one_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "rollout_summary": {"type": "string"},
            "rollout_slug": {"type": ["string", "null"]},
            "raw_memory": {"type": "string"}
        },
        "required": ["rollout_summary", "rollout_slug", "raw_memory"],
        "additionalProperties": false
    })
}

/// What a model made of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StageOne {
    /// Nothing reusable (an empty `raw_memory` or `rollout_summary`).
    NoOp,
    Memory {
        raw_memory: String,
        rollout_summary: String,
        rollout_slug: String,
    },
}

/// Read a stage-one answer: the first JSON object in the reply, with string fields
/// `raw_memory` and `rollout_summary` (and optionally `rollout_slug`). Extra fields are
/// ignored. Everything kept is clipped and redacted. An error says what was wrong.
pub(crate) fn parse_stage_one(reply: &str) -> Result<StageOne, AnswerError> {
    let object = json_object(reply)?;
    let field = |name: &'static str| -> Result<String, AnswerError> {
        match object.get(name) {
            Some(Value::String(s)) => Ok(s.trim().to_string()),
            Some(other) => Err(AnswerError::wrong_type(name, other, "a string")),
            None => Err(AnswerError::MissingField(name)),
        }
    };
    let raw_memory = field("raw_memory")?;
    let rollout_summary = field("rollout_summary")?;
    let slug = match object.get("rollout_slug") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => return Err(AnswerError::wrong_type("rollout_slug", other, "a string")),
    };
    if raw_memory.is_empty() || rollout_summary.is_empty() {
        return Ok(StageOne::NoOp);
    }
    Ok(StageOne::Memory {
        raw_memory: clip_lines(&redact(&raw_memory), MAX_ANSWER_FIELD),
        rollout_summary: clip_lines(&redact(&rollout_summary), MAX_ANSWER_FIELD),
        // Redacted before it is lowercased, when a key is still recognisable.
        rollout_slug: slug_of(&redact(&slug)),
    })
}

/// At most `max` bytes of `text`, cut at a line end, with a marker when cut.
pub(crate) fn clip_lines(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text[..end].rfind('\n').unwrap_or(end);
    format!("{}\n[… {} bytes cut …]", &text[..cut], text.len() - cut)
}

/// A file-name-safe slug: lowercase ASCII letters, digits, `-` and `_`, at most 80 characters.
fn slug_of(text: &str) -> String {
    let mut slug: String = text
        .trim()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c.to_ascii_lowercase() } else { '_' })
        .take(MAX_SLUG)
        .collect();
    while slug.ends_with('_') || slug.ends_with('-') {
        slug.pop();
    }
    slug.trim_start_matches(['_', '-']).to_string()
}

/// Facts for a session whose lessons only a model found (the built-in extractor saw none):
/// a task per `### Task` block of its raw memory (else one for the session), titled and
/// judged as the model wrote, with the keywords it gave. Consolidation lays out tasks from
/// these.
pub(crate) fn facts_from_answer(raw_memory: &str, rollout_summary: &str) -> Facts {
    let outcome_of = |text: &str| match text.trim().trim_matches(['`', '*', '.']).to_ascii_lowercase().as_str() {
        "success" => Outcome::Success,
        "partial" => Outcome::Partial,
        "fail" | "failure" | "failed" => Outcome::Fail,
        _ => Outcome::Uncertain,
    };
    let mut tasks: Vec<TaskFacts> = Vec::new();
    let mut keywords = Vec::new();
    let mut session_outcome = None;
    for line in raw_memory.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("### Task") {
            let title = rest.split_once(':').map_or(rest, |(_, t)| t).trim();
            tasks.push(TaskFacts::new(clip_at_word(&one_line(title), 120), 0));
        } else if let Some(value) = line.strip_prefix("task_outcome:") {
            match tasks.last_mut() {
                Some(task) => task.outcome = outcome_of(value),
                None => session_outcome = Some(outcome_of(value)),
            }
        } else if let Some(value) = line.strip_prefix("keywords:")
            && keywords.is_empty()
        {
            keywords = value
                .split(',')
                .map(|k| k.trim().trim_matches('`').to_lowercase())
                .filter(|k| !k.is_empty() && k.len() <= 40)
                .take(10)
                .collect();
        }
    }
    if tasks.is_empty() {
        let title = rollout_summary
            .lines()
            .find_map(|l| l.trim().strip_prefix("# "))
            .map(|t| clip_at_word(&one_line(t), 120))
            .unwrap_or_else(|| "Session".to_string());
        let mut task = TaskFacts::new(title, 0);
        task.outcome = session_outcome.unwrap_or_default();
        tasks.push(task);
    }
    let outcome = session_outcome.unwrap_or_else(|| tasks[0].outcome);
    Facts { tasks, keywords, outcome, user_messages: 0, commands: 0, failed_commands: 0 }
}

/// What a stage-one request says about a session.
pub(crate) struct StageOneInput<'a> {
    pub(crate) rollout_path: &'a str,
    pub(crate) cwd: &'a str,
    pub(crate) agent: &'a str,
    pub(crate) project: &'a str,
    /// The transcript as [`transcript::ModelTranscript`] rendered it.
    pub(crate) transcript: &'a str,
}

/// The stage-one request for one session, from the system and input templates.
pub(crate) fn stage_one_prompt(system_template: &str, input_template: &str, input: &StageOneInput) -> Prompt {
    let user = templates::render(
        input_template,
        &[
            ("rollout_path", input.rollout_path),
            ("cwd", input.cwd),
            ("agent", input.agent),
            ("project", input.project),
            ("transcript", input.transcript),
        ],
    );
    Prompt::new("stage one", system_template.to_string(), &user, stage_one_schema(), "stage_one")
}

/// Tokens left for the transcript in a context of `context_tokens`: 70% of the window (the
/// rest is for the answer and for tokenizers that count more than we do), less the prompt's
/// own text.
pub(crate) fn transcript_budget(context_tokens: usize, system_template: &str, input_template: &str) -> usize {
    let frame = estimate(system_template) + estimate(input_template) + 64;
    (context_tokens * 7 / 10).saturating_sub(frame).max(256)
}

#[cfg(test)]
mod tests;
