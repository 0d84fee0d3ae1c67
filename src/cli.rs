//! Command-line flags, as clap derive types. The doc comments are the help text and the man
//! page; a flag that sets a setting takes its help, variable and default from
//! `config::table`, where the setting is declared once.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::builder::PossibleValue;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::config::EngineKind;
use crate::config::table;
use crate::config::value::{Days, Hours};
use crate::core::door::{Door, Shape};
use crate::core::session::Agent;

/// Distil coding-agent transcripts into a small handbook of durable lessons.
///
/// handbook reads the session transcripts that Codex CLI, Claude Code and other agents leave
/// on disk, extracts durable lessons per session (extract), and keeps them in a plain-file
/// workspace. It runs offline, writes nothing outside its home, and never changes a
/// transcript.
#[derive(Debug, Parser)]
#[command(name = "handbook", version, max_term_width = 100)]
#[command(
    after_help = "Exit status: 0 success, 1 nothing found (search) or something wrong (doctor), 2 error, 3 the workspace is locked by another run, 130 or 143 extract or update stopped by Ctrl-C or SIGTERM (what was finished is kept)."
)]
pub struct Cli {
    #[arg(long, global = true, value_name = "DIR", help = table::HOME.flag_help(), help_heading = GLOBAL)]
    pub(crate) home: Option<PathBuf>,

    #[arg(long, global = true, value_name = "FILE", help = table::CONFIG.flag_help(), help_heading = GLOBAL)]
    pub(crate) config: Option<PathBuf>,

    /// Print one JSON object per line on stdout instead of text (an error too, as the last line)
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub(crate) json: bool,

    /// Print only warnings and errors: no per-session lines, no coverage line, no progress bar
    #[arg(short, long, global = true, help_heading = GLOBAL)]
    pub(crate) quiet: bool,

    #[arg(long, global = true, value_enum, value_name = "WHEN", help = table::COLOR.flag_help(), help_heading = GLOBAL)]
    pub(crate) color: Option<ColorChoice>,

    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The heading the options every command takes are listed under, apart from the command's own.
const GLOBAL: &str = "Global options";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Read new and changed transcripts and extract their lessons (phase 1)
    ///
    /// Finds session files under each SOURCE (default: the agents' own session folders that
    /// exist), skips files unchanged since the last run (by size and modification time, then
    /// by content hash), leaves alone sessions still being written (--min-idle) and old ones
    /// (--max-age), and stores one stage-1 record per session in the workspace. Ends with a
    /// coverage line that accounts for every file.
    Extract(ExtractArgs),

    /// Merge the extracted lessons into the handbook (phase 2)
    ///
    /// Selects the stage-1 records to keep (by use, then recency; the top --max-raw-memories
    /// of those used or updated within --max-unused-days), rewrites raw_memories.md and
    /// rollout_summaries/ to exactly that selection, compares the workspace with the last good
    /// consolidation (a content-hash manifest), and, when something changed, rebuilds MEMORY.md
    /// and memory_summary.md. Hand edits to those two files and notes are kept. The new
    /// baseline is recorded only after the result is validated, so a failed run leaves its
    /// changes for the next one.
    Consolidate(ConsolidateArgs),

    /// Extract, then consolidate: the command for cron and timers
    ///
    /// Prints nothing unless something is wrong: warnings and errors go to stderr.
    Update(UpdateArgs),

    /// Print the summary for an agent's context, within a token cap
    ///
    /// Prints memory_summary.md, dropping its lowest-ranked entries whole (oldest topics first)
    /// until it fits --max-tokens (and --max-chars). With no handbook yet it prints nothing and
    /// exits 0.
    Summary(SummaryArgs),

    /// Search the handbook (or the transcripts) for what was learned, best match first
    ///
    /// Ranks the blocks of MEMORY.md, the entries of memory_summary.md, the rollout summaries
    /// and the notes by relevance (BM25; matches in headings, keywords and commands weigh
    /// more) and prints `path:line: text` for each, with its date and session. Paths are
    /// relative to the workspace. Words match as literals, ignoring case; a result may match
    /// any of them, and ranks higher the more it holds.
    ///
    /// With no words but --since or --until, lists the sessions of that period, newest first.
    ///
    /// --in transcripts searches the transcripts extraction has read, through the same readers
    /// and filter: reasoning, injected instructions and instruction files are never searched,
    /// and a record is shown only when its redacted text matches, so secrets never are.
    Search(SearchArgs),

