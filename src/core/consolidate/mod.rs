//! The built-in consolidator: merges the selected stage-1 outputs and the user's notes into
//! `MEMORY.md` (one `# Task Group` per project) and `memory_summary.md` (the injected
//! summary), deterministically and within the summary's cap.
//!
//! Lessons are merged across sessions (the same preference said twice, the same command
//! verified in three sessions), counted by how many sessions support them, and ranked by use
//! (citations), then support, then recency. Notes come first: they are the user's own words.
//! Since everything is rebuilt from the inputs, a lesson only one session supported disappears
//! with that session, and one that others support stays.
//!
//! With a model engine, this layout is kept and a model rewrites the lessons in it: see
//! `core::model::consolidate`.

pub(crate) mod edits;
pub(crate) mod merge;
pub(crate) mod plan;
pub(crate) mod report;
pub(crate) mod validate;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use jiff::Timestamp;

use crate::core::extract::clip_at_word;
use crate::core::extract::durability::fact_of;
use crate::core::extract::render::{ACCOUNT_LABEL, code, fix_lesson, meta, one_line, unresolved_lesson, way_around};
use crate::core::extract::shell::{self, CommandKind, classify};
use crate::core::extract::signals::{self, SignalKind};
use crate::core::extract::{Outcome, TaskFacts};
use crate::core::layout::{ROLLOUT_SUMMARIES, summary_files, timestamp};
use crate::core::notes::Note;
use crate::core::project::{display_key, display_name};
use crate::core::stage1::Stage1;
use crate::core::summary::{Summary, VERSION_LINE};
use crate::core::tokens::Cap;

/// Names this consolidator in the manifest; bump it when the rendering changes, so a clean
/// workspace is re-rendered once.
pub(crate) const RENDERER: &str = "builtin-2";

/// Keywords shown per task.
const SHOWN_KEYWORDS: usize = 7;
/// Preferences listed in the summary at most.
const SUMMARY_PREFERENCES: usize = 20;
/// Fixes per project in the summary's tips.
const TIPS_FIXES_PER_PROJECT: usize = 3;
/// Verified commands per project in the summary's tips.
const TIPS_COMMANDS_PER_PROJECT: usize = 4;
/// Facts from agents' closing accounts per project in the summary's tips.
const TIPS_ACCOUNTS_PER_PROJECT: usize = 2;

/// What consolidation starts from.
pub(crate) struct Input<'a> {
    /// The selection, in any order.
    pub(crate) sessions: &'a [Stage1],
    pub(crate) notes: &'a [Note],
    /// The summary's size cap.
    pub(crate) cap: Cap,
}

/// The two files consolidation writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Output {
    pub(crate) memory: String,
    pub(crate) summary: String,
    /// `summary` before it was fitted to the cap.
    pub(crate) whole_summary: String,
}

/// A lesson merged across sessions.
#[derive(Debug, Clone)]
struct Lesson {
    body: String,
    /// What kind of lesson, shown in parentheses (`preference`, `remember`); may be empty.
    label: &'static str,
    /// Ordering within lessons of equal use, support and recency (preference kinds).
    weight: u8,
    sessions: BTreeSet<String>,
    tasks: BTreeSet<usize>,
    usage: u64,
    last: Timestamp,
    /// The commands the lesson names (a fix's failed and working command, a verified one).
    commands: Vec<String>,
    /// Kept in `MEMORY.md` but not told in the summary.
    quiet: bool,
    /// The same rule as other sessions worded it, merged into this one: shown after it in
    /// `MEMORY.md`, so a merge hides nothing that was said.
    variants: Vec<String>,
    /// The commands a fix ran on its way (an install, a service started), by their job line.
    steps: Vec<String>,
    /// What a fix comes down to (`go test needs CGO_ENABLED=1`, however narrowly each
    /// session ran the job; the files edited and the steps run): a failure's has none.
    way_around: Option<String>,
}

impl Lesson {
    fn new(body: String, weight: u8, at: Timestamp) -> Lesson {
        Lesson {
            body,
            label: "",
            weight,
            sessions: BTreeSet::new(),
            tasks: BTreeSet::new(),
            usage: 0,
            last: at,
            commands: Vec::new(),
            quiet: false,
            variants: Vec::new(),
            steps: Vec::new(),
            way_around: None,
        }
    }

