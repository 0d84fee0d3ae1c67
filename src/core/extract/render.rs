//! Rendering extracted facts as the stage-1 texts: `rollout_summary` (a readable account of
//! the session, task by task), `raw_memory` (frontmatter plus `### Task` blocks, the input of
//! consolidation) and `rollout_slug`. Deterministic: the same facts give the same bytes.

use std::fmt::Write;
use std::sync::LazyLock;

use jiff::Timestamp;
use regex::Regex;

use super::durability::when_it_applies;
use super::shell;
use super::{Context, Facts, Failure, Fix, Memory, TaskFacts, clip_at_word};
use crate::core::project::{display_key, display_name};
use crate::core::redact::redact;
use crate::core::session::SessionMeta;

/// Render the stage-1 output for `facts`. Every text is redacted once more on the way out.
pub(crate) fn memory(facts: Facts, meta: &SessionMeta, context: &Context) -> Memory {
    let rollout_summary = redact(&rollout_summary(&facts, meta, context)).into_owned();
    let raw_memory = redact(&raw_memory(&facts, meta, context)).into_owned();
    let rollout_slug = slug(facts.tasks.first().map_or("", |t| t.title.as_str()));
    Memory { facts, rollout_summary, raw_memory, rollout_slug }
}

/// A filesystem-safe slug from a title: lowercase words joined by `-`, at most 60 bytes.
pub(crate) fn slug(title: &str) -> String {
    let mut out = String::new();
    for word in title.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).take(8) {
        if out.len() + word.len() + 1 > 60 {
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_ascii_lowercase());
    }
    out
}

/// Inline code, fenced so that backticks inside survive.
pub(crate) fn code(text: &str) -> String {
    let text = one_line(text);
    if text.contains('`') { format!("`` {text} ``") } else { format!("`{text}`") }
}

/// Longest piece of metadata shown (a folder, a branch, a transcript path), in characters.
const META_MAX: usize = 200;

/// Text on one line, for headings, list items and header values: every run of whitespace
/// and control characters (newlines, NUL, escape sequences' ESC) becomes one space. Text from
/// a transcript goes through this wherever it is rendered inside a line, so it can never
/// start a line of its own: no forged heading, no forged citation.
pub(crate) fn one_line(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c.is_control()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// `text` when it is at most `max` characters, else its start, `…` and eight hex digits of
/// the blake3 hash of `whole`: short enough to show, the same for the same value, and apart
/// for two values that only start alike.
pub(crate) fn shortened(text: &str, max: usize, whole: &str) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let hash = blake3::hash(whole.as_bytes()).to_hex();
    let start: String = text.chars().take(max.saturating_sub(10)).collect();
    format!("{}…{}", start.trim_end(), &hash[..8])
}

/// Metadata from a transcript (a folder, a branch, a transcript path) as it is shown: on one
/// line, and shortened when it is long.
pub(crate) fn meta(text: &str) -> String {
    shortened(&one_line(text), META_MAX, text)
}

fn time(ts: Option<Timestamp>) -> String {
    ts.map_or_else(|| "unknown time".to_string(), |t| t.strftime("%Y-%m-%d %H:%M UTC").to_string())
}

fn headline(facts: &Facts) -> String {
    let first = &facts.tasks[0];
    let mut line = format!("{} ({})", first.title, first.outcome.name());
    if facts.tasks.len() > 1 {
        let _ = write!(line, "; {} more task{}", facts.tasks.len() - 1, if facts.tasks.len() == 2 { "" } else { "s" });
    }
    let fixes: usize = facts.tasks.iter().map(|t| t.fixes.iter().filter(|f| !f.work).count()).sum();
    if fixes > 0 {
        let _ = write!(line, "; {fixes} failure{} fixed", if fixes == 1 { "" } else { "s" });
    }
    line
}

/// How a fact from the agent's own closing account is labelled wherever it is shown: the
/// agent's word, not something the session proved.
pub(crate) const ACCOUNT_LABEL: &str = "the agent's closing account says (unverified)";

fn fix_sentence(fix: &Fix, meta: &SessionMeta) -> String {
    fix_lesson_at(fix, Some(meta))
}

/// A failure → fix pair as one sentence; `lines` adds the transcript lines.
pub(crate) fn fix_lesson(fix: &Fix, lines: bool) -> String {
    fix_lesson_at(fix, lines.then(SessionMeta::default).as_ref())
}

