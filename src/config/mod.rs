//! Resolving settings: flags, then `HANDBOOK_*` environment variables, then the config file,
//! then defaults, into one `Settings` per run. Each setting is declared once in
//! [`table`] and resolved by `resolve::Resolver`, which remembers where each value came
//! from; this module is the only one that reads the environment.

pub mod docs;
pub(crate) mod resolve;
pub mod table;
pub(crate) mod trust;
pub(crate) mod value;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use jiff::{SignedDuration, Timestamp};

use crate::cli::{
    Cli, ColorChoice, Command, ConsolidateArgs, ConsolidateOptions, EngineArgs, ExtractArgs, IntegrateArgs, NoteArgs,
    SearchArgs, SearchIn, SummaryArgs,
};
pub(crate) use crate::config::resolve::{ConfigFile, Env, Origin, Resolved, Resolver};
use crate::config::table::Setting;
use crate::config::value::Kind;
use crate::core::dates::{Edge, parse_when};
use crate::core::door::{Door, Printing};
use crate::core::hook::Scope;
use crate::core::integrate::{Places, Scope as Level};
use crate::core::session::Agent;

/// How output looks, decided once per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Output {
    pub(crate) json: bool,
    pub(crate) quiet: bool,
    pub(crate) color: ColorChoice,
}

impl Output {
    /// How to print an error that stopped the run before its settings were resolved (a bad
    /// config file, a value out of bounds): the flags, and the colour rule the settings would
    /// have followed (`--color`, else `NO_COLOR`, else `HANDBOOK_COLOR`, else auto).
    pub(crate) fn before_settings(json: bool, color: Option<ColorChoice>, env: &Env) -> Output {
        let color = match (color, env.get("NO_COLOR")) {
            (Some(flag), _) => flag,
            (None, Some(_)) => ColorChoice::Never,
            (None, None) => env
                .get(table::COLOR.env.unwrap_or_default())
                .and_then(|v| ColorChoice::from_text(v).ok())
                .unwrap_or(table::DEFAULT_COLOR),
        };
        Output { json, quiet: false, color }
    }
}

/// Everything a run needs, resolved.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub(crate) home: PathBuf,
    pub(crate) output: Output,
    /// The time the run treats as now (`HANDBOOK_NOW` fixes it for reproducible runs).
    pub(crate) now: Timestamp,
    /// The summary's token cap (`summary_max_tokens`), which consolidation and `status` use too.
    pub(crate) summary_max_tokens: usize,
    /// How many generations every command that commits one keeps (`keep_generations`).
    pub(crate) keep_generations: usize,
    /// A named point at which the run aborts (`HANDBOOK_FAULT`), to test that a run killed
    /// there loses nothing.
    #[cfg(feature = "fault-injection")]
    pub(crate) fault: Option<String>,
    /// Where a config file and template overrides live.
    pub(crate) config_dir: Option<PathBuf>,
    pub(crate) command: CommandSettings,
    /// Every setting resolved for this run, with where its value came from.
    pub(crate) resolved: Vec<Resolved>,
    /// Problems worth saying that do not stop the run, such as an old setting's name.
    pub(crate) warnings: Vec<String>,
}

#[derive(Debug, Clone)]
pub(crate) enum CommandSettings {
    Extract(ExtractSettings),
    Consolidate(ConsolidateSettings),
    Update(Box<ExtractSettings>, Box<ConsolidateSettings>),
    Summary(SummarySettings),
    Search(SearchSettings),
    Note(NoteSettings),
    Mcp(McpSettings),
    Forget {
        sessions: Vec<String>,
        undo: bool,
        lock_wait: Duration,
    },
    Status,
    Reset {
        yes: bool,
        /// Remove the notes too.
        notes: bool,
        lock_wait: Duration,
    },
    /// Show the settings in effect (`Settings::resolved`).
    Config,
    Integrate(IntegrateSettings),
    Doctor(Box<DoctorSettings>),
    Completions(clap_complete::Shell),
    Log,
    Diff(trust::DiffSettings),
    Undo(trust::UndoSettings),
    Review(trust::ReviewSettings),
    Promote(trust::PromoteSettings),
    Why(trust::WhySettings),
}

