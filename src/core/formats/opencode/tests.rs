//! Tests of the opencode reader: the record stream, export documents, damaged input.

use proptest::prelude::*;
use serde_json::json;

use super::*;

/// What one read gave: the events (owned), the metadata, and every warning and skipped line.
struct Read {
    events: Vec<Event<'static>>,
    meta: SessionMeta,
    warnings: Vec<String>,
}

fn read(lines: &[String]) -> Read {
    let mut reader = OpencodeReader::new(FileHint::from_path("/d/opencode.db"));
    let mut events = Vec::new();
    let mut warnings = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let Err(e) = reader.read_line(i as u64 + 1, line, &mut |ev| events.push(ev.into_owned())) {
            warnings.push(format!("{}: {e}", e.line()));
        }
    }
    reader.drain(&mut |ev| events.push(ev.into_owned()));
    let (meta, held) = reader.finish();
    warnings.extend(held.into_iter().map(|w| format!("{}: {}", w.line, w.message)));
    Read { events, meta, warnings }
}

fn part(id: &str, message: &str, data: Value) -> String {
    part_line(id, message, &data.to_string())
}

fn message(id: &str, data: Value) -> String {
    message_line(id, &data.to_string())
}

fn session() -> String {
    session_line(&json!({"id": "ses_1", "title": "Fix the build", "directory": "/w/app",
        "time": {"created": 1_700_000_000_000_i64, "updated": 1_700_000_100_000_i64}}))
}

/// A session with one user request, a failing bash call, an edit, a reasoning part and a
/// synthetic text part.
fn stream() -> Vec<String> {
    vec![
        session(),
        message("msg_1", json!({"role": "user", "time": {"created": 1_700_000_001_000_i64}})),
        part("prt_1", "msg_1", json!({"type": "text", "text": "Fix the build please"})),
        part("prt_2", "msg_1", json!({"type": "text", "synthetic": true, "text": "CANARY file body"})),
        message("msg_2", json!({"role": "assistant", "modelID": "m1", "path": {"cwd": "/w/app/sub"}})),
        part("prt_3", "msg_2", json!({"type": "reasoning", "text": "CANARY thinking"})),
        part(
            "prt_4",
            "msg_2",
            json!({"type": "tool", "tool": "bash", "callID": "call_1", "state": {"status": "completed",
                "input": {"command": "make"}, "output": "boom", "metadata": {"exit": 2}}}),
        ),
        part(
            "prt_5",
            "msg_2",
            json!({"type": "tool", "tool": "edit", "callID": "call_2", "state": {"status": "error",
                "input": {"filePath": "/w/app/src/lib.rs"}, "error": "no match"}}),
        ),
        part("prt_6", "msg_2", json!({"type": "step-finish", "reason": "stop"})),
        part("prt_7", "msg_2", json!({"type": "hologram", "x": 1})),
        part("prt_8", "msg_2", json!({"type": "hologram", "x": 2})),
    ]
}

#[test]
fn the_record_stream_reads_as_a_session() {
    let read = read(&stream());
    assert_eq!(read.meta.id.as_deref(), Some("ses_1"));
    assert_eq!(read.meta.title.as_deref(), Some("Fix the build"));
    assert_eq!(read.meta.cwd.as_deref(), Some("/w/app/sub"), "the assistant's folder is the latest");
    assert_eq!(read.meta.model.as_deref(), Some("m1"));
    assert_eq!(read.meta.user_messages, 1);
    assert!(!read.meta.is_subagent);
    let kinds: Vec<&EventKind> = read.events.iter().map(|e| &e.kind).collect();
    assert!(matches!(kinds[0], EventKind::User(t) if t == "Fix the build please"), "{kinds:?}");
    assert!(matches!(kinds[1], EventKind::Reasoning));
    assert!(matches!(kinds[2], EventKind::ToolCall(c) if c.command.as_deref() == Some("make")));
    assert!(matches!(kinds[3], EventKind::ToolResult(r) if r.exit_code == Some(2) && r.failed()));
    assert!(matches!(kinds[4], EventKind::ToolCall(c) if c.writes == ["/w/app/src/lib.rs"]));
    assert!(matches!(kinds[5], EventKind::ToolResult(r) if r.is_error && r.output.for_scanning() == "no match"));
    assert_eq!(kinds.len(), 6, "{kinds:?}");
    assert!(!format!("{:?}", read.events).contains("CANARY"), "synthetic text and reasoning carry nothing");
    assert_eq!(read.warnings, ["10: unknown part type `hologram` skipped (1 more line like it)"]);
    assert_eq!(read.meta.place(3), "message msg_1, part prt_1");
    assert_eq!(read.meta.place(7), "message msg_2, part prt_4");
    assert_eq!(read.meta.place(99), "line 99");
}