    /// Write a note: a lesson in your own words, read first by the next consolidation
    Note(NoteArgs),

    /// Serve the handbook to an agent over MCP (stdio)
    ///
    /// A Model Context Protocol server on stdin and stdout, for an agent to start: tools to
    /// search the handbook, read a task group or rollout summary by the reference a result
    /// gives, list the projects and topics, and add a note. It reads the files as they are
    /// (never blocking a running update) and takes the workspace lock only to write a note.
    /// stdout carries only protocol messages; diagnostics go to stderr.
    Mcp(McpArgs),

    /// Stop learning from sessions and forget what they taught
    ///
    /// Marks each session (by id, or by its transcript's path) as excluded and removes its
    /// stage-1 record; the next consolidation removes what only those sessions supported.
    /// A session already forgotten is said to be; --undo takes a forget back.
    Forget(ForgetArgs),

    /// List the generations: each consolidation (or undo, review, promote) that changed the
    /// handbook, newest first
    ///
    /// Each line gives the generation's number, when it was made, by what (and which engine
    /// wrote its lessons), and how many sessions and lessons it added (+), changed (~) and
    /// removed (-). The last 20 are kept (keep_generations). A pending generation (review
    /// mode) is listed first.
    Log,

    /// Show what changed between two generations, or what the next consolidation would change
    ///
    /// With no generation: the pending change (review mode), or else what consolidating now
    /// would change. With one: from that generation to the current one. With two: from the
    /// first to the second. A generation is a number `handbook log` lists, `current` or
    /// `pending`. Prints the lessons added (+), changed (~) and removed (-) with their
    /// references, the files that changed, and a unified diff of MEMORY.md and
    /// memory_summary.md (of every file with --all-files).
    Diff(DiffArgs),

    /// Put the handbook back as a generation was (the one before the current by default)
    ///
    /// Restores MEMORY.md, memory_summary.md, raw_memories.md and rollout_summaries/ from the
    /// generation's stored copies, under the lock, as a new generation; notes are yours and
    /// stay as they are. Lessons and sessions the undo takes out stay out of later
    /// consolidations until new evidence arrives (a session with newer activity, or another
    /// session that supports the lesson), and the consolidation that brings one back says so.
    /// Stage-1 records are not touched, and a forgotten session never comes back.
    Undo(UndoArgs),

    /// Show the pending change lesson by lesson, and accept or reject it, all or in part
    ///
    /// With review on (config `review = true`, or `consolidate --review`), a consolidation
    /// keeps its result as a pending generation and the summary serves the accepted handbook.
    /// `review` lists each lesson added (+), changed (~) or removed (-) with the sessions
    /// behind it. --accept applies all of it, or only the lessons named; --reject holds the
    /// lessons named (or every one added or changed) out of the handbook until their evidence
    /// changes.
    Review(ReviewArgs),

    /// Write a lesson into a managed block of the project's AGENTS.md, CLAUDE.md or GEMINI.md
    ///
    /// The block is delimited by two marker lines and holds each promoted lesson with the date
    /// and the sessions behind it, redacted again; text outside it is never changed, and
    /// promoting a lesson twice changes nothing. The file is the project's own (the working
    /// tree of the lesson's newest session on this machine, or --project), for the team to
    /// review and commit like any change; a symbolic link that leads out of the project is
    /// refused. A promoted lesson is left out of your summary. --remove takes it out again.
    Promote(PromoteArgs),

    /// Say where a lesson came from and why it ranks where it does
    ///
    /// Prints the sessions, transcript lines and dates behind the lesson, its support and use
    /// counts, when it was last confirmed against its working tree (or why it is stale),
    /// whether it was promoted or held back, and its place in MEMORY.md and the summary with
    /// why. REF is a reference as `review`, `diff` and `log` give it (L-3f2a9c1b, or its first
    /// four digits or more), or a line of MEMORY.md as search results give it (MEMORY.md:42).
    Why(WhyArgs),

