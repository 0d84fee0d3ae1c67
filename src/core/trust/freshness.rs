//! Freshness: checking what a lesson names against today's working tree.
//!
//! A lesson can name paths (`src/cache.rs`), `package.json` scripts (`npm run lint`),
//! Makefile targets (`make docs`), justfile recipes (`just test`), `pyproject.toml` scripts
//! (`uv run serve`) and Cargo aliases (`cargo xtask`). The edge finds the project's working
//! tree on this machine (the newest session's `cwd`, and the git root above it), answers
//! whether each path exists and hands over the few files that declare the rest, read with a
//! bound; nothing is executed. Here it is decided, on those facts alone:
//!
//! - a name found is confirmed, and remembered as seen;
//! - a name missing is stale when it was seen before (by an earlier check), or when the
//!   lesson is a verified command whose script, target or recipe it is (the command ran, so
//!   it was there then); a name never seen is only unknown, so a lesson about what does not
//!   exist (`make docs` failed: no such target) is never called stale for it;
//! - a file that cannot be read whole (too big, not text, not parsed, or a Makefile that
//!   includes others) decides nothing.
//!
//! A lesson with a stale name is stale, with every reason; one with a name confirmed and none
//! stale is confirmed now. Same tree, same facts, same marks: the summary stays byte-stable.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use jiff::Timestamp;
use regex::Regex;
use serde::{Deserialize, Serialize};

use super::filter::verified_command;
use super::lesson::{Lesson, LessonId};

/// At most this many paths are looked up in one consolidation; the rest decide nothing.
pub(crate) const MAX_PATHS: usize = 4096;
/// A declaring file larger than this is not read, and decides nothing.
pub(crate) const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// A file that declares names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Declares {
    PackageJson,
    Makefile,
    Justfile,
    Pyproject,
    CargoConfig,
}

impl Declares {
    /// The file names to try at the tree's root, in the order the tool itself does.
    pub(crate) fn candidates(self) -> &'static [&'static str] {
        match self {
            Declares::PackageJson => &["package.json"],
            Declares::Makefile => &["GNUmakefile", "makefile", "Makefile"],
            Declares::Justfile => &["justfile", ".justfile", "Justfile", "JUSTFILE"],
            Declares::Pyproject => &["pyproject.toml"],
            Declares::CargoConfig => &[".cargo/config.toml", ".cargo/config"],
        }
    }

    /// How reasons and keys name it.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Declares::PackageJson => "package.json",
            Declares::Makefile => "Makefile",
            Declares::Justfile => "justfile",
            Declares::Pyproject => "pyproject.toml",
            Declares::CargoConfig => ".cargo/config.toml",
        }
    }

    /// What it declares, with its article (`a script`, `an alias`).
    fn what(self) -> &'static str {
        match self {
            Declares::PackageJson | Declares::Pyproject => "a script",
            Declares::Makefile => "a target",
            Declares::Justfile => "a recipe",
            Declares::CargoConfig => "an alias",
        }
    }
}

/// Something a lesson names that the tree can confirm or contradict.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Name {
    /// Relative to the tree's root or the session's folder, or absolute inside the tree.
    Path(String),
    Declared(Declares, String),
}

impl Name {
    /// How the name is remembered: `path:src/x.rs`, `package.json:lint`.
    pub(crate) fn key(&self) -> String {
        match self {
            Name::Path(path) => format!("path:{path}"),
            Name::Declared(file, name) => format!("{}:{name}", file.label()),
        }
    }
}

/// What a lesson names, in order.
pub(crate) fn names(text: &str) -> BTreeSet<Name> {
    let mut found = BTreeSet::new();
    for span in code_spans(text) {
        for command in span.split(['|', ';', '&']).map(str::trim).filter(|c| !c.is_empty()) {
            found.extend(declared(command));
        }
    }
    for word in text.split_whitespace() {
        if let Some(path) = path_in(word) {
            found.insert(Name::Path(path));
        }
    }
    found
}

/// The text inside each pair of backticks (a double-backtick span too).
fn code_spans(text: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let ticks = rest[open..].chars().take_while(|c| *c == '`').count();
        let fence = &rest[open..open + ticks];
        let inner = &rest[open + ticks..];
        let Some(close) = inner.find(fence) else { break };
        spans.push(inner[..close].trim());
        rest = &inner[close + ticks..];
    }
    spans
}