    /// `label; N sessions` or `N sessions`.
    fn annotation(&self, project: Option<&str>) -> String {
        let n = self.sessions.len();
        let mut parts: Vec<String> = Vec::new();
        if !self.label.is_empty() {
            parts.push(self.label.to_string());
        }
        if let Some(project) = project {
            parts.push(project.to_string());
        }
        if project.is_none() || n > 1 {
            parts.push(format!("{n} session{}", if n == 1 { "" } else { "s" }));
        }
        parts.join("; ")
    }

    fn support(&mut self, session: &Stage1, task: usize) {
        if self.sessions.insert(session.session_id.clone()) {
            self.usage += u64::from(session.usage_count);
        }
        self.tasks.insert(task);
        self.last = self.last.max(session.updated_at);
    }

    fn bullet(&self) -> String {
        let tasks: String = self.tasks.iter().map(|t| format!("[Task {t}]")).collect();
        let mut bullet = format!("- {} ({}) {tasks}", self.body, self.annotation(None));
        if !self.variants.is_empty() {
            let _ = write!(bullet, " ({} {})", edits::ALSO_SAID, self.variants.join(" | "));
        }
        bullet
    }
}

/// Highest use first, then most support, most recent, then the weight and text.
fn by_rank(a: &Lesson, b: &Lesson) -> std::cmp::Ordering {
    b.usage
        .cmp(&a.usage)
        .then_with(|| b.sessions.len().cmp(&a.sessions.len()))
        .then_with(|| b.last.cmp(&a.last))
        .then_with(|| a.weight.cmp(&b.weight))
        .then_with(|| a.body.cmp(&b.body))
}

fn rank(lessons: BTreeMap<String, Lesson>) -> Vec<Lesson> {
    let mut ranked: Vec<Lesson> = lessons.into_values().collect();
    ranked.sort_by(by_rank);
    ranked
}

/// One project's sessions and what they teach.
struct Group<'a> {
    key: String,
    sessions: Vec<&'a Stage1>,
    preferences: Vec<Lesson>,
    knowledge: Vec<Lesson>,
    /// What agents' closing accounts said: the lowest-trust knowledge, shown after the rest.
    accounts: Vec<Lesson>,
    failures: Vec<Lesson>,
    usage: u64,
    last: Timestamp,
}

/// Preferences that say the same thing in other words, merged into the one said first (or
/// by more sessions): its text stays, and the others' support joins it. A rule is compared
/// with every wording a kept one has gathered ("no partial functions" meets the "never use
/// partial functions" that joined "no head, no fromJust"), and a rule the user says they
/// said before ("never pip, I said that last time") is the project's rule it shares most
/// with.
fn merge_near_duplicates(
    lessons: BTreeMap<String, Lesson>,
    own_term: impl Fn(&str) -> bool,
) -> BTreeMap<String, Lesson> {
    let mut ordered: Vec<(String, Lesson)> = lessons.into_iter().collect();
    // The wording more sessions used is kept, else one that is no "as I said" restatement,
    // else the one that says most.
    let said = |l: &Lesson| merge::content_words(&l.body).len();
    let again = |l: &Lesson| merge::says_it_again(&l.body);
    ordered.sort_by(|(_, a), (_, b)| {
        b.sessions
            .len()
            .cmp(&a.sessions.len())
            .then_with(|| again(a).cmp(&again(b)))
            .then_with(|| said(b).cmp(&said(a)))
            .then_with(|| a.body.cmp(&b.body))
    });
    let mut kept: Vec<(String, Lesson, Vec<BTreeSet<String>>)> = Vec::new();
    for (key, lesson) in ordered {
        let words = merge::content_words(&lesson.body);
        let same = |seen: &[BTreeSet<String>]| seen.iter().any(|s| merge::same_rule_of_project(s, &words, &own_term));
        let at = kept.iter().position(|(_, _, seen)| same(seen)).or_else(|| {
            let candidates = kept.iter().map(|(_, into, seen)| (again(into), seen.as_slice()));
            merge::restated_in(&words, again(&lesson), candidates, &own_term)
        });
        // (The words of every way this rule was said.)
        let wordings = std::iter::once(words).chain(lesson.variants.iter().map(|v| merge::content_words(v)));
        match at {
            Some(at) => {
                let (_, into, seen) = &mut kept[at];
                seen.extend(wordings);
                into.variants.push(lesson.body);
                into.variants.extend(lesson.variants);
                into.sessions.extend(lesson.sessions);
                into.tasks.extend(lesson.tasks);
                into.usage += lesson.usage;
                into.last = into.last.max(lesson.last);
                if lesson.weight < into.weight {
                    into.weight = lesson.weight;
                    into.label = lesson.label;
                }
            }
            None => {
                let seen = wordings.collect();
                kept.push((key, lesson, seen));
            }
        }
    }
    kept.into_iter().map(|(key, lesson, _)| (key, lesson)).collect()
}

