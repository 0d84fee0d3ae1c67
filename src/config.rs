//! Resolving settings: flags, then `HANDBOOK_*` environment variables, then the config file,
//! then defaults. This is the only module that reads the environment.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use jiff::{SignedDuration, Timestamp};
use serde::Deserialize;

use crate::cli::{
    Cli, ColorChoice, Command, ConsolidateArgs, EngineArg, EngineArgs, ExtractArgs, FormatArg, NoteArgs, SearchArgs,
    SearchIn, SummaryArgs,
};
use crate::core::dates::{Edge, parse_when};
use crate::core::session::Agent;
use crate::core::tokens::Cap;

/// A snapshot of the environment variables handbook reads, so resolution is testable.
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

impl Env {
    /// The process environment.
    pub fn from_process() -> Env {
        Env {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        }
    }

    /// An environment holding only `pairs`.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Env {
        Env { vars: pairs.into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect() }
    }

    /// A variable's value, when set and not empty.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.vars.get(key).map(String::as_str).filter(|v| !v.is_empty())
    }

    fn path(&self, key: &str) -> Option<PathBuf> {
        self.get(key).map(PathBuf::from)
    }

    fn home_dir(&self) -> Option<PathBuf> {
        self.path("HOME")
    }
}

/// The config file's keys. Unknown keys are an error, so a typo never goes unnoticed.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub sources: Option<Vec<PathBuf>>,
    pub min_idle_hours: Option<f64>,
    pub max_age_days: Option<f64>,
    pub max_sessions_per_run: Option<usize>,
    pub include_subagents: Option<bool>,
    pub lock_wait_seconds: Option<f64>,
    pub max_raw_memories: Option<usize>,
    pub max_unused_days: Option<u32>,
    pub summary_max_tokens: Option<usize>,
    pub consolidate_cooldown_hours: Option<f64>,
    pub engine: Option<String>,
    pub extract_engine: Option<String>,
    pub consolidate_engine: Option<String>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub extract_model: Option<String>,
    pub consolidation_model: Option<String>,
    pub api_key_env: Option<String>,
    pub llm_command: Option<String>,
    pub timeout: Option<f64>,
    pub max_retries: Option<u32>,
    pub retry_delay: Option<f64>,
    pub context_tokens: Option<usize>,
    pub max_input_tokens_per_run: Option<u64>,
}

/// How output looks, decided once per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Output {
    pub json: bool,
    pub quiet: bool,
    pub color: ColorChoice,
}

/// Everything a run needs, resolved.
#[derive(Debug, Clone)]
pub struct Settings {
    pub home: PathBuf,
    pub output: Output,
    /// The time the run treats as now (`HANDBOOK_NOW` fixes it for reproducible runs).
    pub now: Timestamp,
    /// The summary's token cap (`summary_max_tokens`), which consolidation and `status` use too.
    pub summary_max_tokens: usize,
    /// A named point at which the run aborts (`HANDBOOK_FAULT`), to test that a run killed
    /// there loses nothing.
    pub fault: Option<String>,
    /// Where a config file and template overrides live.
    pub config_dir: Option<PathBuf>,
    pub command: CommandSettings,
}

#[derive(Debug, Clone)]
pub enum CommandSettings {
    Extract(ExtractSettings),
    Consolidate(ConsolidateSettings),
    Update(Box<ExtractSettings>, Box<ConsolidateSettings>),
    Summary(SummarySettings),
    Search(SearchSettings),
    Note(NoteSettings),
    Forget { sessions: Vec<String>, lock_wait: Duration },
    Status,
    Reset { yes: bool, lock_wait: Duration },
}

#[derive(Debug, Clone)]
pub struct ConsolidateSettings {
    pub engine: EngineSettings,
    pub max_raw_memories: usize,
    pub max_unused: SignedDuration,
    pub cooldown: SignedDuration,
    pub force: bool,
    pub lock_wait: Duration,
}

#[derive(Debug, Clone)]
pub struct SummarySettings {
    pub cap: Cap,
    pub project: Option<PathBuf>,
    pub prompt: bool,
    pub hook: bool,
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone)]
pub struct SearchSettings {
    pub query: Vec<String>,
    pub since: Option<Timestamp>,
    pub until: Option<Timestamp>,
    pub project: Option<PathBuf>,
    pub scope: SearchScope,
    pub regex: bool,
    pub case_sensitive: bool,
    /// `None` shows every result.
    pub limit: Option<usize>,
}

