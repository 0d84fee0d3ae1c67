//! Every fixture case, checked against its `expect.toml`: outcome per session, what must
//! appear in the stage-1 record, and what must never appear anywhere in the workspace.

use std::path::Path;

use serde::Deserialize;

use crate::common::{Handbook, fixtures, sessions};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    #[serde(default)]
    must_not_anywhere: Vec<String>,
    /// A file in the case folder listing, one per line, more strings that must not appear.
    must_not_anywhere_from: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    session: Vec<SessionExpect>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionExpect {
    /// A unique part of the transcript's path.
    file: String,
    outcome: String,
    reason: Option<String>,
    project: Option<String>,
    #[serde(default)]
    must: Vec<String>,
    #[serde(default)]
    must_not: Vec<String>,
    /// Warnings that must be reported, as `"<line>: <start of message>"`.
    #[serde(default)]
    warnings: Vec<String>,
}

pub(crate) fn check_case(case: &Path) {
    let name = case.file_name().unwrap().to_string_lossy();
    let expect: Expect = toml::from_str(&std::fs::read_to_string(case.join("expect.toml")).unwrap())
        .unwrap_or_else(|e| panic!("{name}/expect.toml: {e}"));
    let hb = Handbook::new();
    let args: Vec<&str> = expect.args.iter().map(String::as_str).collect();
    let lines = hb.extract_json(&[case], &args);
    let reports = sessions(&lines);
    for want in &expect.session {
        let matching: Vec<_> = reports.iter().filter(|r| r["path"].as_str().unwrap().contains(&want.file)).collect();
        assert_eq!(matching.len(), 1, "{name}: expected one session matching {:?}, got {}", want.file, matching.len());
        let report = matching[0];
        assert_eq!(report["outcome"], want.outcome.as_str(), "{name}: {} outcome ({report})", want.file);
        if let Some(reason) = &want.reason {
            assert_eq!(report["reason"], reason.as_str(), "{name}: {} reason", want.file);
        }
        if let Some(project) = &want.project {
            assert_eq!(report["project"], project.as_str(), "{name}: {} project", want.file);
        }
        let warnings: Vec<String> = report["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| format!("{}: {}", w["line"], w["message"].as_str().unwrap()))
            .collect();
        for warning in &want.warnings {
            assert!(
                warnings.iter().any(|w| w.starts_with(warning.as_str())),
                "{name}: no warning {warning:?} in {warnings:#?}"
            );
        }
        let id = report["session_id"].as_str().unwrap_or_default();
        let record = hb.stage1(id);
        match want.outcome.as_str() {
            "extracted" => {
                let record = record.unwrap_or_else(|| panic!("{name}: no stage-1 record for {id}"));
                let text = format!(
                    "{}\n{}",
                    record["rollout_summary"].as_str().unwrap(),
                    record["raw_memory"].as_str().unwrap()
                );
                for must in &want.must {
                    assert!(text.contains(must.as_str()), "{name}: {must:?} missing from\n{text}");
                }
                for must_not in &want.must_not {
                    assert!(!text.contains(must_not.as_str()), "{name}: {must_not:?} present in\n{text}");
                }
            }
            _ => assert!(record.is_none(), "{name}: a {} session left a stage-1 record", want.outcome),
        }
    }
    let mut forbidden = expect.must_not_anywhere.clone();
    if let Some(file) = &expect.must_not_anywhere_from {
        let list = std::fs::read_to_string(case.join(file)).unwrap();
        forbidden.extend(list.lines().filter(|l| !l.trim().is_empty()).map(str::to_string));
    }
    // Text that must never be learned is marked CANARY in every fixture.
    forbidden.push("CANARY".to_string());
    for needle in &forbidden {
        hb.assert_nowhere(needle);
    }
}

#[test]
fn every_fixture_case_meets_its_expectations() {
    let mut cases: Vec<_> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expect.toml").is_file())
        .collect();
    cases.sort();
    assert!(cases.len() >= 10, "expected the fixture cases, found {}", cases.len());
    for case in cases {
        check_case(&case);
    }
}

#[test]
fn all_fixtures_in_one_run_leak_nothing() {
    let hb = Handbook::new();
    hb.extract_json(&[&fixtures()], &["--include-subagents"]);
    let secrets = std::fs::read_to_string(fixtures().join("secrets/secrets.txt")).unwrap();
    for secret in secrets.lines().filter(|l| !l.is_empty()) {
        hb.assert_nowhere(secret);
    }
    hb.assert_nowhere("CANARY");
}