    /// Show coverage, the last runs, the summary's size, and a scan for secrets and
    /// instruction-like text
    Status,

    /// Remove the workspace and its state (keeps the notes and the list of forgotten
    /// sessions)
    Reset(ResetArgs),

    /// Open a door for the summary into an agent: a SessionStart hook, an extension, or an
    /// instructions file handbook keeps fresh
    ///
    /// Prints the change it would make to the agent's settings as a diff (or the file it would
    /// add). --write applies it, first copying each file it changes to
    /// `<file>.handbook-backup-<UTC time>` beside it; other settings stay as they were, and a
    /// second --write changes nothing. --remove takes out what integrate added and nothing
    /// else. --check says whether the door is in place and works: the command it runs is there,
    /// Codex trusts the hook, the summary fits what the agent keeps, a file door is fresh.
    /// With no AGENT, lists the agents found on this machine and the state of each door.
    Integrate(IntegrateArgs),

    /// Say what is wrong and how to fix it: sources, skipped sessions, doors, summary, config
    ///
    /// Looks for transcripts where the agents keep them, counts the sessions being skipped or
    /// failing and why, checks every door integrate set up (as integrate --check does), the
    /// summary against each door's cap, the config file's keys that nothing reads or that a
    /// variable or the default overrides, and scans the workspace for secrets and
    /// instruction-like text (as status does). Exits 0 when all is well, 1 when something is
    /// wrong.
    Doctor,

    /// Print a shell completion script on stdout
    ///
    /// bash: `handbook completions bash > ~/.local/share/bash-completion/completions/handbook`;
    /// zsh: into a folder of $fpath as `_handbook`; fish:
    /// `handbook completions fish > ~/.config/fish/completions/handbook.fish`; elvish and
    /// powershell: source the output from the shell's startup file.
    Completions(CompletionsArgs),

    /// Print the settings in effect, and where each came from
    ///
    /// Every setting, with its value and its origin: a flag, an environment variable, a key of
    /// the config file (with the file's path), or the default. An API key is never printed:
    /// only the name of the variable that holds it, and whether it is set. A model engine that
    /// lacks its model, key or command is reported as a warning.
    Config,
}

/// Whether `args` (the whole command line) ask for `summary` in hook mode: the subcommand, the
/// first word after the global flags, is `summary`, and `--hook`, or `--for` naming an agent
/// with a SessionStart hook, is among its own arguments (before any `--`). Decided on the words
/// so that even flags clap refuses cannot make hook mode fail: a flag it does not know, before
/// the subcommand (one a newer handbook wrote into an agent's hook line, say), is taken to
/// have no value.
pub(crate) fn asks_for_hook(args: &[OsString]) -> bool {
    let Some(words) = summary_words(args) else { return false };
    let hook_door = |name: &str| Door::from_name(name).is_some_and(|door| door.shape() == Shape::HookJson);
    words.iter().enumerate().any(|(i, word)| match *word {
        "--hook" => true,
        "--for" => words.get(i + 1).is_some_and(|name| hook_door(name)),
        word => word.strip_prefix("--for=").is_some_and(hook_door),
    })
}

/// Whether `args` (the whole command line) ask for `--json` before any `--`, so that a flag
/// clap refuses is reported as JSON too.
pub(crate) fn asks_for_json(args: &[OsString]) -> bool {
    args.iter().skip(1).take_while(|w| *w != "--").any(|w| w == "--json")
}

/// The colour `args` ask for with `--color WHEN` or `--color=WHEN` before any `--`, so that
/// a flag clap refuses is printed under the same colour rule as every other error.
pub(crate) fn asks_for_color(args: &[OsString]) -> Option<ColorChoice> {
    let words: Vec<&str> = args.iter().skip(1).take_while(|w| *w != "--").filter_map(|w| w.to_str()).collect();
    let value = words.iter().enumerate().rev().find_map(|(i, word)| match *word {
        "--color" => words.get(i + 1).copied(),
        word => word.strip_prefix("--color="),
    })?;
    ColorChoice::from_str(value, true).ok()
}

