//! `handbook integrate`: show, write, remove or check the door that brings the summary into
//! an agent. The planners in `core::integrate` decide each file's new text; the edges read,
//! back up and write.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::config::{IntegrateMode, IntegrateSettings, Settings};
use crate::core::door::Door;
use crate::core::integrate::check::{self, FileDoor, Level, Observed};
use crate::core::integrate::edit::Wanted;
use crate::core::integrate::{self, Action, Invocation, Scope, Target};
use crate::edge::agents;
use crate::edge::doors::{self, Registered};
use crate::edge::fsio::Home;
use crate::edge::git::project_of_dir;
use crate::edge::summary::{self, Request};
use crate::edge::terminal::Terminal;

/// One door's files and what they are for.
struct DoorPlan {
    door: Door,
    run: Invocation,
    targets: Vec<Target>,
    /// opencode's file door, with the project it is for.
    file_door: Option<Registered>,
    doors_dir: String,
}

#[derive(Serialize)]
struct Change<'a> {
    door: &'static str,
    path: &'a Path,
    outcome: &'static str,
    backup: Option<&'a Path>,
}

/// Run `integrate`.
pub(crate) fn run(settings: &Settings, opts: &IntegrateSettings, term: &Terminal) -> Result<()> {
    let Some(door) = opts.agent else { return list(settings, opts, term) };
    let plan = door_plan(settings, opts, door)?;
    if opts.mcp
        && let Some(why) = integrate::no_mcp(door)
    {
        term.note(why);
    }
    match opts.mode {
        IntegrateMode::Check => check_door(settings, opts, &plan, term),
        IntegrateMode::Show => change(settings, &plan, Action::Add, false, term),
        IntegrateMode::Write => change(settings, &plan, Action::Add, true, term),
        IntegrateMode::Remove => change(settings, &plan, Action::Remove, true, term),
    }
}

fn door_plan(settings: &Settings, opts: &IntegrateSettings, door: Door) -> Result<DoorPlan> {
    let binary = agents::this_binary()?.to_string_lossy().into_owned();
    let home = (opts.default_home.as_deref() != Some(settings.home.as_path()))
        .then(|| settings.home.to_string_lossy().into_owned());
    let project = match opts.scope {
        Scope::Project => Some(agents::project_root()?),
        Scope::User => None,
    };
    let root = project.clone().unwrap_or_default();
    let mut targets = integrate::targets(door, opts.scope, &opts.places, &root, opts.mcp);
    for target in &mut targets {
        if door == Door::Opencode {
            target.path = agents::opencode_file(&target.path);
        }
    }
    let key = project.as_deref().map(project_of_dir);
    let dir = doors::doors_dir(&settings.home);
    let file_door = (door == Door::Opencode).then(|| Registered {
        door: door.name().to_string(),
        path: integrate::door_file(&dir, door, key.as_deref()),
        project: key,
    });
    let doors_dir = format!("{}/", dir.join("doors").display());
    Ok(DoorPlan { door, run: Invocation { binary, home }, targets, file_door, doors_dir })
}

impl DoorPlan {
    fn wanted(&self) -> Wanted<'_> {
        let door_file = self.file_door.as_ref().map_or("", |d| d.path.to_str().unwrap_or_default());
        Wanted { door: self.door, run: &self.run, door_file, doors_dir: &self.doors_dir }
    }

    /// Each file once, with the parts of the door it holds.
    fn files(&self) -> Vec<(PathBuf, Vec<&Target>)> {
        let mut files: Vec<(PathBuf, Vec<&Target>)> = Vec::new();
        for target in &self.targets {
            match files.iter_mut().find(|(p, _)| *p == target.path) {
                Some((_, parts)) => parts.push(target),
                None => files.push((target.path.clone(), vec![target])),
            }
        }
        files
    }
}

