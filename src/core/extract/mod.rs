//! The built-in extractor: turns one filtered, redacted session into durable facts, or
//! decides that nothing in it is worth keeping (a no-op).
//!
//! It reads events as they stream by and keeps only bounded state: tasks (the user's
//! substantive requests), preference signals from the user's own words, commands with their
//! exit status, failure → fix pairs, errors left unresolved and files touched. Every fact keeps
//! the transcript line it came from.

pub(crate) mod account;
pub(crate) mod durability;
pub(crate) mod errors;
pub(crate) mod progress;
pub(crate) mod render;
pub(crate) mod settings;
pub(crate) mod shell;
pub(crate) mod signals;
pub(crate) mod soft;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::core::injection::looks_like_instruction;
use crate::core::redact::{looks_like_token, redact};
use crate::core::session::{Event, EventKind, SessionMeta, ToolCall, ToolResult};
use shell::{CommandKind, classify};
use signals::{Feedback, SignalKind};

/// Bumped when extraction changes what it keeps: files settled by an older extractor are
/// read again.
pub(crate) const EXTRACTOR_VERSION: u32 = 8;

/// Tasks kept per session; later requests join the last one.
const MAX_TASKS: usize = 12;
/// Facts of each kind kept per task.
const MAX_FACTS: usize = 16;
/// The most settings one look at the environment records (`env` prints every one).
const MAX_PRINTED: usize = 200;
/// Files listed per task.
const MAX_FILES: usize = 40;
/// Calls waiting for their result before the oldest are forgotten.
const MAX_PENDING: usize = 4096;
/// Keywords kept per session.
const MAX_KEYWORDS: usize = 10;
/// Longest task title, in bytes.
const MAX_TITLE: usize = 120;
/// Distinct sessions a session's replies can cite that are counted.
const MAX_CITED: usize = 256;
/// Later failures of one job remembered, each with its own error.
const MAX_CHAIN: usize = 3;
/// Lines of a failure's output remembered to tell the same trouble met again.
const MAX_LINE_PRINTS: usize = 400;
/// And of its last lines, kept as well.
const MAX_ENDING_PRINTS: usize = 40;
/// Commands remembered as run between a failure and its fix.
const MAX_STEPS_BETWEEN: usize = 4;
/// Longest command kept, in bytes.
const MAX_COMMAND: usize = 240;
/// Instruction-like passages of tool output remembered per session.
const MAX_PASSAGES: usize = 32;
/// Lines of a passage: the instruction-like line, a few before it and more after it.
const PASSAGE_LINES_BEFORE: usize = 2;
const PASSAGE_LINES: usize = 8;
/// Words of an instruction that point at the lines before it.
static POINTS_BACK: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    crate::core::patterns::regex(
        r"(?i)\b(?:above|previous (?:lines?|commands?|steps?)|preceding|before this|that command|those commands|the last line)\b",
    )
});
/// Longest passage kept, in bytes.
const MAX_PASSAGE: usize = 2048;
/// Output searched for instructions from either end, in bytes: an agent sees no more of a
/// long output than its ends either (harnesses cut the middle out), and the search is slow
/// on text that is not ASCII.
const INSTRUCTION_WINDOW: usize = 2 * 1024;
/// Bytes at each end of a failed command's output searched for the places it points at.
const PLACES_WINDOW: usize = 8 * 1024;
/// Places kept from each end of a failed command's output.
const MAX_PLACES: usize = 16;
/// Most names coined by the session's code that are remembered.
const MAX_COINED: usize = 2048;
/// Edits remembered per session, to know one undone.
const MAX_EDIT_PRINTS: usize = 1024;
/// Shortest part of a command line looked for in a passage: shorter ones (`make`, `ls -a`)
/// name no particular command.
const MIN_PART: usize = 6;

/// How a task (or a session) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Outcome {
    Success,
    Partial,
    Fail,
    #[default]
    Uncertain,
}

impl Outcome {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Partial => "partial",
            Outcome::Fail => "fail",
            Outcome::Uncertain => "uncertain",
        }
    }
}

/// Something the user said that a future session should honour.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Signal {
    pub(crate) kind: SignalKind,
    /// The user's sentence, near-verbatim (redacted).
    pub(crate) text: String,
    pub(crate) line: u64,
}

/// A command that did its job (exit status 0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Verified {
    pub(crate) command: String,
    pub(crate) kind: CommandKind,
    pub(crate) line: u64,
}

/// A command that failed, with the line of its output that says why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Failure {
    pub(crate) command: String,
    pub(crate) error: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) exit_code: Option<i64>,
    pub(crate) line: u64,
}

/// A failure and what made the same job succeed later: the landmine and the way around it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Fix {
    pub(crate) failure: Failure,
    /// How many times the job failed before it succeeded.
    pub(crate) attempts: u32,
    /// The command that then succeeded.
    pub(crate) command: String,
    pub(crate) line: u64,
    /// Files edited between the failure and the success.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) edited: Vec<String>,
    /// Other commands that succeeded in between (an install, a config change).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) ran: Vec<String>,
    /// The setting lines the edits of settings files in between wrote (`MAILER_DSN=null://null`),
    /// and, when the fix edited one file, the lines its one-line edits changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) settings: Vec<String>,
    /// Later failures of the same job with another error: how far each attempt got.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) chain: Vec<Failure>,
    /// Values the shell had for the settings the fix added (`PGHOST=localhost`), where the
    /// session printed them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) before: Vec<String>,
    /// The task's own red-to-green work (a failing test made to pass by editing the code
    /// under work): kept in the record of the session, never a lesson of the project.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) work: bool,
    /// The command got past the failure only as far as a failure in the code, which the
    /// task or the rerun below answered (`bazel test //...` past `No space left on device`,
    /// to a test that timed out).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) past: bool,
    /// The failed test passed when run alone right after, with nothing changed: flaky.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) alone: bool,
}

impl Fix {
    /// `failure` got past by `command` at `line`, with nothing edited or run on the way.
    pub(crate) fn new(failure: Failure, command: String, line: u64) -> Fix {
        Fix {
            failure,
            attempts: 1,
            command,
            line,
            edited: Vec::new(),
            ran: Vec::new(),
            settings: Vec::new(),
            chain: Vec::new(),
            before: Vec::new(),
            work: false,
            past: false,
            alone: false,
        }
    }

    /// What the command that succeeded added to the one that failed, when it is the same
    /// command with settings or arguments added or swapped. (Not when a file other than the
    /// code under work was edited on the way: `fpm.toml` may be what made it pass.)
    pub(crate) fn needs(&self) -> Option<progress::Needs> {
        if !self.edited.iter().all(|f| progress::is_source(f)) {
            return None;
        }
        progress::needs(&self.failure.command, &self.command)
    }

    /// True when the same command passed again with nothing done in between: a flaky step
    /// or a blip, which says nothing a later session could act on.
    pub(crate) fn is_plain_retry(&self) -> bool {
        // (Another seed or order, `-shuffle=1733738402` for `-shuffle=on`, runs the same tests.)
        let plain = |command: &str| shell::as_rerun(&shell::without_output_filters(command));
        self.edited.is_empty() && self.ran.is_empty() && plain(&self.command) == plain(&self.failure.command)
    }

    /// True when the command passed once told to retry failed tests (`--retries 3`), with no
    /// code edited: the failure was a flaky test's, whatever else was run to look at it.
    pub(crate) fn passed_on_retries(&self) -> bool {
        let (failed, passed) =
            (shell::without_output_filters(&self.failure.command), shell::without_output_filters(&self.command));
        self.edited.is_empty() && failed != passed && shell::without_retries(&failed) == shell::without_retries(&passed)
    }
}

/// A sentence of the agent's closing account that explains a cause or an anomaly of
/// something the session ran or touched: the lowest-trust evidence there is, labelled so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Observation {
    pub(crate) text: String,
    pub(crate) line: u64,
}

/// What one task of a session taught.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TaskFacts {
    pub(crate) title: String,
    pub(crate) line: u64,
    pub(crate) outcome: Outcome,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) preferences: Vec<Signal>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) verified: Vec<Verified>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) fixes: Vec<Fix>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) unresolved: Vec<Failure>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) files: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) observations: Vec<Observation>,
    /// Rules the user took back, by the words that name them ("dependency freeze"): a rule
    /// of an earlier session that they name no longer holds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) taken_back: Vec<String>,
    pub(crate) commands: u32,
    pub(crate) failed_commands: u32,
}

impl TaskFacts {
    /// A task with no facts yet.
    pub(crate) fn new(title: String, line: u64) -> TaskFacts {
        TaskFacts {
            title,
            line,
            outcome: Outcome::Uncertain,
            preferences: Vec::new(),
            verified: Vec::new(),
            fixes: Vec::new(),
            unresolved: Vec::new(),
            files: Vec::new(),
            observations: Vec::new(),
            taken_back: Vec::new(),
            commands: 0,
            failed_commands: 0,
        }
    }

    /// True when the task holds anything a future session could use. Files touched alone
    /// are not a lesson, nor is the task's own red-to-green work, nor one default command
    /// (`cargo test`, `npm test`) that passed in a task where nothing failed.
    pub(crate) fn has_lessons(&self) -> bool {
        // (`python3 -c 'print(1.5 * 1024**3)'` worked a sum out; it says nothing of a project.)
        let verified: Vec<&Verified> = self.verified.iter().filter(|v| !shell::is_inline_eval(&v.command)).collect();
        let telling_commands = match verified.as_slice() {
            [] => false,
            [only] => self.failed_commands > 0 || !shell::is_default_command(&only.command),
            _ => true,
        };
        !self.preferences.is_empty()
            || telling_commands
            || self.fixes.iter().any(|f| !f.work)
            || !self.unresolved.is_empty()
            || !self.observations.is_empty()
            || !self.taken_back.is_empty()
    }
}

/// Everything the built-in extractor learned from a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Facts {
    pub(crate) tasks: Vec<TaskFacts>,
    pub(crate) keywords: Vec<String>,
    pub(crate) outcome: Outcome,
    pub(crate) user_messages: u32,
    pub(crate) commands: u32,
    pub(crate) failed_commands: u32,
}

/// The stage-1 output of one session, in the shapes of the reference layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Memory {
    pub(crate) facts: Facts,
    pub(crate) rollout_summary: String,
    pub(crate) raw_memory: String,
    pub(crate) rollout_slug: String,
}

/// What extraction made of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Extraction {
    /// Nothing reusable: the session leaves no trace.
    NoOp,
    Memory(Box<Memory>),
}

/// What the extractor is told about the session besides its events.
#[derive(Debug, Clone, Default)]
pub(crate) struct Context {
    /// The agent name, for the summary's context line.
    pub(crate) agent: String,
    /// Project key (git remote, repository root or cwd).
    pub(crate) project: String,
}

struct PendingCall {
    /// Run by a hijacked agent (see [`Extractor::is_untrusted`]): never a lesson.
    untrusted: bool,
    /// The variable the command prints (`echo $PGHOST`), if that is all it does.
    prints: Option<String>,
    command: String,
    kind: CommandKind,
    family: String,
    /// The family its classification gave, when `family` is a failed job it runs again
    /// after an install ([`Extractor::family_of`]).
    own_family: Option<String>,
    line: u64,
}

/// The fix of `open` by `command`, a run that got past its error with settings added,
/// whatever it met next. Of the steps run on the way, only installs and settings count.
/// With `past`, the run got only as far as a failure in the code: every step run on the
/// way counts, and of the files edited, the settings files only (the code and its fixtures
/// are the task's).
fn fix_past(mut open: OpenFailure, command: &str, line: u64, past: bool, printed: &BTreeMap<String, String>) -> Fix {
    if past {
        open.edited.retain(|f| settings::is_settings_file(f));
    }
    let ran = open.ran.into_iter().filter(|step| past || is_a_way_step(step));
    let ran = the_way(&open.failure, ran.collect(), command);
    let mut fix = Fix {
        failure: open.failure,
        attempts: open.attempts,
        command: command.to_string(),
        line,
        edited: open.edited,
        ran,
        settings: open.settings,
        chain: open.chain,
        before: Vec::new(),
        work: false,
        past,
        alone: false,
    };
    fix.before = before_values(&fix, printed);
    fix
}

/// The fix of `open` by the last link of its chain, `link`, which the task's own edits then
/// took further ([`OpenFailure::take_own_link`]): the link's line got past the failure. It is
/// told by its job, past the steps it ran first, when those are told as the way; otherwise
/// whole (`meson setup build --buildtype=debugoptimized` before `meson test` is no step of
/// its own).
fn fix_past_own_link(open: OpenFailure, link: Failure, printed: &BTreeMap<String, String>) -> Fix {
    let job = shell::job_line_for(&link.command, &open.failure.command);
    let told = shell::steps_of(&link.command).into_iter().all(|step| {
        let head = step.split(" | ").next().unwrap_or(step);
        open.ran.iter().any(|r| r == step) || shell::words(&shell::without_output_filters(head)) == shell::words(&job)
    });
    let command = if !told {
        link.command.clone()
    } else if shell::words(&job) == shell::words(&open.failure.command) {
        open.failure.command.clone()
    } else {
        job
    };
    fix_past(open, &command, link.line, true, printed)
}

/// The steps `ran` on the way past a failure, with those `tried` that met its error again
/// and still made part of the way: only beside steps that got past it (`make tools`, then
/// `export PATH=…` that let `make proto` find what it installed). Alone they got past
/// nothing: a run that did more than the failed job got past it by what it added (`ssh-add`
/// that met `Permission denied (publickey)` again, then `DEPLOY_USER=deploy make deploy`).
/// Never one that only cleared a cache or took files away, nor a restart: nothing later
/// needed it; nor one naming no package of its own that a later step of the same program
/// and kind did instead (`bundle install`, then `bundle add webrick`; not `apt-get install
/// libssl-dev`, then `apt-get install pkg-config`).
fn with_steps_tried(tried: Vec<String>, ran: Vec<String>) -> Vec<String> {
    if tried.is_empty() || ran.is_empty() {
        return ran;
    }
    let done_instead = |step: &String| {
        let (kind, program) = (classify(step).kind, shell::program_of(step));
        shell::names_no_package(step)
            && ran.iter().any(|later| classify(later).kind == kind && shell::program_of(later) == program)
    };
    let tried = tried
        .into_iter()
        .filter(|step| !shell::only_restarts(step) && !shell::only_removes(step) && !done_instead(step));
    let mut all = shell::without_clears(tried.collect());
    all.extend(ran.into_iter().filter(|step| !all.contains(step)).collect::<Vec<_>>());
    all
}