/// A failure's identity across sessions: its command as told (without a version check before
/// it) and its error with the numbers in them blanked, so the same landmine met at line 23
/// and at line 24 is one lesson.
fn failure_key(command: &str, error: &str) -> String {
    let blank = |text: &str| text.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).collect::<String>();
    format!("{}\u{0}{}", shell::without_looks_before(command, error), blank(error))
}

/// Text reduced to its words, for merging near-identical sentences.
fn merge_key(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

fn signal_weight(kind: SignalKind) -> u8 {
    match kind {
        SignalKind::Remember => 0,
        SignalKind::Correction => 1,
        SignalKind::Preference => 2,
    }
}

/// Usage first, then last use (or activity), then activity, then id: the order of sessions
/// within a group, which numbers the tasks.
fn session_order(a: &Stage1, b: &Stage1) -> std::cmp::Ordering {
    let last = |r: &Stage1| r.last_usage.unwrap_or(r.updated_at);
    b.usage_count
        .cmp(&a.usage_count)
        .then_with(|| last(b).cmp(&last(a)))
        .then_with(|| b.updated_at.cmp(&a.updated_at))
        .then_with(|| a.session_id.cmp(&b.session_id))
}

/// The lessons of a project's sessions as they are gathered, each kind by its merge key.
#[derive(Default)]
struct Gathered {
    preferences: BTreeMap<String, Lesson>,
    knowledge: BTreeMap<String, Lesson>,
    accounts: BTreeMap<String, Lesson>,
    fixes: BTreeMap<String, Lesson>,
    open: BTreeMap<String, Lesson>,
}

impl Gathered {
    fn task(&mut self, session: &Stage1, task: &TaskFacts, number: usize) {
        for p in &task.preferences {
            // The fact itself, without "Please remember that …": the same rule said with
            // another opener is the same lesson.
            let fact = fact_of(&p.text);
            if merge::mostly_redacted(&fact) {
                continue;
            }
            let lesson = self
                .preferences
                .entry(merge_key(&fact))
                .or_insert_with(|| Lesson::new(one_line(&fact), signal_weight(p.kind), session.updated_at));
            if signal_weight(p.kind) <= lesson.weight {
                lesson.weight = signal_weight(p.kind);
                lesson.label = p.kind.name();
            }
            lesson.support(session, number);
        }
        // A one-off, or a run narrowed to some of the tests or one file, is not how the
        // project is built or tested.
        for v in task.verified.iter().filter(|v| !one_off(&v.command) && !shell::is_narrowed(&v.command)) {
            let body = format!("verified {} command: {}", v.kind.name(), code(&v.command));
            let lesson =
                self.knowledge.entry(v.command.clone()).or_insert_with(|| Lesson::new(body, 0, session.updated_at));
            lesson.commands = vec![v.command.clone()];
            lesson.support(session, number);
        }
        self.failures(session, task, number);
        // What an agent's account says of a task that also fixed something is kept, but the
        // fix is what the summary tells.
        let quiet = !task.fixes.is_empty();
        for o in &task.observations {
            let body = format!("{ACCOUNT_LABEL}: {}", one_line(&o.text));
            let lesson =
                self.accounts.entry(merge_key(&o.text)).or_insert_with(|| Lesson::new(body, 2, session.updated_at));
            lesson.quiet = quiet && (lesson.quiet || lesson.sessions.is_empty());
            lesson.support(session, number);
        }
    }

    fn failures(&mut self, session: &Stage1, task: &TaskFacts, number: usize) {
        // The task's own red-to-green work is no landmine of the project.
        for fix in task.fixes.iter().filter(|f| !f.work) {
            let lesson = self
                .fixes
                .entry(failure_key(&fix.failure.command, &fix.failure.error))
                .or_insert_with(|| Lesson::new(fix_lesson(fix, false), 0, session.updated_at));
            lesson.commands = vec![fix.failure.command.clone(), fix.command.clone()];
            lesson.steps = fix.ran.iter().map(|r| shell::job_line(r)).collect();
            // Another command that worked instead is a step too (`sudo apt-get install -y
            // libpq-dev` told once, whether it came before the job or instead of it).
            if !shell::runs_the_same(&fix.command, &fix.failure.command) {
                let job = classify(&fix.failure.command).family;
                let line = shell::job_line(&fix.command);
                lesson.steps.extend(line.split(" && ").filter(|part| classify(part).family != job).map(str::to_string));
            }
            lesson.way_around = Some(way_around(fix));
            // A step that passed on a plain retry is kept in the handbook, but the summary has
            // nothing to tell a later session to do about it. Nor does it tell twice what one
            // command got past: of `poetry install` and `poetry lock --no-update`, both past
            // once `poetry lock && poetry install` ran, the job that ran again is the story.
            // (Of two failures one chain got past, the one met first is the job that ran again.)
            let told_with_other = task.fixes.iter().any(|other| {
                other.line == fix.line
                    && !other.work
                    && other.failure.line < fix.failure.line
                    && shell::runs_the_same(&other.command, &other.failure.command)
            });
            lesson.quiet = fix.is_plain_retry() || fix.alone || told_with_other;
            lesson.support(session, number);
        }
        for failure in &task.unresolved {
            // A task that ended well found its way past the failure, though the session shows
            // no command that fixed it; one the agent explained was diagnosed, not left open.
            let open = matches!(task.outcome, Outcome::Fail | Outcome::Partial) && task.observations.is_empty();
            let body = if open {
                format!("{} and was not resolved", unresolved_lesson(failure))
            } else {
                unresolved_lesson(failure)
            };
            let lesson = self
                .open
                .entry(failure_key(&failure.command, &failure.error))
                .or_insert_with(|| Lesson::new(body, 1, session.updated_at));
            lesson.commands = vec![failure.command.clone()];
            // The agent's account of the same command says what was wrong, and the summary
            // tells that instead of the bare failure.
            let family = classify(&failure.command).family.to_lowercase();
            let explained =
                !family.is_empty() && task.observations.iter().any(|o| o.text.to_lowercase().contains(&family));
            // Nor does it tell a failure one session left open: with nothing found about it,
            // the line warns of a session that went badly, not of a landmine (the task may
            // have broken it; the handbook keeps it). Met again in another session, it is one.
            let left_once = open && lesson.sessions.is_empty();
            lesson.quiet = explained || left_once || !matches!(task.outcome, Outcome::Fail | Outcome::Partial);
            lesson.support(session, number);
        }
    }
}

fn group<'a>(key: String, mut sessions: Vec<&'a Stage1>, vocabulary: &merge::Vocabulary) -> Group<'a> {
    sessions.sort_by(|a, b| session_order(a, b));
    let mut gathered = Gathered::default();
    let mut task_number = 0;
    for session in &sessions {
        for task in &session.facts.tasks {
            task_number += 1;
            gathered.task(session, task, task_number);
        }
    }
    let Gathered { mut preferences, knowledge, accounts, mut fixes, mut open } = gathered;
    // A rule a later session took back ("the dependency freeze is over") no longer holds,
    // unless a session said it again after that.
    for session in &sessions {
        for what in session.facts.tasks.iter().flat_map(|t| &t.taken_back) {
            preferences.retain(|_, rule| rule.last >= session.updated_at || !signals::is_taken_back(&rule.body, what));
        }
    }
    // A failure fixed in one session is a landmine with a way around it, not an open error.
    open.retain(|key, _| !fixes.contains_key(key));
    fixes.extend(open);
    let usage = sessions.iter().map(|s| u64::from(s.usage_count)).sum();
    let last = sessions.iter().map(|s| s.last_usage.unwrap_or(s.updated_at)).max().unwrap_or(Timestamp::UNIX_EPOCH);
    let name = display_name(&key).to_lowercase();
    let preferences = rank(merge_near_duplicates(preferences, |w| vocabulary.is_own_term(&key, &name, w)));
    Group {
        key,
        sessions,
        preferences,
        knowledge: rank(knowledge),
        accounts: rank(accounts),
        failures: rank(fixes),
        usage,
        last,
    }
}

