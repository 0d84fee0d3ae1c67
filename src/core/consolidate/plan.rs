//! Consolidation as a series of pure plans the command applies: whether the cooldown holds,
//! which sessions feed the handbook, what the sync writes and removes, whether anything
//! changed since the baseline, which hand edits the user made, the new handbook with its
//! checks, and the new baseline. Every decision of `consolidate` is made here, on values;
//! the command reads the workspace, asks the model, and writes what these return.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use jiff::{SignedDuration, Timestamp};
use similar::{DiffTag, TextDiff};

use super::edits::Edits;
use super::report::LeftOut;
use super::validate::{Invalid, validate, validate_handbook};
use super::{Output, RENDERER};
use crate::core::layout::{self, MEMORY, RAW_MEMORIES, ROLLOUT_SUMMARIES, SUMMARY};
use crate::core::manifest::{Change, MANIFEST_VERSION, Manifest, Pending, Snapshot, hash};
use crate::core::notes::Note;
use crate::core::project::path_keys_to_remotes;
use crate::core::redact::redact;
use crate::core::select::{self, Selection};
use crate::core::stage1::Stage1;
use crate::core::state::{SourceState, Sources, usage};
use crate::core::summary::Summary;
use crate::core::tokens::Cap;

/// Heading for hand-added lines whose place is gone.
const ADDED_BY_HAND: &str = "## Added by hand";

/// The settings that bear on one consolidation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rules {
    pub(crate) now: Timestamp,
    pub(crate) max_raw_memories: usize,
    pub(crate) max_unused: SignedDuration,
    pub(crate) cooldown: SignedDuration,
    /// `--force`: consolidate within the cooldown too.
    pub(crate) force: bool,
    /// The summary's token cap.
    pub(crate) summary_max_tokens: usize,
    /// Who writes the lessons: [`RENDERER`], or a model (see [`renderer`]).
    pub(crate) renderer: String,
    /// When each session last had a lesson confirmed against its working tree: confirmation
    /// counts like use for retention.
    pub(crate) confirmed: BTreeMap<String, Timestamp>,
}

impl Rules {
    /// The cap the summary is written within.
    pub(crate) fn cap(&self) -> Cap {
        Cap { tokens: Some(self.summary_max_tokens), chars: None }
    }
}

/// The lessons' author as the manifest names it: a model's lessons are redone when the
/// model changes. `model` describes the model engine, if there is one.
pub(crate) fn renderer(model: Option<&str>) -> String {
    match model {
        Some(engine) => format!("model-1 {engine}"),
        None => RENDERER.to_string(),
    }
}

/// When the next consolidation is allowed, if the last one is too recent for this one.
pub(crate) fn cooldown_until(manifest: &Manifest, rules: &Rules) -> Option<Timestamp> {
    let next = manifest.consolidated_at? + rules.cooldown;
    (!rules.force && next > rules.now).then_some(next)
}

/// The sessions that feed the handbook, those left out, and those whose transcript is gone
/// (their records go once the handbook no longer holds what they taught).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chosen {
    /// In ascending session-id order.
    pub(crate) selection: Vec<Stage1>,
    pub(crate) left_out: LeftOut,
    pub(crate) vanished: Vec<String>,
}

/// What choosing needs of a stored record, without its lessons: what a hundred thousand
/// sessions take to rank, where their records whole would not fit. Its session id is the
/// holder's (see [`Briefed`]), not a second copy.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Brief {
    /// Where its transcript stands; `None` when it is left out (forgotten, excluded, or its
    /// transcript gone, which `vanished` says).
    place: Option<Place>,
    vanished: bool,
}

/// What ranking and project naming need of a record that may feed the handbook.
#[derive(Debug, Clone, PartialEq)]
struct Place {
    cwd: Option<String>,
    project: String,
    updated_at: Timestamp,
    empty: bool,
    usage: (u32, Option<Timestamp>),
}

/// A brief as a command holds it: with the id of the session it is of.
pub(crate) trait Briefed {
    fn session_id(&self) -> &str;
    fn brief(&self) -> &Brief;
    fn brief_mut(&mut self) -> &mut Brief;
}