/// The script, target, recipe or alias one shell command runs.
fn declared(command: &str) -> Option<Name> {
    let words: Vec<&str> = command
        .split_whitespace()
        .map(|w| w.trim_matches(['"', '\'']))
        .skip_while(|w| is_assignment(w) || ["sudo", "env", "time", "exec", "command"].contains(w))
        .collect();
    let (tool, args) = words.split_first()?;
    let plain: Vec<&str> = args.iter().copied().filter(|a| !a.starts_with('-') && !is_assignment(a)).collect();
    let first = plain.first().copied();
    let second = plain.get(1).copied();
    let named = |file, name: Option<&str>| name.filter(|n| is_name(n)).map(|n| Name::Declared(file, n.to_string()));
    match (*tool, first) {
        ("npm" | "pnpm" | "yarn" | "bun", Some("run" | "run-script")) => named(Declares::PackageJson, second),
        ("npm" | "pnpm" | "yarn" | "bun", Some(script @ ("test" | "start" | "stop" | "restart"))) => {
            named(Declares::PackageJson, Some(script))
        }
        ("make" | "gmake", _)
            if !args.iter().any(|a| a.starts_with("-C") || a.starts_with("-f") || a.starts_with("--")) =>
        {
            named(Declares::Makefile, first.filter(|t| t.parse::<u32>().is_err()))
        }
        ("just", _) if !args.iter().any(|a| a.starts_with('-')) => named(Declares::Justfile, first),
        ("uv" | "poetry" | "pdm" | "hatch", Some("run")) => named(Declares::Pyproject, second),
        ("cargo", Some(sub)) if !CARGO_BUILTINS.contains(&sub) && !sub.starts_with('+') => {
            named(Declares::CargoConfig, Some(sub))
        }
        _ => None,
    }
}

/// Cargo's own commands, which no alias can be.
const CARGO_BUILTINS: &[&str] = &[
    "add",
    "b",
    "bench",
    "build",
    "c",
    "check",
    "clean",
    "clippy",
    "config",
    "d",
    "doc",
    "fetch",
    "fix",
    "fmt",
    "generate-lockfile",
    "help",
    "info",
    "init",
    "install",
    "locate-project",
    "login",
    "logout",
    "metadata",
    "miri",
    "new",
    "owner",
    "package",
    "pkgid",
    "publish",
    "r",
    "remove",
    "report",
    "run",
    "rustc",
    "rustdoc",
    "search",
    "t",
    "test",
    "tree",
    "uninstall",
    "update",
    "vendor",
    "verify-project",
    "version",
    "yank",
];

fn is_assignment(word: &str) -> bool {
    word.split_once('=')
        .is_some_and(|(name, _)| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

fn is_name(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "_-:.".contains(c))
}

/// Folders whose contents a build or an install makes, so their absence says nothing.
const GENERATED: &[&str] = &["node_modules/", "target/", "build/", "dist/", ".venv/", "venv/", "__pycache__/", ".git/"];

static PATH: LazyLock<Regex> = LazyLock::new(|| {
    // Infallible: a fixed pattern.
    Regex::new(r"^(\./|/)?[A-Za-z0-9_][A-Za-z0-9_.\-]*(/[A-Za-z0-9_.\-]+)+/?$").expect("a valid pattern")
});
// Infallible: a fixed pattern.
static LINE_SUFFIX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r":\d+(:\d+)?$").expect("a valid pattern"));

/// The path a word names, when it plainly is one: a slash, and a file name with an extension
/// (or a trailing slash); not a URL, and not inside a folder a build makes.
fn path_in(word: &str) -> Option<String> {
    let word = word.trim_matches(|c: char| "`'\"()[]{}<>,;!?".contains(c)).trim_end_matches(['.', ':']);
    let word = LINE_SUFFIX.replace(word, "");
    if word.contains("://") || word.starts_with("//") || !PATH.is_match(&word) {
        return None;
    }
    let last = word.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let extension = last.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && (1..=8).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_alphanumeric())
    });
    let relative = word.trim_start_matches("./");
    let generated = GENERATED.iter().any(|g| relative.starts_with(g) || relative.contains(&format!("/{g}")));
    let own = relative.starts_with("rollout_summaries/") || relative.starts_with("extensions/ad_hoc/");
    (extension || word.ends_with('/'))
        .then(|| relative.to_string())
        .filter(|_| !generated && !own && !word.contains(".."))
}

/// The questions for one working tree: the paths to look up (relative to its root) and the
/// files that declare names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Probe {
    pub(crate) paths: BTreeSet<String>,
    pub(crate) declaring: BTreeSet<Declares>,
}

