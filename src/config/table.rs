//! Every setting, declared once: its flag, its environment variable, its config-file key, its
//! default, how its value is read and checked, and its help. The help text, the man page's
//! ENVIRONMENT section and the README's configuration table are made from here.

use std::path::PathBuf;

use jiff::{SignedDuration, Timestamp};

use crate::cli::ColorChoice;
use crate::config::EngineKind;
use crate::config::value::{Days, Hours, Kind, Problem};

/// One setting. `T` is the kind of value it holds.
pub(crate) struct Setting<T: 'static> {
    /// The config file's key (when `key`), and the name `handbook config` shows.
    pub(crate) name: &'static str,
    /// Whether the config file may set it.
    pub(crate) key: bool,
    pub(crate) env: Option<&'static str>,
    /// `--wait`, or a positional argument's `SOURCE...`.
    pub(crate) flag: Option<&'static str>,
    /// Names it had before, still read with a warning.
    pub(crate) old: Option<OldNames>,
    /// What it sets, in one sentence without a full stop.
    pub(crate) help: &'static str,
    /// What applies when nothing sets it, in words.
    pub(crate) default: &'static str,
    /// The bounds a value must keep, whatever its source: `Err("expected …")`.
    pub(crate) check: fn(&T) -> Result<(), &'static str>,
}

/// The names a setting was known by.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OldNames {
    pub(crate) env: &'static str,
    pub(crate) key: &'static str,
}

fn any<T>(_: &T) -> Result<(), &'static str> {
    Ok(())
}

impl<T> Setting<T> {
    /// The config file's key, when it has one.
    pub(crate) fn key(&self) -> Option<&'static str> {
        self.key.then_some(self.name)
    }

    /// The flag's help: what it sets, its variable and its default.
    pub(crate) fn flag_help(&self) -> String {
        let env = self.env.map(|env| format!(" [env: {env}]")).unwrap_or_default();
        format!("{}{env} [default: {}]", self.help, self.default)
    }
}

impl<T: Kind + Send + Sync + 'static> Setting<T> {
    /// The flag's parser: the same reading and bounds as for the variable and the key.
    pub(crate) fn parser(&'static self) -> impl Fn(&str) -> Result<T, Problem> + Clone + Send + Sync + 'static {
        move |text| {
            let value = T::from_text(text)?;
            (self.check)(&value).map_err(|bounds| Problem::Expected(bounds.to_string()))?;
            Ok(value)
        }
    }
}

/// The untyped parts of a setting, for the docs and the config file's list of keys.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub name: &'static str,
    pub(crate) key: Option<&'static str>,
    pub env: Option<&'static str>,
    pub flag: Option<&'static str>,
    pub(crate) old: Option<OldNames>,
    pub help: &'static str,
    pub default: &'static str,
}

/// A setting of any kind.
pub trait Declared: Sync {
    fn spec(&self) -> Spec;
}

impl<T: Kind + Send + Sync + 'static> Declared for Setting<T> {
    fn spec(&self) -> Spec {
        Spec {
            name: self.name,
            key: self.key(),
            env: self.env,
            flag: self.flag,
            old: self.old,
            help: self.help,
            default: self.default,
        }
    }
}

// Where the workspace and the configuration are, and how output looks.

pub(crate) static HOME: Setting<PathBuf> = Setting {
    name: "home",
    key: false,
    env: Some("HANDBOOK_HOME"),
    flag: Some("--home"),
    old: None,
    help: "Workspace directory",
    default: "$XDG_DATA_HOME/handbook or ~/.local/share/handbook",
    check: any,
};

pub(crate) static CONFIG: Setting<PathBuf> = Setting {
    name: "config",
    key: false,
    env: Some("HANDBOOK_CONFIG"),
    flag: Some("--config"),
    old: None,
    help: "Configuration file; one named by the flag or the variable must exist",
    default: "$XDG_CONFIG_HOME/handbook/config.toml",
    check: any,
};

pub(crate) const DEFAULT_COLOR: ColorChoice = ColorChoice::Auto;
pub(crate) static COLOR: Setting<ColorChoice> = Setting {
    name: "color",
    key: false,
    env: Some("HANDBOOK_COLOR"),
    flag: Some("--color"),
    old: None,
    help: "When to use colour on a terminal: auto, always or never (NO_COLOR set means never)",
    default: "auto",
    check: any,
};