/// What `doctor` looks at: the sources `extract` would read, the doors `integrate` knows, and
/// the config file's keys (to tell the ones nothing reads from `Settings::resolved`).
#[derive(Debug, Clone)]
pub(crate) struct DoctorSettings {
    pub(crate) extract: ExtractSettings,
    pub(crate) integrate: IntegrateSettings,
    /// The config file read, with the keys it sets; `None` when there is none.
    pub(crate) config_file: Option<(PathBuf, Vec<String>)>,
}

/// What `integrate` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntegrateMode {
    /// Print the change.
    Show,
    Write,
    Remove,
    Check,
}

#[derive(Debug, Clone)]
pub(crate) struct IntegrateSettings {
    /// `None`: list every agent found.
    pub(crate) agent: Option<Door>,
    pub(crate) mode: IntegrateMode,
    pub(crate) scope: Level,
    pub(crate) mcp: bool,
    pub(crate) places: Places,
    /// The folders of `PATH`, where the agents' binaries and a hook's command are looked for.
    pub(crate) path: Vec<PathBuf>,
    /// The home an agent's `handbook` finds without `--home`.
    pub(crate) default_home: Option<PathBuf>,
}

#[derive(Debug, Clone)]
pub(crate) struct ConsolidateSettings {
    pub(crate) engine: EngineSettings,
    pub(crate) max_raw_memories: usize,
    pub(crate) max_unused: SignedDuration,
    /// `max_unused_days` was set (else the default applies, which the built-in engine
    /// waives while the handbook is new: see `core::select::retention`).
    pub(crate) max_unused_set: bool,
    pub(crate) cooldown: SignedDuration,
    pub(crate) force: bool,
    /// Keep the result as a pending generation for `review` (`review`, `--review`).
    pub(crate) review: bool,
    pub(crate) lock_wait: Duration,
}

#[derive(Debug, Clone)]
pub(crate) struct SummarySettings {
    /// The agent, the wrapper, the shape and the caps as asked for; `printing.hook` is hook
    /// mode: SessionStart JSON, the hook's stdin read, and no failure.
    pub(crate) printing: Printing,
    pub(crate) project: Scope,
    /// In hook mode, diagnostics on stderr.
    pub(crate) verbose: bool,
    pub(crate) output: Option<PathBuf>,
}

#[derive(Debug, Clone)]
pub(crate) struct SearchSettings {
    pub(crate) query: Vec<String>,
    pub(crate) since: Option<Timestamp>,
    pub(crate) until: Option<Timestamp>,
    pub(crate) project: Option<PathBuf>,
    pub(crate) scope: SearchScope,
    pub(crate) regex: bool,
    pub(crate) case_sensitive: bool,
    /// `None` shows every result.
    pub(crate) limit: Option<usize>,
}

/// The parts of the workspace a search reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SearchScope {
    /// MEMORY.md and memory_summary.md.
    pub(crate) memory: bool,
    /// rollout_summaries/.
    pub(crate) summaries: bool,
    pub(crate) notes: bool,
    pub(crate) transcripts: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct NoteSettings {
    /// The note, or `None` to read it from stdin.
    pub(crate) text: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) lock_wait: Duration,
    /// How the handbook is consolidated: with the built-in engine, `note` does it at once.
    pub(crate) consolidate: Box<ConsolidateSettings>,
}

#[derive(Debug, Clone)]
pub(crate) struct McpSettings {
    /// Log each request on stderr.
    pub(crate) verbose: bool,
    /// How long a note waits for another run to release the lock.
    pub(crate) lock_wait: Duration,
    /// The time `HANDBOOK_NOW` fixes, if it does: a server runs for hours, so its notes are
    /// otherwise dated by the clock when each is written.
    pub(crate) fixed_now: Option<Timestamp>,
    /// How a note the tool writes is taken in: as `handbook note` does.
    pub(crate) note: NoteSettings,
}

/// The engine of a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EngineKind {
    Builtin,
    OpenAi,
    Anthropic,
    Command,
}

impl EngineKind {
    /// Every engine, in the order help lists them.
    pub(crate) const ALL: [EngineKind; 4] =
        [EngineKind::Builtin, EngineKind::OpenAi, EngineKind::Anthropic, EngineKind::Command];

    /// The name used in flags, variables, the config file and reports.
    pub(crate) fn name(self) -> &'static str {
        match self {
            EngineKind::Builtin => "builtin",
            EngineKind::OpenAi => "openai",
            EngineKind::Anthropic => "anthropic",
            EngineKind::Command => "command",
        }
    }
}