/// [`fix_lesson`], citing each step where `meta` places it (its line, or an agent's own ids).
fn fix_lesson_at(fix: &Fix, meta: Option<&SessionMeta>) -> String {
    let at = |line: u64| meta.map_or_else(String::new, |meta| format!(" ({})", meta.place(line)));
    let shown = |command: &str| shown(fix, command);
    let mut s = format!("{} failed", code(&shown(&fix.failure.command)));
    // (What a flaky test expected, or how long it waited, is no lesson: that it passes alone is.)
    if fix.alone {
        let (how, after) = match shell::loop_body(&fix.command) {
            Some(_) => ("ran it alone over and over, with nothing changed", ", and it did not fail every time"),
            None => ("passed alone right after, with nothing changed", ""),
        };
        let (failed_at, ran_at) = (at(fix.failure.line), at(fix.line));
        let _ = write!(s, "{failed_at} -> {} {how}{ran_at}{after}: the test may be flaky", code(&fix.command));
        return s;
    }
    // What a test expected says nothing of a fix that changed no code: its place does.
    let error = if fix.edited.is_empty() { without_expectation(&fix.failure.error) } else { &fix.failure.error };
    if !error.is_empty() {
        let _ = write!(s, " with {}", code(error));
    }
    if fix.attempts > 1 {
        let _ = write!(s, " ({} times)", fix.attempts);
    }
    s.push_str(&at(fix.failure.line));
    for step in &fix.chain {
        let _ = write!(s, "; {} got past it", code(&shown(&step.command)));
        if !step.error.is_empty() {
            let _ = write!(s, " but failed with {}", code(&step.error));
        }
        s.push_str(&at(step.line));
    }
    let mut steps = Vec::new();
    if !fix.edited.is_empty() {
        let set = if fix.settings.is_empty() { String::new() } else { format!(" (set {})", list(&fix.settings, 3)) };
        let edited: Vec<String> = fix.edited.iter().map(|f| without_stamp(f)).collect();
        steps.push(format!("editing {}{set}", list(&edited, 5)));
    }
    if !fix.ran.is_empty() {
        steps.push(format!("running {}", list(&fix.ran, 3)));
    }
    if fix.passed_on_retries() {
        let _ =
            write!(s, " -> {} passed with retries{}; the test may be flaky", code(&shown(&fix.command)), at(fix.line));
        return s;
    }
    let retried = fix.is_plain_retry();
    // Settings added to the same command are the lesson, whatever code the task edited on
    // the way; a step run before it may be what made them work, so it is told instead.
    // (`./gradlew --stop` before `JAVA_HOME=… ./gradlew test` only made sure of a fresh daemon.)
    // With the shell's old value printed (`DOCKER_BUILDKIT=0`), the setting is known to have
    // changed what the job ran with; a restart or a clean on the way, which set nothing, is
    // taken to have changed nothing the setting did not (a restart after a config edit is
    // told: the edit is a step of the fix).
    let set_nothing = |step: &String| !fix.before.is_empty() && shell::only_restarts(step);
    if fix.ran.iter().all(|step| shell::stops_daemons(step) || set_nothing(step))
        && let Some(needs) = fix.needs()
    {
        let _ = write!(s, " -> {} needs {}", code(&shown(&fix.failure.command)), list(&needs.added, 3));
        if !needs.replaced.is_empty() {
            let _ = write!(s, " instead of {}", list(&needs.replaced, 3));
        }
        if !fix.before.is_empty() {
            let _ = write!(s, " (the shell had {})", list(&fix.before, 3));
        }
        let verb = if fix.past { "got past it" } else { "succeeded instead" };
        let _ = write!(s, ": {} {verb}{}", code(&shown(&fix.command)), at(fix.line));
        return s;
    }
    let _ = match (steps.is_empty(), retried) {
        (true, _) if fix.past => write!(s, " -> {} got past it{}", code(&shown(&fix.command)), at(fix.line)),
        (true, true) => write!(s, " -> the same command passed on a plain retry{}; it may be flaky", at(fix.line)),
        (true, false) => write!(s, " -> {} succeeded instead{}", code(&shown(&fix.command)), at(fix.line)),
        (false, _) => {
            let verb = if fix.past { "got past it" } else { "succeeded" };
            write!(s, " -> after {}, {} {verb}{}", steps.join(" and "), code(&shown(&fix.command)), at(fix.line))
        }
    };
    s
}

