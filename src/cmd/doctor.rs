//! `handbook doctor`: gather what the sources, the state, the doors, the summary, the config
//! file and the workspace's files look like; `core::doctor` says what is wrong and how to fix
//! it.

use anyhow::Result;

use crate::config::{DoctorSettings, Origin, Settings};
use crate::core::doctor::{self, FileDoorSeen, LastExtract, Observed, Record, SourceSeen};
use crate::core::door::Door;
use crate::core::integrate::check::Level;
use crate::core::layout::{SUMMARY, timestamp};
use crate::core::state::{Caps, HintFlags};
use crate::core::tokens::estimate;
use crate::edge::doors;
use crate::edge::fsio::{Home, read_if_exists};
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;
use crate::{EXIT_OK, EXIT_PROBLEMS};

/// Run `doctor`: one line (or `finding` object) per finding; exit 1 when one is a problem.
pub(crate) fn run(settings: &Settings, opts: &DoctorSettings, term: &Terminal) -> Result<u8> {
    let workspace = Workspace::new(&settings.home);
    let sources: Vec<SourceSeen> = opts
        .extract
        .sources
        .iter()
        .map(|s| SourceSeen { path: s.path.display().to_string(), explicit: s.explicit, exists: s.path.exists() })
        .collect();
    let state = workspace.exists().then(|| workspace.load_sources().map_err(|e| format!("{e:#}")));
    let extract = &opts.extract;
    let flags = HintFlags { sessions: &[], min_idle: extract.min_idle, max_age: extract.max_age };
    let caps = Caps { limit: extract.limit, input_tokens: extract.max_input_tokens_per_run };
    // A damaged history only loses these lines; the state's own findings say what is wrong.
    let last_extract = workspace.exists().then(|| workspace.last_extract().ok().flatten()).flatten();
    let last_extract =
        last_extract.map(|last| LastExtract { at: timestamp(last.at), counts: last.counts, flags, caps });
    let quiet = Terminal { quiet: true, ..*term };
    let mut doors = Vec::new();
    for door in Door::ALL {
        if let Some(findings) = crate::cmd::integrate::door_findings(settings, &opts.integrate, door, &quiet)? {
            doors.push((door, findings));
        }
    }
    let file_doors = file_doors(settings, &quiet)?;
    let (summary_tokens, scan) = match workspace.exists() {
        true => {
            let snapshot = workspace.snapshot()?;
            (snapshot.text(SUMMARY).map(|s| estimate(&s)), doctor::scan(&snapshot.files))
        }
        false => (None, doctor::Scan::default()),
    };
    let records: Vec<Record> = settings
        .resolved
        .iter()
        .map(|r| Record {
            name: &r.name,
            file_key: match &r.origin {
                Origin::File { key, .. } => Some(key.as_str()),
                _ => None,
            },
            origin: r.origin.to_string(),
        })
        .collect();
    let config_path = opts.config_file.as_ref().map(|(path, keys)| (path.display().to_string(), keys.as_slice()));
    let mut findings = doctor::diagnose(&Observed {
        sources: &sources,
        state: state.as_ref().map(|s| s.as_ref().map_err(String::clone)),
        last_extract,
        doors: &doors,
        file_doors: &file_doors,
        summary_tokens,
        summary_max_tokens: settings.summary_max_tokens,
        config: config_path.as_ref().map(|(path, keys)| (path.as_str(), *keys)),
        records: &records,
        scan: &scan,
    });
    if workspace.exists() {
        findings.extend(lessons(&workspace));
    }
    print(&findings, term)
}

/// The registered file doors and the files `summary --output` wrote, each compared with what
/// it should hold now.
fn file_doors(settings: &Settings, term: &Terminal) -> Result<Vec<FileDoorSeen>> {
    let mut out = Vec::new();
    for door in doors::load(&settings.home)? {
        // A summary that cannot be printed is a finding of its own (`integrate --check`).
        let Ok(wanted) = doors::text(settings, door.project.as_deref(), term) else { continue };
        let now = Home::new(&settings.home).read_if_exists(&door.path)?;
        out.push(FileDoorSeen {
            path: door.path.display().to_string(),
            fresh: now.map(|bytes| bytes == wanted.as_bytes()),
            output: None,
        });
    }
    for output in doors::outputs(&settings.home)? {
        let Ok(wanted) = output.text(settings, term) else { continue };
        let now = read_if_exists(&output.path)?;
        out.push(FileDoorSeen {
            path: output.path.display().to_string(),
            fresh: now.map(|bytes| bytes == wanted.as_bytes()),
            output: Some(output.command()),
        });
    }
    Ok(out)
}

/// Stale lessons and a change waiting for review are worth a note; a log or trust file that
/// cannot be read is a problem.
fn lessons(workspace: &Workspace) -> Vec<doctor::Finding> {
    let finding = |level, text: String| doctor::Finding { area: "lessons", level, text };
    let overview = match crate::edge::generations::overview(workspace) {
        Ok(overview) => overview,
        Err(e) => return vec![finding(Level::Fail, format!("{e:#}"))],
    };
    let mut out: Vec<doctor::Finding> = overview
        .stale
        .iter()
        .map(|s| finding(Level::Warn, format!("{} is stale ({}), left out of the summary: {}", s.id, s.reason, s.text)))
        .collect();
    if let Some(pending) = &overview.pending {
        out.push(finding(Level::Warn, format!("a change waits for review ({}): `handbook review`", pending.counts())));
    }
    if out.is_empty() {
        out.push(finding(Level::Ok, "none stale, nothing waits for review".to_string()));
    }
    out
}

fn print(findings: &[doctor::Finding], term: &Terminal) -> Result<u8> {
    let problems = findings.iter().filter(|f| f.level == Level::Fail).count();
    for f in findings {
        term.json("finding", f)?;
        let label = match f.level {
            Level::Ok => "ok",
            Level::Warn => "note",
            Level::Fail => "problem",
        };
        term.line(&format!("{label}: {}: {}", f.area, f.text))?;
    }
    term.json("totals", &serde_json::json!({ "problems": problems, "findings": findings.len() }))?;
    if problems == 0 {
        term.line("doctor: nothing wrong")?;
        return Ok(EXIT_OK);
    }
    term.line(&format!("doctor: {}", crate::core::words::count(problems, "problem")))?;
    Ok(EXIT_PROBLEMS)
}