impl Brief {
    /// The brief of `record`, whose transcript's state `sources` holds.
    pub(crate) fn of(record: &Stage1, sources: &Sources) -> Brief {
        let state = sources.of_record(&record.rollout_path, &record.session_id).map(|e| e.state);
        let left_out = sources.excluded.contains(&record.session_id)
            || matches!(state, Some(SourceState::Vanished | SourceState::Excluded));
        let place = (!left_out).then(|| Place {
            cwd: record.cwd.clone(),
            project: record.project.clone(),
            updated_at: record.updated_at,
            empty: select::Ranked::is_empty(record),
            usage: (0, None),
        });
        Brief { place, vanished: state == Some(SourceState::Vanished) }
    }

    /// Leave session `session_id` out unless `admit` lets it in (given its id and last
    /// activity).
    pub(crate) fn admitted_by(&mut self, session_id: &str, admit: &mut dyn FnMut(&str, Timestamp) -> bool) {
        if let Some(place) = &self.place
            && !admit(session_id, place.updated_at)
        {
            self.place = None;
        }
    }
}

/// A brief that may feed the handbook, as ranking sees it.
struct Eligible<'a>(&'a str, &'a Place);

impl select::Ranked for Eligible<'_> {
    fn session_id(&self) -> &str {
        self.0
    }

    fn updated_at(&self) -> Timestamp {
        self.1.updated_at
    }

    fn usage(&self) -> (u32, Option<Timestamp>) {
        self.1.usage
    }

    fn is_empty(&self) -> bool {
        self.1.empty
    }
}

/// The sessions chosen (see [`choose_briefly`]), before their records are read whole.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Choice {
    /// The chosen sessions' ids, ascending.
    pub(crate) ids: Vec<String>,
    left_out: LeftOut,
    vanished: Vec<String>,
    /// A project known by its path → the remote other sessions there named.
    better: BTreeMap<String, String>,
}

/// Choose from the `briefs` of the stored records (see [`choose`]), keeping no record whole.
/// The briefs are taken where they lie, not gathered into a list of their own: a hundred
/// thousand of them are tens of megabytes.
pub(crate) fn choose_briefly(briefs: &mut [impl Briefed], sources: &Sources, rules: &Rules) -> Choice {
    let usage = usage(sources);
    let vanished = briefs.iter().filter(|b| b.brief().vanished).map(|b| b.session_id().to_string()).collect();
    for briefed in briefs.iter_mut() {
        let used = usage.get(briefed.session_id()).copied().unwrap_or_default();
        if let Some(place) = &mut briefed.brief_mut().place {
            place.usage = (used.count, used.last);
        }
    }
    let eligible: Vec<Eligible> =
        briefs.iter().filter_map(|b| Some(Eligible(b.session_id(), b.brief().place.as_ref()?))).collect();
    let better =
        path_keys_to_remotes(eligible.iter().map(|e| (e.1.cwd.as_deref().unwrap_or(""), e.1.project.as_str())));
    let select_rules = select::Rules { now: rules.now, max: rules.max_raw_memories, max_unused: rules.max_unused };
    let Selection { records, unused, over_max } = select::select(eligible, select_rules, &rules.confirmed);
    let max_unused_days = rules.max_unused.as_hours() / 24;
    let left_out = LeftOut { unused, over_max, max_unused_days, max: rules.max_raw_memories };
    Choice { ids: records.iter().map(|e| e.0.to_string()).collect(), left_out, vanished, better }
}

impl Choice {
    /// The choice made whole with the chosen `records` (those [`Choice::ids`] names, read
    /// again): their usage counted from `sources`, their projects named as the choice found.
    pub(crate) fn with(self, records: Vec<Stage1>, sources: &Sources) -> Chosen {
        let usage = usage(sources);
        let mut selection: Vec<Stage1> = records
            .into_iter()
            .map(|mut record| {
                let used = usage.get(&record.session_id).copied().unwrap_or_default();
                (record.usage_count, record.last_usage) = (used.count, used.last);
                if let Some(key) = self.better.get(&record.project) {
                    record.project = key.clone();
                }
                record
            })
            .collect();
        selection.sort_by(|a, b| a.session_id.cmp(&b.session_id));
        Chosen { selection, left_out: self.left_out, vanished: self.vanished }
    }
}