/// `command` without the flags and settings that met the same error when added to the job
/// `failed` ran (`no_help`).
fn without_no_help(no_help: &[(String, String)], failed: &str, command: &str) -> String {
    let family = classify(failed).family;
    no_help
        .iter()
        .filter(|(f, _)| *f == family)
        .fold(command.to_string(), |left, (_, group)| shell::without_group(&left, group))
}

/// Of the steps `ran` on the way past `failure`, those that got past it: not one a later step
/// did over with more, and of a refused connection that a step then started a service for,
/// of the steps before it only what installed or set something (clearing a cache on the way
/// got past nothing).
/// (Of a job run from another install of its program, `opam exec --switch=. -- dune build
/// @runtest` for `dune build @runtest`, that install is the way: a package index fetched
/// again for no install, a cache cleared or a look on the way got past nothing.)
fn the_way(failure: &Failure, ran: Vec<String>, fixed: &str) -> Vec<String> {
    let mut ran = shell::without_superseded(shell::without_set_back(ran));
    // (Not of a refused connection, which a service started may have got past; and an index
    // fetched before an install is part of it: `apt-get update`, then `apt-get install`.)
    if shell::runs_another_install_in(&failure.command, fixed) && !progress::is_refused(&failure.error) {
        let installs_after = |i: usize| {
            ran[i + 1..].iter().any(|step| classify(step).kind == CommandKind::Install && !shell::refreshes_only(step))
        };
        ran = (0..ran.len())
            .filter(|&i| !shell::refreshes_only(&ran[i]) || installs_after(i))
            .map(|i| ran[i].clone())
            .collect();
    }
    let starts = |step: &String| shell::starts_a_service(step) || shell::starts_in_background(step);
    match ran.iter().position(starts).filter(|_| progress::is_refused(&failure.error)) {
        // (What ran once the service was up, `createdb app_test`, is part of the way.)
        Some(first) => ran
            .iter()
            .enumerate()
            .filter(|(i, step)| *i >= first || is_a_way_step(step))
            .map(|(_, s)| s.clone())
            .collect(),
        // (A cache cleared before a step that installed or set something got past nothing:
        // `php bin/console cache:clear` before `apt-get install php8.3-pgsql`. One cleared
        // after it may have cleared what it made stale: `cargo clean` after `rustup update`.)
        None => match ran.iter().position(|step| is_a_way_step(step) && !shell::clears_only(step)) {
            Some(first) => {
                let mut kept = shell::without_clears(ran[..first].to_vec());
                kept.extend_from_slice(&ran[first..]);
                kept
            }
            None => ran,
        },
    }
}

/// `facts` of a task on a day someone said a server was down, without what was the day's: a
/// step through another server (`HEX_MIRROR=… mix deps.get`) went around the outage and the
/// rest of the way is the project's; a failure that was the server being down (Gradle's
/// `status code 503`) is one of [`without_the_days_failures`].
fn without_the_outage(facts: &mut TaskFacts, printed: &BTreeMap<String, String>) {
    // (Of a fix whose every step went elsewhere, nothing is left; a fix that did more on the
    // way keeps what else it did.)
    facts.fixes.retain_mut(|fix| {
        let failure = &fix.failure;
        let had = fix.ran.len();
        fix.ran.retain(|step| !progress::goes_around_elsewhere(&failure.command, &failure.error, step));
        fix.work || had == 0 || !fix.ran.is_empty() || !fix.edited.is_empty()
    });
    let only_elsewhere = |fix: &Fix| {
        fix.ran.is_empty()
            && fix.edited.is_empty()
            && progress::goes_around_elsewhere(&fix.failure.command, &fix.failure.error, &fix.command)
    };
    facts.fixes.retain(|fix| fix.work || !only_elsewhere(fix));
    // (What went around an outage is told by the words it added, `--offline`, taken out above;
    // no step of it cleared anything.)
    let _ = without_the_days_failures(facts, printed, progress::is_network_blip, false);
}

/// `facts` without the links of a chain that met a server down for the moment (Google's
/// Maven answering 502 after `ANDROID_HOME=… ./gradlew test` got past `SDK location not
/// found`): the day's, like [`progress::is_server_unavailable`] says. Of the last link, the
/// attempt that met it is the way past the failure, with the steps and settings on the way;
/// the code edited is the task's, and what only looked is no step.
fn without_outage_links(facts: &mut TaskFacts) {
    for fix in facts.fixes.iter_mut().filter(|fix| !fix.work) {
        let Some(last) = fix.chain.iter().rposition(|link| progress::is_server_unavailable(&link.error)) else {
            continue;
        };
        if last + 1 == fix.chain.len() {
            let link = fix.chain.remove(last);
            fix.command = link.command;
            fix.line = link.line;
            fix.past = true;
            fix.attempts = fix.attempts.saturating_sub(1).max(1);
            fix.ran.retain(|step| is_a_way_step(step) || shell::writes_a_file(step));
            fix.edited.retain(|f| settings::is_settings_file(f));
        }
        fix.chain.retain(|link| !progress::is_server_unavailable(&link.error));
    }
}

/// `facts` without a network blip's way past that the task later did without: `GOPROXY=direct
/// make generate` after proxy.golang.org's DNS timeout, then a plain `make generate` that
/// passed. The setting only happened to be there when the network came back.
fn without_blips_done_without(facts: &mut TaskFacts) {
    let mut days_words: Vec<String> = Vec::new();
    let verified = &facts.verified;
    facts.fixes.retain(|fix| {
        let plain = !fix.work && fix.ran.is_empty() && fix.edited.is_empty() && fix.settings.is_empty();
        let Some(needs) = fix.needs().filter(|n| plain && n.replaced.is_empty() && !n.added.is_empty()) else {
            return true;
        };
        if !progress::is_network_blip(&fix.failure.error) {
            return true;
        }
        let family = classify(&fix.failure.command).family;
        let job = shell::job_step_words(&fix.failure.command, &family);
        let done_without = job.is_some()
            && verified.iter().any(|v| {
                v.line > fix.line
                    && shell::job_step_words(&v.command, &family) == job
                    && !shell::words(&v.command).iter().any(|w| needs.added.contains(w))
            });
        if done_without {
            days_words.extend(needs.added);
        }
        !done_without
    });
    facts.verified.retain(|v| !shell::words(&v.command).iter().any(|w| days_words.contains(w)));
}

/// `facts` without the failures that were the day's (`passing` tells them by their error: a
/// server's 503, a full disk): each is told from the landmine met behind it, without what
/// got past it (`--offline`), and a command verified only with that is no way to do the job.
/// With `lasting_ways`, a way past one that set something or changed a file other than code
/// (Bazel's output root moved to a bigger disk in `user.bazelrc`), with no landmine met
/// behind it, is the project's, and stays.
fn without_the_days_failures(
    facts: &mut TaskFacts,
    printed: &BTreeMap<String, String>,
    passing: fn(&str) -> bool,
    lasting_ways: bool,
) -> Vec<String> {
    let mut days_words: Vec<String> = Vec::new();
    // What cleared the way past the day's failure (`docker builder prune -f` past a full disk)
    // is the day's too, in whatever other way it also ran: those steps are returned.
    let mut days_steps: Vec<String> = Vec::new();
    facts.fixes.retain_mut(|fix| {
        // (Of a landmine met behind it, the chain tells; code edited is the task's, and so are
        // the lines it changed, which a fix of one file counts among its settings.)
        // (Or one that set where the job keeps its files: `ZIG_GLOBAL_CACHE_DIR=/scratch/dev/
        // zig-cache` moved a cache off the full disk for good.)
        let set = || {
            progress::needs(&fix.failure.command, &fix.command)
                .is_some_and(|needs| needs.added.iter().any(|w| progress::sets_a_place(w)))
        };
        let lasting =
            lasting_ways && fix.chain.is_empty() && (fix.edited.iter().any(|f| !progress::is_source(f)) || set());
        if fix.work || lasting || !passing(&fix.failure.error) {
            return true;
        }
        // (What got past the outage, `--offline`, is the day's, wherever it was added.)
        let outage_words = |failed: &str, fixed: &str| {
            progress::needs(failed, fixed)
                .filter(|needs| needs.replaced.is_empty())
                .map(|needs| needs.added.into_iter().filter(|w| progress::goes_offline(w)).collect::<Vec<_>>())
                .unwrap_or_default()
        };
        if fix.chain.is_empty() {
            days_words.extend(outage_words(&fix.failure.command, &fix.command));
            days_steps.extend(fix.ran.iter().chain([&fix.command]).flat_map(|step| shell::clearing_parts(step)));
            return false;
        }
        let outage = std::mem::replace(&mut fix.failure, fix.chain.remove(0));
        fix.attempts = 1;
        let words = outage_words(&outage.command, &fix.failure.command);
        let day = |command: &str| shell::without_words(command, &words);
        fix.failure.command = day(&fix.failure.command);
        fix.command = day(&fix.command);
        fix.ran = fix.ran.iter().map(|step| day(step)).collect();
        for link in &mut fix.chain {
            link.command = day(&link.command);
        }
        days_words.extend(words);
        // (Of a landmine about the machine, the code edited on the way was the task's.)
        if progress::is_environmental(&fix.failure.error) {
            fix.edited.retain(|file| !progress::is_source(file));
        }
        fix.before = before_values(fix, printed);
        // (With nothing done past it, what is left is no fix: the landmine went with the day.)
        !(fix.ran.is_empty() && fix.edited.is_empty() && fix.settings.is_empty() && fix.chain.is_empty())
    });
    facts.unresolved.retain(|failure| !passing(&failure.error));
    facts.verified.retain(|v| !shell::words(&v.command).iter().any(|w| days_words.contains(w)));
    days_steps
}

/// The fixes `open` comes to when `call` passed alone the test it last failed on: that test
/// is flaky, told without what it expected; and when the run that met it had got past the
/// first failure, about the machine, to it (`rustup toolchain install nightly` past
/// `toolchain 'nightly' is not installed`), that way past too.
fn flaky(mut open: OpenFailure, call: &PendingCall, printed: &BTreeMap<String, String>) -> Vec<Fix> {
    let mut fixes = Vec::new();
    let (failure, attempts) = match open.last.take() {
        Some(last) => {
            let way =
                open.ran.iter().any(|s| is_a_way_step(s)) || open.edited.iter().any(|f| settings::is_settings_file(f));
            if !open.aside && way && progress::reached_the_code(&open.failure.error, &last.error) {
                open.chain.retain(|step| step.line != last.line);
                let command = shell::job_line(&last.command);
                fixes.push(fix_past(open, &command, last.line, true, printed));
            }
            (last, 1)
        }
        None => (open.failure, open.attempts),
    };
    let failure = Failure { command: shell::job_line(&failure.command), ..failure };
    let alone = Fix::new(failure, shell::job_line(&call.command), call.line);
    fixes.push(Fix { attempts, alone: true, ..alone });
    fixes
}

/// The places (`path:line`) a failure's output points at, at its head and its tail.
fn places_of(output: &str) -> Vec<String> {
    let (head, tail) = ends(output, PLACES_WINDOW);
    let mut places = progress::places_in(head, MAX_PLACES);
    for place in progress::places_in(tail, MAX_PLACES) {
        if !places.contains(&place) && places.len() < 2 * MAX_PLACES {
            places.push(place);
        }
    }
    places
}

/// `pnpm vitest run x && pnpm lint` that stopped at the linter's complaint: the steps before
/// the check passed (a chain runs a step only once those before it did), and the check alone
/// failed. `None` when the chain holds no one check, or the error is no check's.
fn split_at_check(call: &PendingCall, output: &str) -> Option<(PendingCall, PendingCall)> {
    let parts = shell::and_parts(&call.command)?;
    let is_check = |part: &&str| matches!(classify(part).kind, CommandKind::Lint | CommandKind::Format);
    let checks: Vec<usize> = parts.iter().enumerate().filter(|(_, p)| is_check(p)).map(|(i, _)| i).collect();
    let [at] = checks.as_slice() else { return None };
    let program = shell::program_of(parts[*at]);
    let error = errors::error_line_of(output, program.as_deref())?;
    if *at == 0 || !progress::is_check_complaint(&error) {
        return None;
    }
    let part = |command: String| {
        let classified = classify(&command);
        let family = if classified.family.is_empty() { command.clone() } else { classified.family };
        let kind = classified.kind;
        PendingCall { untrusted: false, prints: None, command, kind, family, own_family: None, line: call.line }
    };
    Some((part(parts[..*at].join(" && ")), part(parts[*at..].join(" && "))))
}

/// True when `command` gives one of the flags the user asked the task to add (`list-flocks
/// --json` after "add a --json flag"): it tries out the task's own work.
fn gives_a_flag_asked_for(command: &str, asked: &[String]) -> bool {
    shell::words(command)
        .iter()
        .any(|w| asked.iter().any(|f| w == f || w.strip_prefix(f.as_str()).is_some_and(|r| r.starts_with('='))))
}

/// True when the job of `fixed` is the job `failed` ran with words added (a setting, a flag,
/// `--target dev`) and none taken away.
fn job_took_more(failed: &str, fixed: &str) -> bool {
    let job = shell::words(&shell::job_line(&shell::job_line_for(fixed, failed)));
    let failed = shell::words(&shell::job_line(failed));
    job.len() > failed.len() && failed.iter().all(|w| job.contains(w))
}

/// True for a step that changes the machine the way a landmine asks: an install, a setting,
/// a service started.
fn is_a_way_step(step: &str) -> bool {
    classify(step).kind == CommandKind::Install || shell::sets_a_setting(step) || shell::starts_a_service(step)
}

struct OpenFailure {
    failure: Failure,
    chain: Vec<Failure>,
    kind: CommandKind,
    task: usize,
    attempts: u32,
    edited: Vec<String>,
    ran: Vec<String>,
    /// Steps of attempts that met the same error again (`make tools && make proto`), and
    /// steps run alone before an attempt that met it again (`bundle install`).
    tried: Vec<String>,
    /// Where the steps of `ran` run alone since the last attempt start.
    ran_at_attempt: usize,
    /// The files edited since the last attempt, and of them those `edited` gained then.
    edited_since: Vec<String>,
    gained_since: Vec<String>,
    settings: Vec<String>,
    /// The lines one-line edits of other files than settings changed, as they now read.
    changed: Vec<String>,
    /// The places (`path:line`) the failure's output pointed at.
    places: Vec<String>,
    /// The files the task had written when the command failed.
    written: Vec<String>,
    /// Fingerprints of the lines of its output ([`errors::line_prints`]).
    said: Vec<u64>,
    /// An edit since took out a name the error quoted: of the code, or one the task put in.
    rewrote_named: bool,
    /// And what it named was the task's own misspelling, mended (`limit_req_zne`), or its
    /// own name put elsewhere.
    mended_own_slip: bool,
    /// The task's own names the error quoted that an edit took out, and whether one was
    /// given another name.
    took_out: Vec<String>,
    renamed: bool,
    /// The last attempt, where it met another error.
    last: Option<Failure>,
    /// Something was edited or run since the last attempt failed.
    changed_since: bool,
    /// A failure in the code met once a landmine was got past: the task's business, never
    /// a lesson, unless the test then passes alone (a flaky one).
    aside: bool,
    /// What it met was a server's or the network's blip, by its error line or a line of its
    /// output (`503 Service Unavailable` under gleam's `error: HTTP error`).
    blip: bool,
}

