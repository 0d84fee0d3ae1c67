//! `handbook summary`: print memory_summary.md within the caps, for an agent's context.
//! Fast enough to run at every agent start: it reads one file and nothing else.

use std::borrow::Cow;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use crate::config::{Settings, SummarySettings};
use crate::core::layout::{SUMMARY, WHOLE_SUMMARY};
use crate::core::summary::Summary;
use crate::core::templates;
use crate::core::tokens::{Cap, estimate};
use crate::edge::fsio::write_if_changed;
use crate::edge::git::project_of_dir;
use crate::edge::stdin::hook_input;
use crate::edge::templates::load as load_template;
use crate::edge::terminal::{Terminal, escape};
use crate::edge::workspace::Workspace;

/// Run `summary`. In hook mode nothing here fails: any problem prints nothing and exits 0, so
/// a broken handbook never stops an agent from starting, and says nothing on stderr unless
/// `-v` asks, since agents show a hook's stderr to the user at every start.
pub(crate) fn run(settings: &Settings, opts: &SummarySettings, term: &Terminal) -> Result<()> {
    let told = !opts.hook || opts.verbose;
    let term = &Terminal { quiet: term.quiet || !told, ..*term };
    let text = match render(settings, opts, term) {
        Ok(text) => text,
        Err(e) if opts.hook => {
            if told {
                term.warn(&format!("{e:#}; printing nothing"));
            }
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let Some(text) = text else {
        term.note(&format!(
            "no handbook yet in {}: run `handbook update` (or extract and consolidate) first",
            settings.home.display()
        ));
        return Ok(());
    };
    let out = if opts.hook {
        hook_json(&text)?
    } else if term.json && opts.output.is_none() {
        let tokens = crate::core::tokens::estimate(&text);
        let object = serde_json::json!({ "type": "summary", "data": { "text": text, "tokens": tokens } });
        format!("{object}\n")
    } else {
        text
    };
    match &opts.output {
        // Unchanged bytes are not rewritten, so a file other tools import stays cache-friendly.
        Some(path) => write_if_changed(path, out.as_bytes()).map(drop),
        None => {
            let result = std::io::stdout().lock().write_all(out.as_bytes());
            match result {
                Err(e) if opts.hook => {
                    if told {
                        term.warn(&format!("cannot write the summary: {e}"));
                    }
                    Ok(())
                }
                other => other.context("cannot write the summary"),
            }
        }
    }
}

/// The text to print, or `None` when there is no summary yet.
fn render(settings: &Settings, opts: &SummarySettings, term: &Terminal) -> Result<Option<String>> {
    let workspace = Workspace::new(&settings.home);
    let path = workspace.file(SUMMARY);
    let Some(written) = workspace.read(SUMMARY)? else {
        return Ok(None);
    };
    // Escaped before the caps are applied, so they hold for what is printed; a clean summary
    // (all of them, unless a hand edit or an older version let a control character in) is
    // left byte for byte.
    let raw = escaped(written.clone());
    let template = opts.prompt.map(|w| load_template(settings.config_dir.as_deref(), w.template())).transpose()?;
    // The caps hold for everything printed: the template's own text comes off first.
    let cap = match &template {
        Some(template) => {
            let frame = templates::render(template, &[("home", &settings.home.to_string_lossy()), ("summary", "")]);
            Cap {
                tokens: opts.cap.tokens.map(|t| t.saturating_sub(estimate(&frame))),
                chars: opts.cap.chars.map(|c| c.saturating_sub(frame.chars().count())),
            }
        }
        None => opts.cap,
    };
    let body = match &project_dir(opts, term) {
        None if cap.fits(&raw) => raw,
        project => {
            let parsed = Summary::parse(&raw)
                .with_context(|| format!("{} is not a handbook summary; run `handbook consolidate`", path.display()))?;
            let parsed = match project {
                Some(dir) => {
                    // Narrowed before the cap, so other projects' lessons take none of it.
                    let parsed = whole_summary(&workspace, settings, &written).unwrap_or(parsed);
                    let key = project_of_dir(dir);
                    if !parsed.has_project(&key) {
                        term.note(&format!("the handbook has no topics of {key} yet; printing the general sections"));
                    }
                    parsed.only_project(&key)
                }
                None => parsed,
            };
            parsed.fit(cap)
        }
    };
    let text = match template {
        Some(template) => {
            templates::render(&template, &[("home", &settings.home.to_string_lossy()), ("summary", body.trim_end())])
        }
        None => body,
    };
    // Even an empty summary (or the prompt's own text) can be over a small cap.
    if !opts.cap.fits(&text) {
        let what = if opts.prompt.is_some() { "the prompt's own text" } else { "the summary's first line" };
        bail!(
            "the cap ({}) is smaller than {what} ({} tokens, {} characters); raise it",
            describe_cap(opts.cap),
            estimate(&text),
            text.chars().count()
        );
    }
    Ok(Some(text))
}

/// The directory whose project to keep: `--project`, or in hook mode the agent's `cwd`.
fn project_dir(opts: &SummarySettings, term: &Terminal) -> Option<PathBuf> {
    let input = opts.project.wants_hook_input(opts.hook).then(hook_input);
    if let Some(input) = &input {
        term.note(&format!("hook input: {}", input.describe()));
    }
    opts.project.project(input.as_ref())
}

/// The whole summary (see [`WHOLE_SUMMARY`]), escaped like the summary, when `written` is
/// what consolidation fitted it into; `None` when there is none or `written` has changed
/// since (a hand edit, another cap), so a project's view never contradicts the file.
fn whole_summary(workspace: &Workspace, settings: &Settings, written: &str) -> Option<Summary> {
    // A whole summary that cannot be read is only a lost refinement: the file still serves.
    let whole = workspace.read(WHOLE_SUMMARY).ok().flatten()?;
    let parsed = Summary::parse(&whole).ok()?;
    let cap = Cap { tokens: Some(settings.summary_max_tokens), chars: None };
    let fitted = if cap.fits(&whole) { whole.clone() } else { parsed.fit(cap) };
    (fitted == written).then(|| Summary::parse(&escaped(whole)).ok()).flatten()
}

/// `text` with its control, bidi and invisible characters written out (see [`escape`]).
fn escaped(text: String) -> String {
    let owned = match escape(&text) {
        Cow::Owned(escaped) => Some(escaped),
        Cow::Borrowed(_) => None,
    };
    owned.unwrap_or(text)
}

fn describe_cap(cap: Cap) -> String {
    let parts: Vec<String> = [cap.tokens.map(|t| format!("{t} tokens")), cap.chars.map(|c| format!("{c} characters"))]
        .into_iter()
        .flatten()
        .collect();
    parts.join(", ")
}

/// The SessionStart hook output Claude Code, Codex and Gemini CLI all accept.
fn hook_json(text: &str) -> Result<String> {
    let value =
        serde_json::json!({ "hookSpecificOutput": { "hookEventName": "SessionStart", "additionalContext": text } });
    Ok(format!("{}\n", serde_json::to_string(&value)?))
}