/// Settings only the test suite sets (`HANDBOOK_NOW` fixes the clock, so a run's output can be
/// compared byte for byte): read like the others, but left out of the help, the man page and
/// the README, since no user should reach for them.
pub(crate) const TEST_ONLY: &[&str] = &["now"];

pub(crate) static NOW: Setting<Timestamp> = Setting {
    name: "now",
    key: false,
    env: Some("HANDBOOK_NOW"),
    flag: None,
    old: None,
    help: "The time a run treats as now (RFC 3339), for reproducible runs",
    default: "the clock",
    check: any,
};

pub(crate) const DEFAULT_SUMMARY_MAX_TOKENS: usize = 2500;
pub(crate) static SUMMARY_MAX_TOKENS: Setting<usize> = Setting {
    name: "summary_max_tokens",
    key: true,
    env: Some("HANDBOOK_SUMMARY_MAX_TOKENS"),
    flag: Some("--max-tokens"),
    old: None,
    help: "The summary's token cap, counted conservatively for the o200k tokenizer (consolidation and status keep to it too)",
    default: "2500",
    check: any,
};

// Extraction.

pub(crate) static SOURCES: Setting<Vec<PathBuf>> = Setting {
    name: "sources",
    key: true,
    env: None,
    flag: Some("SOURCE..."),
    old: None,
    help: "Transcript files or folders to read",
    default: "those of $CODEX_HOME/sessions, $CODEX_HOME/archived_sessions, $CLAUDE_CONFIG_DIR/projects, \
              $PI_CODING_AGENT_DIR/sessions, ~/.omp/agent/sessions, $GEMINI_CLI_HOME/.gemini/tmp, \
              opencode's data folder ($XDG_DATA_HOME/opencode) and $OPENCODE_DB that exist",
    check: any,
};

pub(crate) const DEFAULT_MIN_IDLE: Hours = Hours(SignedDuration::from_hours(6));
pub(crate) static MIN_IDLE: Setting<Hours> = Setting {
    name: "min_idle_hours",
    key: true,
    env: Some("HANDBOOK_MIN_IDLE_HOURS"),
    flag: Some("--min-idle"),
    old: None,
    help: "Skip sessions written to within this time: 6, 6h, 90m, 1d; a bare number is hours",
    default: "6h",
    check: any,
};

pub(crate) const DEFAULT_MAX_AGE: Days = Days(SignedDuration::from_hours(240));
/// What `handbook config` shows for the age window of the built-in engine when none is set.
pub(crate) const NO_AGE_WINDOW: &str = "none (the built-in engine reads every age)";
pub(crate) static MAX_AGE: Setting<Days> = Setting {
    name: "max_age_days",
    key: true,
    env: Some("HANDBOOK_MAX_AGE_DAYS"),
    flag: Some("--max-age"),
    old: None,
    help: "Skip sessions last active longer ago than this: 10, 10d, 2w; a bare number is days. Only a model engine has this window unless it is set: the built-in engine reads sessions of every age",
    default: "10d",
    check: any,
};

/// A model engine extracts at most this many sessions per run unless told otherwise.
pub(crate) const DEFAULT_MODEL_SESSIONS_PER_RUN: usize = 16;
pub(crate) static MAX_SESSIONS_PER_RUN: Setting<usize> = Setting {
    name: "max_sessions_per_run",
    key: true,
    env: Some("HANDBOOK_MAX_SESSIONS_PER_RUN"),
    flag: Some("--limit"),
    old: None,
    help: "Extract at most N sessions a run, newest first; the rest wait for the next run (0: no limit)",
    default: "no limit; 16 with a model engine",
    check: any,
};

pub(crate) static INCLUDE_SUBAGENTS: Setting<bool> = Setting {
    name: "include_subagents",
    key: true,
    env: Some("HANDBOOK_INCLUDE_SUBAGENTS"),
    flag: Some("--include-subagents"),
    old: None,
    help: "Also extract sub-agent sessions on their own",
    default: "false",
    check: any,
};

pub(crate) static EXCLUDE_EXTERNAL_CONTEXT: Setting<bool> = Setting {
    name: "exclude_external_context",
    key: true,
    env: Some("HANDBOOK_EXCLUDE_EXTERNAL_CONTEXT"),
    flag: Some("--exclude-external"),
    old: None,
    help: "Leave out sessions that used web search, web fetch or MCP tools (their output is never learned from either way)",
    default: "false",
    check: any,
};