impl OpenFailure {
    fn new(failure: Failure, kind: CommandKind, task: usize, places: Vec<String>, written: Vec<String>) -> OpenFailure {
        OpenFailure {
            failure,
            chain: Vec::new(),
            kind,
            task,
            attempts: 1,
            edited: Vec::new(),
            ran: Vec::new(),
            tried: Vec::new(),
            ran_at_attempt: 0,
            edited_since: Vec::new(),
            gained_since: Vec::new(),
            settings: Vec::new(),
            changed: Vec::new(),
            places,
            written,
            said: Vec::new(),
            rewrote_named: false,
            mended_own_slip: false,
            took_out: Vec::new(),
            renamed: false,
            last: None,
            changed_since: false,
            aside: false,
            blip: false,
        }
    }

    /// The failure `fix` got past, open again: the way it took was undone.
    fn reopened(fix: Fix, kind: CommandKind, task: usize) -> OpenFailure {
        OpenFailure {
            chain: fix.chain,
            attempts: fix.attempts,
            changed_since: true,
            ..OpenFailure::new(fix.failure, kind, task, Vec::new(), Vec::new())
        }
    }

    /// Whether `output` printed nothing that this failure did not print (whatever versions it
    /// names), and some of it was this failure's trouble. (Or, `searched` for with `grep`, a
    /// line that says an error outright, which this failure printed: the search was for it,
    /// whatever the steps before printed; not a `Version 3.12 was not found in the local
    /// cache` that every run prints.) (Or, said no error outright that this failure did not,
    /// it ended in this failure's own lines: what steps before the job printed is theirs;
    /// two of them behind a search, and what a `tail -1` let through when it quotes the
    /// failure's error.)
    fn printed_its_trouble(&self, output: &str, searched: bool, shown: Option<usize>) -> bool {
        let said = |print: &u64| self.said.contains(print);
        let trouble = errors::trouble_prints(output, MAX_LINE_PRINTS);
        let telling = |(_, score): &&(u64, u8)| *score >= errors::TELLING;
        if searched && trouble.iter().filter(telling).any(|(print, _)| said(print)) {
            return true;
        }
        if trouble.is_empty() {
            return false;
        }
        if errors::line_prints(output, MAX_LINE_PRINTS).iter().all(said) {
            return true;
        }
        // (Or, of `rm -rf .next node_modules && pnpm install && pnpm build | tail -4`, what
        // it printed last, after the steps had printed their own: the failure's own lines
        // again, three of them or two with one that says the error outright, and no error
        // said outright that the failure did not print. A build tool's closing lines, which
        // every failure of the target prints, are not the failure's own.)
        let ending = errors::ending_prints(output, MAX_LINE_PRINTS, false).into_iter().take_while(said).count();
        let own: Vec<u64> = errors::ending_prints(output, MAX_LINE_PRINTS, true).into_iter().take_while(said).collect();
        let in_ending = |print: &u64| own.contains(print);
        let new_error = trouble.iter().filter(telling).any(|(print, _)| !said(print));
        let its_trouble = trouble.iter().any(|(print, _)| in_ending(print));
        let its_error = trouble.iter().filter(telling).any(|(print, _)| in_ending(print));
        // (Two, of a search: `bundle install | grep -E "pg_config|libpq-fe"` that found the
        // failure's `checking for pg_config... no` and `Can't find the 'libpq-fe.h header`.)
        let some = if searched { 2 } else { 3 };
        let enough = shown.map_or(2, |shown| shown.min(2));
        // (Fewer, when a filter let fewer through, all of them the failure's, and the last a
        // piece of its very error: `dbt build … | tail -1` printing `Could not find profile
        // named 'x'` again is all the job said. Not a closing line many failures share.)
        let last = output.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
        let of_its_error = last.len() >= 12 && self.failure.error.contains(last);
        let all_shown = shown.is_some_and(|shown| shown < some && ending >= shown) && of_its_error;
        !new_error && ((ending >= some || all_shown) && its_trouble || ending >= enough && its_error)
    }

    /// True when `attempt`, the same job again, got past this failure (or the last attempt's)
    /// to a test's verdict, by a setting or a flag added (`--profiles-dir profiles`), another
    /// install of the program, a settings file edited, or an install or a setting run on the
    /// way.
    /// (Or, `own_work`, to a complaint placed in a file the task wrote: `~/go/bin/actionlint`
    /// past `actionlint: command not found` to `ci.yml:22:14: label "ubuntu-lastest" is
    /// unknown` in the workflow the task edits.)
    fn got_past_to_the_code(&self, attempt: &Failure, family: &str, own_work: bool) -> bool {
        let before = self.last.as_ref().or(self.chain.last()).unwrap_or(&self.failure);
        let steps = shell::steps_before_job(&attempt.command, family);
        // (`.venv/bin/python -m pytest` ran the same tests with the environment's own pytest.)
        let elsewhere = shell::runs_another_install_in(&self.failure.command, &attempt.command);
        let to_own_work = own_work
            && !progress::is_code_error(&before.error)
            && !progress::is_verdict_on_code(&before.error)
            && !errors::same_error(&before.error, &attempt.error);
        (progress::reached_the_code(&before.error, &attempt.error) || to_own_work)
            && (shell::runs_the_same(&attempt.command, &self.failure.command)
                || shell::runs_the_same(&attempt.command, &shell::job_line(&self.failure.command))
                || elsewhere)
            && (progress::adds_settings_only(&self.failure.command, &attempt.command)
                // (`ASAN_OPTIONS=detect_leaks=0 ctest --preset asan --output-on-failure` of the
                // test step of `cmake --build --preset asan && ctest --preset asan`.)
                || progress::adds_settings_only(
                    &shell::without_loud_flags(&shell::job_line(&self.failure.command)),
                    &shell::without_loud_flags(&shell::job_line(&attempt.command)),
                )
                // (`dbt build --profiles-dir profiles`: a flag the last attempt lacked, that
                // told it where to look.)
                || progress::adds_flags(&shell::job_line(&before.command), &shell::job_line(&attempt.command))
                || elsewhere
                || self.edited.iter().any(|f| settings::is_settings_file(f))
                || self.ran.iter().chain(&steps).any(|step| is_a_way_step(step)))
    }

    /// True when `attempt`, word for word the command that first failed, run again with
    /// nothing edited, run or tried since, got past its error to a test's verdict. (After a
    /// server's or the network's blip, the job again after a look or a wait: `curl -sI …;
    /// sleep 20; gleam test` after hex.pm's 503.) Not past a machine's lack (a refused
    /// connection, a missing program): a hand outside the session mended it, and how is the
    /// lesson.
    fn cleared_outside(&self, attempt: &Failure, family: &str) -> bool {
        // (A command clipped for keeping may differ past the cut.)
        let whole = |command: &str| !command.ends_with('…');
        let again = whole(&attempt.command)
            && whole(&self.failure.command)
            && (shell::words(&attempt.command) == shell::words(&self.failure.command)
                || self.blip
                    && shell::only_waits_and_looks_before(&attempt.command, family)
                    && shell::job_step_words(&attempt.command, family)
                        .is_some_and(|words| shell::job_step_words(&self.failure.command, family) == Some(words)));
        let unmended = self.chain.is_empty()
            && self.last.is_none()
            && !self.changed_since
            && self.edited.is_empty()
            && self.ran.is_empty()
            && self.tried.is_empty()
            && self.settings.is_empty();
        !self.aside
            && unmended
            && again
            && (self.blip || !progress::is_environmental(&self.failure.error))
            && progress::reached_the_code(&self.failure.error, &attempt.error)
    }

    /// True when `command`, run with nothing changed since the last attempt failed, is the
    /// same run narrowed to the test that failed (`crystal spec spec/rate_window_spec.cr`
    /// after `crystal spec` failed there), and it passed: the test passes alone, it is flaky.
    /// (Or the test run alone over and over in a loop, which a failure now and then does not
    /// gainsay: `for i in 1 2 3 4 5 6; do npx jest src/poll.test.ts; done`.)
    fn passes_alone(&self, command: &str) -> bool {
        let body = shell::repeated_body(command);
        let command = body.as_deref().unwrap_or(command);
        let last = self.last.as_ref().unwrap_or(&self.failure);
        // (`rm -rf .cache && pytest t.py::x` changed something first.)
        let first_steps = command.split(" && ").count() > 1 || command.contains(';');
        self.kind == CommandKind::Test
            && !self.changed_since
            && !first_steps
            && progress::reruns_the_failed_test(
                command,
                &shell::job_line(&self.failure.command),
                &last.error,
                &self.places,
            )
    }

    /// True when `command`, the same job, passed after a wait or the task's own work, with
    /// nothing changed that reaches the network: `sleep 60; bundle install` after
    /// rubygems.org's 503, `./gradlew test` after Maven Central's 502 and a `ktlintFormat`.
    /// (After a timeout, only with nothing run at all: `kubectl config use-context` may be
    /// what got past it. A test run's timeout may be the test's own; a server's 503 is not.)
    fn waited_out(&self, command: &str, family: &str) -> bool {
        let error = &self.failure.error;
        let unavailable = progress::is_server_unavailable(error);
        let reaches_out = |step: &String| is_a_way_step(step) || shell::writes_a_file(step);
        (unavailable || (self.ran.is_empty() && self.kind != CommandKind::Test))
            && progress::is_network_blip(error)
            && self.chain.is_empty()
            && !self.edited.iter().any(|f| settings::is_settings_file(f))
            && self.settings.is_empty()
            && !self.ran.iter().any(reaches_out)
            && shell::job_step_words(command, family)
                .is_some_and(|words| shell::job_step_words(&self.failure.command, family) == Some(words))
    }

    /// Without the edits of `files`, which a step put back as the last commit has them (`git
    /// checkout -- src/test/resources/application-test.yml`): no part of any way past. What
    /// such an edit set goes with it, once no settings file edited is left.
    fn put_back(&mut self, files: &[String]) {
        if files.is_empty() {
            return;
        }
        self.edited.retain(|f| !progress::is_one_of(f, files));
        self.edited_since.retain(|f| !progress::is_one_of(f, files));
        self.gained_since.retain(|f| !progress::is_one_of(f, files));
        // (So is a command's work on them: `dos2unix scripts/x.sh`, then `git checkout --
        // scripts/x.sh`.)
        let on_them = |step: &String| shell::words(step).iter().any(|w| progress::is_one_of(w, files));
        self.ran.retain(|step| !on_them(step));
        if !self.edited.iter().any(|f| settings::is_settings_file(f)) {
            self.settings.clear();
            self.changed.clear();
        }
    }

    /// True when `command` is another job of the program than the one a network blip stopped,
    /// with only code edited between: `Pkg.test()` passing after `Pkg.add("StatsBase")` met a
    /// name that did not resolve got past no network.
    fn passed_elsewhere(&self, command: &str, family: &str) -> bool {
        let failure = &self.failure;
        self.ran.is_empty()
            && !self.edited.is_empty()
            && self.edited.iter().all(|f| progress::is_source(f))
            && progress::needs(&failure.command, command).is_none_or(|needs| needs.added.is_empty())
            && self.kind != CommandKind::Test
            && progress::is_network_blip(&failure.error)
            && shell::job_step_words(command, family) != shell::job_step_words(&failure.command, family)
    }

    /// A step run since the failure, once, up to [`MAX_STEPS_BETWEEN`].
    fn ran_step(&mut self, step: String) {
        self.changed_since = true;
        if !self.ran.contains(&step) && self.ran.len() < MAX_STEPS_BETWEEN {
            self.ran.push(step);
        }
    }

    /// The last link of the chain, when it was the last attempt and only edits of the task's
    /// own code came after it: `direnv exec . airflow dags test …` got past `Dag … could
    /// not be found` to `psycopg2.errors.InvalidColumnReference` in the DAG the task wrote,
    /// which an edit of that DAG then answered. That link was the task's red-to-green, no
    /// step of the way: it is taken off, with the edits after it.
    fn take_own_link(&mut self) -> Option<Failure> {
        let link = self.chain.last()?;
        let own = |f: &String| progress::is_source(f) && progress::is_one_of(f, &self.written);
        let mended_own = !self.edited_since.is_empty() && self.edited_since.iter().all(own);
        if self.last.as_ref().is_none_or(|last| last.line != link.line)
            || !mended_own
            || self.ran.len() > self.ran_at_attempt
        {
            return None;
        }
        let gained = std::mem::take(&mut self.gained_since);
        self.edited.retain(|f| !gained.contains(f));
        self.chain.pop()
    }

    /// The steps run alone since the last attempt, which then met the error it met again
    /// (`bundle install` before `cannot load such file -- webrick` once more): tried in vain.
    fn ran_alone_in_vain(&mut self) {
        let alone: Vec<String> = self.ran.drain(self.ran_at_attempt.min(self.ran.len())..).collect();
        for step in alone {
            if !self.tried.contains(&step) && self.tried.len() < MAX_STEPS_BETWEEN {
                self.tried.push(step);
            }
        }
        self.ran_at_attempt = self.ran.len();
    }

    /// Files edited since the failure, once each, up to [`MAX_FILES`].
    fn edited_too(&mut self, files: &[String]) {
        self.changed_since = true;
        for file in files {
            if !self.edited.contains(file) && self.edited.len() < MAX_FILES {
                self.edited.push(file.clone());
                self.gained_since.push(file.clone());
            }
            if !self.edited_since.contains(file) && self.edited_since.len() < MAX_FILES {
                self.edited_since.push(file.clone());
            }
        }
    }

