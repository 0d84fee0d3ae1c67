//! `handbook promote <REF> [--to FILE] [--remove]`: write a lesson into the managed block of
//! the project's own instruction file (`core::trust::block` edits the text), for the team to
//! review and commit, and leave it out of the personal summary. The file is at the root of
//! the lesson's working tree on this machine (or of `--project`); a symbolic link there that
//! leads out of the project is refused, and nothing else outside the home is written.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::config::Settings;
use crate::config::trust::PromoteSettings;
use crate::core::layout::{MEMORY, SUMMARY, WHOLE_SUMMARY};
use crate::core::tokens::Cap;
use crate::core::trust::block::{self, Entry};
use crate::core::trust::filter::{self, Withheld};
use crate::core::trust::generations::Made;
use crate::core::trust::lesson::{Lesson, lessons};
use crate::core::trust::refs::parse_lesson;
use crate::core::trust::{Promoted, Trust};
use crate::edge::freshness::tree_root;
use crate::edge::generations::{self as stored, Commit, load_log, load_trust};
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

#[derive(Serialize)]
struct Done<'a> {
    lesson: &'a str,
    file: String,
    /// `promoted`, `removed`, or `unchanged` (already there, or not there to remove).
    outcome: &'static str,
}

/// Run `promote`.
pub(crate) fn run(settings: &Settings, opts: &PromoteSettings, term: &Terminal) -> Result<()> {
    let workspace = Workspace::new(&settings.home);
    let _lock = workspace.lock(opts.lock_wait)?;
    stored::recover(&workspace)?;
    let Some(memory) = workspace.read(MEMORY)? else {
        bail!("no handbook yet in {}: run `handbook update` first", settings.home.display());
    };
    let found = lessons(&memory);
    let lesson = parse_lesson(&opts.lesson)?.find(&found)?.clone();
    let root = project_root(&lesson, opts.project.as_deref())?;
    let path = instruction_file(&root, opts.to.name())?;
    let text = read(&path)?;
    let edited = match opts.remove {
        true => block::remove(text.as_deref().unwrap_or(""), lesson.id.as_str()),
        false => block::add(text.as_deref(), &entry(&lesson, settings)).map(Some),
    }
    .map_err(|e| {
        anyhow::anyhow!("{}: {e}; nothing was written: fix the markers by hand, then run again", path.display())
    })?;
    let changed = edited.as_ref().is_some_and(|new| Some(new) != text.as_ref());
    if let Some(new) = edited.filter(|_| changed) {
        write(&path, &new, text.is_some())?;
    }
    let mut trust = load_trust(&workspace, term)?;
    let file = path.display().to_string();
    match opts.remove {
        true => trust.promoted.remove(&lesson.id).map(drop).unwrap_or(()),
        false => drop(trust.promoted.insert(
            lesson.id.clone(),
            Promoted { file: file.clone(), name: opts.to.name().to_string(), at: settings.now },
        )),
    }
    let outcome = match (changed, opts.remove) {
        (false, _) => "unchanged",
        (true, false) => "promoted",
        (true, true) => "removed",
    };
    term.json("promote", &Done { lesson: lesson.id.as_str(), file: file.clone(), outcome })?;
    term.line(&format!("{outcome}: {} in {file}", lesson.id))?;
    match opts.remove {
        false => keep_out_of_summary(&workspace, settings, &trust, &memory)?,
        true => bring_back(&workspace, settings, opts, &trust, term)?,
    }
    crate::edge::doors::refresh(settings, term);
    Ok(())
}

/// The block's entry for `lesson`: its words, today's date and the sessions behind it.
fn entry(lesson: &Lesson, settings: &Settings) -> Entry {
    Entry {
        id: lesson.id.to_string(),
        text: lesson.text.clone(),
        date: settings.now.strftime("%Y-%m-%d").to_string(),
        sessions: lesson.sessions.iter().map(|s| s.session_id.clone()).collect(),
    }
}

/// The root of the project's working tree: `--project`'s, or the git working tree of the
/// lesson's newest session whose folder is on this machine.
fn project_root(lesson: &Lesson, project: Option<&Path>) -> Result<PathBuf> {
    if let Some(dir) = project {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        if !dir.is_dir() {
            bail!("--project {}: no such folder", dir.display());
        }
        return Ok(tree_root(&dir));
    }
    let mut sessions: Vec<_> = lesson.sessions.iter().collect();
    sessions.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
    let found = sessions.iter().filter_map(|s| s.cwd.as_deref()).map(Path::new).find(|p| p.is_absolute() && p.is_dir());
    match found.map(tree_root) {
        // A folder from a transcript is taken only when it is a git working tree on this
        // machine: a session's `cwd` never sends a write anywhere else.
        Some(root) if root.join(".git").exists() => Ok(root),
        Some(root) => bail!(
            "{} is not in a git working tree, so handbook does not take it for the project of {}: name the project's folder with --project DIR",
            root.display(),
            lesson.id
        ),
        None => bail!(
            "the working tree of {} is not on this machine{}: name the project's folder with --project DIR",
            lesson.scope(),
            match lesson.sessions.iter().filter_map(|s| s.cwd.as_deref()).next() {
                Some(cwd) => format!(" (its sessions ran in {cwd})"),
                None => String::new(),
            }
        ),
    }
}