pub(crate) static MAX_INPUT_TOKENS_PER_RUN: Setting<u64> = Setting {
    name: "max_input_tokens_per_run",
    key: true,
    env: Some("HANDBOOK_MAX_INPUT_TOKENS_PER_RUN"),
    flag: Some("--max-input-tokens-per-run"),
    old: None,
    help: "Stop calling the model once a run has sent this many input tokens; the remaining sessions wait for the next run",
    default: "no limit",
    check: any,
};

pub(crate) static THREADS: Setting<usize> = Setting {
    name: "threads",
    key: true,
    env: Some("HANDBOOK_THREADS"),
    flag: Some("--threads"),
    old: None,
    help: "Read and extract sessions on N threads; the output is the same with any number (0: one per core)",
    default: "one per core",
    check: |&n| if n <= 256 { Ok(()) } else { Err("expected at most 256 threads") },
};

pub(crate) const DEFAULT_LOCK_WAIT_SECONDS: f64 = 5.0;
pub(crate) static LOCK_WAIT: Setting<f64> = Setting {
    name: "lock_wait_seconds",
    key: true,
    env: None,
    flag: Some("--wait"),
    old: None,
    help: "Seconds to wait for another run to release the workspace lock",
    default: "5",
    check: |&s| if (0.0..=3600.0).contains(&s) { Ok(()) } else { Err("expected between 0 and 3600 seconds") },
};

// Consolidation.

pub(crate) const DEFAULT_MAX_RAW_MEMORIES: usize = 256;
pub(crate) static MAX_RAW_MEMORIES: Setting<usize> = Setting {
    name: "max_raw_memories",
    key: true,
    env: Some("HANDBOOK_MAX_RAW_MEMORIES"),
    flag: Some("--max-raw-memories"),
    old: None,
    help: "Sessions that feed the handbook at most",
    default: "256",
    check: |&n| if (1..=100_000).contains(&n) { Ok(()) } else { Err("expected between 1 and 100000") },
};

pub(crate) const DEFAULT_MAX_UNUSED_DAYS: u32 = 30;
pub(crate) static MAX_UNUSED_DAYS: Setting<u32> = Setting {
    name: "max_unused_days",
    key: true,
    env: Some("HANDBOOK_MAX_UNUSED_DAYS"),
    flag: Some("--max-unused-days"),
    old: None,
    help: "Sessions neither used nor updated for this many days drop out. Unless it is set, the built-in engine keeps every session for this long after the handbook's first consolidation, so a first run learns from all of the history",
    default: "30",
    // The longest span a setting holds (see `value::MAX_HOURS`).
    check: |&d| if d <= 41_666 { Ok(()) } else { Err("expected at most 41666 days") },
};

pub(crate) static REVIEW: Setting<bool> = Setting {
    name: "review",
    key: true,
    env: Some("HANDBOOK_REVIEW"),
    flag: Some("--review"),
    old: None,
    help: "Consolidate into a pending generation that `handbook review --accept` applies; until then the summary serves the accepted handbook",
    default: "false",
    check: any,
};

pub(crate) const DEFAULT_KEEP_GENERATIONS: usize = 20;
pub(crate) static KEEP_GENERATIONS: Setting<usize> = Setting {
    name: "keep_generations",
    key: true,
    env: Some("HANDBOOK_KEEP_GENERATIONS"),
    flag: None,
    old: None,
    help: "Generations kept for `handbook log`, `diff` and `undo`; older ones, and the stored copies only they need, are removed",
    default: "20",
    check: |&n| if (1..=1000).contains(&n) { Ok(()) } else { Err("expected between 1 and 1000") },
};

/// The built-in engine is cheap, so it may consolidate after every extract.
pub(crate) const DEFAULT_COOLDOWN: Hours = Hours(SignedDuration::from_hours(0));
/// A model costs money and time: it consolidates at most every six hours unless forced.
pub(crate) const DEFAULT_MODEL_COOLDOWN: Hours = Hours(SignedDuration::from_hours(6));
pub(crate) static CONSOLIDATE_COOLDOWN: Setting<Hours> = Setting {
    name: "consolidate_cooldown_hours",
    key: true,
    env: Some("HANDBOOK_CONSOLIDATE_COOLDOWN_HOURS"),
    flag: None,
    old: None,
    help: "The pause after a consolidation before the next one may run (consolidate --force skips it)",
    default: "0; 6h with a model engine",
    check: any,
};