    /// This failure with `fixed`, the command that got past it, and what was done between.
    fn attempt<'a>(&'a self, fixed: &'a str) -> progress::Attempt<'a> {
        progress::Attempt {
            failed: &self.failure.command,
            error: &self.failure.error,
            places: &self.places,
            fixed,
            edited: &self.edited,
            ran: &self.ran,
            written: &self.written,
        }
    }
}

#[derive(Default)]
struct TaskState {
    facts: Option<TaskFacts>,
    feedback: Option<Feedback>,
    last_command_failed: Option<bool>,
}

/// Streaming state of the built-in extraction of one session.
#[derive(Default)]
pub(crate) struct Extractor {
    tasks: Vec<TaskState>,
    pending: HashMap<String, PendingCall>,
    pending_order: std::collections::VecDeque<String>,
    unpaired: Option<PendingCall>,
    open: BTreeMap<String, OpenFailure>,
    user_messages: u32,
    commands: u32,
    failed_commands: u32,
    /// Sessions cited by the assistant's replies, and in how many replies.
    cited: BTreeMap<String, u32>,
    /// Instruction-like passages of tool output, whitespace collapsed.
    instructions: Vec<String>,
    /// The agent has replied or acted: a "no, …" after this corrects something.
    agent_acted: bool,
    /// Values the session printed for variables (`echo $PGHOST` → `localhost`).
    printed: BTreeMap<String, String>,
    /// Files a text reader exited 0 on without reading (binary or empty output).
    unread: soft::Unread,
    /// The agent's last reply, where its closing account is.
    last_reply: Option<(String, u64)>,
    /// Commands and paths the session ran or touched, which a closing account may name.
    named: account::Named,
    /// Names the task's own code coined (`wingspan_mm`): an error naming one is the work's.
    coined: BTreeSet<String>,
    /// Names the session's edits of any file added (`limit_req_zne` in an nginx site): one
    /// an error names, and a later edit took out, was the session's own slip.
    added: BTreeSet<String>,
    /// The ports named by what the session left running in the background (`uvicorn app:app
    /// --port 8000 &`), once it left anything: a port in use after it is most likely its own.
    background_ports: Option<BTreeSet<String>>,
    /// The flags the current task was asked to add (`--json`).
    asked_flags: Vec<String>,
    /// The agent's last reply asked the user something ("I can set it from `gh auth token`
    /// — OK?"): a "yes, …" answers it within the task.
    asked: bool,
    /// The question that reply ended on, which an answer may make a standing choice.
    question: Option<String>,
    /// What the current task's request quoted (`'invalid option: mode-mouse'`), lowercased:
    /// the failure it reported.
    reported: Vec<String>,
    /// The tasks in which the user said a service is down for the day ("the internal PyPI
    /// mirror is down this morning"): a way around it through another server is the day's.
    outages: BTreeSet<usize>,
    /// Flags and settings an attempt of the current task added that met the same error
    /// again, by the job they were added to (`stack --no-system-ghc test` after `stack
    /// test`): no part of any way.
    no_help: Vec<(String, String)>,
    /// Fingerprints of the session's edits ([`settings::edit_prints`]) and their lines, to
    /// know one undone.
    edit_prints: Vec<(u64, u64)>,
}

impl Extractor {
    pub(crate) fn new() -> Extractor {
        Extractor::default()
    }

    /// Take in one filtered, redacted event.
    pub(crate) fn push(&mut self, event: &Event<'_>) {
        match &event.kind {
            EventKind::User(text) => self.user(text, event.line),
            EventKind::ToolCall(call) => {
                self.agent_acted = true;
                self.tool_call(call, event.line);
            }
            EventKind::ToolResult(result) => self.tool_result(result),
            EventKind::Assistant(text) => {
                self.agent_acted = true;
                self.asked = text.for_scanning().trim_end().ends_with('?');
                self.question = signals::closing_question(text.for_scanning());
                let reply = text.for_scanning();
                // The agent that found a server elsewhere down ("Docker Hub is having an
                // outage") tells of the day as the user would; it only takes lessons away.
                if progress::reports_outage(reply) {
                    self.outages.insert(self.tasks.len().saturating_sub(1));
                }
                // A one-line acknowledgement ("Noted.") after the account does not replace it.
                if reply.len() >= account::MIN_ACCOUNT || self.last_reply.is_none() {
                    // A reply on the way that an account replaces may still have found something
                    // odd about what the session ran ("it listens on 9091, while the Service
                    // targets 8080").
                    if let Some((before, line)) = self.last_reply.replace((account::clip(reply), event.line)) {
                        self.keep_observations(account::anomalies(&before, line, &self.named));
                    }
                }
                for id in crate::core::citations::cited_sessions(text.for_scanning()) {
                    if self.cited.len() < MAX_CITED || self.cited.contains_key(&id) {
                        *self.cited.entry(id).or_default() += 1;
                    }
                }
            }
            _ => {}
        }
    }

    fn current(&mut self) -> Option<(usize, &mut TaskFacts)> {
        let index = self.tasks.len().checked_sub(1)?;
        self.tasks[index].facts.as_mut().map(|f| (index, f))
    }

    /// The current task, started from `text` when there is none yet.
    fn current_or_start(&mut self, text: &str, line: u64) -> &mut TaskFacts {
        if self.tasks.is_empty() {
            self.start_task(text, line);
        }
        let last = self.tasks.len() - 1;
        self.tasks[last].facts.get_or_insert_with(|| TaskFacts::new(title_of(text), line))
    }

    fn start_task(&mut self, text: &str, line: u64) {
        if self.tasks.len() >= MAX_TASKS {
            return;
        }
        self.settle_account();
        self.asked_flags.clear();
        self.no_help.clear();
        self.reported = signals::quoted_spans(text).into_iter().map(|q| q.to_lowercase()).collect();
        self.tasks.push(TaskState { facts: Some(TaskFacts::new(title_of(text), line)), ..TaskState::default() });
    }

    fn user(&mut self, text: &str, line: u64) {
        self.user_messages += 1;
        if let Some(verdict) = signals::feedback(text)
            && let Some(task) = self.tasks.last_mut()
        {
            task.feedback = Some(verdict);
        }
        // Whatever the user says next, a question the agent asked before it is behind them.
        let asked = std::mem::take(&mut self.asked);
        let question = self.question.take();
        if signals::is_trivial(text) {
            return;
        }
        let mut signals = signals::preference_signals(text, self.agent_acted);
        let standing = question.as_deref().and_then(|q| signals::answer_made_lasting(text, q));
        if let Some(choice) = &standing {
            // ("Yes, always do it that way." is kept once, with what it answers.)
            signals.retain(|(_, said)| !choice.contains(said.as_str()));
            signals.push((SignalKind::Preference, choice.clone()));
        }
        let lifted = signals::lifted(text);
        for what in signals::taken_back(text, &lifted) {
            for facts in self.tasks.iter_mut().filter_map(|t| t.facts.as_mut()) {
                facts.preferences.retain(|p| !signals::is_taken_back(&p.text, &what));
            }
        }
        let answers = (asked && signals::is_consent(text))
            || standing.as_ref().is_some_and(|answer| !signals::asks_more(text, answer));
        let continues_task =
            !self.tasks.is_empty() && (signals::is_correction(text) || signals::states_only(text) || answers);
        if !continues_task {
            self.start_task(text, line);
        } else if answers {
            // The reply that asked may have given an account of the work so far.
            self.settle_account();
        }
        for flag in signals::flags_asked_for(text) {
            if !self.asked_flags.contains(&flag) && self.asked_flags.len() < MAX_FACTS {
                self.asked_flags.push(flag);
            }
        }
        if progress::announces_outage(text) {
            self.outages.insert(self.tasks.len().saturating_sub(1));
        }
        // "No — … the tests are pytest, not manage.py test": the failed run the correction
        // names was the agent's wrong way, answered by the user, no landmine of the project.
        if signals.iter().any(|(kind, _)| *kind == SignalKind::Correction) {
            self.open.retain(|_, open| !shell::is_named_in(&open.failure.command, text));
        }
        let task = self.current_or_start(text, line);
        for (kind, sentence) in signals {
            let seen = task.preferences.iter().any(|p| p.text == sentence);
            if !seen && task.preferences.len() < MAX_FACTS {
                task.preferences.push(Signal { kind, text: sentence, line });
            }
        }
        for what in lifted {
            if !task.taken_back.contains(&what) && task.taken_back.len() < MAX_FACTS {
                task.taken_back.push(what);
            }
        }
    }

    fn tool_call(&mut self, call: &ToolCall<'_>, line: u64) {
        // Work before any request (a resumed session, a scripted run) still counts.
        if self.tasks.is_empty() && (!call.writes.is_empty() || call.command.is_some()) {
            self.start_task("Work before the first request", line);
        }
        if !call.writes.is_empty() {
            // What an edit of settings files set is what a fix through it did, as is the line
            // an edit of one line changed (`-- migrate:up transaction:false`).
            let in_settings = call.writes.iter().all(|f| settings::is_settings_file(f));
            let set = if in_settings { settings::settings_in(call.input.for_scanning()) } else { Vec::new() };
            let changed = if in_settings { None } else { settings::changed_line(call.input.for_scanning()) };
            let in_code = call.writes.iter().any(|f| progress::is_source(f));
            let removed = settings::removed_text(call.input.for_scanning());
            let put: Vec<&str> = progress::coined_names(call.input.for_scanning()).collect();
            for failure in self.open.values_mut() {
                failure.changed_since = true;
                let error = &failure.failure.error;
                if progress::names_what_was_removed(error, &removed) {
                    // (Out of a setting, only what the task had put in itself; a misspelling
                    // of its own is its slip, whatever checker caught it.)
                    let put_in = progress::names_coined(error, &self.added);
                    failure.rewrote_named |= in_code || put_in;
                    failure.mended_own_slip |= put_in && progress::mends_a_misspelling(error, &removed, &put);
                    let taken = if put_in { progress::quoted_names_in(error, &removed) } else { Vec::new() };
                    for name in taken {
                        if !failure.took_out.contains(&name) && failure.took_out.len() < MAX_FACTS {
                            failure.took_out.push(name);
                        }
                    }
                }
                // (A name of its own the task took out and put back word for word, in this edit
                // or a later one, it placed elsewhere: `limit_req_zone` moved out of the server
                // block. Not one given a longer name: `ring_drain` renamed `pip_ring_drain`.)
                let back = |name: &String| put.contains(&name.as_str());
                let renamed = |name: &String| put.iter().any(|p| *p != name && p.contains(name.as_str()));
                failure.renamed |= failure.took_out.iter().any(renamed);
                if !failure.renamed && failure.took_out.iter().any(back) {
                    failure.mended_own_slip = true;
                }
                failure.edited_too(&call.writes);
                for line in &set {
                    if !failure.settings.contains(line) && failure.settings.len() < MAX_STEPS_BETWEEN {
                        failure.settings.push(line.clone());
                    }
                }
                if let Some(line) = &changed
                    && !failure.changed.contains(line)
                    && failure.changed.len() < MAX_STEPS_BETWEEN
                {
                    failure.changed.push(line.clone());
                }
            }
            if let [file] = call.writes.as_slice() {
                self.note_edit(file, call.input.for_scanning(), line);
            }
            for name in &put {
                if self.added.len() >= MAX_COINED {
                    break;
                }
                self.added.insert(name.to_string());
            }
            if in_code {
                for name in &put {
                    if self.coined.len() >= MAX_COINED {
                        break;
                    }
                    self.coined.insert(name.to_string());
                }
            }
            if let Some((_, task)) = self.current() {
                for file in &call.writes {
                    if !task.files.contains(file) && task.files.len() < MAX_FILES {
                        task.files.push(file.clone());
                    }
                }
            }
        }
        for file in call.writes.iter().chain(&call.reads) {
            self.named.path(file);
        }
        let Some(command) = call.command.as_deref().filter(|c| !c.trim().is_empty()) else {
            return;
        };
        let classified = classify(command);
        self.named.command(command, &classified);
        let family = self.family_of(command, &classified);
        let own_family = (family != classified.family).then(|| classified.family.clone());
        let pending = PendingCall {
            untrusted: self.is_untrusted(command),
            prints: progress::printed_variable(command),
            command: clip_command(command),
            kind: classified.kind,
            family,
            own_family,
            line,
        };
        match call.id.as_deref() {
            Some(id) => {
                if self.pending.len() >= MAX_PENDING
                    && let Some(oldest) = self.pending_order.pop_front()
                {
                    self.pending.remove(&oldest);
                }
                self.pending_order.push_back(id.to_string());
                self.pending.insert(id.to_string(), pending);
            }
            None => self.unpaired = Some(pending),
        }
    }

    /// The job `command` does, by the family its classification gave (or the command itself).
    /// A chain that installs, then runs a failed job again, is another attempt at that job
    /// (`uv cache clean && uv sync -q && uv run bicerin eval …`), though the install decides
    /// its kind.
    fn family_of(&self, command: &str, classified: &shell::Classified) -> String {
        let family = &classified.family;
        if family.is_empty() {
            return command.trim().to_string();
        }
        // (Not one that only runs a failed job's checks after it: `pip install x && pytest -q
        // && mypy .` is classified by its tests.)
        if classified.kind != CommandKind::Install || self.open.contains_key(family) {
            return family.clone();
        }
        // (The job it ends in, which a filter may follow: `… && uv run x eval | tail -1`.)
        match shell::segment_families(command).pop() {
            Some(last) if self.open.contains_key(&last) => last,
            _ => family.clone(),
        }
    }

