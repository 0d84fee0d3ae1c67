//! Generated documentation stays fresh: the man page is rebuilt from the flag definitions,
//! the settings table and the output contract below, the README's configuration section from
//! the settings table, and both are compared with the committed files.

use std::path::Path;

use clap::CommandFactory;

/// Sections clap does not know: the output contract, then (after the environment) the files.
const CONTRACT: &str = r#".SH "EXIT STATUS"
.TP
0
Success. A run in which some transcripts failed still succeeds; the coverage line says which and why.
.TP
1
Nothing found (search); something is wrong (doctor).
.TP
2
An error stopped the run: a bad flag or config file, a damaged state file, a source that does not exist.
.TP
3
Another handbook run holds the workspace lock and did not release it within \fB\-\-wait\fR seconds.
.TP
130, 143
\fBextract\fR or \fBupdate\fR was stopped by Ctrl\-C (SIGINT) or SIGTERM. The run stopped at the next session boundary: the sessions finished so far are committed, the coverage so far is printed, and the rest wait for the next run. A second signal stops at once; the state stays consistent.
.SH OUTPUT
Results go to stdout; warnings, errors and progress to stderr. A progress bar is drawn only when stderr is a terminal and neither \fB\-\-json\fR nor \fB\-\-quiet\fR is given. With \fB\-\-json\fR, stdout holds one JSON object per line, \fB{"type": ..., "data": ...}\fR: for \fBextract\fR, one \fBsession\fR object per transcript acted on, then one \fBtotals\fR object with the coverage counts; for \fBconsolidate\fR a \fBconsolidate\fR object; for \fBstatus\fR a \fBstatus\fR object; for \fBnote\fR a \fBnote\fR object; for \fBforget\fR one \fBforgotten\fR object per session; for \fBconfig\fR one \fBsetting\fR object per setting (its \fBname\fR, \fBvalue\fR and \fBorigin\fR: flag, variable, file or default); for \fBdoctor\fR one \fBfinding\fR object per finding (its \fBarea\fR, \fBlevel\fR: ok, warn or fail, and \fBtext\fR), then a \fBtotals\fR object; for \fBlog\fR one \fBgeneration\fR object per generation, newest first (the pending one first, with \fBpending\fR true); for \fBdiff\fR one \fBlesson\fR object per lesson added, changed or removed and one \fBfile\fR object per file changed, then a \fBtotals\fR object holding the unified diff; for \fBreview\fR one \fBlesson\fR object per pending lesson, or a \fBreview\fR object for a decision; for \fBundo\fR an \fBundo\fR object; for \fBpromote\fR a \fBpromote\fR object; for \fBwhy\fR a \fBlesson\fR object (a \fBheld\fR object for a lesson held out of the handbook). An error that stops the run is printed on stderr as \fBhandbook: error: ...\fR and, with \fB\-\-json\fR, also as \fB{"type": "error", "data": {"message": ...}}\fR, the last line on stdout. \fBerror\fR and \fBwarning\fR are coloured by the same rule (\fB\-\-color\fR). Text taken from transcripts is printed with control characters escaped.
.PP
\fBsummary \-\-hook\fR (and \fBsummary \-\-for claude\fR, \fBcodex\fR or \fBgemini\fR) prints \fB{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": ...}}\fR, which Claude Code, Codex and Gemini CLI read from a SessionStart hook. In hook mode the JSON the agent sends on stdin is read (at most 1 MiB, not from a terminal, for half a second at most; anything but a JSON object is ignored), and without \fB\-\-project\fR its \fBcwd\fR names the project. A failure prints nothing on stdout or stderr and exits 0, so a broken handbook never keeps an agent from starting; \fB\-v\fR reports the reason on stderr.
"#;

/// The sections after ENVIRONMENT, which is made from the settings table, as is the list of
/// the config file's keys that opens them.
const FILES: &str = r#".TP
\fI$XDG_CONFIG_HOME/handbook/read_path.md\fR, \fI$XDG_CONFIG_HOME/handbook/read_path_gemini.md\fR
Replace the built\-in wrapper of \fBsummary \-\-prompt\fR, and the one \fBsummary \-\-for gemini\fR uses (it must hold no angle bracket, which Gemini CLI escapes).
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
The baseline: every workspace file's hash and contents at the last good consolidation, and the contents (and trees) of the generations kept.
.TP
\fI<home>/.handbook/generations.json\fR
The generations kept (keep_generations, 20 by default), and the change pending review.
.TP
\fI<home>/.handbook/trust.json\fR
Lessons and sessions held back by a review or an undo (with the evidence they had), promoted lessons, and what the freshness checks found.
.TP
\fI<home>/.handbook/edits.json\fR
Lines removed from or added to MEMORY.md and memory_summary.md by hand, re\-applied at every consolidation.
.TP
\fI<home>/.handbook/sources.json\fR, \fI<home>/.handbook/sources.log\fR
Every session seen, with its transcript's size, modification time and content hash, its state and last error; the log holds the changes of the runs since the file was last rewritten whole.
.TP
\fI<home>/.handbook/forgotten.json\fR
The sessions \fBhandbook forget\fR excluded; kept through damage to any other state and through \fBreset\fR.
.TP
\fI<home>/.handbook/stage1/<session>.json\fR
What extraction kept of one session. One that cannot be read is renamed \fI.damaged\fR and its session read again.
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
    let mut page = String::from_utf8(out).unwrap();
    page.push_str(&commands_section(&command));
    page.push_str(CONTRACT);
    page.push_str(&handbook::config::docs::man_environment());
    page.push_str(".SH FILES\n.TP\n\\fI$XDG_CONFIG_HOME/handbook/config.toml\\fR\n");
    page.push_str(&format!("Configuration; its keys: {}.\n", handbook::config::docs::man_config_keys()));
    page.push_str(FILES);
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

/// The commands, each pointing at its section of this page (clap_mangen's own list names a
/// page per command, `handbook-extract(1)`, which is not installed).
fn commands_section(command: &clap::Command) -> String {
    let roff = |text: &str| text.replace('\\', "\\\\").replace('-', "\\-").replace('\'', "\\(aq");
    let mut out = String::from(".SH COMMANDS\n");
    for sub in command.get_subcommands() {
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        let section = format!("HANDBOOK {}", sub.get_name().to_uppercase());
        out.push_str(&format!(
            ".TP\n\\fBhandbook {}\\fR\n{}; see {} below.\n",
            roff(sub.get_name()),
            roff(&about),
            roff(&section)
        ));
    }
    out
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

/// The man page is one page: it names no page per command, which is not installed, and it
/// documents no variable only the test suite sets.
#[test]
fn the_man_page_points_only_at_itself_and_documents_no_test_switch() {
    let page = render_man_page();
    let command = handbook::cli::Cli::command();
    for sub in command.get_subcommands() {
        let name = sub.get_name().replace('-', "\\-");
        assert!(!page.contains(&format!("handbook\\-{name}(1)")), "the man page names handbook-{name}(1)");
        assert!(page.contains(&format!(".SH \"HANDBOOK {}\"", sub.get_name().to_uppercase())), "{name} has no section");
    }
    assert!(!page.contains("(1)"), "the man page names another page");
    for variable in ["HANDBOOK_NOW", "HANDBOOK_FAULT"] {
        assert!(!page.contains(variable), "the man page documents {variable}, a switch for the tests");
    }
    for key in ["max_retries", "engine", "summary_max_tokens", "exclude_external_context"] {
        assert!(page.contains(key), "the man page's FILES section lacks {key}");
    }
}

/// The help keeps the options every command takes apart from the command's own.
#[test]
fn the_help_lists_global_options_apart() {
    let mut command = handbook::cli::Cli::command();
    command.build();
    for sub in command.get_subcommands_mut().filter(|s| s.get_name() != "help") {
        let help = sub.render_help().to_string();
        let global =
            help.find("Global options:").unwrap_or_else(|| panic!("{}: no global heading\n{help}", sub.get_name()));
        assert!(help[global..].contains("--home <DIR>") && help[global..].contains("--json"), "{help}");
    }
}

#[test]
fn the_cli_definition_is_consistent() {
    handbook::cli::Cli::command().debug_assert();
}

/// The README's "## Configuration" section: its body, up to the next section.
fn configuration_section(readme: &str) -> Option<(usize, usize)> {
    let heading = "\n## Configuration\n\n";
    let start = readme.find(heading)? + heading.len();
    let end = readme[start..].find("\n## ").map_or(readme.len(), |n| start + n + 1);
    Some((start, end))
}

#[test]
fn the_readme_configuration_is_fresh() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let fresh = format!("{}\n", handbook::config::docs::readme_configuration());
    if std::env::var_os("UPDATE_README").is_some() {
        let readme = std::fs::read_to_string(&path).unwrap();
        let (start, end) = configuration_section(&readme).expect("a ## Configuration section");
        std::fs::write(&path, format!("{}{fresh}{}", &readme[..start], &readme[end..])).unwrap();
    }
    let readme = std::fs::read_to_string(&path).unwrap();
    let (start, end) = configuration_section(&readme).expect("a ## Configuration section");
    assert!(
        readme[start..end] == fresh,
        "README.md's configuration section is stale: run `UPDATE_README=1 cargo test --test integration the_readme_configuration_is_fresh`"
    );
}

/// Every flag that sets a setting says which variable sets it too, as the table declares, and
/// no other flag claims a variable.
#[test]
fn each_flag_names_its_variable_as_the_table_says() {
    use handbook::config::table::ALL;
    let command = handbook::cli::Cli::command();
    let mut commands = vec![&command];
    commands.extend(command.get_subcommands());
    let mut found = std::collections::BTreeSet::new();
    for cmd in commands {
        for arg in cmd.get_arguments() {
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            let name = match arg.get_long() {
                Some(long) => format!("--{long}"),
                None => format!("{}...", arg.get_value_names().and_then(|v| v.first()).map_or("", |v| v.as_str())),
            };
            // Another command may have a flag of the same name for something else (`search
            // --limit`); a setting's flag has the setting's help.
            let spec = ALL.iter().map(|s| s.spec()).find(|s| s.flag == Some(name.as_str()) && help.starts_with(s.help));
            let Some(spec) = spec else {
                assert!(
                    !help.contains("[env:"),
                    "{} {name} names a variable the table does not give it",
                    cmd.get_name()
                );
                continue;
            };
            found.insert(spec.name);
            match spec.env {
                Some(env) => assert!(help.contains(&format!("[env: {env}]")), "{name}: {help}"),
                None => assert!(!help.contains("[env:"), "{name}: {help}"),
            }
            assert!(help.ends_with(&format!("[default: {}]", spec.default)), "{name}: {help}");
        }
    }
    for spec in ALL.iter().map(|s| s.spec()).filter(|s| s.flag.is_some()) {
        assert!(found.contains(spec.name), "no command has {}'s flag {:?}", spec.name, spec.flag);
    }
}

#[test]
fn every_licence_cargo_toml_declares_has_its_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let declared = manifest.lines().find_map(|l| l.strip_prefix("license = ")).unwrap().trim_matches('"');
    let known =
        [("MIT", "LICENSE-MIT", "Permission is hereby granted"), ("Apache-2.0", "LICENSE-APACHE", "Apache License")];
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    for id in declared.split(" OR ") {
        let (_, file, words) =
            known.iter().find(|(i, ..)| *i == id).unwrap_or_else(|| panic!("no file known for {id}"));
        let text = std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(text.contains(words), "{file} is not the {id} licence");
        assert!(readme.contains(&format!("]({file})")), "the README links {file}");
    }
}
