//! The quality scorer: runs the real binary on one labelled part of `fixtures/quality/` and
//! measures what it kept against the labels (recall of expected lessons in stage-1 and in
//! `MEMORY.md`, precision of the summary's lines, the no-op rate of trivial sessions, and
//! secrets or canaries anywhere). `fixtures/quality/README.md` says how a lesson counts as
//! found; the integration test and `scripts/quality` both use this file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

/// The time every scored run treats as now, so the figures do not depend on the day.
pub const NOW: &str = "2026-12-01T12:00:00Z";

/// The figures a part must reach.
pub struct Targets {
    /// Of expected lessons, found in stage-1 and in `MEMORY.md`.
    pub recall: f64,
    /// Of summary lines, expected or acceptable.
    pub precision: f64,
    /// Wrong and duplicate summary lines allowed.
    pub wrong: usize,
    pub duplicate: usize,
}

/// What the handbook aims for on every part: nine lessons in ten found, nine summary lines in
/// ten worth reading, none wrong or said twice (and, always, every trivial session a no-op
/// and no secret or canary anywhere).
pub const TARGETS: Targets = Targets { recall: 0.9, precision: 0.9, wrong: 0, duplicate: 0 };

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Labels {
    session: Vec<SessionLabel>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct SessionLabel {
    path: String,
    #[serde(default)]
    trivial: bool,
    #[serde(default)]
    named: bool,
    project: Option<String>,
    #[serde(default)]
    secrets: Vec<String>,
    #[allow(dead_code)]
    what: Option<String>,
    #[serde(default)]
    lesson: Vec<Lesson>,
    #[serde(default)]
    acceptable: Vec<Pattern>,
    #[serde(default)]
    wrong: Vec<Pattern>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct Lesson {
    id: String,
    kind: String,
    #[allow(dead_code)]
    what: Option<String>,
    tokens: Vec<String>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct Pattern {
    tokens: Vec<String>,
}

/// How one line of the summary was judged.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Verdict {
    Expected,
    Acceptable,
    Duplicate,
    Wrong,
    Noise,
}

/// What one part scored.
pub struct Report {
    pub part: String,
    pub sessions: usize,
    pub lessons: usize,
    /// Lesson sightings (a lesson in each session that states it) found in stage-1.
    pub stage1_found: usize,
    pub stage1_total: usize,
    /// Distinct lessons found in `MEMORY.md`.
    pub memory_found: usize,
    /// Distinct lessons found in the summary.
    pub summary_found: usize,
    pub lines: Vec<(Verdict, String)>,
    /// The summary section of each of `lines`, in the same order.
    pub sections: Vec<String>,
    /// Summary lines that name a project no label names (a session read under another
    /// project key than its label says): a label's fault or a project key's, not a rule's.
    pub unknown_projects: usize,
    pub trivial: usize,
    pub trivial_no_op: usize,
    /// Wrong lines in `MEMORY.md` (the summary's are among `lines`).
    pub memory_wrong: Vec<String>,
    /// Secrets or canaries found in the workspace, as `file: what`.
    pub leaks: Vec<String>,
    /// Lessons missed, as `id (kind): where`.
    pub missed: Vec<String>,
}

impl Report {
    /// Two reports of disjoint sessions as one: every count summed.
    fn plus(mut self, other: Report) -> Report {
        self.sessions += other.sessions;
        self.lessons += other.lessons;
        self.stage1_found += other.stage1_found;
        self.stage1_total += other.stage1_total;
        self.memory_found += other.memory_found;
        self.summary_found += other.summary_found;
        self.lines.extend(other.lines);
        self.sections.extend(other.sections);
        self.unknown_projects += other.unknown_projects;
        self.trivial += other.trivial;
        self.trivial_no_op += other.trivial_no_op;
        self.memory_wrong.extend(other.memory_wrong);
        self.leaks.extend(other.leaks);
        self.missed.extend(other.missed);
        self
    }

    pub fn stage1_recall(&self) -> f64 {
        ratio(self.stage1_found, self.stage1_total)
    }

    pub fn memory_recall(&self) -> f64 {
        ratio(self.memory_found, self.lessons)
    }

    pub fn count(&self, verdict: Verdict) -> usize {
        self.lines.iter().filter(|(v, _)| *v == verdict).count()
    }

    /// Summary lines expected or acceptable (duplicates excluded), of all its lines.
    pub fn precision(&self) -> f64 {
        ratio(self.count(Verdict::Expected) + self.count(Verdict::Acceptable), self.lines.len())
    }

    pub fn no_op_rate(&self) -> f64 {
        ratio(self.trivial_no_op, self.trivial)
    }

    /// Every figure below its target, in words; empty when the part meets them all.
    pub fn shortfalls(&self, targets: &Targets) -> Vec<String> {
        let mut short = Vec::new();
        let mut below = |name: &str, value: f64, target: f64| {
            if value < target {
                short.push(format!("{}: {name} {:.1}% < {:.0}%", self.part, value * 100.0, target * 100.0));
            }
        };
        below("stage-1 recall", self.stage1_recall(), targets.recall);
        below("handbook recall", self.memory_recall(), targets.recall);
        below("summary precision", self.precision(), targets.precision);
        below("no-op rate", self.no_op_rate(), 1.0);
        for (verdict, name, allowed) in
            [(Verdict::Wrong, "wrong", targets.wrong), (Verdict::Duplicate, "duplicate", targets.duplicate)]
        {
            let n = self.count(verdict);
            if n > allowed {
                short.push(format!("{}: {n} {name} summary line(s), {allowed} allowed", self.part));
            }
        }
        if !self.leaks.is_empty() {
            short.push(format!("{}: secrets or canaries in the workspace: {}", self.part, self.leaks.join("; ")));
        }
        short
    }

    /// The figures as a short table; with `details`, every missed lesson and every summary
    /// line that is not expected or acceptable.
    pub fn render(&self, details: bool) -> String {
        let pct = |v: f64| format!("{:.1}%", v * 100.0);
        let mut out = format!(
            "{}: {} sessions, {} expected lessons\n  recall: stage-1 {} ({}/{}), MEMORY.md {} ({}/{}), summary {}/{}\n  \
             summary lines: {} ({} expected, {} acceptable, {} duplicate, {} wrong, {} noise): precision {}\n  \
             no-op: {}/{} trivial sessions ({}); wrong lines in MEMORY.md: {}; leaks: {}\n",
            self.part,
            self.sessions,
            self.lessons,
            pct(self.stage1_recall()),
            self.stage1_found,
            self.stage1_total,
            pct(self.memory_recall()),
            self.memory_found,
            self.lessons,
            self.summary_found,
            self.lessons,
            self.lines.len(),
            self.count(Verdict::Expected),
            self.count(Verdict::Acceptable),
            self.count(Verdict::Duplicate),
            self.count(Verdict::Wrong),
            self.count(Verdict::Noise),
            pct(self.precision()),
            self.trivial_no_op,
            self.trivial,
            pct(self.no_op_rate()),
            self.memory_wrong.len(),
            self.leaks.len(),
        );
        out.push_str(&self.by_section());
        if self.unknown_projects > 0 {
            out.push_str(&format!("  lines naming a project no label names: {}\n", self.unknown_projects));
        }
        if details {
            out.extend(self.missed.iter().map(|m| format!("  missed: {m}\n")));
            for (verdict, line) in &self.lines {
                if !matches!(verdict, Verdict::Expected | Verdict::Acceptable) {
                    out.push_str(&format!("  {verdict:?}: {line}\n"));
                }
            }
            out.extend(self.memory_wrong.iter().map(|m| format!("  wrong in MEMORY.md: {m}\n")));
        }
        out
    }

    /// How many lines of each summary section were judged each way: where precision is lost,
    /// without the lines themselves.
    fn by_section(&self) -> String {
        let mut counts: BTreeMap<(&str, Verdict), usize> = BTreeMap::new();
        let mut order: Vec<&str> = Vec::new();
        for ((verdict, _), section) in self.lines.iter().zip(&self.sections) {
            *counts.entry((section.as_str(), *verdict)).or_default() += 1;
            if !order.contains(&section.as_str()) {
                order.push(section);
            }
        }
        let mut out = String::from("  by section:");
        for section in order {
            let of = |v: Verdict| counts.get(&(section, v)).copied().unwrap_or(0);
            let all: usize =
                [Verdict::Expected, Verdict::Acceptable, Verdict::Duplicate, Verdict::Wrong, Verdict::Noise]
                    .into_iter()
                    .map(of)
                    .sum();
            out.push_str(&format!(
                " {section} {all} ({} expected, {} acceptable, {} duplicate, {} wrong, {} noise);",
                of(Verdict::Expected),
                of(Verdict::Acceptable),
                of(Verdict::Duplicate),
                of(Verdict::Wrong),
                of(Verdict::Noise)
            ));
        }
        out.push('\n');
        out
    }

    /// Every summary line with its verdict, in order.
    #[cfg_attr(test, allow(dead_code, reason = "the example prints it"))]
    pub fn render_lines(&self) -> String {
        self.lines.iter().map(|(verdict, line)| format!("  {verdict:?}: {line}\n")).collect()
    }

    /// The figures as one JSON object.
    #[cfg_attr(test, allow(dead_code, reason = "the example prints it; the test judges the figures"))]
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "part": self.part,
            "sessions": self.sessions,
            "lessons": self.lessons,
            "stage1_recall": self.stage1_recall(),
            "memory_recall": self.memory_recall(),
            "summary_lessons": self.summary_found,
            "summary_lines": self.lines.len(),
            "expected": self.count(Verdict::Expected),
            "acceptable": self.count(Verdict::Acceptable),
            "duplicate": self.count(Verdict::Duplicate),
            "wrong": self.count(Verdict::Wrong),
            "noise": self.count(Verdict::Noise),
            "precision": self.precision(),
            "trivial": self.trivial,
            "trivial_no_op": self.trivial_no_op,
            "memory_wrong": self.memory_wrong.len(),
            "leaks": self.leaks,
        })
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 { 1.0 } else { part as f64 / whole as f64 }
}

