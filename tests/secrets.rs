//! Secrets of every kind, in every form a transcript holds them, reach no file of the
//! workspace, no file name, and nothing `search` or `status` prints.

use std::fs;
use std::path::Path;

use serde_json::json;

use crate::common::{Handbook, NOW};

/// Fake credentials of the kinds that once went through, each as it would be leaked.
const SECRETS: &[&str] = &[
    "xapp-1-A0123BCDEFG-1234567890123-0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d",
    "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",
    "ya29.a0AfH6SMBx3k9Lq2Zr7Tn4Wp1Yc8Vd5Ue0Fg",
    "R3disPassw0rdXyz",
    "whsec_8f3Kd92LmQp4Zx7Vn1Tb6Rc0Yw5Ha2Je",
    "Xk3m9Q2vL7pR4tY8wZ1aB5cD6eF0gH2jK4lM6nO8pQ%3D",
    "MyS3cr3tSqlPw",
    "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",
    "SK0123456789abcdef0123456789abcdef",
    "1234567890:AAHk3m9Q2vL7pR4tY8wZ1aB5cD6eF0gH2jK",
    "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "shpat_0123456789abcdef0123456789abcdef",
];

/// The halves of a GitHub token the transcript breaks across two lines.
const SPLIT: [&str; 2] = ["ghp_16C7e42F292c6912E77", "10c838347Ae178B4a"];
/// A token that only a JSON escape hides.
const ESCAPED: &str = "6C7e42F292c6912E7710c838347Ae178B4b";
/// A token in the session's id.
const IN_ID: &str = "ghp_36C7e42F292c6912E7710c838347Ae178B4c";

fn line(role: &str, minute: u32, content: &str) -> String {
    json!({"role": role, "timestamp": format!("2026-11-23T10:{minute:02}:00Z"), "content": content}).to_string()
}

/// A generic-JSONL session that leaks every one of the secrets above.
fn transcript(dir: &Path) {
    let mut lines = vec![json!({"session_id": format!("deploy-{IN_ID}"), "cwd": "/home/dev/deployer"}).to_string()];
    let mut minute = 0;
    for secret in SECRETS {
        let text = match *secret {
            s if s.starts_with("R3dis") => format!("The cache is at redis://:{s}@cache.internal:6379/0 for deploys."),
            s if s.ends_with("%3D") => {
                format!("Upload with https://acme.blob.core.windows.net/c/f.txt?sv=2022&sig={s} today.")
            }
            s if s.starts_with("MyS3") => format!("Load the dump with mysql -u root -p{s} -h db app for deploys."),
            s => format!("Deploy with the credential {s} from now on."),
        };
        lines.push(line("user", minute, &text));
        minute += 1;
    }
    lines.push(line("user", minute, &format!("Deploy with the token {}\n{} after the build.", SPLIT[0], SPLIT[1])));
    lines.push(
        json!({"role": "tool_call", "timestamp": "2026-11-23T10:40:00Z", "name": "shell", "id": "c1",
        "command": "curl -s https://api.example.com/deploy/config"})
        .to_string(),
    );
    let output = format!("{{\"deploy_token\":\"\\u0067hp_{ESCAPED}\"}}\nerror: deploy failed");
    lines.push(
        json!({"role": "tool", "timestamp": "2026-11-23T10:41:00Z", "id": "c1", "exit_code": 1,
        "content": output})
        .to_string(),
    );
    fs::write(dir.join("deploy.jsonl"), lines.join("\n") + "\n").unwrap();
}

fn run(hb: &Handbook, args: &[&str]) -> String {
    let output = hb.cmd().env("HANDBOOK_NOW", NOW).env("HANDBOOK_MAX_UNUSED_DAYS", "3650").args(args).output().unwrap();
    assert!(output.status.code().is_some_and(|c| c <= 1), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

#[test]
fn no_secret_reaches_the_workspace_a_file_name_or_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    transcript(dir.path());
    let hb = Handbook::new();
    let mut printed = run(&hb, &["update", "--all", dir.path().to_str().unwrap()]);
    for args in [
        &["search", "--in", "transcripts", "--limit", "0", "deploy"][..],
        &["search", "--in", "transcripts", "--limit", "0", "--json", "deploy"],
        &["search", "--limit", "0", "deploy"],
        &["status"],
    ] {
        printed.push_str(&run(&hb, args));
    }
    assert!(printed.contains("[REDACTED:"), "the secrets' lines were not found at all: {printed}");
    let needles: Vec<&str> = SECRETS.iter().copied().chain(SPLIT).chain([ESCAPED, &IN_ID[4..]]).collect();
    for needle in &needles {
        hb.assert_nowhere(needle);
        assert!(!printed.contains(needle), "{needle} was printed: {printed}");
        for (path, _) in hb.every_file() {
            assert!(!path.to_string_lossy().contains(needle), "{needle} in a file name: {}", path.display());
        }
    }
    // The first half of the broken token is not a keyword either (keywords are lowercased).
    hb.assert_nowhere(&SPLIT[0].to_lowercase());
}
