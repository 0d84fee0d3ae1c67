//! The summary as it is printed: memory_summary.md read, escaped, narrowed to a project,
//! framed in its wrapper and fitted to a cap. `summary` prints it; the file doors `integrate`
//! registers hold it.

use std::borrow::Cow;

use anyhow::{Context, Result, bail};

use crate::config::Settings;
use crate::core::door::{Door, Printing, Wrapper};
use crate::core::escape::html_entities;
use crate::core::layout::{SUMMARY, WHOLE_SUMMARY};
use crate::core::summary::{Day, Entry, Project, Section, Summary};
use crate::core::templates;
use crate::core::tokens::{Cap, estimate};
use crate::edge::templates::load as load_template;
use crate::edge::terminal::{Terminal, escape};
use crate::edge::workspace::Workspace;

/// What to print: the wrapper (none for the bare summary), the cap everything printed must
/// fit, the project whose topics to keep (its key, as [`crate::edge::git::project_of_dir`]
/// gives it), and whether `<` and `>` are written as entities (for Gemini CLI).
pub(crate) struct Request<'a> {
    pub(crate) wrapper: Option<Wrapper>,
    pub(crate) cap: Cap,
    pub(crate) project: Option<&'a str>,
    pub(crate) entities: bool,
}

impl<'a> Request<'a> {
    /// What `printing` asks for, under the configured cap.
    pub(crate) fn new(printing: &Printing, settings: &Settings, project: Option<&'a str>) -> Request<'a> {
        Request {
            wrapper: printing.wrapper(),
            cap: printing.cap(settings.summary_max_tokens),
            project,
            entities: printing.entities(),
        }
    }

    /// What `summary --for door` prints, with no cap asked on the command line.
    pub(crate) fn for_door(door: Door, settings: &Settings, project: Option<&'a str>) -> Request<'a> {
        Request::new(&Printing::for_door(door), settings, project)
    }
}

/// What `summary` prints for `printing`: the text, or in hook mode the SessionStart JSON
/// around it; `None` when there is no summary yet.
pub(crate) fn printed(
    settings: &Settings,
    printing: &Printing,
    project: Option<&str>,
    term: &Terminal,
) -> Result<Option<String>> {
    let text = render(settings, &Request::new(printing, settings, project), term)?;
    Ok(match text {
        Some(text) if printing.hook => Some(hook_json(&text)?),
        other => other,
    })
}

/// The SessionStart hook output Claude Code, Codex and Gemini CLI all accept.
fn hook_json(text: &str) -> Result<String> {
    let value =
        serde_json::json!({ "hookSpecificOutput": { "hookEventName": "SessionStart", "additionalContext": text } });
    Ok(format!("{}\n", serde_json::to_string(&value)?))
}

/// The text to print, or `None` when there is no summary yet.
pub(crate) fn render(settings: &Settings, request: &Request<'_>, term: &Terminal) -> Result<Option<String>> {
    let workspace = Workspace::new(&settings.home);
    let path = workspace.file(SUMMARY);
    let Some(written) = workspace.read(SUMMARY)? else {
        return Ok(None);
    };
    // Escaped before the caps are applied, so they hold for what is printed; a clean summary
    // (all of them, unless a hand edit or an older version let a control character in) is
    // left byte for byte.
    let raw = escaped(written.clone(), request.entities);
    let home = settings.home.to_string_lossy();
    let home = if request.entities { html_entities(&home).into_owned() } else { home.into_owned() };
    let template = request.wrapper.map(|w| load_template(settings.config_dir.as_deref(), w.template())).transpose()?;
    // The caps hold for everything printed: the template's own text comes off first.
    let frame = template.as_ref().map(|t| templates::render(t, &[("home", &home), ("summary", "")]));
    let frame_tokens = frame.as_deref().map_or(0, estimate);
    let cap = match &frame {
        Some(frame) => Cap {
            tokens: request.cap.tokens.map(|t| t.saturating_sub(frame_tokens)),
            chars: request.cap.chars.map(|c| c.saturating_sub(frame.chars().count())),
        },
        None => request.cap,
    };
    let body = match request.project {
        None if cap.fits(&raw) => raw,
        project => {
            let parsed = Summary::parse(&raw)
                .with_context(|| format!("{} is not a handbook summary; run `handbook consolidate`", path.display()))?;
            let parsed = match project {
                Some(key) => {
                    // Narrowed before the cap, so other projects' lessons take none of it.
                    let parsed = whole_summary(&workspace, settings, &written, request.entities).unwrap_or(parsed);
                    if !parsed.has_project(key) {
                        term.note(&format!("the handbook has no topics of {key} yet; printing the general sections"));
                    }
                    parsed.only_project(key)
                }
                None => parsed,
            };
            let fitted = parsed.fit(cap);
            // A cap the wrapper alone exceeds is an error below.
            if let Some(smallest) =
                starved(&parsed, &fitted).filter(|_| request.cap.fits(frame.as_deref().unwrap_or("")))
            {
                term.warn(&format!(
                    "the cap ({}) leaves room for no entry of the summary, only its first line: the smallest entry needs about {} tokens with its headings; raise --max-tokens",
                    describe_cap(request.cap),
                    smallest + frame_tokens
                ));
            }
            fitted
        }
    };
    let text = match template {
        Some(template) => templates::render(&template, &[("home", &home), ("summary", body.trim_end())]),
        None => body,
    };
    // Even an empty summary (or the prompt's own text) can be over a small cap.
    if !request.cap.fits(&text) {
        let what = if request.wrapper.is_some() { "the prompt's own text" } else { "the summary's first line" };
        bail!(
            "the cap ({}) is smaller than {what} ({} tokens, {} characters); raise it",
            describe_cap(request.cap),
            estimate(&text),
            text.chars().count()
        );
    }
    Ok(Some(text))
}

/// The whole summary (see [`WHOLE_SUMMARY`]), escaped like the summary, when `written` is
/// what consolidation fitted it into; `None` when there is none or `written` has changed
/// since (a hand edit, another cap), so a project's view never contradicts the file.
fn whole_summary(workspace: &Workspace, settings: &Settings, written: &str, entities: bool) -> Option<Summary> {
    // A whole summary that cannot be read is only a lost refinement: the file still serves.
    let whole = workspace.read(WHOLE_SUMMARY).ok().flatten()?;
    let parsed = Summary::parse(&whole).ok()?;
    let cap = Cap { tokens: Some(settings.summary_max_tokens), chars: None };
    let fitted = if cap.fits(&whole) { whole.clone() } else { parsed.fit(cap) };
    (fitted == written).then(|| Summary::parse(&escaped(whole, entities)).ok()).flatten()
}

/// When `fitted` kept no entry of `parsed`, which had some: the size in tokens of the
/// smallest summary that holds one entry (`v1`, that entry and its headings), the least a
/// cap must allow for any lesson to be printed.
fn starved(parsed: &Summary, fitted: &str) -> Option<usize> {
    let kept = Summary::parse(fitted).map_or(0, |s| one_entry_summaries(&s).count());
    if kept > 0 {
        return None;
    }
    one_entry_summaries(parsed).map(|one| estimate(&one.render())).min()
}

/// For every entry of `summary`, a summary that holds it alone, under its headings.
fn one_entry_summaries(summary: &Summary) -> impl Iterator<Item = Summary> + '_ {
    summary.sections.iter().flat_map(|s| {
        let section = move |entries: Vec<Entry>, projects: Vec<Project>| Summary {
            sections: vec![Section { heading: s.heading.clone(), entries, projects }],
        };
        let own = s.entries.iter().map(move |e| section(vec![e.clone()], Vec::new()));
        let projects = s.projects.iter().flat_map(move |p| {
            let project =
                move |entries: Vec<Entry>, days: Vec<Day>| Project { heading: p.heading.clone(), entries, days };
            let text = p.entries.iter().map(move |e| section(Vec::new(), vec![project(vec![e.clone()], Vec::new())]));
            let topics = p.days.iter().flat_map(move |d| {
                d.entries.iter().map(move |e| {
                    let day = Day { heading: d.heading.clone(), entries: vec![e.clone()] };
                    section(Vec::new(), vec![project(Vec::new(), vec![day])])
                })
            });
            text.chain(topics)
        });
        own.chain(projects)
    })
}

/// `text` with its control, bidi and invisible characters written out (see [`escape`]), and
/// with `entities` its angle brackets as HTML entities (see [`html_entities`]).
fn escaped(text: String, entities: bool) -> String {
    let owned = match escape(&text) {
        Cow::Owned(escaped) => Some(escaped),
        Cow::Borrowed(_) => None,
    };
    let text = owned.unwrap_or(text);
    match entities {
        true => html_entities(&text).into_owned(),
        false => text,
    }
}

fn describe_cap(cap: Cap) -> String {
    let parts: Vec<String> = [cap.tokens.map(|t| format!("{t} tokens")), cap.chars.map(|c| format!("{c} characters"))]
        .into_iter()
        .flatten()
        .collect();
    parts.join(", ")
}