// Engines: a phase's own setting first, then the one both phases share.

pub(crate) const DEFAULT_ENGINE: EngineKind = EngineKind::Builtin;
pub(crate) static ENGINE: Setting<EngineKind> = Setting {
    name: "engine",
    key: true,
    env: Some("HANDBOOK_ENGINE"),
    flag: Some("--engine"),
    old: None,
    help: "builtin (offline, deterministic), openai (any OpenAI-compatible server), anthropic, or command (any command-line LLM)",
    default: "builtin",
    check: any,
};

pub(crate) static EXTRACT_ENGINE: Setting<EngineKind> = Setting {
    name: "extract_engine",
    key: true,
    env: Some("HANDBOOK_EXTRACT_ENGINE"),
    flag: None,
    old: None,
    help: "The engine of extraction alone",
    default: "engine",
    check: any,
};

pub(crate) static CONSOLIDATE_ENGINE: Setting<EngineKind> = Setting {
    name: "consolidate_engine",
    key: true,
    env: Some("HANDBOOK_CONSOLIDATE_ENGINE"),
    flag: None,
    old: None,
    help: "The engine of consolidation alone",
    default: "engine",
    check: any,
};

pub(crate) static MODEL: Setting<String> = Setting {
    name: "model",
    key: true,
    env: Some("HANDBOOK_MODEL"),
    flag: Some("--model"),
    old: None,
    help: "The model to ask",
    default: "none",
    check: any,
};

pub(crate) static EXTRACT_MODEL: Setting<String> = Setting {
    name: "extract_model",
    key: true,
    env: Some("HANDBOOK_EXTRACT_MODEL"),
    flag: None,
    old: None,
    help: "The model of extraction alone",
    default: "model",
    check: any,
};

pub(crate) static CONSOLIDATE_MODEL: Setting<String> = Setting {
    name: "consolidate_model",
    key: true,
    env: Some("HANDBOOK_CONSOLIDATE_MODEL"),
    flag: None,
    old: Some(OldNames { env: "HANDBOOK_CONSOLIDATION_MODEL", key: "consolidation_model" }),
    help: "The model of consolidation alone",
    default: "model",
    check: any,
};

pub(crate) const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
pub(crate) const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
pub(crate) static BASE_URL: Setting<String> = Setting {
    name: "base_url",
    key: true,
    env: Some("HANDBOOK_BASE_URL"),
    flag: Some("--base-url"),
    old: None,
    help: "The server's base URL",
    default: "https://api.openai.com/v1 for openai, https://api.anthropic.com for anthropic",
    check: |url| {
        if url.starts_with("http://") || url.starts_with("https://") {
            Ok(())
        } else {
            Err("expected an http:// or https:// URL")
        }
    },
};

pub(crate) const OPENAI_KEY_ENV: &str = "OPENAI_API_KEY";
pub(crate) const ANTHROPIC_KEY_ENV: &str = "ANTHROPIC_API_KEY";
pub(crate) static API_KEY_ENV: Setting<String> = Setting {
    name: "api_key_env",
    key: true,
    env: Some("HANDBOOK_API_KEY_ENV"),
    flag: Some("--api-key-env"),
    old: None,
    help: "The environment variable that holds the API key (the key itself is never printed, logged or written)",
    default: "OPENAI_API_KEY, ANTHROPIC_API_KEY for anthropic",
    check: |name| if name.trim().is_empty() { Err("expected a variable's name") } else { Ok(()) },
};

pub(crate) static LLM_COMMAND: Setting<String> = Setting {
    name: "llm_command",
    key: true,
    env: Some("HANDBOOK_LLM_COMMAND"),
    flag: Some("--llm-command"),
    old: None,
    help: "The command the command engine runs through `sh -c`, prompt on stdin, answer on stdout: `llm -m gpt-4o-mini`, `ollama run llama3.2`, `claude -p`",
    default: "none",
    check: any,
};