/// Whether `args` ask for `summary -v`, so hook mode says on stderr why it printed nothing;
/// decided on the words, like [`asks_for_hook`].
pub(crate) fn asks_for_verbose(args: &[OsString]) -> bool {
    summary_words(args).is_some_and(|words| words.iter().any(|w| *w == "-v" || *w == "--verbose"))
}

/// The words after `summary` (up to any `--`) when it is the subcommand; words that are not
/// UTF-8 count as a word no flag matches.
fn summary_words(args: &[OsString]) -> Option<Vec<&str>> {
    let command = Cli::command();
    let global = |word: &str| {
        command.get_arguments().find(|arg| match word.strip_prefix("--") {
            Some(long) => arg.get_long() == Some(long.split('=').next().unwrap_or(long)),
            None => word.len() == 2 && word.starts_with('-') && arg.get_short() == word.chars().nth(1),
        })
    };
    let mut words = args.iter().skip(1).map(|w| w.to_str());
    let subcommand = loop {
        let Some(Some(word)) = words.next() else { return None };
        match global(word) {
            // Its value is the next word, unless given as `--flag=value`.
            Some(arg) if arg.get_action().takes_values() && !word.contains('=') => {
                words.next();
            }
            Some(_) => {}
            None if word.starts_with('-') => {}
            None => break word,
        }
    };
    (subcommand == "summary").then(|| words.map(|w| w.unwrap_or("")).take_while(|w| *w != "--").collect())
}

#[derive(Debug, Args)]
pub(crate) struct ConsolidateArgs {
    #[command(flatten)]
    pub(crate) options: ConsolidateOptions,

    #[command(flatten)]
    pub(crate) engine: EngineArgs,

    #[arg(long, value_name = "SECONDS", value_parser = table::LOCK_WAIT.parser(), help = table::LOCK_WAIT.flag_help())]
    pub(crate) wait: Option<f64>,
}

/// The flags `consolidate` and `update` share.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct ConsolidateOptions {
    /// Consolidate even within the cooldown after the last consolidation
    #[arg(long)]
    pub(crate) force: bool,

    #[arg(long, value_name = "N", value_parser = table::MAX_RAW_MEMORIES.parser(), help = table::MAX_RAW_MEMORIES.flag_help())]
    pub(crate) max_raw_memories: Option<usize>,

    #[arg(long, value_name = "DAYS", value_parser = table::MAX_UNUSED_DAYS.parser(), help = table::MAX_UNUSED_DAYS.flag_help())]
    pub(crate) max_unused_days: Option<u32>,

    #[arg(long, help = table::REVIEW.flag_help())]
    pub(crate) review: bool,
}

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// From this generation [default: the current one, to the pending or next change]
    #[arg(value_name = "A")]
    pub(crate) from: Option<String>,

    /// To this generation [default: the current one]
    #[arg(value_name = "B")]
    pub(crate) to: Option<String>,

    /// Show the unified diff of every file, not only of MEMORY.md and memory_summary.md
    #[arg(long)]
    pub(crate) all_files: bool,
}

#[derive(Debug, Args)]
pub(crate) struct UndoArgs {
    /// The generation to go back to, as `handbook log` numbers it [default: the one before the
    /// current]
    #[arg(value_name = "GEN")]
    pub(crate) generation: Option<String>,

    #[arg(long, value_name = "SECONDS", value_parser = table::LOCK_WAIT.parser(), help = table::LOCK_WAIT.flag_help())]
    pub(crate) wait: Option<f64>,
}

#[derive(Debug, Args)]
pub(crate) struct ReviewArgs {
    /// Apply the pending change: all of it, or only the lessons named
    #[arg(long, value_name = "REF", num_args = 0.., conflicts_with = "reject")]
    pub(crate) accept: Option<Vec<String>>,

    /// Hold lessons out until their evidence changes: those named, or every lesson the pending
    /// change adds or changes (what it removes is proposed again)
    #[arg(long, value_name = "REF", num_args = 0..)]
    pub(crate) reject: Option<Vec<String>>,

    #[arg(long, value_name = "SECONDS", value_parser = table::LOCK_WAIT.parser(), help = table::LOCK_WAIT.flag_help())]
    pub(crate) wait: Option<f64>,
}