/// The most sessions one slice of a part holds: the held-back part's size, about a week of a
/// busy user's sessions.
pub const SLICE: usize = 25;

/// Scores `fixtures/quality/<part>` with the binary at `binary`, all its sessions in one
/// workspace.
pub fn score(binary: &Path, quality: &Path, part: &str) -> Result<Report, String> {
    let labels = labels(quality, part)?;
    score_sessions(binary, quality, part, part.to_string(), labels)
}

/// Scores `fixtures/quality/<part>` in slices of at most [`SLICE`] sessions, in label order,
/// each in a workspace of its own, and sums them into one report. A summary of a large part
/// is cut by its cap long before its tail, so only slices of a week's size show the summary
/// lines a smaller workspace would carry.
pub fn score_in_slices(binary: &Path, quality: &Path, part: &str) -> Result<Report, String> {
    let all = labels(quality, part)?;
    let count = all.session.len().div_ceil(SLICE).max(1);
    let size = all.session.len().div_ceil(count);
    let mut total: Option<Report> = None;
    for (index, chunk) in all.session.chunks(size.max(1)).enumerate() {
        let labels = Labels { session: chunk.to_vec() };
        let name = format!("{part} slice {}", index + 1);
        let report = score_sessions(binary, quality, part, name, labels)?;
        total = Some(match total {
            None => report,
            Some(sum) => sum.plus(report),
        });
    }
    let mut total = total.ok_or_else(|| format!("{part}: no sessions"))?;
    total.part = format!("{part} in slices of {size}");
    Ok(total)
}