/// Choose from the stored `records`: not forgotten, not excluded, not vanished; with usage
/// counted from the citations recorded across all transcripts; a session that only knew
/// its folder joins the project other sessions there named; then ranked and cut. (The
/// command makes the same choice from briefs, reading the chosen records again.)
#[cfg(test)]
pub(crate) fn choose(records: Vec<Stage1>, sources: &Sources, rules: &Rules) -> Chosen {
    let mut briefs: Vec<(String, Brief)> =
        records.iter().map(|r| (r.session_id.clone(), Brief::of(r, sources))).collect();
    let choice = choose_briefly(&mut briefs, sources, rules);
    let chosen = records.into_iter().filter(|r| choice.ids.binary_search(&r.session_id).is_ok()).collect();
    choice.with(chosen, sources)
}

#[cfg(test)]
impl Briefed for (String, Brief) {
    fn session_id(&self) -> &str {
        &self.0
    }

    fn brief(&self) -> &Brief {
        &self.1
    }

    fn brief_mut(&mut self) -> &mut Brief {
        &mut self.1
    }
}

/// The mechanical inputs, synced to exactly the selection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sync {
    /// Workspace-relative path → text: `raw_memories.md` and one rollout summary per session.
    pub(crate) writes: BTreeMap<String, String>,
    /// The rollout summaries' file names; any other `.md` there is stale.
    pub(crate) keep: BTreeSet<String>,
}

pub(crate) fn sync(selection: &[Stage1]) -> Sync {
    let mut writes = BTreeMap::from([(RAW_MEMORIES.to_string(), layout::raw_memories(selection))]);
    let files = layout::summary_files(selection);
    for record in selection {
        // `files` names every record of the selection.
        writes.insert(format!("{ROLLOUT_SUMMARIES}/{}", files[&record.session_id]), layout::rollout_summary(record));
    }
    Sync { writes, keep: files.into_values().collect() }
}

impl Sync {
    /// The files of `rollout_summaries/` (by name) the sync removes.
    pub(crate) fn stale<'a>(&self, present: &'a [String]) -> Vec<&'a str> {
        present.iter().map(String::as_str).filter(|n| n.ends_with(".md") && !self.keep.contains(*n)).collect()
    }
}

/// True when nothing changed since the baseline (`changes` is the diff against it), the
/// baseline was rendered the same way, and it is sound: the handbook stands as it is.
pub(crate) fn unchanged(manifest: &Manifest, before: &Snapshot, changes: &[Change], rules: &Rules) -> bool {
    let same_rendering = manifest.renderer == rules.renderer && manifest.summary_max_tokens == rules.summary_max_tokens;
    changes.is_empty() && same_rendering && validate(before, rules.cap()).is_ok()
}

/// The hashes of the contents handbook itself last wrote to `MEMORY.md` and the summary,
/// by the baseline or by a run that died before committing: what hand edits are told from.
pub(crate) fn written_by_handbook(manifest: &Manifest, pending: &Pending) -> BTreeSet<String> {
    [MEMORY, SUMMARY]
        .iter()
        .flat_map(|file| [manifest.files.get(*file), pending.get(*file)])
        .flatten()
        .cloned()
        .collect()
}

/// The user's hand edits to a generated file, as (what handbook last wrote, the file now),
/// or `None` when the file is exactly what handbook wrote. When it matches neither the
/// baseline nor the pending write, the closer one is taken as the base. `objects` holds the
/// stored contents by hash.
pub(crate) fn hand_edited(
    now: &Snapshot,
    manifest: &Manifest,
    pending: &Pending,
    objects: &BTreeMap<String, String>,
    file: &str,
) -> Option<(String, String)> {
    let current = now.text(file)?;
    let candidates: Vec<&String> = [manifest.files.get(file), pending.get(file)].into_iter().flatten().collect();
    if candidates.contains(&&hash(current.as_bytes())) {
        return None;
    }
    let distance =
        |base: &str| TextDiff::from_lines(base, &current).ops().iter().filter(|op| op.tag() != DiffTag::Equal).count();
    let closest = candidates.iter().filter_map(|c| sound(objects, c)).min_by_key(|base| distance(base))?;
    Some((closest.clone(), current))
}

