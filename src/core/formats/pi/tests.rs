//! Tests of the pi reader: both generations of the format, trees and their abandoned
//! branches, forks, Oh My Pi's additions, and damaged input.

use proptest::prelude::*;

use super::*;

/// What reading some lines gave: the metadata, the events, and every warning (lines skipped
/// as well as those held back).
struct Read {
    meta: SessionMeta,
    events: Vec<EventKind<'static>>,
    warnings: Vec<String>,
}

fn read_text(text: &str) -> Read {
    let lines: Vec<&str> = text.split('\n').collect();
    read(&lines)
}

fn read(lines: &[&str]) -> Read {
    let mut reader = PiReader::new(FileHint::from_path(
        "/h/.pi/agent/sessions/--w-app--/2026-01-02T03-04-05-000Z_11111111-1111-4111-8111-111111111111.jsonl",
    ));
    let mut events = Vec::new();
    let mut warnings = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if let Err(e) = reader.read_line(i as u64 + 1, line, &mut |ev| events.push(ev.kind.clone_owned())) {
            warnings.push(format!("{}: {e}", e.line()));
        }
    }
    reader.drain(&mut |ev| events.push(ev.kind.clone_owned()));
    let (meta, held) = reader.finish();
    warnings.extend(held.into_iter().map(|w| format!("{}: {}", w.line, w.message)));
    Read { meta, events, warnings }
}

trait CloneOwned {
    fn clone_owned(self) -> EventKind<'static>;
}

impl CloneOwned for EventKind<'_> {
    fn clone_owned(self) -> EventKind<'static> {
        Event { line: 0, kind: self }.into_owned().kind
    }
}

fn users(events: &[EventKind<'_>]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::User(text) => Some(text.to_string()),
            _ => None,
        })
        .collect()
}

fn calls<'e>(events: &'e [EventKind<'static>]) -> Vec<&'e ToolCall<'static>> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::ToolCall(c) => Some(c),
            _ => None,
        })
        .collect()
}

fn results<'e>(events: &'e [EventKind<'static>]) -> Vec<&'e ToolResult<'static>> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::ToolResult(r) => Some(r),
            _ => None,
        })
        .collect()
}

const V3_HEADER: &str = r#"{"type":"session","version":3,"id":"22222222-2222-4222-8222-222222222222","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w/app"}"#;

#[test]
fn a_v3_session_pairs_calls_with_results_and_drops_thinking() {
    let read = read(&[
        V3_HEADER,
        r#"{"type":"model_change","id":"e0","parentId":null,"timestamp":"2026-03-01T10:00:00.100Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}"#,
        r#"{"type":"message","id":"e1","parentId":"e0","timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":"Run the tests","timestamp":1}}"#,
        r#"{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-03-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"CANARY plan"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"cargo test"}}],"model":"claude-opus-4-5","stopReason":"toolUse"}}"#,
        r#"{"type":"message","id":"e3","parentId":"e2","timestamp":"2026-03-01T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"error[E0425]\n\nCommand exited with code 101"}],"isError":true}}"#,
        r#"{"type":"message","id":"e4","parentId":"e3","timestamp":"2026-03-01T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c2","name":"edit","arguments":{"path":"src/lib.rs","oldText":"a","newText":"b"}},{"type":"toolCall","id":"c3","name":"read","arguments":{"path":"AGENTS.md"}}]}}"#,
        r#"{"type":"session_info","id":"e5","parentId":"e4","timestamp":"2026-03-01T10:00:05.000Z","name":"Fix the tests"}"#,
    ]);
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    assert_eq!(read.meta.id.as_deref(), Some("22222222-2222-4222-8222-222222222222"));
    assert_eq!(read.meta.cwd.as_deref(), Some("/w/app"));
    assert_eq!(read.meta.model.as_deref(), Some("claude-opus-4-5"));
    assert_eq!(read.meta.title.as_deref(), Some("Fix the tests"));
    assert_eq!(read.meta.user_messages, 1);
    assert!(read.events.contains(&EventKind::Reasoning));
    let calls = calls(&read.events);
    assert_eq!((calls[0].id.as_deref(), calls[0].command.as_deref()), (Some("c1"), Some("cargo test")));
    assert_eq!(calls[1].writes, ["src/lib.rs"]);
    assert_eq!(calls[2].reads, ["AGENTS.md"]);
    let results = results(&read.events);
    assert_eq!((results[0].id.as_deref(), results[0].exit_code), (Some("c1"), Some(101)));
    assert!(results[0].failed());
}