fn change(settings: &Settings, plan: &DoorPlan, action: Action, apply: bool, term: &Terminal) -> Result<()> {
    let mut changed = false;
    for (path, parts) in plan.files() {
        let found = agents::read(&path)?;
        let mut after = found.text.clone();
        for target in parts {
            after = integrate::plan(target, &plan.wanted(), after.as_deref(), action).map_err(|e| {
                anyhow::anyhow!(
                    "{}: {e}; nothing was written: fix the file (or move it aside) and run again",
                    path.display()
                )
            })?;
        }
        if after == found.text {
            report(term, plan.door, &path, "unchanged", None)?;
            continue;
        }
        changed = true;
        if !apply {
            term.styled_line(integrate::diff(&path, found.text.as_deref(), after.as_deref()).trim_end())?;
            report(term, plan.door, &path, "would-change", None)?;
            continue;
        }
        if found.link.is_some() {
            term.styled_line(integrate::diff(&path, found.text.as_deref(), after.as_deref()).trim_end())?;
        }
        let backup = agents::apply(&path, &found, after.as_deref(), settings.now)?;
        let outcome = if action == Action::Add { "written" } else { "removed" };
        report(term, plan.door, &path, outcome, backup.as_deref())?;
    }
    changed |= file_door(settings, plan, action, apply, term)?;
    let door = plan.door.name();
    match (changed, apply, action) {
        (false, _, Action::Add) => term.note(&format!("the {door} door is in place; nothing to change")),
        (false, _, Action::Remove) => term.note(&format!("no {door} door of handbook's to remove; nothing changed")),
        (true, false, _) => term.note(&format!("run `handbook integrate {door} --write` to make this change")),
        (true, true, Action::Add) if plan.door == Door::Codex => term
            .note("Codex runs a hook only once it is trusted: start `codex`, which asks to review new hooks (or type /hooks), and trust the handbook hook"),
        _ => {}
    }
    Ok(())
}

fn report(term: &Terminal, door: Door, path: &Path, outcome: &'static str, backup: Option<&Path>) -> Result<()> {
    term.json("integrate", &Change { door: door.name(), path, outcome, backup })?;
    let line = match (outcome, backup) {
        ("would-change", _) => return Ok(()),
        ("unchanged", _) => format!("unchanged: {}", path.display()),
        (outcome, Some(backup)) => format!("{outcome}: {} (backup: {})", path.display(), backup.display()),
        (outcome, None) => format!("{outcome}: {}", path.display()),
    };
    if !term.quiet {
        term.line(&line)?;
    }
    Ok(())
}

/// Register (or forget) opencode's file door; true when that changed anything.
fn file_door(settings: &Settings, plan: &DoorPlan, action: Action, apply: bool, term: &Terminal) -> Result<bool> {
    let Some(door) = &plan.file_door else { return Ok(false) };
    let registered = doors::load(&settings.home)?.contains(door);
    let present = Home::new(&settings.home).exists(&door.path)?;
    // A summary that cannot be read leaves the file as it is (`register` says why).
    let text = doors::text(settings, door.project.as_deref(), term).ok();
    let held = Home::new(&settings.home).read_if_exists(&door.path)?;
    let fresh = held.is_some_and(|b| text.is_none_or(|t| b == t.as_bytes()));
    let needed = match action {
        Action::Add => !(registered && fresh),
        Action::Remove => registered || present,
    };
    if !needed {
        return Ok(false);
    }
    if !apply {
        let what = if action == Action::Add { "write and keep fresh" } else { "forget and remove" };
        term.note(&format!("would {what} the file door {}", door.path.display()));
        return Ok(true);
    }
    match action {
        Action::Add => doors::register(settings, door.clone(), term).map(drop)?,
        Action::Remove => doors::unregister(&settings.home, &door.path)?,
    }
    let outcome = if action == Action::Add { "written" } else { "removed" };
    report(term, plan.door, &door.path, outcome, None)?;
    Ok(true)
}

fn check_door(settings: &Settings, opts: &IntegrateSettings, plan: &DoorPlan, term: &Terminal) -> Result<()> {
    let findings = findings(settings, opts, plan, term)?;
    term.json("integrate-check", &serde_json::json!({ "door": plan.door.name(), "findings": findings }))?;
    for f in &findings {
        let label = match f.level {
            Level::Ok => "ok",
            Level::Warn => "warning",
            Level::Fail => "not working",
        };
        term.line(&format!("{label}: {}", f.text))?;
    }
    if findings.iter().any(|f| f.level == Level::Fail) {
        bail!("the {} door is not in place or not working; see above", plan.door.name());
    }
    Ok(())
}

