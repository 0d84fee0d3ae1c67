//! A scripted HTTP server on loopback, inside the test process: it records every request
//! and answers each with what the test's script says (a status, headers, a body, a delay).
//! Model engines are tested against it, never against the network.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::Value;

/// A request as the stub received it.
#[derive(Debug, Clone)]
pub struct Request {
    pub path: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The project of a consolidation's task-group request, or `None` for another request.
    pub fn task_group(&self) -> Option<String> {
        let user = self.user_message();
        if !user.contains("Rewrite the lessons of one task group") {
            return None;
        }
        Some(user.split('`').nth(1).unwrap_or("?").to_string())
    }

    /// The user message of a chat-completions or Messages request.
    pub fn user_message(&self) -> String {
        let json = self.json();
        let messages = json["messages"].as_array().cloned().unwrap_or_default();
        messages
            .iter()
            .filter(|m| m["role"] == "user")
            .filter_map(|m| m["content"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// What the stub answers.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Wait this long before answering (a hung server).
    pub delay: Duration,
}

impl Reply {
    pub fn json(status: u16, body: Value) -> Reply {
        Reply { status, headers: Vec::new(), body: body.to_string(), delay: Duration::ZERO }
    }

    /// A chat-completions answer whose message is `content`.
    pub fn chat(content: &str) -> Reply {
        Reply::json(
            200,
            serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}),
        )
    }

    /// A chat-completions answer the server cut off at the token limit.
    pub fn chat_cut_off(content: &str) -> Reply {
        Reply::json(
            200,
            serde_json::json!({"choices": [{"index": 0, "finish_reason": "length",
                "message": {"role": "assistant", "content": content}}]}),
        )
    }

    /// A Messages API answer whose text is `content`.
    pub fn messages(content: &str) -> Reply {
        Reply::json(200, serde_json::json!({"type": "message", "content": [{"type": "text", "text": content}]}))
    }

    /// A task group's answer with these lessons, grounded or not, as the test wants.
    pub fn lessons(preferences: &[&str], knowledge: &[&str], failures: &[&str]) -> Reply {
        Reply::chat(
            &serde_json::json!({"user_preferences": preferences, "reusable_knowledge": knowledge, "failures": failures})
                .to_string(),
        )
    }

    /// A summary answer with these parts.
    pub fn summary(profile: &str, preferences: &[&str], tips: &[&str]) -> Reply {
        Reply::chat(
            &serde_json::json!({"user_profile": profile, "user_preferences": preferences, "general_tips": tips})
                .to_string(),
        )
    }

    pub fn error(status: u16, message: &str) -> Reply {
        Reply::json(status, serde_json::json!({"error": {"message": message}}))
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub fn after(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }
}

type Script = dyn Fn(&Request, usize) -> Reply + Send + Sync;

/// The running stub; it stops when dropped.
pub struct Stub {
    pub url: String,
    requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
    port: u16,
}

impl Stub {
    /// Serve `script(request, index)` for each request, `index` counting from 0.
    pub fn start(script: impl Fn(&Request, usize) -> Reply + Send + Sync + 'static) -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests: Arc<Mutex<Vec<Request>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let script: Arc<Script> = Arc::new(script);
        let (seen, stopped) = (requests.clone(), stop.clone());
        thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (seen, script) = (seen.clone(), script.clone());
                thread::spawn(move || serve(stream, &seen, &*script));
            }
        });
        Stub { url: format!("http://127.0.0.1:{port}"), requests, stop, port }
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(stream: TcpStream, seen: &Mutex<Vec<Request>>, script: &Script) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_lowercase(), value.trim().to_string()));
        }
    }
    let length: usize =
        headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let request = Request { path, headers, body: String::from_utf8_lossy(&body).into_owned() };
    let index = {
        let mut seen = seen.lock().unwrap();
        seen.push(request.clone());
        seen.len() - 1
    };
    let reply = script(&request, index);
    thread::sleep(reply.delay);
    let mut out = format!(
        "HTTP/1.1 {} Stub\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    for (name, value) in &reply.headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    out.push_str(&reply.body);
    let mut stream = stream;
    let _ = stream.write_all(out.as_bytes());
    let _ = stream.flush();
}
