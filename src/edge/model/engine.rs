//! [`Model`]: the engine a phase runs on, as `extract` and `consolidate` use it. It joins
//! the templates, the client and the token budget of a run, reads each answer with the
//! checks of `core::model`, and orchestrates a model consolidation group by group.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::Result;

use super::{CallError, Client};
use crate::config::EngineSettings;
use crate::core::model::consolidate::{
    ChangedSession, GroupBlock, GroupCall, MemoryDoc, ModelRun, TaskRef, answered_lines, batches, carried_lessons,
    group_prompt, parse_group_answer, renumbering, settle, settle_counting,
};
use crate::core::model::ground::{Dropped, ground_summary};
use crate::core::model::summary::{assemble_summary, parse_summary_answer, summary_prompt};
use crate::core::model::{self, AnswerError, Prompt, StageOne, StageOneInput, stage_one_prompt, transcript_budget};
use crate::core::tokens::estimate;
use crate::edge::templates::load;

/// A model engine for one run of one phase.
pub(crate) struct Model {
    pub(crate) settings: EngineSettings,
    client: Client,
    templates: Vec<(&'static str, String)>,
}

impl Model {
    /// The model a phase's settings name, with the templates it needs (the user's own from
    /// the configuration directory, else the embedded ones).
    pub(crate) fn new(settings: &EngineSettings, config_dir: Option<&Path>, names: &[&'static str]) -> Result<Model> {
        let templates = names.iter().map(|name| Ok((*name, load(config_dir, name)?))).collect::<Result<_>>()?;
        Ok(Model { settings: settings.clone(), client: Client::new(settings), templates })
    }

    pub(crate) fn template(&self, name: &str) -> &str {
        self.templates.iter().find(|(n, _)| *n == name).map_or("", |(_, t)| t.as_str())
    }

    /// Input tokens sent so far this run.
    pub(crate) fn sent_tokens(&self) -> u64 {
        self.client.sent_tokens
    }

    /// Ask; the reply's text.
    pub(crate) fn ask(&mut self, prompt: &Prompt) -> Result<String, CallError> {
        self.client.complete(prompt).map_err(CallError::redacted)
    }

    /// Tokens of transcript that fit one stage-one request.
    pub(crate) fn transcript_budget(&self) -> usize {
        transcript_budget(
            self.settings.context_tokens,
            self.template("stage_one_system.md"),
            self.template("stage_one_input.md"),
        )
    }

    /// Distil one session. A reply that is not the stage-one contract fails the call.
    /// A malformed answer is asked for once more, as in consolidation.
    pub(crate) fn stage_one(&mut self, session: &StageOneInput<'_>) -> Result<StageOne, CallError> {
        let prompt =
            stage_one_prompt(self.template("stage_one_system.md"), self.template("stage_one_input.md"), session);
        self.ask_twice(&prompt, "the session", &mut 0, model::parse_stage_one)
    }
}

/// The templates each phase needs.
pub(crate) const EXTRACT_TEMPLATES: &[&str] = &["stage_one_system.md", "stage_one_input.md"];
pub(crate) const CONSOLIDATE_TEMPLATES: &[&str] =
    &["consolidation.md", "consolidation_group.md", "consolidation_summary.md"];

/// What a model consolidation starts from.
pub(crate) struct Consolidation<'a> {
    /// `MEMORY.md` and `memory_summary.md` as the built-in consolidator laid them out.
    pub(crate) builtin_memory: &'a str,
    pub(crate) builtin_summary: &'a str,
    /// The `MEMORY.md` of the last good consolidation by this same model, if any: its
    /// lessons are carried over for the groups nothing touched.
    pub(crate) baseline_memory: Option<&'a str>,
    /// Sessions whose rollout summary was added or changed, and removed, since then.
    pub(crate) changed: &'a BTreeSet<String>,
    pub(crate) removed: &'a BTreeSet<String>,
    /// The selection's raw memories, by session id.
    pub(crate) raw_memories: &'a BTreeMap<String, String>,
    /// The summary's token cap.
    pub(crate) cap_tokens: usize,
}

/// The two files, with the lessons written by the model.
pub(crate) struct Consolidated {
    pub(crate) memory: String,
    pub(crate) summary: String,
    pub(crate) run: ModelRun,
}

impl Model {
    /// Ask and read the answer with `parse`. A malformed answer is asked for once more
    /// before it fails: one bad answer would otherwise throw away every call of the run.
    fn ask_twice<T>(
        &mut self,
        prompt: &Prompt,
        what: &str,
        calls: &mut usize,
        parse: impl Fn(&str) -> Result<T, AnswerError>,
    ) -> Result<T, CallError> {
        let mut tries = 0;
        loop {
            tries += 1;
            *calls += 1;
            let answer = self.ask(prompt).and_then(|reply| {
                parse(&reply).map_err(|e| CallError::Malformed(format!("malformed answer for {what}: {e}")).redacted())
            });
            match answer {
                Err(CallError::Malformed(_)) if tries < 2 => continue,
                Err(CallError::Malformed(reason)) => {
                    return Err(CallError::Malformed(format!("{reason} (asked twice)")));
                }
                other => return other,
            }
        }
    }