/// `--engine` reads the names [`EngineKind::name`] gives, so they are spelled in one place.
impl clap::ValueEnum for EngineKind {
    fn value_variants<'a>() -> &'a [Self] {
        &EngineKind::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()))
    }
}

/// An API key. It is held only in memory: never printed (its `Debug` hides it), logged or
/// written.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(String);

impl Secret {
    pub(crate) fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The key, to put in a request header and nowhere else.
    pub(crate) fn expose(&self) -> &str {
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
pub(crate) struct EngineSettings {
    pub(crate) kind: EngineKind,
    pub(crate) model: Option<String>,
    /// Without a trailing `/`.
    pub(crate) base_url: String,
    /// The variable the key was read from, to name it in errors.
    pub(crate) api_key_env: String,
    pub(crate) api_key: Option<Secret>,
    pub(crate) command: Option<String>,
    pub(crate) timeout: Duration,
    pub(crate) max_retries: u32,
    /// The first retry's delay; each later one doubles it (with jitter).
    pub(crate) retry_delay: Duration,
    pub(crate) context_tokens: usize,
}

impl EngineSettings {
    pub(crate) fn builtin() -> EngineSettings {
        EngineSettings {
            kind: EngineKind::Builtin,
            model: None,
            base_url: String::new(),
            api_key_env: String::new(),
            api_key: None,
            command: None,
            timeout: Duration::from_secs_f64(table::DEFAULT_TIMEOUT_SECONDS),
            max_retries: table::DEFAULT_MAX_RETRIES,
            retry_delay: Duration::from_secs_f64(table::DEFAULT_RETRY_DELAY_SECONDS),
            context_tokens: table::DEFAULT_CONTEXT_TOKENS,
        }
    }

    pub(crate) fn is_model(&self) -> bool {
        self.kind != EngineKind::Builtin
    }

    /// The most tokens a model may answer with: a quarter of its context, within bounds, so a
    /// small local model cannot ramble to the end of its window.
    pub(crate) fn answer_tokens(&self) -> usize {
        (self.context_tokens / 4).clamp(1024, 8192)
    }

    /// `openai gpt-4o-mini`, `command claude -p`, `builtin`: for reports and the manifest
    /// (a key written into the command line is redacted).
    pub(crate) fn describe(&self) -> String {
        match (self.kind, &self.model, &self.command) {
            (EngineKind::Builtin, _, _) => "builtin".to_string(),
            (EngineKind::Command, _, Some(command)) => format!("command {}", crate::core::redact::redact(command)),
            (kind, Some(model), _) => format!("{} {model}", kind.name()),
            (kind, None, _) => kind.name().to_string(),
        }
    }
}

/// A folder or file to read transcripts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceRoot {
    pub(crate) path: PathBuf,
    /// Given on the command line or in the config file (must exist), rather than a default.
    pub(crate) explicit: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct ExtractSettings {
    pub(crate) engine: EngineSettings,
    /// Stop calling the model once this many input tokens went out this run.
    pub(crate) max_input_tokens_per_run: Option<u64>,
    pub(crate) sources: Vec<SourceRoot>,
    pub(crate) format: Option<Agent>,
    pub(crate) min_idle: SignedDuration,
    /// The age window's length (see `age_window`).
    pub(crate) max_age: SignedDuration,
    /// Whether the age window applies: set, or a model engine's cost guard. The built-in
    /// engine reads old sessions for nothing, so by default it reads every age.
    pub(crate) age_window: bool,
    pub(crate) all: bool,
    pub(crate) limit: Option<usize>,
    pub(crate) sessions: Vec<String>,
    pub(crate) dry_run: bool,
    pub(crate) include_subagents: bool,
    pub(crate) exclude_external: bool,
    /// Threads to read sessions on; `None`: one per core.
    pub(crate) threads: Option<usize>,
    pub(crate) lock_wait: Duration,
}

impl ExtractSettings {
    /// The rules a run decides each transcript's state by, at `now`.
    pub(crate) fn rules(&self, now: Timestamp) -> crate::core::state::Rules {
        // Naming sessions means wanting them read, whatever their age.
        let all = self.all || !self.sessions.is_empty();
        let max_age = self.age_window.then_some(self.max_age);
        let windows = crate::core::state::Windows { now, min_idle: self.min_idle, max_age, all };
        let (include_subagents, exclude_external) = (self.include_subagents, self.exclude_external);
        crate::core::state::Rules { windows, include_subagents, exclude_external, format: self.format }
    }
}

/// Which phase an engine setting is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Extract,
    Consolidate,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Extract => "extract",
            Phase::Consolidate => "consolidate",
        }
    }

    /// The phase's own engine and model settings, each before the one both phases share.
    fn chains(self) -> ([&'static Setting<EngineKind>; 2], [&'static Setting<String>; 2]) {
        match self {
            Phase::Extract => ([&table::EXTRACT_ENGINE, &table::ENGINE], [&table::EXTRACT_MODEL, &table::MODEL]),
            Phase::Consolidate => {
                ([&table::CONSOLIDATE_ENGINE, &table::ENGINE], [&table::CONSOLIDATE_MODEL, &table::MODEL])
            }
        }
    }
}