/// The parts of the workspace a search reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchScope {
    /// MEMORY.md and memory_summary.md.
    pub memory: bool,
    /// rollout_summaries/.
    pub summaries: bool,
    pub notes: bool,
    pub transcripts: bool,
}

#[derive(Debug, Clone)]
pub struct NoteSettings {
    /// The note, or `None` to read it from stdin.
    pub text: Option<String>,
    pub title: Option<String>,
    pub lock_wait: Duration,
}

/// The engine of a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineKind {
    Builtin,
    OpenAi,
    Anthropic,
    Command,
}

impl EngineKind {
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Builtin => "builtin",
            EngineKind::OpenAi => "openai",
            EngineKind::Anthropic => "anthropic",
            EngineKind::Command => "command",
        }
    }

    fn parse(text: &str) -> Option<EngineKind> {
        match text.trim() {
            "builtin" => Some(EngineKind::Builtin),
            "openai" => Some(EngineKind::OpenAi),
            "anthropic" => Some(EngineKind::Anthropic),
            "command" => Some(EngineKind::Command),
            _ => None,
        }
    }
}

/// An API key. It is held only in memory: never printed (its `Debug` hides it), logged or
/// written.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The key, to put in a request header and nowhere else.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// How a phase reaches its model.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    pub kind: EngineKind,
    pub model: Option<String>,
    /// Without a trailing `/`.
    pub base_url: String,
    /// The variable the key was read from, to name it in errors.
    pub api_key_env: String,
    pub api_key: Option<Secret>,
    pub command: Option<String>,
    pub timeout: Duration,
    pub max_retries: u32,
    /// The first retry's delay; each later one doubles it (with jitter).
    pub retry_delay: Duration,
    pub context_tokens: usize,
}

impl EngineSettings {
    pub fn builtin() -> EngineSettings {
        EngineSettings {
            kind: EngineKind::Builtin,
            model: None,
            base_url: String::new(),
            api_key_env: String::new(),
            api_key: None,
            command: None,
            timeout: Duration::from_secs(300),
            max_retries: 3,
            retry_delay: Duration::from_secs(1),
            context_tokens: DEFAULT_CONTEXT_TOKENS,
        }
    }

    pub fn is_model(&self) -> bool {
        self.kind != EngineKind::Builtin
    }

    /// The most tokens a model may answer with: a quarter of its context, within bounds, so a
    /// small local model cannot ramble to the end of its window.
    pub fn answer_tokens(&self) -> usize {
        (self.context_tokens / 4).clamp(1024, 8192)
    }

    /// `openai gpt-4o-mini`, `command claude -p`, `builtin`: for reports and the manifest
    /// (a key written into the command line is redacted).
    pub fn describe(&self) -> String {
        match (self.kind, &self.model, &self.command) {
            (EngineKind::Builtin, _, _) => "builtin".to_string(),
            (EngineKind::Command, _, Some(command)) => format!("command {}", crate::core::redact::redact(command)),
            (kind, Some(model), _) => format!("{} {model}", kind.name()),
            (kind, None, _) => kind.name().to_string(),
        }
    }
}

/// Which phase an engine setting is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Extract,
    Consolidate,
}

/// A folder or file to read transcripts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRoot {
    pub path: PathBuf,
    /// Given on the command line or in the config file (must exist), rather than a default.
    pub explicit: bool,
}

#[derive(Debug, Clone)]
pub struct ExtractSettings {
    pub engine: EngineSettings,
    /// Stop calling the model once this many input tokens went out this run.
    pub max_input_tokens_per_run: Option<u64>,
    pub sources: Vec<SourceRoot>,
    pub format: Option<Agent>,
    pub min_idle: SignedDuration,
    pub max_age: SignedDuration,
    pub all: bool,
    pub limit: Option<usize>,
    pub sessions: Vec<String>,
    pub dry_run: bool,
    pub include_subagents: bool,
    pub lock_wait: Duration,
}