/// The stored contents under `hash`, when they are what that hash names: a copy truncated
/// or replaced since is no baseline, and diffing against it would take every line of the
/// file for an edit.
fn sound<'a>(objects: &'a BTreeMap<String, String>, hash_of: &str) -> Option<&'a String> {
    objects.get(hash_of).filter(|text| hash(text.as_bytes()) == hash_of)
}

/// The stored contents that match the hash they are stored under; the others are dropped.
pub(crate) fn sound_objects(objects: BTreeMap<String, String>) -> BTreeMap<String, String> {
    objects.into_iter().filter(|(h, text)| hash(text.as_bytes()) == *h).collect()
}

/// Why the baseline cannot tell the user's edits to a generated file from handbook's lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Untrusted {
    /// No baseline records what handbook wrote to the file (the manifest is missing or
    /// damaged).
    Unrecorded(&'static str),
    /// The stored copy of what handbook last wrote to the file is missing or does not match
    /// its hash.
    NoCopy { file: &'static str, hash: String },
}

impl fmt::Display for Untrusted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self {
            Untrusted::Unrecorded(file) => {
                format!(
                    "no baseline records what handbook wrote to {file} (.handbook/manifest.json is missing or damaged)"
                )
            }
            Untrusted::NoCopy { file, hash } => format!(
                "the stored copy of what handbook last wrote to {file} (.handbook/objects/{hash}) is missing or damaged"
            ),
        };
        write!(
            f,
            "{why}: {MEMORY} and {SUMMARY} are kept as they are, no line of them is taken for a hand edit, and they \
             are the new baseline; the next rebuild takes every line in them for handbook's own, so move a line you \
             added by hand into a note to keep it"
        )
    }
}

/// Whether the baseline can tell hand edits to `MEMORY.md` and the summary from what
/// handbook wrote there; why not, when it cannot. `objects` holds the stored contents by
/// hash.
///
/// A generated file that exists and is not exactly what handbook wrote needs a sound copy
/// of what it wrote (by the baseline or a pending write) to diff against. Without one, the
/// consolidation keeps the workspace files as they are, which means: neither generated file
/// is rewritten this run, so every line in them, the user's included, stays byte for byte;
/// nothing in them is learned as a hand edit (taking the whole file for one would pin every
/// lesson in it for good, and a forgotten session could never leave); and the baseline
/// becomes the workspace as it stands, so edits from then on are told apart again. The next
/// rebuild takes the lines in them for handbook's own: a line added by hand before the
/// baseline was lost is not kept past it (the warning says so, and where to keep it).
pub(crate) fn untrusted_baseline(
    now: &Snapshot,
    manifest: &Manifest,
    pending: &Pending,
    objects: &BTreeMap<String, String>,
) -> Option<Untrusted> {
    for file in [MEMORY, SUMMARY] {
        let Some(current) = now.files.get(file) else { continue };
        let written: Vec<&String> = [manifest.files.get(file), pending.get(file)].into_iter().flatten().collect();
        if written.contains(&&hash(current)) || written.iter().any(|w| sound(objects, w).is_some()) {
            continue;
        }
        return Some(match manifest.files.get(file) {
            Some(hash) => Untrusted::NoCopy { file, hash: hash.clone() },
            None => Untrusted::Unrecorded(file),
        });
    }
    None
}

/// Learn the user's hand edits to `MEMORY.md` and the summary since handbook wrote them.
pub(crate) fn learn_hand_edits(
    edits: &mut Edits,
    now: &Snapshot,
    manifest: &Manifest,
    pending: &Pending,
    objects: &BTreeMap<String, String>,
) {
    for file in [MEMORY, SUMMARY] {
        if let Some((base, edited)) = hand_edited(now, manifest, pending, objects, file) {
            edits.files.entry(file.to_string()).or_default().learn(&base, &redact(&edited));
        }
    }
}

/// Notes are the user's own files; what handbook writes from them is redacted all the same.
pub(crate) fn redacted_notes(notes: Vec<Note>) -> Vec<Note> {
    notes
        .into_iter()
        .map(|n| Note { title: redact(&n.title).into_owned(), body: redact(&n.body).into_owned(), ..n })
        .collect()
}