#[test]
fn only_the_active_branch_of_a_tree_is_read() {
    let read = read(&[
        V3_HEADER,
        r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":"Add a cache"}}"#,
        r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-03-01T10:00:02.000Z","message":{"role":"user","content":"CANARY abandoned idea"}}"#,
        r#"{"type":"session_info","id":"a3","parentId":"a2","timestamp":"2026-03-01T10:00:03.000Z","name":"CANARY title"}"#,
        r#"{"type":"branch_summary","id":"b1","parentId":"a1","timestamp":"2026-03-01T10:00:04.000Z","fromId":"a3","summary":"Tried an LRU; too slow."}"#,
        r#"{"type":"message","id":"b2","parentId":"b1","timestamp":"2026-03-01T10:00:05.000Z","message":{"role":"user","content":"Use a plain map instead"}}"#,
        r#"{"type":"label","id":"b3","parentId":"b2","timestamp":"2026-03-01T10:00:06.000Z","targetId":"b2","label":"ok"}"#,
    ]);
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    assert_eq!(users(&read.events), ["Add a cache", "Use a plain map instead"]);
    assert!(read.events.contains(&EventKind::Compaction(Some("Tried an LRU; too slow.".into()))));
    assert_eq!(read.meta.title, None, "the title was set on the abandoned branch");
    assert_eq!(read.meta.user_messages, 2);
}

#[test]
fn a_v1_session_streams_with_its_header_model_and_user_commands() {
    let read = read(&[
        r#"{"type":"session","id":"33333333-3333-4333-8333-333333333333","timestamp":"2025-11-20T23:33:50.805Z","cwd":"/w/old","provider":"anthropic","modelId":"claude-sonnet-4-5","thinkingLevel":"off"}"#,
        r#"{"type":"message","timestamp":"2025-11-20T23:33:01.550Z","message":{"role":"user","content":[{"type":"text","text":"list files"},{"type":"image","data":"AAAA","mimeType":"image/png"}]}}"#,
        r#"{"type":"message","timestamp":"2025-11-20T23:33:02.000Z","message":{"role":"bashExecution","command":"ls","output":"AGENTS.md\nsrc","exitCode":0,"cancelled":false,"truncated":false}}"#,
        r#"{"type":"message","timestamp":"2025-11-20T23:33:03.000Z","message":{"role":"assistant","content":[],"stopReason":"aborted","model":"gpt-5.1-codex"}}"#,
        r#"{"type":"compaction","timestamp":"2025-11-20T23:40:00.000Z","summary":"Listed the files.","firstKeptEntryIndex":2,"tokensBefore":100}"#,
    ]);
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    assert_eq!(read.meta.model.as_deref(), Some("gpt-5.1-codex"));
    assert_eq!(users(&read.events), ["list files"]);
    assert_eq!(calls(&read.events)[0].command.as_deref(), Some("ls"));
    assert_eq!(results(&read.events)[0].exit_code, Some(0));
    assert_eq!(read.events.last(), Some(&EventKind::Compaction(Some("Listed the files.".into()))));
}

#[test]
fn a_fork_drops_the_entries_it_copied_from_its_parent() {
    let read = read(&[
        r#"{"type":"session","version":3,"id":"44444444-4444-4444-8444-444444444444","timestamp":"2026-03-02T09:00:00.000Z","cwd":"/w/app","parentSession":"/h/.pi/agent/sessions/--w-app--/2026-03-01T10-00-00-000Z_22222222-2222-4222-8222-222222222222.jsonl"}"#,
        r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":"Copied prompt"}}"#,
        r#"{"type":"message","id":"c1","parentId":"a1","timestamp":"2026-03-02T09:00:05.000Z","message":{"role":"user","content":"New prompt"}}"#,
    ]);
    assert_eq!(read.meta.parent.as_deref(), Some("22222222-2222-4222-8222-222222222222"));
    assert!(!read.meta.is_subagent);
    assert_eq!(users(&read.events), ["New prompt"]);
}