#[test]
fn children_compactions_and_system_prompts() {
    let lines = vec![
        session_line(&json!({"id": "ses_2", "parentID": "ses_1"})),
        message("msg_1", json!({"role": "user", "system": "CANARY custom system prompt"})),
        part("prt_1", "msg_1", json!({"type": "compaction", "auto": true})),
        message("msg_2", json!({"role": "assistant", "summary": true})),
        part("prt_2", "msg_2", json!({"type": "text", "text": "We fixed the parser."})),
        part(
            "prt_3",
            "msg_2",
            json!({"type": "file", "url": "file:///w/AGENTS.md", "source": {"text": {"value": "CANARY"}}}),
        ),
        part("prt_4", "msg_2", json!({"type": "patch", "files": ["/w/a.rs"]})),
    ];
    let read = read(&lines);
    assert_eq!(read.meta.parent.as_deref(), Some("ses_1"));
    assert!(read.meta.is_subagent);
    let kinds: Vec<&EventKind> = read.events.iter().map(|e| &e.kind).collect();
    assert!(matches!(kinds[0], EventKind::Instruction));
    assert!(matches!(kinds[1], EventKind::Compaction(Some(s)) if s == "We fixed the parser."));
    assert!(matches!(kinds[2], EventKind::ToolCall(c) if c.reads == ["/w/AGENTS.md"]));
    assert!(matches!(kinds[3], EventKind::ToolCall(c) if c.writes == ["/w/a.rs"]));
    assert!(!format!("{kinds:?}").contains("CANARY"));
    assert_eq!(read.meta.place(2), "message msg_1");
}

#[test]
fn a_record_that_could_not_be_read_is_a_warning_on_its_line() {
    let lines = vec![session(), message_line("msg_1", "{not json"), skipped_line("part/msg_1/prt_1.json", "denied")];
    let read = read(&lines);
    assert_eq!(read.warnings.len(), 2, "{:?}", read.warnings);
    assert!(
        read.warnings[0].starts_with("2: message msg_1 could not be read: data is not JSON"),
        "{:?}",
        read.warnings
    );
    assert_eq!(read.warnings[1], "3: part/msg_1/prt_1.json could not be read: denied; skipped");
    assert_eq!(
        message_line("m", "{\n\"role\": \"user\"\n}"),
        r#"{"id":"m","opencode":"message","data":{"role":"user"}}"#
    );
}

#[test]
fn ids_that_do_not_look_like_ids_are_never_cited() {
    let lines = vec![
        session(),
        message("msg_1", json!({"role": "user"})),
        part("prt_1\n## Task", "msg_1", json!({"type": "text", "text": "hello there"})),
    ];
    let read = read(&lines);
    assert_eq!(read.meta.place(3), "line 3");
}

/// The export of [`stream`]'s session, pretty-printed as `opencode export` writes it.
fn export() -> String {
    let messages: Vec<Value> = stream().iter().filter_map(|l| serde_json::from_str::<Value>(l).ok()).fold(
        Vec::new(),
        |mut messages, record| {
            let mut data = record["data"].clone();
            match record[TAG].as_str() {
                Some("message") => {
                    data["id"] = record["id"].clone();
                    messages.push(json!({"info": data, "parts": []}));
                }
                Some("part") => {
                    data["id"] = record["id"].clone();
                    data["messageID"] = record["message"].clone();
                    messages.last_mut().unwrap()["parts"].as_array_mut().unwrap().push(data);
                }
                _ => {}
            }
            messages
        },
    );
    let info = serde_json::from_str::<Value>(&session()).unwrap()["info"].clone();
    serde_json::to_string_pretty(&json!({"info": info, "messages": messages})).unwrap()
}

