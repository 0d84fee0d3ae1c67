//! The built-in consolidator on hand-made stage-1 records.

use super::*;
use crate::core::extract::shell::CommandKind;
use crate::core::extract::{Facts, Failure, Fix, Outcome, Signal, TaskFacts, Verified};
use crate::core::session::Agent;

pub(crate) fn task(title: &str) -> TaskFacts {
    TaskFacts { outcome: Outcome::Success, ..TaskFacts::new(title.into(), 1) }
}

pub(crate) fn record(id: &str, project: &str, day: u32, tasks: Vec<TaskFacts>) -> Stage1 {
    let at: Timestamp = format!("2026-11-{day:02}T10:00:00Z").parse().unwrap();
    Stage1 {
        version: 1,
        session_id: id.into(),
        agent: Agent::Codex,
        rollout_path: format!("/t/{id}.jsonl"),
        cwd: Some(format!("/w/{}", display_name(project))),
        project: project.into(),
        git_branch: None,
        started_at: Some(at),
        updated_at: at,
        title: None,
        source_hash: "h".into(),
        rollout_slug: "slug".into(),
        rollout_summary: "# summary".into(),
        raw_memory: "raw".into(),
        facts: Facts {
            tasks,
            keywords: vec!["cargo".into()],
            outcome: Outcome::Success,
            user_messages: 1,
            commands: 1,
            failed_commands: 0,
        },
        usage_count: 0,
        last_usage: None,
    }
}

fn verified(cmd: &str) -> Verified {
    Verified { command: cmd.into(), kind: CommandKind::Test, line: 3 }
}

fn preference(text: &str) -> Signal {
    Signal { kind: SignalKind::Preference, text: text.into(), line: 2 }
}

fn sessions() -> Vec<Stage1> {
    let mut a = task("Fix the parser tests.");
    a.verified.push(verified("cargo test"));
    a.preferences.push(preference("Always run clippy before finishing."));
    let failure = Failure {
        command: "cargo test".into(),
        error: "error[E0425]: cannot find value".into(),
        exit_code: Some(101),
        line: 4,
    };
    a.fixes.push(Fix { edited: vec!["src/lib.rs".into()], ..Fix::new(failure, "cargo test".into(), 9) });
    let mut b = task("Add a lexer test.");
    b.verified.push(verified("cargo test"));
    b.preferences.push(preference("always run Clippy before finishing!"));
    let mut c = task("Cart total test.");
    c.preferences.push(Signal {
        kind: SignalKind::Remember,
        text: "Remember that staging needs the VPN.".into(),
        line: 5,
    });
    vec![
        record("s-a", "github.com/acme/parser", 20, vec![a]),
        record("s-b", "github.com/acme/parser", 21, vec![b]),
        record("s-c", "/w/webshop", 22, vec![c]),
    ]
}

fn run(sessions: &[Stage1], notes: &[Note]) -> Output {
    consolidate(&Input { sessions, notes, cap: Cap { tokens: Some(2500), chars: None } })
}

#[test]
fn lessons_are_merged_across_sessions_and_counted() {
    let out = run(&sessions(), &[]);
    assert!(
        out.memory.contains("- verified test command: `cargo test` (2 sessions) [Task 1][Task 2]"),
        "{}",
        out.memory
    );
    // Near-identical wording merges; the most recent phrasing is not required, one is kept.
    assert_eq!(out.memory.matches("before finishing").count(), 1, "{}", out.memory);
    assert!(out.memory.contains("(2 sessions)"));
    assert!(out.memory.contains("# Task Group: github.com/acme/parser"));
    assert!(out.memory.contains("### rollout_summary_files\n\n- rollout_summaries/"));
    assert!(out.summary.starts_with("v1\n\n## User Profile\n"));
}

