//! The path every session takes through the core: reader → control characters out → filter →
//! redaction → sink.
//!
//! The edge feeds lines; the pipeline turns each into events and passes the ones that may be
//! learned from, cleaned and redacted, to a [`Sink`] (the built-in extractor, or later a model
//! prompt renderer or a search). Nothing here touches a file.

use std::borrow::Cow;

use crate::core::escape::strip_controls;
use crate::core::filter::Filter;
use crate::core::formats::{FileHint, ReadError, Reader, reader_for};
use crate::core::redact::{redact_event, redact_meta};
use crate::core::session::{Agent, Event, EventKind, LineWarning, SessionMeta, Unredacted};

/// Whatever consumes the filtered, redacted events of a session.
pub(crate) trait Sink {
    fn push(&mut self, event: &Event<'_>);
}

/// Two sinks fed the same events (the built-in extractor and a model's transcript).
impl<A: Sink, B: Sink> Sink for (A, B) {
    fn push(&mut self, event: &Event<'_>) {
        self.0.push(event);
        self.1.push(event);
    }
}

/// A sink that may be absent.
impl<S: Sink> Sink for Option<S> {
    fn push(&mut self, event: &Event<'_>) {
        if let Some(sink) = self {
            sink.push(event);
        }
    }
}

impl Sink for crate::core::extract::Extractor {
    fn push(&mut self, event: &Event<'_>) {
        crate::core::extract::Extractor::push(self, event);
    }
}

/// One session on its way through the core.
pub(crate) struct SessionPipeline<S: Sink> {
    reader: Box<dyn Reader>,
    filter: Filter,
    sink: S,
    warnings: Vec<LineWarning>,
}

/// What the pipeline learned about a session besides what its sink kept.
pub(crate) struct Finished<S> {
    pub(crate) meta: SessionMeta,
    pub(crate) sink: S,
    /// Lines that could not be read, and unknown record types.
    pub(crate) warnings: Vec<LineWarning>,
    /// A user turn carried handbook's own prompt marker: the session is handbook's own.
    pub(crate) own_prompt: bool,
    /// The session called a web or MCP tool (see [`crate::core::external`]).
    pub(crate) external: bool,
}

impl<S> Finished<S> {
    /// The same session with what its sink gathered turned into `f`'s answer (which may read
    /// the session's metadata).
    pub(crate) fn map_sink<T>(self, f: impl FnOnce(S, &SessionMeta) -> T) -> Finished<T> {
        let Finished { meta, sink, warnings, own_prompt, external } = self;
        let sink = f(sink, &meta);
        Finished { meta, sink, warnings, own_prompt, external }
    }
}

impl<S: Sink> SessionPipeline<S> {
    pub(crate) fn new(agent: Agent, hint: FileHint, sink: S) -> SessionPipeline<S> {
        SessionPipeline { reader: reader_for(agent, hint), filter: Filter::new(), sink, warnings: Vec::new() }
    }

    /// Feed one line of the transcript (without its line ending). An error says why the line
    /// was skipped; the caller words the warning (it knows whether the line was torn).
    pub(crate) fn feed(&mut self, line: u64, text: &str) -> Result<(), ReadError> {
        if text.trim().is_empty() {
            return Ok(());
        }
        let filter = &mut self.filter;
        let sink = &mut self.sink;
        self.reader.read_line(line, text, &mut |event| {
            if let Some(event) = filter.apply(without_controls(event)) {
                sink.push(&redact_event(event));
            }
        })?;
        Ok(())
    }

    /// Record a problem with a line.
    pub(crate) fn warn(&mut self, line: u64, message: String) {
        self.warnings.push(LineWarning { line, message });
    }

