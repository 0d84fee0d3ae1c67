//! `handbook search`: ranking on the fixtures, every filter, relative dates, the limit, the
//! exit statuses, the session list, and that transcripts never give away what extraction may
//! not learn from (reasoning, instruction bodies, secrets).

use std::fs;

use serde_json::Value;

use crate::common::{Handbook, NOW, fixtures, handbook_of_fixtures, json_lines};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn search(hb: &Handbook, args: &[&str]) -> Run {
    let output = hb.cmd().env("HANDBOOK_NOW", NOW).arg("search").args(args).output().unwrap();
    Run {
        code: output.status.code().unwrap(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// The `result` objects of a `--json` search, and its totals.
fn results(hb: &Handbook, args: &[&str]) -> (Vec<Value>, Value) {
    let run = search(hb, &[&["--json", "--limit", "0"], args].concat());
    assert!(run.code <= 1, "search failed: {}", run.stderr);
    let mut lines = json_lines(run.stdout.as_bytes());
    let totals = lines.pop().expect("a totals object");
    assert_eq!(totals["type"], "totals");
    (lines.into_iter().map(|l| l["data"].clone()).collect(), totals["data"].clone())
}

/// The 1-based line of the workspace file that starts with `start`.
fn line_of(hb: &Handbook, file: &str, start: &str) -> usize {
    let text = fs::read_to_string(hb.home.path().join(file)).unwrap();
    1 + text.lines().position(|l| l.starts_with(start)).unwrap_or_else(|| panic!("{start:?} is not in {file}"))
}

fn locations(results: &[Value]) -> Vec<String> {
    results.iter().map(|r| format!("{}:{}", r["path"].as_str().unwrap(), r["line"])).collect()
}

#[test]
fn results_are_ranked_best_first() {
    let (hb, _dir) = handbook_of_fixtures();
    let (found, totals) = results(&hb, &["ruff", "app"]);
    let scores: Vec<f64> = found.iter().map(|r| r["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "not best first: {scores:?}");
    // The entries holding both words come first: the summary's tips and index entries, the
    // records' lines and each task block's keyword line, which hold both. Two sessions, a pi
    // one and a Codex one, ran the linter.
    let top: Vec<String> = locations(&found).into_iter().take(8).collect();
    let pi_line = line_of(&hb, "MEMORY.md", "- lint, ruff, app");
    let codex_line = line_of(&hb, "MEMORY.md", "- pyapp, ruff, app");
    for line in [pi_line, codex_line] {
        assert!(top.contains(&format!("MEMORY.md:{line}")), "{top:?}");
    }
    let codex = found.iter().find(|r| r["text"] == "- pyapp, ruff, app").unwrap();
    assert_eq!(codex["session_id"], "019d7a10-4c2e-7b31-9a55-0c0de0000003");
    assert_eq!(codex["date"], "2026-11-24");
    let pi = found.iter().find(|r| r["text"] == "- lint, ruff, app").unwrap();
    assert_eq!(pi["session_id"], "0c0de000-0000-4000-8000-00000000a006");
    assert!(totals["documents"].as_u64().unwrap() > 50, "{totals}");
}

#[test]
fn headings_keywords_and_commands_outrank_prose() {
    let hb = Handbook::new();
    let notes = [
        ("prose", "Some background.\n\nWe once talked about the flaky linter in passing."),
        ("command", "Some background.\n\nRun `linter --fix` before committing anything."),
        ("heading", "Some background.\n\n## The linter\n\nNothing else to add."),
    ];
    for (title, body) in notes {
        let out = hb.cmd().args(["note", "--title", title, body]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let (found, _) = results(&hb, &["--in", "notes", "linter"]);
    let order: Vec<&str> = found.iter().map(|r| r["text"].as_str().unwrap()).collect();
    assert_eq!(
        order,
        [
            "## The linter",
            "Run `linter --fix` before committing anything.",
            "We once talked about the flaky linter in passing."
        ]
    );
}

#[test]
fn text_results_name_the_file_line_date_and_session() {
    let (hb, _dir) = handbook_of_fixtures();
    let run = search(&hb, &["sphinx"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    // MEMORY.md's lesson (from two sessions), each session's rollout summary, the summary's tip.
    assert_eq!(lines.len(), 4, "{}", run.stdout);
    let fix = "- `make docs` failed with `error: sphinx-build not found`";
    let expected = format!("MEMORY.md:{}: {fix}", line_of(&hb, "MEMORY.md", fix));
    // The lesson both sessions taught is dated by the later; each session's summary names it.
    assert!(
        lines.iter().any(|l| l.starts_with(&expected) && l.ends_with("(2 sessions) [Task 1][Task 2]  (2026-11-26)")),
        "{}",
        run.stdout
    );
    assert!(
        lines.iter().any(|l| l.starts_with("rollout_summaries/")
            && l.contains(&format!(": {fix} (line 2)"))
            && l.ends_with("(2026-11-22, session 5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000002)")),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains('\x1b'), "colour when stdout is not a terminal");
    let coloured = search(&hb, &["--color", "always", "sphinx"]);
    assert!(coloured.stdout.contains("\x1b[1;31msphinx\x1b[0m"), "{}", coloured.stdout);
}

#[test]
fn the_scope_picks_the_files() {
    let (hb, _dir) = handbook_of_fixtures();
    let out = hb.cmd().args(["note", "Deploys need the VPN; sphinx docs too"]).output().unwrap();
    assert!(out.status.success());
    let kinds = |args: &[&str]| -> Vec<String> {
        let (found, _) = results(&hb, &[args, &["sphinx"]].concat());
        let mut kinds: Vec<String> = found.iter().map(|r| r["kind"].as_str().unwrap().to_string()).collect();
        kinds.sort();
        kinds.dedup();
        kinds
    };
    assert_eq!(kinds(&[]), ["memory", "note", "rollout-summary", "summary"]);
    assert_eq!(kinds(&["--in", "memory"]), ["memory", "summary"]);
    assert_eq!(kinds(&["--in", "summaries"]), ["rollout-summary"]);
    assert_eq!(kinds(&["--in", "notes"]), ["note"]);
    assert_eq!(kinds(&["--in", "transcripts"]), ["transcript"]);
    assert_eq!(kinds(&["--in", "notes,transcripts"]), ["note", "transcript"]);
    assert_eq!(kinds(&["--in", "all"]), ["memory", "note", "rollout-summary", "summary", "transcript"]);
}

#[test]
fn dates_and_relative_times_bound_the_results() {
    let (hb, _dir) = handbook_of_fixtures();
    let dates = |args: &[&str]| -> Vec<String> {
        let (found, _) = results(&hb, &[args, &["--in", "summaries", "success"]].concat());
        let mut dates: Vec<String> = found.iter().map(|r| r["date"].as_str().unwrap().to_string()).collect();
        dates.sort();
        dates.dedup();
        dates
    };
    let all = dates(&[]);
    let days = ["2026-11-20", "2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27"];
    assert_eq!(all, [&["2025-07-14", "2025-09-01"][..], &days].concat());
    // Now is 2026-11-29T12:00Z: 7d reaches back to 2026-11-22T12:00Z.
    assert_eq!(dates(&["--since", "7d"]), days[1..]);
    assert_eq!(dates(&["--since", "1w"]), dates(&["--since", "7d"]));
    assert_eq!(dates(&["--since", "2w"]), days);
    assert!(dates(&["--since", "yesterday"]).is_empty());
    // A date-only --until covers the whole day (the sessions ended at 14:02 and 14:08).
    assert_eq!(dates(&["--since", "2026-11-20", "--until", "2026-11-22"]), ["2026-11-20", "2026-11-22"]);
    assert_eq!(dates(&["--until", "2026-11-22T14:00:00Z"]), ["2025-07-14", "2025-09-01", "2026-11-20"]);
    assert_eq!(dates(&["--since", "2026-11-24T00:00:00+02:00"]), days[3..]);
    let bad = search(&hb, &["--since", "last tuesday", "x"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("--since: \"last tuesday\" is not a time"), "{}", bad.stderr);
    let backwards = search(&hb, &["--since", "2026-11-25", "--until", "2026-11-20", "x"]);
    assert_eq!(backwards.code, 2);
    assert!(backwards.stderr.contains("is after --until"), "{}", backwards.stderr);
}

#[test]
fn the_project_filter_keeps_one_project() {
    let (hb, _dir) = handbook_of_fixtures();
    let (all, _) = results(&hb, &["build"]);
    let (webshop, _) = results(&hb, &["--project", "/home/dev/docs-site", "build"]);
    assert!(webshop.len() < all.len() && !webshop.is_empty());
    for result in &webshop {
        let project = result["project"].as_str().unwrap_or("(none)");
        let path = result["path"].as_str().unwrap();
        assert!(
            project == "/home/dev/docs-site" || project == "docs-site" || path.starts_with("rollout_summaries/"),
            "{result}"
        );
    }
    // The rollout summary's project comes from its session's record.
    assert!(locations(&webshop).iter().any(|l| l.starts_with("rollout_summaries/2026-11-22T14-00-01-cg82-")));
    assert!(!locations(&webshop).iter().any(|l| l.contains("firmware")));
    let (transcripts, _) = results(&hb, &["--in", "transcripts", "--project", "/home/dev/docs-site", "sphinx"]);
    assert!(!transcripts.is_empty());
    assert!(transcripts.iter().all(|r| r["project"] == "/home/dev/docs-site"));
    assert_eq!(search(&hb, &["--project", "/nowhere/else", "build"]).code, 1);
}

#[test]
fn regex_and_case_sensitivity() {
    let (hb, _dir) = handbook_of_fixtures();
    let (found, _) = results(&hb, &["--regex", "--in", "memory", r"make (docs|build)\b"]);
    assert!(!found.is_empty());
    assert!(found.iter().all(|r| {
        let text = r["text"].as_str().unwrap().to_lowercase();
        text.contains("make docs") || text.contains("make build")
    }));
    let (loose, _) = results(&hb, &["--in", "memory", "PNPM"]);
    assert!(!loose.is_empty());
    let (exact, _) = results(&hb, &["--in", "memory", "--case-sensitive", "PNPM"]);
    assert!(exact.is_empty());
    // Literal by default: a dot is a dot.
    let (literal, _) = results(&hb, &["--in", "memory", "ruff check ."]);
    let (regex, _) = results(&hb, &["--in", "memory", "--regex", "ruff check ."]);
    assert!(!literal.is_empty() && regex.len() >= literal.len());
}

#[test]
fn the_limit_says_how_many_more() {
    let (hb, _dir) = handbook_of_fixtures();
    let (all, _) = results(&hb, &["build"]);
    assert!(all.len() > 3);
    let run = search(&hb, &["--limit", "2", "build"]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout.lines().count(), 2);
    let more = all.len() - 2;
    assert!(run.stderr.contains(&format!("{more} more results; raise --limit")), "{}", run.stderr);
    let json = search(&hb, &["--json", "--limit", "2", "build"]);
    let totals = json_lines(json.stdout.as_bytes()).pop().unwrap();
    assert_eq!(totals["data"]["results"], 2);
    assert_eq!(totals["data"]["more"], more);
    let default = search(&hb, &["--in", "all", "the"]);
    assert_eq!(default.stdout.lines().count(), 20, "the default limit is 20");
}

#[test]
fn nothing_found_is_exit_1_and_a_bad_regex_is_exit_2() {
    let (hb, _dir) = handbook_of_fixtures();
    let none = search(&hb, &["zebracorn"]);
    assert_eq!((none.code, none.stdout.as_str()), (1, ""));
    assert!(none.stderr.contains("no results for \"zebracorn\""), "{}", none.stderr);
    let json = search(&hb, &["--json", "zebracorn"]);
    assert_eq!(json.code, 1);
    assert_eq!(json_lines(json.stdout.as_bytes())[0]["data"]["results"], 0);
    let bad = search(&hb, &["--regex", "make (docs"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("invalid regex \"make (docs\"") && bad.stderr.contains("unclosed group"),
        "{}",
        bad.stderr
    );
    let empty = search(&hb, &[]);
    assert_eq!(empty.code, 2);
    assert!(empty.stderr.contains("nothing to search for"), "{}", empty.stderr);
    let fresh = Handbook::new();
    let run = search(&fresh, &["build"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("no handbook yet"), "{}", run.stderr);
}

#[test]
fn without_words_the_period_lists_its_sessions() {
    let (hb, _dir) = handbook_of_fixtures();
    let run = search(&hb, &["--since", "2026-11-22", "--until", "2026-11-23"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{}", run.stdout);
    assert!(
        lines[0].starts_with("2026-11-23 10:13  deployer  generic  Deploy the service to staging."),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with("2026-11-23 10:00  relay  gemini  Ship the relay to staging."), "{}", lines[1]);
    assert!(
        lines[2].starts_with("2026-11-22 14:08  webshop  claude  Add a unit test for the cart total"),
        "{}",
        lines[2]
    );
    let dates: Vec<&str> = lines.iter().map(|l| &l[..16]).collect();
    assert!(dates.windows(2).all(|w| w[0] >= w[1]), "not newest first: {dates:?}");
    let json = search(&hb, &["--json", "--since", "7d", "--project", "/home/dev/webshop"]);
    let sessions = json_lines(json.stdout.as_bytes());
    assert_eq!(sessions.len(), 2, "{}", json.stdout);
    assert_eq!(sessions[0]["type"], "session");
    assert_eq!(sessions[0]["data"]["session_id"], "5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001");
    assert_eq!(sessions[0]["data"]["agent"], "claude");
    assert_eq!(sessions[1]["data"]["sessions"], 1);
    let limited = search(&hb, &["--since", "2w", "--limit", "1"]);
    assert_eq!(limited.stdout.lines().count(), 1);
    assert!(limited.stderr.contains("more sessions; raise --limit"), "{}", limited.stderr);
    assert_eq!(search(&hb, &["--since", "yesterday", "--until", "2026-11-30"]).code, 1);
    // The one session recorded after the tests' clock (a real pi recording) is the only one
    // since yesterday.
    let later = search(&hb, &["--since", "yesterday"]);
    assert_eq!(later.stdout.lines().collect::<Vec<_>>().len(), 1, "{}", later.stdout);
    assert!(later.stdout.starts_with("2026-12-01 17:39  app  pi  "), "{}", later.stdout);
}

#[test]
fn transcripts_are_searched_through_the_filter() {
    let (hb, dir) = handbook_of_fixtures();
    // Found: the user's words and a tool's output, at their transcript lines.
    let (found, totals) = results(&hb, &["--in", "transcripts", "sphinx"]);
    // The same failing docs build, in a Claude Code session and a pi one.
    let files = [
        dir.path().join("prompt-injection/projects/-home-dev-docs-site/5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000002.jsonl"),
        dir.path().join(
            "pi-injection/sessions/--home-dev-docs-site--/2026-11-26T09-00-00-000Z_0c0de000-0000-4000-8000-00000000a005.jsonl",
        ),
    ];
    for file in &files {
        let lines = fs::read_to_string(file).unwrap();
        let in_file: Vec<&Value> = found.iter().filter(|r| r["path"].as_str() == file.to_str()).collect();
        assert!(in_file.iter().any(|r| r["text"] == "error: sphinx-build not found"), "{}: {found:?}", file.display());
        for result in in_file {
            let line = result["line"].as_u64().unwrap() as usize;
            let raw = lines.lines().nth(line - 1).unwrap().to_lowercase();
            assert!(raw.contains("sphinx"), "line {line} does not hold the match");
        }
    }
    let elsewhere: Vec<&Value> =
        found.iter().filter(|r| !files.iter().any(|f| r["path"].as_str() == f.to_str())).collect();
    assert!(elsewhere.is_empty(), "{elsewhere:?}");
    assert!(totals["files"].as_u64().unwrap() >= 8, "{totals}");
    // Never found: reasoning, instruction bodies, instruction files, system prompts. Every
    // canary is in the raw transcripts, so this search could fail.
    let mut canaries = 0;
    for entry in walkdir::WalkDir::new(dir.path()).into_iter().filter_map(Result::ok) {
        if entry.path().extension().is_some_and(|e| e == "jsonl") {
            canaries += String::from_utf8_lossy(&fs::read(entry.path()).unwrap()).matches("CANARY").count();
        }
    }
    assert!(canaries >= 14, "the fixtures lost their canaries ({canaries})");
    for query in ["CANARY", "CANARY-REASONING", "CANARY-AGENTS-MD", "CANARY-CLAUDE-MD-READ", "CANARY-THINKING"] {
        let run = search(&hb, &["--in", "transcripts", "--limit", "0", query]);
        assert_eq!(run.code, 1, "{query} found:\n{}", run.stdout);
    }
    let regex = search(&hb, &["--in", "transcripts", "--regex", "--limit", "0", "canary-[a-z-]+"]);
    assert_eq!(regex.code, 1, "{}", regex.stdout);
}

#[test]
fn a_secret_is_never_printed() {
    let (hb, _dir) = handbook_of_fixtures();
    let secrets = fs::read_to_string(fixtures().join("secrets/secrets.txt")).unwrap();
    let secrets: Vec<&str> = secrets.lines().filter(|s| !s.trim().is_empty()).collect();
    // Broad words that sit next to every secret, in every scope and mode.
    for args in [
        &["--in", "all", "--limit", "0", "token", "key", "password", "secret", "bearer", "deploy", "fake"][..],
        &["--in", "all", "--limit", "0", "--json", "token", "key", "password", "secret", "fake"],
        &["--in", "transcripts", "--limit", "0", "--regex", "[A-Za-z0-9_]{16,}"],
    ] {
        let run = search(&hb, args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.contains("[REDACTED:"), "the search missed the secrets' lines: {args:?}");
        for secret in &secrets {
            assert!(!run.stdout.contains(secret), "{secret} printed by {args:?}");
        }
    }
    // Searching for a secret itself finds nothing.
    for secret in &secrets {
        let run = search(&hb, &["--in", "all", secret]);
        assert_eq!(run.code, 1, "{secret} found:\n{}", run.stdout);
    }
}

#[test]
fn a_damaged_or_missing_transcript_is_named_and_the_rest_searched() {
    let (hb, dir) = handbook_of_fixtures();
    let junk =
        dir.path().join("prompt-injection/projects/-home-dev-docs-site/5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000002.jsonl");
    fs::write(&junk, b"\x00\x01\x02 sphinx \xff\xfe binary junk\n").unwrap();
    let gone = dir.path().join("generic/firmware-session.jsonl");
    fs::remove_file(&gone).unwrap();
    let run = search(&hb, &["--in", "transcripts", "--limit", "0", "sphinx", "firmware", "pnpm"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let changed = format!("{}: changed since it was extracted; run `handbook extract`", junk.display());
    assert!(run.stderr.contains(&changed), "{}", run.stderr);
    assert!(run.stderr.contains("1 transcript was deleted since the last extract; not searched"), "{}", run.stderr);
    assert!(!gone.exists());
    assert!(run.stdout.contains("pnpm vitest run"), "the other transcripts were not searched");
    // The docs fix is still found in the pi session, and never in the damaged file.
    assert!(run.stdout.contains("error: sphinx-build not found"), "{}", run.stdout);
    assert!(!run.stdout.contains(junk.to_str().unwrap()), "{}", run.stdout);
}

#[test]
fn reading_only_the_lines_that_can_match_finds_what_reading_every_line_finds() {
    let (hb, _dir) = handbook_of_fixtures();
    // A regex query decodes every line; a word query only the lines its bytes allow. The
    // answers must be the same, canaries included.
    for word in [
        "CANARY",
        "blue door",
        "fridays",
        "malicious",
        "withheld",
        "AGENTS.md",
        "CLAUDE.md",
        "both",
        "deploy",
        "token",
        "cargo",
        "build",
        "failed",
        "pnpm",
        "sphinx",
        "bash",
    ] {
        let fast = search(&hb, &["--in", "transcripts", "--limit", "0", "--json", word]);
        let full = search(&hb, &["--in", "transcripts", "--limit", "0", "--json", "--regex", &regex::escape(word)]);
        assert_eq!(fast.code, full.code, "{word}: {}\n{}", fast.stdout, full.stdout);
        // The same records, by text. Codex writes each message twice; which copy a search
        // reports may differ, so the line is checked to hold the word instead.
        let records = |run: &Run| -> Vec<(String, String, String)> {
            let mut records: Vec<(String, String, String)> = json_lines(run.stdout.as_bytes())
                .iter()
                .filter(|l| l["type"] == "result")
                .map(|l| {
                    let d = &l["data"];
                    (d["path"].as_str().unwrap().into(), d["text"].as_str().unwrap().into(), d["score"].to_string())
                })
                .collect();
            records.sort();
            records
        };
        assert_eq!(records(&fast), records(&full), "{word}");
        for result in json_lines(fast.stdout.as_bytes()).iter().filter(|l| l["type"] == "result") {
            let path = result["data"]["path"].as_str().unwrap();
            // An opencode storage-tree session is read from many files, as one stream of
            // records: its results name their message and part, and no line of the session
            // file named (the same records are compared above).
            if path.contains("/storage/session/") {
                let place = result["data"]["place"].as_str().unwrap_or_default();
                assert!(place.starts_with("message msg_") && place.contains(", part prt_"), "{result}");
                assert!(result["data"].get("line").is_none(), "{result}");
                continue;
            }
            let line = result["data"]["line"].as_u64().unwrap();
            let raw = String::from_utf8_lossy(&fs::read(path).unwrap())
                .lines()
                .nth(line as usize - 1)
                .unwrap()
                .to_lowercase();
            assert!(raw.contains(&word.to_lowercase()), "{word}: {path}:{line} does not hold it");
        }
        if word.contains("CANARY") || ["blue door", "fridays", "malicious"].contains(&word) {
            assert_eq!(fast.code, 1, "{word} found:\n{}", fast.stdout);
        }
    }
}
