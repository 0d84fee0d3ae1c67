//! `handbook why <REF>`: where a lesson came from and why it ranks where it does. The lesson
//! is looked for in the handbook, then in the pending change, then in the kept generations,
//! newest first; `core::trust::why` says what there is to say.

use anyhow::{Result, bail};

use crate::config::Settings;
use crate::config::trust::WhySettings;
use crate::core::layout::{MEMORY, RAW_MEMORIES, SUMMARY, WHOLE_SUMMARY};
use crate::core::trust::generations::Log;
use crate::core::trust::lesson::{Lesson, lessons};
use crate::core::trust::refs::{LessonRef, RefError, parse_lesson};
use crate::core::trust::why::{self, Explained, Source, State};
use crate::edge::generations::{file_of, load_log, read_trust};
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

/// Where the lesson was found: its text of `MEMORY.md` and `raw_memories.md`, and a name.
struct Found {
    lesson: Lesson,
    memory: String,
    raw: String,
    place: String,
}

/// Run `why`.
pub(crate) fn run(settings: &Settings, opts: &WhySettings, term: &Terminal) -> Result<()> {
    let workspace = Workspace::new(&settings.home);
    crate::edge::generations::finish_commit_when_free(&workspace)?;
    let Some(memory) = workspace.read(MEMORY)? else {
        bail!("no handbook yet in {}: run `handbook update` first", settings.home.display());
    };
    let wanted = parse_lesson(&opts.lesson)?;
    let log = load_log(&workspace)?;
    let raw = workspace.read(RAW_MEMORIES)?.unwrap_or_default();
    let trust = read_trust(&workspace)?;
    let found = match find(&workspace, &log, &wanted, memory, raw) {
        Ok(found) => found,
        Err(e) => return held(&trust, &wanted, term).unwrap_or(Err(e)),
    };
    let explained = explain(&workspace, settings, &found, &trust)?;
    term.json("lesson", &explained)?;
    for line in explained.lines() {
        term.line(&line)?;
    }
    Ok(())
}

/// A lesson no text holds any more, when it is held back: what is known of it.
fn held(trust: &crate::core::trust::Trust, wanted: &LessonRef, term: &Terminal) -> Option<Result<()>> {
    let LessonRef::Id(digits) = wanted else { return None };
    let (id, held) = trust.held_lessons.iter().find(|(id, _)| id.as_str()[2..].starts_with(digits.as_str()))?;
    let sessions: Vec<&str> = held.evidence.keys().map(String::as_str).collect();
    let line = format!(
        "{id} is out of the handbook: {} on {}, and held back until new evidence arrives (it came from {})",
        held.why.name(),
        crate::core::layout::timestamp(held.at),
        sessions.join(", ")
    );
    Some(
        term.json("held", &serde_json::json!({ "id": id, "held": held }))
            .and_then(|()| term.line(&line))
            .map_err(Into::into),
    )
}

/// The lesson in the handbook, else in the pending change, else in a kept generation.
fn find(workspace: &Workspace, log: &Log, wanted: &LessonRef, memory: String, raw: String) -> Result<Found> {
    let here = lessons(&memory);
    match wanted.find(&here) {
        Ok(lesson) => {
            let place = format!("MEMORY.md:{}", lesson.line_number);
            return Ok(Found { lesson: lesson.clone(), memory: memory.clone(), raw, place });
        }
        Err(RefError::NotFound(_)) if matches!(wanted, LessonRef::Id(_)) => {}
        Err(e) => return Err(e.into()),
    }
    let elsewhere = log.pending.iter().map(|g| (g, "the pending change".to_string()));
    let kept = log.generations.iter().rev().map(|g| (g, format!("generation {} (no longer in the handbook)", g.id)));
    for (generation, place) in elsewhere.chain(kept) {
        let Ok(Some(text)) = file_of(workspace, generation, MEMORY) else { continue };
        if let Ok(lesson) = wanted.find(&lessons(&text)) {
            let raw = file_of(workspace, generation, RAW_MEMORIES).ok().flatten().unwrap_or_default();
            return Ok(Found { lesson: lesson.clone(), memory: text, raw, place });
        }
    }
    Err(wanted.find(&here).map(drop).unwrap_err().into())
}

fn explain(
    workspace: &Workspace,
    settings: &Settings,
    found: &Found,
    trust: &crate::core::trust::Trust,
) -> Result<Explained> {
    let lesson = &found.lesson;
    let usage = why::usage_of(&found.raw);
    let mut sessions = Vec::new();
    for (_, session, index) in &lesson.places {
        if sessions.iter().any(|s: &Source| &s.session_id == session)
            && lesson.places.iter().filter(|p| &p.1 == session).count() > 1
        {
            // One entry a session, with the lines of all its tasks.
            let record = workspace.load_stage1(session).ok().flatten();
            let lines =
                record.and_then(|r| r.facts.tasks.get(*index).map(|t| why::fact_lines(lesson, t))).unwrap_or_default();
            if let Some(s) = sessions.iter_mut().find(|s: &&mut Source| &s.session_id == session) {
                s.lines.extend(lines);
                s.lines.sort_unstable();
                s.lines.dedup();
            }
            continue;
        }
        sessions.push(source(workspace, lesson, session, *index));
    }
    let peers: Vec<Lesson> = lessons(&found.memory);
    let peers: Vec<&Lesson> = peers.iter().filter(|l| l.kind == lesson.kind && l.project == lesson.project).collect();
    let state = State {
        check: trust.checks.get(&lesson.id),
        held: trust.held_lessons.get(&lesson.id),
        promoted: trust.promoted.get(&lesson.id),
    };
    let summary = workspace.read(SUMMARY)?.unwrap_or_default();
    let whole = workspace.read(WHOLE_SUMMARY)?;
    let standing = why::standing(lesson, &usage);
    Ok(Explained {
        id: lesson.id.to_string(),
        kind: lesson.kind,
        project: lesson.project.clone(),
        text: lesson.text.clone(),
        found: found.place.clone(),
        note: lesson.note_file.clone(),
        sessions,
        support: standing.support,
        uses: standing.uses,
        last_confirmed: state.check.and_then(|c| c.confirmed_at),
        stale: state.check.and_then(|c| c.reason()),
        rank: why::rank_in_memory(lesson, &peers, &usage),
        summary: match found.place.starts_with("MEMORY.md") {
            true => why::place_in_summary(lesson, &summary, whole.as_deref(), state, settings.summary_max_tokens),
            false => format!("not in the handbook now: found in {}", found.place),
        },
    })
}

/// A session behind the lesson, from its stored record (gone when it was forgotten: then
/// from the citation alone).
fn source(workspace: &Workspace, lesson: &Lesson, session: &str, index: usize) -> Source {
    let cited = lesson.sessions.iter().find(|s| s.session_id == session);
    let record = workspace.load_stage1(session).ok().flatten();
    let lines =
        record.as_ref().and_then(|r| r.facts.tasks.get(index)).map(|t| why::fact_lines(lesson, t)).unwrap_or_default();
    Source {
        session_id: session.to_string(),
        agent: record.as_ref().map_or("unknown", |r| r.agent.name()).to_string(),
        transcript: record
            .as_ref()
            .map_or_else(|| cited.map(|c| c.rollout_path.clone()).unwrap_or_default(), |r| r.rollout_path.clone()),
        date: cited.map(|c| c.updated_at.clone()).unwrap_or_default(),
        lines,
        uses: record.as_ref().map_or(0, |r| r.usage_count),
        last_used: record.and_then(|r| r.last_usage).map(crate::core::layout::timestamp),
    }
}
