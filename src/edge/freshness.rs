//! Reading today's working trees for `core::trust::freshness`: the tree a session's folder
//! belongs to (the nearest folder above it holding `.git`, else the folder itself, and only
//! when it is on this machine), whether each path asked for is there, and the files that
//! declare scripts, targets, recipes and aliases, each read only up to a bound. Nothing is
//! executed and nothing is written; the answers are sorted, so the same tree gives the same
//! facts.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::path::{Component, Path};

use jiff::Timestamp;

use crate::core::trust::freshness::{self, Check, Declares, Facts, Found, MAX_FILE_BYTES, Probe};
use crate::core::trust::lesson::{Lesson, LessonId};

/// Check `lessons` against their working trees at `now`, given what was remembered.
pub(crate) fn check(
    lessons: &[Lesson],
    before: &BTreeMap<LessonId, Check>,
    now: Timestamp,
) -> BTreeMap<LessonId, Check> {
    let roots = roots(&freshness::folders(lessons));
    let places = freshness::places(lessons, &roots);
    let facts: BTreeMap<String, Facts> = freshness::probes(lessons, &places)
        .into_iter()
        .map(|(root, probe)| (root.clone(), read(&root, &probe)))
        .collect();
    freshness::judge(lessons, &places, &facts, before, now)
}

/// Each folder that is on this machine, with the root of its working tree.
fn roots(folders: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for folder in folders {
        let path = Path::new(folder);
        if !path.is_absolute() || !path.is_dir() {
            continue;
        }
        out.insert(folder.clone(), tree_root(path).to_string_lossy().trim_end_matches('/').to_string());
    }
    out
}

/// The root of the working tree `dir` is in: the nearest folder at or above it holding
/// `.git` (a worktree's own root too), else `dir` itself.
pub(crate) fn tree_root(dir: &Path) -> std::path::PathBuf {
    dir.ancestors().find(|d| d.join(".git").exists()).unwrap_or(dir).to_path_buf()
}

/// The answers for one tree.
fn read(root: &str, probe: &Probe) -> Facts {
    let root = Path::new(root);
    let paths =
        probe.paths.iter().map(|p| (p.clone(), inside(p) && fs::symlink_metadata(root.join(p)).is_ok())).collect();
    let files = probe.declaring.iter().map(|file| (*file, declaring(root, *file))).collect();
    Facts { paths, files }
}

/// A relative path that cannot climb out of the tree.
fn inside(path: &str) -> bool {
    Path::new(path).components().all(|c| matches!(c, Component::Normal(_)))
}

/// The first of a declaring file's names that is a plain file at the root, read whole when
/// it is within the bound.
fn declaring(root: &Path, file: Declares) -> Found {
    for name in file.candidates() {
        let path = root.join(name);
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_file() => {}
            Ok(_) => return Found::Unreadable,
            Err(_) => continue,
        }
        let mut bytes = Vec::new();
        let read = fs::File::open(&path).and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes));
        return match (read, String::from_utf8(bytes)) {
            (Ok(n), Ok(text)) if (n as u64) <= MAX_FILE_BYTES => Found::Text { name: (*name).to_string(), text },
            _ => Found::Unreadable,
        };
    }
    Found::Missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_found_above_the_folder_and_read_within_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("app");
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::create_dir_all(root.join("web/src")).unwrap();
        fs::write(root.join("web/src/a.ts"), "x").unwrap();
        fs::write(root.join("package.json"), r#"{"scripts":{"lint":"x"}}"#).unwrap();
        fs::write(root.join("Makefile"), "x".repeat(MAX_FILE_BYTES as usize + 1)).unwrap();
        let folder = root.join("web").to_string_lossy().into_owned();
        let found = roots(&BTreeSet::from([folder.clone(), "/no/such/place".to_string()]));
        assert_eq!(found.len(), 1);
        assert_eq!(found[&folder], root.to_string_lossy());
        let probe = Probe {
            paths: BTreeSet::from(["web/src/a.ts".into(), "src/a.ts".into(), "../app/package.json".into()]),
            declaring: BTreeSet::from([Declares::PackageJson, Declares::Makefile, Declares::Justfile]),
        };
        let facts = read(&found[&folder], &probe);
        assert!(facts.paths["web/src/a.ts"]);
        assert!(!facts.paths["src/a.ts"]);
        assert!(!facts.paths["../app/package.json"], "nothing outside the tree is looked at");
        assert!(matches!(&facts.files[&Declares::PackageJson], Found::Text { name, .. } if name == "package.json"));
        assert_eq!(facts.files[&Declares::Makefile], Found::Unreadable, "too big to read");
        assert_eq!(facts.files[&Declares::Justfile], Found::Missing);
    }
}