    fn tool_result(&mut self, result: &ToolResult<'_>) {
        self.note_instructions(result.output.for_scanning());
        let call = match result.id.as_deref() {
            Some(id) => self.pending.remove(id),
            None => self.unpaired.take(),
        };
        let Some(mut call) = call else { return };
        // A call the user stopped ended neither way: nothing failed, nothing was verified.
        if result.stopped {
            return;
        }
        // `uv sync -q && uv run app eval | tail -1` that exited non-zero failed in its install
        // (the job's status is the filter's): the install's failure, no attempt at the job.
        // (Nor does its install's output say how the job went, but by the job's own lines.)
        let rerouted = call.own_family.is_some();
        if let Some(own) = call.own_family.take()
            && result.failed()
        {
            call.family = own;
        }
        // `go test ./... | tail -20` reports tail's status: what it printed says how the tests
        // went.
        let hidden = !result.failed()
            && !rerouted
            && call.kind != CommandKind::Explore
            && shell::status_hidden_by_filter(&call.command, &call.family)
            && errors::reports_failure(result.output.for_scanning());
        // `… | grep -c 'Library "yojson" not found'` that counted 2: the search found the
        // error a failure had met, the job failed again.
        // (Whatever status the pipe gave: grep's own 1 says nothing of the job.)
        // (So did one behind `| head -2` that printed the failure's own line again.)
        let found_the_error = self.search_found_the_error(&call, result.output.for_scanning())
            || (!result.failed() && self.met_again(&call, result.output.for_scanning()));
        let failed = result.failed() || hidden || found_the_error;
        self.count_command(failed);
        // (It met the same error again: no step of it got past anything, nor did what ran
        // alone since the last attempt.)
        if found_the_error {
            if let Some(open) = self.open.get_mut(&call.family) {
                open.ran_alone_in_vain();
            }
            return;
        }
        if shell::starts_in_background(&call.command) {
            self.background_ports.get_or_insert_default().extend(shell::ports_named(&call.command));
        }
        // What a hijacked agent ran teaches nothing, however it ended: not a verified command,
        // not a fix, not a landmine, and no step on the way to a fix.
        if call.untrusted {
            return;
        }
        self.drop_mistyped(&call.command);
        // `cargo clippy 2>&1 | tail -2 && rg -n anyhow src` ends in a search that found nothing
        // (unless what it searched said it failed: `kustomize build x | grep image:` printing
        // `Error: … must specify --enable-helm`).
        // (`systemctl status x` exits 3 of a unit that is down: the answer, not a failure.)
        // (Nor did `airflow dags list | grep -c meuse_` that counted 0, whatever its status.)
        let no_match = result.exit_code == Some(1)
            && shell::ends_in_search(&call.command)
            && !errors::reports_failure(result.output.for_scanning())
            || shell::status_is_an_answer(&call.command, result.exit_code);
        if (!failed || no_match) && shell::counted_none(&call.command, result.output.for_scanning()) {
            return;
        }
        if failed && !no_match {
            let exit_code = if hidden { None } else { result.exit_code };
            match split_at_check(&call, result.output.for_scanning()) {
                Some((passed, check)) => {
                    self.succeeded(passed);
                    self.failed(check, result, exit_code);
                }
                None => self.failed(call, result, exit_code),
            }
            return;
        }
        let output = result.output.for_scanning();
        if let Some(variable) = &call.prints
            && let Some(value) = output.lines().map(str::trim).find(|l| !l.is_empty())
        {
            self.printed.insert(variable.clone(), clip_at_word(value, 80));
        }
        for (variable, value) in progress::printed_environment(&call.command, output).into_iter().take(MAX_PRINTED) {
            self.printed.insert(variable, clip_at_word(&value, 80));
        }
        if call.kind == CommandKind::Explore && self.unread.note(&call.command, output, call.line) {
            return;
        }
        // A test run over and over in a loop exits as its last round did: it passed alone, if it
        // ran a test that failed, and verifies nothing else.
        if call.kind == CommandKind::Test && shell::repeated_body(&call.command).is_some() {
            self.caught_flaky(&call, output);
            return;
        }
        // `ctest -R x | tail -6; ls tests/data` exits as `ls` did: it proves nothing of the
        // tests, so it neither fixes nor verifies them.
        if !shell::status_is_the_jobs(&call.command) {
            return;
        }
        // `opam upgrade ocamlformat` that said `Already up-to-date.` did nothing: no step of a
        // way, and no install it verified.
        // (Unless it ran again what failed: `brew install x` that now says it is installed.)
        if !call.kind.is_verification()
            && !self.open.contains_key(&call.family)
            && progress::changed_nothing(output)
            && shell::steps_of(&call.command).into_iter().filter(|p| !shell::only_looks(p)).count() <= 1
        {
            return;
        }
        if let Some(fix) = self.unread.read_by(&call.command, output, call.line)
            && let Some((_, task)) = self.current()
            && task.fixes.len() < MAX_FACTS
        {
            task.fixes.push(fix);
        }
        self.succeeded(call);
    }

    /// Whether `call` ran the job a failure met again, piped into a search for that failure's
    /// error that found it (printed its count, or a line holding it).
    fn search_found_the_error(&self, call: &PendingCall, output: &str) -> bool {
        let Some(open) = self.open.get(&call.family) else { return false };
        let Some((pattern, counts)) = shell::searched_pattern(&call.command) else { return false };
        let last = output.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default().trim().to_lowercase();
        let error = open.failure.error.to_lowercase();
        // Of `grep -E 'MissingSharp|Could not load'`, any phrase of the error it found: words
        // no output holds by chance, or a name in code (`MissingSharp`) on a line that says
        // error (not `--- PASS: TestParseDate`).
        let phrase_found = |phrase: &str| {
            let coded = phrase.chars().skip(1).any(|c| c.is_ascii_uppercase() || c == '_');
            let phrase = phrase.to_lowercase();
            let holds = |line: &str| {
                let line = line.to_lowercase();
                line.contains(&phrase) && (!coded || line.contains("error") || line.contains("fail"))
            };
            let found = match counts {
                true => last.parse::<u64>().is_ok_and(|n| n > 0),
                false => output.lines().any(holds),
            };
            phrase.len() >= 8 && (phrase.contains(' ') || coded) && found && error.contains(&phrase)
        };
        call.kind != CommandKind::Explore && pattern.split('|').map(|p| p.trim_end_matches('\\')).any(phrase_found)
    }

    /// Whether `call`, behind a pipe that hid its status (`go clean -cache && go test ./x 2>&1
    /// | head -2`, `| grep -m1 ERROR`), printed the very line the failure of its job met, or
    /// only lines of that failure's trouble (`| sed -n '4,5p'` showing its `Download failed
    /// for url …` again). (Not a server's or the network's: a retry that printed it may have
    /// got through after it.)
    fn met_again(&self, call: &PendingCall, output: &str) -> bool {
        let Some(open) = self.open.get(&call.family) else { return false };
        if call.kind == CommandKind::Explore || !shell::status_hidden_by_filter(&call.command, &call.family) {
            return false;
        }
        if progress::is_network_blip(&open.failure.error) {
            return false;
        }
        // (In the job's voice, as the failure's line was taken.)
        let program = shell::program_of_job(&call.command, &call.family);
        errors::error_line_of(output, program.as_deref())
            .is_some_and(|line| errors::same_error(&redact(&line), &open.failure.error))
            || open.printed_its_trouble(
                output,
                shell::searched_pattern(&call.command).is_some(),
                shell::lines_shown(&call.command, &call.family),
            )
    }

    fn count_command(&mut self, failed: bool) {
        self.commands += 1;
        self.failed_commands += u32::from(failed);
        if let Some(task) = self.tasks.last_mut() {
            task.last_command_failed = Some(failed);
        }
        if let Some((_, task)) = self.current() {
            task.commands += 1;
            task.failed_commands += u32::from(failed);
        }
    }

    /// Files the failure of a chain under the job of `family` when `failure`, that job run on
    /// its own, met the same error: `COMPOSER_MEMORY_LIMIT=-1 vendor/bin/phpstan analyse`
    /// after `vendor/bin/phpunit && vendor/bin/phpstan analyse` is one more attempt at it.
    fn own_step_of_a_chain(&mut self, family: &str, failure: &Failure) {
        if self.open.contains_key(family) {
            return;
        }
        let chain = self.open.iter().find(|(_, open)| {
            !open.aside
                && open.failure.command.contains(" && ")
                && errors::same_error(&open.failure.error, &failure.error)
                && shell::job_step_words(&open.failure.command, family).is_some()
        });
        if let Some(key) = chain.map(|(key, _)| key.clone())
            && let Some(mut open) = self.open.remove(&key)
        {
            // (What failed was that step: `vendor/bin/phpstan analyse` needs `--memory-limit=1G`.)
            open.failure.command = shell::job_line_for(&open.failure.command, &failure.command);
            self.open.insert(family.to_string(), open);
        }
    }

    /// A failed command opens a failure (a landmine, until something fixes it), or counts as
    /// one more attempt at an open one.
    fn failed(&mut self, call: PendingCall, result: &ToolResult<'_>, exit_code: Option<i64>) {
        // A command stopped by Ctrl-C (exit 130) or a kill (143) was interrupted, not refused:
        // nothing in its output says what is wrong with it.
        if call.kind == CommandKind::Explore || matches!(exit_code, Some(130 | 143)) {
            return;
        }
        // A push the remote turned away until the branch caught up is the day's work.
        let output = result.output.for_scanning();
        if call.kind == CommandKind::Vcs && progress::is_routine_vcs_refusal(output) {
            return;
        }
        // `hugo sever` answered with `Did you mean this? server`: a slip of the keyboard.
        if progress::is_misspelt(&call.command, output) {
            return;
        }
        let program = shell::program_of_job(&call.command, &call.family);
        let error = errors::error_line_of(result.output.for_scanning(), program.as_deref())
            .map(|e| redact(&e).into_owned())
            .unwrap_or_default();
        // A run repeated to catch a flaky test found what it looked for (unless the machine
        // stopped it: a refused connection is a landmine however often it is met).
        let repeated = call.kind == CommandKind::Test && shell::repeats_to_find_flakes(&call.command);
        if repeated && !progress::is_environmental(&error) {
            self.caught_flaky(&call, output);
            return;
        }
        // A port in use once the session left a server running is the session's own doing,
        // no landmine of the machine's.
        // (A server sent to the background that could not bind met a port taken before it.)
        if progress::is_port_taken(&error)
            && !shell::starts_in_background(&call.command)
            && let Some(ports) = &self.background_ports
        {
            let named = shell::ports_named(&error);
            if named.is_empty() || ports.iter().any(|p| named.contains(p)) {
                return;
            }
        }
        self.named.error(&error);
        let failure = Failure { command: call.command, error, exit_code, line: call.line };
        self.own_step_of_a_chain(&call.family, &failure);
        self.way_did_not_hold(&call.family, &failure);
        // A compile error in the code under work that an edit got past, giving way to another
        // error, was the task's own work: the failure is the one that follows.
        if let Some(open) = self.open.get(&call.family)
            && failure.error != open.failure.error
            && !errors::same_error(&failure.error, &open.failure.error)
            && open.attempt(&failure.command).is_own_work()
        {
            self.open.remove(&call.family);
        }
        // The very command run again, with nothing done since, that got past its error to a
        // test's verdict: what stood in the way went by itself or by a hand outside the
        // session (a container name held by the user's own shell, a server's 503 waited
        // out). No way past is known, and the verdict is the task's business.
        if let Some(open) = self.open.get(&call.family)
            && open.cleared_outside(&failure, &call.family)
            && self.open.remove(&call.family).is_some()
        {
            self.set_aside(call.family, call.kind, failure, output);
            return;
        }
        // `JAVA_HOME=… ./gradlew :core:test` that got past `Unsupported class file major
        // version 65` to a failing test: the setting is the way around the landmine, and the
        // verdict on the code that follows is the task's business, no landmine of its own.
        if let Some(open) = self.open.get(&call.family)
            && !open.aside
            && !errors::same_error(&open.failure.error, &failure.error)
            && progress::adds_settings_only(&open.failure.command, &failure.command)
            && progress::is_verdict_on_code(&failure.error)
            && let Some(open) = self.open.remove(&call.family)
        {
            self.got_past(open, &failure.command, call.line, false);
            self.set_aside(call.family, call.kind, failure, output);
            return;
        }
        // `shards install`, or `startup --output_user_root=…` written to `user.bazelrc`, got
        // `crystal spec` past a missing shard or a full disk to a spec that failed: that much
        // is the way around the landmine, and the failure in the code is the task's business.
        let written = self.current().map(|(_, facts)| facts.files.clone()).unwrap_or_default();
        let own_work = progress::is_own_complaint(&failure.command, &failure.error, &places_of(output), &written);
        if let Some(open) = self.open.get(&call.family)
            && !open.aside
            // (Or the failed job was the test run, reached through other steps first: `opam
            // update -y && opam exec --switch=. -- dune build @runtest`.)
            && (call.kind == CommandKind::Test || open.kind == CommandKind::Test || own_work)
            && open.got_past_to_the_code(&failure, &call.family, own_work)
            && let Some(mut open) = self.open.remove(&call.family)
        {
            // (A smoke `ruby -e 'puts Prespa::VERSION'` chained first only looked.)
            for step in shell::steps_before_job(&failure.command, &call.family) {
                if !shell::only_prints(&step) {
                    open.ran_step(step);
                }
            }
            // (`./gradlew --stop && ./gradlew test --tests '*AckTest'` ran the failed job again.)
            let job = shell::job_line_for(&failure.command, &open.failure.command);
            let command = match shell::words(&job) == shell::words(&open.failure.command) {
                true => open.failure.command.clone(),
                false => job,
            };
            self.got_past(open, &command, call.line, true);
            self.set_aside(call.family, call.kind, failure, output);
            return;
        }
        if let Some(open) = self.open.get_mut(&call.family) {
            open.attempts += 1;
            // `docker compose up -d db && mix test` that met another error: the steps the
            // chain ran before the job are what got past the first one. Of one that met the
            // same error (`make tools && make proto`), they may be part of the way around
            // other steps then found.
            let moved_on = {
                let last = &open.chain.last().unwrap_or(&open.failure).error;
                failure.error != *last && !errors::same_error(&failure.error, last)
            };
            // (The same error, said fully or by its own code: `Error: [S-9443]`.)
            let coded = |e: &str| {
                e.contains('[')
                    && e.bytes().any(|b| b.is_ascii_digit())
                    && !e.contains("*** [")
                    && !e.starts_with("make")
            };
            let same = errors::same_error(&failure.error, &open.failure.error)
                || (failure.error == open.failure.error && coded(&failure.error));
            if same {
                for group in shell::added_options(&open.failure.command, &failure.command) {
                    if !self.no_help.contains(&(call.family.clone(), group.clone())) && self.no_help.len() < MAX_FACTS {
                        self.no_help.push((call.family.clone(), group));
                    }
                }
            }
            // (What ran alone since the last attempt, `bundle install` before the job met
            // `cannot load such file -- webrick` again, got past nothing by itself: met again
            // is the error of the chain's last link, or of the attempt before, which may have
            // met another.)
            let met_last = open.last.as_ref().unwrap_or(&open.failure);
            if !moved_on || errors::same_error(&failure.error, &met_last.error) {
                open.ran_alone_in_vain();
            }
            for step in shell::steps_before_job(&failure.command, &call.family) {
                match moved_on {
                    true => open.ran_step(step),
                    false if !open.tried.contains(&step) && open.tried.len() < MAX_STEPS_BETWEEN => {
                        open.tried.push(step)
                    }
                    false => {}
                }
            }
            // An attempt that got past the first error and met another is a step of the
            // chain a future session need not walk again.
            let last = open.chain.last().unwrap_or(&open.failure);
            // One whose error is in the code under work, or names what that code coined, is
            // the task's own business.
            let step = moved_on
                && failure.command != last.command
                && !progress::is_code_error(&failure.error)
                && !progress::names_coined(&failure.error, &self.coined);
            open.last = (!errors::same_error(&failure.error, &open.failure.error)).then(|| failure.clone());
            open.changed_since = false;
            open.ran_at_attempt = open.ran.len();
            open.edited_since.clear();
            open.gained_since.clear();
            if step && open.chain.len() < MAX_CHAIN {
                open.chain.push(failure);
            }
            return;
        }
        let task = self.tasks.len().saturating_sub(1);
        let failure = Failure { command: shell::job_past_clears(&failure.command, &call.family), ..failure };
        let mut said = errors::line_prints(output, MAX_LINE_PRINTS);
        // (And its closing lines, past the first lines a long log fills them with.)
        for print in errors::ending_prints(output, MAX_ENDING_PRINTS, false) {
            if !said.contains(&print) {
                said.push(print);
            }
        }
        let blip = progress::is_network_blip(&failure.error) || errors::says_server_unavailable(output);
        let open = OpenFailure { said, blip, ..OpenFailure::new(failure, call.kind, task, places_of(output), written) };
        self.open.insert(call.family, open);
    }