/// What a fix comes down to, whatever error it got past: the setting a job needed (`go test
/// needs CGO_ENABLED=1`), or else the files it edited, the steps it ran and the command that
/// then worked. What the edits set is no part of it: the same file edited to add another
/// symbol is the same way around.
pub(crate) fn way_around(fix: &Fix) -> String {
    if let Some(needs) = fix.needs() {
        return format!("{} needs {}", shell::classify(&fix.failure.command).family, needs.added.join(" "));
    }
    let edited: Vec<String> = fix.edited.iter().map(|f| without_stamp(f)).collect();
    format!("{} | {} | {}", edited.join(" "), fix.ran.join(" && "), shown(fix, &fix.command))
}

/// `command`, one of `fix`'s, as a lesson tells it: the tests the task picked (`--filter …`)
/// are no part of a lesson about the job, unless picking them is what changed (`-k 'not gpu'`).
fn shown(fix: &Fix, command: &str) -> String {
    let narrowing_changed = fix.failure.command != fix.command
        && shell::without_narrowing(&fix.failure.command) == shell::without_narrowing(&fix.command);
    let command = shell::without_looks_before(command, &fix.failure.error);
    if narrowing_changed { command } else { shell::without_narrowing(&command) }
}

/// A file name without the date a generator stamped it with
/// (`db/migrate/20261128102233_add_refunded_at.rb` → `db/migrate/<timestamp>_add_refunded_at.rb`):
/// a later session writes another file of the kind, never that one.
fn without_stamp(path: &str) -> String {
    let (folder, name) = path.rsplit_once('/').map_or(("", path), |(f, n)| (f, n));
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    let stamped = digits >= 8 && name[digits..].starts_with(['_', '-']);
    match (stamped, folder.is_empty()) {
        (false, _) => path.to_string(),
        (true, true) => format!("<timestamp>{}", &name[digits..]),
        (true, false) => format!("{folder}/<timestamp>{}", &name[digits..]),
    }
}

/// An error line without the values a test expected and got (`tests/mesh_test.cpp:22:
/// mesh.load_teapot: expected … == 6320, got 0` is `tests/mesh_test.cpp:22: mesh.load_teapot`),
/// when what is left still names the place.
fn without_expectation(error: &str) -> &str {
    static EXPECTED: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(
            r"(?i)[:,;]\s*expected\b.{1,200}?\b(?:got|but (?:was|got)|found|received|actual|instead)\b",
        )
    });
    match EXPECTED.find(error) {
        Some(m) if error[..m.start()].split_whitespace().count() >= 2 => error[..m.start()].trim_end(),
        _ => error,
    }
}

fn failure_sentence(failure: &Failure, meta: &SessionMeta) -> String {
    let mut s = unresolved_lesson(failure);
    let _ = write!(s, " ({}) and was not resolved in this session", meta.place(failure.line));
    s
}

/// A failure nothing fixed, as the start of a sentence: the command, its exit, its error.
pub(crate) fn unresolved_lesson(failure: &Failure) -> String {
    let mut s = format!("{} failed", code(&shell::without_looks_before(&failure.command, &failure.error)));
    if let Some(exit) = failure.exit_code {
        let _ = write!(s, " (exit {exit})");
    }
    if !failure.error.is_empty() {
        let _ = write!(s, " with {}", code(&failure.error));
    }
    s
}

fn list(items: &[String], max: usize) -> String {
    let shown: Vec<String> = items.iter().take(max).map(|i| code(i)).collect();
    match items.len().saturating_sub(max) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

fn rollout_summary(facts: &Facts, meta: &SessionMeta, context: &Context) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", one_line(&headline(facts)));
    let _ = write!(out, "Rollout context: {} session", context.agent);
    if let Some(cwd) = &meta.cwd {
        let _ = write!(out, " in {}", self::meta(cwd));
    }
    if let Some(branch) = &meta.git_branch {
        let _ = write!(out, " (branch {})", self::meta(branch));
    }
    let _ = writeln!(
        out,
        ", {} to {}; {} user message{}, {} command{} run, {} failed.",
        time(meta.started),
        time(meta.updated),
        facts.user_messages,
        if facts.user_messages == 1 { "" } else { "s" },
        facts.commands,
        if facts.commands == 1 { "" } else { "s" },
        facts.failed_commands,
    );
    for (index, task) in facts.tasks.iter().enumerate() {
        let _ = writeln!(out, "\n## Task {}: {}\n", index + 1, one_line(&task.title));
        let _ = writeln!(out, "Outcome: {}", task.outcome.name());
        task_sections(&mut out, task, false, meta, &display_name(&context.project));
    }
    out
}

