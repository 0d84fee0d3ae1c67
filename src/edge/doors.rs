//! File doors: files an agent reads as instructions (opencode's `instructions` entry), which
//! handbook keeps fresh. `.handbook/doors.json` names each one; every run that can change the
//! summary rewrites them, and only when their bytes change, so prompt caches stay warm. They
//! live in `.handbook/doors/`, outside the files a consolidation compares, so refreshing one
//! never looks like an edit to the handbook.
//!
//! The same registry remembers the files `summary --output` wrote, wherever the user named
//! them, with how they were printed: they are kept fresh the same way, until the user deletes
//! one (a file that is gone is not made again, only forgotten, with a warning).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::config::Settings;
use crate::core::door::{Door, Printing};
use crate::edge::fsio::{self, Home};
use crate::edge::summary::{self, Request};
use crate::edge::terminal::Terminal;

/// Where the registry is, below the home.
const REGISTRY: &str = ".handbook/doors.json";

/// The folder the file doors are in, below the home.
pub(crate) fn doors_dir(home: &Path) -> PathBuf {
    home.join(".handbook")
}

/// A file door: which agent reads it (by name, so an entry a newer handbook wrote for an
/// agent this one does not know is still kept fresh), where, and for which project (`None`:
/// all of them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Registered {
    pub(crate) door: String,
    pub(crate) path: PathBuf,
    #[serde(default)]
    pub(crate) project: Option<String>,
}

/// A file `summary --output` wrote: where, how it was printed, and for which project (the
/// directory as it was given, for the command that writes the file again, and its key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Output {
    pub(crate) path: PathBuf,
    #[serde(flatten)]
    pub(crate) printing: Printing,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) project_dir: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) project: Option<String>,
}

impl Output {
    /// The command that writes this file again, the way it was first written.
    pub(crate) fn command(&self) -> String {
        let dir = self.project_dir.as_ref().map(|d| d.to_string_lossy().into_owned());
        self.printing.command(dir.as_deref(), &self.path.to_string_lossy())
    }