/// Consolidate the selection and the notes.
pub(crate) fn consolidate(input: &Input) -> Output {
    let mut by_project: BTreeMap<String, Vec<&Stage1>> = BTreeMap::new();
    for session in input.sessions {
        by_project.entry(session.project.clone()).or_default().push(session);
    }
    let vocabulary = vocabulary(input.sessions);
    let mut groups: Vec<Group> =
        by_project.into_iter().map(|(key, sessions)| group(key, sessions, &vocabulary)).collect();
    groups.sort_by(|a, b| b.usage.cmp(&a.usage).then_with(|| b.last.cmp(&a.last)).then_with(|| a.key.cmp(&b.key)));
    let mut notes: Vec<&Note> = input.notes.iter().collect();
    // Newest first: note files start with their creation time.
    notes.sort_by(|a, b| b.file.cmp(&a.file));
    let rarity = rarity(input.sessions);
    let memory = render_memory(&groups, &notes, &summary_files(input.sessions), &rarity);
    let whole_summary = render_summary(&groups, &notes, input.sessions);
    let summary = match Summary::parse(&whole_summary) {
        Ok(parsed) => parsed.fit(input.cap),
        Err(_) => whole_summary.clone(),
    };
    Output { memory, summary, whole_summary }
}

/// The words of every preference of the selection, by the projects that use them.
fn vocabulary(sessions: &[Stage1]) -> merge::Vocabulary {
    let mut vocabulary = merge::Vocabulary::default();
    for session in sessions {
        for preference in session.facts.tasks.iter().flat_map(|t| &t.preferences) {
            vocabulary.add(&session.project, &merge::content_words(&fact_of(&preference.text)));
        }
    }
    vocabulary
}

