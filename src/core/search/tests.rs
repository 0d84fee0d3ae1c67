use super::docs::{Doc, Kind};
use super::*;

fn query(words: &[&str]) -> Query {
    Query::new(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>(), false, false).unwrap()
}

fn doc(path: &str, text: &str) -> Doc {
    Doc {
        path: path.to_string(),
        first_line: 1,
        text: text.to_string(),
        fixed_line: false,
        kind: Kind::Note,
        session_id: None,
        date: None,
        date_end: None,
        project: None,
        place: None,
    }
}

fn order<'d>(docs: &'d [Doc], q: &Query) -> Vec<&'d str> {
    let collection = Collection { documents: docs.len(), total_bytes: docs.iter().map(|d| d.text.len()).sum() };
    rank(docs, q, collection).iter().map(|h| docs[h.doc].path.as_str()).collect()
}

#[test]
fn headings_keywords_and_commands_weigh_more_than_prose() {
    let filler = "some words about other things\n";
    let docs = [
        doc("prose", &format!("{filler}we talked about the linter once\n{filler}")),
        doc("code", &format!("{filler}run `linter --fix` first\n{filler}")),
        doc("keywords", &format!("{filler}### keywords\n\n- linter, ruff\n{filler}")),
        doc("heading", &format!("## Task 1: Run the linter\n{filler}{filler}")),
    ];
    assert_eq!(order(&docs, &query(&["linter"])), ["heading", "keywords", "code", "prose"]);
}

#[test]
fn more_matches_rare_words_and_short_documents_rank_higher() {
    let docs = [
        doc("once", "cargo build failed\nsomething else entirely here\n"),
        doc("twice", "cargo build failed\nthen cargo build passed\n"),
        doc("none", "nothing to see\n"),
    ];
    assert_eq!(order(&docs, &query(&["cargo"])), ["twice", "once"]);
    // A document with both words beats one with the common word repeated.
    let docs =
        [doc("common", "build build build build\n"), doc("both", "build with sccache\n"), doc("other", "build it\n")];
    assert_eq!(order(&docs, &query(&["build", "sccache"]))[0], "both");
    let long = format!("pnpm is the tool\n{}", "padding line with many words in it\n".repeat(40));
    let docs = [doc("long", &long), doc("short", "pnpm is the tool\n")];
    assert_eq!(order(&docs, &query(&["pnpm"])), ["short", "long"]);
}

#[test]
fn ties_keep_path_order_and_hits_point_at_the_best_line() {
    let docs = [doc("b", "alpha\n"), doc("a", "alpha\n")];
    assert_eq!(order(&docs, &query(&["alpha"])), ["a", "b"]);
    let mut d = doc("x", "intro\nalpha only\nalpha and beta\nbeta only\n");
    d.first_line = 10;
    let hits = rank(&[d], &query(&["alpha", "beta"]), Collection { documents: 1, total_bytes: 40 });
    assert_eq!((hits[0].line, hits[0].text.as_str()), (12, "alpha and beta"));
}

#[test]
fn a_fixed_line_document_reports_its_record() {
    let mut d = doc("t.jsonl", "first\nsecond has beta\n");
    d.first_line = 42;
    d.fixed_line = true;
    let hits = rank(&[d], &query(&["beta"]), Collection::default());
    assert_eq!((hits[0].line, hits[0].text.as_str()), (42, "second has beta"));
}

#[test]
fn queries_are_case_insensitive_literals_unless_asked() {
    assert!(query(&["PNPM"]).is_match("use pnpm"));
    assert!(query(&["a.b"]).is_match("a.b") && !query(&["a.b"]).is_match("axb"));
    let sensitive = Query::new(&["PNPM".to_string()], false, true).unwrap();
    assert!(!sensitive.is_match("use pnpm"));
    let regex = Query::new(&["^cargo (build|test)$".to_string()], true, false).unwrap();
    assert!(regex.is_match("notes\ncargo test\nmore"));
    let bad = Query::new(&["(unclosed".to_string()], true, false).unwrap_err();
    assert!(matches!(&bad, QueryError::InvalidRegex { pattern, .. } if pattern == "(unclosed"), "{bad:?}");
    let bad = chain(&bad);
    assert!(bad.starts_with("invalid regex \"(unclosed\":") && bad.contains("unclosed group"), "{bad}");
    assert_eq!(Query::new(&[" ".to_string()], false, false).unwrap_err().to_string(), "the query is empty");
}

#[test]
fn patterns_that_only_fail_together_are_reported_with_their_reason() {
    // Each is a regex alone; joined, the group name collides with the query's own.
    let words = ["(?P<hb_term1>a)".to_string(), "b".to_string()];
    let bad = Query::new(&words, true, false).unwrap_err();
    assert!(matches!(bad, QueryError::Combined { .. }), "{bad:?}");
    let bad = chain(&bad);
    assert!(bad.starts_with("invalid regex: ") && bad.contains("duplicate capture group name"), "{bad}");
}