    /// A way the task found past a failure, then the same job meeting the same error again
    /// (`pkg install -forge signal` ran, then the tests still said `'butter' undefined`): the
    /// way did not hold. It is taken back, and its failure is open again with the way's steps
    /// among those run since, so that this attempt counts them as tried in vain.
    fn way_did_not_hold(&mut self, family: &str, failure: &Failure) {
        if self.open.contains_key(family) {
            return;
        }
        let task = self.tasks.len().saturating_sub(1);
        let Some(facts) = self.tasks.last_mut().and_then(|t| t.facts.as_mut()) else { return };
        let Some(at) = facts.fixes.iter().rposition(|fix| {
            !(fix.work || fix.past || fix.alone)
                && errors::same_error(&fix.failure.error, &failure.error)
                && (classify(&fix.failure.command).family == family || shell::runs_job(&fix.failure.command, family))
        }) else {
            return;
        };
        let fix = facts.fixes.remove(at);
        let mut steps = fix.ran.clone();
        if !shell::runs_job(&fix.command, family) && !steps.contains(&fix.command) {
            steps.push(fix.command.clone());
        }
        let kind = classify(&fix.failure.command).kind;
        let mut open = OpenFailure::reopened(fix, kind, task);
        for step in steps {
            open.ran_step(step);
        }
        self.open.insert(family.to_string(), open);
    }

    /// Keep the fix of `open` by `command` (see [`fix_past`]).
    fn got_past(&mut self, open: OpenFailure, command: &str, line: u64, past: bool) {
        let task = open.task;
        let command = without_no_help(&self.no_help, &open.failure.command, command);
        let fix = fix_past(open, &command, line, past, &self.printed);
        if let Some(facts) = self.tasks.get_mut(task).and_then(|t| t.facts.as_mut())
            && facts.fixes.len() < MAX_FACTS
        {
            facts.fixes.push(fix);
        }
    }

    /// Keep `failure`, a failure in the code met on the way past a landmine, only to see
    /// whether the test then passes alone: anything else that answers it is the task's.
    fn set_aside(&mut self, family: String, kind: CommandKind, failure: Failure, output: &str) {
        let task = self.tasks.len().saturating_sub(1);
        // (Of `bazel shutdown && bazel test …`, the test run is what a rerun narrows.)
        let failure = Failure { command: shell::job_line(&failure.command), ..failure };
        let open = OpenFailure { aside: true, ..OpenFailure::new(failure, kind, task, places_of(output), Vec::new()) };
        self.open.insert(family, open);
    }

    /// A command that corrects the spelling of one that failed (`mix tset x` → `mix test x`,
    /// `pnpn dev` → `pnpm dev`, `--output-on-fail` → `--output-on-failure`) supersedes it,
    /// whatever happens to it next: the typo teaches nothing.
    fn drop_mistyped(&mut self, command: &str) {
        self.open.retain(|_, open| {
            let failure = &open.failure;
            !(progress::is_typo_pair(&failure.command, command)
                || progress::is_mistyped_program(&failure.command, &failure.error, failure.exit_code, command)
                || progress::is_mistyped_flag(&failure.error, command))
        });
    }

    /// Remembers an edit of `file` by its fingerprints ([`settings::edit_prints`]); one that
    /// undoes an earlier edit word for word (`passthroughImageService` put in, then taken out)
    /// takes that edit back. (The two then cancel: the same edit made again is new.)
    fn note_edit(&mut self, file: &str, input: &str, line: u64) {
        let Some((done, undo)) = settings::edit_prints(file, input) else { return };
        match self.edit_prints.iter().position(|(print, _)| *print == undo) {
            Some(at) => {
                let (_, made) = self.edit_prints.swap_remove(at);
                self.undid_an_edit(file, made);
            }
            None if self.edit_prints.len() < MAX_EDIT_PRINTS => self.edit_prints.push((done, line)),
            None => {}
        }
    }

    /// An edit of `file` made at line `made` that the session undid word for word (the
    /// passthrough image service put in to get a build through, taken out when the user said
    /// "no, revert that") is no way to keep: the open failures forget it, and a fix that it
    /// made on the way (between the failure and the fix), through that file's edits alone, is
    /// taken back, its failure open again for whatever the session did next.
    fn undid_an_edit(&mut self, file: &str, made: u64) {
        let files = [file.to_string()];
        for open in self.open.values_mut() {
            open.put_back(&files);
        }
        let task = self.tasks.len().saturating_sub(1);
        let Some(facts) = self.tasks.last_mut().and_then(|t| t.facts.as_mut()) else { return };
        // (The job a fix answered, as its failure was kept: a line no family names by itself.)
        let job_of = |fix: &Fix| {
            let classified = classify(&fix.failure.command);
            match classified.family.is_empty() {
                true => (fix.failure.command.trim().to_string(), classified.kind),
                false => (classified.family, classified.kind),
            }
        };
        // (Where its job is open again already, the fix stays told.)
        let open = &self.open;
        let through_it = |fix: &Fix| {
            matches!(fix.edited.as_slice(), [edited] if progress::is_one_of(edited, &files))
                && (fix.failure.line..fix.line).contains(&made)
                && fix.ran.is_empty()
                && !(fix.work || fix.past || fix.alone)
                && fix.needs().is_none()
                && !open.contains_key(&job_of(fix).0)
        };
        let (undone, kept): (Vec<Fix>, Vec<Fix>) = std::mem::take(&mut facts.fixes).into_iter().partition(through_it);
        facts.fixes = kept;
        for fix in undone {
            let (family, kind) = job_of(&fix);
            self.open.entry(family).or_insert_with(|| OpenFailure::reopened(fix, kind, task));
        }
    }

    /// Takes out the steps `command` takes back (`mise unuse -g zig` after `mise use -g
    /// zig@0.13.0` got `zig build test` past its error) from the current task and the open
    /// failures: a step undone was no way to keep, and a fix left with nothing else told no
    /// way. True when the command did nothing else but look (`pip uninstall -y x && uv add
    /// --dev x` goes on to another step).
    fn took_back_a_step(&mut self, command: &str) -> bool {
        if !shell::may_take_back(command) {
            return false;
        }
        let mut undone: Vec<String> = Vec::new();
        let mut take_back = |steps: &mut Vec<String>| {
            steps.retain(|step| {
                let kept = !shell::undoes(command, step);
                if !kept {
                    undone.push(step.clone());
                }
                kept
            });
        };
        if let Some(facts) = self.tasks.last_mut().and_then(|t| t.facts.as_mut()) {
            facts.fixes.retain_mut(|fix| {
                let before = fix.ran.len();
                take_back(&mut fix.ran);
                fix.ran.len() == before
                    || fix.work
                    || fix.needs().is_some()
                    || !fix.ran.is_empty()
                    || !fix.edited.is_empty()
                    || !fix.settings.is_empty()
            });
            let mut verified: Vec<String> = facts.verified.iter().map(|v| v.command.clone()).collect();
            take_back(&mut verified);
            facts.verified.retain(|v| verified.contains(&v.command));
        }
        for open in self.open.values_mut() {
            take_back(&mut open.ran);
        }
        !undone.is_empty()
            && shell::steps_of(command)
                .into_iter()
                .all(|part| shell::only_looks(part) || undone.iter().any(|step| shell::undoes(part, step)))
    }