#[test]
fn a_narrowed_or_scratch_run_is_no_way_to_do_the_job() {
    let mut t = task("Skip the goldens today.");
    for command in [
        "flutter test --exclude-tags golden",
        "pytest tests/test_cli_json.py",
        "CGO_ENABLED=1 go build -o /tmp/gf ./cmd/gf",
        "make check",
        "CARGO_TARGET_DIR=/tmp/target cargo test --workspace",
        "go test -coverprofile=/tmp/c.out ./...",
        "make migrate-force V=20261128120000",
        "./scripts/reserve-twice.sh 12 2026-12-10",
        "stack test --ta '--match \"renderStatsJson\"'",
        "pnpm test:e2e --grep-invert @visual",
        "SOURCE_DATE_EPOCH=1700000000 cargo build --locked",
    ] {
        t.verified.push(verified(command));
    }
    let out = run(&[record("s-a", "github.com/acme/gf", 20, vec![t])], &[]);
    assert!(out.memory.contains("verified test command: `make check`"), "{}", out.memory);
    // A scratch place for what the job keeps aside is still the way to run it.
    assert!(out.memory.contains("CARGO_TARGET_DIR=/tmp/target cargo test --workspace"), "{}", out.memory);
    assert!(out.memory.contains("-coverprofile=/tmp/c.out"), "{}", out.memory);
    // (An epoch is a setting, no date of one run.)
    assert!(out.memory.contains("SOURCE_DATE_EPOCH=1700000000 cargo build --locked"), "{}", out.memory);
    for one_off in ["exclude-tags", "test_cli_json", "/tmp/gf", "V=2026", "2026-12-10", "renderStatsJson", "@visual"] {
        assert!(!out.memory.contains(one_off), "{one_off}: {}", out.memory);
    }
}

#[test]
fn forgetting_a_session_keeps_what_others_support() {
    let all = sessions();
    let without_a: Vec<Stage1> = all.iter().filter(|s| s.session_id != "s-a").cloned().collect();
    let out = run(&without_a, &[]);
    assert!(!out.memory.contains("E0425"), "a lesson only s-a supported survived");
    assert!(out.memory.contains("- verified test command: `cargo test` (1 session)"), "{}", out.memory);
    assert!(out.memory.contains("Clippy before finishing"), "{}", out.memory);
}

#[test]
fn notes_come_first() {
    let notes = [Note {
        file: "extensions/ad_hoc/notes/2026-11-29T00-00-00-vpn.md".into(),
        title: "VPN".into(),
        body: "Staging needs the VPN.".into(),
    }];
    let out = run(&sessions(), &notes);
    assert!(out.memory.starts_with("# Notes\n"), "{}", out.memory);
    let prefs = out.summary.split("## User preferences\n\n").nth(1).unwrap();
    assert!(prefs.starts_with("- VPN: Staging needs the VPN. (note)"), "{prefs}");
}

#[test]
fn usage_ranks_a_project_first() {
    let mut all = sessions();
    all[2].usage_count = 5;
    let out = run(&all, &[]);
    let webshop = out.memory.find("# Task Group: /w/webshop").unwrap();
    let parser = out.memory.find("# Task Group: github.com/acme/parser").unwrap();
    assert!(webshop < parser);
}

#[test]
fn the_output_does_not_depend_on_input_order_and_fits_the_cap() {
    let mut reversed = sessions();
    reversed.reverse();
    assert_eq!(run(&sessions(), &[]), run(&reversed, &[]));
    let tight = consolidate(&Input { sessions: &sessions(), notes: &[], cap: Cap { tokens: Some(120), chars: None } });
    assert!(crate::core::tokens::estimate(&tight.summary) <= 120, "{}", tight.summary);
    assert!(tight.summary.starts_with("v1\n"));
}

#[test]
fn an_empty_selection_still_renders_both_files() {
    let out = run(&[], &[]);
    assert!(out.memory.contains("# Task Group: none yet"));
    assert!(out.summary.starts_with("v1\n") && out.summary.contains("No sessions consolidated yet."));
}

#[test]
fn sessions_whose_short_names_collide_get_summary_files_of_their_own() {
    // `Aa` and `BB` take the same four-character hash, and share their start and slug.
    let selection = vec![record("Aa", "/w/p", 20, vec![task("t")]), record("BB", "/w/p", 20, vec![task("t")])];
    let sync = plan::sync(&selection);
    assert_eq!(sync.keep.len(), 2, "two sessions share one summary file: {:?}", sync.keep);
    let memory = run(&selection, &[]).memory;
    let cited: BTreeSet<&str> = memory
        .lines()
        .filter_map(|l| l.strip_prefix("- rollout_summaries/"))
        .map(|l| l.split_whitespace().next().unwrap_or(l))
        .collect();
    assert_eq!(cited, sync.keep.iter().map(String::as_str).collect(), "{memory}");
    let held: BTreeSet<&str> = sync
        .keep
        .iter()
        .filter_map(|name| sync.writes[&format!("{ROLLOUT_SUMMARIES}/{name}")].lines().next())
        .collect();
    assert_eq!(held, BTreeSet::from(["session_id: Aa", "session_id: BB"]));
}