    /// What the file should hold now; empty before there is a summary.
    pub(crate) fn text(&self, settings: &Settings, term: &Terminal) -> Result<String> {
        let quiet = Terminal { quiet: true, ..*term };
        Ok(summary::printed(settings, &self.printing, self.project.as_deref(), &quiet)?.unwrap_or_default())
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Registry {
    doors: Vec<Registered>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    outputs: Vec<Output>,
}

fn registry(home: &Path) -> Result<Registry> {
    Ok(Home::new(home).read_json::<Registry>(&home.join(REGISTRY))?.unwrap_or_default())
}

/// The registered file doors.
pub(crate) fn load(home: &Path) -> Result<Vec<Registered>> {
    Ok(registry(home)?.doors)
}

/// The files `summary --output` wrote that are kept fresh.
pub(crate) fn outputs(home: &Path) -> Result<Vec<Output>> {
    Ok(registry(home)?.outputs)
}

fn save(home: &Path, doors: Vec<Registered>) -> Result<()> {
    let outputs = registry(home)?.outputs;
    Home::new(home).write_json(&home.join(REGISTRY), &Registry { doors, outputs })
}

/// Remember a file `summary --output` wrote (replacing what was remembered for its path); true
/// when the path is new. The registry is written only when it changes, so `summary --output`
/// at every agent start costs one read.
pub(crate) fn remember_output(home: &Path, output: Output) -> Result<bool> {
    let mut registry = registry(home)?;
    let known = registry.outputs.iter().position(|o| o.path == output.path);
    if known.is_some_and(|at| registry.outputs[at] == output) {
        return Ok(false);
    }
    registry.outputs.retain(|o| o.path != output.path);
    registry.outputs.push(output);
    Home::new(home).write_json(&home.join(REGISTRY), &registry)?;
    Ok(known.is_none())
}

/// Register `door` (replacing an entry of the same path) and write its file now, so it
/// exists before any agent is told to read it. A summary that cannot be read (a hand edit
/// gone wrong) does not stop the door: it is a warning, and the file is left as it is, or
/// made empty when there is none, until a consolidation writes a summary again.
pub(crate) fn register(settings: &Settings, door: Registered, term: &Terminal) -> Result<bool> {
    let mut doors = load(&settings.home)?;
    doors.retain(|d| d.path != door.path);
    doors.push(door.clone());
    save(&settings.home, doors)?;
    match text(settings, door.project.as_deref(), term) {
        Ok(text) => write(settings, &door, &text),
        Err(e) => {
            term.warn(&format!(
                "{e:#}; the file door {} is registered and will hold the summary once `handbook consolidate` has run",
                door.path.display()
            ));
            if Home::new(&settings.home).exists(&door.path)? { Ok(false) } else { write(settings, &door, "") }
        }
    }
}

/// Forget the file door at `path` and remove its file.
pub(crate) fn unregister(home: &Path, path: &Path) -> Result<()> {
    let mut doors = load(home)?;
    doors.retain(|d| d.path != path);
    save(home, doors)?;
    Home::new(home).remove_file(path)
}

/// Write a file door's text, only when its bytes change; true when written. A path outside
/// the home or through a link is refused (see [`Home`]), so nothing is written through one.
fn write(settings: &Settings, door: &Registered, text: &str) -> Result<bool> {
    Home::new(&settings.home).write_if_changed(&door.path, text.as_bytes())
}

/// What a file door holds: the summary as `summary --for opencode` (or pi) prints it, the
/// plain text with its wrapper, narrowed to `project` when there is one; empty before there
/// is a summary, so the file is always there and says nothing until there is something to say.
pub(crate) fn text(settings: &Settings, project: Option<&str>, term: &Terminal) -> Result<String> {
    let request = Request::for_door(Door::Opencode, settings, project);
    // The project having no topics yet is no news to whoever refreshes a door.
    let quiet = Terminal { quiet: true, ..*term };
    Ok(summary::render(settings, &request, &quiet)?.unwrap_or_default())
}

/// Rewrite every registered file door and `--output` file whose text changed. Never fails
/// the run that calls it: a file that cannot be written is a warning naming it and saying
/// what to do.
pub(crate) fn refresh(settings: &Settings, term: &Terminal) {
    refresh_doors(settings, term);
    refresh_outputs(settings, term);
}

fn refresh_doors(settings: &Settings, term: &Terminal) {
    let doors = match load(&settings.home) {
        Ok(doors) => doors,
        Err(e) => return term.warn(&format!("{e:#}; the file doors were not refreshed")),
    };
    let mut texts: BTreeMap<Option<String>, Result<String>> = BTreeMap::new();
    for door in &doors {
        let text = texts.entry(door.project.clone()).or_insert_with(|| text(settings, door.project.as_deref(), term));
        let written = match text {
            Ok(text) => write(settings, door, text),
            Err(e) => Err(anyhow::anyhow!("{e:#}")),
        };
        if let Err(e) = written {
            let again = match Door::from_name(&door.door) {
                Some(known) => format!("run `handbook integrate {} --write`", known.name()),
                None => format!("run the handbook that set up the {} door", door.door),
            };
            term.warn(&format!(
                "{e:#}; the file door {} was left as it was: fix that, then {again}",
                door.path.display()
            ));
        }
    }
}

/// Rewrite the files `summary --output` wrote, where they are still there as plain files. One
/// the user deleted is forgotten (not made again), one that became a link is left alone; both
/// are warnings that say how to have the file kept fresh again.
fn refresh_outputs(settings: &Settings, term: &Terminal) {
    let mut registry = match registry(&settings.home) {
        Ok(registry) => registry,
        Err(e) => return term.warn(&format!("{e:#}; the files `summary --output` wrote were not refreshed")),
    };
    let mut gone = Vec::new();
    for output in &registry.outputs {
        let shown = output.path.display();
        let again = output.command();
        match std::fs::symlink_metadata(&output.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                term.warn(&format!(
                    "{shown}, which `handbook summary --output` wrote, is gone, so it is no longer kept fresh; `{again}` writes it and keeps it fresh again"
                ));
                gone.push(output.path.clone());
                continue;
            }
            Ok(meta) if !meta.is_file() => {
                term.warn(&format!(
                    "{shown} is no longer a plain file (a link or a folder), so it was left as it was; remove it, then `{again}` writes it again"
                ));
                continue;
            }
            _ => {}
        }
        let written =
            output.text(settings, term).and_then(|text| fsio::write_if_changed(&output.path, text.as_bytes()));
        if let Err(e) = written {
            term.warn(&format!("{e:#}; {shown} was left as it was: fix that, then `{again}` writes it again"));
        }
    }
    if !gone.is_empty() {
        registry.outputs.retain(|o| !gone.contains(&o.path));
        if let Err(e) = Home::new(&settings.home).write_json(&settings.home.join(REGISTRY), &registry) {
            term.warn(&format!("{e:#}; the files `summary --output` wrote were not all forgotten"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_reads_back_and_replaces_by_path() {
        let home = tempfile::tempdir().unwrap();
        let entry = Registered {
            door: "opencode".into(),
            path: home.path().join(".handbook/doors/opencode.md"),
            project: None,
        };
        save(home.path(), vec![entry.clone(), entry.clone()]).unwrap();
        assert_eq!(load(home.path()).unwrap().len(), 2);
        save(home.path(), vec![entry.clone()]).unwrap();
        assert_eq!(load(home.path()).unwrap(), vec![entry]);
        assert!(load(&home.path().join("none")).unwrap().is_empty());
    }
}