const DEFAULT_MIN_IDLE_HOURS: f64 = 6.0;
const DEFAULT_MAX_AGE_DAYS: f64 = 10.0;
const DEFAULT_LOCK_WAIT_SECONDS: f64 = 5.0;
const DEFAULT_MAX_RAW_MEMORIES: usize = 256;
const DEFAULT_MAX_UNUSED_DAYS: u32 = 30;
const DEFAULT_SUMMARY_MAX_TOKENS: usize = 2500;
/// The built-in engine is cheap, so it may consolidate after every extract.
const DEFAULT_COOLDOWN_HOURS: f64 = 0.0;
/// A model costs money and time: it consolidates at most every six hours unless forced.
const DEFAULT_MODEL_COOLDOWN_HOURS: f64 = 6.0;
/// A model engine extracts at most this many sessions per run unless told otherwise.
const DEFAULT_MODEL_SESSIONS_PER_RUN: usize = 16;
const DEFAULT_CONTEXT_TOKENS: usize = 32_000;
const DEFAULT_TIMEOUT_SECONDS: f64 = 300.0;
const DEFAULT_MAX_RETRIES: u32 = 3;
const DEFAULT_RETRY_DELAY_SECONDS: f64 = 1.0;

impl Settings {
    /// Resolve the parsed flags against the environment and the config file.
    pub fn resolve(cli: Cli, env: &Env) -> Result<Settings> {
        let cli_config = cli.config.clone();
        let file = load_config(cli.config.as_deref(), env)?;
        let home = cli
            .home
            .clone()
            .or_else(|| env.path("HANDBOOK_HOME"))
            .or_else(|| env.path("XDG_DATA_HOME").map(|d| d.join("handbook")))
            .or_else(|| env.home_dir().map(|h| h.join(".local/share/handbook")))
            .context("cannot find a home for the workspace: set HANDBOOK_HOME or pass --home")?;
        // Absolute, so the prompt tells agents where the handbook is from anywhere.
        let home = std::path::absolute(&home).unwrap_or(home);
        let color = match cli.color {
            Some(choice) => choice,
            None if env.get("NO_COLOR").is_some() => ColorChoice::Never,
            None => match env.get("HANDBOOK_COLOR") {
                Some(v) => ColorChoice::from_str_value(v)
                    .with_context(|| format!("HANDBOOK_COLOR={v}: expected auto, always or never"))?,
                None => ColorChoice::Auto,
            },
        };
        let now = match env.get("HANDBOOK_NOW") {
            Some(v) => v
                .parse()
                .with_context(|| format!("HANDBOOK_NOW={v}: expected an RFC 3339 time such as 2026-11-29T12:00:00Z"))?,
            None => Timestamp::now(),
        };
        let output = Output { json: cli.json, quiet: cli.quiet, color };
        let summary_max_tokens = match env.get("HANDBOOK_SUMMARY_MAX_TOKENS") {
            Some(v) => {
                v.parse().with_context(|| format!("HANDBOOK_SUMMARY_MAX_TOKENS={v}: expected a whole number"))?
            }
            None => file.summary_max_tokens.unwrap_or(DEFAULT_SUMMARY_MAX_TOKENS),
        };
        let command = match cli.command {
            Command::Extract(args) => CommandSettings::Extract(extract_settings(args, &file, env)?),
            Command::Consolidate(args) => CommandSettings::Consolidate(consolidate_settings(&args, &file, env)?),
            Command::Update(args) => {
                let consolidate = ConsolidateArgs {
                    options: args.consolidate,
                    wait: args.extract.wait,
                    engine: args.extract.engine.clone(),
                };
                let consolidate = consolidate_settings(&consolidate, &file, env)?;
                CommandSettings::Update(Box::new(extract_settings(args.extract, &file, env)?), Box::new(consolidate))
            }
            Command::Summary(args) => CommandSettings::Summary(summary_settings(args, summary_max_tokens)),
            Command::Search(args) => CommandSettings::Search(search_settings(args, now)?),
            Command::Note(args) => CommandSettings::Note(note_settings(args, &file)?),
            Command::Forget(args) => {
                CommandSettings::Forget { sessions: args.sessions, lock_wait: lock_wait(None, &file)? }
            }
            Command::Status => CommandSettings::Status,
            Command::Reset(args) => CommandSettings::Reset { yes: args.yes, lock_wait: lock_wait(None, &file)? },
        };
        let fault = env.get("HANDBOOK_FAULT").map(str::to_string);
        let config_dir = config_path(cli_config.as_deref(), env).0.and_then(|p| p.parent().map(Path::to_path_buf));
        Ok(Settings { home, output, now, summary_max_tokens, fault, config_dir, command })
    }
}