fn date(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%d").to_string()
}

/// `files`: each session's rollout summary file, by session id.
fn render_memory(groups: &[Group], notes: &[&Note], files: &BTreeMap<String, String>, rarity: &Rarity) -> String {
    let mut out = String::new();
    if !notes.is_empty() {
        out.push_str(
            "# Notes\n\nWritten by the user with `handbook note`: their own words, ahead of everything below.\n",
        );
        for note in notes {
            let (title, file) = (one_line(&note.title), one_line(&note.file));
            let _ = write!(out, "\n## Note: {title}\n\nsource: {file}\n\n{}\n", note.body.trim());
        }
        out.push('\n');
    }
    if groups.is_empty() {
        out.push_str("# Task Group: none yet\nscope: no session has been consolidated yet\napplies_to: cwd=unknown; reuse_rule=nothing to reuse yet\n");
        return out;
    }
    for (index, group) in groups.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        render_group(&mut out, group, files, rarity);
    }
    out
}

fn render_group(out: &mut String, group: &Group, files: &BTreeMap<String, String>, rarity: &Rarity) {
    let first = group.sessions.iter().map(|s| s.started_at.unwrap_or(s.updated_at)).min();
    let last = group.sessions.iter().map(|s| s.updated_at).max();
    let agents: BTreeSet<&str> = group.sessions.iter().map(|s| s.agent.name()).collect();
    let cwds: BTreeSet<String> = group.sessions.iter().filter_map(|s| s.cwd.as_deref()).map(meta).collect();
    let n = group.sessions.len();
    let key = display_key(&group.key);
    let _ = writeln!(out, "# Task Group: {key}");
    let _ = writeln!(
        out,
        "scope: {n} session{} in {} from {} to {} ({}); use for work in this project",
        if n == 1 { "" } else { "s" },
        key,
        first.map_or_else(|| "?".into(), date),
        last.map_or_else(|| "?".into(), date),
        agents.into_iter().collect::<Vec<_>>().join(", "),
    );
    let cwd = if cwds.is_empty() { "unknown".to_string() } else { cwds.into_iter().collect::<Vec<_>>().join(", ") };
    let _ = writeln!(
        out,
        "applies_to: cwd={cwd}; reuse_rule=verified in these sessions; check commands and paths against the current checkout"
    );
    let mut task_number = 0;
    for session in &group.sessions {
        // Every session of the selection has its name in `files`, made from the same sessions.
        let file = format!("{ROLLOUT_SUMMARIES}/{}", files[&session.session_id]);
        for task in &session.facts.tasks {
            task_number += 1;
            let _ = write!(out, "\n## Task {task_number}: {} ({})\n\n", one_line(&task.title), task.outcome.name());
            let _ = write!(
                out,
                "### rollout_summary_files\n\n- {file} (cwd={}, rollout_path={}, updated_at={}, session_id={})\n\n",
                session.cwd.as_deref().map_or_else(|| "unknown".to_string(), meta),
                meta(&session.rollout_path),
                timestamp(session.updated_at),
                one_line(&session.session_id)
            );
            let _ =
                writeln!(out, "### keywords\n\n- {}", one_line(&rarest(&session.facts.keywords, rarity).join(", ")));
        }
    }
    let knowledge: Vec<Lesson> = group.knowledge.iter().chain(&group.accounts).cloned().collect();
    for (title, lessons) in [
        ("User preferences", &group.preferences),
        ("Reusable knowledge", &knowledge),
        ("Failures and how to do differently", &group.failures),
    ] {
        if lessons.is_empty() {
            continue;
        }
        let _ = write!(out, "\n## {title}\n\n");
        for lesson in lessons {
            let _ = writeln!(out, "{}", lesson.bullet());
        }
    }
}

