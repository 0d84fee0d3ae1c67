//! Properties of the line readers (Codex, Claude Code, generic), on the fixtures' real lines
//! (and the record shapes of the public samples they lack) and on mutations of them (bytes flipped, inserted, deleted; fields given another JSON type;
//! lines dropped, doubled, torn) and on arbitrary bytes: nothing panics, and a transcript cut
//! at any byte reads as a prefix of the whole file, as an append-only format must, with at
//! most one warning more, for the torn last line.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::FileHint;
use crate::core::pipeline::{SessionPipeline, Sink};
use crate::core::session::{Agent, Event};

/// Cases per property: enough to find the tricky shapes, few enough to keep the suite fast.
fn config() -> ProptestConfig {
    ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() }
}

/// The fixtures' transcripts: the reader each is for, a path like its own, its text.
const CORPUS: &[(Agent, &str, &str)] = &[
    (
        Agent::Codex,
        "/h/.codex/sessions/rollout-2026-11-20T09-00-00-019d7a10-4c2e-7b31-9a55-0c0de0000001.jsonl",
        include_str!(
            "../../../fixtures/codex-failure-fix/sessions/2026/11/20/rollout-2026-11-20T09-00-00-019d7a10-4c2e-7b31-9a55-0c0de0000001.jsonl"
        ),
    ),
    (
        Agent::Codex,
        "/h/.codex/sessions/rollout-2026-11-25T16-00-10-019d7a10-4c2e-7b31-9a55-0c0de0000005.jsonl",
        include_str!(
            "../../../fixtures/subagents/codex/rollout-2026-11-25T16-00-10-019d7a10-4c2e-7b31-9a55-0c0de0000005.jsonl"
        ),
    ),
    (
        Agent::Codex,
        "/h/.codex/sessions/rollout-2025-07-14T09-30-00-6c1f2a90-1111-4c4c-8a8a-0123456789ab.jsonl",
        include_str!(
            "../../../fixtures/codex-legacy/rollout-2025-07-14T09-30-00-6c1f2a90-1111-4c4c-8a8a-0123456789ab.jsonl"
        ),
    ),
    (
        Agent::Codex,
        "/h/.codex/sessions/rollout-2026-11-25T09-00-00-019d7a10-4c2e-7b31-9a55-0c0de00000b1.jsonl",
        include_str!(
            "../../../fixtures/instruction-reads/codex/rollout-2026-11-25T09-00-00-019d7a10-4c2e-7b31-9a55-0c0de00000b1.jsonl"
        ),
    ),
    (
        Agent::Codex,
        "/h/.codex/sessions/rollout-2026-11-26T03-00-00-019d7a10-4c2e-7b31-9a55-0c0de0000006.jsonl",
        include_str!(
            "../../../fixtures/own-prompt/rollout-2026-11-26T03-00-00-019d7a10-4c2e-7b31-9a55-0c0de0000006.jsonl"
        ),
    ),
    (
        Agent::Claude,
        "/h/.claude/projects/-home-dev-webshop/5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001.jsonl",
        include_str!(
            "../../../fixtures/claude-preferences/projects/-home-dev-webshop/5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001.jsonl"
        ),
    ),
    (
        Agent::Claude,
        "/h/.claude/projects/-home-dev-engine/5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000003.jsonl",
        include_str!(
            "../../../fixtures/subagents/projects/-home-dev-engine/5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000003.jsonl"
        ),
    ),
    (
        Agent::Claude,
        "/h/.claude/projects/-home-dev-engine/5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000003/subagents/agent-a7c91e.jsonl",
        include_str!(
            "../../../fixtures/subagents/projects/-home-dev-engine/5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000003/subagents/agent-a7c91e.jsonl"
        ),
    ),
    (
        Agent::Claude,
        "/h/.claude/projects/-home-dev-docs-site/5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000002.jsonl",
        include_str!(
            "../../../fixtures/prompt-injection/projects/-home-dev-docs-site/5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000002.jsonl"
        ),
    ),
    (
        Agent::Claude,
        "/h/.claude/projects/-home-dev-shop/5a1e0c2d-7f3b-4e21-9c8d-2b7e1f0000d1.jsonl",
        include_str!(
            "../../../fixtures/instruction-reads/projects/-home-dev-shop/5a1e0c2d-7f3b-4e21-9c8d-2b7e1f0000d1.jsonl"
        ),
    ),
    (
        Agent::Generic,
        "/exports/firmware-session.jsonl",
        include_str!("../../../fixtures/generic/firmware-session.jsonl"),
    ),
    (
        Agent::Generic,
        "/exports/secrets-demo.jsonl",
        include_str!("../../../fixtures/secrets/generic/secrets-demo.jsonl"),
    ),
    (
        Agent::Codex,
        "/h/.codex/sessions/rollout-2026-01-03T04-05-10-33333333-3333-4333-8333-333333333333.jsonl",
        CODEX_SHAPES,
    ),
    (Agent::Claude, "/h/.claude/projects/-w/55550000-0000-4000-8000-000000000001.jsonl", CLAUDE_SHAPES),
    (Agent::Generic, "/exports/shapes.jsonl", GENERIC_SHAPES),
];

