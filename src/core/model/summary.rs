//! The summary of a model consolidation, the pure half: the request (the consolidated
//! `MEMORY.md` and the token cap), the answer read into [`SummaryParts`], and the summary
//! assembled from the built-in one with the model's parts in place (once
//! `core::model::ground` has dropped what `MEMORY.md` does not support).

use std::collections::BTreeSet;
use std::fmt::Write;

use serde_json::{Value, json};

use crate::core::extract::clip_at_word;
use crate::core::extract::render::one_line;
use crate::core::model::consolidate::{MAX_LESSON_CHARS, MAX_LESSONS, fit_tokens, string_list};
use crate::core::model::{AnswerError, Prompt, json_object};
use crate::core::redact::redact;
use crate::core::templates;

/// Longest user profile kept, in characters.
const MAX_PROFILE_CHARS: usize = 1500;

/// The summary's parts a model writes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SummaryParts {
    pub(crate) profile: String,
    pub(crate) preferences: Vec<String>,
    pub(crate) tips: Vec<String>,
}

pub(crate) fn summary_schema() -> Value {
    let list = json!({"type": "array", "items": {"type": "string"}});
    json!({
        "type": "object",
        "properties": {"user_profile": {"type": "string"}, "user_preferences": list, "general_tips": list},
        "required": ["user_profile", "user_preferences", "general_tips"],
        "additionalProperties": false
    })
}

/// The summary request: the consolidated `MEMORY.md` (cut to `budget` tokens, head and tail
/// kept) and the summary's token cap.
pub(crate) fn summary_prompt(
    system_template: &str,
    template: &str,
    memory: &str,
    budget: usize,
    cap_tokens: usize,
) -> Prompt {
    let memory = fit_tokens(memory, budget);
    let user = templates::render(template, &[("memory", memory.trim_end()), ("max_tokens", &cap_tokens.to_string())]);
    Prompt::new("summary", system_template.to_string(), &user, summary_schema(), "summary")
}

pub(crate) fn parse_summary_answer(reply: &str) -> Result<SummaryParts, AnswerError> {
    let object = json_object(reply)?;
    let profile = match object.get("user_profile") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => return Err(AnswerError::wrong_type("user_profile", other, "a string")),
    };
    let clean = |items: Vec<String>| -> Vec<String> {
        let mut seen = BTreeSet::new();
        items
            .iter()
            .map(|s| redact(&one_line(s.trim().trim_start_matches(['-', '*', ' ']))).into_owned())
            .map(|s| clip_at_word(&s, MAX_LESSON_CHARS))
            .filter(|s| !s.is_empty() && seen.insert(s.to_lowercase()))
            .take(MAX_LESSONS)
            .collect()
    };
    Ok(SummaryParts {
        profile: clip_at_word(&redact(&one_line(&profile)), MAX_PROFILE_CHARS),
        preferences: clean(string_list(&object, "user_preferences")?),
        tips: clean(string_list(&object, "general_tips")?),
    })
}

/// The summary with the model's parts in place of the built-in ones: the profile, the
/// preferences (after the user's notes, which stay first) and the tips. A part the model
/// left empty keeps the built-in text; the layout and "What's in Memory" stay as built.
pub(crate) fn assemble_summary(builtin: &str, parts: &SummaryParts) -> String {
    let mut out = String::new();
    let mut sections = builtin.split("\n## ");
    out.push_str(sections.next().unwrap_or(""));
    for section in sections {
        let (title, body) = section.split_once('\n').unwrap_or((section, ""));
        let body = match title.trim() {
            "User Profile" if !parts.profile.is_empty() => format!("\n{}\n", parts.profile),
            "User preferences" if !parts.preferences.is_empty() => {
                let mut lines: Vec<String> =
                    body.lines().filter(|l| l.ends_with("(note)")).map(str::to_string).collect();
                lines.extend(parts.preferences.iter().map(|p| format!("- {p}")));
                format!("\n{}\n", lines.join("\n"))
            }
            "General Tips" if !parts.tips.is_empty() => {
                format!("\n{}\n", parts.tips.iter().map(|t| format!("- {t}")).collect::<Vec<_>>().join("\n"))
            }
            _ => body.to_string(),
        };
        let _ = write!(out, "\n## {title}\n{body}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_takes_the_models_parts_and_keeps_the_layout() {
        let builtin = "v1\n\n## User Profile\n\nBuilt-in profile.\n\n## User preferences\n\n- Mine (note)\n- \"Use pnpm\" (preference; app)\n\n## General Tips\n\n- app: verified `make`\n\n## What's in Memory\n\n### /w/app\n\n#### 2026-11-21\n\n- Add a test (success): pnpm\n";
        let parts = SummaryParts {
            profile: "A web developer who prefers pnpm.".to_string(),
            preferences: vec!["Use pnpm, never npm".to_string()],
            tips: Vec::new(),
        };
        let summary = assemble_summary(builtin, &parts);
        assert_eq!(
            summary,
            "v1\n\n## User Profile\n\nA web developer who prefers pnpm.\n\n## User preferences\n\n- Mine (note)\n- Use pnpm, never npm\n\n## General Tips\n\n- app: verified `make`\n\n## What's in Memory\n\n### /w/app\n\n#### 2026-11-21\n\n- Add a test (success): pnpm\n"
        );
        assert_eq!(assemble_summary(builtin, &SummaryParts::default()), builtin);
    }
}