fn labels(quality: &Path, part: &str) -> Result<Labels, String> {
    let labels_file = quality.join(part).join("labels.toml");
    let text = std::fs::read_to_string(&labels_file).map_err(|e| format!("{}: {e}", labels_file.display()))?;
    toml::from_str(&text).map_err(|e| format!("{}: {e}", labels_file.display()))
}

fn score_sessions(binary: &Path, quality: &Path, part: &str, name: String, labels: Labels) -> Result<Report, String> {
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let copy = scratch.path().join("sessions");
    let sessions: BTreeSet<&str> = labels.session.iter().map(|s| s.path.as_str()).collect();
    lay_out(&quality.join(part), &copy, &sessions)?;
    let home = scratch.path().join("home");
    let outcomes = run(binary, &home, scratch.path(), &copy, &labels)?;
    Ok(judge(&name, &labels, &copy, &home, &outcomes))
}

/// Copies the part's tree, dropping the `.txt` that keeps its transcripts out of folder walks:
/// the labelled sessions in `sessions` and every file that is no session (Gemini's
/// `projects.json`).
fn lay_out(from: &Path, to: &Path, sessions: &BTreeSet<&str>) -> Result<(), String> {
    let every: Labels = toml::from_str(&std::fs::read_to_string(from.join("labels.toml")).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let labelled = |name: &str| every.session.iter().any(|s| s.path == name);
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.map_err(|e| e.to_string())?;
        let relative = entry.path().strip_prefix(from).map_err(|e| e.to_string())?;
        let name = relative.to_string_lossy();
        let plain = name.strip_suffix(".txt").unwrap_or(&name);
        let target = to.join(plain);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| e.to_string())?;
        } else if name != "labels.toml" && name != "README.md" && (sessions.contains(plain) || !labelled(plain)) {
            std::fs::copy(entry.path(), &target).map_err(|e| format!("{}: {e}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Runs extract and consolidate in a clean environment; each session's outcome by path.
fn run(
    binary: &Path,
    home: &Path,
    user: &Path,
    copy: &Path,
    labels: &Labels,
) -> Result<BTreeMap<PathBuf, String>, String> {
    let base = || {
        let mut cmd = Command::new(binary);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", user)
            .env("XDG_CONFIG_HOME", user.join(".config"))
            .env("XDG_DATA_HOME", user.join(".local/share"))
            .env("HANDBOOK_NOW", NOW)
            .arg("--home")
            .arg(home);
        cmd
    };
    let named = labels.session.iter().filter(|s| s.named).map(|s| copy.join(&s.path));
    let output =
        base().args(["extract", "--all", "--json"]).arg(copy).args(named).output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!("extract failed: {}", String::from_utf8_lossy(&output.stderr)));
    }
    let mut outcomes = BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("extract --json: {e}: {line}"))?;
        if value["type"] == "session" {
            let data = &value["data"];
            outcomes.insert(
                PathBuf::from(data["path"].as_str().unwrap_or_default()),
                data["outcome"].as_str().unwrap_or_default().to_string(),
            );
        }
    }
    // Every session of the part is in its one workspace: the top-256 selection a larger
    // history gets is not what is measured.
    let output = base()
        .args(["consolidate", "--max-unused-days", "3650", "--max-raw-memories", "100000"])
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!("consolidate failed: {}", String::from_utf8_lossy(&output.stderr)));
    }
    Ok(outcomes)
}

