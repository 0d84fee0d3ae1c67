//! Handbook's own words coming back: the summary, search results, a handbook MCP server's
//! answers and the workspace files, as an agent prints or reads them in a later session, or
//! as a user pastes them. They are what handbook already learned, not new evidence: learned
//! again they would count as support for themselves, and a lesson would never age out.
//!
//! Three recognisers: by what a tool call runs or reads ([`command_echoes`],
//! [`is_workspace_file`], [`is_handbook_tool`]), and by the text's own shape, for output
//! whose call did not say ([`is_handbook_text`]) and for pastes into a message
//! ([`strip_pasted`]). Citation blocks are not echo: they say which lessons were used, and
//! [`strip_pasted`] leaves them in place.

use std::borrow::Cow;
use std::sync::LazyLock;

use memchr::memmem::Finder;
use regex::Regex;

use crate::core::layout::{MEMORY, NOTES_DIR, RAW_MEMORIES, ROLLOUT_SUMMARIES, SUMMARY};
use crate::core::patterns;
use crate::core::summary::VERSION_LINE;

/// What a tool's output is replaced with when it is handbook's own text.
pub(crate) const ECHO_WITHHELD: &str = "[handbook's own text withheld]";

/// The headings a summary's sections carry, right after its version line.
const SUMMARY_HEADINGS: &[&str] = &["## User Profile", "## User preferences", "## General Tips", "## What's in Memory"];

/// The first line of the text `summary --prompt` wraps the summary in, and its banners.
const PROMPT_HEADING: &str = "## Handbook: lessons from earlier sessions";
const BANNER_BEGINS: &str = "HANDBOOK SUMMARY BEGINS";
const BANNER_ENDS: &str = "HANDBOOK SUMMARY ENDS";

/// Subcommands whose output is the handbook's own text.
const READING_COMMANDS: &[&str] = &["summary", "search"];

/// Global flags that take a value as the next word (`handbook --home DIR summary`).
const VALUE_FLAGS: &[&str] = &["--home", "--config", "--color"];

/// Workspace files whose name alone says they are handbook's (or a Codex-style memory's).
const OWN_FILE_NAMES: &[&str] = &[SUMMARY, RAW_MEMORIES, "memory_summary_whole.md", "phase2_workspace_diff.md"];

/// `path:line: text` (or `path (place): text`), as `handbook search` prints a hit.
static SEARCH_HIT: LazyLock<Regex> = LazyLock::new(|| {
    patterns::regex(
        r"^(?:\S*/)?(?:memory_summary\.md|MEMORY\.md|raw_memories\.md|rollout_summaries/[^\s:]+\.md|extensions/ad_hoc/notes/[^\s:]+)(?::\d+| \([^)]*\)): ",
    )
});