fn task_sections(out: &mut String, task: &TaskFacts, raw: bool, meta: &SessionMeta, project: &str) {
    let heading = |out: &mut String, title: &str| {
        if raw {
            let _ = writeln!(out, "{title}:");
        } else {
            let _ = writeln!(out, "\n{title}:");
        }
    };
    if !task.preferences.is_empty() {
        heading(out, "Preference signals");
        for p in &task.preferences {
            let quote = one_line(&p.text);
            if raw {
                let situation = clip_at_word(&one_line(&task.title), 60);
                let _ = writeln!(
                    out,
                    "- when asked to \"{situation}\", the user said: \"{quote}\" -> {}; {} ({})",
                    p.kind.implication(),
                    when_it_applies(&p.text, project),
                    meta.place(p.line)
                );
            } else {
                let (kind, implication, at) = (p.kind.name(), p.kind.implication(), meta.place(p.line));
                let applies = when_it_applies(&p.text, project);
                let _ = writeln!(out, "- {kind}: \"{quote}\" -> {implication}; {applies} ({at})");
            }
        }
    }
    if !task.taken_back.is_empty() {
        heading(out, "Rules taken back");
        for what in &task.taken_back {
            let _ = writeln!(out, "- the user took back the rule about \"{}\"", one_line(what));
        }
    }
    let work: Vec<&Fix> = task.fixes.iter().filter(|f| f.work).collect();
    if !raw && (task.commands > 0 || !task.files.is_empty() || !work.is_empty()) {
        heading(out, "Key steps");
        if task.commands > 0 {
            let _ = writeln!(
                out,
                "- ran {} command{}, {} failed",
                task.commands,
                if task.commands == 1 { "" } else { "s" },
                task.failed_commands
            );
        }
        if !task.files.is_empty() {
            let _ = writeln!(out, "- edited {}", list(&task.files, 8));
        }
        // The task's own red-to-green work: what happened, not a landmine of the project.
        for fix in &work {
            let _ = writeln!(out, "- worked through: {}", fix_sentence(fix, meta));
        }
    }
    let landmines: Vec<&Fix> = task.fixes.iter().filter(|f| !f.work).collect();
    if !landmines.is_empty() || !task.unresolved.is_empty() {
        heading(out, "Failures and how to do differently");
        for fix in landmines {
            let _ = writeln!(out, "- {}", fix_sentence(fix, meta));
        }
        for failure in &task.unresolved {
            let _ = writeln!(out, "- {}", failure_sentence(failure, meta));
        }
    }
    if !task.verified.is_empty() || !task.observations.is_empty() || (raw && !task.files.is_empty()) {
        heading(out, "Reusable knowledge");
        for v in &task.verified {
            let _ =
                writeln!(out, "- verified {} command: {} ({})", v.kind.name(), code(&v.command), meta.place(v.line));
        }
        for o in &task.observations {
            let _ = writeln!(out, "- {}: {} ({})", ACCOUNT_LABEL, o.text, meta.place(o.line));
        }
        if raw && !task.files.is_empty() {
            let _ = writeln!(out, "- files touched: {}", list(&task.files, 12));
        }
    }
    let references = references(task, meta);
    if !references.is_empty() {
        heading(out, "References");
        for (i, r) in references.iter().enumerate() {
            if raw {
                let _ = writeln!(out, "- {r}");
            } else {
                let _ = writeln!(out, "[{}] {r}", i + 1);
            }
        }
    }
}