/// How many sessions of the selection have each keyword.
type Rarity = BTreeMap<String, usize>;

fn rarity(sessions: &[Stage1]) -> Rarity {
    let mut counts = Rarity::new();
    for session in sessions {
        for keyword in session.facts.keywords.iter().collect::<BTreeSet<_>>() {
            *counts.entry(keyword.clone()).or_default() += 1;
        }
    }
    counts
}

/// A session's keywords as shown: those that tell it apart first (had by the fewest
/// sessions of the workspace), then in the session's own order; at most
/// [`SHOWN_KEYWORDS`].
fn rarest<'a>(keywords: &'a [String], rarity: &Rarity) -> Vec<&'a str> {
    let mut ranked: Vec<(usize, usize, &str)> =
        keywords.iter().enumerate().map(|(i, k)| (rarity.get(k).copied().unwrap_or(0), i, k.as_str())).collect();
    ranked.sort();
    ranked.into_iter().take(SHOWN_KEYWORDS).map(|(_, _, k)| k).collect()
}

fn render_summary(groups: &[Group], notes: &[&Note], sessions: &[Stage1]) -> String {
    let rarity = rarity(sessions);
    let mut out = format!("{VERSION_LINE}\n\n## User Profile\n\n{}\n", profile(groups, notes, sessions));

    out.push_str("\n## User preferences\n\n");
    let mut any = false;
    for note in notes {
        let first = one_line(note.body.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or(""));
        let first = clip_at_word(&first, 200);
        let title = one_line(&note.title);
        // A title taken from the note's first line would say the same thing twice.
        if first.starts_with(title.trim_end_matches('…')) {
            let _ = writeln!(out, "- {first} (note)");
        } else {
            let _ = writeln!(out, "- {title}: {first} (note)");
        }
        any = true;
    }
    let mut preferences: Vec<(&Lesson, String)> =
        groups.iter().flat_map(|g| g.preferences.iter().map(move |p| (p, display_name(&g.key)))).collect();
    preferences.sort_by(|(a, _), (b, _)| by_rank(a, b));
    for (lesson, project) in preferences.into_iter().take(SUMMARY_PREFERENCES) {
        let _ = writeln!(out, "- {} ({})", lesson.body, lesson.annotation(Some(&project)));
        any = true;
    }
    if !any {
        out.push_str("- none recorded yet\n");
    }

    out.push_str("\n## General Tips\n\n");
    // The surest kinds of tip first, each kind in the projects' order, so that the cap, which
    // drops tips from the end, drops the least sure.
    let mut tips: Vec<(Tier, usize, String)> = Vec::new();
    for (rank, group) in groups.iter().enumerate() {
        let name = display_name(&group.key);
        tips.extend(tips_of(group).into_iter().map(|(tier, tip)| (tier, rank, format!("- {name}: {tip}"))));
    }
    tips.sort_by_key(|(tier, rank, _)| (*tier, *rank));
    for (_, _, tip) in &tips {
        let _ = writeln!(out, "{tip}");
    }
    if tips.is_empty() {
        out.push_str("- none recorded yet\n");
    }

    out.push_str("\n## What's in Memory\n");
    for group in groups {
        let _ = write!(out, "\n### {}\n", display_key(&group.key));
        let mut days: BTreeMap<String, Vec<String>> = BTreeMap::new();
        // One entry a session, named by its first request: its later ones share its keywords,
        // and `MEMORY.md` lists every task.
        for session in &group.sessions {
            let Some(task) = session.facts.tasks.first() else { continue };
            let topic = one_line(task.title.trim_end_matches(['.', '!', '?', ':']));
            let keywords = one_line(&rarest(&session.facts.keywords, &rarity).join(", "));
            let outcome = session.facts.outcome.name();
            let entry = match keywords.is_empty() {
                true => format!("- {topic} ({outcome})"),
                false => format!("- {topic} ({outcome}): {keywords}"),
            };
            days.entry(date(session.updated_at)).or_default().push(entry);
        }
        for (day, entries) in days.iter().rev() {
            let _ = write!(out, "\n#### {day}\n\n");
            for entry in entries {
                let _ = writeln!(out, "{entry}");
            }
        }
    }
    out
}

/// How sure a kind of tip is, surest first: a landmine with the way past it the session
/// proved, what an agent's account found (its word only), a command that worked (what anyone
/// might have tried), and a failure nothing got past (which a later step may have fixed
/// unseen).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    Landmine,
    Account,
    Verified,
    Open,
}