pub(crate) const DEFAULT_TIMEOUT_SECONDS: f64 = 300.0;
pub(crate) static TIMEOUT: Setting<f64> = Setting {
    name: "timeout",
    key: true,
    env: Some("HANDBOOK_TIMEOUT"),
    flag: Some("--timeout"),
    old: None,
    help: "Seconds one model request (or command) may take",
    default: "300",
    check: |&s| if 0.0 < s && s <= 86_400.0 { Ok(()) } else { Err("expected more than 0 and at most 86400 seconds") },
};

pub(crate) const DEFAULT_MAX_RETRIES: u32 = 3;
pub(crate) static MAX_RETRIES: Setting<u32> = Setting {
    name: "max_retries",
    key: true,
    env: Some("HANDBOOK_MAX_RETRIES"),
    flag: Some("--max-retries"),
    old: None,
    help: "Retries of a request answered with 408, 429 or a 5xx status, or whose connection was refused or dropped (one that timed out is not retried)",
    default: "3",
    check: |&n| if n <= 20 { Ok(()) } else { Err("expected a whole number from 0 to 20") },
};

pub(crate) const DEFAULT_RETRY_DELAY_SECONDS: f64 = 1.0;
pub(crate) static RETRY_DELAY: Setting<f64> = Setting {
    name: "retry_delay",
    key: true,
    env: Some("HANDBOOK_RETRY_DELAY"),
    flag: None,
    old: None,
    help: "Seconds before the first retry; each later one waits twice as long (with jitter)",
    default: "1",
    check: |&s| if (0.0..=600.0).contains(&s) { Ok(()) } else { Err("expected between 0 and 600 seconds") },
};

pub(crate) const DEFAULT_CONTEXT_TOKENS: usize = 32_000;
pub(crate) static CONTEXT_TOKENS: Setting<usize> = Setting {
    name: "context_tokens",
    key: true,
    env: Some("HANDBOOK_CONTEXT_TOKENS"),
    flag: Some("--context-tokens"),
    old: None,
    help: "The model's context window, in tokens; transcripts are cut to fit it",
    default: "32000",
    check: |&n| if (1024..=10_000_000).contains(&n) { Ok(()) } else { Err("expected between 1024 and 10000000") },
};

/// Every setting, in the order the docs and `handbook config` list them.
pub static ALL: &[&dyn Declared] = &[
    &HOME,
    &CONFIG,
    &COLOR,
    &NOW,
    &SUMMARY_MAX_TOKENS,
    &SOURCES,
    &MIN_IDLE,
    &MAX_AGE,
    &MAX_SESSIONS_PER_RUN,
    &INCLUDE_SUBAGENTS,
    &EXCLUDE_EXTERNAL_CONTEXT,
    &MAX_INPUT_TOKENS_PER_RUN,
    &THREADS,
    &LOCK_WAIT,
    &MAX_RAW_MEMORIES,
    &MAX_UNUSED_DAYS,
    &REVIEW,
    &KEEP_GENERATIONS,
    &CONSOLIDATE_COOLDOWN,
    &ENGINE,
    &EXTRACT_ENGINE,
    &CONSOLIDATE_ENGINE,
    &MODEL,
    &EXTRACT_MODEL,
    &CONSOLIDATE_MODEL,
    &BASE_URL,
    &API_KEY_ENV,
    &LLM_COMMAND,
    &TIMEOUT,
    &MAX_RETRIES,
    &RETRY_DELAY,
    &CONTEXT_TOKENS,
];

/// A variable read for what it means elsewhere, not as a setting of handbook's own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Variable {
    pub(crate) name: &'static str,
    pub(crate) help: &'static str,
}

