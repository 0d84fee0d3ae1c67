//! The path every session takes through the core: reader → filter → redaction → sink.
//!
//! The edge feeds lines; the pipeline turns each into events and passes the ones that may be
//! learned from, redacted, to a [`Sink`] (the built-in extractor, or later a model prompt
//! renderer or a search). Nothing here touches a file.

use crate::core::filter::Filter;
use crate::core::formats::{FileHint, ReadError, Reader, reader_for};
use crate::core::redact::{redact_event, redact_meta};
use crate::core::session::{Agent, Event, LineWarning, SessionMeta};

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
            if let Some(event) = filter.apply(event) {
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
        let (mut meta, held_back) = self.reader.finish();
        // Metadata is stored, printed and named files after: its secrets go where it enters.
        redact_meta(&mut meta);
        self.warnings.extend(held_back);
        self.warnings.sort_by_key(|w| w.line);
        Finished { meta, sink: self.sink, warnings: self.warnings, own_prompt: self.filter.saw_own_prompt() }
    }
}