/// A project's tips in the summary: its top landmines, the verified commands they do not
/// already name, and what agents' closing accounts found, labelled as such.
fn tips_of(group: &Group) -> Vec<(Tier, String)> {
    let failures = landmines_told(group);
    let tier = |l: &Lesson| if l.body.contains(" -> ") { Tier::Landmine } else { Tier::Open };
    let mut tips: Vec<(Tier, String)> = failures.iter().map(|l| (tier(l), l.body.clone())).collect();
    // A job or a step a landmine above or a preference already names would be told twice.
    let told: String = failures.iter().copied().chain(&group.preferences).map(|l| l.body.to_lowercase()).collect();
    let mut families: BTreeSet<String> =
        failures.iter().flat_map(|l| &l.commands).map(|c| classify(c).family).collect();
    if let Some(verified) = verified_tip(group, &told, &mut families) {
        tips.push((Tier::Verified, verified));
    }
    // An account of what a landmine above already tells (`chezmoi apply` failed …, or the
    // `podman.socket` its fix enabled) is not told again.
    let names_told = |l: &Lesson| {
        l.body.split('`').skip(1).step_by(2).any(|span| {
            families.contains(&classify(span).family) || (span.len() >= 6 && told.contains(&span.to_lowercase()))
        })
    };
    let accounts = group.accounts.iter().filter(|l| !l.quiet && !names_told(l)).take(TIPS_ACCOUNTS_PER_PROJECT);
    tips.extend(accounts.map(|l| (Tier::Account, l.body.clone())));
    tips
}

/// The landmines a project's tips tell, at most [`TIPS_FIXES_PER_PROJECT`]. A failure of a
/// task that went on to succeed was got past somehow: the summary keeps to the landmines it
/// can say something about. The same commands fixed the same way with another error line are
/// one landmine, and so are two failures one step got past (a missing extension that failed
/// both the install and the tests) or one job that needed the same setting twice: the way
/// around is told once, with the first. A fix whose every step an earlier tip already names
/// (the same install got two jobs past the same missing compiler) would tell it again, and so
/// would a fix that only added what a preference of the project already says to pass.
fn landmines_told<'g>(group: &'g Group) -> Vec<&'g Lesson> {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let way_around = |l: &Lesson| l.way_around.clone().unwrap_or_else(|| format!("{:?}", l.commands));
    let rules: Vec<String> = group.preferences.iter().map(|l| l.body.to_lowercase()).collect();
    let mut steps_told: BTreeSet<&str> = BTreeSet::new();
    let mut failures: Vec<&Lesson> = Vec::new();
    for lesson in group.failures.iter().filter(|l| !l.quiet) {
        let told_before = !lesson.steps.is_empty() && lesson.steps.iter().all(|s| steps_told.contains(s.as_str()));
        let told_by_rule = added_words(lesson).is_some_and(|added| rules.iter().any(|rule| rule.contains(&added)));
        if failures.len() == TIPS_FIXES_PER_PROJECT || told_before || told_by_rule {
            continue;
        }
        if lesson.commands.is_empty() || seen.insert(way_around(lesson)) {
            steps_told.extend(lesson.steps.iter().map(String::as_str));
            failures.push(lesson);
        }
    }
    failures
}

/// What a fix's working command adds to the failed one, in order and lowercased, when that is
/// all it changed and it holds a flag or a setting (`--kube-context kind-hooktip`).
fn added_words(lesson: &Lesson) -> Option<String> {
    let [failed, worked] = lesson.commands.as_slice() else { return None };
    let (failed, worked) = (shell::words(failed), shell::words(worked));
    let added: Vec<&String> = worked.iter().filter(|w| !failed.contains(w)).collect();
    let setting = added.iter().any(|w| w.starts_with('-') || w.contains('='));
    (setting && failed.iter().all(|w| worked.contains(w)))
        .then(|| added.iter().map(|w| w.to_lowercase()).collect::<Vec<_>>().join(" "))
}

/// A command run once, not a way to do the project's job: it holds a URL or a secret, a
/// date or a timestamp (`make migrate-force V=20261128120000`), or builds into a scratch
/// place (`go build -o /tmp/gf ./cmd/gf` to try the binary out).
fn one_off(command: &str) -> bool {
    static DATED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::core::patterns::regex(r"\b(?:19|20)\d{2}-\d{2}-\d{2}\b|\b(?:19|20)\d{6}(?:\d{4}(?:\d{2})?)?\b")
    });
    let words = shell::words(command);
    if words.iter().skip(1).any(|w| !w.contains('/') && DATED.is_match(w)) {
        return true;
    }
    let scratch = words.windows(2).any(|pair| {
        matches!(pair[0].as_str(), "-o" | "--output" | "--out" | "--out-dir" | "--outdir")
            && pair[1].starts_with("/tmp/")
    }) || words.iter().any(|w| {
        ["--output=/tmp/", "--out=/tmp/", "--out-dir=/tmp/", "--outdir=/tmp/"].iter().any(|flag| w.starts_with(flag))
    });
    command.contains("://")
        || command.contains("[REDACTED:")
        || scratch
        || shell::generates(command)
        || shell::is_inline_eval(command)
}