/// Every token on the one line, case-insensitive, with markdown backticks removed; a token
/// `a|b` is found when either is.
fn holds(line: &str, tokens: &[String]) -> bool {
    let line = line.replace('`', "").to_lowercase();
    !tokens.is_empty() && tokens.iter().all(|t| t.to_lowercase().split('|').any(|alt| line.contains(alt)))
}

fn any_line(text: &str, tokens: &[String]) -> bool {
    text.lines().any(|line| holds(line, tokens))
}

/// The stage-1 records of the workspace, by the session path each names: every extracted
/// session's, from `.handbook/stage1/`, whether or not consolidation selected it (only the
/// selected ones get a file in `rollout_summaries/`).
fn stage1_records(home: &Path) -> BTreeMap<PathBuf, String> {
    let mut records = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(home.join(".handbook/stage1")) else { return records };
    for entry in entries.filter_map(Result::ok) {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let Ok(record) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        if let (Some(path), Some(summary)) = (record["rollout_path"].as_str(), record["rollout_summary"].as_str()) {
            records.insert(PathBuf::from(path), summary.to_string());
        }
    }
    records
}

fn judge(part: &str, labels: &Labels, copy: &Path, home: &Path, outcomes: &BTreeMap<PathBuf, String>) -> Report {
    let records = stage1_records(home);
    let memory = std::fs::read_to_string(home.join("MEMORY.md")).unwrap_or_default();
    let summary = std::fs::read_to_string(home.join("memory_summary.md")).unwrap_or_default();
    let mut lessons: BTreeMap<&str, &Lesson> = BTreeMap::new();
    let (mut stage1_found, mut stage1_total, mut missed) = (0, 0, Vec::new());
    let (mut trivial, mut trivial_no_op) = (0, 0);
    for session in &labels.session {
        let path = copy.join(&session.path);
        let record = records.get(&path).map(String::as_str).unwrap_or("");
        if session.trivial {
            trivial += 1;
            trivial_no_op += usize::from(outcomes.get(&path).is_some_and(|o| o == "no-op"));
        }
        for lesson in &session.lesson {
            lessons.insert(&lesson.id, lesson);
            stage1_total += 1;
            if any_line(record, &lesson.tokens) {
                stage1_found += 1;
            } else {
                missed.push(format!("{} ({}): not in the stage-1 record of {}", lesson.id, lesson.kind, session.path));
            }
        }
    }
    let memory_found = lessons.values().filter(|l| any_line(&memory, &l.tokens)).count();
    missed.extend(
        lessons
            .values()
            .filter(|l| !any_line(&memory, &l.tokens))
            .map(|l| format!("{} ({}): not in MEMORY.md", l.id, l.kind)),
    );
    let summary_found = lessons.values().filter(|l| any_line(&summary, &l.tokens)).count();
    // A wrong pattern is wrong of its own project: another project's line may say it rightly.
    let wrong: Vec<(&Pattern, &Option<String>)> =
        labels.session.iter().flat_map(|s| s.wrong.iter().map(move |w| (w, &s.project))).collect();
    let secrets: Vec<&String> = labels.session.iter().flat_map(|s| &s.secrets).collect();
    let memory_wrong = lesson_lines(&memory)
        .filter(|(group, l)| wrong.iter().any(|(w, p)| holds(l, &w.tokens) && same_project(group, p)))
        .map(|(_, l)| l.to_string())
        .collect();
    Report {
        part: part.to_string(),
        sessions: labels.session.len(),
        lessons: lessons.len(),
        stage1_found,
        stage1_total,
        memory_found,
        summary_found,
        lines: summary_verdicts(&summary, labels, &wrong, &secrets, &topics(labels, copy, &records)),
        sections: summary_sections(&summary),
        unknown_projects: summary
            .lines()
            .filter_map(line_project)
            .filter(|named| !labels.session.iter().any(|s| project_name(&s.project).as_deref() == Some(named.as_str())))
            .count(),
        trivial,
        trivial_no_op,
        memory_wrong,
        leaks: leaks(home, &secrets),
        missed,
    }
}

