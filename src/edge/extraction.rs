//! Reading one transcript for extraction: through the core pipeline into the built-in
//! extractor and, with a model engine, into the transcript the model is shown; then asking
//! the model about it.

use std::path::Path;

use anyhow::Result;

use super::model::{CallError, EXTRACT_TEMPLATES, Model};
use super::opencode::Shared;
use super::parallel;
use super::survey::{Origin, ToRead};
use super::transcript::{FileRead, read_transcript};
use crate::config::EngineSettings;
use crate::core::extract::{Context, Extraction, Extractor};
use crate::core::model::StageOneInput;
use crate::core::model::transcript::ModelTranscript;
use crate::core::session::{Agent, SessionMeta};
use crate::core::stage1::with_answer;

/// What the read of one session feeds: the built-in extractor, and the transcript a model
/// is shown when there is one.
pub(crate) type Sink = (Extractor, Option<ModelTranscript>);

/// How a model answered about one session.
pub(crate) enum Asked {
    /// The extraction to keep: the built-in one, or the model's on top of it.
    Extracted(Extraction),
    /// The model failed on this session; it is tried again on a later run.
    Failed(String),
    /// A problem every session would hit (a refused key, a server that cannot be reached):
    /// the run stops.
    Stop(String),
}

/// The readers and the model of one `extract` run.
pub(crate) struct Extracting {
    format: Option<Agent>,
    model: Option<Model>,
}

impl Extracting {
    /// Read as `format` when given; ask the model `engine` names unless it is the built-in
    /// one or this is a dry run (which sends nothing anywhere).
    pub(crate) fn new(
        format: Option<Agent>,
        engine: &EngineSettings,
        config_dir: Option<&Path>,
        dry_run: bool,
    ) -> Result<Extracting> {
        let model = match engine.is_model() && !dry_run {
            true => Some(Model::new(engine, config_dir, EXTRACT_TEMPLATES)?),
            false => None,
        };
        Ok(Extracting { format, model })
    }

    /// Read ahead, on every core, the sessions of `files` that need a full read (a database's
    /// each through a connection of its own to the run's copy); files only touched, which a
    /// hash may spare, come back as `None`.
    pub(crate) fn read_ahead(&self, files: &[ToRead]) -> Vec<Option<Result<FileRead<Sink>>>> {
        enum Ahead<'a> {
            File(&'a Path),
            Member(Shared, &'a str),
            Not,
        }
        let ahead: Vec<Ahead> = files
            .iter()
            .map(|file| match (&file.origin, file.touched) {
                (Origin::File(path), false) => Ahead::File(path),
                (Origin::Member { snapshot, id }, _) => Ahead::Member(snapshot.shared(), id),
                (Origin::File(_), true) => Ahead::Not,
            })
            .collect();
        let (format, budget) = (self.format, self.model.as_ref().map(Model::transcript_budget));
        let sink = || (Extractor::new(), budget.map(ModelTranscript::new));
        parallel::map(&ahead, |ahead| match ahead {
            Ahead::File(path) => Some(read_transcript(path, format, sink)),
            Ahead::Member(shared, id) => Some(shared.open().and_then(|snapshot| snapshot.read(id, sink))),
            Ahead::Not => None,
        })
    }

    /// Read the session at `origin` into the extractor (and the model's transcript).
    pub(crate) fn read(&self, origin: &Origin) -> Result<FileRead<Sink>> {
        let budget = self.model.as_ref().map(Model::transcript_budget);
        let sink = || (Extractor::new(), budget.map(ModelTranscript::new));
        match origin {
            Origin::File(path) => read_transcript(path, self.format, sink),
            Origin::Member { snapshot, id } => snapshot.read(id, sink),
        }
    }

    /// The session's extraction: the built-in extractor's, and the model's answer on top.
    pub(crate) fn extract(&mut self, key: &str, agent: Agent, project: &str, meta: &SessionMeta, sink: Sink) -> Asked {
        let context = Context { agent: agent.name().to_string(), project: project.to_string() };
        let (extractor, transcript) = sink;
        let builtin = extractor.finish(meta, &context);
        let (Some(model), Some(transcript)) = (self.model.as_mut(), transcript) else {
            return Asked::Extracted(builtin);
        };
        let transcript = transcript.finish();
        let input = StageOneInput {
            rollout_path: key,
            cwd: meta.cwd.as_deref().unwrap_or("unknown"),
            agent: agent.name(),
            project,
            transcript: &transcript,
        };
        match model.stage_one(&input) {
            Ok(answer) => Asked::Extracted(with_answer(builtin, answer)),
            Err(CallError::Call(reason) | CallError::Malformed(reason)) => Asked::Failed(format!("model: {reason}")),
            Err(CallError::Setup(reason)) => Asked::Stop(reason),
        }
    }

    /// True once the model has been sent `max` input tokens this run.
    pub(crate) fn out_of_tokens(&self, max: Option<u64>) -> bool {
        match (&self.model, max) {
            (Some(model), Some(max)) => model.sent_tokens() >= max,
            _ => false,
        }
    }
}