/// The line of a project's verified ways to build, test, lint or format, other than those
/// `told` already names (a job, or a step of its chain) and those of the `families` told.
fn verified_tip(group: &Group, told: &str, families: &mut BTreeSet<String>) -> Option<String> {
    let mut commands = Vec::new();
    for command in group.knowledge.iter().flat_map(|l| &l.commands) {
        let family = classify(command).family;
        // A one-off is not the way to build or test; an install is a step, and a bare default
        // (`cargo test`) what anyone would try first.
        let one_off = one_off(command);
        // Only a way to build, test, lint or format is a tip; other commands were steps.
        let kind = classify(command).kind;
        let job = matches!(kind, CommandKind::Test | CommandKind::Build | CommandKind::Lint | CommandKind::Format);
        // (`bash -n bin/backup` parsed the script at hand.)
        let plain = shell::is_default_command(command)
            || shell::is_narrowed(command)
            || shell::is_syntax_check(command)
            || shell::is_query(command)
            || !job;
        // `source ~/.app.env && dotnet test` after a landmine fixed by that `source`, or
        // `GITHUB_TOKEN=… sbt test` after one that needed the setting.
        let step_told = command.split(" && ").count() > 1
            && command.split(" && ").any(|part| classify(part).family != family && told.contains(&part.to_lowercase()));
        let setting_told = shell::words(command)
            .iter()
            .any(|w| w.contains('=') && !w.starts_with('-') && told.contains(&w.to_lowercase()));
        // `./gradlew ktlintFormat` after "I prefer ktlintFormat run before every commit": the
        // task a build tool runs is what the line would tell.
        let task_told = family.split_once(' ').map(|(_, task)| task.to_lowercase()).is_some_and(|task| {
            task.len() >= 6 && told.split(|c: char| !c.is_alphanumeric() && c != '-' && c != ':').any(|w| w == task)
        });
        let step_told = step_told || setting_told || task_told;
        if plain || one_off || step_told || family.is_empty() || told.contains(&family.to_lowercase()) {
            continue;
        }
        if families.insert(family) && commands.len() < TIPS_COMMANDS_PER_PROJECT {
            commands.push(code(command));
        }
    }
    (!commands.is_empty()).then(|| format!("verified {}", commands.join(", ")))
}

/// A factual paragraph about where the lessons come from.
fn profile(groups: &[Group], notes: &[&Note], sessions: &[Stage1]) -> String {
    if sessions.is_empty() {
        return match notes.len() {
            0 => "No sessions consolidated yet.".to_string(),
            n => {
                format!("No sessions consolidated yet; {n} note{} written by the user.", if n == 1 { "" } else { "s" })
            }
        };
    }
    let agents: BTreeSet<&str> = sessions.iter().map(|s| s.agent.name()).collect();
    let first = sessions.iter().map(|s| s.started_at.unwrap_or(s.updated_at)).min().map(date).unwrap_or_default();
    let last = sessions.iter().map(|s| s.updated_at).max().map(date).unwrap_or_default();
    let n = sessions.len();
    let mut text = format!(
        "Lessons from {n} session{} ({}) across {} project{}, {first} to {last}.",
        if n == 1 { "" } else { "s" },
        agents.into_iter().collect::<Vec<_>>().join(", "),
        groups.len(),
        if groups.len() == 1 { "" } else { "s" },
    );
    let mut busiest: Vec<&Group> = groups.iter().collect();
    busiest.sort_by(|a, b| b.sessions.len().cmp(&a.sessions.len()).then_with(|| a.key.cmp(&b.key)));
    let top: Vec<String> =
        busiest.iter().take(3).map(|g| format!("{} ({})", display_name(&g.key), g.sessions.len())).collect();
    let _ = write!(text, " Most sessions: {}.", top.join(", "));
    if !notes.is_empty() {
        let _ = write!(text, " {} note{} written by the user.", notes.len(), if notes.len() == 1 { "" } else { "s" });
    }
    text
}

#[cfg(test)]
mod properties;
#[cfg(test)]
pub(crate) mod tests;
