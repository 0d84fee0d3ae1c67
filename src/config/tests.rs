//! Resolution: precedence, origins, bounds named by their source, old names, and the docs
//! holding every variable the code reads.

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

fn origin_of<'a>(settings: &'a Settings, name: &str) -> &'a Origin {
    &settings.resolved.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("{name} not resolved")).origin
}

/// A config file with `text` in a temporary folder, and an environment naming it.
fn with_config(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
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
    let defaults = [
        PathBuf::from("/c/sessions"),
        "/c/archived_sessions".into(),
        "/h/.claude/projects".into(),
        "/h/.pi/agent/sessions".into(),
        "/h/.omp/agent/sessions".into(),
        "/h/.gemini/tmp".into(),
        "/h/.local/share/opencode".into(),
    ];
    assert_eq!(paths, defaults);
    let env = Env::from_pairs([("HOME", "/h"), ("PI_CODING_AGENT_DIR", "/p")]);
    let paths: Vec<PathBuf> = default_sources(&env).into_iter().map(|s| s.path).collect();
    assert_eq!(paths[3], PathBuf::from("/p/sessions"));
    let env = Env::from_pairs([("HOME", "/h"), ("PI_CODING_AGENT_DIR", "/p"), ("PI_CODING_AGENT_SESSION_DIR", "/s")]);
    let paths: Vec<PathBuf> = default_sources(&env).into_iter().map(|s| s.path).collect();
    assert_eq!(paths[3], PathBuf::from("/s"), "the session folder wins over the agent folder");
}

#[test]
fn default_sources_take_opencode_data_folder_and_database() {
    let paths = |pairs: &[(&str, &str)]| -> Vec<PathBuf> {
        let env = Env::from_pairs(pairs.iter().copied());
        default_sources(&env).into_iter().map(|s| s.path).skip(6).collect()
    };
    assert_eq!(paths(&[("HOME", "/h"), ("XDG_DATA_HOME", "/x")]), [PathBuf::from("/x/opencode")]);
    let named = paths(&[("HOME", "/h"), ("OPENCODE_DB", "work.db")]);
    assert_eq!(named, [PathBuf::from("/h/.local/share/opencode"), "/h/.local/share/opencode/work.db".into()]);
    let absolute = paths(&[("HOME", "/h"), ("OPENCODE_DB", "/db/oc.db")]);
    assert_eq!(absolute, [PathBuf::from("/h/.local/share/opencode"), "/db/oc.db".into()]);
    assert_eq!(paths(&[("HOME", "/h"), ("OPENCODE_DB", ":memory:")]), [PathBuf::from("/h/.local/share/opencode")]);
}

#[test]
fn default_sources_follow_gemini_cli_home() {
    let env = Env::from_pairs([("HOME", "/h"), ("GEMINI_CLI_HOME", "/g")]);
    let paths: Vec<PathBuf> = default_sources(&env).into_iter().map(|s| s.path).collect();
    assert_eq!(paths[5], PathBuf::from("/g/.gemini/tmp"));
}

#[test]
fn bad_values_name_their_source() {
    let env = Env::from_pairs([("HOME", "/h"), ("HANDBOOK_NOW", "yesterday")]);
    let err = resolve(&["extract"], &env).unwrap_err();
    assert!(format!("{err:#}").contains("HANDBOOK_NOW=yesterday"), "{err:#}");
}

#[test]
fn out_of_bounds_values_name_the_variable_the_key_or_the_flag() {
    let env = Env::from_pairs([("HOME", "/h"), ("HANDBOOK_MAX_RETRIES", "50")]);
    let err = format!("{:#}", resolve(&["extract", "--engine", "command", "--llm-command", "x"], &env).unwrap_err());
    assert_eq!(err, "HANDBOOK_MAX_RETRIES=50: expected a whole number from 0 to 20");

    let (_dir, path) = with_config("lock_wait_seconds = 7200\n");
    let env = Env::from_pairs([("HOME", "/h"), ("HANDBOOK_CONFIG", path.to_str().unwrap())]);
    let err = format!("{:#}", resolve(&["note", "x"], &env).unwrap_err());
    assert_eq!(err, format!("lock_wait_seconds in {}: got 7200, expected between 0 and 3600 seconds", path.display()));

    let err = resolve(&["extract", "--wait", "7200"], &Env::from_pairs([("HOME", "/h")])).unwrap_err();
    assert!(err.to_string().contains("'--wait <SECONDS>': expected between 0 and 3600 seconds"), "{err}");
}