/// The project a summary line names: `(kind; name)` at its end (a preference, whose own text
/// may open with `Again: …`), else `- name: …` (a tip).
fn line_project(line: &str) -> Option<String> {
    let body = line.trim_start().strip_prefix("- ")?;
    let annotated = body.trim_end().strip_suffix(')').and_then(|b| b.rsplit_once('(')).map(|(_, inner)| inner);
    if let Some(name) = annotated.and_then(|inner| inner.split("; ").nth(1)) {
        return Some(name.to_lowercase());
    }
    let (name, _) = body.split_once(": ")?;
    (!name.is_empty() && !name.contains(' ') && !name.contains('`')).then(|| name.to_lowercase())
}

/// The name a summary gives a labelled project: its last path part.
fn project_name(project: &Option<String>) -> Option<String> {
    project.as_deref().map(|p| p.trim_end_matches('/').rsplit('/').next().unwrap_or(p).to_lowercase())
}

/// True when `line` holds `tokens` and names no project other than `project`: a line about
/// one project is no evidence of another's lesson.
fn holds_in(line: &str, tokens: &[String], project: &Option<String>) -> bool {
    let other = match (line_project(line), project_name(project)) {
        (Some(named), Some(own)) => named != own,
        _ => false,
    };
    !other && holds(line, tokens)
}