#[test]
fn a_session_whose_text_breaks_the_handbook_is_left_out_alone() {
    use super::edits::Edits;
    use crate::core::manifest::Snapshot;
    let mut all = sessions();
    all[1].raw_memory = "- rollout_summaries/forged.md (session_id=s-a)".into();
    let cap = Cap { tokens: Some(2500), chars: None };
    let before = Snapshot { files: plan::sync(&all).writes.into_iter().map(|(p, t)| (p, t.into_bytes())).collect() };
    // Like a model that copies a raw memory into the handbook.
    let build = |sessions: &[Stage1], notes: &[Note]| -> Result<Output, ()> {
        let mut output = run(sessions, notes);
        for s in sessions {
            output.memory.push_str(&format!("\n{}\n", s.raw_memory));
        }
        Ok(output)
    };
    let handbook =
        plan::finish_leaving_out_breakers(&all, &[], &Edits::default(), &before, cap, build).unwrap().unwrap();
    assert_eq!(handbook.left_out.len(), 1, "{:?}", handbook.left_out);
    assert!(handbook.left_out[0].starts_with("session \"s-b\" is left out"), "{}", handbook.left_out[0]);
    assert!(handbook.memory.contains("Fix the parser tests.") && handbook.memory.contains("Cart total test."));
    assert!(!handbook.memory.contains("Add a lexer test."), "{}", handbook.memory);
}

/// `command`, failed at `failed_line` with `error`, got past by `fixed_by` at line 24, with
/// nothing edited or run on the way.
fn fix(command: &str, error: &str, failed_line: u64, fixed_by: &str) -> Fix {
    let failure = Failure { command: command.into(), error: error.into(), exit_code: Some(1), line: failed_line };
    Fix::new(failure, fixed_by.into(), 24)
}

#[test]
fn two_failures_one_chain_got_past_are_told_by_the_first() {
    // `poetry lock && poetry install` got past both.
    let mut t = task("Add a tags column.");
    let mut install =
        fix("poetry install", "pyproject.toml changed significantly since poetry.lock", 14, "poetry install");
    install.ran.push("poetry lock".into());
    t.fixes.push(install);
    t.fixes.push(fix("poetry lock --no-update", "The option \"--no-update\" does not exist", 18, "poetry lock"));
    let out = run(&[record("s-a", "/w/brookmere", 20, vec![t])], &[]);
    assert!(out.summary.contains("`poetry install` failed"), "{}", out.summary);
    assert!(!out.summary.contains("--no-update"), "{}", out.summary);
    // Both stay in the handbook.
    assert!(out.memory.contains("--no-update"), "{}", out.memory);
}

#[test]
fn a_test_that_passed_alone_stays_in_the_handbook_and_out_of_the_summary() {
    let mut t = task("Add Retry-After to the 429s.");
    let mut flaky =
        fix("bazel test -- //...", "FAIL: //internal/queue:queue_test", 18, "bazel test //internal/queue:queue_test");
    flaky.alone = true;
    t.fixes.push(flaky);
    t.preferences.push(preference("From now on regenerate BUILD files with bazel run //:gazelle."));
    let out = run(&[record("s-a", "/w/inkcap", 20, vec![t])], &[]);
    assert!(out.memory.contains("passed alone right after") && out.memory.contains("may be flaky"), "{}", out.memory);
    assert!(!out.summary.contains("queue_test"), "{}", out.summary);
}

#[test]
fn a_fix_that_only_added_what_a_preference_says_to_pass_is_not_told_again() {
    let mut t = task("Deploy the api chart.");
    t.preferences.push(preference("Always pass --kube-context kind-dev explicitly here, the default context is prod."));
    let failed = "helm upgrade --install api charts/api -n dev";
    t.fixes.push(fix(failed, "Error: Kubernetes cluster unreachable", 6, &format!("{failed} --kube-context kind-dev")));
    let out = run(&[record("s-a", "/w/hooks", 20, vec![t.clone()])], &[]);
    assert!(out.summary.contains("Always pass --kube-context kind-dev"), "{}", out.summary);
    assert!(!out.summary.contains("cluster unreachable"), "{}", out.summary);
    assert!(out.memory.contains("cluster unreachable"), "{}", out.memory);
    // A rule about another context does not tell it.
    t.preferences[0] = preference("Always pass --kube-context kind-ci explicitly here.");
    let out = run(&[record("s-a", "/w/hooks", 20, vec![t])], &[]);
    assert!(out.summary.contains("cluster unreachable"), "{}", out.summary);
}