#[derive(Debug, Args)]
pub(crate) struct PromoteArgs {
    /// The lesson: its reference (L-3f2a9c1b, or four digits or more of it), or MEMORY.md:N
    #[arg(value_name = "REF")]
    pub(crate) lesson: String,

    /// The instruction file, at the project's root: AGENTS.md, CLAUDE.md or GEMINI.md
    #[arg(long, value_enum, value_name = "FILE", default_value_t = InstructionFile::Agents)]
    pub(crate) to: InstructionFile,

    /// The project's folder, when the lesson's own working tree is not on this machine (or to
    /// name another); its git root is used
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,

    /// Take the lesson out of the block instead (the block goes when it is left empty)
    #[arg(long)]
    pub(crate) remove: bool,

    #[arg(long, value_name = "SECONDS", value_parser = table::LOCK_WAIT.parser(), help = table::LOCK_WAIT.flag_help())]
    pub(crate) wait: Option<f64>,
}

/// The instruction files `promote` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InstructionFile {
    Agents,
    Claude,
    Gemini,
}

impl InstructionFile {
    pub(crate) const ALL: [InstructionFile; 3] =
        [InstructionFile::Agents, InstructionFile::Claude, InstructionFile::Gemini];

    pub(crate) fn name(self) -> &'static str {
        match self {
            InstructionFile::Agents => "AGENTS.md",
            InstructionFile::Claude => "CLAUDE.md",
            InstructionFile::Gemini => "GEMINI.md",
        }
    }
}

/// `--to` reads the file names themselves.
impl ValueEnum for InstructionFile {
    fn value_variants<'a>() -> &'a [Self] {
        &InstructionFile::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}

#[derive(Debug, Args)]
pub(crate) struct WhyArgs {
    /// The lesson: its reference (L-3f2a9c1b, or four digits or more of it), or MEMORY.md:N
    #[arg(value_name = "REF")]
    pub(crate) lesson: String,
}

#[derive(Debug, Args)]
pub(crate) struct UpdateArgs {
    #[command(flatten)]
    pub(crate) extract: ExtractArgs,

    #[command(flatten)]
    pub(crate) consolidate: ConsolidateOptions,
}

#[derive(Debug, Args)]
pub(crate) struct SummaryArgs {
    #[arg(long, value_name = "N", value_parser = table::SUMMARY_MAX_TOKENS.parser(), help = table::SUMMARY_MAX_TOKENS.flag_help())]
    pub(crate) max_tokens: Option<usize>,

    /// Character cap, on top of the token cap (Claude Code keeps 10,000 characters of hook output)
    #[arg(long, value_name = "N")]
    pub(crate) max_chars: Option<usize>,

    /// Only the entries of the project DIR belongs to, besides the global sections (an empty
    /// DIR, as from an unset variable, means every project). In hook mode without it, the
    /// project of the `cwd` the agent sends on stdin
    #[arg(long, value_name = "DIR", value_parser = clap::value_parser!(std::ffi::OsString))]
    pub(crate) project: Option<std::ffi::OsString>,

    /// Print for one agent: its cap, its output shape and the wrapper it can read
    ///
    /// claude, codex and gemini get a SessionStart hook's JSON in hook mode (as with --hook),
    /// so `handbook summary --for claude` is a whole hook command. claude is held to 9,500
    /// characters (Claude Code shows the model only a 2 KB preview of hook output over 10,000);
    /// codex to 2,500 tokens and 3.8 characters a token by default (Codex's own per-hook limit:
    /// after raising the hook's additionalContextLimit, pass that number as --max-tokens);
    /// gemini gets a wrapper without angle brackets, and the summary's `<` and `>` as `&lt;` and
    /// `&gt;`, as Gemini CLI would escape them, so what is printed is what its model reads. pi
    /// and opencode get plain text with only the configured caps. A lower --max-tokens or --max-chars still
    /// wins. Implies --prompt, since an agent needs the wrapper to treat memory as evidence
    /// and to cite what it used; --no-prompt prints the summary alone.
    #[arg(long = "for", value_enum, value_name = "AGENT")]
    pub(crate) door: Option<Door>,

    /// Wrap the summary in instructions for an agent: that memory is evidence and not orders,
    /// where the handbook is, how to look things up, and how to cite what it used
    #[arg(long)]
    pub(crate) prompt: bool,