impl ColorChoice {
    fn from_str_value(value: &str) -> Option<ColorChoice> {
        match value {
            "auto" => Some(ColorChoice::Auto),
            "always" => Some(ColorChoice::Always),
            "never" => Some(ColorChoice::Never),
            _ => None,
        }
    }
}

fn extract_settings(args: ExtractArgs, file: &FileConfig, env: &Env) -> Result<ExtractSettings> {
    let sources = if !args.sources.is_empty() {
        args.sources.into_iter().map(|path| SourceRoot { path, explicit: true }).collect()
    } else if let Some(paths) = &file.sources {
        paths.iter().map(|p| SourceRoot { path: expand_tilde(p, env), explicit: true }).collect()
    } else {
        default_sources(env)
    };
    let min_idle = match (args.min_idle, env.get("HANDBOOK_MIN_IDLE_HOURS")) {
        (Some(flag), _) => parse_duration(&flag, Unit::Hours).with_context(|| format!("--min-idle {flag}"))?,
        (None, Some(v)) => parse_duration(v, Unit::Hours).with_context(|| format!("HANDBOOK_MIN_IDLE_HOURS={v}"))?,
        (None, None) => hours(file.min_idle_hours.unwrap_or(DEFAULT_MIN_IDLE_HOURS))?,
    };
    let max_age = match (args.max_age, env.get("HANDBOOK_MAX_AGE_DAYS")) {
        (Some(flag), _) => parse_duration(&flag, Unit::Days).with_context(|| format!("--max-age {flag}"))?,
        (None, Some(v)) => parse_duration(v, Unit::Days).with_context(|| format!("HANDBOOK_MAX_AGE_DAYS={v}"))?,
        (None, None) => hours(file.max_age_days.unwrap_or(DEFAULT_MAX_AGE_DAYS) * 24.0)?,
    };
    let engine = engine_settings(Phase::Extract, &args.engine, file, env)?;
    let limit = match (args.limit, env.get("HANDBOOK_MAX_SESSIONS_PER_RUN")) {
        (Some(n), _) => Some(n),
        (None, Some(v)) => {
            Some(v.parse().with_context(|| format!("HANDBOOK_MAX_SESSIONS_PER_RUN={v}: expected a whole number"))?)
        }
        (None, None) => file.max_sessions_per_run.or(engine.is_model().then_some(DEFAULT_MODEL_SESSIONS_PER_RUN)),
    };
    // 0 means no limit, as for `search --limit` (and a model run can lift its default).
    let limit = limit.filter(|&n| n > 0);
    let max_input_tokens_per_run = match (args.max_input_tokens_per_run, env.get("HANDBOOK_MAX_INPUT_TOKENS_PER_RUN")) {
        (Some(n), _) => Some(n),
        (None, Some(v)) => {
            Some(v.parse().with_context(|| format!("HANDBOOK_MAX_INPUT_TOKENS_PER_RUN={v}: expected a whole number"))?)
        }
        (None, None) => file.max_input_tokens_per_run,
    };
    let include_subagents = args.include_subagents
        || match env.get("HANDBOOK_INCLUDE_SUBAGENTS") {
            Some(v) => {
                parse_bool(v).with_context(|| format!("HANDBOOK_INCLUDE_SUBAGENTS={v}: expected true or false"))?
            }
            None => file.include_subagents.unwrap_or(false),
        };
    let lock_wait = lock_wait(args.wait, file)?;
    Ok(ExtractSettings {
        engine,
        max_input_tokens_per_run,
        sources,
        format: args.format.map(|f| match f {
            FormatArg::Codex => Agent::Codex,
            FormatArg::Claude => Agent::Claude,
            FormatArg::Generic => Agent::Generic,
        }),
        min_idle,
        max_age,
        all: args.all,
        limit,
        sessions: args.session,
        dry_run: args.dry_run,
        include_subagents,
        lock_wait,
    })
}