/// The message and its sources, as `{:#}` prints them at the edge.
fn chain(error: &dyn std::error::Error) -> String {
    std::iter::successors(Some(error), |e| e.source()).map(ToString::to_string).collect::<Vec<_>>().join(": ")
}

#[test]
fn long_lines_are_cut_around_the_match() {
    let line = format!("{} needle {}", "x".repeat(500), "y".repeat(500));
    let cut = snippet(&line, &query(&["needle"]));
    assert!(cut.starts_with('…') && cut.ends_with('…') && cut.contains("needle"), "{cut}");
    assert!(cut.chars().count() <= SNIPPET + 2);
    let multibyte = format!("{}needle", "é".repeat(300));
    assert!(snippet(&multibyte, &query(&["needle"])).ends_with("needle"));
}

#[test]
fn periods_and_projects_filter_results() {
    let at = |s: &str| Some(s.parse::<jiff::Timestamp>().unwrap());
    let since = at("2026-11-20T00:00:00Z");
    let until = at("2026-11-22T23:59:59Z");
    assert!(in_period(at("2026-11-21T10:00:00Z"), None, since, until));
    assert!(!in_period(at("2026-11-19T23:59:59Z"), None, since, until));
    assert!(!in_period(at("2026-11-23T00:00:00Z"), None, since, until));
    assert!(in_period(at("2026-11-23T00:00:00Z"), None, since, None));
    assert!(!in_period(None, None, since, None) && in_period(None, None, None, None));
    // A day overlaps a bound inside it.
    let (day, end) = (at("2026-11-22T00:00:00Z"), at("2026-11-22T23:59:59Z"));
    assert!(in_period(day, end, at("2026-11-22T14:05:00Z"), None));
    assert!(in_period(day, end, None, at("2026-11-22T14:05:00Z")));
    assert!(same_project(Some("/w/webshop"), "/w/webshop") && same_project(Some("webshop"), "/w/webshop"));
    assert!(!same_project(Some("/w/other"), "/w/webshop") && !same_project(None, "/w/webshop"));
}

#[test]
fn matches_are_highlighted() {
    assert_eq!(highlight("Use pnpm, not npm", &query(&["pnpm", "npm"]), "[", "]"), "Use [pnpm], not [npm]");
}

/// A stage-1 record with what search reads of it: id, last activity, project, titles.
pub(super) fn session(id: &str, updated_at: &str, project: &str) -> crate::core::stage1::Stage1 {
    use crate::core::extract::{Facts, Outcome};
    crate::core::stage1::Stage1 {
        version: 1,
        session_id: id.into(),
        agent: crate::core::session::Agent::Codex,
        rollout_path: format!("/t/{id}.jsonl"),
        cwd: None,
        project: project.into(),
        git_branch: None,
        started_at: None,
        updated_at: updated_at.parse().unwrap(),
        title: None,
        source_hash: "h".into(),
        rollout_slug: format!("{id}-slug"),
        rollout_summary: String::new(),
        raw_memory: String::new(),
        facts: Facts {
            tasks: Vec::new(),
            keywords: Vec::new(),
            outcome: Outcome::default(),
            user_messages: 0,
            commands: 0,
            failed_commands: 0,
        },
        usage_count: 0,
        last_usage: None,
    }
}

#[test]
fn the_same_line_or_the_same_text_of_a_file_is_shown_once() {
    use super::bounds::{Bounds, kept_hits};
    let keywords = "### keywords\n\n- bench, cache, cargo\n";
    let mut docs = vec![
        doc("MEMORY.md", &format!("## Task 1: speed up the cache\n{keywords}")),
        doc("MEMORY.md", &format!("## Task 2: use a map\n{keywords}")),
        doc("notes/a.md", keywords),
        doc("notes/a.md", keywords),
        doc("notes/a.md", keywords),
    ];
    docs[1].first_line = 10;
    docs[4].first_line = 20;
    docs[4].session_id = Some("s2".to_string());
    let q = query(&["cargo"]);
    let collection = Collection { documents: docs.len(), total_bytes: 0 };
    let hits = rank(&docs, &q, collection);
    assert_eq!(hits.len(), 5);
    let kept = kept_hits(&hits, &docs, &Bounds::default(), &mut |_| None);
    let mut shown: Vec<(&str, usize, Option<&str>)> =
        kept.iter().map(|h| (docs[h.doc].path.as_str(), h.line, docs[h.doc].session_id.as_deref())).collect();
    shown.sort();
    // MEMORY.md's two tasks have the same keywords line: one result. Two of the note's
    // documents show the same line: one result; the third is another session's: it stays.
    assert_eq!(shown.iter().filter(|s| s.0 == "MEMORY.md").count(), 1, "{shown:?}");
    assert_eq!(shown.iter().filter(|s| s.0 == "notes/a.md").count(), 2, "{shown:?}");
}