/// What `integrate DOOR --check` finds, for `doctor`: `None` when the door is not in place
/// (its first file does not name handbook), so an agent never set up is no failure.
pub(crate) fn door_findings(
    settings: &Settings,
    opts: &IntegrateSettings,
    door: Door,
    term: &Terminal,
) -> Result<Option<Vec<check::Finding>>> {
    let plan = door_plan(settings, opts, door)?;
    if !in_place(&plan)? {
        return Ok(None);
    }
    findings(settings, opts, &plan, term).map(Some)
}

/// Whether the door's first file holds handbook's door.
fn in_place(plan: &DoorPlan) -> Result<bool> {
    let target = &plan.targets[0];
    let text = agents::read(&target.path).with_context(|| format!("cannot read {}", target.path.display()))?.text;
    Ok(text.as_deref().is_some_and(|t| integrate::has_door(target, plan.door, t, &plan.doors_dir)))
}

/// What the door's files, the programs they run, Codex's trust and the summary say.
fn findings(
    settings: &Settings,
    opts: &IntegrateSettings,
    plan: &DoorPlan,
    term: &Terminal,
) -> Result<Vec<check::Finding>> {
    let mut files = Vec::new();
    for target in &plan.targets {
        files.push((target.clone(), agents::read(&target.path)?.text));
    }
    let codex_config = agents::read(&opts.places.codex.join("config.toml")).unwrap_or_default().text;
    let project = plan.file_door.as_ref().and_then(|d| d.project.clone());
    // What the agent is given: `summary --for <agent>`, or the file door's text.
    let request = Request::for_door(plan.door, settings, project.as_deref());
    let summary = match summary::render(settings, &request, &Terminal { quiet: true, ..*term }) {
        Ok(text) => text.filter(|text| !text.is_empty()),
        Err(e) => {
            term.warn(&format!("{e:#}"));
            None
        }
    };
    let door_text = match &plan.file_door {
        Some(door) => Some((door, Home::new(&settings.home).read_if_exists(&door.path)?, doors::load(&settings.home)?)),
        None => None,
    };
    let door_path = plan.file_door.as_ref().map(|d| d.path.to_string_lossy().into_owned()).unwrap_or_default();
    let owned_texts =
        door_text.as_ref().map(|(_, bytes, _)| bytes.as_ref().map(|b| String::from_utf8_lossy(b).into_owned()));
    let resolve = |program: &str| agents::resolve(program, &opts.path);
    Ok(check::check(&Observed {
        door: plan.door,
        files: &files,
        codex_config: codex_config.as_deref(),
        resolve: &resolve,
        summary: summary.as_deref(),
        file_door: door_text.as_ref().map(|(door, _, registry)| FileDoor {
            path: &door_path,
            text: owned_texts.as_ref().and_then(|t| t.as_deref()),
            wanted: summary.as_deref().unwrap_or(""),
            registered: registry.contains(door),
        }),
    }))
}

/// List the agents found on this machine and whether each has its door.
fn list(settings: &Settings, opts: &IntegrateSettings, term: &Terminal) -> Result<()> {
    let mut any = false;
    for door in Door::ALL.into_iter().filter(|d| agents::is_installed(*d, &opts.places, &opts.path)) {
        any = true;
        let plan = door_plan(settings, &IntegrateSettings { mcp: false, ..opts.clone() }, door)?;
        let target = &plan.targets[0];
        let present = in_place(&plan)?;
        let state = if present { "door in place" } else { "no door" };
        term.json("agent", &serde_json::json!({ "door": door.name(), "path": target.path, "in_place": present }))?;
        let hint = if present {
            format!("check it: handbook integrate {} --check", door.name())
        } else {
            format!("see the change: handbook integrate {}", door.name())
        };
        term.line(&format!("{}: {state} ({}); {hint}", door.name(), target.path.display()))?;
    }
    if !any {
        term.note(
            "no agent found: none of claude, codex, gemini, pi or opencode has its settings folder here or is on PATH",
        );
    }
    Ok(())
}