/// A declaring file as the edge found it at a tree's root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found {
    Missing,
    /// Too big, not UTF-8, or unreadable: it decides nothing.
    Unreadable,
    Text {
        name: String,
        text: String,
    },
}

/// The answers for one working tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    /// Each path asked for (relative to the root): whether it is there.
    pub(crate) paths: BTreeMap<String, bool>,
    pub(crate) files: BTreeMap<Declares, Found>,
}

/// Where a lesson is checked: the root of its tree, and the session's folder below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) root: String,
    /// The session's folder relative to the root (empty: the root itself).
    pub(crate) below: String,
}

/// The folders (session `cwd`s) whose working tree the edge should find, newest session
/// first for each lesson.
pub(crate) fn folders(lessons: &[Lesson]) -> BTreeSet<String> {
    lessons
        .iter()
        .filter(|l| !names(&l.text).is_empty())
        .flat_map(|l| l.sessions.iter().filter_map(|s| s.cwd.clone()))
        .collect()
}

/// Where each lesson is checked: the tree of its newest session whose folder is on this
/// machine (`roots`: folder → its tree's root, for the folders found).
pub(crate) fn places(lessons: &[Lesson], roots: &BTreeMap<String, String>) -> BTreeMap<LessonId, Place> {
    let mut out = BTreeMap::new();
    for lesson in lessons {
        let mut sessions: Vec<_> = lesson.sessions.iter().collect();
        sessions.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then_with(|| a.session_id.cmp(&b.session_id)));
        let found = sessions.iter().find_map(|s| {
            let cwd = s.cwd.as_deref()?;
            let root = roots.get(cwd)?;
            let below = cwd.strip_prefix(root.as_str())?.trim_matches('/').to_string();
            Some(Place { root: root.clone(), below })
        });
        if let Some(place) = found {
            out.insert(lesson.id.clone(), place);
        }
    }
    out
}

/// A path as asked of the tree (relative to the root): an absolute one inside the tree, or
/// a relative one from the root and from the session's folder.
fn asked(path: &str, place: &Place) -> Vec<String> {
    if let Some(inside) = path.strip_prefix(&format!("{}/", place.root.trim_end_matches('/'))) {
        return vec![inside.to_string()];
    }
    if path.starts_with('/') {
        return Vec::new();
    }
    let mut out = vec![path.to_string()];
    if !place.below.is_empty() {
        out.push(format!("{}/{path}", place.below));
    }
    out
}

/// What to ask of each tree (by root) for `lessons` placed by `places`; at most
/// [`MAX_PATHS`] paths in all, taken in order.
pub(crate) fn probes(lessons: &[Lesson], places: &BTreeMap<LessonId, Place>) -> BTreeMap<String, Probe> {
    let mut out: BTreeMap<String, Probe> = BTreeMap::new();
    let mut budget = MAX_PATHS;
    for lesson in lessons {
        let Some(place) = places.get(&lesson.id) else { continue };
        let probe = out.entry(place.root.clone()).or_default();
        for name in names(&lesson.text) {
            match name {
                Name::Path(path) => {
                    for p in asked(&path, place) {
                        if budget > 0 && probe.paths.insert(p) {
                            budget -= 1;
                        }
                    }
                }
                Name::Declared(file, _) => {
                    probe.declaring.insert(file);
                }
            }
        }
    }
    out
}

/// What handbook remembers of a lesson's checks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Check {
    /// The last time every name it makes was found, and at least one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) confirmed_at: Option<Timestamp>,
    /// Each name (by [`Name::key`]) and when it was last found.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) seen: BTreeMap<String, Timestamp>,
    /// Why it is stale now; empty when it is not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) stale: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stale_since: Option<Timestamp>,
}

impl Check {
    /// Why it is stale, in one phrase, when it is.
    pub(crate) fn reason(&self) -> Option<String> {
        (!self.stale.is_empty()).then(|| self.stale.join("; "))
    }
}

/// Whether a name is in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    Present,
    Absent,
    Unknown,
}

