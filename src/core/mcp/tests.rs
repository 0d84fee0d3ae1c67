//! References, excerpts and the session ids a piece of the handbook names.

use super::*;

fn file(path: &str, kind: FileKind, lines: Option<Lines>) -> Target {
    Target::File { path: path.to_string(), kind, lines }
}

#[test]
fn references_name_handbook_files_and_their_lines() {
    assert_eq!(parse_reference("MEMORY.md:12-40"), Ok(file("MEMORY.md", FileKind::Memory, Some(Lines::Range(12, 40)))));
    assert_eq!(parse_reference(" `MEMORY.md:12` "), Ok(file("MEMORY.md", FileKind::Memory, Some(Lines::Around(12)))));
    assert_eq!(parse_reference("./memory_summary.md"), Ok(file("memory_summary.md", FileKind::Summary, None)));
    let rollout = "rollout_summaries/2026-11-22T14-08-00-ab12-fix.md";
    assert_eq!(parse_reference(rollout), Ok(file(rollout, FileKind::Rollout, None)));
    assert_eq!(
        parse_reference("2026-11-22T14-08-00-ab12-fix.md:3-9"),
        Ok(file(rollout, FileKind::Rollout, Some(Lines::Range(3, 9))))
    );
    let note = "extensions/ad_hoc/notes/2026-11-29T09-30-00-vpn.md";
    assert_eq!(parse_reference(note), Ok(file(note, FileKind::Note, None)));
    assert_eq!(
        parse_reference("019d7a10-4c2e-7b31-9a55-0c0de00000b1"),
        Ok(Target::Session("019d7a10-4c2e-7b31-9a55-0c0de00000b1".into()))
    );
    assert_eq!(
        parse_reference("ses_6aade4081ffe216ygZUgcUQdR1"),
        Ok(Target::Session("ses_6aade4081ffe216ygZUgcUQdR1".into()))
    );
}

#[test]
fn references_that_could_leave_the_handbook_are_refused() {
    let refused = |r: &str| parse_reference(r).unwrap_err();
    assert!(matches!(refused("/etc/passwd"), RefError::Absolute(_)));
    assert!(matches!(refused("~/.ssh/id_rsa"), RefError::Absolute(_)));
    assert!(matches!(refused("C:/Windows/win.ini"), RefError::Absolute(_)));
    assert!(matches!(refused("../MEMORY.md"), RefError::Escapes(_)));
    assert!(matches!(refused("rollout_summaries/../../x.md"), RefError::Escapes(_)));
    assert!(matches!(refused("rollout_summaries\\x.md"), RefError::Escapes(_)));
    assert!(matches!(refused("MEMORY.md\u{0}"), RefError::Unprintable));
    assert!(matches!(refused("  "), RefError::Empty));
    for other in [".handbook/sources.json", "raw_memories.md:1", "rollout_summaries/.tmp-x.md", "a/b/c.md", "x y"] {
        assert!(matches!(refused(other), RefError::NotHandbook(_)), "{other}");
    }
    for lines in ["MEMORY.md:0", "MEMORY.md:40-12", "MEMORY.md:3-x", "MEMORY.md:3-"] {
        assert!(matches!(refused(lines), RefError::BadLines(_)), "{lines}");
    }
    let message = refused("../../etc/passwd").to_string();
    assert!(message.contains("may not leave the handbook") && message.contains("MEMORY.md"), "{message}");
}

const MEMORY: &str = "\
- a note block before the groups

# Task Group: /w/app
scope: 2 sessions

## Task 1: Build (success)

- rollout_summaries/a.md (cwd=/w/app, updated_at=2026-11-25T09:00:16Z, session_id=s-1)

# Task Group: /w/lib

## Task 1: Test
- rollout_summaries/b.md (cwd=/w/lib, session_id=s-2)
";

#[test]
fn a_line_of_memory_reads_its_task_group() {
    let group = excerpt(MEMORY, FileKind::Memory, Some(Lines::Around(7))).unwrap();
    assert_eq!((group.first, group.last), (3, 8));
    assert!(group.text.starts_with("# Task Group: /w/app") && group.text.ends_with("session_id=s-1)"));
    let head = excerpt(MEMORY, FileKind::Memory, Some(Lines::Around(1))).unwrap();
    assert_eq!((head.first, head.last, head.text.as_str()), (1, 1, "- a note block before the groups"));
    let last = excerpt(MEMORY, FileKind::Memory, Some(Lines::Around(13))).unwrap();
    assert_eq!((last.first, last.last), (10, 13));
    let range = excerpt(MEMORY, FileKind::Memory, Some(Lines::Range(12, 99))).unwrap();
    assert_eq!((range.first, range.last), (12, 13));
    assert_eq!(excerpt(MEMORY, FileKind::Memory, None).unwrap().last, 13);
    assert_eq!(
        excerpt(MEMORY, FileKind::Memory, Some(Lines::Around(14))),
        Err(ExcerptError::PastEnd { asked: 14, lines: 13 })
    );
    assert_eq!(excerpt("", FileKind::Note, None), Err(ExcerptError::EmptyFile));
}

#[test]
fn a_line_of_the_summary_reads_its_section_and_of_a_rollout_the_whole_file() {
    let summary = "v1\n\n## User preferences\n\n- pnpm\n### sub\n- x\n\n## General Tips\n\n- y\n";
    let section = excerpt(summary, FileKind::Summary, Some(Lines::Around(6))).unwrap();
    assert_eq!((section.first, section.last), (3, 7));
    let rollout = "session_id: s-1\n\n# Fix\n";
    let whole = excerpt(rollout, FileKind::Rollout, Some(Lines::Around(3))).unwrap();
    assert_eq!((whole.first, whole.last, whole.text.as_str()), (1, 3, "session_id: s-1\n\n# Fix"));
}

#[test]
fn sessions_come_from_annotations_and_headers_in_order_once() {
    assert_eq!(sessions_named(MEMORY), ["s-1", "s-2"]);
    assert_eq!(sessions_named("session_id: s-9\nupdated_at: x\n- (session_id=s-9, session_id=s-3)"), ["s-9", "s-3"]);
    assert!(sessions_named("- (xsession_id=s-1)").is_empty());
}

#[test]
fn query_words_keep_quoted_phrases() {
    assert_eq!(query_words("sphinx  \"make docs\" build"), ["sphinx", "make docs", "build"]);
    assert_eq!(query_words("\"unclosed phrase"), ["unclosed phrase"]);
    assert!(query_words("  \"\" ").is_empty());
}
