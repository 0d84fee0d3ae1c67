//! The settings of the commands that show and change generations and lessons: `diff`,
//! `undo`, `review`, `promote`, `why` (`log` has none of its own).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};

use super::{ConsolidateSettings, Needs, Resolver, consolidate_settings, lock_wait};
use crate::cli::{
    ConsolidateArgs, ConsolidateOptions, DiffArgs, EngineArgs, InstructionFile, PromoteArgs, ReviewArgs, UndoArgs,
};
use crate::core::trust::refs::{GenerationRef, parse_generation};

#[derive(Debug, Clone)]
pub(crate) struct DiffSettings {
    pub(crate) from: Option<GenerationRef>,
    pub(crate) to: Option<GenerationRef>,
    pub(crate) all_files: bool,
    /// How the next consolidation would run, for a diff of what it would change.
    pub(crate) consolidate: Box<ConsolidateSettings>,
}

#[derive(Debug, Clone)]
pub(crate) struct UndoSettings {
    /// `None`: the generation before the current one.
    pub(crate) to: Option<GenerationRef>,
    pub(crate) lock_wait: Duration,
}

/// What `review` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    Show,
    /// The lessons named, or all of the change when none is.
    Accept(Vec<String>),
    /// The lessons named, or every lesson the change adds or changes when none is.
    Reject(Vec<String>),
}

#[derive(Debug, Clone)]
pub(crate) struct ReviewSettings {
    pub(crate) decision: Decision,
    pub(crate) lock_wait: Duration,
}

#[derive(Debug, Clone)]
pub(crate) struct PromoteSettings {
    pub(crate) lesson: String,
    pub(crate) to: InstructionFile,
    pub(crate) project: Option<PathBuf>,
    pub(crate) remove: bool,
    pub(crate) lock_wait: Duration,
    /// How the handbook is consolidated after `--remove` puts a lesson back in the summary.
    pub(crate) consolidate: Box<ConsolidateSettings>,
}

#[derive(Debug, Clone)]
pub(crate) struct WhySettings {
    pub(crate) lesson: String,
}

/// The consolidation settings as `update` would resolve them; what an engine lacks is only
/// a warning here.
fn consolidation(r: &mut Resolver) -> Result<Box<ConsolidateSettings>> {
    let args = ConsolidateArgs { options: ConsolidateOptions::default(), wait: None, engine: EngineArgs::default() };
    Ok(Box::new(consolidate_settings(&args, r, Needs::Warn)?))
}

fn generation(text: Option<String>, which: &str) -> Result<Option<GenerationRef>> {
    text.map(|t| parse_generation(&t).with_context(|| which.to_string())).transpose()
}

pub(crate) fn diff_settings(args: DiffArgs, r: &mut Resolver) -> Result<DiffSettings> {
    Ok(DiffSettings {
        from: generation(args.from, "A")?,
        to: generation(args.to, "B")?,
        all_files: args.all_files,
        consolidate: consolidation(r)?,
    })
}

pub(crate) fn undo_settings(args: UndoArgs, r: &mut Resolver) -> Result<UndoSettings> {
    Ok(UndoSettings { to: generation(args.generation, "GEN")?, lock_wait: lock_wait(r, args.wait)? })
}

pub(crate) fn review_settings(args: ReviewArgs, r: &mut Resolver) -> Result<ReviewSettings> {
    let decision = match (args.accept, args.reject) {
        (Some(refs), _) => Decision::Accept(refs),
        (None, Some(refs)) => Decision::Reject(refs),
        (None, None) => Decision::Show,
    };
    Ok(ReviewSettings { decision, lock_wait: lock_wait(r, args.wait)? })
}

pub(crate) fn promote_settings(args: PromoteArgs, r: &mut Resolver) -> Result<PromoteSettings> {
    Ok(PromoteSettings {
        lesson: args.lesson,
        to: args.to,
        project: args.project,
        remove: args.remove,
        lock_wait: lock_wait(r, args.wait)?,
        consolidate: consolidation(r)?,
    })
}
