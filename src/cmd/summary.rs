//! `handbook summary`: print memory_summary.md within the caps, for an agent's context.
//! Fast enough to run at every agent start: it reads one file and nothing else.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::config::{Settings, SummarySettings};
use crate::edge::doors::{self, Output};
use crate::edge::fsio::write_if_changed;
use crate::edge::git::project_of_dir;
use crate::edge::stdin::hook_input;
use crate::edge::summary;
use crate::edge::terminal::Terminal;

/// Run `summary`. In hook mode nothing here fails: any problem prints nothing and exits 0, so
/// a broken handbook never stops an agent from starting, and says nothing on stderr unless
/// `-v` asks, since agents show a hook's stderr to the user at every start.
pub(crate) fn run(settings: &Settings, opts: &SummarySettings, term: &Terminal) -> Result<()> {
    let hook = opts.printing.hook;
    let told = !hook || opts.verbose;
    let term = &Terminal { quiet: term.quiet || !told, silent: !told, ..*term };
    match print(settings, opts, term) {
        Err(e) if hook => {
            if told {
                term.warn(&format!("{e:#}; printing nothing"));
            }
            Ok(())
        }
        other => other,
    }
}

fn print(settings: &Settings, opts: &SummarySettings, term: &Terminal) -> Result<()> {
    if let Some(path) = &opts.output {
        output_folder(path)?;
    }
    let dir = project_dir(opts, term);
    let key = dir.as_deref().map(project_of_dir);
    let text = summary::printed(settings, &opts.printing, key.as_deref(), term)?;
    if text.is_none() {
        let empty = opts.output.as_ref().map(|p| format!("; {} stays empty until then", p.display()));
        term.note(&format!(
            "no handbook yet in {}: run `handbook update` (or extract and consolidate) first{}",
            settings.home.display(),
            empty.unwrap_or_default()
        ));
    }
    if let Some(path) = &opts.output {
        // Written even when empty, so an agent told to read the file never reads its path.
        return write_output(settings, opts, path, dir, key, text.unwrap_or_default(), term);
    }
    let Some(text) = text else { return Ok(()) };
    let out = match term.json && !opts.printing.hook {
        true => {
            let tokens = crate::core::tokens::estimate(&text);
            let object = serde_json::json!({ "type": "summary", "data": { "text": text, "tokens": tokens } });
            format!("{object}\n")
        }
        false => text,
    };
    std::io::stdout().lock().write_all(out.as_bytes()).context("cannot write the summary")
}

/// Write the file (unchanged bytes are not rewritten, so a file other tools import stays
/// cache-friendly) and remember it, so the runs that change the summary keep it fresh.
fn write_output(
    settings: &Settings,
    opts: &SummarySettings,
    path: &Path,
    dir: Option<PathBuf>,
    key: Option<String>,
    text: String,
    term: &Terminal,
) -> Result<()> {
    write_if_changed(path, text.as_bytes())?;
    let absolute = |p: &Path| std::path::absolute(p).with_context(|| format!("cannot resolve {}", p.display()));
    let output = Output {
        path: absolute(path)?,
        printing: opts.printing.clone(),
        project_dir: dir.as_deref().map(absolute).transpose()?,
        project: key,
    };
    if doors::remember_output(&settings.home, output)? {
        term.note(&format!(
            "{} is kept fresh from now on: every consolidation that changes the summary rewrites it (delete the file to stop that)",
            path.display()
        ));
    }
    Ok(())
}

/// `--output`'s folder must already exist: a mistyped path is not a folder to create (as root,
/// `--output /nonexistent/dir/summary.md` would otherwise make `/nonexistent/dir`).
fn output_folder(path: &Path) -> Result<()> {
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !folder.is_dir() {
        bail!(
            "cannot write the summary to {}: the folder {} does not exist; create it first, or give --output a file in a folder that exists",
            path.display(),
            folder.display()
        );
    }
    Ok(())
}

/// The directory whose project to keep: `--project`, or in hook mode the agent's `cwd`.
fn project_dir(opts: &SummarySettings, term: &Terminal) -> Option<PathBuf> {
    let input = opts.project.wants_hook_input(opts.printing.hook).then(hook_input);
    if let Some(input) = &input {
        term.note(&format!("hook input: {}", input.describe()));
    }
    opts.project.project(input.as_ref())
}
