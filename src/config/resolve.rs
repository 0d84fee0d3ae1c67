//! The one way a setting is resolved: its flag, then its variable, then its config-file key,
//! then its default, remembering where each value came from. The environment is read here
//! and nowhere else.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::config::table::{self, Setting};
use crate::config::value::{Kind, Problem, either};

/// A snapshot of the environment variables handbook reads, so resolution is testable.
#[derive(Debug, Clone, Default)]
pub(crate) struct Env {
    vars: BTreeMap<String, String>,
    /// Every name asked for, so a test can hold the docs to what the code reads.
    #[cfg(test)]
    asked: std::cell::RefCell<std::collections::BTreeSet<String>>,
}

impl Env {
    /// The process environment.
    pub(crate) fn from_process() -> Env {
        Env::from_vars(
            std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))).collect(),
        )
    }

    /// An environment holding only `pairs`.
    #[cfg(test)]
    pub(crate) fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Env {
        Env::from_vars(pairs.into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    fn from_vars(vars: BTreeMap<String, String>) -> Env {
        Env {
            vars,
            #[cfg(test)]
            asked: Default::default(),
        }
    }

    /// A variable's value, when set and not empty.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        #[cfg(test)]
        self.asked.borrow_mut().insert(key.to_string());
        self.vars.get(key).map(String::as_str).filter(|v| !v.is_empty())
    }

    pub(crate) fn path(&self, key: &str) -> Option<PathBuf> {
        self.get(key).map(PathBuf::from)
    }

    pub(crate) fn home_dir(&self) -> Option<PathBuf> {
        self.path("HOME")
    }

    #[cfg(test)]
    pub(crate) fn asked(&self) -> std::collections::BTreeSet<String> {
        self.asked.borrow().clone()
    }
}

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "origin", rename_all = "lowercase")]
pub(crate) enum Origin {
    /// A command-line flag, such as `--wait`.
    Flag { flag: String },
    /// An environment variable.
    #[serde(rename = "variable")]
    Env { variable: String },
    /// A key of the config file.
    File { file: PathBuf, key: String },
    /// Nothing set it.
    Default,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Flag { flag } => write!(f, "flag {flag}"),
            Origin::Env { variable } => write!(f, "variable {variable}"),
            Origin::File { file, key } => write!(f, "{key} in {}", file.display()),
            Origin::Default => f.write_str("default"),
        }
    }
}

impl Origin {
    /// Where, as an error message begins: `--wait`, `HANDBOOK_WAIT`, `key in /path`.
    fn place(&self) -> String {
        match self {
            Origin::Flag { flag } => flag.clone(),
            Origin::Env { variable } => variable.clone(),
            Origin::File { file, key } => format!("{key} in {}", file.display()),
            Origin::Default => "the default".to_string(),
        }
    }

    /// The error for a refused value: where it came from, the value, and what was wrong.
    fn refuse(&self, shown: &str, problem: Problem) -> anyhow::Error {
        let place = self.place();
        match (self, problem) {
            (_, Problem::Unknown(message)) => anyhow::anyhow!("{place}: {message}"),
            (Origin::Flag { .. }, Problem::Expected(message)) => anyhow::anyhow!("{place} {shown}: {message}"),
            (Origin::Env { .. }, Problem::Expected(message)) => anyhow::anyhow!("{place}={shown}: {message}"),
            (Origin::File { .. } | Origin::Default, Problem::Expected(message)) => {
                anyhow::anyhow!("{place}: got {shown}, {message}")
            }
        }
    }
}

/// One resolved setting, as `handbook config` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Resolved {
    /// The setting's name, `extract.` or `consolidate.` first for a phase's engine.
    pub(crate) name: String,
    /// `None` when it is unset and has no default.
    pub(crate) value: Option<String>,
    #[serde(flatten)]
    pub(crate) origin: Origin,
}

/// The config file: its path and its keys, checked against the table.
#[derive(Debug, Clone)]
pub(crate) struct ConfigFile {
    pub(crate) path: PathBuf,
    keys: toml::Table,
}