fn consolidate_settings(args: &ConsolidateArgs, file: &FileConfig, env: &Env) -> Result<ConsolidateSettings> {
    let options = &args.options;
    let max_raw_memories = match (options.max_raw_memories, env.get("HANDBOOK_MAX_RAW_MEMORIES")) {
        (Some(n), _) => n,
        (None, Some(v)) => {
            v.parse().with_context(|| format!("HANDBOOK_MAX_RAW_MEMORIES={v}: expected a whole number"))?
        }
        (None, None) => file.max_raw_memories.unwrap_or(DEFAULT_MAX_RAW_MEMORIES),
    };
    if !(1..=100_000).contains(&max_raw_memories) {
        bail!("max_raw_memories {max_raw_memories}: expected between 1 and 100000");
    }
    let max_unused_days = match (options.max_unused_days, env.get("HANDBOOK_MAX_UNUSED_DAYS")) {
        (Some(n), _) => n,
        (None, Some(v)) => {
            v.parse().with_context(|| format!("HANDBOOK_MAX_UNUSED_DAYS={v}: expected a whole number of days"))?
        }
        (None, None) => file.max_unused_days.unwrap_or(DEFAULT_MAX_UNUSED_DAYS),
    };
    let engine = engine_settings(Phase::Consolidate, &args.engine, file, env)?;
    let default_cooldown = if engine.is_model() { DEFAULT_MODEL_COOLDOWN_HOURS } else { DEFAULT_COOLDOWN_HOURS };
    let cooldown = match env.get("HANDBOOK_CONSOLIDATE_COOLDOWN_HOURS") {
        Some(v) => {
            parse_duration(v, Unit::Hours).with_context(|| format!("HANDBOOK_CONSOLIDATE_COOLDOWN_HOURS={v}"))?
        }
        None => hours(file.consolidate_cooldown_hours.unwrap_or(default_cooldown))?,
    };
    Ok(ConsolidateSettings {
        engine,
        max_raw_memories,
        max_unused: hours(f64::from(max_unused_days) * 24.0)?,
        cooldown,
        force: options.force,
        lock_wait: lock_wait(args.wait, file)?,
    })
}

fn summary_settings(args: SummaryArgs, default_tokens: usize) -> SummarySettings {
    SummarySettings {
        cap: Cap { tokens: Some(args.max_tokens.unwrap_or(default_tokens)), chars: args.max_chars },
        project: args.project.filter(|p| !p.is_empty()).map(PathBuf::from),
        prompt: args.prompt,
        hook: args.hook,
        output: args.output,
    }
}

const DEFAULT_SEARCH_LIMIT: usize = 20;

fn search_settings(args: SearchArgs, now: Timestamp) -> Result<SearchSettings> {
    let when = |flag: &str, text: &Option<String>, edge| -> Result<Option<Timestamp>> {
        text.as_deref().map(|t| parse_when(t, now, edge).with_context(|| format!("--{flag}"))).transpose()
    };
    let since = when("since", &args.since, Edge::Start)?;
    let until = when("until", &args.until, Edge::End)?;
    if let (Some(since), Some(until)) = (since, until)
        && since > until
    {
        bail!("--since {} is after --until {}: nothing can match", since, until);
    }
    let within =
        if args.within.is_empty() { vec![SearchIn::Memory, SearchIn::Summaries, SearchIn::Notes] } else { args.within };
    let has = |what| within.contains(&what) || within.contains(&SearchIn::All);
    let scope = SearchScope {
        memory: has(SearchIn::Memory),
        summaries: has(SearchIn::Summaries),
        notes: has(SearchIn::Notes),
        transcripts: has(SearchIn::Transcripts),
    };
    let limit = match args.limit.unwrap_or(DEFAULT_SEARCH_LIMIT) {
        0 => None,
        n => Some(n),
    };
    Ok(SearchSettings {
        query: args.query,
        since,
        until,
        project: args.project,
        scope,
        regex: args.regex,
        case_sensitive: args.case_sensitive,
        limit,
    })
}

fn note_settings(args: NoteArgs, file: &FileConfig) -> Result<NoteSettings> {
    let text = match args.text.as_slice() {
        [] => None,
        [dash] if dash == "-" => None,
        words => Some(words.join(" ")),
    };
    Ok(NoteSettings { text, title: args.title, lock_wait: lock_wait(None, file)? })
}