    /// Rewrite the lessons of the task groups the diff touched, one call per group (more
    /// when its sessions do not fit one), then compose the summary in one call. What is not
    /// grounded is dropped (see `core::model::ground`), and a part mostly dropped keeps its
    /// built-in result.
    pub(crate) fn consolidate(&mut self, input: &Consolidation<'_>) -> Result<Consolidated, CallError> {
        let mut doc = MemoryDoc::parse(input.builtin_memory);
        let baseline = input.baseline_memory.map(MemoryDoc::parse);
        let system = self.template("consolidation.md").to_string();
        let group_template = self.template("consolidation_group.md").to_string();
        let mut run = ModelRun::default();
        for group in &mut doc.groups {
            let old = baseline.as_ref().and_then(|b| b.group(&group.key));
            self.rewrite_group(group, old, input, (&system, &group_template), &mut run)?;
        }
        let memory = doc.render();
        let budget = (self.settings.context_tokens * 7 / 10)
            .saturating_sub(estimate(&system) + estimate(self.template("consolidation_summary.md")) + 64)
            .max(512);
        let prompt =
            summary_prompt(&system, self.template("consolidation_summary.md"), &memory, budget, input.cap_tokens);
        let parts = self.ask_twice(&prompt, "the summary", &mut run.calls, parse_summary_answer)?;
        let (parts, dropped) = ground_summary(parts, &memory);
        run.dropped.extend(dropped);
        let summary = assemble_summary(input.builtin_summary, &parts);
        Ok(Consolidated { memory, summary, run })
    }

    /// Give `group` its lessons: those of `old` (its last model rewrite), renumbered, when
    /// nothing touched it; else the model's rewrite, citations checked. An answer that
    /// cites no task of the group for most of its lines leaves the built-in lessons.
    fn rewrite_group(
        &mut self,
        group: &mut GroupBlock,
        old: Option<&GroupBlock>,
        input: &Consolidation<'_>,
        (system, template): (&str, &str),
        run: &mut ModelRun,
    ) -> Result<(), CallError> {
        let numbers: BTreeSet<u32> = group.tasks.iter().map(|(n, _)| *n).collect();
        if !touched(group, old, input) {
            let carried = old.map(|old| carried_lessons(old, group)).unwrap_or_default();
            group.lessons = settle(&carried, &numbers);
            return Ok(());
        }
        // The current lessons: the model's from last time, renumbered; for a group new to
        // the model, the built-in ones as a draft.
        let mut current = match old {
            Some(old) => carried_lessons(old, group),
            None => group.lessons.clone(),
        };
        let removed = removed_tasks(group, old);
        let changed = changed_sessions(group, old, input);
        let frame = Prompt::new("", system.to_string(), template, serde_json::Value::Null, "").tokens()
            + estimate(&group.skeleton)
            + current.sections.iter().flatten().map(|l| estimate(l) + 2).sum::<usize>();
        let budget = (self.settings.context_tokens * 7 / 10).saturating_sub(frame).max(512);
        let mut batches = batches(&changed, budget);
        if batches.is_empty() {
            batches.push(Vec::new());
        }
        let (mut dropped, mut of, mut builtin_kept) = (0, 0, false);
        for (index, batch) in batches.iter().enumerate() {
            let prompt = group_prompt(&GroupCall {
                system_template: system,
                template,
                group,
                current: &current,
                changed: batch,
                removed: if index == 0 { &removed } else { &[] },
            });
            let what = format!("task group {}", group.key);
            let answer = self.ask_twice(&prompt, &what, &mut run.calls, parse_group_answer)?;
            let (settled, forgotten) = settle_counting(&answer, &numbers);
            let lines = answered_lines(&answer);
            (dropped, of) = (dropped + forgotten, of + lines);
            if Dropped::too_many(forgotten, lines) {
                builtin_kept = true;
                break;
            }
            current = settled;
        }
        if dropped > 0 {
            run.dropped.push(Dropped { part: group.key.clone(), dropped, of, builtin_kept });
        }
        if !builtin_kept {
            group.lessons = current;
        }
        run.groups_sent += 1;
        Ok(())
    }
}

/// Whether the diff touched `group` since its last model rewrite `old`.
fn touched(group: &GroupBlock, old: Option<&GroupBlock>, input: &Consolidation<'_>) -> bool {
    let Some(old) = old else { return true };
    let sessions = group.sessions();
    old.sessions() != sessions
        || sessions.iter().any(|s| input.changed.contains(*s))
        || old.sessions().iter().any(|s| input.removed.contains(*s))
}

/// Tasks of `old` whose sessions left `group`, with their titles.
fn removed_tasks(group: &GroupBlock, old: Option<&GroupBlock>) -> Vec<(u32, String)> {
    let Some(old) = old else { return Vec::new() };
    let map = renumbering(old, group);
    old.task_titles().into_iter().filter(|(n, _)| matches!(map.get(n), Some(TaskRef::Removed(_)))).collect()
}

/// The sessions of `group` new or changed since `old`, with their raw memories.
fn changed_sessions<'a>(
    group: &'a GroupBlock,
    old: Option<&GroupBlock>,
    input: &Consolidation<'a>,
) -> Vec<ChangedSession<'a>> {
    group
        .sessions()
        .into_iter()
        .filter(|s| old.is_none() || input.changed.contains(*s) || !old.is_some_and(|o| o.sessions().contains(s)))
        .filter_map(|s| {
            let raw_memory = input.raw_memories.get(s)?;
            let tasks = group.tasks.iter().filter(|(_, id)| id.as_deref() == Some(s)).map(|(n, _)| *n).collect();
            Some(ChangedSession { session_id: s, tasks, raw_memory: Cow::Borrowed(raw_memory) })
        })
        .collect()
}