#[test]
fn whole_numbers_are_read_as_integers() {
    let env = Env::from_pairs([("HOME", "/h"), ("HANDBOOK_MAX_RAW_MEMORIES", "2.0")]);
    let err = format!("{:#}", resolve(&["consolidate"], &env).unwrap_err());
    assert_eq!(err, "HANDBOOK_MAX_RAW_MEMORIES=2.0: expected a whole number");
    let (_dir, path) = with_config("max_retries = 2.0\nengine = \"command\"\nllm_command = \"x\"\n");
    let env = Env::from_pairs([("HOME", "/h"), ("HANDBOOK_CONFIG", path.to_str().unwrap())]);
    let err = format!("{:#}", resolve(&["extract"], &env).unwrap_err());
    assert!(err.starts_with("max_retries in ") && err.ends_with("got 2.0, expected a whole number"), "{err}");
    // A number far beyond what f64 holds exactly is still read exactly.
    let env = Env::from_pairs([("HOME", "/h"), ("HANDBOOK_MAX_INPUT_TOKENS_PER_RUN", "9007199254740993")]);
    assert_eq!(extract(&resolve(&["extract"], &env).unwrap()).max_input_tokens_per_run, Some(9_007_199_254_740_993));
}

#[test]
fn each_value_records_where_it_came_from() {
    let (_dir, path) = with_config("max_age_days = 3\n");
    let env = Env::from_pairs([
        ("HOME", "/h"),
        ("HANDBOOK_CONFIG", path.to_str().unwrap()),
        ("HANDBOOK_MIN_IDLE_HOURS", "2"),
    ]);
    let s = resolve(&["extract", "--wait", "1"], &env).unwrap();
    assert_eq!(origin_of(&s, "lock_wait_seconds"), &Origin::Flag { flag: "--wait".into() });
    assert_eq!(origin_of(&s, "min_idle_hours"), &Origin::Env { variable: "HANDBOOK_MIN_IDLE_HOURS".into() });
    assert_eq!(origin_of(&s, "max_age_days"), &Origin::File { file: path.clone(), key: "max_age_days".into() });
    assert_eq!(origin_of(&s, "include_subagents"), &Origin::Default);
    assert_eq!(origin_of(&s, "config"), &Origin::Env { variable: "HANDBOOK_CONFIG".into() });
    assert_eq!(extract(&s).max_age, SignedDuration::from_hours(72));
}

#[test]
fn a_phase_setting_beats_the_shared_one_in_each_source() {
    let (_dir, path) = with_config("model = \"file-shared\"\nextract_model = \"file-own\"\n");
    let config = path.to_str().unwrap();
    let base = [("HOME", "/h"), ("HANDBOOK_CONFIG", config), ("HANDBOOK_ENGINE", "openai")];
    let model_of = |extra: &[(&'static str, &'static str)]| {
        let env = Env::from_pairs(base.iter().chain(extra).copied());
        let s = resolve(&["extract"], &env).unwrap();
        (extract(&s).engine.model.clone().unwrap(), origin_of(&s, "extract.model").clone())
    };
    assert_eq!(model_of(&[]).0, "file-own");
    assert_eq!(model_of(&[("HANDBOOK_MODEL", "env-shared")]).0, "env-shared");
    let (model, origin) = model_of(&[("HANDBOOK_MODEL", "env-shared"), ("HANDBOOK_EXTRACT_MODEL", "env-own")]);
    assert_eq!(model, "env-own");
    assert_eq!(origin, Origin::Env { variable: "HANDBOOK_EXTRACT_MODEL".into() });
}