impl Settings {
    /// Resolve the parsed flags against the environment and the config file.
    pub(crate) fn resolve(cli: Cli, env: &Env) -> Result<Settings> {
        let mut r = Resolver::new(env);
        let config_path = config_file(&mut r, cli.config.clone())?;
        let home = match r.pick(&[&table::HOME], cli.home.clone())? {
            Some((home, origin)) => {
                r.record(&[&table::HOME], Some(home.show()), origin);
                home
            }
            None => {
                let home = env
                    .path("XDG_DATA_HOME")
                    .map(|d| d.join("handbook"))
                    .or_else(|| env.home_dir().map(|h| h.join(".local/share/handbook")))
                    .context("cannot find a home for the workspace: set HANDBOOK_HOME or pass --home")?;
                r.record(&[&table::HOME], Some(home.show()), Origin::Default);
                home
            }
        };
        // Absolute, so the prompt tells agents where the handbook is from anywhere.
        let home = std::path::absolute(&home).unwrap_or(home);
        let color = match (cli.color, env.get("NO_COLOR")) {
            (None, Some(_)) => {
                let never = ColorChoice::Never;
                r.record(&[&table::COLOR], Some(never.show()), Origin::Env { variable: "NO_COLOR".into() });
                never
            }
            (flag, _) => r.get(&[&table::COLOR], flag, table::DEFAULT_COLOR)?,
        };
        let picked_now = r.pick(&[&table::NOW], None)?;
        let fixed_now = picked_now.as_ref().map(|(now, _)| *now);
        let now = match picked_now {
            Some((now, origin)) => {
                r.record(&[&table::NOW], Some(now.show()), origin);
                now
            }
            None => {
                let now = Timestamp::now();
                r.record(&[&table::NOW], Some(now.show()), Origin::Default);
                now
            }
        };
        let output = Output { json: cli.json, quiet: cli.quiet, color };
        let summary_max_tokens = r.get(&[&table::SUMMARY_MAX_TOKENS], None, table::DEFAULT_SUMMARY_MAX_TOKENS)?;
        let keep_generations = r.get(&[&table::KEEP_GENERATIONS], None, table::DEFAULT_KEEP_GENERATIONS)?;
        let command = match cli.command {
            Command::Extract(args) => CommandSettings::Extract(extract_settings(args, &mut r, Needs::Stop)?),
            Command::Consolidate(args) => {
                CommandSettings::Consolidate(consolidate_settings(&args, &mut r, Needs::Stop)?)
            }
            Command::Update(args) => {
                let consolidate = ConsolidateArgs {
                    options: args.consolidate,
                    wait: args.extract.wait,
                    engine: args.extract.engine.clone(),
                };
                let extract = extract_settings(args.extract, &mut r, Needs::Stop)?;
                let consolidate = consolidate_settings(&consolidate, &mut r, Needs::Stop)?;
                CommandSettings::Update(Box::new(extract), Box::new(consolidate))
            }
            Command::Summary(args) => CommandSettings::Summary(summary_settings(args)),
            Command::Search(args) => CommandSettings::Search(search_settings(args, now)?),
            Command::Note(args) => CommandSettings::Note(note_settings(args, &mut r)?),
            Command::Mcp(args) => {
                let lock_wait = lock_wait(&mut r, args.wait)?;
                let note = NoteArgs { text: Vec::new(), title: None };
                let note = NoteSettings { lock_wait, ..note_settings(note, &mut r)? };
                CommandSettings::Mcp(McpSettings { verbose: args.verbose, lock_wait, fixed_now, note })
            }
            Command::Forget(args) => CommandSettings::Forget {
                sessions: args.sessions,
                undo: args.undo,
                lock_wait: lock_wait(&mut r, None)?,
            },
            Command::Status => CommandSettings::Status,
            Command::Integrate(args) => CommandSettings::Integrate(integrate_settings(args, env)?),
            Command::Reset(args) => {
                CommandSettings::Reset { yes: args.yes, notes: args.notes, lock_wait: lock_wait(&mut r, None)? }
            }
            Command::Config => {
                resolve_everything(&mut r)?;
                CommandSettings::Config
            }
            Command::Doctor => {
                let extract = resolve_everything(&mut r)?;
                let integrate = integrate_settings(IntegrateArgs::default(), env)?;
                let config_file = r.file.as_ref().map(|f| (f.path.clone(), f.key_names()));
                CommandSettings::Doctor(Box::new(DoctorSettings { extract, integrate, config_file }))
            }
            Command::Completions(args) => CommandSettings::Completions(args.shell),
            Command::Log => CommandSettings::Log,
            Command::Diff(args) => CommandSettings::Diff(trust::diff_settings(args, &mut r)?),
            Command::Undo(args) => CommandSettings::Undo(trust::undo_settings(args, &mut r)?),
            Command::Review(args) => CommandSettings::Review(trust::review_settings(args, &mut r)?),
            Command::Promote(args) => CommandSettings::Promote(trust::promote_settings(args, &mut r)?),
            Command::Why(args) => CommandSettings::Why(trust::WhySettings { lesson: args.lesson }),
        };
        // A test-only switch, and so no setting: it is neither documented nor shown.
        #[cfg(feature = "fault-injection")]
        let fault = env.get("HANDBOOK_FAULT").map(str::to_string);
        let config_dir = config_path.parent().map(Path::to_path_buf);
        Ok(Settings {
            home,
            output,
            now,
            summary_max_tokens,
            keep_generations,
            #[cfg(feature = "fault-injection")]
            fault,
            config_dir,
            command,
            resolved: r.resolved,
            warnings: r.warnings,
        })
    }
}