/// The sessions whose rollout summary `changes` adds or changes, and those it removes, by
/// the `session_id:` header of the file now or in the baseline (`objects` by hash).
pub(crate) fn changed_sessions(
    manifest: &Manifest,
    now: &Snapshot,
    changes: &[Change],
    objects: &BTreeMap<String, String>,
) -> (BTreeSet<String>, BTreeSet<String>) {
    let session_of = |text: &str| {
        text.lines()
            .take_while(|l| !l.trim().is_empty())
            .find_map(|l| l.strip_prefix("session_id:"))
            .map(|id| id.trim().to_string())
    };
    let (mut changed, mut removed) = (BTreeSet::new(), BTreeSet::new());
    for change in changes.iter().filter(|c| c.path.starts_with(&format!("{ROLLOUT_SUMMARIES}/"))) {
        if let Some(id) = now.text(&change.path).as_deref().and_then(session_of) {
            changed.insert(id);
        } else if let Some(id) =
            manifest.files.get(&change.path).and_then(|h| objects.get(h)).and_then(|text| session_of(text))
        {
            removed.insert(id);
        }
    }
    (changed, removed)
}

/// The baseline texts a model consolidation and the hand edits may need, by hash: the
/// generated files handbook wrote, and the baseline of every rollout summary the diff
/// touches (a removed one, or one whose header is gone, is known by its old header).
pub(crate) fn objects_needed(manifest: &Manifest, pending: &Pending, changes: &[Change]) -> BTreeSet<String> {
    let summaries = changes
        .iter()
        .filter(|c| c.path.starts_with(&format!("{ROLLOUT_SUMMARIES}/")))
        .filter_map(|c| manifest.files.get(&c.path).cloned());
    // What handbook wrote holds the baseline's MEMORY.md, which a model consolidation reads.
    written_by_handbook(manifest, pending).into_iter().chain(summaries).collect()
}

/// The new handbook, and the workspace as it will be once it is written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Handbook {
    pub(crate) memory: String,
    pub(crate) summary: String,
    /// The summary short of its cap (see [`crate::core::layout::WHOLE_SUMMARY`]); none when
    /// the summary was edited by hand, since the edit was made to the fitted text.
    pub(crate) whole_summary: Option<String>,
    pub(crate) after: Snapshot,
    /// A warning for each session or note left out because the handbook was not sound with
    /// it (see [`finish_leaving_out_breakers`]).
    pub(crate) left_out: Vec<String>,
}

/// The handbook to write from what the engine produced: hand edits applied, everything
/// redacted once more on its way out, the summary fitted to its cap, and the result checked
/// before it is written (a broken one never reaches the agents that read it).
pub(crate) fn finish(output: Output, edits: &Edits, before: Snapshot, cap: Cap) -> Result<Handbook, Invalid> {
    let memory = edits.files.get(MEMORY).map_or(output.memory.clone(), |e| e.apply(&output.memory, ADDED_BY_HAND));
    let memory = redact(&memory).into_owned();
    let summary = match edits.files.get(SUMMARY) {
        Some(e) if !e.is_empty() => e.apply(&output.summary, ADDED_BY_HAND),
        _ => output.summary,
    };
    // A lesson removed from MEMORY.md goes from the summary too.
    let summary = edits.files.get(MEMORY).map_or(summary.clone(), |e| e.drop_removed_lessons(&summary));
    let summary = redact(&summary).into_owned();
    let whole_summary = match edits.files.get(SUMMARY) {
        Some(e) if !e.is_empty() => None,
        _ => {
            let whole = &output.whole_summary;
            let whole = edits.files.get(MEMORY).map_or(whole.clone(), |e| e.drop_removed_lessons(whole));
            Some(redact(&whole).into_owned())
        }
    };
    let summary = match cap.fits(&summary) {
        true => summary,
        false => Summary::parse(&summary).map_or(summary.clone(), |s| s.fit(cap)),
    };
    let mut after = before;
    after.files.insert(MEMORY.to_string(), memory.clone().into_bytes());
    after.files.insert(SUMMARY.to_string(), summary.clone().into_bytes());
    validate_handbook(&after, cap)?;
    Ok(Handbook { memory, summary, whole_summary, after, left_out: Vec::new() })
}