/// The engine of one phase: flags, then the phase's own variable, then the shared one, then
/// the phase's config key, then the shared key, then the default.
fn engine_settings(phase: Phase, flags: &EngineArgs, file: &FileConfig, env: &Env) -> Result<EngineSettings> {
    let (engine_var, model_var, file_engine, file_model) = match phase {
        Phase::Extract => {
            ("HANDBOOK_EXTRACT_ENGINE", "HANDBOOK_EXTRACT_MODEL", &file.extract_engine, &file.extract_model)
        }
        Phase::Consolidate => (
            "HANDBOOK_CONSOLIDATE_ENGINE",
            "HANDBOOK_CONSOLIDATION_MODEL",
            &file.consolidate_engine,
            &file.consolidation_model,
        ),
    };
    let kind = match flags.engine {
        Some(EngineArg::Builtin) => EngineKind::Builtin,
        Some(EngineArg::Openai) => EngineKind::OpenAi,
        Some(EngineArg::Anthropic) => EngineKind::Anthropic,
        Some(EngineArg::Command) => EngineKind::Command,
        None => {
            let (origin, value) = [(engine_var, env.get(engine_var)), ("HANDBOOK_ENGINE", env.get("HANDBOOK_ENGINE"))]
                .into_iter()
                .find_map(|(name, v)| v.map(|v| (name.to_string(), v.to_string())))
                .or_else(|| {
                    let key = if phase == Phase::Extract { "extract_engine" } else { "consolidate_engine" };
                    file_engine.clone().map(|v| (format!("{key} in the config file"), v))
                })
                .or_else(|| file.engine.clone().map(|v| ("engine in the config file".to_string(), v)))
                .unwrap_or_else(|| ("the default".to_string(), "builtin".to_string()));
            EngineKind::parse(&value).with_context(|| {
                format!("{origin}: unknown engine {value:?}; expected builtin, openai, anthropic or command")
            })?
        }
    };
    let mut settings = EngineSettings::builtin();
    settings.kind = kind;
    if kind == EngineKind::Builtin {
        return Ok(settings);
    }
    settings.model = flags
        .model
        .clone()
        .or_else(|| env.get(model_var).map(str::to_string))
        .or_else(|| env.get("HANDBOOK_MODEL").map(str::to_string))
        .or_else(|| file_model.clone())
        .or_else(|| file.model.clone())
        .filter(|m| !m.trim().is_empty());
    let default_url = match kind {
        EngineKind::Anthropic => "https://api.anthropic.com",
        _ => "https://api.openai.com/v1",
    };
    let base_url = flags
        .base_url
        .clone()
        .or_else(|| env.get("HANDBOOK_BASE_URL").map(str::to_string))
        .or_else(|| file.base_url.clone())
        .unwrap_or_else(|| default_url.to_string());
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        bail!("base URL {base_url:?}: expected an http:// or https:// URL");
    }
    settings.base_url = base_url.trim_end_matches('/').to_string();
    let default_key = if kind == EngineKind::Anthropic { "ANTHROPIC_API_KEY" } else { "OPENAI_API_KEY" };
    settings.api_key_env = flags
        .api_key_env
        .clone()
        .or_else(|| env.get("HANDBOOK_API_KEY_ENV").map(str::to_string))
        .or_else(|| file.api_key_env.clone())
        .unwrap_or_else(|| default_key.to_string());
    settings.api_key = env.get(&settings.api_key_env).map(Secret::new);
    settings.command = flags
        .llm_command
        .clone()
        .or_else(|| env.get("HANDBOOK_LLM_COMMAND").map(str::to_string))
        .or_else(|| file.llm_command.clone())
        .filter(|c| !c.trim().is_empty());
    let number = |flag: Option<f64>, var: &str, key: Option<f64>, default: f64| -> Result<f64> {
        match (flag, env.get(var)) {
            (Some(v), _) => Ok(v),
            (None, Some(v)) => v.parse().with_context(|| format!("{var}={v}: expected a number")),
            (None, None) => Ok(key.unwrap_or(default)),
        }
    };
    let timeout = number(flags.timeout, "HANDBOOK_TIMEOUT", file.timeout, DEFAULT_TIMEOUT_SECONDS)?;
    if !(0.0 < timeout && timeout <= 86_400.0) {
        bail!("timeout {timeout}: expected between 0 and 86400 seconds");
    }
    settings.timeout = Duration::from_secs_f64(timeout);
    let retries = number(
        flags.max_retries.map(f64::from),
        "HANDBOOK_MAX_RETRIES",
        file.max_retries.map(f64::from),
        f64::from(DEFAULT_MAX_RETRIES),
    )?;
    if !(0.0..=20.0).contains(&retries) || retries.fract() != 0.0 {
        bail!("max_retries {retries}: expected a whole number from 0 to 20");
    }
    settings.max_retries = retries as u32;
    let delay = number(None, "HANDBOOK_RETRY_DELAY", file.retry_delay, DEFAULT_RETRY_DELAY_SECONDS)?;
    if !(0.0..=600.0).contains(&delay) {
        bail!("retry_delay {delay}: expected between 0 and 600 seconds");
    }
    settings.retry_delay = Duration::from_secs_f64(delay);
    let context = number(
        flags.context_tokens.map(|n| n as f64),
        "HANDBOOK_CONTEXT_TOKENS",
        file.context_tokens.map(|n| n as f64),
        DEFAULT_CONTEXT_TOKENS as f64,
    )?;
    if !(1024.0..=10_000_000.0).contains(&context) {
        bail!("context_tokens {context}: expected at least 1024");
    }
    settings.context_tokens = context as usize;
    match kind {
        EngineKind::OpenAi | EngineKind::Anthropic if settings.model.is_none() => bail!(
            "the {} engine needs a model: pass --model, set HANDBOOK_MODEL, or set `model` in the config file",
            kind.name()
        ),
        EngineKind::Anthropic if settings.api_key.is_none() => bail!(
            "the anthropic engine needs an API key in ${}: set it, or name another variable with --api-key-env",
            settings.api_key_env
        ),
        EngineKind::Command if settings.command.is_none() => bail!(
            "the command engine needs a command: pass --llm-command, set HANDBOOK_LLM_COMMAND, or set `llm_command` in the config file"
        ),
        _ => {}
    }
    Ok(settings)
}