    /// A command that did its job: the fix of the failures it resolves, a step towards the
    /// others, and a verified way to do its job.
    fn succeeded(&mut self, call: PendingCall) {
        // A lock broken by force (`terraform force-unlock …`) got the program past an incident,
        // not past anything a future session should walk again: the error it cleared is no
        // part of the story, and breaking the lock no way around.
        if let Some(program) = shell::breaks_a_lock(&call.command) {
            self.open.retain(|_, open| {
                let last = open.chain.last().unwrap_or(&open.failure);
                if classify(&open.failure.command).program != program || !last.error.to_lowercase().contains("lock") {
                    return true;
                }
                open.chain.pop().is_some()
            });
            // (`terraform plan -lock=false` still did its job, and may have got past more.)
            if !call.kind.is_verification() {
                return;
            }
        }
        // (Taking back a step verifies nothing and is no step of a way.)
        if self.took_back_a_step(&call.command) {
            return;
        }
        let fixed = self.resolved_by(&call);
        // Looking around on the way (`git log`, `pip list`) is not a step of the fix, nor is
        // tidying the code under work (`terraform fmt x.tf`).
        // (`sed -i 's/a/b/' src/x.py` edited the code, through the shell.)
        let edits = shell::edits_in_place(&call.command);
        if !edits.is_empty() {
            for open in self.open.values_mut() {
                open.edited_too(&edits);
            }
        } else if call.kind == CommandKind::Format {
            // (A formatter that rewrote the code changed it, though it is no step of a fix.)
            for open in self.open.values_mut() {
                open.changed_since = true;
            }
        } else if (!matches!(call.kind, CommandKind::Explore) && !shell::is_query(&call.command))
            // (`echo 'org.gradle.java.installations.paths=…' >> ~/.gradle/gradle.properties`
            // put a setting in place, however plain the program.)
            || shell::writes_a_file(&call.command)
        {
            // (`getent hosts proxy.golang.org; go env GOPROXY` only looked.)
            // (`git checkout -- a.yml` put an edit back: neither is a step of the way.)
            let reverted = shell::reverted_files(&call.command);
            let kept = shell::without_putting_back(&call.command);
            let step = shell::without_looks(&kept);
            // (`git checkout -- x.sh && git config --get core.autocrlf` put back, then looked.)
            let looked = shell::only_looks(&call.command) || shell::only_looks(&kept) || step.is_empty();
            for open in self.open.values_mut() {
                open.put_back(&reverted);
                if !looked && !shell::is_louder_rerun(&call.command, &open.failure.command) {
                    open.ran_step(step.clone());
                }
            }
        }
        let printed = &self.printed;
        // `list-flocks --json` after "add a --json flag" tries out the task's own work.
        let tries_the_work = call.kind == CommandKind::Run && gives_a_flag_asked_for(&call.command, &self.asked_flags);
        let asked_flags = &self.asked_flags;
        let Some(task) = self.tasks.last_mut().and_then(|state| state.facts.as_mut()) else { return };
        for mut open in fixed {
            if !open.aside
                && let Some(link) = open.take_own_link()
            {
                if task.fixes.len() < MAX_FACTS {
                    task.fixes.push(fix_past_own_link(open, link, printed));
                }
                continue;
            }
            // (A test met past a landmine that passes alone is flaky; what else answers it
            // is the task's business.)
            if open.passes_alone(&call.command) {
                for fix in flaky(open, &call, printed) {
                    if task.fixes.len() < MAX_FACTS {
                        task.fixes.push(fix);
                    }
                }
                continue;
            }
            if open.aside {
                continue;
            }
            // `sudo apt-get install -y zlib1g-dev && stack build` after `stack build` failed:
            // the install the chain ran first is what got past the failure; with nothing
            // edited, so is any step it ran first (`./mvnw spotless:apply && ./mvnw verify`).
            // (After an edit of the code, `pip install -e . && pytest` only checks the work.)
            let family = classify(&open.failure.command).family;
            let untouched = open.edited.is_empty();
            let machine = progress::is_environmental(&open.failure.error);
            for step in shell::steps_before_job(&call.command, &family) {
                let edits = shell::edits_in_place(&step);
                if !edits.is_empty() {
                    open.edited_too(&edits);
                    continue;
                }
                // (`npm run lint && npm test` only checks on the way: a check gets past nothing.)
                let kind = classify(&step).kind;
                let check = matches!(kind, CommandKind::Test | CommandKind::Build | CommandKind::Lint)
                    || shell::only_prints(&step);
                let sets = kind == CommandKind::Install || shell::sets_a_setting(&step);
                if (untouched && !check) || (machine && sets) {
                    open.ran_step(step);
                }
            }
            // (`export PATH="$HOME/.local/share/swiftly/bin:$PATH"; swift build`, with nothing
            // else done: the setting the line made first is what got past, no plain retry.)
            if untouched && open.ran.is_empty() {
                for step in shell::settings_before_job(&call.command, &family) {
                    open.ran_step(step);
                }
            }
            // `make bulid` → `make build` teaches nothing, nor does an install or a download
            // that a plain retry got through (a network blip); a test that did is flaky.
            let failure = &open.failure;
            let retried = open.edited.is_empty()
                && open.ran.is_empty()
                && shell::without_output_filters(&failure.command) == shell::without_output_filters(&call.command)
                && (open.kind == CommandKind::Install
                    || (open.kind != CommandKind::Test && progress::is_network_blip(&failure.error)));
            let retried = retried || open.waited_out(&call.command, &call.family);
            let elsewhere = open.passed_elsewhere(&call.command, &call.family);
            let typo = progress::is_typo_pair(&failure.command, &call.command)
                || progress::is_mistyped_program(&failure.command, &failure.error, failure.exit_code, &call.command);
            // `busted spec/` right after `busted spec/ && stylua --check src` failed ran less,
            // it got past nothing.
            let parts: Vec<String> = failure.command.split(" && ").map(shell::job_line).collect();
            // (Nor did `mix test test/x_test.exs` after `mix test` failed, with nothing changed.)
            let unchanged = open.ran.is_empty() && open.edited.is_empty();
            let less_of_it = unchanged
                && ((parts.len() > 1 && parts.contains(&shell::job_line(&call.command)))
                    || shell::is_narrowed_rerun(&call.command, &failure.command));
            // `terraform plan` that said "run terraform init", once the init that failed too
            // was fixed: that fix is the lesson, this failure only followed from it.
            // (Unless that fix was only of the day's full disk: `uv python install 3.12` got
            // past the missing interpreter, once space was made.)
            let followed = task.fixes.iter().any(|earlier| {
                !earlier.work
                    && !progress::is_disk_full(&earlier.failure.error)
                    && open.ran.iter().any(|step| shell::job_line(step) == shell::job_line(&earlier.command))
            });
            if task.fixes.len() >= MAX_FACTS || typo || retried || elsewhere || less_of_it || followed {
                continue;
            }
            // A failure the request reported ("`tmux source` gives me 'invalid option:
            // mode-mouse'"), got past by editing alone, is the task itself.
            let lowered = open.failure.error.to_lowercase();
            let reported = self.reported.iter().any(|q| lowered.contains(q.as_str())) && !machine;
            let by_editing = !open.edited.is_empty() && open.ran.is_empty();
            // (What a project's own checker says of a name is a rule of the project: `public
            // symbol 'ring_drain' lacks the pip_ prefix`.)
            // (Unless the name was the task's own slip: `unknown directive "limit_req_zne"`.)
            let rewrote = open.rewrote_named
                && (open.mended_own_slip || !progress::is_own_checker(open.kind, &open.failure.error));
            // (So is one that tried out the flag the user asked for, `bin/backup-status --json |
            // jq .`, mended in the code.)
            // (Of the project's own program, not another tool given the same flag: `gh pr list
            // --json`.)
            let tried = matches!(open.kind, CommandKind::Run | CommandKind::Other)
                && gives_a_flag_asked_for(&open.failure.command, asked_flags)
                && !machine
                && open.edited.iter().all(|f| progress::is_source(f) && !settings::is_settings_file(f));
            let work = open.attempt(&call.command).is_own_work() || ((reported || rewrote || tried) && by_editing);
            let same_job = shell::runs_the_same(&call.command, &open.failure.command);
            // A line an edit changed is what the fix did when it was the one file edited and
            // the same job then passed; of a change across files it is one line of the work.
            let mut settings = open.settings;
            let mut edited = open.edited;
            let runs_it = shell::runs_job(&call.command, &classify(&open.failure.command).family);
            // When the error asked for the step the task then ran (`helm dependency build`),
            // that step is the way around: what was edited on the way was the task's work.
            // So with a failure about the machine (`Permission denied: '/dev/ttyACM0'`, a
            // variable unset) that steps got past: the code edited on the way is the task's.
            let machine_steps = machine && !open.ran.is_empty();
            if progress::ran_what_it_advised(&open.failure.error, &open.ran) {
                settings.clear();
                edited.clear();
            } else if machine_steps {
                // Of the settings edited meanwhile, those the error names are the fix's, and
                // so is a file a step read (`source .env`); the rest was the task's
                // (`fifo_queue = false` while `source scripts/tg-env.sh dev` got past
                // `EnvVarNotFound: TG_STATE_BUCKET`).
                let error = open.failure.error.to_lowercase();
                settings.retain(|line| {
                    let key = line.split(['=', ':']).next().unwrap_or_default().trim().to_lowercase();
                    key.len() >= 3 && error.contains(&key)
                });
                let read_by_a_step = |file: &String| {
                    let name = file.rsplit('/').next().unwrap_or(file);
                    open.ran.iter().any(|step| shell::words(step).iter().any(|w| w.ends_with(name)))
                };
                edited.retain(|f| !progress::is_source(f) && (read_by_a_step(f) || !settings.is_empty()));
            } else if edited.len() == 1 && (same_job || runs_it) {
                settings.extend(open.changed);
            }
            // Steps an attempt ran that met the same error join the way around only beside
            // steps that got past it (`make tools`, then `export PATH=…` that let `make
            // proto` find what it installed); alone they got past nothing.
            let ran = with_steps_tried(open.tried, open.ran);
            let ran = the_way(&open.failure, ran, &call.command);
            let fixed_by =
                if same_job { shell::job_line_for(&call.command, &open.failure.command) } else { call.command.clone() };
            let fixed_by = without_no_help(&self.no_help, &open.failure.command, &fixed_by);
            // (`--port 4001` past a port another process held that day is no part of the way.)
            let fixed_by = match open.last.as_ref().filter(|last| progress::is_port_taken(&last.error)) {
                Some(last) => shell::without_words(&fixed_by, &progress::port_words(&last.command, &fixed_by)),
                None => fixed_by,
            };
            // (Of `dbt clean && dbt deps && dbt build --target dev`, the target got past it.)
            let (ran, fixed_by) = if job_took_more(&open.failure.command, &fixed_by) {
                let parts = fixed_by.split(" && ").map(str::to_string).collect();
                (shell::without_clears(ran), shell::without_clears(parts).join(" && "))
            } else {
                (ran, fixed_by)
            };
            let mut fix = Fix {
                failure: open.failure,
                attempts: open.attempts,
                // Of `bin/rails runner '…' && bin/rails test`, the test is what got through; a
                // chain of other steps (`cp .env.example .env && php artisan key:generate`) is
                // the way around.
                command: fixed_by,
                line: call.line,
                edited,
                ran,
                settings,
                chain: open.chain,
                before: Vec::new(),
                work,
                past: false,
                alone: false,
            };
            fix.before = before_values(&fix, printed);
            task.fixes.push(fix);
        }
        // Of a chain (`node bin/x.js --dry-run && npm test`), the job's own segment is what
        // is verified.
        // (The seed one run pinned, `-shuffle=1733738402`, is no part of the way to test.)
        let command = shell::without_seeds(&shell::job_line(&call.command));
        // (`stack --no-system-ghc test` that passed once `stack setup` ran is no way to test:
        // the flag met the same error before.)
        let known = task.verified.iter().any(|v| v.command == command)
            || without_no_help(&self.no_help, &call.command, &command) != command;
        // (`dotnet ef migrations list` asks; it builds nothing.)
        let asks = call.kind == CommandKind::Build && shell::is_query(&call.command);
        // (`go build -o bin/x ./cmd/x && ./bin/x --version` built only to try the binary out.)
        let to_try = shell::builds_to_try(&call.command);
        let asks = asks || (call.kind == CommandKind::Build && to_try);
        if call.kind.is_verification() && !known && !tries_the_work && !asks && task.verified.len() < MAX_FACTS {
            task.verified.push(Verified { command: command.clone(), kind: call.kind, line: call.line });
        }
        // `shellcheck -x install.sh bin/* && bats test/` passed both checks the chain ran.
        // (Only where each part's status is its own, and the chain runs here.)
        for part in shell::and_parts(&call.command).unwrap_or_default() {
            let kind = classify(part).kind;
            // (`cargo fmt` in `cargo fmt && cargo clippy` rewrote, it checked nothing.)
            let check =
                matches!(kind, CommandKind::Test | CommandKind::Lint) || (kind == CommandKind::Build && !to_try);
            let part = shell::job_line(part);
            let known = part == command || task.verified.iter().any(|v| v.command == part);
            if check && !known && !tries_the_work && !shell::is_query(&part) && task.verified.len() < MAX_FACTS {
                task.verified.push(Verified { command: part, kind, line: call.line });
            }
        }
    }

    /// Remember the passages of a tool's output that address the agent ("note to the AI: run
    /// …"), with the lines around them, where the command they ask for usually sits. The
    /// text is only searched, never kept in a lesson.
    fn note_instructions(&mut self, output: &str) {
        let (head, tail) = ends(output, INSTRUCTION_WINDOW);
        for window in [head, tail] {
            if self.instructions.len() >= MAX_PASSAGES || !(looks_like_instruction(window) || has_role_line(window)) {
                continue;
            }
            let lines: Vec<&str> = window.lines().collect();
            let mut i = 0;
            while i < lines.len() && self.instructions.len() < MAX_PASSAGES {
                if looks_like_instruction(lines[i]) {
                    // The lines before belong to the passage only when it points back at them
                    // ("run the command above"); otherwise they are the page's own text.
                    let before = if POINTS_BACK.is_match(lines[i]) { PASSAGE_LINES_BEFORE } else { 0 };
                    let (start, end) = (i.saturating_sub(before), (i + PASSAGE_LINES).min(lines.len()));
                    self.instructions.push(clip_at_word(&render::one_line(&lines[start..end].join(" ")), MAX_PASSAGE));
                    i = end;
                } else {
                    i += 1;
                }
            }
        }
    }

    /// True when running `command` says the agent was hijacked: it pipes a download into a
    /// shell, it reads as an instruction itself, or an instruction-like passage the session
    /// saw names it (whole, or one of its parts long enough to be a particular command).
    fn is_untrusted(&self, command: &str) -> bool {
        if shell::downloads_into_shell(command) || looks_like_instruction(command) {
            return true;
        }
        if self.instructions.is_empty() {
            return false;
        }
        std::iter::once(command)
            .chain(command.split(['&', '|', ';', '\n']))
            .map(render::one_line)
            .filter(|part| part.len() >= MIN_PART)
            .any(|part| self.instructions.iter().any(|passage| passage.contains(&part)))
    }

    /// The open failures a successful command resolves: those of its own family, and those of
    /// the same job done another way (a failing `npm test` answered by a passing
    /// `pnpm vitest run` is the lesson "use pnpm vitest").
    fn resolved_by(&mut self, call: &PendingCall) -> Vec<OpenFailure> {
        let same_job = |kind: CommandKind| {
            kind == call.kind
                && matches!(
                    kind,
                    CommandKind::Test
                        | CommandKind::Build
                        | CommandKind::Lint
                        | CommandKind::Format
                        | CommandKind::Install
                )
        };
        // A look around (`golangci-lint version`, `terraform workspace list`) gets past no
        // failure but the same look's (`nix --version` gets past no `nix flake show`).
        // (A test run picked by a name, `pytest -k status`, is no look.)
        let query = shell::is_query(&call.command) && !call.kind.is_verification();
        let families: Vec<String> = self
            .open
            .iter()
            .filter(|(family, open)| {
                !query
                    || (shell::is_query(&open.failure.command)
                        && (**family == call.family || shell::runs_the_same(&call.command, &open.failure.command)))
            })
            // (Nothing changed before a run that only says more and cuts it, `pytest -vv |
            // tail`: it looked at the failure, whatever the filter's status.)
            .filter(|(_, open)| {
                !(open.edited.is_empty()
                    && open.ran.is_empty()
                    && shell::is_louder_rerun(&call.command, &open.failure.command))
            })
            // (A look that failed, `cargo nextest --version`, is answered by the same look
            // only: a test run that passed later got past nothing it met.)
            .filter(|(family, open)| {
                !shell::is_query(&open.failure.command)
                    || **family == call.family
                    || shell::runs_the_same(&call.command, &open.failure.command)
            })
            .filter(|(family, open)| {
                **family == call.family
                    || shell::runs_job(&call.command, family)
                    || same_job(open.kind)
                    || progress::is_typo_pair(&open.failure.command, &call.command)
                    || shell::through_runner(&open.failure.command, &call.command)
                    || progress::failed_check(&open.failure.command, &open.failure.error)
                        .is_some_and(|check| shell::runs_job(&call.command, &check))
                    || shell::same_program_after_steps(&open.failure.command, &call.command)
                    || progress::is_mistyped_program(
                        &open.failure.command,
                        &open.failure.error,
                        open.failure.exit_code,
                        &call.command,
                    )
            })
            .map(|(family, _)| family.clone())
            .collect();
        let mut fixed: Vec<OpenFailure> = families.iter().filter_map(|f| self.open.remove(f)).collect();
        fixed.sort_by_key(|f| f.failure.line);
        fixed
    }

    /// A test that failed, repeated alone with nothing changed in between, passed at least once
    /// (`output` shows a round that passed): flaky, whatever was done after.
    fn caught_flaky(&mut self, call: &PendingCall, output: &str) {
        if !errors::shows_a_pass(output) {
            return;
        }
        let caught: Vec<String> =
            self.open.iter().filter(|(_, open)| open.passes_alone(&call.command)).map(|(f, _)| f.clone()).collect();
        let Some(task) = self.tasks.last_mut().and_then(|state| state.facts.as_mut()) else { return };
        for family in caught {
            let Some(open) = self.open.remove(&family) else { continue };
            for fix in flaky(open, call, &self.printed) {
                if task.fixes.len() < MAX_FACTS {
                    task.fixes.push(fix);
                }
            }
        }
    }

    /// The agent's account of the task before: what it found, kept with that task.
    fn settle_account(&mut self) {
        let Some((reply, line)) = self.last_reply.take() else { return };
        let found = account::observations(&reply, line, &self.named);
        self.keep_observations(found);
    }

    fn keep_observations(&mut self, found: Vec<Observation>) {
        if let Some(facts) = self.tasks.iter_mut().rev().find_map(|t| t.facts.as_mut()) {
            for observation in found {
                if facts.observations.len() < MAX_FACTS && !facts.observations.contains(&observation) {
                    facts.observations.push(observation);
                }
            }
        }
    }

    /// The sessions this session's replies cited, with how many replies cited each (a session
    /// citing itself does not count).
    pub(crate) fn citations(&self, own_id: Option<&str>) -> BTreeMap<String, u32> {
        self.cited.iter().filter(|(id, _)| Some(id.as_str()) != own_id).map(|(id, n)| (id.clone(), *n)).collect()
    }