/// Judge every placed lesson at `now` on the trees' `facts` (by root), given the checks
/// remembered from before; the checks to remember now. A lesson not placed (its tree is not
/// on this machine) keeps what was known of it, but is not stale.
pub(crate) fn judge(
    lessons: &[Lesson],
    places: &BTreeMap<LessonId, Place>,
    facts: &BTreeMap<String, Facts>,
    before: &BTreeMap<LessonId, Check>,
    now: Timestamp,
) -> BTreeMap<LessonId, Check> {
    let mut out = BTreeMap::new();
    for lesson in lessons {
        let earlier = before.get(&lesson.id).cloned().unwrap_or_default();
        let judged = match (places.get(&lesson.id), places.get(&lesson.id).and_then(|p| facts.get(&p.root))) {
            (Some(place), Some(tree)) => judge_one(lesson, place, tree, earlier, now),
            _ => Check { stale: Vec::new(), stale_since: None, ..earlier },
        };
        if judged != Check::default() {
            out.insert(lesson.id.clone(), judged);
        }
    }
    out
}

fn judge_one(lesson: &Lesson, place: &Place, tree: &Facts, mut check: Check, now: Timestamp) -> Check {
    let verified = verified_command(lesson).is_some();
    let (mut found, mut stale) = (false, Vec::new());
    for name in names(&lesson.text) {
        let key = name.key();
        match seen(&name, place, tree) {
            Seen::Present => {
                found = true;
                check.seen.insert(key, now);
            }
            Seen::Absent if check.seen.contains_key(&key) || (verified && matches!(name, Name::Declared(..))) => {
                stale.push(reason(&name));
            }
            Seen::Absent | Seen::Unknown => {}
        }
    }
    if found && stale.is_empty() {
        check.confirmed_at = Some(now);
    }
    check.stale_since = match (stale.is_empty(), check.stale_since) {
        (true, _) => None,
        (false, Some(since)) => Some(since),
        (false, None) => Some(now),
    };
    check.stale = stale;
    check
}

fn reason(name: &Name) -> String {
    match name {
        Name::Path(path) => format!("`{path}` no longer exists"),
        Name::Declared(file, name) => format!("`{name}` is no longer {} in {}", file.what(), file.label()),
    }
}

fn seen(name: &Name, place: &Place, tree: &Facts) -> Seen {
    match name {
        Name::Path(path) => {
            let answers: Vec<Option<&bool>> = asked(path, place).iter().map(|p| tree.paths.get(p)).collect();
            if answers.contains(&Some(&true)) {
                Seen::Present
            } else if !answers.is_empty() && answers.iter().all(|a| *a == Some(&false)) {
                Seen::Absent
            } else {
                Seen::Unknown
            }
        }
        Name::Declared(file, name) => match tree.files.get(file) {
            None | Some(Found::Unreadable) => Seen::Unknown,
            Some(Found::Missing) => Seen::Absent,
            Some(Found::Text { text, .. }) => match declared_names(*file, text) {
                Some((names, _)) if names.contains(name) => Seen::Present,
                Some((_, true)) => Seen::Absent,
                _ => Seen::Unknown,
            },
        },
    }
}

/// The names a declaring file declares, and whether that is all of them (a Makefile that
/// includes others, or makes targets by pattern, may declare more); `None` when it cannot
/// be read.
pub(crate) fn declared_names(file: Declares, text: &str) -> Option<(BTreeSet<String>, bool)> {
    match file {
        Declares::PackageJson => {
            let value: serde_json::Value = serde_json::from_str(text).ok()?;
            let scripts = value.get("scripts").and_then(|s| s.as_object());
            Some((scripts.map(|s| s.keys().cloned().collect()).unwrap_or_default(), true))
        }
        Declares::Makefile => Some(make_targets(text)),
        Declares::Justfile => Some(just_recipes(text)),
        Declares::Pyproject => {
            let value: toml::Table = text.parse().ok()?;
            let tables = [&["project", "scripts"][..], &["tool", "poetry", "scripts"], &["tool", "pdm", "scripts"]];
            let names = tables.iter().filter_map(|path| toml_table(&value, path)).flat_map(|t| t.keys().cloned());
            Some((names.collect(), true))
        }
        Declares::CargoConfig => {
            let value: toml::Table = text.parse().ok()?;
            Some((toml_table(&value, &["alias"]).map(|t| t.keys().cloned().collect()).unwrap_or_default(), true))
        }
    }
}

fn toml_table<'a>(value: &'a toml::Table, path: &[&str]) -> Option<&'a toml::Table> {
    let (first, rest) = path.split_first()?;
    let table = value.get(*first)?.as_table()?;
    if rest.is_empty() { Some(table) } else { toml_table(table, rest) }
}