impl ConfigFile {
    /// Read the file at `path`; a missing file is no file unless it was named explicitly.
    pub(crate) fn load(path: &Path, required: bool) -> Result<Option<ConfigFile>> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("cannot read config file {}", path.display())),
        };
        ConfigFile::parse(path, &text).map(Some)
    }

    /// The keys the file sets, in its order.
    pub(crate) fn key_names(&self) -> Vec<String> {
        self.keys.keys().cloned().collect()
    }

    /// Parse the file's text. Unknown keys are an error, so a typo never goes unnoticed.
    pub(crate) fn parse(path: &Path, text: &str) -> Result<ConfigFile> {
        let keys: toml::Table =
            toml::from_str(text).with_context(|| format!("invalid config file {}", path.display()))?;
        if let Some(key) = keys.keys().find(|key| !table::config_keys().any(|known| known == key.as_str())) {
            let known: Vec<String> = table::config_keys().map(str::to_string).collect();
            let meant = crate::core::words::closest(key, table::config_keys())
                .map(|near| format!(" (did you mean {near:?}?)"))
                .unwrap_or_default();
            bail!(
                "invalid config file {}: unknown key {key:?}{meant}; the keys are {}",
                path.display(),
                either(&known)
            );
        }
        Ok(ConfigFile { path: path.to_path_buf(), keys })
    }
}

/// Resolves settings against the environment and the config file, keeping a record of each.
pub(crate) struct Resolver<'a> {
    pub(crate) env: &'a Env,
    pub(crate) file: Option<ConfigFile>,
    /// `extract` or `consolidate` while resolving a phase's engine.
    scope: Option<&'static str>,
    pub(crate) resolved: Vec<Resolved>,
    pub(crate) warnings: Vec<String>,
}

