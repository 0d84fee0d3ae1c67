//! `handbook config`: every setting with its origin, in text and JSON, and never a key.

use std::fs;

use crate::common::{Handbook, json_lines};

const CANARY: &str = "sk-canary-7f3a9c1e5b2d4f6a8c0e";

/// `handbook config` with a config file, a variable, a flag and a canary key; stdout and
/// stderr of a text and a JSON run.
fn config_runs(hb: &Handbook) -> (String, String, Vec<serde_json::Value>) {
    let dir = hb.user.path().join(".config/handbook");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("config.toml"), "lock_wait_seconds = 30\nengine = \"openai\"\nmodel = \"from-file\"\n").unwrap();
    let run = |json: bool| {
        let mut cmd = hb.cmd();
        cmd.env("OPENAI_API_KEY", CANARY).env("HANDBOOK_MAX_RETRIES", "7");
        if json {
            cmd.arg("--json");
        }
        let output = cmd.arg("config").output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        (String::from_utf8(output.stdout).unwrap(), String::from_utf8(output.stderr).unwrap())
    };
    let (text, text_err) = run(false);
    let (json, json_err) = run(true);
    (text, format!("{text_err}{json_err}{json}"), json_lines(json.as_bytes()))
}

fn setting<'a>(lines: &'a [serde_json::Value], name: &str) -> &'a serde_json::Value {
    let line = lines.iter().find(|l| l["data"]["name"] == name).unwrap_or_else(|| panic!("no {name}"));
    assert_eq!(line["type"], "setting");
    &line["data"]
}

#[test]
fn config_says_where_each_setting_came_from() {
    let hb = Handbook::new();
    let (text, _, lines) = config_runs(&hb);
    let file = hb.user.path().join(".config/handbook/config.toml");

    let home = setting(&lines, "home");
    assert_eq!(home["origin"], "flag");
    assert_eq!(home["flag"], "--home");
    assert_eq!(home["value"], hb.home.path().to_str().unwrap());

    let retries = setting(&lines, "extract.max_retries");
    assert_eq!(
        (&retries["origin"], &retries["variable"], &retries["value"]),
        (&"variable".into(), &"HANDBOOK_MAX_RETRIES".into(), &"7".into())
    );

    let wait = setting(&lines, "lock_wait_seconds");
    assert_eq!(wait["origin"], "file");
    assert_eq!(wait["file"], file.to_str().unwrap());
    assert_eq!(wait["key"], "lock_wait_seconds");
    assert_eq!(wait["value"], "30");
    // A phase's model set by the shared key says which key.
    assert_eq!(setting(&lines, "consolidate.model")["key"], "model");

    let age = setting(&lines, "max_age_days");
    assert_eq!((&age["origin"], &age["value"]), (&"default".into(), &"10d".into()));
    assert!(setting(&lines, "extract.llm_command")["value"].is_null());

    // The text says the same, a line per setting.
    let line_of = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} in\n{text}"))
    };
    assert!(line_of("home").ends_with("(flag --home)"), "{text}");
    assert!(line_of("extract.max_retries").ends_with("7  (variable HANDBOOK_MAX_RETRIES)"), "{text}");
    assert!(
        line_of("lock_wait_seconds").ends_with(&format!("30  (lock_wait_seconds in {})", file.display())),
        "{text}"
    );
    assert!(line_of("max_age_days").ends_with("10d  (default)"), "{text}");
}

#[test]
fn config_never_prints_an_api_key() {
    let hb = Handbook::new();
    let (text, rest, lines) = config_runs(&hb);
    assert!(!text.contains("sk-canary") && !rest.contains("sk-canary"), "the key was printed");
    let key = setting(&lines, "extract.api_key");
    assert_eq!((&key["value"], &key["variable"]), (&"set".into(), &"OPENAI_API_KEY".into()));
    assert!(
        text.lines().any(|l| l.starts_with("extract.api_key") && l.ends_with("set  (variable OPENAI_API_KEY)")),
        "{text}"
    );
}

#[test]
fn an_old_name_is_read_with_a_warning_on_stderr_only() {
    let hb = Handbook::new();
    let output = hb
        .cmd()
        .env("HANDBOOK_ENGINE", "openai")
        .env("HANDBOOK_CONSOLIDATION_MODEL", "old-model")
        .args(["--json", "config"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("HANDBOOK_CONSOLIDATION_MODEL is the old name of HANDBOOK_CONSOLIDATE_MODEL"), "{stderr}");
    let lines = json_lines(&output.stdout);
    let model = setting(&lines, "consolidate.model");
    assert_eq!((&model["value"], &model["variable"]), (&"old-model".into(), &"HANDBOOK_CONSOLIDATION_MODEL".into()));
}
