//! Generated documentation stays fresh: the man page is rebuilt from the flag definitions
//! plus the output contract below, and compared with the committed one.

use std::path::Path;

use clap::CommandFactory;

/// Sections clap does not know: the output contract, the environment, the files.
const CONTRACT: &str = r#".SH "EXIT STATUS"
.TP
0
Success. A run in which some transcripts failed still succeeds; the coverage line says which and why.
.TP
1
Nothing found (search).
.TP
2
An error stopped the run: a bad flag or config file, a damaged state file, a source that does not exist.
.TP
3
Another handbook run holds the workspace lock and did not release it within \fB\-\-wait\fR seconds.
.SH OUTPUT
Results go to stdout; warnings, errors and progress to stderr. A progress bar is drawn only when stderr is a terminal and neither \fB\-\-json\fR nor \fB\-\-quiet\fR is given. With \fB\-\-json\fR, stdout holds one JSON object per line, \fB{"type": ..., "data": ...}\fR: for \fBextract\fR, one \fBsession\fR object per transcript acted on, then one \fBtotals\fR object with the coverage counts; for \fBconsolidate\fR a \fBconsolidate\fR object; for \fBstatus\fR a \fBstatus\fR object; for \fBnote\fR a \fBnote\fR object; for \fBforget\fR one \fBforgotten\fR object per session. Text taken from transcripts is printed with control characters escaped.
.PP
\fBsummary \-\-hook\fR prints \fB{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": ...}}\fR, which Claude Code, Codex and Gemini CLI read from a SessionStart hook. In hook mode a failure prints nothing, reports the reason on stderr and exits 0, so a broken handbook never keeps an agent from starting.
.SH ENVIRONMENT
.TP
\fBHANDBOOK_HOME\fR
Workspace directory, when \fB\-\-home\fR is not given.
.TP
\fBHANDBOOK_CONFIG\fR
Configuration file, when \fB\-\-config\fR is not given.
.TP
\fBHANDBOOK_MIN_IDLE_HOURS\fR, \fBHANDBOOK_MAX_AGE_DAYS\fR, \fBHANDBOOK_MAX_SESSIONS_PER_RUN\fR, \fBHANDBOOK_INCLUDE_SUBAGENTS\fR
Defaults for the \fBextract\fR flags of the same meaning.
.TP
\fBHANDBOOK_MAX_RAW_MEMORIES\fR, \fBHANDBOOK_MAX_UNUSED_DAYS\fR, \fBHANDBOOK_CONSOLIDATE_COOLDOWN_HOURS\fR
Defaults for consolidation: sessions kept at most, the retention window, the pause after a consolidation.
.TP
\fBHANDBOOK_SUMMARY_MAX_TOKENS\fR
The summary's token cap (default 2500), for \fBsummary\fR and consolidation.
.TP
\fBHANDBOOK_COLOR\fR, \fBNO_COLOR\fR
Colour on stderr: auto, always or never; NO_COLOR set means never.
.TP
\fBHANDBOOK_NOW\fR
The time a run treats as now (RFC 3339), for reproducible runs.
.TP
\fBHANDBOOK_FAULT\fR
For tests: abort a consolidation at a named point (after\-sync, after\-write) to show that a killed run loses nothing.
.TP
\fBCODEX_HOME\fR, \fBCLAUDE_CONFIG_DIR\fR, \fBXDG_DATA_HOME\fR, \fBXDG_CONFIG_HOME\fR, \fBHOME\fR
Where the agents' transcripts, the workspace and the configuration file are found by default.
.SH FILES
.TP
\fI$XDG_CONFIG_HOME/handbook/config.toml\fR
Configuration: sources, min_idle_hours, max_age_days, max_sessions_per_run, include_subagents, lock_wait_seconds, max_raw_memories, max_unused_days, summary_max_tokens, consolidate_cooldown_hours.
.TP
\fI$XDG_CONFIG_HOME/handbook/read_path.md\fR
Replaces the built\-in wrapper of \fBsummary \-\-prompt\fR.
.TP
\fI<home>/memory_summary.md\fR, \fI<home>/MEMORY.md\fR
The summary agents load, and the handbook they search.
.TP
\fI<home>/raw_memories.md\fR, \fI<home>/rollout_summaries/\fR
The selected sessions' lessons and accounts, rewritten at every consolidation.
.TP
\fI<home>/extensions/ad_hoc/notes/\fR
Notes written by \fBhandbook note\fR; never changed or removed by handbook.
.TP
\fI<home>/.handbook/manifest.json\fR, \fI<home>/.handbook/objects/\fR
The baseline: every workspace file's hash and contents at the last good consolidation.
.TP
\fI<home>/.handbook/edits.json\fR
Lines removed from or added to MEMORY.md and memory_summary.md by hand, re\-applied at every consolidation.
.TP
\fI<home>/.handbook/sources.json\fR
Every transcript seen, with its size, modification time, content hash, state and last error.
.TP
\fI<home>/.handbook/stage1/<session>.json\fR
What extraction kept of one session.
.TP
\fI<home>/.handbook/lock\fR
Held by every run that writes the workspace.
"#;

fn render_man_page() -> String {
    let command = handbook::cli::Cli::command();
    let man = clap_mangen::Man::new(command.clone());
    let mut out = Vec::new();
    man.render_title(&mut out).unwrap();
    man.render_name_section(&mut out).unwrap();
    man.render_synopsis_section(&mut out).unwrap();
    man.render_description_section(&mut out).unwrap();
    man.render_options_section(&mut out).unwrap();
    man.render_subcommands_section(&mut out).unwrap();
    let mut page = String::from_utf8(out).unwrap();
    page.push_str(CONTRACT);
    for sub in command.get_subcommands() {
        // clap wants a 'static name; a test can afford to leak a few bytes.
        let name: &'static str = Box::leak(format!("handbook {}", sub.get_name()).into_boxed_str());
        let mut out = Vec::new();
        let sub_man = clap_mangen::Man::new(sub.clone().name(name));
        page.push_str(&format!(".SH \"{}\"\n", name.to_uppercase()));
        sub_man.render_synopsis_section(&mut out).unwrap();
        sub_man.render_description_section(&mut out).unwrap();
        sub_man.render_options_section(&mut out).unwrap();
        // Sub-sections, not new pages: demote the generated section headings.
        page.push_str(&String::from_utf8(out).unwrap().replace(".SH ", ".SS "));
    }
    let mut out = Vec::new();
    man.render_version_section(&mut out).unwrap();
    page.push_str(&String::from_utf8(out).unwrap());
    page
}

#[test]
fn the_man_page_is_fresh() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("man/handbook.1");
    let fresh = render_man_page();
    if std::env::var_os("UPDATE_MAN").is_some() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "man/handbook.1 is stale: run `UPDATE_MAN=1 cargo test --test integration the_man_page_is_fresh`"
    );
}

#[test]
fn the_cli_definition_is_consistent() {
    handbook::cli::Cli::command().debug_assert();
}
