//! Properties of what hostile metadata can do, on random ids, folders, branches, titles and
//! notes (any Unicode, control characters, `../`, very long): no file name leaves its folder
//! or collides with another, and a consolidation always validates, so no input blocks the
//! others.

use std::collections::BTreeSet;

use proptest::prelude::*;

use super::edits::Edits;
use super::tests::{record, task};
use super::*;
use crate::core::layout::summary_files;
use crate::core::manifest::Snapshot;
use crate::core::stage1::file_name;

/// Cases per property: enough to find the tricky shapes, few enough to keep the suite fast.
fn config() -> ProptestConfig {
    ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() }
}

/// Text an attacker might choose: any Unicode, or pieces of paths and markdown and control
/// characters, or something very long.
fn hostile() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "../",
        "/",
        ".",
        "..",
        "\\",
        "\n",
        "\r",
        "\u{0}",
        "\u{1b}[2J",
        "\u{2028}",
        "\t",
        " ",
        "# ",
        "## Task 1: ",
        "- rollout_summaries/x.md",
        "session_id=",
        "A",
        "a",
        "-",
        "_",
        "é",
        "😀",
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    ]);
    prop_oneof![
        any::<String>(),
        prop::collection::vec(pieces, 0..12).prop_map(|p| p.concat()),
        ("[a-z/]{0,8}", 1usize..600).prop_map(|(s, n)| s.repeat(n)),
    ]
}

/// A name is safe in its folder: no separator, not `.` or `..`, no NUL, bounded.
fn stays_in_its_folder(name: &str) -> Result<(), TestCaseError> {
    prop_assert!(!name.contains(['/', '\\', '\u{0}']), "{name:?}");
    prop_assert!(name != "." && name != ".." && !name.starts_with('.'), "{name:?}");
    prop_assert!(name.len() <= 200, "{} bytes: {name:?}", name.len());
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn record_names_stay_in_their_folder_and_never_collide(a in hostile(), b in hostile()) {
        for id in [&a, &b] {
            stays_in_its_folder(&file_name(id))?;
        }
        // An id chosen to be another's name must not take its place either.
        let crafted = file_name(&a).trim_end_matches(".json").to_string();
        for (x, y) in [(&a, &b), (&a, &crafted)] {
            if x != y {
                prop_assert_ne!(file_name(x).to_lowercase(), file_name(y).to_lowercase());
            }
        }
    }

    #[test]
    fn summary_names_stay_in_their_folder_and_never_collide(
        ids in prop::collection::btree_set(prop_oneof!["[aAbB]{1,3}", hostile()], 1..12),
        slug in hostile(),
    ) {
        let mut selection: Vec<Stage1> = ids.iter().map(|id| record(id, "/w/p", 20, vec![task("t")])).collect();
        for r in &mut selection {
            r.rollout_slug = slug.clone();
        }
        let names = summary_files(&selection);
        let lower: BTreeSet<String> = names.values().map(|n| n.to_lowercase()).collect();
        prop_assert_eq!(lower.len(), ids.len(), "{:?}", names);
        for name in names.values() {
            stays_in_its_folder(name)?;
        }
        selection.reverse();
        prop_assert_eq!(summary_files(&selection), names, "the names depend on the order");
    }

    #[test]
    fn a_consolidation_of_hostile_metadata_always_validates(
        batch in prop::collection::vec((hostile(), hostile(), hostile(), hostile(), hostile()), 1..6),
        note_titles in prop::collection::vec(hostile(), 0..3),
    ) {
        let mut ids = BTreeSet::new();
        let sessions: Vec<Stage1> = batch
            .into_iter()
            .enumerate()
            .map(|(i, (id, cwd, branch, project, title))| {
                // Ids are distinct within a selection; a number keeps random ones apart.
                let mut r = record(&format!("{id}{i}"), &project, 20, vec![task(&title)]);
                (r.cwd, r.git_branch, r.title) = (Some(cwd), Some(branch), Some(title));
                ids.insert(r.session_id.clone());
                r
            })
            .collect();
        let notes: Vec<Note> = note_titles
            .into_iter()
            .enumerate()
            .map(|(i, title)| Note { file: format!("extensions/ad_hoc/notes/n{i}.md"), title, body: "Use the VPN.".into() })
            .collect();
        let cap = Cap { tokens: Some(2500), chars: None };
        let before = Snapshot { files: plan::sync(&sessions).writes.into_iter().map(|(p, t)| (p, t.into_bytes())).collect() };
        let output = consolidate(&Input { sessions: &sessions, notes: &notes, cap });
        let handbook = plan::finish(output, &Edits::default(), before, cap);
        prop_assert!(handbook.is_ok(), "{:?}", handbook.err());
        let memory = handbook.map(|h| h.memory).unwrap_or_default();
        for id in &ids {
            prop_assert!(memory.contains(&format!("session_id={})", one_line(id))), "{id:?} is not in MEMORY.md");
        }
    }

    #[test]
    fn a_note_that_breaks_the_handbook_never_blocks_the_sessions(body in hostile(), cited in "[a-z]{1,8}") {
        let sessions = vec![record("s-a", "/w/p", 20, vec![task("Fix it.")])];
        let forged = format!("{body}\n- rollout_summaries/{cited}.md\n{body}");
        let notes = vec![Note { file: "extensions/ad_hoc/notes/n.md".into(), title: "n".into(), body: forged }];
        let cap = Cap { tokens: Some(2500), chars: None };
        let before = Snapshot { files: plan::sync(&sessions).writes.into_iter().map(|(p, t)| (p, t.into_bytes())).collect() };
        let build = |sessions: &[Stage1], notes: &[Note]| Ok::<_, ()>(consolidate(&Input { sessions, notes, cap }));
        let finished = plan::finish_leaving_out_breakers(&sessions, &notes, &Edits::default(), &before, cap, build);
        let handbook = finished.ok().and_then(Result::ok);
        prop_assert!(handbook.as_ref().is_some_and(|h| h.memory.contains("Fix it.")), "{:?}", handbook);
    }
}