#[test]
fn old_names_still_work_with_a_warning() {
    let env =
        Env::from_pairs([("HOME", "/h"), ("HANDBOOK_ENGINE", "openai"), ("HANDBOOK_CONSOLIDATION_MODEL", "old-env")]);
    let s = resolve(&["consolidate"], &env).unwrap();
    let CommandSettings::Consolidate(c) = &s.command else { panic!("not consolidate") };
    assert_eq!(c.engine.model.as_deref(), Some("old-env"));
    assert_eq!(
        s.warnings,
        [
            "HANDBOOK_CONSOLIDATION_MODEL is the old name of HANDBOOK_CONSOLIDATE_MODEL: rename it HANDBOOK_CONSOLIDATE_MODEL"
        ]
    );

    let (_dir, path) = with_config("consolidation_model = \"old-key\"\n");
    let env =
        Env::from_pairs([("HOME", "/h"), ("HANDBOOK_ENGINE", "openai"), ("HANDBOOK_CONFIG", path.to_str().unwrap())]);
    let s = resolve(&["consolidate"], &env).unwrap();
    let CommandSettings::Consolidate(c) = &s.command else { panic!("not consolidate") };
    assert_eq!(c.engine.model.as_deref(), Some("old-key"));
    assert_eq!(s.warnings.len(), 1);
    assert!(
        s.warnings[0].contains("consolidation_model in ") && s.warnings[0].ends_with("rename it consolidate_model")
    );

    // The new name wins, and the old one is called out.
    let env = Env::from_pairs([
        ("HOME", "/h"),
        ("HANDBOOK_ENGINE", "openai"),
        ("HANDBOOK_CONSOLIDATION_MODEL", "old"),
        ("HANDBOOK_CONSOLIDATE_MODEL", "new"),
    ]);
    let s = resolve(&["consolidate"], &env).unwrap();
    let CommandSettings::Consolidate(c) = &s.command else { panic!("not consolidate") };
    assert_eq!(c.engine.model.as_deref(), Some("new"));
    assert!(s.warnings[0].ends_with("unset HANDBOOK_CONSOLIDATION_MODEL"), "{:?}", s.warnings);
}

#[test]
fn unknown_keys_in_the_config_file_are_an_error() {
    let (_dir, path) = with_config("min_idle_hour = 3\n");
    let env = Env::from_pairs([("HOME", "/h"), ("HANDBOOK_CONFIG", path.to_str().unwrap())]);
    let err = format!("{:#}", resolve(&["status"], &env).unwrap_err());
    assert!(err.contains("unknown key \"min_idle_hour\" (did you mean \"min_idle_hours\"?); the keys are"), "{err}");
}

#[test]
fn config_shows_what_an_engine_lacks_instead_of_failing() {
    let env = Env::from_pairs([("HOME", "/h"), ("HANDBOOK_ENGINE", "anthropic")]);
    assert!(resolve(&["extract"], &env).is_err());
    let s = resolve(&["config"], &env).unwrap();
    assert!(
        s.warnings.iter().any(|w| w.starts_with("extract: the anthropic engine needs a model")),
        "{:?}",
        s.warnings
    );
    let key = s.resolved.iter().find(|r| r.name == "consolidate.api_key").unwrap();
    assert_eq!(key.value.as_deref(), Some("not set"));
    assert_eq!(key.origin, Origin::Env { variable: "ANTHROPIC_API_KEY".into() });
}

/// Every variable the code reads, for any command and engine, is documented, so the man
/// page's ENVIRONMENT section (made from the table) lists them all.
#[test]
fn every_variable_read_is_in_the_table() {
    let documented: Vec<&str> = table::ALL
        .iter()
        .flat_map(|s| {
            let spec = s.spec();
            spec.env.into_iter().chain(spec.old.map(|o| o.env))
        })
        .chain(table::OTHER_VARIABLES.iter().map(|v| v.name))
        .collect();
    let runs: &[&[&str]] = &[
        &["config"],
        &["update"],
        &["summary"],
        &["search", "x"],
        &["note", "x"],
        &["forget", "x"],
        &["status"],
        &["reset"],
        &["extract", "--engine", "openai", "--model", "m"],
        &["consolidate", "--engine", "anthropic", "--model", "m"],
        &["update", "--engine", "command", "--llm-command", "x"],
    ];
    for args in runs {
        let env = Env::from_pairs([("HOME", "/h"), ("ANTHROPIC_API_KEY", "k")]);
        resolve(args, &env).unwrap_or_else(|e| panic!("{args:?}: {e:#}"));
        for name in env.asked() {
            // A test-only fault-injection switch, kept out of the docs on purpose.
            if name == "HANDBOOK_FAULT" {
                continue;
            }
            assert!(documented.contains(&name.as_str()), "{args:?} reads {name}, which the table does not declare");
        }
    }
}