    /// Print the summary without the instructions --for implies
    #[arg(long, conflicts_with = "prompt")]
    pub(crate) no_prompt: bool,

    /// Print a SessionStart hook's JSON ({"hookSpecificOutput": {"additionalContext": ...}}),
    /// scoped to the project of the `cwd` the agent sends on stdin; on any failure print
    /// nothing, on stdout or stderr, and exit 0, so a broken handbook never blocks an agent
    #[arg(long)]
    pub(crate) hook: bool,

    /// In hook mode, say on stderr what went wrong and which project was picked
    #[arg(short, long)]
    pub(crate) verbose: bool,

    /// Write to FILE (atomically, and only when its bytes change) instead of stdout, and keep
    /// it fresh: every consolidate, update or note that changes the summary rewrites FILE the
    /// same way, until FILE is deleted (`doctor` names it when it is stale or missing)
    #[arg(long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
}

impl SummaryArgs {
    /// Hook mode: `--hook`, or `--for` an agent that reads a SessionStart hook.
    pub(crate) fn hook_mode(&self) -> bool {
        self.hook || self.door.is_some_and(|door| door.shape() == Shape::HookJson)
    }
}

#[derive(Debug, Default, Args)]
pub(crate) struct IntegrateArgs {
    /// The agent: claude, codex, gemini, pi or opencode [default: every agent found]
    #[arg(value_name = "AGENT")]
    pub(crate) agent: Option<Door>,

    /// Apply the change
    #[arg(long, requires = "agent", conflicts_with_all = ["remove", "check"])]
    pub(crate) write: bool,

    /// Take out what integrate added (the hook, extension, instructions entry or MCP server
    /// it recognises as handbook's), backing up each file it changes
    #[arg(long, requires = "agent", conflicts_with = "check")]
    pub(crate) remove: bool,

    /// Say whether the door is in place and works; exits 2 when it does not
    #[arg(long, requires = "agent")]
    pub(crate) check: bool,

    /// The current repository's settings instead of the user's: .claude/settings.local.json,
    /// .codex/hooks.json, .gemini/settings.json, .pi/extensions/, opencode.json
    #[arg(long)]
    pub(crate) project_level: bool,

    /// Also register `handbook mcp` as an MCP server (Claude Code, Codex, Gemini CLI, opencode)
    #[arg(long)]
    pub(crate) mcp: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// Words to look for (with --regex, patterns)
    #[arg(value_name = "QUERY")]
    pub(crate) query: Vec<String>,

    /// Only results from this time on: 2026-11-20, an RFC 3339 time, 7d, 2w, 12h, today,
    /// yesterday (days are UTC)
    #[arg(long, value_name = "WHEN")]
    pub(crate) since: Option<String>,

    /// Only results up to this time; a date covers that whole day
    #[arg(long, value_name = "WHEN")]
    pub(crate) until: Option<String>,

    /// Only results from the project DIR belongs to
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,

    /// Where to search: memory (MEMORY.md, memory_summary.md), summaries (rollout_summaries/),
    /// notes, transcripts, all; repeat or separate with commas [default: memory,summaries,notes]
    #[arg(long = "in", value_enum, value_name = "WHERE", value_delimiter = ',')]
    pub(crate) within: Vec<SearchIn>,

    /// Read each word as a regular expression (Rust regex syntax)
    #[arg(long)]
    pub(crate) regex: bool,

    /// Match case exactly
    #[arg(long)]
    pub(crate) case_sensitive: bool,

    /// Show at most N results, and say how many more there were; 0 shows all [default: 20]
    #[arg(long, value_name = "N")]
    pub(crate) limit: Option<usize>,
}

/// What `search --in` can search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub(crate) enum SearchIn {
    Memory,
    Summaries,
    Notes,
    Transcripts,
    All,
}

#[derive(Debug, Args)]
pub(crate) struct NoteArgs {
    /// The note; `-` or nothing reads it from stdin
    #[arg(value_name = "TEXT")]
    pub(crate) text: Vec<String>,