/// Record shapes of the public samples' Codex rollouts that the fixtures lack, written anew
/// from the documented schema: a spawned sub-agent's header, a spawn call and its event, an
/// unknown future record type, a local shell call, a web search, a compaction, an output as
/// content items, and the newest envelope's `ordinal` and `metadata`.
const CODEX_SHAPES: &str = concat!(
    r#"{"timestamp":"2026-01-03T04:05:10.000Z","type":"session_meta","payload":{"id":"33333333-3333-4333-8333-333333333333","cwd":"/w","cli_version":"0.144.1","source":{"subagent":{"thread_spawn":{"parent_thread_id":"22222222-2222-4222-8222-222222222222","depth":1,"agent_nickname":"scout"}}}}}"#,
    "\n",
    r#"{"timestamp":"2026-01-03T04:05:11.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"list the files"}]}}"#,
    "\n",
    r#"{"timestamp":"2026-01-03T04:05:12.000Z","type":"response_item","payload":{"type":"function_call","name":"spawn_agent","arguments":"{\"task\":\"look around\"}","call_id":"c1"}}"#,
    "\n",
    r#"{"timestamp":"2026-01-03T04:05:13.000Z","type":"event_msg","payload":{"type":"collab_tool_call","call_id":"c1","status":"completed"}}"#,
    "\n",
    r#"{"timestamp":"2026-01-03T04:05:14.000Z","type":"world_state","payload":{"entries":[]}}"#,
    "\n",
    r#"{"timestamp":"2026-01-03T04:05:15.000Z","type":"response_item","payload":{"type":"local_shell_call","call_id":"c2","status":"completed","action":{"type":"exec","command":["ls","-la"]}}}"#,
    "\n",
    r#"{"timestamp":"2026-01-03T04:05:16.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":[{"type":"input_text","text":"total 0"}]}}"#,
    "\n",
    r#"{"timestamp":"2026-01-03T04:05:17.000Z","type":"response_item","payload":{"type":"web_search_call","status":"completed","action":{"type":"search","query":"zstd frame format"}}}"#,
    "\n",
    r#"{"timestamp":"2026-01-03T04:05:18.000Z","type":"compacted","payload":{"message":"summary of the earlier turns"}}"#,
    "\n",
    r#"{"timestamp":"2026-01-03T04:05:19.000Z","ordinal":9,"type":"response_item","metadata":{"user_input_order":1},"payload":{"type":"message","role":"assistant","phase":"final_answer","content":[{"type":"output_text","text":"Nothing there."}]}}"#,
    "\n",
);