/// The lines of `MEMORY.md`'s lesson sections (preferences, knowledge, failures): the task
/// headings and file references name what was asked and where, not what was learned.
/// Each with the task group (the project) it is under.
fn lesson_lines(memory: &str) -> impl Iterator<Item = (Option<String>, &str)> {
    let mut in_lessons = false;
    let mut group: Option<String> = None;
    memory.lines().filter_map(move |line| {
        if let Some(key) = line.strip_prefix("# Task Group: ") {
            group = Some(key.trim().to_string());
        }
        if let Some(heading) = line.strip_prefix("## ") {
            in_lessons = ["User preferences", "Reusable knowledge", "Failures and how to do differently"]
                .contains(&heading.trim());
            return None;
        }
        (in_lessons && line.starts_with("- ")).then(|| (group.clone(), line))
    })
}

/// True when a task group is the labelled project, or either is unknown.
fn same_project(group: &Option<String>, project: &Option<String>) -> bool {
    match (project_name(group), project_name(project)) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

/// Judges every list item of the summary, in order.
/// Each task title of the stage-1 records (as the summary's index shows it, without its
/// closing punctuation), and whether its session is labelled with any lesson.
fn topics(labels: &Labels, copy: &Path, records: &BTreeMap<PathBuf, String>) -> Vec<(String, bool)> {
    let mut topics = Vec::new();
    for session in &labels.session {
        let Some(record) = records.get(&copy.join(&session.path)) else { continue };
        for title in record.lines().filter_map(|l| l.strip_prefix("## Task ")).filter_map(|l| l.split_once(": ")) {
            let topic = title.1.trim().trim_end_matches(['.', '!', '?', ':']).to_string();
            topics.push((topic, !session.lesson.is_empty()));
        }
    }
    topics
}

/// An index line of "What's in Memory" (`- <topic> (<outcome>): <keywords>`): acceptable when
/// it names a task of a session that has lessons, noise when the session has none.
fn index_verdict(line: &str, topics: &[(String, bool)]) -> Verdict {
    let body = line.trim_start().trim_start_matches("- ");
    let useful =
        topics.iter().any(|(topic, has_lessons)| *has_lessons && !topic.is_empty() && body.starts_with(topic.as_str()));
    if useful { Verdict::Acceptable } else { Verdict::Noise }
}

fn summary_verdicts(
    summary: &str,
    labels: &Labels,
    wrong: &[(&Pattern, &Option<String>)],
    secrets: &[&String],
    topics: &[(String, bool)],
) -> Vec<(Verdict, String)> {
    let lessons: Vec<(&Lesson, &Option<String>)> =
        labels.session.iter().flat_map(|s| s.lesson.iter().map(move |l| (l, &s.project))).collect();
    let acceptable: Vec<(&Pattern, &Option<String>)> =
        labels.session.iter().flat_map(|s| s.acceptable.iter().map(move |a| (a, &s.project))).collect();
    // Each judged line with the lessons and acceptable items it holds, to be matched below.
    let mut holdings: Vec<Option<(bool, Vec<String>)>> = Vec::new();
    let mut verdicts = Vec::new();
    let mut in_index = false;
    for line in summary.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            in_index = heading.trim() == "What's in Memory";
        }
        if !line.trim_start().starts_with("- ") {
            continue;
        }
        // (An index line's keywords say what is in memory, no claim a wrong pattern could
        // catch: `exclude-tags` names a session, it does not say to exclude anything.)
        let verdict = if line.contains("CANARY")
            || secrets.iter().any(|s| line.contains(s.as_str()))
            || (!in_index && wrong.iter().any(|(w, p)| holds_in(line, &w.tokens, p)))
        {
            Verdict::Wrong
        } else if in_index {
            // The index says what is in memory, not what was learned: judged by its session.
            index_verdict(line, topics)
        } else {
            let held: BTreeSet<String> =
                lessons.iter().filter(|(l, p)| holds_in(line, &l.tokens, p)).map(|(l, _)| l.id.clone()).collect();
            let accepted: BTreeSet<String> = acceptable
                .iter()
                .enumerate()
                .filter(|(_, (a, p))| holds_in(line, &a.tokens, p))
                .map(|(i, _)| format!("acceptable #{i}"))
                .collect();
            if held.is_empty() && accepted.is_empty() {
                Verdict::Noise
            } else {
                holdings.resize(verdicts.len(), None);
                holdings.push(Some((!held.is_empty(), held.into_iter().chain(accepted).collect())));
                Verdict::Duplicate
            }
        };
        verdicts.push((verdict, line.to_string()));
    }
    holdings.resize(verdicts.len(), None);
    let items: Vec<Option<&[String]>> = holdings.iter().map(|h| h.as_ref().map(|(_, ids)| ids.as_slice())).collect();
    for (line, matched) in one_item_per_line(&items).into_iter().enumerate() {
        if let (true, Some((holds_lesson, _))) = (matched, &holdings[line]) {
            verdicts[line].0 = if *holds_lesson { Verdict::Expected } else { Verdict::Acceptable };
        }
    }
    verdicts
}