    /// A title [default: the note's first line]
    #[arg(long, value_name = "TITLE")]
    pub(crate) title: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Log each request and its outcome on stderr
    #[arg(short, long)]
    pub(crate) verbose: bool,

    #[arg(long, value_name = "SECONDS", value_parser = table::LOCK_WAIT.parser(), help = table::LOCK_WAIT.flag_help())]
    pub(crate) wait: Option<f64>,
}

#[derive(Debug, Args)]
pub(crate) struct ForgetArgs {
    /// Session ids or transcript paths
    #[arg(value_name = "SESSION", required = true)]
    pub(crate) sessions: Vec<String>,

    /// Take a forget back: the session is read again at the next extract
    #[arg(long)]
    pub(crate) undo: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub(crate) struct ResetArgs {
    /// Do not ask for confirmation (required when stdin is not a terminal)
    #[arg(long)]
    pub(crate) yes: bool,

    /// Remove the notes too (they are kept otherwise)
    #[arg(long)]
    pub(crate) notes: bool,
}

#[derive(Debug, Clone, Default, Args)]
pub(crate) struct ExtractArgs {
    #[arg(value_name = "SOURCE", help = table::SOURCES.flag_help())]
    pub(crate) sources: Vec<PathBuf>,

    /// Read every file as this format instead of detecting it
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub(crate) format: Option<Agent>,

    #[arg(long, value_name = "DURATION", value_parser = table::MIN_IDLE.parser(), help = table::MIN_IDLE.flag_help())]
    pub(crate) min_idle: Option<Hours>,

    #[arg(long, value_name = "DURATION", value_parser = table::MAX_AGE.parser(), help = table::MAX_AGE.flag_help())]
    pub(crate) max_age: Option<Days>,

    /// Ignore the idle and age windows: read every session
    #[arg(long)]
    pub(crate) all: bool,

    #[arg(long, value_name = "N", value_parser = table::MAX_SESSIONS_PER_RUN.parser(), help = table::MAX_SESSIONS_PER_RUN.flag_help())]
    pub(crate) limit: Option<usize>,

    /// Only sessions with this id, or whose path contains this text (repeatable)
    #[arg(long, value_name = "ID")]
    pub(crate) session: Vec<String>,

    /// Show what would be extracted without writing anything
    #[arg(long)]
    pub(crate) dry_run: bool,

    #[arg(long, help = table::INCLUDE_SUBAGENTS.flag_help())]
    pub(crate) include_subagents: bool,

    #[arg(long, help = table::EXCLUDE_EXTERNAL_CONTEXT.flag_help())]
    pub(crate) exclude_external: bool,

    #[arg(long, value_name = "SECONDS", value_parser = table::LOCK_WAIT.parser(), help = table::LOCK_WAIT.flag_help())]
    pub(crate) wait: Option<f64>,

    #[arg(long, value_name = "N", value_parser = table::MAX_INPUT_TOKENS_PER_RUN.parser(), help = table::MAX_INPUT_TOKENS_PER_RUN.flag_help())]
    pub(crate) max_input_tokens_per_run: Option<u64>,

    #[arg(long, value_name = "N", value_parser = table::THREADS.parser(), help = table::THREADS.flag_help())]
    pub(crate) threads: Option<usize>,

    #[command(flatten)]
    pub(crate) engine: EngineArgs,
}

/// The engine a phase runs on, and how to reach its model. In `update` they apply to both
/// phases; `extract_engine`, `consolidate_engine`, `extract_model` and `consolidate_model`
/// in the config file (or `HANDBOOK_EXTRACT_ENGINE`, ...) set one phase.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct EngineArgs {
    #[arg(long, value_enum, value_name = "ENGINE", help = table::ENGINE.flag_help())]
    pub(crate) engine: Option<EngineKind>,

    #[arg(long, value_name = "MODEL", help = table::MODEL.flag_help())]
    pub(crate) model: Option<String>,

    #[arg(long, value_name = "URL", value_parser = table::BASE_URL.parser(), help = table::BASE_URL.flag_help())]
    pub(crate) base_url: Option<String>,

    #[arg(long, value_name = "NAME", value_parser = table::API_KEY_ENV.parser(), help = table::API_KEY_ENV.flag_help())]
    pub(crate) api_key_env: Option<String>,