/// The same for Claude Code: split streamed responses, an `Agent` spawn and its result, a
/// failed tool result with `toolUseResult`, an inline sidechain, a compaction, progress and
/// file-history entries.
const CLAUDE_SHAPES: &str = concat!(
    r#"{"type":"user","sessionId":"55550000-0000-4000-8000-000000000001","uuid":"u1","parentUuid":null,"isSidechain":false,"cwd":"/w","gitBranch":"main","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"run the tests"}}"#,
    "\n",
    r#"{"type":"assistant","sessionId":"55550000-0000-4000-8000-000000000001","uuid":"u2","parentUuid":"u1","timestamp":"2026-01-01T00:00:01.000Z","message":{"id":"msg_1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Running them."}]}}"#,
    "\n",
    r#"{"type":"assistant","sessionId":"55550000-0000-4000-8000-000000000001","uuid":"u3","parentUuid":"u2","timestamp":"2026-01-01T00:00:01.000Z","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"npm test"}}]}}"#,
    "\n",
    r#"{"type":"user","sessionId":"55550000-0000-4000-8000-000000000001","uuid":"u4","parentUuid":"u3","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"1 failing"}]}]},"toolUseResult":{"stdout":"1 failing","stderr":"","interrupted":false}}"#,
    "\n",
    r#"{"type":"assistant","sessionId":"55550000-0000-4000-8000-000000000001","uuid":"u5","parentUuid":"u4","timestamp":"2026-01-01T00:00:06.000Z","message":{"id":"msg_2","role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Agent","input":{"prompt":"find the flaky test","subagent_type":"general-purpose"}}]}}"#,
    "\n",
    r#"{"type":"assistant","isSidechain":true,"agentId":"a1","sessionId":"55550000-0000-4000-8000-000000000001","uuid":"s1","parentUuid":null,"timestamp":"2026-01-01T00:00:07.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"where is it","signature":"sig"}]}}"#,
    "\n",
    r#"{"type":"user","sessionId":"55550000-0000-4000-8000-000000000001","uuid":"u6","parentUuid":"u5","timestamp":"2026-01-01T00:00:09.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"agentId: a1 <usage>total_tokens: 10</usage>"}]},"toolUseResult":{"agentId":"a1","status":"completed"}}"#,
    "\n",
    r#"{"type":"progress","sessionId":"55550000-0000-4000-8000-000000000001","uuid":"p1","data":{"type":"bash_progress","output":"..."}}"#,
    "\n",
    r#"{"type":"system","subtype":"compact_boundary","uuid":"c1","sessionId":"55550000-0000-4000-8000-000000000001","content":"Conversation compacted"}"#,
    "\n",
    r#"{"type":"user","isCompactSummary":true,"uuid":"c2","parentUuid":"c1","sessionId":"55550000-0000-4000-8000-000000000001","message":{"role":"user","content":"Summary: the flaky test was fixed"}}"#,
    "\n",
    r#"{"type":"file-history-snapshot","messageId":"m1","snapshot":{}}"#,
    "\n",
);

/// The same for the generic format: a header, a tool call with its result as content items,
/// Unix-millisecond times, reasoning, an unknown role.
const GENERIC_SHAPES: &str = concat!(
    r#"{"session_id":"g1","cwd":"/w","git_branch":"main"}"#,
    "\n",
    r#"{"role":"user","content":"build it","timestamp":1767225600000}"#,
    "\n",
    r#"{"role":"tool_call","name":"shell","command":"make","id":"t1","timestamp":1767225601000}"#,
    "\n",
    r#"{"role":"tool","id":"t1","content":[{"type":"text","text":"ok"}],"exit_code":0}"#,
    "\n",
    r#"{"role":"thinking","content":"hidden"}"#,
    "\n",
    r#"{"role":"critic","content":"?"}"#,
    "\n",
    r#"{"role":"assistant","content":[{"type":"text","text":"Built."}],"model":"m"}"#,
    "\n",
);

/// Every event the pipeline lets through, as its debug form, in order.
#[derive(Default)]
struct Collect(Vec<String>);

impl Sink for Collect {
    fn push(&mut self, event: &Event<'_>) {
        self.0.push(format!("{event:?}"));
    }
}

/// What reading a file gave: its events, and its warnings as (line, message).
struct Read {
    events: Vec<String>,
    warnings: Vec<(u64, String)>,
}

/// Read `bytes` line by line through the pipeline as the edge does, a skipped line becoming a
/// warning at its line.
fn read(agent: Agent, path: &str, bytes: &[u8]) -> Read {
    let mut pipeline = SessionPipeline::new(agent, FileHint::from_path(path), Collect::default());
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let text = String::from_utf8_lossy(line);
        let n = index as u64 + 1;
        if let Err(error) = pipeline.feed(n, text.strip_suffix('\r').unwrap_or(&text)) {
            pipeline.warn(error.line(), error.to_string());
        }
    }
    let finished = pipeline.finish();
    Read { events: finished.sink.0, warnings: finished.warnings.into_iter().map(|w| (w.line, w.message)).collect() }
}

/// A warning without the count a once-per-file warning ends with (`(2 more lines like it)`),
/// which depends on how much of the file was read.
fn uncounted(message: &str) -> &str {
    match message.rsplit_once(" (") {
        Some((head, tail)) if tail.ends_with("like it)") => head,
        _ => message,
    }
}

/// The first line of an event's debug form names its line: `Event { line: 7, ...`.
fn line_of(event: &str) -> u64 {
    let digits: String = event.trim_start_matches("Event { line: ").chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or(0)
}