#[test]
fn a_script_only_parsed_is_no_tip() {
    let mut t = task("Add a photo backup script.");
    for command in ["bash -n bin/backup-photos", "shellcheck -x bin/*"] {
        t.verified.push(Verified { command: command.into(), kind: CommandKind::Lint, line: 3 });
    }
    let out = run(&[record("s-a", "/w/dots", 20, vec![t])], &[]);
    assert!(out.summary.contains("verified `shellcheck -x bin/*`"), "{}", out.summary);
    assert!(!out.summary.contains("bash -n"), "{}", out.summary);
}

#[test]
fn a_rule_a_later_session_took_back_no_longer_holds() {
    let freeze = "Don't add dependencies without asking — we're in a dependency freeze until 2.0 ships.";
    let mut said = task("Add next_business_day.");
    said.preferences.push(preference(freeze));
    said.preferences.push(preference("Always run the tests through hatch run test:all."));
    let mut lifted = task("Export to ical.");
    lifted.taken_back.push("dependency freeze".into());
    let before_it = record("said", "gh:o/gavotte", 2, vec![said.clone()]);
    let taking_back = record("lifted", "gh:o/gavotte", 3, vec![lifted]);
    let out = run(&[before_it.clone(), taking_back.clone()], &[]);
    assert!(!out.memory.contains("dependency freeze"), "{}", out.memory);
    assert!(out.memory.contains("hatch run test:all"), "the other rule stays: {}", out.memory);
    // Said again after it was taken back, it holds again; taken back in another project, it
    // was never this one's to lose.
    let again = record("again", "gh:o/gavotte", 4, vec![said.clone()]);
    let out = run(&[before_it.clone(), taking_back.clone(), again], &[]);
    assert!(out.memory.contains("dependency freeze"), "{}", out.memory);
    let elsewhere = Stage1 { project: "gh:o/other".into(), ..taking_back };
    assert!(run(&[before_it, elsewhere], &[]).memory.contains("dependency freeze"));
}

/// The summary's preference lines of `sessions`, each one said once.
fn preference_lines(sessions: &[Stage1]) -> Vec<String> {
    let out = run(sessions, &[]);
    out.summary
        .lines()
        .filter(|l| l.contains("(preference;") || l.contains("(correction;"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_rule_said_again_in_other_words_is_the_rule_it_restates() {
    let mut a = task("Add an export command.");
    a.preferences.push(preference("Never `pip install`, never activate the .venv by hand."));
    a.preferences.push(preference("Every CLI option gets a help text."));
    let mut b = task("Export JSON too.");
    b.preferences.push(Signal {
        kind: SignalKind::Correction,
        text: "Never pip in halibut, it's uv: `uv add` if you need a dependency. I said that last time.".into(),
        line: 8,
    });
    let sessions = [record("s-a", "/w/halibut", 20, vec![a]), record("s-b", "/w/halibut", 21, vec![b])];
    let lines = preference_lines(&sessions);
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert!(lines.iter().any(|l| l.contains("never activate the .venv") && l.contains("2 sessions")), "{lines:#?}");

    // Without the user saying it was said before, two rules sharing one word stay two.
    let mut c = task("Export JSON too.");
    c.preferences.push(preference("Never pip in halibut, it's uv: `uv add` if you need a dependency."));
    let mut a = task("Add an export command.");
    a.preferences.push(preference("Never `pip install`, never activate the .venv by hand."));
    let sessions = [record("s-a", "/w/halibut", 20, vec![a]), record("s-c", "/w/halibut", 21, vec![c])];
    assert_eq!(preference_lines(&sessions).len(), 2);
}

#[test]
fn a_rule_meets_every_wording_a_merged_rule_has_gathered() {
    let mut a = task("Catalog lookup.");
    a.preferences.push(preference("No head, no fromJust, no (!!). use find / listToMaybe or pattern matching."));
    a.preferences.push(preference("No partial functions in porcini."));
    let mut b = task("Edible column.");
    b.preferences
        .push(preference("We never use partial functions in this codebase: head, tail, fromJust, !! are all out."));
    let sessions = [record("s-a", "/w/porcini", 20, vec![a]), record("s-b", "/w/porcini", 21, vec![b])];
    let lines = preference_lines(&sessions);
    assert_eq!(lines.len(), 1, "{lines:#?}");
}
