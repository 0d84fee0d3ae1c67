//! Any OpenAI-compatible chat-completions server: OpenAI, Ollama, llama.cpp, vLLM, LM
//! Studio, OpenRouter.

use serde_json::{Value, json};

use super::http::{post, status_attempt};
use super::{Attempt, CallError, JsonMode, finished};
use crate::config::EngineSettings;
use crate::core::model::Prompt;

/// One request, stepping down the JSON modes while the server rejects them (400 or 422):
/// `json_schema`, then `json_object` with the schema, then plain text. The mode that worked
/// is remembered in `mode` for the rest of the run.
pub(crate) fn attempt(agent: &ureq::Agent, settings: &EngineSettings, prompt: &Prompt, mode: &mut JsonMode) -> Attempt {
    let url = format!("{}/chat/completions", settings.base_url);
    let auth = settings.api_key.as_ref().map(|key| format!("Bearer {}", key.expose()));
    let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("authorization", a.as_str())).collect();
    let mut current = *mode;
    loop {
        let answer = match post(agent, &url, &headers, &request(settings, prompt, current)) {
            Ok(answer) => answer,
            Err(attempt) => return attempt,
        };
        if (200..300).contains(&answer.status) {
            return match reply_text(&answer.body) {
                Ok((text, cut_off)) => {
                    *mode = current;
                    finished(&url, text, cut_off, settings.answer_tokens())
                }
                Err(reason) => Attempt::Failed(CallError::Call(format!("{url}: {reason}"))),
            };
        }
        match (rejects_format(answer.status, &answer.body), current) {
            (true, JsonMode::Schema) => current = JsonMode::Object,
            (true, JsonMode::Object) => current = JsonMode::Text,
            _ => return status_attempt(&url, &answer),
        }
    }
}

/// True when an error answer may be the server refusing the response format: a 400 or 422
/// that is not about the prompt's length, or any error that names the format (some servers
/// answer a validation error with 500).
fn rejects_format(status: u16, body: &str) -> bool {
    if ["response_format", "json_schema", "json_object"].iter().any(|w| body.contains(w)) {
        return status >= 400;
    }
    let lower = body.to_lowercase();
    let too_long = ["context", "too many tokens", "too long", "maximum length"].iter().any(|w| lower.contains(w));
    matches!(status, 400 | 422) && !too_long
}

fn request(settings: &EngineSettings, prompt: &Prompt, mode: JsonMode) -> Value {
    let mut body = json!({
        "model": settings.model.as_deref().unwrap_or_default(),
        "messages": [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user}
        ]
    });
    // OpenAI's own API wants the newer name (its reasoning models refuse `max_tokens`); the
    // servers that copy its API take the older one.
    let field = if settings.base_url.contains("://api.openai.com") { "max_completion_tokens" } else { "max_tokens" };
    body[field] = json!(settings.answer_tokens());
    let format = match mode {
        JsonMode::Schema => Some(json!({
            "type": "json_schema",
            "json_schema": {"name": prompt.schema_name, "schema": prompt.schema, "strict": true}
        })),
        JsonMode::Object => Some(json!({"type": "json_object", "schema": prompt.schema})),
        JsonMode::Text => None,
    };
    if let Some(format) = format {
        body["response_format"] = format;
    }
    body
}

/// The text of the first choice's message.
/// The reply's text, and whether the server cut it off at the token limit.
fn reply_text(body: &str) -> Result<(String, bool), String> {
    let value: Value = serde_json::from_str(body).map_err(|e| format!("the reply is not JSON ({e})"))?;
    let content = value.pointer("/choices/0/message/content").ok_or("the reply has no message content")?;
    let cut_off = value.pointer("/choices/0/finish_reason").and_then(Value::as_str) == Some("length");
    match content {
        Value::String(text) => Ok((text.clone(), cut_off)),
        // Some servers answer with content parts.
        Value::Array(parts) => {
            Ok((parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect(), cut_off))
        }
        Value::Null => {
            let refusal = value.pointer("/choices/0/message/refusal").and_then(Value::as_str);
            Err(refusal.map_or("the reply's message is empty".to_string(), |r| format!("the model refused: {r}")))
        }
        _ => Err("the reply's message content is not text".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_refusals_are_recognised() {
        assert!(rejects_format(400, "anything"));
        assert!(rejects_format(500, "{'loc': ('body', 'response_format', 'type'), 'input': 'json_schema'}"));
        assert!(!rejects_format(500, "internal error"));
        assert!(!rejects_format(429, "rate limited"));
        // A prompt over the context is not fixed by another format; the error is reported.
        assert!(!rejects_format(400, "This model's maximum context length is 8192 tokens"));
        assert!(!rejects_format(400, r#"{"error":{"type":"exceed_context_size_error"}}"#));
    }

    #[test]
    fn replies_are_read_in_every_shape() {
        assert_eq!(reply_text(r#"{"choices":[{"message":{"content":"hi"}}]}"#).unwrap(), ("hi".to_string(), false));
        let cut = r#"{"choices":[{"message":{"content":"{\"a\": \"b"},"finish_reason":"length"}]}"#;
        assert_eq!(reply_text(cut).unwrap(), ("{\"a\": \"b".to_string(), true));
        let parts = r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}"#;
        assert_eq!(reply_text(parts).unwrap().0, "ab");
        let refusal = r#"{"choices":[{"message":{"content":null,"refusal":"no"}}]}"#;
        assert_eq!(reply_text(refusal).unwrap_err(), "the model refused: no");
        assert_eq!(reply_text("{}").unwrap_err(), "the reply has no message content");
        assert!(reply_text("<html>").unwrap_err().starts_with("the reply is not JSON"));
    }
}