/// The file `whole` cut after `cut` bytes reads as a prefix of the whole: the same events for
/// every line before the torn one, then (when `strict`, the torn line being a piece of a real
/// record) the torn line's own events only if they are the whole line's; and no warnings
/// but the whole file's for those lines, and at most one for the torn line.
fn cut_is_a_prefix(agent: Agent, path: &str, whole: &[u8], cut: usize, strict: bool) -> Result<(), TestCaseError> {
    let all = read(agent, path, whole);
    let part = read(agent, path, &whole[..cut]);
    // The line the cut falls in, counting from 1 (a cut right after a line ending starts an
    // empty one, which reads as nothing).
    let torn = whole[..cut].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let before = |events: &[String]| events.iter().filter(|e| line_of(e) < torn).cloned().collect::<Vec<_>>();
    let kept = before(&part.events);
    prop_assert_eq!(&kept[..], &all.events[..kept.len().min(all.events.len())], "events before line {}", torn);
    prop_assert_eq!(&kept, &before(&all.events), "events before line {}", torn);
    if strict {
        prop_assert!(all.events.starts_with(&part.events), "cut at {} (line {}): {:#?}", cut, torn, part.events);
    }
    let warnings_before = |read: &Read| {
        let mut found: Vec<(u64, String)> =
            read.warnings.iter().filter(|(l, _)| *l < torn).map(|(l, m)| (*l, uncounted(m).to_string())).collect();
        found.sort();
        found
    };
    prop_assert_eq!(warnings_before(&part), warnings_before(&all), "warnings before line {}", torn);
    let after: Vec<_> = part.warnings.iter().filter(|(l, _)| *l >= torn).collect();
    prop_assert!(
        after.len() <= 1,
        "cut at {} (line {}): more than one warning for the torn line: {:?}",
        cut,
        torn,
        after
    );
    Ok(())
}

/// One of the fixtures' transcripts.
fn transcript() -> impl Strategy<Value = (Agent, &'static str, &'static str)> {
    prop::sample::select(CORPUS.to_vec())
}

/// A value of some JSON type, to put where a field of another type was.
fn any_json() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        Just(json!(-1.5e300)),
        Just(json!("")),
        "[ -~]{0,12}".prop_map(Value::String),
        Just(json!([])),
        Just(json!([1, "two", null])),
        Just(json!({})),
        Just(json!({"type": "message", "role": "user", "content": 42})),
    ]
}

/// A change to a transcript.
#[derive(Debug, Clone)]
enum Mutation {
    Flip {
        at: usize,
        mask: u8,
    },
    Insert {
        at: usize,
        byte: u8,
    },
    Delete {
        at: usize,
    },
    /// Replace the value a path of picks (a child index per level) leads to, in one line.
    Retype {
        line: usize,
        path: Vec<usize>,
        value: Value,
    },
    DropLine {
        line: usize,
    },
    DoubleLine {
        line: usize,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<usize>();
    prop_oneof![
        (at, 1u8..).prop_map(|(at, mask)| Mutation::Flip { at, mask }),
        (at, prop::sample::select(vec![b'"', b'{', b'}', b'[', b',', b':', b'\\', b'\n', 0, 0xff, b'a']))
            .prop_map(|(at, byte)| Mutation::Insert { at, byte }),
        at.prop_map(|at| Mutation::Delete { at }),
        (at, prop::collection::vec(any::<usize>(), 0..5), any_json())
            .prop_map(|(line, path, value)| Mutation::Retype { line, path, value }),
        at.prop_map(|line| Mutation::DropLine { line }),
        at.prop_map(|line| Mutation::DoubleLine { line }),
    ]
}

/// Put `value` where `path` leads in `root`: at each level the child the pick names, modulo
/// how many there are, stopping at a leaf.
fn retype(node: &mut Value, path: &[usize], value: Value) {
    let has_children = match node {
        Value::Object(map) => !map.is_empty(),
        Value::Array(items) => !items.is_empty(),
        _ => false,
    };
    let (Some((&pick, rest)), true) = (path.split_first(), has_children) else {
        *node = value;
        return;
    };
    let child = match node {
        Value::Object(map) => {
            let len = map.len();
            map.values_mut().nth(pick % len)
        }
        Value::Array(items) => {
            let len = items.len();
            items.get_mut(pick % len)
        }
        _ => None,
    };
    if let Some(child) = child {
        retype(child, rest, value);
    }
}

fn mutate(text: &str, mutations: &[Mutation]) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    for mutation in mutations {
        let lines = |bytes: &[u8]| bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect::<Vec<_>>();
        match mutation {
            Mutation::Flip { at, mask } if !bytes.is_empty() => {
                let i = at % bytes.len();
                bytes[i] ^= mask;
            }
            Mutation::Insert { at, byte } => bytes.insert(at % (bytes.len() + 1), *byte),
            Mutation::Delete { at } if !bytes.is_empty() => {
                bytes.remove(at % bytes.len());
            }
            Mutation::Retype { line, path, value } => {
                let mut all = lines(&bytes);
                let i = line % all.len();
                if let Ok(mut record) = serde_json::from_slice::<Value>(&all[i]) {
                    retype(&mut record, path, value.clone());
                    all[i] = record.to_string().into_bytes();
                    bytes = all.join(&b'\n');
                }
            }
            Mutation::DropLine { line } => {
                let mut all = lines(&bytes);
                all.remove(line % all.len());
                bytes = all.join(&b'\n');
            }
            Mutation::DoubleLine { line } => {
                let mut all = lines(&bytes);
                let i = line % all.len();
                all.insert(i, all[i].clone());
                bytes = all.join(&b'\n');
            }
            _ => {}
        }
    }
    bytes
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes_never_panic(agent in prop::sample::select(vec![Agent::Codex, Agent::Claude, Agent::Generic]),
                                   bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        read(agent, "/x/rollout-a.jsonl", &bytes);
    }