fn make_targets(text: &str) -> (BTreeSet<String>, bool) {
    let mut targets = BTreeSet::new();
    let mut complete = true;
    for line in text.lines().filter(|l| !l.starts_with(['\t', ' ', '#'])) {
        let first = line.split_whitespace().next().unwrap_or("");
        if ["include", "-include", "sinclude"].contains(&first) {
            complete = false;
            continue;
        }
        let Some((head, tail)) = line.split_once(':') else { continue };
        if head.contains('=') || tail.starts_with('=') || tail.starts_with(":=") {
            continue;
        }
        for target in head.split_whitespace().filter(|t| !t.starts_with('.')) {
            if target.contains('%') || target.contains('$') {
                complete = false;
            } else {
                targets.insert(target.to_string());
            }
        }
        if head.trim() == ".PHONY" {
            targets.extend(tail.split_whitespace().map(str::to_string));
        }
    }
    (targets, complete)
}

fn just_recipes(text: &str) -> (BTreeSet<String>, bool) {
    let mut recipes = BTreeSet::new();
    let mut complete = true;
    for line in text.lines().filter(|l| !l.starts_with([' ', '\t', '#', '['])) {
        let first = line.split_whitespace().next().unwrap_or("");
        if ["import", "mod", "import?", "mod?"].contains(&first) {
            complete = false;
            continue;
        }
        if first == "alias" {
            if let Some(alias) = line.split_whitespace().nth(1) {
                recipes.insert(alias.to_string());
            }
            continue;
        }
        let Some((head, tail)) = line.split_once(':') else { continue };
        if tail.starts_with('=') || ["set", "export"].contains(&first) {
            continue;
        }
        if let Some(name) = head.split_whitespace().next().map(|n| n.trim_start_matches('@')) {
            recipes.insert(name.to_string());
        }
    }
    (recipes, complete)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::trust::lesson::lessons;

    fn named(text: &str) -> Vec<String> {
        names(text).iter().map(Name::key).collect()
    }

    #[test]
    fn a_lesson_names_paths_scripts_targets_recipes_and_aliases() {
        assert_eq!(named("verified lint command: `npm run lint`"), ["package.json:lint"]);
        assert_eq!(named("Always run `cargo bench` after a change to src/cache.rs."), ["path:src/cache.rs"]);
        assert_eq!(
            named("`make docs` failed with `make: *** No rule` -> `just test && uv run serve --port 1`"),
            ["Makefile:docs", "justfile:test", "pyproject.toml:serve"]
        );
        assert_eq!(
            named("run `FOO=1 pnpm test` then `cargo xtask dist`"),
            ["package.json:test", ".cargo/config.toml:xtask"]
        );
        assert_eq!(named("`cargo test` and `make -C sub all` and `make -j4`"), Vec::<String>::new());
        assert_eq!(named("see `src/main.rs:12:5` and ./scripts/gen.py"), ["path:scripts/gen.py", "path:src/main.rs"]);
        for not_a_path in ["and/or", "https://example.com/a.html", "node_modules/x/index.js", "1/2", "../up.rs"] {
            assert!(named(not_a_path).is_empty(), "{not_a_path}");
        }
    }

    #[test]
    fn declaring_files_are_read_for_their_names() {
        let (scripts, _) = declared_names(Declares::PackageJson, r#"{"scripts": {"lint": "eslint ."}}"#).unwrap();
        assert!(scripts.contains("lint"));
        let (targets, complete) =
            declared_names(Declares::Makefile, "VAR := 1\n.PHONY: docs\nbuild test: deps\n\tcc\n").unwrap();
        assert_eq!(targets.into_iter().collect::<Vec<_>>(), ["build", "docs", "test"]);
        assert!(complete);
        assert!(!declared_names(Declares::Makefile, "include rules.mk\n").unwrap().1);
        assert!(!declared_names(Declares::Makefile, "%.o: %.c\n").unwrap().1);
        let (recipes, complete) =
            declared_names(Declares::Justfile, "set shell := [\"bash\"]\n@test arg='x':\n  cargo t\nalias t := test\n")
                .unwrap();
        assert_eq!(recipes.into_iter().collect::<Vec<_>>(), ["t", "test"]);
        assert!(complete);
        let (py, _) = declared_names(Declares::Pyproject, "[project.scripts]\nserve = \"app:main\"\n").unwrap();
        assert!(py.contains("serve"));
        let (aliases, _) = declared_names(Declares::CargoConfig, "[alias]\nxtask = \"run -p xtask --\"\n").unwrap();
        assert!(aliases.contains("xtask"));
        assert!(declared_names(Declares::PackageJson, "{not json").is_none());
    }

    #[test]
    fn a_stale_reason_reads_as_english() {
        let reasons: Vec<String> = [Declares::CargoConfig, Declares::Makefile, Declares::PackageJson]
            .into_iter()
            .map(|file| reason(&Name::Declared(file, "x".to_string())))
            .collect();
        assert_eq!(
            reasons,
            [
                "`x` is no longer an alias in .cargo/config.toml",
                "`x` is no longer a target in Makefile",
                "`x` is no longer a script in package.json"
            ]
        );
    }

    const MEMORY: &str = "# Task Group: /w/app
scope: x
applies_to: x

## Task 1: t (success)

### rollout_summary_files

- rollout_summaries/a.md (cwd=/w/app/sub, rollout_path=/t/a.jsonl, updated_at=2026-11-22T10:00:00Z, session_id=a)

## User preferences

- Always edit src/widget.ts with care. (preference; 1 session) [Task 1]
- Never run `make docs` by hand. (preference; 1 session) [Task 1]

## Reusable knowledge

- verified lint command: `npm run lint` (1 session) [Task 1]
";

    fn tree(widget: bool, lint: bool) -> BTreeMap<String, Facts> {
        let scripts = if lint { r#"{"scripts":{"lint":"x"}}"# } else { r#"{"scripts":{}}"# };
        let facts = Facts {
            paths: BTreeMap::from([("src/widget.ts".into(), false), ("sub/src/widget.ts".into(), widget)]),
            files: BTreeMap::from([
                (Declares::PackageJson, Found::Text { name: "package.json".into(), text: scripts.into() }),
                (Declares::Makefile, Found::Text { name: "Makefile".into(), text: "build:\n".into() }),
            ]),
        };
        BTreeMap::from([("/w/app".to_string(), facts)])
    }

    #[test]
    fn a_name_seen_before_and_gone_now_is_stale_and_back_when_restored() {
        let found = lessons(MEMORY);
        assert_eq!(folders(&found), BTreeSet::from(["/w/app/sub".to_string()]));
        let places = places(&found, &BTreeMap::from([("/w/app/sub".to_string(), "/w/app".to_string())]));
        assert_eq!(places.len(), 3);
        let probes = probes(&found, &places);
        assert_eq!(probes["/w/app"].paths, BTreeSet::from(["src/widget.ts".into(), "sub/src/widget.ts".into()]));
        let t = |d: u32| -> Timestamp { format!("2026-12-{d:02}T00:00:00Z").parse().unwrap() };
        let first = judge(&found, &places, &tree(true, true), &BTreeMap::new(), t(1));
        let stale = |checks: &BTreeMap<LessonId, Check>| -> Vec<String> {
            let mut reasons: Vec<String> = checks.values().filter_map(Check::reason).collect();
            reasons.sort();
            reasons
        };
        assert!(stale(&first).is_empty());
        assert_eq!(first[&found[0].id].confirmed_at, Some(t(1)));
        assert!(
            !first.contains_key(&found[1].id) || first[&found[1].id].confirmed_at.is_none(),
            "docs was never there"
        );
        let second = judge(&found, &places, &tree(false, false), &first, t(2));
        assert_eq!(
            stale(&second),
            ["`lint` is no longer a script in package.json", "`src/widget.ts` no longer exists"]
        );
        assert_eq!(second[&found[0].id].confirmed_at, Some(t(1)), "confirmed when last found");
        let third = judge(&found, &places, &tree(true, true), &second, t(3));
        assert!(stale(&third).is_empty());
        assert_eq!(third[&found[2].id].confirmed_at, Some(t(3)));
        // A verified command's script was there when it ran: gone now, it is stale at once.
        let fresh = judge(&found, &places, &tree(true, false), &BTreeMap::new(), t(4));
        assert_eq!(stale(&fresh), ["`lint` is no longer a script in package.json"]);
        // The same tree, the same judgement.
        assert_eq!(judge(&found, &places, &tree(false, false), &first, t(2)), second);
        // No tree on this machine: nothing is stale, and what was seen is kept.
        let away = judge(&found, &BTreeMap::new(), &BTreeMap::new(), &second, t(5));
        assert!(stale(&away).is_empty() && away[&found[0].id].seen.contains_key("path:src/widget.ts"));
    }
}