fn lock_wait(flag: Option<f64>, file: &FileConfig) -> Result<Duration> {
    let wait = flag.or(file.lock_wait_seconds).unwrap_or(DEFAULT_LOCK_WAIT_SECONDS);
    if !(0.0..=3600.0).contains(&wait) {
        bail!("--wait {wait}: expected between 0 and 3600 seconds");
    }
    Ok(Duration::from_secs_f64(wait))
}

/// The agents' own session folders, in a stable order. Missing ones are skipped later.
pub fn default_sources(env: &Env) -> Vec<SourceRoot> {
    let home = env.home_dir();
    let under_home = |rel: &str| home.as_ref().map(|h| h.join(rel));
    let codex = env.path("CODEX_HOME").or_else(|| under_home(".codex"));
    let claude = env.path("CLAUDE_CONFIG_DIR").or_else(|| under_home(".claude"));
    let candidates = [
        codex.as_ref().map(|c| c.join("sessions")),
        codex.as_ref().map(|c| c.join("archived_sessions")),
        claude.map(|c| c.join("projects")),
    ];
    candidates.into_iter().flatten().map(|path| SourceRoot { path, explicit: false }).collect()
}

fn expand_tilde(path: &Path, env: &Env) -> PathBuf {
    match (path.strip_prefix("~"), env.home_dir()) {
        (Ok(rest), Some(home)) => home.join(rest),
        _ => path.to_path_buf(),
    }
}

/// The config file's path, and whether it must exist (it was named explicitly).
fn config_path(flag: Option<&Path>, env: &Env) -> (Option<PathBuf>, bool) {
    match flag.map(Path::to_path_buf).or_else(|| env.path("HANDBOOK_CONFIG")) {
        Some(path) => (Some(path), true),
        None => {
            let dir = env.path("XDG_CONFIG_HOME").or_else(|| env.home_dir().map(|h| h.join(".config")));
            (dir.map(|d| d.join("handbook/config.toml")), false)
        }
    }
}

fn load_config(flag: Option<&Path>, env: &Env) -> Result<FileConfig> {
    let (Some(path), required) = config_path(flag, env) else {
        return Ok(FileConfig::default());
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => {
            return Ok(FileConfig::default());
        }
        Err(e) => {
            return Err(e).with_context(|| format!("cannot read config file {}", path.display()));
        }
    };
    toml::from_str(&text).with_context(|| format!("invalid config file {}", path.display()))
}

#[derive(Clone, Copy)]
enum Unit {
    Hours,
    Days,
}