/// Which lines can each be given an item of their own (a lesson or an acceptable pattern they
/// hold), earlier lines first: a maximum matching of lines to items. A line left without one
/// says nothing the matched lines do not, a duplicate, whatever order the lines come in.
fn one_item_per_line(items: &[Option<&[String]>]) -> Vec<bool> {
    fn place<'a>(
        line: usize,
        items: &[Option<&'a [String]>],
        owner: &mut BTreeMap<&'a str, usize>,
        tried: &mut BTreeSet<&'a str>,
    ) -> bool {
        for item in items[line].unwrap_or_default() {
            if !tried.insert(item.as_str()) {
                continue;
            }
            let free = match owner.get(item.as_str()).copied() {
                None => true,
                Some(other) => place(other, items, owner, tried),
            };
            if free {
                owner.insert(item.as_str(), line);
                return true;
            }
        }
        false
    }
    let mut owner: BTreeMap<&str, usize> = BTreeMap::new();
    for line in 0..items.len() {
        place(line, items, &mut owner, &mut BTreeSet::new());
    }
    let mut matched = vec![false; items.len()];
    for line in owner.into_values() {
        matched[line] = true;
    }
    matched
}

/// The section heading over each list item of the summary, in order.
fn summary_sections(summary: &str) -> Vec<String> {
    let mut section = String::new();
    let mut sections = Vec::new();
    for line in summary.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            section = heading.trim().to_string();
        }
        if line.trim_start().starts_with("- ") {
            sections.push(section.clone());
        }
    }
    sections
}

/// Secrets and `CANARY` text in any file of the workspace.
fn leaks(home: &Path, secrets: &[&String]) -> Vec<String> {
    let mut found = Vec::new();
    for entry in walkdir::WalkDir::new(home).into_iter().filter_map(Result::ok).filter(|e| e.file_type().is_file()) {
        let bytes = std::fs::read(entry.path()).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        let name = entry.path().strip_prefix(home).unwrap_or(entry.path()).display().to_string();
        if text.contains("CANARY") {
            found.push(format!("{name}: CANARY"));
        }
        found.extend(
            secrets
                .iter()
                .filter(|s| text.contains(s.as_str()))
                .map(|s| format!("{name}: a secret starting {:?}", &s[..s.len().min(6)])),
        );
    }
    found
}

#[cfg(test)]
mod matching {
    use super::one_item_per_line;

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn a_line_that_holds_another_item_is_no_duplicate_whatever_the_order() {
        let (broad, narrow) = (ids(&["feed", "tools", "project"]), ids(&["feed"]));
        assert_eq!(one_item_per_line(&[Some(&broad), Some(&narrow)]), [true, true]);
        assert_eq!(one_item_per_line(&[Some(&narrow), Some(&broad)]), [true, true]);
    }

    #[test]
    fn a_line_with_nothing_of_its_own_is_a_duplicate() {
        let (one, again) = (ids(&["podman"]), ids(&["podman"]));
        assert_eq!(one_item_per_line(&[Some(&one), None, Some(&again)]), [true, false, false]);
    }
}
