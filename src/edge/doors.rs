//! File doors: files an agent reads as instructions (opencode's `instructions` entry), which
//! handbook keeps fresh. `.handbook/doors.json` names each one; every run that can change the
//! summary rewrites them, and only when their bytes change, so prompt caches stay warm. They
//! live in `.handbook/doors/`, outside the files a consolidation compares, so refreshing one
//! never looks like an edit to the handbook.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::config::Settings;
use crate::core::door::Door;
use crate::edge::fsio::Home;
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

#[derive(Debug, Default, Serialize, Deserialize)]
struct Registry {
    doors: Vec<Registered>,
}

/// The registered file doors.
pub(crate) fn load(home: &Path) -> Result<Vec<Registered>> {
    Ok(Home::new(home).read_json::<Registry>(&home.join(REGISTRY))?.unwrap_or_default().doors)
}

fn save(home: &Path, doors: Vec<Registered>) -> Result<()> {
    Home::new(home).write_json(&home.join(REGISTRY), &Registry { doors })
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

/// Rewrite every registered file door whose text changed. Never fails the run that calls it:
/// a door that cannot be written is a warning naming it and saying what to do.
pub(crate) fn refresh(settings: &Settings, term: &Terminal) {
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