fn hours(h: f64) -> Result<SignedDuration> {
    if !(0.0..=1e6).contains(&h) {
        bail!("{h} hours is out of range");
    }
    Ok(SignedDuration::from_secs_f64(h * 3600.0))
}

/// Parse `90m`, `6h`, `10d`, `2w`, or a bare number in `bare` units.
fn parse_duration(text: &str, bare: Unit) -> Result<SignedDuration> {
    let text = text.trim();
    let split = text.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let Ok(value) = number.trim().parse::<f64>() else {
        bail!("{text:?} is not a duration such as 6h, 90m, 10d or 2w");
    };
    let hours_per = match unit.trim() {
        "" => match bare {
            Unit::Hours => 1.0,
            Unit::Days => 24.0,
        },
        "m" | "min" | "mins" | "minutes" => 1.0 / 60.0,
        "h" | "hour" | "hours" => 1.0,
        "d" | "day" | "days" => 24.0,
        "w" | "week" | "weeks" => 168.0,
        other => bail!("unknown unit {other:?} in {text:?}: use m, h, d or w"),
    };
    hours(value * hours_per)
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn resolve(args: &[&str], env: &Env) -> Result<Settings> {
        let mut argv = vec!["handbook"];
        argv.extend_from_slice(args);
        Settings::resolve(Cli::try_parse_from(argv)?, env)
    }

    fn extract(settings: &Settings) -> &ExtractSettings {
        match &settings.command {
            CommandSettings::Extract(e) => e,
            other => panic!("not extract: {other:?}"),
        }
    }

    #[test]
    fn flags_beat_environment_beats_defaults() {
        let env = Env::from_pairs([("HOME", "/h"), ("HANDBOOK_HOME", "/env-home"), ("HANDBOOK_MIN_IDLE_HOURS", "2")]);
        let s = resolve(&["extract"], &env).unwrap();
        assert_eq!(s.home, PathBuf::from("/env-home"));
        assert_eq!(extract(&s).min_idle, SignedDuration::from_hours(2));
        assert_eq!(extract(&s).max_age, SignedDuration::from_hours(240));
        let s = resolve(&["--home", "/flag-home", "extract", "--min-idle", "30m"], &env).unwrap();
        assert_eq!(s.home, PathBuf::from("/flag-home"));
        assert_eq!(extract(&s).min_idle, SignedDuration::from_mins(30));
    }

    #[test]
    fn home_falls_back_to_xdg_then_home() {
        let s = resolve(&["extract"], &Env::from_pairs([("HOME", "/h"), ("XDG_DATA_HOME", "/x")])).unwrap();
        assert_eq!(s.home, PathBuf::from("/x/handbook"));
        let s = resolve(&["extract"], &Env::from_pairs([("HOME", "/h")])).unwrap();
        assert_eq!(s.home, PathBuf::from("/h/.local/share/handbook"));
    }

    #[test]
    fn default_sources_follow_the_agents_homes() {
        let env = Env::from_pairs([("HOME", "/h"), ("CODEX_HOME", "/c")]);
        let paths: Vec<PathBuf> = default_sources(&env).into_iter().map(|s| s.path).collect();
        assert_eq!(paths, [PathBuf::from("/c/sessions"), "/c/archived_sessions".into(), "/h/.claude/projects".into()]);
    }

    #[test]
    fn durations_read_units_and_bare_numbers() {
        assert_eq!(parse_duration("6", Unit::Hours).unwrap(), SignedDuration::from_hours(6));
        assert_eq!(parse_duration("10", Unit::Days).unwrap(), SignedDuration::from_hours(240));
        assert_eq!(parse_duration("2w", Unit::Days).unwrap(), SignedDuration::from_hours(336));
        assert_eq!(parse_duration("90m", Unit::Hours).unwrap(), SignedDuration::from_mins(90));
        assert!(parse_duration("soon", Unit::Hours).is_err());
        assert!(parse_duration("5y", Unit::Hours).is_err());
    }

    #[test]
    fn bad_values_name_their_source() {
        let env = Env::from_pairs([("HOME", "/h"), ("HANDBOOK_NOW", "yesterday")]);
        let err = resolve(&["extract"], &env).unwrap_err();
        assert!(format!("{err:#}").contains("HANDBOOK_NOW=yesterday"), "{err:#}");
    }
}