/// The handbook `build` makes of `sessions` and `notes`, finished (see [`finish`]). When it
/// is not sound because of one input's own text (a session or note that alone names the
/// rollout summary `MEMORY.md` cites but which does not exist), that input is left out with a
/// warning naming it, and the handbook is built again without it: one session or note never
/// blocks the others. An error of `build` is returned as it is; a handbook not sound for
/// another reason is the inner error.
pub(crate) fn finish_leaving_out_breakers<E>(
    sessions: &[Stage1],
    notes: &[Note],
    edits: &Edits,
    before: &Snapshot,
    cap: Cap,
    mut build: impl FnMut(&[Stage1], &[Note]) -> Result<Output, E>,
) -> Result<Result<Handbook, Invalid>, E> {
    let (mut sessions, mut notes) = (sessions.to_vec(), notes.to_vec());
    let mut left_out = Vec::new();
    loop {
        let invalid = match finish(build(&sessions, &notes)?, edits, before.clone(), cap) {
            Ok(handbook) => return Ok(Ok(Handbook { left_out, ..handbook })),
            Err(invalid) => invalid,
        };
        let Invalid::CitesMissing(file) = &invalid else { return Ok(Err(invalid)) };
        // Each round leaves one input out, so this ends.
        match breaker(file, &sessions, &notes) {
            Some(Breaker::Session(i)) => {
                let id = sessions.remove(i).session_id;
                left_out.push(format!(
                    "session {id:?} is left out of the handbook: {invalid}, and only that session names it; \
                     `handbook forget {id}` removes it for good"
                ));
            }
            Some(Breaker::Note(i)) => {
                let file = notes.remove(i).file;
                left_out.push(format!(
                    "the note {file} is left out of the handbook: {invalid}, and the note names it; edit the note"
                ));
            }
            None => return Ok(Err(invalid)),
        }
    }
}

/// The input behind a citation of a missing file, by its index.
enum Breaker {
    Session(usize),
    Note(usize),
}

/// The session or note whose own text holds `file` (with what ends the cited word trimmed).
/// Another session cannot be blamed this way: a forged line that names it still holds the
/// forger's text, not its own.
fn breaker(file: &str, sessions: &[Stage1], notes: &[Note]) -> Option<Breaker> {
    let file = file.trim_end_matches([',', ';', ')', ':']);
    let notes = notes.iter().position(|n| [&n.file, &n.title, &n.body].iter().any(|t| t.contains(file)));
    // Any text of the record may end up in the handbook, so all of it is searched, in the
    // form its JSON spells it.
    let needle = serde_json::to_string(file).ok()?;
    let needle = &needle[1..needle.len() - 1];
    let sessions = sessions.iter().position(|s| serde_json::to_string(s).is_ok_and(|json| json.contains(needle)));
    notes.map(Breaker::Note).or(sessions.map(Breaker::Session))
}

/// The files of the new handbook that are handbook's own until the baseline moves.
pub(crate) fn pending(handbook: &Handbook) -> Pending {
    Pending::from([
        (MEMORY.to_string(), hash(handbook.memory.as_bytes())),
        (SUMMARY.to_string(), hash(handbook.summary.as_bytes())),
    ])
}