/// Words one of handbook's own texts holds at least one of: the summary's version line, a
/// file name, `MEMORY.md`'s and `raw_memories.md`'s headings, a rollout summary's header.
/// One vectorised pass per word beats one pass of an alternation, whose two-byte prefilter
/// stops at every `se` of a build log.
static SHAPE_WORDS: LazyLock<[Finder<'static>; 5]> =
    LazyLock::new(|| [VERSION_LINE, ".md", "# Task Group", "# Raw Memories", "session_id: "].map(Finder::new));

/// A line number a file viewer puts before each line (`cat -n`, Claude Code's `Read`).
static LINE_NUMBER: LazyLock<Regex> = LazyLock::new(|| patterns::regex(r"^\s*\d+(?:\t|→|: )"));

/// True when `path` is one of handbook's workspace files: the summary or raw memories
/// anywhere, and `MEMORY.md`, a rollout summary or a note under a folder that names a
/// handbook (or memory) home. A project's own `MEMORY.md` elsewhere is the project's.
pub(crate) fn is_workspace_file(path: &str) -> bool {
    let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let Some((name, folders)) = parts.split_last() else { return false };
    if OWN_FILE_NAMES.contains(name) {
        return true;
    }
    let in_home = folders.iter().any(|f| f.to_ascii_lowercase().contains("handbook") || *f == "memories");
    let markdown = name.ends_with(".md");
    let in_summaries = folders.last() == Some(&ROLLOUT_SUMMARIES);
    let in_notes = path.replace('\\', "/").contains(&format!("{NOTES_DIR}/"));
    (in_home && *name == MEMORY) || (markdown && in_summaries) || in_notes
}

/// True when a shell command line (or a tool's input) prints handbook's words: it runs `handbook summary` or
/// `handbook search` (whatever the path to the binary and the global flags), or names a
/// workspace file (`cat ~/.local/share/handbook/memory_summary.md`, `rg pnpm …/MEMORY.md`).
pub(crate) fn command_echoes(command: &str) -> bool {
    let words: Vec<&str> = command
        .split(|c: char| {
            c.is_whitespace()
                || matches!(c, ';' | '|' | '&' | '(' | ')' | '`' | '<' | '>' | '"' | '\'' | '{' | '}' | ',')
        })
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().any(|w| is_workspace_file(w))
        || words.iter().enumerate().any(|(i, w)| is_handbook_binary(w) && reads_after(&words[i + 1..]))
}

fn is_handbook_binary(word: &str) -> bool {
    let name = word.rsplit(['/', '\\']).next().unwrap_or(word);
    name == "handbook" || name == "handbook.exe"
}

/// True when the words after `handbook` name a reading subcommand, past the global flags.
fn reads_after(words: &[&str]) -> bool {
    let mut words = words.iter();
    while let Some(word) = words.next() {
        if VALUE_FLAGS.contains(word) {
            words.next();
        } else if !word.starts_with('-') {
            return READING_COMMANDS.contains(word);
        }
    }
    false
}

/// True for a handbook MCP server's tools (`mcp__handbook__search`, `handbook_summary`).
pub(crate) fn is_handbook_tool(name: &str) -> bool {
    name.to_ascii_lowercase().contains("handbook")
}

/// `line` without the line number a viewer put before it.
fn content(line: &str) -> &str {
    LINE_NUMBER.find(line).map_or(line, |m| &line[m.end()..])
}

/// True when `text` is handbook's own output by its shape: a summary (plain, wrapped by
/// `summary --prompt`, or as the JSON of `summary --hook`), search hits, `MEMORY.md`,
/// `raw_memories.md`, or a rollout summary.
pub(crate) fn is_handbook_text(text: &str) -> bool {
    // Most outputs have none of the shapes' words: they are passed over without a split, in
    // one pass for all the words.
    if !SHAPE_WORDS.iter().any(|word| word.find(text.as_bytes()).is_some()) {
        return false;
    }
    if text.contains(BANNER_BEGINS) || hook_json(text) {
        return true;
    }
    let lines: Vec<&str> = text.lines().map(content).collect();
    let nonblank: Vec<&str> = lines.iter().copied().filter(|l| !l.trim().is_empty()).collect();
    let starts = |i: usize, prefix: &str| nonblank.get(i).is_some_and(|l| l.starts_with(prefix));
    let hits = nonblank.iter().filter(|l| SEARCH_HIT.is_match(l)).count();
    (0..nonblank.len()).any(|i| opens_summary(&nonblank, i))
        || (hits > 0 && hits * 2 >= nonblank.len())
        || nonblank.windows(2).any(|w| w[0].starts_with("# Task Group: ") && w[1].starts_with("scope: "))
        || (starts(0, "# Raw Memories") && starts(1, "Merged stage-1 raw memories"))
        || (starts(0, "session_id: ") && nonblank.iter().take(6).any(|l| l.starts_with("rollout_path: ")))
}

/// `summary --hook` output: the summary inside a SessionStart hook's JSON.
fn hook_json(text: &str) -> bool {
    text.contains("\"additionalContext\"") && (text.contains(r"v1\n\n## ") || text.contains(BANNER_BEGINS))
}

/// True when the non-blank line `i` is a summary's version line, followed by a section heading.
fn opens_summary(nonblank: &[&str], i: usize) -> bool {
    nonblank[i].trim() == VERSION_LINE
        && nonblank.get(i + 1).is_some_and(|next| SUMMARY_HEADINGS.iter().any(|h| next.trim_end() == *h))
}

/// `text` (a user's or the assistant's message, a compaction summary) without the handbook
/// output pasted into it: a summary, its `--prompt` or `--hook` wrapping, search hits. The
/// rest of the message, citation blocks included, stays. Borrows when nothing was pasted.
pub(crate) fn strip_pasted(text: &str) -> Cow<'_, str> {
    let may_hold = text.contains(VERSION_LINE) || text.contains(BANNER_BEGINS) || text.contains(".md");
    if !may_hold {
        return Cow::Borrowed(text);
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut keep = vec![true; lines.len()];
    let mut i = 0;
    while i < lines.len() {
        let end = pasted_block_end(&lines, i);
        if end > i {
            keep[i..end].iter_mut().for_each(|k| *k = false);
            i = end;
        } else {
            i += 1;
        }
    }
    if keep.iter().all(|k| *k) {
        return Cow::Borrowed(text);
    }
    let kept: Vec<&str> = lines.iter().zip(&keep).filter(|(_, k)| **k).map(|(l, _)| *l).collect();
    Cow::Owned(kept.join("\n").trim().to_string())
}

/// The end (exclusive) of a pasted block that starts at line `i`, or `i` when none does.
fn pasted_block_end(lines: &[&str], i: usize) -> usize {
    let line = lines[i].trim();
    if line.starts_with(PROMPT_HEADING) || line.contains(BANNER_BEGINS) {
        let close = lines[i..].iter().position(|l| l.contains(BANNER_ENDS));
        return close.map_or(lines.len(), |c| i + c + 1);
    }
    if SEARCH_HIT.is_match(line) || hook_json(line) {
        return i + 1;
    }
    let next = lines[i + 1..].iter().copied().find(|l| !l.trim().is_empty());
    if line != VERSION_LINE || !next.is_some_and(|n| SUMMARY_HEADINGS.contains(&n.trim_end())) {
        return i;
    }
    summary_end(lines, i + 1)
}

/// Where a pasted summary ends: at the first line that is none of its own kinds (blank,
/// heading, bullet, continuation), or a paragraph outside the profile, which holds them.
fn summary_end(lines: &[&str], from: usize) -> usize {
    let mut in_profile = false;
    for (j, line) in lines.iter().enumerate().skip(from) {
        let trimmed = line.trim_end();
        if trimmed.starts_with('#') {
            in_profile = trimmed == SUMMARY_HEADINGS[0];
            continue;
        }
        let own = trimmed.is_empty()
            || trimmed.starts_with("- ")
            || trimmed.starts_with("* ")
            || line.starts_with([' ', '\t'])
            || (in_profile && !trimmed.starts_with('<'));
        if !own {
            return j;
        }
    }
    lines.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUMMARY_TEXT: &str = "v1\n\n## User Profile\n\nLessons from 3 sessions.\n\n## User preferences\n\n- \"We use pnpm, not npm.\" (preference; webshop)\n\n## General Tips\n\n- webshop: `npm test` failed with `Missing script` -> `pnpm vitest run` succeeded instead\n";

    #[test]
    fn workspace_files_are_known_by_their_path() {
        assert!(is_workspace_file("/home/me/.local/share/handbook/memory_summary.md"));
        assert!(is_workspace_file("~/.local/share/handbook/MEMORY.md"));
        assert!(is_workspace_file("/h/rollout_summaries/2026-01-01T00-00-00-abcd-fix.md"));
        assert!(is_workspace_file("raw_memories.md"));
        assert!(is_workspace_file("/h/extensions/ad_hoc/notes/2026-note.md"));
        assert!(is_workspace_file(r"C:\Users\me\handbook\MEMORY.md"));
        assert!(!is_workspace_file("README.md"));
        assert!(!is_workspace_file("/w/app/MEMORY.md"), "a project's own MEMORY.md");
        assert!(!is_workspace_file("/w/app/docs/summary.md"));
        assert!(!is_workspace_file(""));
    }

    #[test]
    fn commands_that_print_the_handbook_are_known() {
        assert!(command_echoes("handbook summary"));
        assert!(command_echoes("handbook summary --prompt | head -50"));
        assert!(command_echoes("~/.cargo/bin/handbook --home /tmp/hb search pnpm"));
        assert!(command_echoes("cd /w && handbook --color never -q search 'npm test'"));
        assert!(command_echoes("cat ~/.local/share/handbook/memory_summary.md"));
        assert!(command_echoes("rg -n -i pnpm \"/home/me/.local/share/handbook/MEMORY.md\""));
        assert!(!command_echoes("cat README.md"));
        assert!(!command_echoes("handbook note \"We use pnpm\""));
        assert!(!command_echoes("handbook update"));
        assert!(!command_echoes("grep -r handbook summary.txt"));
        assert!(!command_echoes("cargo test summary"));
        assert!(command_echoes(r#"{"file_path":"/home/me/.local/share/handbook/MEMORY.md"}"#), "a read tool's input");
    }

    #[test]
    fn handbook_mcp_tools_are_known_by_name() {
        assert!(is_handbook_tool("mcp__handbook__search"));
        assert!(is_handbook_tool("handbook_summary"));
        assert!(!is_handbook_tool("mcp__github__search_issues"));
    }

    #[test]
    fn handbook_output_is_known_by_its_shape() {
        assert!(is_handbook_text(SUMMARY_TEXT));
        let numbered: String = SUMMARY_TEXT.lines().enumerate().map(|(i, l)| format!("{:>6}→{l}\n", i + 1)).collect();
        assert!(is_handbook_text(&numbered), "as a file viewer shows it");
        let prompt = format!("{PROMPT_HEADING}\n\ntext\n========= {BANNER_BEGINS} =========\n{SUMMARY_TEXT}");
        assert!(is_handbook_text(&prompt));
        let hook = serde_json::json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": SUMMARY_TEXT}});
        assert!(is_handbook_text(&hook.to_string()));
        let hits = "memory_summary.md:24: - \"We use pnpm, not npm.\" (preference; webshop)\nMEMORY.md:527: - `pnpm vitest run`  (2026-11-22, session 5a1e)\n";
        assert!(is_handbook_text(hits));
        assert!(is_handbook_text("# Task Group: github.com/acme/app\nscope: 2 sessions in github.com/acme/app"));
        assert!(is_handbook_text("# Raw Memories\n\nMerged stage-1 raw memories (stable order):\n"));
        assert!(is_handbook_text("session_id: 6c1f\nupdated_at: 2025-07-14T09:30:00Z\nrollout_path: /x.jsonl\n"));
    }

    #[test]
    fn other_text_is_not_handbook_output() {
        assert!(!is_handbook_text("# Project\n\nRun `pnpm test`.\n"));
        assert!(!is_handbook_text("v1\nv2\n## Changes"));
        assert!(!is_handbook_text("What does handbook summary print? Does it start with v1?"));
        assert!(!is_handbook_text("src/main.rs:12: error: expected `;`\nsrc/lib.rs:3: warning\n"));
        assert!(!is_handbook_text("MEMORY.md:1: one hit\nand\nmany\nother\nlines"));
    }

    #[test]
    fn a_pasted_summary_is_cut_from_the_message() {
        let pasted = format!("Here is what you knew:\n{SUMMARY_TEXT}\nNow fix the cart total.");
        assert_eq!(strip_pasted(&pasted), "Here is what you knew:\nNow fix the cart total.");
        assert_eq!(strip_pasted(SUMMARY_TEXT), "");
        let prompt = format!(
            "{PROMPT_HEADING}\nDo not edit these files.\n========= {BANNER_BEGINS} =========\n{SUMMARY_TEXT}========= {BANNER_ENDS} =========\nthanks"
        );
        assert_eq!(strip_pasted(&prompt), "thanks");
        let hits = "memory_summary.md:24: - \"We use pnpm, not npm.\" (preference; webshop)\nWhy was that?";
        assert_eq!(strip_pasted(hits), "Why was that?");
    }

    #[test]
    fn questions_about_the_handbook_and_citations_stay() {
        let question = "What does `handbook summary` print? I think it starts with v1.";
        assert!(matches!(strip_pasted(question), Cow::Borrowed(_)));
        let reply = "Done.\n<handbook-citation>\n<citation_entries>\nMEMORY.md:3-4|note=[build]\n</citation_entries>\n<session_ids>\n019d7a10-aaaa\n</session_ids>\n</handbook-citation>";
        assert_eq!(strip_pasted(reply), reply);
        let quoted =
            format!("{SUMMARY_TEXT}<handbook-citation>\n<session_ids>\ns-0001\n</session_ids>\n</handbook-citation>");
        assert_eq!(
            crate::core::citations::cited_sessions(&strip_pasted(&quoted)),
            ["s-0001"],
            "a reply that quotes the summary still cites"
        );
    }
}