/// Everything `update` would resolve, recorded in `r`; what an engine lacks is a warning, not
/// an error. The extraction's settings, for the sources it would read.
fn resolve_everything(r: &mut Resolver) -> Result<ExtractSettings> {
    let consolidate =
        ConsolidateArgs { options: ConsolidateOptions::default(), wait: None, engine: EngineArgs::default() };
    let extract = extract_settings(ExtractArgs::default(), r, Needs::Warn)?;
    consolidate_settings(&consolidate, r, Needs::Warn)?;
    Ok(extract)
}

/// Find and read the config file into `r`; its path, which must exist when it was named.
fn config_file(r: &mut Resolver, flag: Option<PathBuf>) -> Result<PathBuf> {
    let (path, required) = match r.pick(&[&table::CONFIG], flag)? {
        Some((path, origin)) => {
            r.record(&[&table::CONFIG], Some(path.show()), origin);
            (path, true)
        }
        None => {
            let env = r.env;
            let dir = env.path("XDG_CONFIG_HOME").or_else(|| env.home_dir().map(|h| h.join(".config")));
            // Without a home there is no default file, and nothing to read.
            let Some(path) = dir.map(|d| d.join("handbook/config.toml")) else {
                r.record(&[&table::CONFIG], None, Origin::Default);
                return Ok(PathBuf::new());
            };
            r.record(&[&table::CONFIG], Some(path.show()), Origin::Default);
            (path, false)
        }
    };
    r.file = ConfigFile::load(&path, required)?;
    Ok(path)
}

/// What to do when an engine lacks what it needs (a model, a key, a command).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Needs {
    /// Stop: the run would fail at its first request.
    Stop,
    /// Say so and go on, for `handbook config`.
    Warn,
}