    #[arg(long, value_name = "COMMAND", help = table::LLM_COMMAND.flag_help())]
    pub(crate) llm_command: Option<String>,

    #[arg(long, value_name = "SECONDS", value_parser = table::TIMEOUT.parser(), help = table::TIMEOUT.flag_help())]
    pub(crate) timeout: Option<f64>,

    #[arg(long, value_name = "N", value_parser = table::MAX_RETRIES.parser(), help = table::MAX_RETRIES.flag_help())]
    pub(crate) max_retries: Option<u32>,

    #[arg(long, value_name = "N", value_parser = table::CONTEXT_TOKENS.parser(), help = table::CONTEXT_TOKENS.flag_help())]
    pub(crate) context_tokens: Option<usize>,
}

/// `--format` reads the names [`Agent::name`] gives, so they are spelled in one place.
impl ValueEnum for Agent {
    fn value_variants<'a>() -> &'a [Self] {
        &Agent::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}

/// `--for` and `integrate` read the names [`Door::name`] gives.
impl ValueEnum for Door {
    fn value_variants<'a>() -> &'a [Self] {
        &Door::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(line: &str) -> bool {
        let args: Vec<OsString> =
            std::iter::once("handbook").chain(line.split_whitespace()).map(OsString::from).collect();
        asks_for_hook(&args)
    }

    #[test]
    fn hook_mode_is_summary_s_own_flag_after_the_global_ones() {
        assert!(hook("summary --hook"));
        assert!(hook("summary --prompt --bogus --hook"));
        assert!(hook("--home summary summary --hook"));
        assert!(hook("--home=/w -q --color never summary --hook"));
        let words = |line: &str| -> Vec<OsString> { line.split(' ').map(OsString::from).collect() };
        assert_eq!(asks_for_color(&words("handbook --color never --bogus")), Some(ColorChoice::Never));
        assert_eq!(asks_for_color(&words("handbook status --color=always")), Some(ColorChoice::Always));
        assert_eq!(asks_for_color(&words("handbook status -- --color never")), None);
        assert!(!hook("--home summary --hook"));
        assert!(!hook("note summary --hook"));
        assert!(!hook("search --hook summary"));
        assert!(!hook("summary -- --hook"));
        assert!(hook("--bogus summary --hook"), "an unknown flag never makes a hook fail");
        assert!(!hook("--bogus note summary --hook"));
    }

    #[test]
    fn for_a_hook_agent_is_hook_mode_and_for_the_others_is_not() {
        for door in ["claude", "codex", "gemini"] {
            assert!(hook(&format!("summary --for {door}")), "{door}");
            assert!(hook(&format!("summary --max-chars 9 --for={door} --bogus")), "{door}");
        }
        for line in ["summary --for pi", "summary --for opencode", "summary --for", "summary --for Claude"] {
            assert!(!hook(line), "{line}");
        }
        assert!(hook("summary --for pi --hook"));
        assert!(!hook("summary -- --for claude"));
        assert!(!hook("note --for claude"));
        let args = |line: &str| -> Vec<OsString> {
            std::iter::once("handbook").chain(line.split_whitespace()).map(OsString::from).collect()
        };
        assert!(asks_for_verbose(&args("summary --for claude -v")));
        assert!(asks_for_verbose(&args("-q summary --verbose --hook")));
        assert!(!asks_for_verbose(&args("summary --for claude")));
        assert!(!asks_for_verbose(&args("summary -- -v")));
        assert!(!asks_for_verbose(&args("note -v summary")));
    }

    #[test]
    fn the_hook_mode_of_parsed_flags_matches_the_words() {
        for line in [
            "summary --hook",
            "summary --for codex",
            "summary --for pi",
            "summary --prompt",
            "summary --for gemini --no-prompt",
        ] {
            let words: Vec<&str> = std::iter::once("handbook").chain(line.split_whitespace()).collect();
            let Command::Summary(args) = Cli::try_parse_from(&words).unwrap().command else { panic!("{line}") };
            assert_eq!(args.hook_mode(), hook(line), "{line}");
        }
        assert!(Cli::try_parse_from(["handbook", "summary", "--prompt", "--no-prompt"]).is_err());
    }
}
