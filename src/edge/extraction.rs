//! Reading one transcript for extraction, on any thread: through the core pipeline into the
//! built-in extractor and, with a model engine, into the transcript the model is shown; then,
//! on the thread that settles sessions, asking the model about it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use anyhow::Result;

use super::git::Projects;
use super::model::{CallError, EXTRACT_TEMPLATES, Model};
use super::opencode::Shared;
use super::transcript::{FileRead, hash_file, read_transcript};
use crate::config::EngineSettings;
use crate::core::extract::{Context, Extraction, Extractor};
use crate::core::model::StageOneInput;
use crate::core::model::transcript::ModelTranscript;
use crate::core::pipeline::Finished;
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

/// One session to read, as the threads that read sessions take it: everything it needs is
/// here, so no thread waits on another to read it. A first run makes one for every session,
/// so the rarer kinds keep what they need in a box of their own.
pub(crate) enum Job<'a> {
    /// A transcript file of its own.
    File(&'a Path),
    /// A transcript only touched since it was settled: its content hash, equal to the one
    /// recorded, spares the read.
    Touched(&'a Path, Option<Box<str>>),
    /// One session of a database, through a connection of its own to the run's copy.
    Member(Box<(Shared, &'a str)>),
}

/// What reading a session off the settling thread gave.
pub(crate) enum Read {
    /// Touched, and the same bytes as recorded.
    Unchanged,
    Read(Result<FileRead<Ready>>),
}

/// A session read to its end and extracted by the built-in extractor, ready to be settled:
/// the model, when there is one, is asked when it is.
pub(crate) struct Ready {
    /// Sessions its replies cited, with how many replies cited each.
    pub(crate) cited: BTreeMap<String, u32>,
    pub(crate) project: String,
    builtin: Extraction,
    transcript: Option<ModelTranscript>,
}

/// What the reading threads share: how to read, and the project of each working folder
/// looked up so far (a pure function of the disk, so whichever thread looks first, every
/// session gets the same key).
pub(crate) struct Reader {
    format: Option<Agent>,
    budget: Option<usize>,
    projects: Mutex<Projects>,
}

impl Reader {
    /// Read one session and extract it with the built-in extractor.
    pub(crate) fn read(&self, job: &Job<'_>) -> Read {
        let sink = || (Extractor::new(), self.budget.map(ModelTranscript::new));
        let read = match job {
            Job::File(path) => read_transcript(path, self.format, sink),
            Job::Touched(path, recorded) => {
                if hash_file(path).ok().is_some_and(|hash| Some(&*hash) == recorded.as_deref()) {
                    return Read::Unchanged;
                }
                read_transcript(path, self.format, sink)
            }
            Job::Member(member) => member.0.open().and_then(|snapshot| snapshot.read(member.1, sink)),
        };
        Read::Read(read.map(|read| read.map(|agent, finished| self.ready(agent, finished))))
    }

    fn ready(&self, agent: Agent, finished: Finished<Sink>) -> Finished<Ready> {
        finished.map_sink(|(extractor, transcript), meta| {
            let cited = extractor.citations(meta.id.as_deref());
            let project = self.project(meta);
            let context = Context { agent: agent.name().to_string(), project: project.clone() };
            Ready { cited, project, builtin: extractor.finish(meta, &context), transcript }
        })
    }

    fn project(&self, meta: &SessionMeta) -> String {
        // A panic elsewhere leaves the cache whole.
        let mut projects = self.projects.lock().unwrap_or_else(|e| e.into_inner());
        projects.key(meta.git_remote.as_deref(), meta.cwd.as_deref())
    }
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

    /// What the threads that read sessions share.
    pub(crate) fn reader(&self) -> Reader {
        let budget = self.model.as_ref().map(Model::transcript_budget);
        Reader { format: self.format, budget, projects: Mutex::new(Projects::new()) }
    }

    /// The session's extraction: the built-in extractor's, and the model's answer on top.
    pub(crate) fn extract(&mut self, key: &str, agent: Agent, meta: &SessionMeta, ready: Ready) -> Asked {
        let Ready { project, builtin, transcript, .. } = ready;
        let (Some(model), Some(transcript)) = (self.model.as_mut(), transcript) else {
            return Asked::Extracted(builtin);
        };
        let transcript = transcript.finish();
        let input = StageOneInput {
            rollout_path: key,
            cwd: meta.cwd.as_deref().unwrap_or("unknown"),
            agent: agent.name(),
            project: &project,
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