fn extract_settings(args: ExtractArgs, r: &mut Resolver, needs: Needs) -> Result<ExtractSettings> {
    let flag = (!args.sources.is_empty()).then_some(args.sources);
    let sources = match r.pick(&[&table::SOURCES], flag)? {
        Some((paths, origin)) => {
            // `~` in the config file means the home, as it would in a shell.
            let from_file = matches!(origin, Origin::File { .. });
            let paths: Vec<PathBuf> =
                paths.into_iter().map(|p| if from_file { expand_tilde(&p, r.env) } else { p }).collect();
            r.record(&[&table::SOURCES], Some(paths.show()), origin);
            paths.into_iter().map(|path| SourceRoot { path, explicit: true }).collect()
        }
        None => {
            let roots = default_sources(r.env);
            let paths: Vec<PathBuf> = roots.iter().map(|s| s.path.clone()).collect();
            r.record(&[&table::SOURCES], Some(paths.show()), Origin::Default);
            roots
        }
    };
    let min_idle = r.get(&[&table::MIN_IDLE], args.min_idle, table::DEFAULT_MIN_IDLE)?.0;
    let max_age = r.pick(&[&table::MAX_AGE], args.max_age)?;
    let engine = engine_settings(Phase::Extract, &args.engine, r, needs)?;
    let age_window = max_age.is_some() || engine.is_model();
    let (max_age, origin) = max_age.unwrap_or((table::DEFAULT_MAX_AGE, Origin::Default));
    let shown = if age_window { max_age.show() } else { table::NO_AGE_WINDOW.to_string() };
    r.record(&[&table::MAX_AGE], Some(shown), origin);
    let max_age = max_age.0;
    let model_limit = engine.is_model().then_some(table::DEFAULT_MODEL_SESSIONS_PER_RUN);
    // 0 means no limit, as for `search --limit` (and a model run can lift its default).
    let limit = r.get_opt(&[&table::MAX_SESSIONS_PER_RUN], args.limit, model_limit)?.filter(|&n| n > 0);
    let max_input_tokens_per_run =
        r.get_opt(&[&table::MAX_INPUT_TOKENS_PER_RUN], args.max_input_tokens_per_run, None)?;
    let include_subagents = r.get(&[&table::INCLUDE_SUBAGENTS], args.include_subagents.then_some(true), false)?;
    let exclude_external = r.get(&[&table::EXCLUDE_EXTERNAL_CONTEXT], args.exclude_external.then_some(true), false)?;
    let threads = r.get_opt(&[&table::THREADS], args.threads, None)?.filter(|&n| n > 0);
    let lock_wait = lock_wait(r, args.wait)?;
    Ok(ExtractSettings {
        engine,
        max_input_tokens_per_run,
        sources,
        format: args.format,
        min_idle,
        max_age,
        age_window,
        all: args.all,
        limit,
        sessions: args.session,
        dry_run: args.dry_run,
        include_subagents,
        exclude_external,
        threads,
        lock_wait,
    })
}

pub(crate) fn consolidate_settings(
    args: &ConsolidateArgs,
    r: &mut Resolver,
    needs: Needs,
) -> Result<ConsolidateSettings> {
    let options = &args.options;
    let max_raw_memories =
        r.get(&[&table::MAX_RAW_MEMORIES], options.max_raw_memories, table::DEFAULT_MAX_RAW_MEMORIES)?;
    let picked = r.pick(&[&table::MAX_UNUSED_DAYS], options.max_unused_days)?;
    let max_unused_set = picked.is_some();
    let (max_unused_days, origin) = picked.unwrap_or((table::DEFAULT_MAX_UNUSED_DAYS, Origin::Default));
    r.record(&[&table::MAX_UNUSED_DAYS], Some(max_unused_days.show()), origin);
    let engine = engine_settings(Phase::Consolidate, &args.engine, r, needs)?;
    let default_cooldown = if engine.is_model() { table::DEFAULT_MODEL_COOLDOWN } else { table::DEFAULT_COOLDOWN };
    let cooldown = r.get(&[&table::CONSOLIDATE_COOLDOWN], None, default_cooldown)?.0;
    let review = r.get(&[&table::REVIEW], options.review.then_some(true), false)?;
    Ok(ConsolidateSettings {
        engine,
        max_raw_memories,
        max_unused: SignedDuration::from_hours(i64::from(max_unused_days) * 24),
        max_unused_set,
        cooldown,
        force: options.force,
        review,
        lock_wait: lock_wait(r, args.wait)?,
    })
}