/// The other variables handbook reads.
pub(crate) static OTHER_VARIABLES: &[Variable] = &[
    Variable { name: "NO_COLOR", help: "Any value means no colour, unless --color says otherwise" },
    Variable {
        name: "OPENAI_API_KEY",
        help: "The API key of the openai engine, unless api_key_env names another variable",
    },
    Variable {
        name: "ANTHROPIC_API_KEY",
        help: "The API key of the anthropic engine, unless api_key_env names another variable",
    },
    Variable { name: "CODEX_HOME", help: "Codex's folder, whose sessions are read by default (~/.codex)" },
    Variable {
        name: "CLAUDE_CONFIG_DIR",
        help: "Claude Code's folder, whose projects are read by default (~/.claude)",
    },
    Variable {
        name: "GEMINI_CLI_HOME",
        help: "Holds Gemini CLI's .gemini folder, whose chat recordings in tmp/ are read by default (~)",
    },
    Variable { name: "PI_CODING_AGENT_DIR", help: "pi's folder, whose sessions are read by default (~/.pi/agent)" },
    Variable {
        name: "PI_CODING_AGENT_SESSION_DIR",
        help: "pi's sessions folder, read by default instead of $PI_CODING_AGENT_DIR/sessions",
    },
    Variable {
        name: "OPENCODE_DB",
        help: "opencode's database when it is not in its data folder, read by default (a path, or a name there)",
    },
    Variable {
        name: "XDG_DATA_HOME",
        help: "Holds the default workspace, handbook/, and opencode's data folder, opencode/ (~/.local/share)",
    },
    Variable {
        name: "XDG_CONFIG_HOME",
        help: "Holds the default configuration file and prompt templates, handbook/ (~/.config)",
    },
    Variable { name: "PATH", help: "Where `integrate` looks for the agents and for the command a door runs" },
    Variable { name: "HOME", help: "Where the defaults above start, and what ~ means in the config file's sources" },
];

/// Every key the config file may hold, the old names included.
pub(crate) fn config_keys() -> impl Iterator<Item = &'static str> {
    ALL.iter().flat_map(|s| {
        let spec = s.spec();
        spec.key.into_iter().chain(spec.old.map(|o| o.key))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_defaults_are_described_as_they_are() {
        let pairs = [
            (COLOR.default, DEFAULT_COLOR.show()),
            (SUMMARY_MAX_TOKENS.default, DEFAULT_SUMMARY_MAX_TOKENS.show()),
            (MIN_IDLE.default, DEFAULT_MIN_IDLE.show()),
            (MAX_AGE.default, DEFAULT_MAX_AGE.show()),
            (INCLUDE_SUBAGENTS.default, false.show()),
            (EXCLUDE_EXTERNAL_CONTEXT.default, false.show()),
            (LOCK_WAIT.default, DEFAULT_LOCK_WAIT_SECONDS.show()),
            (MAX_RAW_MEMORIES.default, DEFAULT_MAX_RAW_MEMORIES.show()),
            (MAX_UNUSED_DAYS.default, DEFAULT_MAX_UNUSED_DAYS.show()),
            (REVIEW.default, false.show()),
            (KEEP_GENERATIONS.default, DEFAULT_KEEP_GENERATIONS.show()),
            (ENGINE.default, DEFAULT_ENGINE.show()),
            (TIMEOUT.default, DEFAULT_TIMEOUT_SECONDS.show()),
            (MAX_RETRIES.default, DEFAULT_MAX_RETRIES.show()),
            (RETRY_DELAY.default, DEFAULT_RETRY_DELAY_SECONDS.show()),
            (CONTEXT_TOKENS.default, DEFAULT_CONTEXT_TOKENS.show()),
        ];
        for (words, value) in pairs {
            assert_eq!(words, value);
        }
        let model_defaults = [
            (CONSOLIDATE_COOLDOWN.default, DEFAULT_COOLDOWN.show(), DEFAULT_MODEL_COOLDOWN.show()),
            (BASE_URL.default, OPENAI_BASE_URL.to_string(), ANTHROPIC_BASE_URL.to_string()),
            (API_KEY_ENV.default, OPENAI_KEY_ENV.to_string(), ANTHROPIC_KEY_ENV.to_string()),
            (MAX_SESSIONS_PER_RUN.default, "no limit".to_string(), DEFAULT_MODEL_SESSIONS_PER_RUN.show()),
        ];
        for (words, plain, model) in model_defaults {
            assert!(words.starts_with(&plain) && words.contains(&model), "{words}");
        }
    }

    #[test]
    fn names_keys_and_variables_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for spec in ALL.iter().map(|s| s.spec()) {
            for name in
                [Some(spec.name), spec.env, spec.old.map(|o| o.env), spec.old.map(|o| o.key)].into_iter().flatten()
            {
                assert!(seen.insert(name), "{name} is declared twice");
            }
            assert!(spec.key.is_none_or(|k| k == spec.name));
            assert!(spec.env.is_none_or(|e| e.starts_with("HANDBOOK_")), "{}", spec.name);
        }
        for variable in OTHER_VARIABLES {
            assert!(seen.insert(variable.name), "{} is declared twice", variable.name);
        }
    }
}