/// The baseline to commit once the handbook is written: its files as they are now.
pub(crate) fn baseline(after: &Snapshot, rules: &Rules) -> Manifest {
    Manifest {
        version: MANIFEST_VERSION,
        renderer: rules.renderer.clone(),
        summary_max_tokens: rules.summary_max_tokens,
        consolidated_at: Some(rules.now),
        files: after.hashes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::consolidate::tests::{record, task};
    use crate::core::state::{FileStat, SourceEntry, SourceKey, SourceState, tests::entry};

    fn rules() -> Rules {
        Rules {
            now: "2026-11-29T12:00:00Z".parse().unwrap(),
            max_raw_memories: 256,
            max_unused: SignedDuration::from_hours(24 * 3650),
            cooldown: SignedDuration::from_hours(6),
            force: false,
            summary_max_tokens: 2500,
            renderer: renderer(None),
            confirmed: BTreeMap::new(),
        }
    }

    fn snapshot(files: &[(&str, &str)]) -> Snapshot {
        Snapshot { files: files.iter().map(|(p, t)| (p.to_string(), t.as_bytes().to_vec())).collect() }
    }

    fn known(path: &str, state: SourceState) -> (SourceKey, SourceEntry) {
        (path.into(), entry(FileStat { size: 1, mtime_ns: 1 }, state, 0))
    }

    #[test]
    fn the_cooldown_holds_unless_forced_or_over() {
        let at = |t: &str| Manifest { consolidated_at: Some(t.parse().unwrap()), ..Manifest::default() };
        let recent = at("2026-11-29T10:00:00Z");
        assert_eq!(cooldown_until(&recent, &rules()), Some("2026-11-29T16:00:00Z".parse().unwrap()));
        assert_eq!(cooldown_until(&recent, &Rules { force: true, ..rules() }), None);
        assert_eq!(cooldown_until(&at("2026-11-29T01:00:00Z"), &rules()), None);
        assert_eq!(cooldown_until(&Manifest::default(), &rules()), None);
    }

    #[test]
    fn choosing_leaves_out_the_forgotten_the_excluded_and_the_vanished() {
        let records: Vec<Stage1> = ["kept", "forgotten", "excluded", "gone"]
            .iter()
            .map(|id| record(id, "/w/p", 20, vec![task("t")]))
            .collect();
        let mut sources = Sources::default();
        sources.sources.extend([
            known("/t/kept.jsonl", SourceState::Extracted),
            known("/t/excluded.jsonl", SourceState::Excluded),
            known("/t/gone.jsonl", SourceState::Vanished),
        ]);
        sources.excluded.insert("forgotten".into());
        let mut citing = entry(FileStat { size: 1, mtime_ns: 1 }, SourceState::NoOp, 0);
        citing.session_id = Some("later".into());
        citing.cited.insert("kept".into(), 2);
        sources.sources.insert("/t/later.jsonl".into(), citing);
        let chosen = choose(records, &sources, &rules());
        let ids: Vec<&str> = chosen.selection.iter().map(|r| r.session_id.as_str()).collect();
        assert_eq!(ids, ["kept"]);
        assert_eq!(chosen.selection[0].usage_count, 2, "usage is counted from the citations recorded");
        assert_eq!(chosen.vanished, ["gone"]);
    }

    #[test]
    fn the_sync_writes_the_selection_and_removes_only_stale_summaries() {
        let selection = vec![record("a", "/w/p", 20, vec![task("t")])];
        let sync = sync(&selection);
        assert!(sync.writes.contains_key(RAW_MEMORIES));
        let name = layout::summary_file(&selection[0]);
        assert!(sync.writes.contains_key(&format!("{ROLLOUT_SUMMARIES}/{name}")));
        let present = vec![name.clone(), "old.md".to_string(), "notes.txt".to_string()];
        assert_eq!(sync.stale(&present), ["old.md"]);
    }

    #[test]
    fn a_baseline_rendered_otherwise_is_rebuilt() {
        let before = snapshot(&[("MEMORY.md", "# m\n"), ("memory_summary.md", "v1\n")]);
        let manifest = baseline(&before, &rules());
        assert!(unchanged(&manifest, &before, &[], &rules()));
        let model = Rules { renderer: renderer(Some("openai m")), ..rules() };
        assert_eq!(model.renderer, "model-1 openai m");
        assert!(!unchanged(&manifest, &before, &[], &model));
        let smaller = Rules { summary_max_tokens: 100, ..rules() };
        assert!(!unchanged(&manifest, &before, &[], &smaller));
    }

    #[test]
    fn hand_edits_are_told_from_what_handbook_wrote() {
        let written = "# Task Group: p\n- a lesson\n";
        let edited = "# Task Group: p\n- a lesson\n- my own line\n";
        let manifest =
            Manifest { files: BTreeMap::from([(MEMORY.into(), hash(written.as_bytes()))]), ..Manifest::default() };
        let objects = BTreeMap::from([(hash(written.as_bytes()), written.to_string())]);
        let pending = Pending::new();
        let untouched = snapshot(&[(MEMORY, written)]);
        assert_eq!(hand_edited(&untouched, &manifest, &pending, &objects, MEMORY), None);
        let now = snapshot(&[(MEMORY, edited)]);
        assert_eq!(
            hand_edited(&now, &manifest, &pending, &objects, MEMORY),
            Some((written.to_string(), edited.to_string()))
        );
        // A run that died after writing: its pending write is handbook's own, not an edit.
        let died = Pending::from([(MEMORY.to_string(), hash(edited.as_bytes()))]);
        assert_eq!(hand_edited(&now, &manifest, &died, &objects, MEMORY), None);
    }

    #[test]
    fn without_a_sound_copy_of_what_handbook_wrote_no_edit_is_learned() {
        let written = "# Task Group: p\n- a lesson\n";
        let edited = "# Task Group: p\n- a lesson\n- my own line\n";
        let recorded = hash(written.as_bytes());
        let manifest = Manifest { files: BTreeMap::from([(MEMORY.into(), recorded.clone())]), ..Manifest::default() };
        let now = snapshot(&[(MEMORY, edited)]);
        let pending = Pending::new();
        let sound = BTreeMap::from([(recorded.clone(), written.to_string())]);
        assert_eq!(untrusted_baseline(&now, &manifest, &pending, &sound), None);
        let garbage = BTreeMap::from([(recorded.clone(), "garbage".to_string())]);
        assert_eq!(hand_edited(&now, &manifest, &pending, &garbage, MEMORY), None, "garbage is no baseline");
        assert!(sound_objects(garbage.clone()).is_empty());
        let no_copy = Untrusted::NoCopy { file: MEMORY, hash: recorded.clone() };
        assert_eq!(untrusted_baseline(&now, &manifest, &pending, &garbage), Some(no_copy.clone()));
        assert_eq!(untrusted_baseline(&now, &manifest, &pending, &BTreeMap::new()), Some(no_copy));
        let none = Manifest::default();
        assert_eq!(untrusted_baseline(&now, &none, &pending, &sound), Some(Untrusted::Unrecorded(MEMORY)));
        // What handbook wrote needs no copy, and a missing file has nothing to keep.
        let untouched = snapshot(&[(MEMORY, written)]);
        assert_eq!(untrusted_baseline(&untouched, &manifest, &pending, &BTreeMap::new()), None);
        assert_eq!(untrusted_baseline(&Snapshot::default(), &none, &pending, &BTreeMap::new()), None);
    }

    #[test]
    fn changed_and_removed_sessions_are_read_from_the_summary_headers() {
        let old = "session_id: gone\nupdated_at: x\n\nbody\n";
        let manifest = Manifest {
            files: BTreeMap::from([("rollout_summaries/b.md".into(), hash(old.as_bytes()))]),
            ..Manifest::default()
        };
        let now = snapshot(&[("rollout_summaries/a.md", "session_id: new\n\nbody\n")]);
        let changes = crate::core::manifest::changes(&manifest.files, &now.hashes());
        let objects = BTreeMap::from([(hash(old.as_bytes()), old.to_string())]);
        assert!(objects_needed(&manifest, &Pending::new(), &changes).contains(&hash(old.as_bytes())));
        let (changed, removed) = changed_sessions(&manifest, &now, &changes, &objects);
        assert_eq!(changed, BTreeSet::from(["new".to_string()]));
        assert_eq!(removed, BTreeSet::from(["gone".to_string()]));
    }

    #[test]
    fn the_finished_handbook_is_redacted_and_checked_before_it_is_written() {
        let key = format!("ghp_{}", "a1B2c3D4e5F6".repeat(3));
        let summary = "v1\n## User Profile\n".to_string();
        let output = Output { memory: format!("# m\n- token {key}\n"), whole_summary: summary.clone(), summary };
        let handbook = finish(output, &Edits::default(), Snapshot::default(), rules().cap()).unwrap();
        assert!(!handbook.memory.contains(&key) && handbook.memory.contains("[REDACTED:"), "{}", handbook.memory);
        assert_eq!(handbook.after.text(MEMORY).as_deref(), Some(handbook.memory.as_str()));
        assert_eq!(pending(&handbook)[SUMMARY], hash(handbook.summary.as_bytes()));
        let dangling = Output {
            memory: "- rollout_summaries/x.md\n".into(),
            summary: "v1\n".into(),
            whole_summary: "v1\n".into(),
        };
        let err = finish(dangling, &Edits::default(), Snapshot::default(), rules().cap()).unwrap_err();
        assert_eq!(err, Invalid::CitesMissing("rollout_summaries/x.md".into()));
    }
}