fn summary_settings(args: SummaryArgs) -> SummarySettings {
    // `--for` implies the wrapper (see its help), which `--no-prompt` turns off.
    let printing = Printing {
        door: args.door,
        prompt: args.prompt || (args.door.is_some() && !args.no_prompt),
        hook: args.hook_mode(),
        max_tokens: args.max_tokens,
        max_chars: args.max_chars,
    };
    let project = match args.project {
        None => Scope::Unset,
        Some(dir) if dir.is_empty() => Scope::Every,
        Some(dir) => Scope::Project(PathBuf::from(dir)),
    };
    SummarySettings { printing, project, verbose: args.verbose, output: args.output }
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

fn note_settings(args: NoteArgs, r: &mut Resolver) -> Result<NoteSettings> {
    let text = match args.text.as_slice() {
        [] => None,
        [dash] if dash == "-" => None,
        words => Some(words.join(" ")),
    };
    let consolidate =
        ConsolidateArgs { options: ConsolidateOptions::default(), wait: None, engine: EngineArgs::default() };
    // What a model engine lacks matters to the next consolidation, not to the note.
    let consolidate = Box::new(consolidate_settings(&consolidate, r, Needs::Warn)?);
    Ok(NoteSettings { text, title: args.title, lock_wait: lock_wait(r, None)?, consolidate })
}

/// The engine of one phase: flags, then the phase's own variable, then the shared one, then
/// the phase's config key, then the shared key, then the default.
fn engine_settings(phase: Phase, flags: &EngineArgs, r: &mut Resolver, needs: Needs) -> Result<EngineSettings> {
    let settings = r.within(phase.name(), |r| resolve_engine(phase, flags, r))?;
    if let Err(lack) = engine_has_what_it_needs(&settings) {
        match needs {
            Needs::Stop => return Err(lack),
            Needs::Warn => r.warn(format!("{}: {lack:#}", phase.name())),
        }
    }
    Ok(settings)
}

fn resolve_engine(phase: Phase, flags: &EngineArgs, r: &mut Resolver) -> Result<EngineSettings> {
    let (engine_chain, model_chain) = phase.chains();
    let mut settings = EngineSettings::builtin();
    settings.kind = r.get(&engine_chain, flags.engine, table::DEFAULT_ENGINE)?;
    if settings.kind == EngineKind::Builtin {
        return Ok(settings);
    }
    settings.model = r.get_opt(&model_chain, flags.model.clone(), None)?.filter(|m| !m.trim().is_empty());
    let (default_url, default_key) = match settings.kind {
        EngineKind::Anthropic => (table::ANTHROPIC_BASE_URL, table::ANTHROPIC_KEY_ENV),
        _ => (table::OPENAI_BASE_URL, table::OPENAI_KEY_ENV),
    };
    let base_url = r.get(&[&table::BASE_URL], flags.base_url.clone(), default_url.to_string())?;
    settings.base_url = base_url.trim_end_matches('/').to_string();
    settings.api_key_env = r.get(&[&table::API_KEY_ENV], flags.api_key_env.clone(), default_key.to_string())?;
    settings.api_key = r.env.get(&settings.api_key_env).map(Secret::new);
    // Only whether the key is there: its value is never recorded.
    let presence = if settings.api_key.is_some() { "set" } else { "not set" };
    let variable = settings.api_key_env.clone();
    r.record_named(r.scoped("api_key"), Some(presence.to_string()), Origin::Env { variable });
    settings.command =
        r.get_opt(&[&table::LLM_COMMAND], flags.llm_command.clone(), None)?.filter(|c| !c.trim().is_empty());
    let timeout = r.get(&[&table::TIMEOUT], flags.timeout, table::DEFAULT_TIMEOUT_SECONDS)?;
    settings.timeout = Duration::from_secs_f64(timeout);
    settings.max_retries = r.get(&[&table::MAX_RETRIES], flags.max_retries, table::DEFAULT_MAX_RETRIES)?;
    let delay = r.get(&[&table::RETRY_DELAY], None, table::DEFAULT_RETRY_DELAY_SECONDS)?;
    settings.retry_delay = Duration::from_secs_f64(delay);
    settings.context_tokens = r.get(&[&table::CONTEXT_TOKENS], flags.context_tokens, table::DEFAULT_CONTEXT_TOKENS)?;
    Ok(settings)
}

/// A model engine's model, key or command, without which its first request would fail.
fn engine_has_what_it_needs(settings: &EngineSettings) -> Result<()> {
    let kind = settings.kind;
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
        _ => Ok(()),
    }
}

pub(crate) fn lock_wait(r: &mut Resolver, flag: Option<f64>) -> Result<Duration> {
    // The bounds were checked, so the seconds are finite and not negative.
    Ok(Duration::from_secs_f64(r.get(&[&table::LOCK_WAIT], flag, table::DEFAULT_LOCK_WAIT_SECONDS)?))
}

