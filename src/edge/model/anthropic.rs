//! Anthropic's Messages API.

use serde_json::{Value, json};

use super::http::{post, status_attempt};
use super::{Attempt, CallError, finished};
use crate::config::EngineSettings;
use crate::core::model::Prompt;

const API_VERSION: &str = "2023-06-01";

pub(crate) fn attempt(agent: &ureq::Agent, settings: &EngineSettings, prompt: &Prompt) -> Attempt {
    let url = format!("{}/v1/messages", settings.base_url);
    let key = settings.api_key.as_ref().map(|k| k.expose()).unwrap_or_default();
    let headers = [("x-api-key", key), ("anthropic-version", API_VERSION)];
    let body = json!({
        "model": settings.model.as_deref().unwrap_or_default(),
        "max_tokens": settings.answer_tokens(),
        "system": prompt.system,
        "messages": [{"role": "user", "content": prompt.user}]
    });
    let answer = match post(agent, &url, &headers, &body) {
        Ok(answer) => answer,
        Err(attempt) => return attempt,
    };
    if !(200..300).contains(&answer.status) {
        return status_attempt(&url, &answer);
    }
    match reply_text(&answer.body) {
        Ok((text, cut_off)) => finished(&url, text, cut_off, settings.answer_tokens()),
        Err(reason) => Attempt::Failed(CallError::Call(format!("{url}: {reason}"))),
    }
}

/// The text blocks of a message, joined, and whether it stopped at the token limit.
fn reply_text(body: &str) -> Result<(String, bool), String> {
    let value: Value = serde_json::from_str(body).map_err(|e| format!("the reply is not JSON ({e})"))?;
    let blocks = value.get("content").and_then(Value::as_array).ok_or("the reply has no content")?;
    let text: String = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    if text.trim().is_empty() {
        return Err("the reply holds no text".to_string());
    }
    Ok((text, value.get("stop_reason").and_then(Value::as_str) == Some("max_tokens")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_blocks_are_joined() {
        let body = r#"{"content":[{"type":"text","text":"{\"a\":"},{"type":"tool_use"},{"type":"text","text":"1}"}]}"#;
        assert_eq!(reply_text(body).unwrap(), ("{\"a\":1}".to_string(), false));
        assert_eq!(reply_text(r#"{"content":[]}"#).unwrap_err(), "the reply holds no text");
        assert_eq!(reply_text(r#"{"type":"error"}"#).unwrap_err(), "the reply has no content");
    }
}