impl<'a> Resolver<'a> {
    pub(crate) fn new(env: &'a Env) -> Resolver<'a> {
        Resolver { env, file: None, scope: None, resolved: Vec::new(), warnings: Vec::new() }
    }

    /// Resolve within a phase, whose records are named `phase.setting`.
    pub(crate) fn within<T>(&mut self, phase: &'static str, resolve: impl FnOnce(&mut Self) -> T) -> T {
        let outer = self.scope.replace(phase);
        let result = resolve(self);
        self.scope = outer;
        result
    }

    /// The first setting of `chain` that is set: the flag, then each setting's variable, then
    /// each setting's config key, or `default`.
    pub(crate) fn get<T: Kind>(&mut self, chain: &[&'static Setting<T>], flag: Option<T>, default: T) -> Result<T> {
        let (value, origin) = self.pick(chain, flag)?.unwrap_or((default, Origin::Default));
        self.record(chain, Some(value.show()), origin);
        Ok(value)
    }

    /// As [`Resolver::get`], for a setting that may stay unset.
    pub(crate) fn get_opt<T: Kind>(
        &mut self,
        chain: &[&'static Setting<T>],
        flag: Option<T>,
        default: Option<T>,
    ) -> Result<Option<T>> {
        let (value, origin) = match self.pick(chain, flag)? {
            Some((value, origin)) => (Some(value), origin),
            None => (default, Origin::Default),
        };
        self.record(chain, value.as_ref().map(Kind::show), origin);
        Ok(value)
    }

    /// The value and origin of the first setting of `chain` that is set, unrecorded.
    pub(crate) fn pick<T: Kind>(
        &mut self,
        chain: &[&'static Setting<T>],
        flag: Option<T>,
    ) -> Result<Option<(T, Origin)>> {
        if let Some(value) = flag {
            let Some(setting) = chain.iter().find(|s| s.flag.is_some()) else {
                bail!("{} has no flag, yet one was given", chain_name(chain));
            };
            let origin = Origin::Flag { flag: setting.flag.unwrap_or_default().to_string() };
            return Self::checked(setting, value, origin, |v| v.show()).map(Some);
        }
        for setting in chain {
            if let Some((variable, text)) = self.variable_of(setting) {
                let origin = Origin::Env { variable: variable.to_string() };
                let value = T::from_text(text).map_err(|p| origin.refuse(text, p))?;
                return Self::checked(setting, value, origin, |_| text.to_string()).map(Some);
            }
        }
        for setting in chain {
            if let Some((key, value, path)) = self.key_of(setting) {
                let origin = Origin::File { file: path, key: key.to_string() };
                let parsed = T::from_toml(&value).map_err(|p| origin.refuse(&value.to_string(), p))?;
                return Self::checked(setting, parsed, origin, |_| value.to_string()).map(Some);
            }
        }
        Ok(None)
    }

    /// Record a value worked out apart from [`Resolver::get`].
    pub(crate) fn record<T>(&mut self, chain: &[&'static Setting<T>], value: Option<String>, origin: Origin) {
        let name = match self.scope {
            Some(phase) => format!("{phase}.{}", chain.last().map_or("", |s| s.name)),
            None => chain_name(chain).to_string(),
        };
        self.record_named(name, value, origin);
    }

    /// Record a value under a name of its own; a name resolved twice (by `update`) keeps the
    /// first record, which holds the same value.
    pub(crate) fn record_named(&mut self, name: String, value: Option<String>, origin: Origin) {
        if !self.resolved.iter().any(|r| r.name == name) {
            self.resolved.push(Resolved { name, value, origin });
        }
    }

    /// `extract.` or `consolidate.` and `name`, inside a phase.
    pub(crate) fn scoped(&self, name: &str) -> String {
        match self.scope {
            Some(phase) => format!("{phase}.{name}"),
            None => name.to_string(),
        }
    }

    pub(crate) fn warn(&mut self, message: String) {
        if !self.warnings.contains(&message) {
            self.warnings.push(message);
        }
    }

    fn checked<T>(
        setting: &Setting<T>,
        value: T,
        origin: Origin,
        shown: impl FnOnce(&T) -> String,
    ) -> Result<(T, Origin)> {
        match (setting.check)(&value) {
            Ok(()) => Ok((value, origin)),
            Err(bounds) => Err(origin.refuse(&shown(&value), Problem::Expected(bounds.to_string()))),
        }
    }

    /// The setting's variable and its text, or its old variable's (with a warning).
    fn variable_of<T>(&mut self, setting: &Setting<T>) -> Option<(&'static str, &'a str)> {
        let env = self.env;
        let current = setting.env.and_then(|name| Some((name, env.get(name)?)));
        if let Some(old) = setting.old
            && env.get(old.env).is_some()
        {
            let new = setting.env.unwrap_or(setting.name);
            self.warn(match current {
                Some(_) => format!("{} is the old name of {new}, which is set too: unset {}", old.env, old.env),
                None => format!("{} is the old name of {new}: rename it {new}", old.env),
            });
            return current.or_else(|| Some((old.env, env.get(old.env)?)));
        }
        current
    }

    /// The setting's key in the config file, or its old key's (with a warning).
    fn key_of<T>(&mut self, setting: &Setting<T>) -> Option<(&'static str, toml::Value, PathBuf)> {
        let file = self.file.as_ref()?;
        let path = file.path.clone();
        let current = setting.key().and_then(|key| Some((key, file.keys.get(key)?.clone())));
        let old = setting.old.and_then(|old| Some((old.key, file.keys.get(old.key)?.clone())));
        if let Some((old_key, _)) = &old {
            let shown = path.display();
            self.warn(match current {
                Some(_) => {
                    format!("{old_key} in {shown} is the old name of {}, which is set too: remove it", setting.name)
                }
                None => format!("{old_key} in {shown} is the old name of {}: rename it {}", setting.name, setting.name),
            });
        }
        current.or(old).map(|(key, value)| (key, value, path))
    }
}

fn chain_name<T>(chain: &[&'static Setting<T>]) -> &'static str {
    chain.first().map_or("", |s| s.name)
}