#[test]
fn harness_text_never_leaves_the_reader() {
    let read = read(&[
        V3_HEADER,
        r#"{"type":"message","id":"s0","parentId":null,"timestamp":"t","message":{"role":"system","content":"","sections":{"context":"CANARY AGENTS.md body"}}}"#,
        r#"{"type":"custom_message","id":"s1","parentId":"s0","timestamp":"t","customType":"ext","content":"CANARY injected","display":true}"#,
        r#"{"type":"message","id":"s2","parentId":"s1","timestamp":"t","message":{"role":"custom","customType":"ext","content":"CANARY custom","display":false}}"#,
        r#"{"type":"custom","id":"s3","parentId":"s2","timestamp":"t","customType":"ext","data":{"x":"CANARY state"}}"#,
        r#"{"type":"compaction","id":"s4","parentId":"s3","timestamp":"t","summary":"Done so far.","firstKeptEntryId":"s3","tokensBefore":9,"systemMessage":{"role":"system","content":"CANARY prompt"}}"#,
    ]);
    let text = format!("{:?}", read.events);
    assert!(!text.contains("CANARY"), "{text}");
    assert_eq!(read.events.iter().filter(|e| **e == EventKind::Instruction).count(), 3);
}

#[test]
fn oh_my_pi_additions_are_read() {
    let read = read(&[
        r#"{"type":"title","v":1,"title":"Ship the parser","source":"user","updatedAt":"2026-05-01T10:00:09.000Z","pad":"      "}"#,
        r#"{"type":"session","version":3,"id":"55555555-5555-4555-8555-555555555555","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w/omp","parentSession":"/h/.omp/agent/sessions/-w-omp/2026-05-01T09-00-00-000Z_66666666-6666-4666-8666-666666666666.jsonl"}"#,
        r#"{"type":"session_init","id":"i0","parentId":null,"timestamp":"2026-05-01T10:00:00.100Z","systemPrompt":"CANARY prompt","task":"CANARY task","tools":["read"]}"#,
        r#"{"type":"model_change","id":"i1","parentId":"i0","timestamp":"2026-05-01T10:00:00.200Z","model":"anthropic/claude-opus-4-5","role":"default"}"#,
        r#"{"type":"message","id":"i2","parentId":"i1","timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"fileMention","files":[{"path":"/w/omp/AGENTS.md","content":"CANARY rules","lineCount":1}]}}"#,
        r#"{"type":"message","id":"i3","parentId":"i2","timestamp":"2026-05-01T10:00:02.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"boom"}],"details":{"exitCode":2},"isError":true}}"#,
        r#"{"type":"title_change","id":"i4","parentId":"i3","timestamp":"2026-05-01T10:00:03.000Z","title":"Old title","source":"auto"}"#,
        r#"{"type":"ttsr_injection","id":"i5","parentId":"i4","timestamp":"2026-05-01T10:00:04.000Z","injectedRules":["r"]}"#,
    ]);
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    assert!(read.meta.is_subagent);
    assert_eq!(read.meta.parent.as_deref(), Some("66666666-6666-4666-8666-666666666666"));
    assert_eq!(read.meta.model.as_deref(), Some("claude-opus-4-5"));
    assert_eq!(read.meta.title.as_deref(), Some("Ship the parser"), "the title slot holds the current title");
    assert_eq!(calls(&read.events)[0].reads, ["/w/omp/AGENTS.md"]);
    let results = results(&read.events);
    assert_eq!(results[0].id, calls(&read.events)[0].id, "a mentioned file pairs with its contents");
    assert_eq!(results[1].exit_code, Some(2));
}

#[test]
fn unknown_types_roles_and_newer_versions_are_reported_once() {
    let read = read(&[
        r#"{"type":"session","version":9,"id":"x","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w/app"}"#,
        r#"{"type":"hologram","id":"u1","parentId":null,"timestamp":"t"}"#,
        r#"{"type":"hologram","id":"u2","parentId":"u1","timestamp":"t"}"#,
        r#"{"type":"message","id":"u3","parentId":"u2","timestamp":"t","message":{"role":"oracle","content":"?"}}"#,
        r#"{"type":"message","id":"u4","parentId":"u3","timestamp":"t","message":{"role":"user","content":"still read"}}"#,
    ]);
    assert_eq!(users(&read.events), ["still read"]);
    assert_eq!(
        read.warnings,
        [
            "1: session version 9 is newer than the 3 this reader knows; read as far as it goes",
            "2: unknown entry type `hologram` skipped (1 more line like it)",
            "4: unknown message role `oracle` skipped",
        ]
    );
}