    pub(crate) fn finish(mut self) -> Finished<S> {
        let filter = &mut self.filter;
        let sink = &mut self.sink;
        self.reader.drain(&mut |event| {
            if let Some(event) = filter.apply(without_controls(event)) {
                sink.push(&redact_event(event));
            }
        });
        let (mut meta, held_back) = self.reader.finish();
        meta_without_controls(&mut meta);
        // Metadata is stored, printed and named files after: its secrets go where it enters.
        redact_meta(&mut meta);
        self.warnings.extend(held_back);
        self.warnings.sort_by_key(|w| w.line);
        let (own_prompt, external) = (self.filter.saw_own_prompt(), self.filter.saw_external());
        Finished { meta, sink: self.sink, warnings: self.warnings, own_prompt, external }
    }
}

/// The event with terminal controls, bidi overrides and invisible characters taken out of
/// every text it carries, before anything reads it: a secret or an instruction broken up by
/// a zero-width space is whole again for redaction and the injection filter, and nothing
/// learned from it can move a terminal's cursor or hide text from whoever reads the handbook.
fn without_controls(event: Event<'_>) -> Event<'_> {
    let Event { line, kind } = event;
    let kind = match kind {
        EventKind::User(text) => EventKind::User(stripped(text)),
        EventKind::Assistant(text) => EventKind::Assistant(stripped_unredacted(text)),
        EventKind::ToolCall(mut call) => {
            // Ids go too: a call and its result carry the same id, so they still pair.
            call.id = call.id.map(stripped);
            call.name = stripped(call.name);
            call.command = call.command.map(stripped);
            call.writes.iter_mut().chain(call.reads.iter_mut()).for_each(strip_string);
            call.input = stripped_unredacted(call.input);
            EventKind::ToolCall(call)
        }
        EventKind::ToolResult(mut result) => {
            result.id = result.id.map(stripped);
            result.output = stripped_unredacted(result.output);
            EventKind::ToolResult(result)
        }
        EventKind::Compaction(summary) => EventKind::Compaction(summary.map(stripped)),
        other => other,
    };
    Event { line, kind }
}

/// The free-text metadata without control characters. The session id stays as the transcript
/// gave it: it names the session's records, and two ids that differ only in a control
/// character are still two sessions.
fn meta_without_controls(meta: &mut SessionMeta) {
    let fields = [&mut meta.cwd, &mut meta.git_branch, &mut meta.git_remote, &mut meta.model, &mut meta.title];
    fields.into_iter().flatten().for_each(strip_string);
}

fn stripped(text: Cow<'_, str>) -> Cow<'_, str> {
    let owned = match strip_controls(&text) {
        Cow::Owned(clean) => Some(clean),
        Cow::Borrowed(_) => None,
    };
    owned.map_or(text, Cow::Owned)
}

fn stripped_unredacted(text: Unredacted<'_>) -> Unredacted<'_> {
    let owned = match strip_controls(text.for_scanning()) {
        Cow::Owned(clean) => Some(clean),
        Cow::Borrowed(_) => None,
    };
    owned.map_or(text, Unredacted::new)
}

fn strip_string(text: &mut String) {
    if let Cow::Owned(clean) = strip_controls(text) {
        *text = clean;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every text an event carries, joined.
    #[derive(Default)]
    struct Texts(String);

    impl Sink for Texts {
        fn push(&mut self, event: &Event<'_>) {
            let texts: Vec<&str> = match &event.kind {
                EventKind::User(text) => vec![text],
                EventKind::Assistant(text) => vec![text.for_scanning()],
                EventKind::ToolCall(call) => {
                    let mut texts = vec![call.name.as_ref(), call.input.for_scanning()];
                    texts.extend(call.command.as_deref());
                    texts.extend(call.writes.iter().chain(&call.reads).map(String::as_str));
                    texts
                }
                EventKind::ToolResult(result) => vec![result.output.for_scanning()],
                EventKind::Compaction(summary) => summary.as_deref().into_iter().collect(),
                EventKind::Reasoning | EventKind::Instruction => Vec::new(),
            };
            for text in texts {
                self.0.push_str(text);
                self.0.push('\n');
            }
        }
    }

    /// A reader that holds every user line back until the file ends, as the upsert and tree
    /// formats do.
    #[derive(Default)]
    struct Holding(Vec<Event<'static>>);

    impl Reader for Holding {
        fn read_line<'a>(&mut self, line: u64, text: &'a str, _: &mut dyn FnMut(Event<'a>)) -> Result<(), ReadError> {
            let event = Event { line, kind: EventKind::User(Cow::Borrowed(text)) };
            self.0.push(event.into_owned());
            Ok(())
        }

        fn drain(&mut self, emit: &mut dyn FnMut(Event<'_>)) {
            self.0.drain(..).for_each(emit);
        }

        fn finish(&mut self) -> (SessionMeta, Vec<LineWarning>) {
            (SessionMeta::default(), Vec::new())
        }
    }

    #[test]
    fn held_back_events_take_the_same_path_as_the_others() {
        let mut pipeline = SessionPipeline {
            reader: Box::new(Holding::default()),
            filter: Filter::new(),
            sink: Texts::default(),
            warnings: Vec::new(),
        };
        pipeline.feed(1, "Use the key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 \u{1b}[2Jnow").unwrap();
        pipeline.feed(2, "Keep going.").unwrap();
        assert_eq!(pipeline.sink.0, "", "nothing reaches the sink before the file ends");
        let texts = pipeline.finish().sink.0;
        assert!(texts.contains("Keep going."), "{texts:?}");
        assert!(!texts.contains("abcdefghijklmnopqrstuvwxyz0123456789"), "held-back text is redacted: {texts:?}");
    }

    fn unsafe_chars(text: &str) -> Vec<char> {
        text.chars().filter(|&c| crate::core::escape::is_unsafe(c)).collect()
    }

    #[test]
    fn terminal_controls_never_get_past_the_pipeline() {
        let lines = [
            serde_json::json!({"session_id": "s1", "cwd": "/w/app\u{1b}[2J", "git_branch": "ma\u{1b}]0;pwned\u{7}in\u{202e}"}),
            serde_json::json!({"role": "user", "content": "Fix \u{1b}]0;pwned\u{7}the build \u{202e}now\u{202c}."}),
            serde_json::json!({"role": "tool_call", "id": "1", "command": "make\u{200b} build\u{1b}[8m"}),
            serde_json::json!({"role": "tool", "id": "1", "exit_code": 2, "content": "\u{1b}[31merror\u{1b}[0m: bad\r\n"}),
            serde_json::json!({"role": "assistant", "content": "done \u{1b}[?1049h\u{feff}"}),
        ];
        let mut pipeline = SessionPipeline::new(Agent::Generic, FileHint::default(), Texts::default());
        for (i, line) in lines.iter().enumerate() {
            pipeline.feed(i as u64 + 1, &line.to_string()).unwrap();
        }
        let finished = pipeline.finish();
        let texts = &finished.sink.0;
        assert!(unsafe_chars(texts).is_empty(), "{texts:?}");
        assert!(texts.contains("Fix the build now.") && texts.contains("error: bad\n"), "{texts:?}");
        let meta = [&finished.meta.cwd, &finished.meta.git_branch];
        assert_eq!(finished.meta.git_branch.as_deref(), Some("main"));
        for field in meta.into_iter().flatten() {
            assert!(unsafe_chars(field).is_empty(), "{field:?}");
        }
    }
}
