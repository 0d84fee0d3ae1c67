//! The HTTP call both API engines make: one JSON POST, every status returned (not turned
//! into an error) so the engine can read the server's explanation.

use std::time::Duration;

use serde_json::Value;

use super::retry::parse_retry_after;
use super::{Attempt, CallError};

/// The longest answer body read, in bytes.
const MAX_BODY: u64 = 16 * 1024 * 1024;

pub(crate) fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .user_agent(concat!("handbook/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// A server's answer.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) retry_after: Option<Duration>,
    pub(crate) body: String,
}

/// POST `body` to `url`. A transport failure is already an [`Attempt`]: a timeout fails the
/// call, a refused or dropped connection is worth retrying.
pub(crate) fn post(agent: &ureq::Agent, url: &str, headers: &[(&str, &str)], body: &Value) -> Result<Answer, Attempt> {
    let mut request = agent.post(url).header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let mut response = match request.send(body.to_string()) {
        Ok(response) => response,
        Err(e) => return Err(transport(url, e)),
    };
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, jiff::Timestamp::now()));
    let body = match response.body_mut().with_config().limit(MAX_BODY).read_to_string() {
        Ok(body) => body,
        Err(e) => return Err(transport(url, e)),
    };
    Ok(Answer { status, retry_after, body })
}

fn transport(url: &str, error: ureq::Error) -> Attempt {
    match error {
        ureq::Error::Timeout(_) => Attempt::Failed(CallError::Call(format!("no answer from {url} within the timeout"))),
        ureq::Error::HostNotFound => {
            Attempt::Failed(CallError::Setup(format!("cannot reach the model server at {url}: host not found")))
        }
        ureq::Error::BadUri(uri) => Attempt::Failed(CallError::Setup(format!("bad model server URL {uri:?}"))),
        other => Attempt::Retry {
            reason: format!("cannot reach the model server at {url}: {other}"),
            after: None,
            unreachable: true,
        },
    }
}

/// What a non-success status means: retry (429, 408, 5xx, 529), a setup problem (401, 403,
/// 404), or a failed call; `detail` is the server's own message.
pub(crate) fn status_attempt(url: &str, answer: &Answer) -> Attempt {
    let detail = error_detail(&answer.body);
    let reason = format!("{url} answered {}: {detail}", answer.status);
    match answer.status {
        408 | 429 | 500..=599 => Attempt::Retry { reason, after: answer.retry_after, unreachable: false },
        401 | 403 => Attempt::Failed(CallError::Setup(format!("{reason} (check the API key)"))),
        404 => Attempt::Failed(CallError::Setup(format!("{reason} (check the base URL and the model name)"))),
        _ => Attempt::Failed(CallError::Call(reason)),
    }
}

/// The error message in a server's error body (`{"error": {"message": …}}` and the like),
/// else the start of the body, redacted.
pub(crate) fn error_detail(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.pointer("/error"))
            .or_else(|| v.pointer("/message"))
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    let text = message.unwrap_or_else(|| body.trim().to_string());
    // Redacted before it is joined and clipped: a clip inside a token leaves a piece that no
    // rule recognises, and joining lines would hide a token broken across them.
    let text = crate::core::redact::redact(&text);
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(300).collect();
    if text.is_empty() { "(no body)".to_string() } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_cut_by_the_clipped_error_body_is_hidden_whole() {
        // The message is clipped to 300 characters inside the token.
        let message = format!("{}ghp_16C7e42F292c6912E7710c838347Ae178B4a", "word ".repeat(56));
        let body = serde_json::json!({"error": {"message": message}}).to_string();
        let answer = Answer { status: 400, retry_after: None, body };
        let Attempt::Failed(error) = status_attempt("http://model", &answer) else { panic!("not a failure") };
        let reason = error.redacted().to_string();
        assert!(!reason.contains("ghp_16C7e42F"), "{reason}");
        // A body that is not JSON, with the token broken across lines.
        let answer = Answer {
            status: 400,
            retry_after: None,
            body: "bad key ghp_16C7e42F292c\n6912E7710c838347Ae178B4a".into(),
        };
        let Attempt::Failed(error) = status_attempt("http://model", &answer) else { panic!("not a failure") };
        let reason = error.redacted().to_string();
        assert!(!reason.contains("ghp_16C7e42F"), "{reason}");
    }
}
