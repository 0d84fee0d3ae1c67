//! opencode through the binary: an export searched like any transcript, whole, without giving
//! away what extraction may not learn. (Its fixture cases, `fixtures/opencode-*`, are checked
//! with every other case by `tests/fixtures.rs`.)

use serde_json::Value;

use crate::common::{Handbook, NOW, fixtures, json_lines};

fn search(hb: &Handbook, words: &[&str]) -> (i32, Vec<Value>) {
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .args(["search", "--json", "--limit", "0", "--in", "transcripts", "--since", "2000-01-01"])
        .args(words)
        .output()
        .unwrap();
    let found = json_lines(&output.stdout).into_iter().filter(|l| l["type"] == "result").map(|l| l["data"].clone());
    (output.status.code().unwrap(), found.collect())
}

#[test]
fn an_export_is_searched_whole_and_through_the_filter() {
    let export = fixtures().join("opencode-export/ses_2b7e1f0a3ffeQm4Parser0001.json");
    let hb = Handbook::new();
    hb.extract_json(&[&export], &[]);
    let (code, found) = search(&hb, &["nextest"]);
    assert_eq!(code, 0, "{found:?}");
    let text = std::fs::read_to_string(&export).unwrap();
    for result in &found {
        let line = result["line"].as_u64().unwrap() as usize;
        let raw = text.lines().nth(line - 1).unwrap();
        assert!(raw.contains("\"id\": \"prt_"), "line {line} is where the part's id stands: {raw}");
    }
    assert!(found.iter().any(|r| r["text"].as_str().unwrap().contains("We use cargo nextest")), "{found:?}");
    for hidden in ["CANARY", "Fridays"] {
        let (code, found) = search(&hb, &[hidden]);
        assert_eq!(code, 1, "{hidden} found: {found:?}");
    }
}
