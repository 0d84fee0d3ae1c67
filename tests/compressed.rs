//! Zstd-compressed Codex rollouts (`rollout-….jsonl.zst`): read like plain ones by extract
//! and search, counted once beside a plain twin, skipped unread when unchanged, and reported
//! by name when the compressed data is cut short.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{Handbook, NOW, coverage, fixtures, json_lines, sessions};

const STEM: &str = "rollout-2026-11-28T10-00-00-019d7a10-4c2e-7b31-9a55-0c0de0000007";
const SESSION: &str = "019d7a10-4c2e-7b31-9a55-0c0de0000007";

/// The fixture case's folder.
fn case() -> PathBuf {
    fixtures().join("codex-compressed")
}

/// The fixture's plain rollout, as text.
fn plain() -> String {
    fs::read_to_string(case().join(format!("{STEM}.jsonl.txt"))).unwrap()
}

/// The plain rollout compressed as the `zstd` tool does by default, with a checksum (Codex
/// writes frames without one, as the unit tests do).
fn compressed() -> Vec<u8> {
    let mut encoder = zstd::stream::write::Encoder::new(Vec::new(), 19).unwrap();
    encoder.include_checksum(true).unwrap();
    std::io::Write::write_all(&mut encoder, plain().as_bytes()).unwrap();
    encoder.finish().unwrap()
}

/// A folder holding the fixture's rollout, compressed, alone; the folder and the file.
fn compressed_alone() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let zst = dir.path().join(format!("{STEM}.jsonl.zst"));
    fs::write(&zst, compressed()).unwrap();
    (dir, zst)
}

/// `extract --all --json` on `source`; the JSON lines, and stderr.
fn extract(hb: &Handbook, source: &Path) -> (Vec<serde_json::Value>, String) {
    let output = hb.cmd().env("HANDBOOK_NOW", NOW).args(["--json", "extract", "--all"]).arg(source).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    (json_lines(&output.stdout), stderr)
}

#[test]
fn the_compressed_fixture_case_meets_its_expectations() {
    let dir = tempfile::tempdir().unwrap();
    let built = dir.path().join("codex-compressed");
    fs::create_dir(&built).unwrap();
    fs::copy(case().join("CASE.md"), built.join("CASE.md")).unwrap();
    fs::copy(case().join("expect-compressed.toml"), built.join("expect.toml")).unwrap();
    let zst = built.join(format!("{STEM}.jsonl.zst"));
    fs::write(&zst, compressed()).unwrap();
    assert_eq!(zstd::decode_all(&fs::read(&zst).unwrap()[..]).unwrap(), plain().as_bytes());
    crate::fixtures::check_case(&built);
}

#[test]
fn plain_and_compressed_twins_are_one_session() {
    let dir = tempfile::tempdir().unwrap();
    let day = dir.path().join("sessions/2026/11/28");
    fs::create_dir_all(&day).unwrap();
    fs::write(day.join(format!("{STEM}.jsonl")), plain()).unwrap();
    fs::write(day.join(format!("{STEM}.jsonl.zst")), compressed()).unwrap();
    let hb = Handbook::new();
    let (lines, _) = extract(&hb, dir.path());
    let found = sessions(&lines);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0]["path"].as_str().unwrap().ends_with(&format!("{STEM}.jsonl")), "the plain twin wins");
    assert_eq!(coverage(&lines)["sessions"], 1);
    assert_eq!(coverage(&lines)["extracted"], 1);
}

#[test]
fn search_finds_text_inside_a_compressed_rollout() {
    let (dir, zst) = compressed_alone();
    let hb = Handbook::new();
    extract(&hb, dir.path());
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .args(["search", "--json", "--limit", "0", "--in", "transcripts", "weather.forecasts"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("changed since it was extracted"), "an unchanged .zst is not changed: {stderr}");
    let results: Vec<_> = json_lines(&output.stdout).into_iter().filter(|l| l["type"] == "result").collect();
    assert!(!results.is_empty(), "nothing found inside the .zst");
    for result in &results {
        assert_eq!(result["data"]["path"], zst.to_str().unwrap());
        assert_eq!(result["data"]["session_id"], SESSION);
    }
    assert!(
        results.iter().any(|r| r["data"]["text"].as_str().unwrap().contains("No module named 'weather.forecasts'"))
    );
    let all = hb.cmd().args(["search", "--in", "transcripts", "red curtain"]).output().unwrap();
    assert_eq!(all.status.code(), Some(1), "reasoning inside a .zst stays unsearchable");
}

#[test]
fn a_compressed_rollout_read_before_is_unchanged_even_when_touched() {
    let (dir, zst) = compressed_alone();
    let hb = Handbook::new();
    let (first, _) = extract(&hb, dir.path());
    assert_eq!(coverage(&first)["extracted"], 1);
    let (again, _) = extract(&hb, dir.path());
    assert_eq!(coverage(&again)["unchanged"], 1, "{:#?}", coverage(&again));
    // Touched: a new modification time, the same bytes.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    fs::File::options().write(true).open(&zst).unwrap().set_modified(later).unwrap();
    let (touched, _) = extract(&hb, dir.path());
    assert_eq!(coverage(&touched)["unchanged"], 1, "{:#?}", coverage(&touched));
    assert_eq!(coverage(&touched)["extracted"], 0);
}

#[test]
fn a_cut_compressed_rollout_is_read_up_to_the_cut_with_a_warning() {
    // Long enough for several zstd blocks: the ones before the cut decode whole.
    let mut text = plain();
    for i in 0..2000 {
        let noise = format!("{:x}", (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        text += &format!(
            r#"{{"timestamp":"2026-11-28T10:01:00.000Z","type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"note {i}: {noise}"}}]}}}}"#
        );
        text.push('\n');
    }
    let whole = zstd::encode_all(text.as_bytes(), 3).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let zst = dir.path().join(format!("{STEM}.jsonl.zst"));
    fs::write(&zst, &whole[..whole.len() / 2]).unwrap();
    let hb = Handbook::new();
    let (lines, stderr) = extract(&hb, dir.path());
    let found = sessions(&lines);
    assert_eq!(found[0]["outcome"], "extracted", "the lines before the cut are read: {found:#?}");
    let warnings = found[0]["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    let message = warnings[0]["message"].as_str().unwrap();
    assert!(message.starts_with("compressed data ends mid-frame (file cut short?)"), "{message}");
    let line = warnings[0]["line"].as_u64().unwrap();
    assert!(line > 14 && line < 2014, "{line}");
    assert!(stderr.contains(&format!("{}:{line}: compressed data ends mid-frame", zst.display())), "{stderr}");

    // Cut inside its only block, the fixture gives no line at all: skipped, by name.
    let (small, small_zst) = compressed_alone();
    let bytes = fs::read(&small_zst).unwrap();
    fs::write(&small_zst, &bytes[..bytes.len() - 9]).unwrap();
    let (lines, stderr) = extract(&Handbook::new(), small.path());
    assert_eq!(sessions(&lines)[0]["outcome"], "skipped");
    assert!(
        stderr.contains(&format!("{}: compressed data ends mid-frame (file cut short?)", small_zst.display())),
        "{stderr}"
    );
}
