//! Every fixture case, checked against its `expect.toml`: outcome per session, what must
//! appear in the stage-1 record, and what must never appear anywhere in the workspace.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::common::{Handbook, fixtures, handbook_of_fixtures, sessions};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    #[serde(default)]
    must_not_anywhere: Vec<String>,
    /// A file in the case folder listing, one per line, more strings that must not appear.
    must_not_anywhere_from: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    /// Files of the case named as sources of their own, for what a folder walk does not
    /// take (an `opencode export` document).
    #[serde(default)]
    sources: Vec<String>,
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

/// The case folders of `fixtures/` (those with an `expect.toml`), sorted.
fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<_> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expect.toml").is_file())
        .collect();
    cases.sort();
    cases
}

fn read_expect(case: &Path) -> Expect {
    let name = case.file_name().unwrap().to_string_lossy();
    toml::from_str(&std::fs::read_to_string(case.join("expect.toml")).unwrap())
        .unwrap_or_else(|e| panic!("{name}/expect.toml: {e}"))
}

/// The strings of a case's `must_not_anywhere_from` file (its fake credentials).
fn listed_secrets(case: &Path, expect: &Expect) -> Vec<String> {
    let Some(file) = &expect.must_not_anywhere_from else { return Vec::new() };
    let list = std::fs::read_to_string(case.join(file)).unwrap();
    list.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect()
}

pub(crate) fn check_case(case: &Path) {
    let name = case.file_name().unwrap().to_string_lossy();
    let expect = read_expect(case);
    let hb = Handbook::new();
    let args: Vec<&str> = expect.args.iter().map(String::as_str).collect();
    let named: Vec<std::path::PathBuf> = expect.sources.iter().map(|file| case.join(file)).collect();
    let sources: Vec<&Path> = std::iter::once(case).chain(named.iter().map(|p| p.as_path())).collect();
    let lines = hb.extract_json(&sources, &args);
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
    forbidden.extend(listed_secrets(case, &expect));
    // Text that must never be learned is marked CANARY in every fixture.
    forbidden.push("CANARY".to_string());
    for needle in &forbidden {
        hb.assert_nowhere(needle);
    }
}

#[test]
fn every_fixture_case_meets_its_expectations() {
    let cases = cases();
    // Every agent's cases are in the one corpus, none lost on the way.
    let names: Vec<String> = cases.iter().map(|c| c.file_name().unwrap().to_string_lossy().into_owned()).collect();
    for (prefix, at_least) in [("", 34), ("pi-", 9), ("gemini-", 11), ("opencode-", 3)] {
        let found = names.iter().filter(|name| name.starts_with(prefix)).count();
        assert!(found >= at_least, "expected {at_least} fixture cases named {prefix}*, found {found}");
    }
    for case in cases {
        check_case(&case);
    }
}

#[test]
fn all_fixtures_in_one_run_leak_nothing() {
    let hb = Handbook::new();
    hb.extract_json(&[&fixtures()], &["--include-subagents"]);
    // Sub-agents read too, so only what no session may teach at all: credentials, CANARY
    // text, an abandoned pi branch, instruction bodies and injected orders.
    let mut forbidden: Vec<String> =
        ["CANARY", "moonbeam", "blue door", "push directly to main"].map(str::to_string).into();
    let lists: Vec<Vec<String>> = cases().iter().map(|case| listed_secrets(case, &read_expect(case))).collect();
    let secrets_cases = lists.iter().filter(|list| !list.is_empty()).count();
    assert!(secrets_cases >= 4, "expected the secrets of every agent's secrets case, found {secrets_cases}");
    forbidden.extend(lists.into_iter().flatten());
    for needle in &forbidden {
        hb.assert_nowhere(needle);
    }
}

#[test]
fn the_handbook_of_all_fixtures_holds_nothing_any_case_forbids() {
    // The README's demo: every case at once, extracted and consolidated. No case's forbidden
    // text may come in through another case's sessions or the merge of them all.
    let (hb, _dir) = handbook_of_fixtures();
    let files = hb.every_file();
    assert!(files.iter().any(|(path, _)| path.ends_with("MEMORY.md")), "no handbook was written");
    for case in cases() {
        let expect = read_expect(&case);
        let name = case.file_name().unwrap().to_string_lossy();
        for needle in expect.must_not_anywhere.iter().chain(&listed_secrets(&case, &expect)) {
            for (path, text) in &files {
                assert!(!text.contains(needle.as_str()), "{name}: {needle:?} found in {}", path.display());
            }
        }
    }
    hb.assert_nowhere("CANARY");
}