#[test]
fn a_broken_branch_is_read_from_the_break_and_reported() {
    let read = read(&[
        V3_HEADER,
        r#"{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":"first"}}"#,
        r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"t","message":{"role":"user","content"#,
        r#"{"type":"message","id":"a3","parentId":"a2","timestamp":"t","message":{"role":"user","content":"third"}}"#,
        r#"{"type":"message","parentId":"a3","timestamp":"t","message":{"role":"user","content":"no id"}}"#,
        r#"{"type":"message","id":"c1","parentId":"c2","timestamp":"t","message":{"role":"user","content":"loop"}}"#,
        r#"{"type":"message","id":"c2","parentId":"c1","timestamp":"t","message":{"role":"user","content":"loop"}}"#,
    ]);
    assert_eq!(users(&read.events).len(), 2, "a cycle is read once: {:?}", read.events);
    assert!(read.warnings.iter().any(|w| w.starts_with("3: record cut short")), "{:?}", read.warnings);
    assert!(read.warnings.iter().any(|w| w.starts_with("5: 1 entry of a tree without an `id`")), "{:?}", read.warnings);
    assert!(read.warnings.iter().any(|w| w.contains("the active branch stops here")), "{:?}", read.warnings);

    let cut = read_text(&format!(
        "{V3_HEADER}\n{}\n{}",
        r#"{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":"first"}}"#,
        r#"{"type":"message","id":"a3","parentId":"a2","timestamp":"t","message":{"role":"user","content":"third"}}"#
    ));
    assert_eq!(users(&cut.events), ["third"]);
    assert!(cut.warnings.iter().any(|w| w.starts_with("3: the active branch stops here")), "{:?}", cut.warnings);
}

#[test]
fn the_file_name_gives_the_id_without_a_header() {
    let read = read(&[r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"hi"}}"#]);
    assert_eq!(read.meta.id.as_deref(), Some("11111111-1111-4111-8111-111111111111"));
    assert_eq!(session_id_of("C:\\u\\.pi\\agent\\sessions\\--c--\\2026-01-01T00-00-00-000Z_abc.jsonl"), "abc");
}

/// One v1 entry with `text` in it, of the kind `pick` selects.
fn v1_entry(pick: u8, text: &str, n: usize) -> String {
    let text = serde_json::to_string(text).unwrap_or_default();
    let ts = format!("2025-11-20T23:{:02}:{:02}.000Z", (n / 60) % 60, n % 60);
    match pick % 6 {
        0 => format!(r#"{{"type":"message","timestamp":"{ts}","message":{{"role":"user","content":{text}}}}}"#),
        1 => format!(
            r#"{{"type":"message","timestamp":"{ts}","message":{{"role":"assistant","content":[{{"type":"text","text":{text}}},{{"type":"toolCall","id":"c{n}","name":"bash","arguments":{{"command":{text}}}}}],"model":"m"}}}}"#
        ),
        2 => format!(
            r#"{{"type":"message","timestamp":"{ts}","message":{{"role":"toolResult","toolCallId":"c{n}","toolName":"bash","content":[{{"type":"text","text":{text}}}],"isError":false}}}}"#
        ),
        3 => format!(
            r#"{{"type":"message","timestamp":"{ts}","message":{{"role":"bashExecution","command":{text},"output":{text},"exitCode":1,"cancelled":false,"truncated":false}}}}"#
        ),
        4 => format!(
            r#"{{"type":"compaction","timestamp":"{ts}","summary":{text},"firstKeptEntryIndex":1,"tokensBefore":5}}"#
        ),
        _ => format!(r#"{{"type":"model_change","timestamp":"{ts}","provider":"p","modelId":{text}}}"#),
    }
}

fn v1_file(entries: &[(u8, String)]) -> String {
    let mut text = String::from(
        r#"{"type":"session","id":"77777777-7777-4777-8777-777777777777","timestamp":"2025-11-20T23:00:00.000Z","cwd":"/w/v1"}"#,
    );
    for (n, (pick, body)) in entries.iter().enumerate() {
        text.push('\n');
        text.push_str(&v1_entry(*pick, body, n));
    }
    text.push('\n');
    text
}

/// A v3 tree in which every entry hangs off one of the entries before it.
fn v3_file(entries: &[(u8, usize, String)]) -> String {
    let mut text = String::from(V3_HEADER);
    for (n, (pick, parent, body)) in entries.iter().enumerate() {
        let parent = if n == 0 { "null".to_string() } else { format!("\"e{}\"", parent % n) };
        let body = serde_json::to_string(body).unwrap_or_default();
        let message = match pick % 3 {
            0 => format!(r#"{{"role":"user","content":{body}}}"#),
            1 => format!(r#"{{"role":"assistant","content":[{{"type":"text","text":{body}}}]}}"#),
            _ => format!(r#"{{"role":"toolResult","toolCallId":"c","content":{body},"isError":true}}"#),
        };
        text.push_str(&format!(
            "\n{{\"type\":\"message\",\"id\":\"e{n}\",\"parentId\":{parent},\"timestamp\":\"t\",\"message\":{message}}}"
        ));
    }
    text.push('\n');
    text
}

/// The text up to byte `at`, as a file cut there reads (invalid UTF-8 replaced).
fn cut_at(text: &str, at: usize) -> String {
    String::from_utf8_lossy(&text.as_bytes()[..at.min(text.len())]).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_lines_never_panic(lines in proptest::collection::vec("\\PC{0,120}", 0..8)) {
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        read(&lines);
    }

    #[test]
    fn mutated_sessions_never_panic(
        entries in proptest::collection::vec((any::<u8>(), any::<usize>(), "\\PC{0,24}"), 1..8),
        at in any::<usize>(),
        byte in any::<u8>(),
    ) {
        let mut bytes = v3_file(&entries).into_bytes();
        let at = at % bytes.len();
        bytes[at] = byte;
        read_text(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn a_v1_file_cut_anywhere_reads_as_a_prefix_of_the_whole(
        entries in proptest::collection::vec((any::<u8>(), "\\PC{0,24}"), 1..8),
        at in any::<usize>(),
    ) {
        let whole = v1_file(&entries);
        let full = read_text(&whole);
        prop_assert!(full.warnings.is_empty(), "{:?}", full.warnings);
        let cut = read_text(&cut_at(&whole, at % (whole.len() + 1)));
        prop_assert!(cut.events.len() <= full.events.len());
        prop_assert_eq!(&cut.events[..], &full.events[..cut.events.len()]);
        prop_assert!(cut.meta.user_messages <= full.meta.user_messages);
    }

    #[test]
    fn a_v3_file_cut_anywhere_reads_its_whole_lines_and_warns_of_the_torn_one(
        entries in proptest::collection::vec((any::<u8>(), any::<usize>(), "\\PC{0,24}"), 1..8),
        at in any::<usize>(),
    ) {
        let whole = v3_file(&entries);
        let at = at % (whole.len() + 1);
        let cut = cut_at(&whole, at);
        // A cut just before a line's newline leaves that line whole.
        let whole_lines = if whole.as_bytes().get(at) == Some(&b'\n') { at + 1 } else { at };
        let complete = &whole[..whole.as_bytes()[..whole_lines].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)];
        let torn = read_text(&cut);
        prop_assert_eq!(&torn.events, &read_text(complete).events);
        let is_torn = cut.len() > complete.len() && !cut[complete.len()..].trim().is_empty();
        if is_torn {
            prop_assert!(!torn.warnings.is_empty(), "a torn line is reported");
        }
    }

    #[test]
    fn a_missing_line_on_the_active_branch_is_reported(
        entries in proptest::collection::vec((any::<u8>(), any::<usize>(), "\\PC{0,24}"), 2..8),
        drop in any::<usize>(),
    ) {
        let whole = v3_file(&entries);
        let lines: Vec<&str> = whole.split('\n').collect();
        // Line 1 is the header; the last line (an entry) is the leaf and must stay.
        let entry_lines = entries.len();
        let dropped = 1 + drop % (entry_lines - 1);
        let kept: Vec<&str> = lines.iter().enumerate().map(|(i, l)| if i == dropped { "" } else { *l }).collect();
        let full = read(&lines);
        let damaged = read(&kept);
        let on_path = damaged.events.len() < full.events.len();
        prop_assert!(damaged.events.len() <= full.events.len());
        if on_path {
            prop_assert!(damaged.warnings.iter().any(|w| w.contains("the active branch stops here")), "{:?}", damaged.warnings);
        }
    }
}