/// Verbatim evidence: failed commands with their exact error, and the commands that passed.
fn references(task: &TaskFacts, meta: &SessionMeta) -> Vec<String> {
    let mut refs = Vec::new();
    let failures = task.fixes.iter().map(|f| &f.failure).chain(&task.unresolved);
    for f in failures {
        let exit = f.exit_code.map(|c| format!(" exit {c}")).unwrap_or_default();
        let error = if f.error.is_empty() { String::new() } else { format!(": {}", code(&f.error)) };
        refs.push(format!("{}: {}{exit}{error}", meta.place(f.line), code(&f.command)));
    }
    // (A run that only got past a failure, to one in the code, did not pass.)
    let fixed = task.fixes.iter().filter(|f| !f.past).map(|f| (f.line, &f.command));
    let passed = fixed.chain(task.verified.iter().map(|v| (v.line, &v.command)));
    for (line, command) in passed {
        let reference = format!("{}: {} passed", meta.place(line), code(command));
        if !refs.contains(&reference) {
            refs.push(reference);
        }
    }
    refs
}

fn raw_memory(facts: &Facts, meta: &SessionMeta, context: &Context) -> String {
    let first = &facts.tasks[0];
    let mut out = String::from("---\n");
    let _ = writeln!(out, "description: {}", one_line(&description(facts, meta)));
    let _ = writeln!(out, "task: {}", one_line(&first.title));
    let _ = writeln!(out, "task_group: {}", display_key(&context.project));
    let _ = writeln!(out, "task_outcome: {}", facts.outcome.name());
    let _ = writeln!(out, "cwd: {}", meta.cwd.as_deref().map_or_else(|| "unknown".to_string(), self::meta));
    let _ = writeln!(out, "keywords: {}", facts.keywords.join(", "));
    out.push_str("---\n");
    for (index, task) in facts.tasks.iter().enumerate() {
        let _ = writeln!(out, "### Task {}: {}", index + 1, one_line(&task.title));
        let _ = writeln!(out, "task: {}", one_line(&task.title));
        let _ = writeln!(out, "task_group: {}", display_key(&context.project));
        let _ = writeln!(out, "task_outcome: {}", task.outcome.name());
        task_sections(&mut out, task, true, meta, &display_name(&context.project));
        if index + 1 < facts.tasks.len() {
            out.push('\n');
        }
    }
    out
}