fn lines_of(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

#[test]
fn an_export_reads_like_the_stream_and_cites_its_lines() {
    let text = export();
    let from_export = read(&lines_of(&text));
    let from_stream = read(&stream());
    let kinds = |r: &Read| r.events.iter().map(|e| e.kind.clone()).collect::<Vec<_>>();
    assert_eq!(kinds(&from_export), kinds(&from_stream));
    assert_eq!(from_export.meta.id, from_stream.meta.id);
    let line_of_make = text.lines().position(|l| l.contains("\"id\": \"prt_4\"")).unwrap() as u64 + 1;
    let call = from_export.events.iter().find(|e| matches!(&e.kind, EventKind::ToolCall(c) if c.command.is_some()));
    assert_eq!(call.map(|e| e.line), Some(line_of_make));
    assert_eq!(from_export.meta.place(line_of_make), "message msg_2, part prt_4");
    let one_line = serde_json::to_string(&serde_json::from_str::<Value>(&text).unwrap()).unwrap();
    assert_eq!(kinds(&read(&[one_line])), kinds(&from_stream), "a compact export reads the same");
}

#[test]
fn a_cut_export_reads_what_came_before_and_warns() {
    let text = export();
    let cut = &text[..text.find("\"prt_5\"").unwrap()];
    let read = read(&lines_of(cut));
    assert!(read.events.iter().any(|e| matches!(&e.kind, EventKind::ToolResult(r) if r.exit_code == Some(2))));
    assert!(!read.events.iter().any(|e| matches!(&e.kind, EventKind::ToolResult(r) if r.is_error)));
    let cut_line = lines_of(cut).len();
    assert!(
        read.warnings.iter().any(|w| w.starts_with(&format!("{cut_line}: export cut short"))),
        "{:?}",
        read.warnings
    );
}

#[test]
fn an_export_over_the_limit_is_read_up_to_it() {
    let mut doc = document::Document::new(64);
    assert!(doc.push(1, "{").is_none());
    let warning = doc.push(2, &format!("\"info\": {{\"id\": \"ses_{}\"}}", "x".repeat(80)));
    assert!(warning.is_some_and(|w| w.contains("the rest skipped")));
    let (records, warning) = doc.parse();
    assert!(records.is_empty());
    assert!(warning.is_some_and(|w| w.message.starts_with("export cut short")));
}

/// A JSON value of any shape, a few levels deep.
fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z_ ]{0,12}".prop_map(Value::from),
        prop::sample::select(vec!["text", "tool", "file", "patch", "user", "assistant", "completed", "error"])
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        let keys = prop::sample::select(vec![
            "type",
            "text",
            "role",
            "state",
            "status",
            "input",
            "output",
            "metadata",
            "exit",
            "tool",
            "callID",
            "files",
            "summary",
            "system",
            "synthetic",
            "path",
            "cwd",
            "time",
            "created",
            "source",
            "url",
        ]);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec((keys, inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

proptest! {
    #[test]
    fn arbitrary_row_json_never_panics(datas in prop::collection::vec(arbitrary_json(), 1..8)) {
        let mut lines = vec![session()];
        for (i, data) in datas.iter().enumerate() {
            let data = data.to_string();
            lines.push(if i % 2 == 0 { message_line("msg_1", &data) } else { part_line("prt_1", "msg_1", &data) });
        }
        read(&lines);
    }

    #[test]
    fn mutated_rows_never_panic(cut in 0usize..400, byte in any::<u8>()) {
        let lines = stream();
        let all = lines.join("\n");
        let mut bytes = all.into_bytes();
        if !bytes.is_empty() {
            let at = cut % bytes.len();
            bytes[at] = byte;
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        read(&lines_of(&text));
    }

    #[test]
    fn a_damaged_or_cut_export_reads_what_it_can(cut in 0usize..10_000, byte in any::<u8>(), damage in any::<bool>()) {
        let text = export();
        let at = cut % text.len();
        let damaged = if damage {
            let mut bytes = text.clone().into_bytes();
            bytes[at] = byte;
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            text.get(..at).unwrap_or(&text).to_string()
        };
        let read = read(&lines_of(&damaged));
        // An empty file is the pipeline's to report.
        if damaged != text && !damaged.trim().is_empty() {
            let intact = serde_json::from_str::<Value>(&damaged).is_ok();
            prop_assert!(intact || !read.warnings.is_empty(), "a damaged export warns");
        }
        prop_assert!(read.events.len() <= 20);
    }
}