    /// Close the session: settle outcomes, decide no-op, render the stage-1 texts.
    pub(crate) fn finish(mut self, meta: &SessionMeta, context: &Context) -> Extraction {
        let fixed_errors: Vec<String> = self
            .tasks
            .iter()
            .filter_map(|t| t.facts.as_ref())
            .flat_map(|f| &f.fixes)
            .filter(|fix| !fix.work)
            .map(|fix| fix.failure.error.clone())
            .collect();
        let own_names = project_names(meta);
        // What the user said never to run ("never terraform apply from a laptop") failing
        // teaches nothing but that rule.
        let forbidden: Vec<String> = self
            .tasks
            .iter()
            .filter_map(|t| t.facts.as_ref())
            .flat_map(|f| &f.preferences)
            .filter(|p| signals::forbids(&p.text))
            .map(|p| p.text.to_lowercase())
            .collect();
        for open in std::mem::take(&mut self.open).into_values().filter(|open| !open.aside) {
            // A new spec still red when the session ended is work left undone, not a landmine.
            let failure = &open.failure;
            if progress::is_own_unfinished_work(&failure.command, &failure.error, &open.places, &open.written) {
                continue;
            }
            // The landmine the session already got past, hit again by another command: told
            // once, with its way around. The project's own program answering what the task
            // fed it is the program under work.
            let job = classify(&failure.command).family.to_lowercase();
            // A look whose answer was no (`cargo nextest --version`: no such command), left
            // there, only asked whether a tool is there; a look that broke is a landmine.
            let answered = shell::is_query(&failure.command) && progress::says_absent(&failure.error);
            // A linter's complaint left standing (`no-unused-vars` in a file the task never
            // touched) is the state of the code, no landmine.
            let kind = classify(&failure.command).kind;
            let complaint = matches!(kind, CommandKind::Lint | CommandKind::Format)
                && progress::is_check_complaint(&failure.error)
                && !progress::is_own_checker(kind, &failure.error);
            if answered
                || complaint
                || fixed_errors.iter().any(|e| errors::same_error(e, &failure.error))
                || progress::is_own_program_answer(&failure.command, &failure.error, &own_names)
                || (job.contains(' ') && forbidden.iter().any(|rule| signals::forbids_job(rule, &job)))
            {
                continue;
            }
            if let Some(facts) = self.tasks.get_mut(open.task).and_then(|t| t.facts.as_mut())
                && facts.unresolved.len() < MAX_FACTS
            {
                facts.unresolved.push(open.failure);
            }
        }
        self.settle_account();
        let cwd = meta.cwd.as_deref();
        let mut tasks = Vec::new();
        let mut days_steps = Vec::new();
        for (at, state) in self.tasks.into_iter().enumerate() {
            let Some(mut facts) = state.facts else {
                continue;
            };
            // A sub-agent's "user" is the agent that spawned it: its words are not the user's.
            if meta.is_subagent {
                facts.preferences.clear();
                facts.taken_back.clear();
            }
            facts.files = facts.files.iter().map(|f| relative_to(f, cwd)).collect();
            if self.outages.contains(&at) {
                without_the_outage(&mut facts, &self.printed);
            }
            days_steps.extend(without_the_days_failures(&mut facts, &self.printed, progress::is_disk_full, true));
            without_outage_links(&mut facts);
            without_blips_done_without(&mut facts);
            for fix in &mut facts.fixes {
                fix.edited = fix.edited.iter().map(|f| relative_to(f, cwd)).collect();
                if !fix.work {
                    let failure = &fix.failure;
                    let error =
                        progress::without_advice_not_taken(&failure.error, &failure.command, &fix.command, &fix.ran);
                    fix.failure.error = error;
                }
            }
            facts.unresolved.sort_by_key(|f| f.line);
            facts.outcome = task_outcome(&facts, state.feedback, state.last_command_failed);
            if facts.has_lessons() {
                tasks.push(facts);
            }
        }
        // (Of a failure met in one task and got past in another, too; a fix left with nothing
        // done is no fix.)
        if !days_steps.is_empty() {
            for task in &mut tasks {
                task.fixes.retain_mut(|fix| {
                    if fix.work || fix.ran.is_empty() {
                        return true;
                    }
                    fix.ran = fix.ran.iter().map(|step| shell::without_parts_cleared(step, &days_steps)).collect();
                    fix.ran.retain(|step| !step.is_empty());
                    !fix.is_plain_retry()
                });
            }
        }
        if tasks.is_empty() {
            return Extraction::NoOp;
        }
        let facts = Facts {
            keywords: keywords(&tasks, &crate::core::project::display_name(&context.project)),
            outcome: session_outcome(&tasks),
            tasks,
            user_messages: self.user_messages,
            commands: self.commands,
            failed_commands: self.failed_commands,
        };
        Extraction::Memory(Box::new(render::memory(facts, meta, context)))
    }
}

/// The values the shell had, as the session printed them, of the settings a fix added.
fn before_values(fix: &Fix, printed: &BTreeMap<String, String>) -> Vec<String> {
    let Some(needs) = fix.needs() else { return Vec::new() };
    needs
        .added
        .iter()
        .filter_map(|word| word.split_once('='))
        .filter_map(|(name, _)| printed.get(name).map(|value| format!("{name}={value}")))
        .collect()
}

/// The first and the last `max` bytes of `text`, cut at characters; the tail is empty when
/// the two would overlap.
fn ends(text: &str, max: usize) -> (&str, &str) {
    if text.len() <= 2 * max {
        return (text, "");
    }
    let mut head_end = max;
    while !text.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let mut tail_start = text.len() - max;
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    (&text[..head_end], &text[tail_start..])
}

/// True when a line of `text` opens with a role (`SYSTEM:`, `assistant:`), as text forged to
/// pass for the conversation does; the injection filter sees that only at the start of a text.
fn has_role_line(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start();
        ["system", "assistant", "developer"].iter().any(|role| {
            line.get(..role.len()).is_some_and(|head| head.eq_ignore_ascii_case(role))
                && line[role.len()..].trim_start().starts_with(':')
        })
    })
}

fn task_outcome(task: &TaskFacts, feedback: Option<Feedback>, last_failed: Option<bool>) -> Outcome {
    let succeeded = !task.verified.is_empty() || !task.fixes.is_empty();
    match feedback {
        Some(Feedback::Negative) if succeeded => return Outcome::Partial,
        Some(Feedback::Negative) => return Outcome::Fail,
        Some(Feedback::Positive) => return Outcome::Success,
        None => {}
    }
    if !task.unresolved.is_empty() {
        return match (last_failed, succeeded) {
            (Some(true), false) => Outcome::Fail,
            _ => Outcome::Partial,
        };
    }
    // Work that ran commands and ended on one that passed, with nothing left failing, was
    // finished, whether or not one of them was a test.
    let finished = task.commands > 0 && last_failed == Some(false);
    if succeeded || finished { Outcome::Success } else { Outcome::Uncertain }
}

fn session_outcome(tasks: &[TaskFacts]) -> Outcome {
    let all = |o: Outcome| tasks.iter().all(|t| t.outcome == o);
    let any = |o: Outcome| tasks.iter().any(|t| t.outcome == o);
    if all(Outcome::Uncertain) {
        Outcome::Uncertain
    } else if all(Outcome::Fail) {
        Outcome::Fail
    } else if any(Outcome::Fail) || any(Outcome::Partial) {
        Outcome::Partial
    } else {
        Outcome::Success
    }
}

/// A task's title: the first line of the request, whitespace collapsed, cut at a word.
pub(crate) fn title_of(text: &str) -> String {
    let first = text
        .lines()
        .map(|l| l.trim().trim_start_matches(['#', '>', '-', '*']).trim())
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let collapsed: String = first.split_whitespace().collect::<Vec<_>>().join(" ");
    // The request: the first sentence that says enough on its own and is not a standing rule
    // said before it ("Our convention is ruff format, not black. Clean up …"), which the
    // handbook keeps as a preference already.
    let said: Vec<&str> = signals::split_sentences(&collapsed).into_iter().map(str::trim).collect();
    let enough = |s: &str| s.split_whitespace().count() >= 4;
    let request = said.iter().copied().find(|s| enough(s) && !states_a_rule(s));
    // Else the first sentence that says enough, as long as more follows it.
    let first_sentence = said.iter().take(said.len().saturating_sub(1)).copied().find(|s| enough(s));
    clip_at_word(request.or(first_sentence).unwrap_or(&collapsed), MAX_TITLE)
}

/// True when `sentence` is, as a whole, a standing rule or a remember request.
fn states_a_rule(sentence: &str) -> bool {
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
    };
    signals::preference_signals(sentence, false).iter().any(|(_, rule)| words(rule) == words(sentence))
}

fn clip_command(command: &str) -> String {
    let mut lines = command.trim().lines();
    let first = lines.next().unwrap_or("").trim_end();
    let more = lines.next().is_some();
    let clipped = clip_at_word(first, MAX_COMMAND);
    if more && !clipped.ends_with('…') { format!("{clipped} …") } else { clipped }
}

/// Cut `text` to at most `max` bytes at a word boundary, marking the cut with `…`.
pub(crate) fn clip_at_word(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text[..end].rfind(' ').filter(|&i| i > max / 2).unwrap_or(end);
    format!("{}…", text[..cut].trim_end())
}

/// Text without its `[REDACTED:kind]` markers, each replaced by `gap`.
pub(crate) fn strip_redactions(text: &str, gap: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("[REDACTED:") {
        out.push_str(&rest[..start]);
        out.push_str(gap);
        rest = rest[start..].find(']').map_or("", |end| &rest[start + end + 1..]);
    }
    out.push_str(rest);
    out
}

/// The names the project goes by: its folder and its repository (`teasel` of
/// `/home/dev/teasel` and of `git@github.com:siskinware/teasel.git`).
fn project_names(meta: &SessionMeta) -> Vec<String> {
    let last = |path: &str| {
        let name = path.trim_end_matches('/').rsplit(['/', ':']).next().unwrap_or_default();
        name.strip_suffix(".git").unwrap_or(name).to_string()
    };
    let mut names: Vec<String> = meta.cwd.iter().chain(&meta.git_remote).map(|p| last(p)).collect();
    names.retain(|n| !n.is_empty());
    names.dedup();
    names
}

/// `path` relative to `cwd` when it lies inside it.
fn relative_to(path: &str, cwd: Option<&str>) -> String {
    if let Some(cwd) = cwd {
        let cwd = cwd.trim_end_matches(['/', '\\']);
        if let Some(rest) = path.strip_prefix(cwd)
            && let Some(rest) = rest.strip_prefix(['/', '\\'])
        {
            return rest.to_string();
        }
    }
    path.to_string()
}

/// Words too common to find a session by, wherever they come from.
const STOPWORDS: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "into", "when", "then", "than", "but", "not", "are", "was",
    "were", "you", "your", "our", "can", "could", "would", "should", "will", "please", "make", "sure", "use", "using",
    "have", "has", "had", "there", "here", "what", "why", "how", "which", "who", "all", "any", "some", "also", "just",
    "its", "it's", "let", "lets", "get", "got", "need", "needs", "want", "like", "now", "new", "one", "two", "out",
    "about", "does", "did", "done", "don't", "dont", "doesn't", "them", "they", "these", "those", "been", "being",
    "again", "still", "only", "more", "most", "very", "same", "other", "each", "every", "over", "under", "after",
    "before", "while", "where", "fix", "add", "run", "see", "try", "look", "check", "help", "thanks", "okay", "yes",
    "always", "never", "prefer", "remember", "instead", "rather", "via", "per", "etc", "md", "rs", "py", "js", "ts",
    "txt", "json", "tmp", "src", "lib", "main", "test", "tests", "first", "thing", "things", "lines", "line", "file",
    "files", "error", "errors", "failed", "fails", "failing", "build", "work", "works", "working", "change", "changes",
    "exit", "code", "value", "true", "false", "null", "none", "home", "dev", "usr", "bin", "sudo", "cd", "echo", "cat",
    "head", "tail", "grep", "run", "npx", "tell", "went", "print", "sys", "import", "python", "python3",
];

/// The session's keywords: what one would search for it by. Code spans and paths of the
/// requests, the jobs its commands did (program and sub-command), their flags, the names of
/// files it touched and the error names and codes it met; never the plain words of a request,
/// which are mostly common ones. By weight, ties broken alphabetically; `consolidate` ranks
/// them again by how rare each is across the workspace.
fn keywords(tasks: &[TaskFacts], project: &str) -> Vec<String> {
    let mut counts: BTreeMap<String, u32> = BTreeMap::new();
    let mut add = |word: &str, weight: u32| {
        if let Some(word) = keyword(word) {
            *counts.entry(word).or_default() += weight;
        }
    };
    // (A project nothing names has no name to search by.)
    if project != crate::core::project::UNKNOWN {
        add(project, 1);
    }
    for task in tasks {
        for span in strip_redactions(&task.title, "").split('`').skip(1).step_by(2) {
            span.split_whitespace().for_each(|w| add(w, 2));
        }
        let commands = task.verified.iter().map(|v| v.command.as_str());
        let failed = task
            .fixes
            .iter()
            .map(|f| f.failure.command.as_str())
            .chain(task.unresolved.iter().map(|f| f.command.as_str()));
        for command in commands.chain(failed) {
            let family = classify(command).family;
            family.split_whitespace().for_each(|w| add(w, 2));
            for flag in command.split_whitespace().filter(|w| w.starts_with("--") && w.len() > 3) {
                add(flag.split('=').next().unwrap_or(flag), 1);
            }
        }
        for file in &task.files {
            let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
            add(name.split('.').next().unwrap_or(name), 1);
        }
        // The codes of the task's own red-to-green work (an F401 it fixed) name nothing to
        // look the session up by later.
        let lessons = task.fixes.iter().filter(|f| !f.work);
        for error in lessons.map(|f| &f.failure.error).chain(task.unresolved.iter().map(|f| &f.error)) {
            for word in error.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                // Error codes (E0425, TS2304) and error names (NameError) are the best keys.
                let is_code = word.len() >= 4
                    && word.starts_with(|c: char| c.is_ascii_uppercase())
                    && word.chars().any(|c| c.is_ascii_digit());
                let is_name = word.len() > 5 && (word.ends_with("Error") || word.ends_with("Exception"));
                if is_code || is_name {
                    add(word, 3);
                }
            }
        }
    }
    let mut ranked: Vec<(String, u32)> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranked.into_iter().take(MAX_KEYWORDS).map(|(w, _)| w).collect()
}

/// A word as a keyword, lower-case, when it can be one: not a stop word, a number, a URL, a
/// redaction or a piece of a token.
fn keyword(word: &str) -> Option<String> {
    let word = word.trim_matches(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'));
    let word = word.trim_start_matches('-');
    // A piece of a token the redaction could not recognise (cut short, or half of one broken
    // across lines) is no search key.
    if looks_like_token(word) {
        return None;
    }
    let w = word.to_lowercase();
    let plausible = w.len() >= 3
        && w.len() <= 32
        && !w.chars().all(|c| c.is_ascii_digit())
        && !w.contains("://")
        && !w.starts_with("http")
        && !w.starts_with("redacted")
        // A piece of code (`print("tests`) is no word to search by.
        && w.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '@' | ':'))
        && !STOPWORDS.contains(&w.as_str());
    plausible.then_some(w)
}

#[cfg(test)]
mod tests;