/// One dense line: the first task, its outcome and the top takeaway.
fn description(facts: &Facts, meta: &SessionMeta) -> String {
    let first = &facts.tasks[0];
    let all = || facts.tasks.iter();
    let takeaway = all()
        .flat_map(|t| &t.preferences)
        .min_by_key(|p| (p.kind, p.line))
        .map(|p| format!("the user said \"{}\"", p.text))
        .or_else(|| all().flat_map(|t| &t.fixes).find(|f| !f.work).map(|f| fix_sentence(f, meta)))
        .or_else(|| all().flat_map(|t| &t.verified).next().map(|v| format!("{} works", code(&v.command))))
        .or_else(|| all().flat_map(|t| &t.unresolved).next().map(|f| failure_sentence(f, meta)))
        .unwrap_or_else(|| format!("touched {}", list(&first.files, 3)));
    format!("{} ({}); {}", first.title, first.outcome.name(), clip_at_word(&one_line(&takeaway), 240))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_short_lowercase_and_safe() {
        assert_eq!(slug("Fix the failing `cargo test` in parse.rs!"), "fix-the-failing-cargo-test-in-parse-rs");
        assert_eq!(slug(""), "");
        assert!(slug(&"word ".repeat(40)).len() <= 60);
    }

    #[test]
    fn metadata_stays_on_one_line_and_long_values_stay_apart() {
        assert_eq!(one_line("/w/a\n## Task 9: x\r\u{0}\u{1b}[2J\u{2028}end"), "/w/a ## Task 9: x [2J end");
        let (a, b) = (format!("/w/{}a", "x".repeat(500)), format!("/w/{}b", "x".repeat(500)));
        assert!(meta(&a).chars().count() <= 200 && meta(&a) != meta(&b), "{}", meta(&a));
        assert_eq!(meta(&a), meta(&a.clone()));
        assert_eq!(meta("/w/app"), "/w/app");
    }

    #[test]
    fn a_generated_stamp_is_no_part_of_a_file_name() {
        assert_eq!(without_stamp("db/migrate/20261128102233_add_x.rb"), "db/migrate/<timestamp>_add_x.rb");
        assert_eq!(without_stamp("1700000000-init.sql"), "<timestamp>-init.sql");
        assert_eq!(without_stamp("src/2024_plan.md"), "src/2024_plan.md");
        assert_eq!(without_stamp("src/main.rs"), "src/main.rs");
    }

    fn fixed(error: &str, command: &str, edited: &[&str], settings: &[&str], ran: &[&str]) -> Fix {
        let strings = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Fix {
            failure: Failure {
                command: "cargo test -p api".into(),
                error: error.into(),
                exit_code: Some(101),
                line: 3,
            },
            attempts: 1,
            command: command.into(),
            line: 9,
            edited: strings(edited),
            ran: strings(ran),
            settings: strings(settings),
            chain: Vec::new(),
            before: Vec::new(),
            work: false,
            past: false,
            alone: false,
        }
    }

    #[test]
    fn a_way_around_is_what_was_done_not_what_the_edit_set_nor_the_error() {
        let one = fixed("error: linker `cc` not found", "cargo test -p api", &["Cargo.toml"], &["a = 1"], &[]);
        let two = fixed("error: could not link", "cargo test -p api", &["Cargo.toml"], &["b = 2"], &[]);
        assert_eq!(way_around(&one), way_around(&two));
        let installed =
            fixed("error: linker `cc` not found", "cargo test -p api", &[], &[], &["sudo apt-get install -y gcc"]);
        assert_ne!(way_around(&one), way_around(&installed));
        let setting = fixed("error: x", "CGO_ENABLED=1 cargo test -p api", &[], &[], &[]);
        assert_eq!(way_around(&setting), "cargo test needs CGO_ENABLED=1");
        // Two picks of other tests are two ways.
        let picked = |filter: &str| Fix {
            failure: Failure { command: "cargo test -p api".into(), ..one.failure.clone() },
            command: format!("cargo test -p api --filter {filter}"),
            edited: Vec::new(),
            settings: Vec::new(),
            ..one.clone()
        };
        assert_ne!(way_around(&picked("gpu")), way_around(&picked("net")));
    }

    #[test]
    fn a_daemon_stopped_before_a_setting_leaves_the_setting_the_lesson() {
        let jdk = |ran: &[&str]| Fix {
            failure: Failure { command: "./gradlew test".into(), ..fixed("", "", &[], &[], &[]).failure },
            ..fixed("", "JAVA_HOME=/usr/lib/jvm/java-17 ./gradlew test", &[], &[], ran)
        };
        assert!(fix_lesson(&jdk(&["./gradlew --stop"]), false).contains("needs `JAVA_HOME=/usr/lib/jvm/java-17`"));
        // (A step of another kind may be what made the setting work: it is told.)
        let installed = fix_lesson(&jdk(&["sdk install java 17"]), false);
        assert!(installed.contains("after running `sdk install java 17`"), "{installed}");
        // With the shell's old value printed, a restart on the way set nothing: the setting
        // is the lesson. (Without it, the restart may be what worked.)
        let buildkit = |before: &[&str]| Fix {
            failure: Failure { command: "docker build .".into(), ..fixed("", "", &[], &[], &[]).failure },
            before: before.iter().map(|b| b.to_string()).collect(),
            ..fixed("", "DOCKER_BUILDKIT=1 docker build .", &[], &[], &["sudo systemctl restart docker"])
        };
        let told = fix_lesson(&buildkit(&["DOCKER_BUILDKIT=0"]), false);
        assert!(told.contains("needs `DOCKER_BUILDKIT=1` (the shell had `DOCKER_BUILDKIT=0`)"), "{told}");
        assert!(!told.contains("restart"), "{told}");
        let unknown = fix_lesson(&buildkit(&[]), false);
        assert!(unknown.contains("after running `sudo systemctl restart docker`"), "{unknown}");
        // (An install on the way is told, old value or not.)
        let installed =
            Fix { ran: vec!["sdk install java 17".into()], before: vec!["JAVA_HOME=/opt/jdk-11".into()], ..jdk(&[]) };
        assert!(fix_lesson(&installed, false).contains("after running `sdk install java 17`"));
    }

    #[test]
    fn code_spans_survive_backticks() {
        assert_eq!(code("echo `date`"), "`` echo `date` ``");
        assert_eq!(code("cargo\ntest"), "`cargo test`");
    }
}