/// `name` at `root`; a symbolic link there is followed only to a file inside the project.
fn instruction_file(root: &Path, name: &str) -> Result<PathBuf> {
    let root =
        std::fs::canonicalize(root).with_context(|| format!("cannot read the project folder {}", root.display()))?;
    let path = root.join(name);
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let target = std::fs::canonicalize(&path).with_context(|| {
                format!("{} is a symbolic link that leads nowhere; fix or remove it", path.display())
            })?;
            if !target.starts_with(&root) || !target.is_file() {
                bail!(
                    "{} is a symbolic link to {}, outside the project {}: handbook writes no file outside the place you named; replace the link, or promote into that project with --project",
                    path.display(),
                    target.display(),
                    root.display()
                );
            }
            Ok(target)
        }
        Ok(meta) if !meta.is_file() => bail!("{} is not a plain file; move it away and run again", path.display()),
        _ => Ok(path),
    }
}

fn read(path: &Path) -> Result<Option<String>> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| anyhow::anyhow!("{} is not UTF-8 text; nothing was written", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Write the team's file atomically, keeping its permissions (a new one is readable by the
/// team: 0644).
fn write(path: &Path, text: &str, existed: bool) -> Result<()> {
    crate::edge::fsio::write_keeping_mode(path, text.as_bytes())?;
    #[cfg(unix)]
    if !existed {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644))
            .with_context(|| format!("cannot set the permissions of {}", path.display()))?;
    }
    let _ = existed;
    Ok(())
}

/// Mark the promoted lessons in `MEMORY.md`, leave them out of the summary, and commit that
/// as a generation.
fn keep_out_of_summary(workspace: &Workspace, settings: &Settings, trust: &Trust, memory: &str) -> Result<()> {
    let found = lessons(memory);
    let withheld = Withheld {
        stale: found.iter().filter_map(|l| Some((l.id.clone(), l.marks.stale.clone()?))).collect(),
        promoted: trust.promoted.iter().map(|(id, p)| (id.clone(), p.name.clone())).collect(),
        held: Default::default(),
    };
    let summary = workspace.read(SUMMARY)?.unwrap_or_default();
    let whole = workspace.read(WHOLE_SUMMARY)?;
    let cap = Cap { tokens: Some(settings.summary_max_tokens), chars: None };
    let (memory, summary, whole) = filter::apply(memory, &summary, whole.as_deref(), &withheld, cap);
    let mut after = workspace.snapshot()?;
    after.files.insert(MEMORY.to_string(), memory.into_bytes());
    after.files.insert(SUMMARY.to_string(), summary.into_bytes());
    let manifest = workspace.load_manifest()?;
    let plan = crate::core::trust::generations::restore(&manifest.files, &after.hashes());
    for path in plan.writes.keys() {
        workspace.store_object(&after.files[path])?;
    }
    stored::restore(workspace, settings, &plan, whole.as_deref())?;
    let mut log = load_log(workspace)?;
    let engine = log.current().map_or_else(|| "builtin".to_string(), |g| g.engine.clone());
    let manifest = crate::core::manifest::Manifest { files: after.hashes(), ..manifest };
    let commit =
        Commit { made: Made::Promote, engine, after: &after, whole: whole.as_deref(), manifest, at: settings.now };
    stored::commit(workspace, settings, &mut log, trust, commit).map(drop)
}

/// A lesson taken out of the block goes back into the summary: with the built-in engine the
/// handbook is consolidated now; a model's waits for the next consolidation.
fn bring_back(
    workspace: &Workspace,
    settings: &Settings,
    opts: &PromoteSettings,
    trust: &Trust,
    term: &Terminal,
) -> Result<()> {
    stored::save_trust(workspace, trust)?;
    if opts.consolidate.engine.is_model() {
        term.note("the lesson comes back to your summary at the next consolidation");
        return Ok(());
    }
    let quiet = Terminal { quiet: true, json: false, progress: false, ..*term };
    super::consolidate::consolidate_and_report(workspace, settings, &opts.consolidate, &quiet).map(drop)
}