/// The agents' own session folders, in a stable order. Missing ones are skipped later.
pub(crate) fn default_sources(env: &Env) -> Vec<SourceRoot> {
    let home = env.home_dir();
    let under_home = |rel: &str| home.as_ref().map(|h| h.join(rel));
    let codex = env.path("CODEX_HOME").or_else(|| under_home(".codex"));
    let claude = env.path("CLAUDE_CONFIG_DIR").or_else(|| under_home(".claude"));
    // pi's own variables, which pi lets start with `~`; Oh My Pi reads PI_CODING_AGENT_DIR
    // too, which then puts its sessions beside pi's.
    let pi_var = |name: &str| env.path(name).map(|p| expand_tilde(&p, env));
    let pi = pi_var("PI_CODING_AGENT_SESSION_DIR")
        .or_else(|| pi_var("PI_CODING_AGENT_DIR").map(|dir| dir.join("sessions")))
        .or_else(|| under_home(".pi/agent/sessions"));
    // opencode's `Global.Path.data`, and the database `OPENCODE_DB` names: a path, or a file
    // name in that folder (`:memory:` keeps nothing to read).
    let opencode = env.path("XDG_DATA_HOME").or_else(|| under_home(".local/share")).map(|d| d.join("opencode"));
    let opencode_db = env.path("OPENCODE_DB").filter(|db| db.as_os_str() != ":memory:").and_then(|db| match db {
        db if db.is_absolute() => Some(db),
        db => opencode.as_ref().map(|data| data.join(db)),
    });
    // Gemini CLI puts its whole `.gemini` folder under GEMINI_CLI_HOME instead of the home.
    let gemini = env.path("GEMINI_CLI_HOME").or_else(|| home.clone()).map(|h| h.join(".gemini"));
    let candidates = [
        codex.as_ref().map(|c| c.join("sessions")),
        codex.as_ref().map(|c| c.join("archived_sessions")),
        claude.map(|c| c.join("projects")),
        pi,
        under_home(".omp/agent/sessions"),
        gemini.map(|g| g.join("tmp")),
        opencode,
        opencode_db,
    ];
    candidates.into_iter().flatten().map(|path| SourceRoot { path, explicit: false }).collect()
}

fn integrate_settings(args: IntegrateArgs, env: &Env) -> Result<IntegrateSettings> {
    let home = env.home_dir().context("cannot find the agents' settings: HOME is not set")?;
    let claude_dir = env.path("CLAUDE_CONFIG_DIR");
    let places = Places {
        claude: claude_dir.clone().unwrap_or_else(|| home.join(".claude")),
        // Claude Code keeps its state file inside CLAUDE_CONFIG_DIR when that is set.
        claude_json: claude_dir.map_or_else(|| home.join(".claude.json"), |d| d.join(".claude.json")),
        codex: env.path("CODEX_HOME").unwrap_or_else(|| home.join(".codex")),
        gemini: env.path("GEMINI_CLI_HOME").unwrap_or_else(|| home.clone()).join(".gemini"),
        pi: env.path("PI_CODING_AGENT_DIR").map_or_else(|| home.join(".pi/agent"), |p| expand_tilde(&p, env)),
        opencode: env.path("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config")).join("opencode"),
    };
    let path = env.get("PATH").map(|p| std::env::split_paths(p).collect()).unwrap_or_default();
    let default_home = env.path("XDG_DATA_HOME").unwrap_or_else(|| home.join(".local/share")).join("handbook");
    let mode = match (args.write, args.remove, args.check) {
        (true, _, _) => IntegrateMode::Write,
        (_, true, _) => IntegrateMode::Remove,
        (_, _, true) => IntegrateMode::Check,
        _ => IntegrateMode::Show,
    };
    Ok(IntegrateSettings {
        agent: args.agent,
        mode,
        scope: if args.project_level { Level::Project } else { Level::User },
        mcp: args.mcp,
        places,
        path,
        default_home: Some(std::path::absolute(&default_home).unwrap_or(default_home)),
    })
}

fn expand_tilde(path: &Path, env: &Env) -> PathBuf {
    match (path.strip_prefix("~"), env.home_dir()) {
        (Ok(rest), Some(home)) => home.join(rest),
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests;