    #[test]
    fn json_of_any_shape_never_panics(agent in prop::sample::select(vec![Agent::Codex, Agent::Claude, Agent::Generic]),
                                      values in prop::collection::vec(any_json(), 1..6),
                                      keys in prop::collection::vec(prop::sample::select(vec![
                                          "type", "payload", "role", "content", "message", "timestamp", "id", "uuid",
                                          "parentUuid", "sessionId", "record_type", "call_id", "output", "arguments",
                                      ]), 1..6)) {
        // Records whose well-known fields hold any type at all, nested one level.
        let record: BTreeMap<&str, Value> = keys.iter().copied().zip(values.iter().cloned()).collect();
        let nested = json!({"type": "response_item", "payload": record, "message": record});
        let text = format!("{}\n{}\n", serde_json::to_string(&record).unwrap_or_default(), nested);
        read(agent, "/x/rollout-a.jsonl", text.as_bytes());
    }

    #[test]
    fn mutated_transcripts_never_panic((agent, path, text) in transcript(),
                                       mutations in prop::collection::vec(mutation(), 1..8)) {
        let bytes = mutate(text, &mutations);
        read(agent, path, &bytes);
        // Read as the other formats too: a file is sometimes forced to the wrong one.
        for other in [Agent::Codex, Agent::Claude, Agent::Generic] {
            read(other, path, &bytes);
        }
    }

    #[test]
    fn a_transcript_cut_anywhere_reads_as_a_prefix_of_the_whole((agent, path, text) in transcript(),
                                                                cut in any::<usize>()) {
        cut_is_a_prefix(agent, path, text.as_bytes(), cut % (text.len() + 1), true)?;
    }

    #[test]
    fn a_mutated_transcript_cut_anywhere_reads_as_a_prefix_of_the_whole((agent, path, text) in transcript(),
                                                                        mutations in prop::collection::vec(mutation(), 1..6),
                                                                        cut in any::<usize>()) {
        let bytes = mutate(text, &mutations);
        cut_is_a_prefix(agent, path, &bytes, cut % (bytes.len() + 1), false)?;
    }
}

/// Every cut of every fixture at a line's end and next to it, where a torn line is most
/// likely to look whole.
#[test]
fn every_fixture_cut_at_its_line_ends_reads_as_a_prefix() {
    for (agent, path, text) in CORPUS {
        for line in text.lines() {
            assert!(serde_json::from_str::<Value>(line).is_ok(), "{path}: not JSON: {line}");
        }
        let whole = read(*agent, path, text.as_bytes());
        assert!(!whole.events.is_empty() && whole.events.iter().all(|e| line_of(e) > 0), "{path}: {:?}", whole.events);
        let ends = text.match_indices('\n').map(|(i, _)| i);
        for end in ends {
            for cut in [end.saturating_sub(1), end, end + 1] {
                if let Err(failure) = cut_is_a_prefix(*agent, path, text.as_bytes(), cut.min(text.len()), true) {
                    panic!("{path} cut at {cut}: {failure}");
                }
            }
        }
    }
}
