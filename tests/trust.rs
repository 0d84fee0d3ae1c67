//! Trust and control: generations that survive a kill, undo that stays undone, review in
//! part, lessons checked against today's working tree, promote into a project's
//! instruction file, and `why` on every kind of lesson.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Handbook, NOW, copy_tree, fixtures, json_lines};

/// Run handbook at `now` (sessions of any age kept); the output, which must be a success.
fn run_at(hb: &Handbook, now: &str, args: &[&str]) -> Output {
    let output = hb.cmd().env("HANDBOOK_NOW", now).env("HANDBOOK_MAX_UNUSED_DAYS", "3650").args(args).output().unwrap();
    assert!(
        output.status.success(),
        "handbook {args:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn run(hb: &Handbook, args: &[&str]) -> Output {
    run_at(hb, NOW, args)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn read(hb: &Handbook, path: &str) -> String {
    fs::read_to_string(hb.home.path().join(path)).unwrap_or_default()
}

fn log(hb: &Handbook) -> Value {
    serde_json::from_str(&read(hb, ".handbook/generations.json")).unwrap()
}

/// Two folders of sessions: what the first consolidation learns, and what comes after.
fn sources() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    copy_tree(&fixtures().join("generic"), &first);
    copy_tree(&fixtures().join("claude-preferences"), &second.join("claude"));
    copy_tree(&fixtures().join("codex-failure-fix"), &second.join("codex"));
    (dir, first, second)
}

/// A handbook with a first generation of `first`, and `second` extracted, not consolidated.
fn before_the_second(first: &Path, second: &Path) -> Handbook {
    let hb = Handbook::new();
    run(&hb, &["update", "--all", first.to_str().unwrap()]);
    run(&hb, &["extract", "--all", second.to_str().unwrap()]);
    hb
}

/// Every file of the home with its contents, but the lock and the temporary files a killed
/// write leaves (they hold no state).
fn every_file(hb: &Handbook) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(hb.home.path())
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            let name = e.file_name().to_string_lossy();
            name != "lock" && !name.starts_with(".tmp-")
        })
        .map(|e| {
            let relative = e.path().strip_prefix(hb.home.path()).unwrap().to_string_lossy().into_owned();
            (relative, fs::read(e.path()).unwrap())
        })
        .collect()
}

/// The generation list is consistent: ids rise, each tree and every file it names is stored
/// and matches its hash, no two generations in a row have the same tree, and the newest is
/// what the manifest records.
fn assert_consistent(hb: &Handbook) {
    let log = log(hb);
    let generations = log["generations"].as_array().unwrap();
    let object = |hash: &str| {
        fs::read(hb.state().join("objects").join(hash)).unwrap_or_else(|_| panic!("object {hash} missing"))
    };
    let mut last_id = 0;
    let mut last_tree = String::new();
    for generation in generations {
        let id = generation["id"].as_u64().unwrap();
        assert!(id > last_id, "generation ids do not rise: {log}");
        let tree_hash = generation["tree"].as_str().unwrap();
        assert_ne!(tree_hash, last_tree, "two generations in a row with one tree: {log}");
        let tree: BTreeMap<String, String> = serde_json::from_slice(&object(tree_hash)).unwrap();
        for (path, hash) in &tree {
            assert_eq!(blake3::hash(&object(hash)).to_hex().as_str(), hash, "{path} of generation {id}");
        }
        (last_id, last_tree) = (id, tree_hash.to_string());
    }
    assert!(log["next"].as_u64().unwrap() > last_id);
    let manifest: Value = serde_json::from_str(&read(hb, ".handbook/manifest.json")).unwrap();
    let newest: BTreeMap<String, String> = serde_json::from_slice(&object(&last_tree)).unwrap();
    let recorded: BTreeMap<String, String> = serde_json::from_value(manifest["files"].clone()).unwrap();
    assert_eq!(newest, recorded, "the newest generation is not the baseline");
    assert!(!hb.state().join("pending.json").exists());
}

/// Run handbook with the fault `point` armed; the run, which aborts there.
fn killed_at(hb: &Handbook, point: &str, args: &[&str]) -> Output {
    let mut command = hb.cmd();
    command.env("HANDBOOK_NOW", NOW).env("HANDBOOK_MAX_UNUSED_DAYS", "3650").env("HANDBOOK_FAULT", point);
    command.args(args).output().unwrap()
}

#[test]
fn generations_survive_a_kill_at_every_named_fault_point() {
    let (_dir, first, second) = sources();
    let clean = before_the_second(&first, &second);
    run(&clean, &["consolidate"]);
    assert_eq!(log(&clean)["generations"].as_array().unwrap().len(), 2);
    let expected = every_file(&clean);
    let points = ["after-sync", "between-writes", "after-write", "commit-objects", "commit-log", "commit-manifest"];
    for point in points {
        let hb = before_the_second(&first, &second);
        assert!(!killed_at(&hb, point, &["consolidate"]).status.success(), "the fault at {point} did not stop the run");
        run(&hb, &["consolidate"]);
        assert_consistent(&hb);
        assert_eq!(every_file(&hb), expected, "{point}: the recovered workspace differs from a clean run's");
    }
    // An undo killed at each of its points, run again, ends as a clean undo does.
    run(&clean, &["undo", "1"]);
    let expected = every_file(&clean);
    for point in ["restore-between-writes", "commit-objects", "commit-log", "commit-manifest"] {
        let hb = before_the_second(&first, &second);
        run(&hb, &["consolidate"]);
        assert!(!killed_at(&hb, point, &["undo", "1"]).status.success(), "the fault at {point} did not stop the undo");
        run(&hb, &["undo", "1"]);
        assert_consistent(&hb);
        assert_eq!(every_file(&hb), expected, "undo killed at {point}: the workspace differs from a clean undo's");
    }
}

/// Fractions of a run's length, from a fixed seed: the same moments at every run.
fn moments(count: usize) -> Vec<f64> {
    let mut state: u64 = 0x15_7e57_5eed;
    (0..count)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

/// Start handbook with `args`, kill it (SIGKILL) after `fraction` of `length`, and wait.
fn kill_after(hb: &Handbook, args: &[&str], length: Duration, fraction: f64) {
    let mut command = hb.process();
    command.env("HANDBOOK_NOW", NOW).env("HANDBOOK_MAX_UNUSED_DAYS", "3650").args(args);
    let mut child = command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    std::thread::sleep(length.mul_f64(fraction));
    let _ = child.kill();
    let _ = child.wait();
}

/// How long a run of `args` takes, and the workspace it leaves.
fn timed(hb: &Handbook, args: &[&str]) -> (Duration, BTreeMap<String, Vec<u8>>) {
    let started = Instant::now();
    run(hb, args);
    (started.elapsed(), every_file(hb))
}

/// Kill runs of `args` at `fractions` of `length` on workspaces `fresh` makes, run again, and
/// check each ends as `expected`; how many kills landed mid-run (the workspace neither as it
/// was nor as a clean run leaves it). A kill before the run wrote anything, or after it was
/// done, proves nothing, so the callers ask for at least one that did.
fn kill_at_moments(
    fresh: &dyn Fn() -> Handbook,
    args: &[&str],
    (length, expected): &(Duration, BTreeMap<String, Vec<u8>>),
    fractions: &[f64],
) -> usize {
    let mut mid_run = 0;
    for fraction in fractions {
        let hb = fresh();
        let start = every_file(&hb);
        kill_after(&hb, args, *length, *fraction);
        let killed = every_file(&hb);
        mid_run += usize::from(killed != start && killed != *expected);
        run(&hb, args);
        assert_consistent(&hb);
        assert!(
            every_file(&hb) == *expected,
            "{args:?} killed at {fraction:.3} of {length:?}: the workspace differs from a clean run's"
        );
    }
    mid_run
}

#[test]
fn generations_survive_a_kill_at_random_moments() {
    let (_dir, first, second) = sources();
    let clean = before_the_second(&first, &second);
    let fractions = moments(12);
    let consolidate = timed(&clean, &["consolidate"]);
    let fresh = || before_the_second(&first, &second);
    let mid_run = kill_at_moments(&fresh, &["consolidate"], &consolidate, &fractions[..8]);
    let mid_run = mid_run + kill_until_one_lands(&fresh, &["consolidate"], mid_run);
    assert!(mid_run > 0, "no kill landed while the consolidation was working: the test proves nothing");
    let undo = timed(&clean, &["undo", "1"]);
    let consolidated = || {
        let hb = fresh();
        run(&hb, &["consolidate"]);
        hb
    };
    let mid_run = kill_at_moments(&consolidated, &["undo", "1"], &undo, &fractions[8..]);
    let mid_run = mid_run + kill_until_one_lands(&consolidated, &["undo", "1"], mid_run);
    assert!(mid_run > 0, "no kill landed while the undo was working: the test proves nothing");
}

/// When no kill of the first moments landed mid-run (a busy machine stretched or squeezed the
/// run that was timed), more rounds, each timed again and killed at evenly spread moments,
/// until one lands; every round still checks the workspace a kill leaves. How many landed.
fn kill_until_one_lands(fresh: &dyn Fn() -> Handbook, args: &[&str], landed: usize) -> usize {
    let spread: Vec<f64> = (0..10).map(|i| 0.05 + 0.1 * f64::from(i)).collect();
    let mut more = 0;
    for _ in 0..3 {
        if landed + more > 0 {
            break;
        }
        let timing = timed(&fresh(), args);
        more += kill_at_moments(fresh, args, &timing, &spread);
    }
    more
}

/// A generic session in `cwd` saying `preference`, last active at `at`.
fn session(dir: &Path, id: &str, cwd: &Path, preference: &str, at: &str) {
    let lines = [
        format!("{{\"session_id\":\"{id}\",\"cwd\":\"{}\"}}", cwd.display()),
        format!("{{\"role\":\"user\",\"content\":\"Tidy the widget. {preference}\",\"timestamp\":\"{at}\"}}"),
        format!(
            "{{\"role\":\"tool_call\",\"name\":\"shell\",\"id\":\"1\",\"command\":\"npm run lint\",\"timestamp\":\"{at}\"}}"
        ),
        format!("{{\"role\":\"tool\",\"id\":\"1\",\"exit_code\":0,\"content\":\"ok\",\"timestamp\":\"{at}\"}}"),
        format!("{{\"role\":\"assistant\",\"content\":\"Done.\",\"timestamp\":\"{at}\"}}"),
    ];
    fs::create_dir_all(dir).unwrap();
    fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
}

#[test]
fn undo_then_consolidate_does_not_resurrect_what_was_undone() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    copy_tree(&fixtures().join("generic"), &first);
    session(
        &second,
        "later-0001",
        Path::new("/w/widget"),
        "From now on, always run the linter first.",
        "2026-11-27T10:00:00Z",
    );
    let hb = Handbook::new();
    run(&hb, &["update", "--all", first.to_str().unwrap()]);
    let (memory_1, summary_1) = (read(&hb, "MEMORY.md"), read(&hb, "memory_summary.md"));
    // What the next consolidation would change, before it runs; then what it did.
    run(&hb, &["extract", "--all", second.to_str().unwrap()]);
    let next = stdout(&run(&hb, &["diff"]));
    assert!(
        next.starts_with(
            "diff: current (generation 1) -> the next consolidation\nsessions: +1 -0; lessons: +2 ~0 -0\n"
        ),
        "{next}"
    );
    assert!(next.contains("preference, /w/widget: From now on, always run the linter first."), "{next}");
    assert_eq!(read(&hb, "MEMORY.md"), memory_1, "a diff writes nothing");
    run(&hb, &["update", "--all", second.to_str().unwrap()]);
    let done = stdout(&run(&hb, &["diff", "1"]));
    assert_eq!(done.lines().skip(1).collect::<Vec<_>>(), next.lines().skip(1).collect::<Vec<_>>());
    let listed = json_lines(&run(&hb, &["--json", "log"]).stdout);
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["data"]["current"], true);
    assert_eq!(listed[0]["data"]["changes"]["sessions_added"][0], "later-0001");
    assert!(read(&hb, "memory_summary.md").contains("always run the linter first"));
    let undone = stdout(&run(&hb, &["undo"]));
    assert!(
        undone.contains("back as generation 1 left it as generation 3") && undone.contains("1 session held back"),
        "{undone}"
    );
    assert_eq!((read(&hb, "MEMORY.md"), read(&hb, "memory_summary.md")), (memory_1.clone(), summary_1.clone()));
    // Consolidating again, even after an extract that sees the same session, brings nothing back.
    run(&hb, &["update", "--all", second.to_str().unwrap()]);
    let again = run(&hb, &["consolidate"]);
    assert!(stdout(&again).contains("nothing changed"), "{}", stdout(&again));
    assert_eq!((read(&hb, "MEMORY.md"), read(&hb, "memory_summary.md")), (memory_1, summary_1));
    assert!(stdout(&run(&hb, &["status"])).contains("held back: 2 lessons and 1 session"));
    // New evidence: the session goes on. It comes back, and the run says so.
    session(
        &second,
        "later-0001",
        Path::new("/w/widget"),
        "From now on, always run the linter first.",
        "2026-11-28T10:00:00Z",
    );
    let back = run(&hb, &["update", "--all", second.to_str().unwrap()]);
    assert!(
        stderr(&back).contains("session later-0001 is back in the handbook: an undo to generation 1 took it out"),
        "{}",
        stderr(&back)
    );
    assert!(stderr(&back).contains("is back in the handbook: it was undone"), "{}", stderr(&back));
    assert!(read(&hb, "memory_summary.md").contains("always run the linter first"));
    assert_consistent(&hb);
}

/// The lessons `review --json` lists, as (status, id, text).
fn pending_lessons(hb: &Handbook) -> Vec<(String, String, String)> {
    json_lines(&run(hb, &["--json", "review"]).stdout)
        .iter()
        .filter(|l| l["type"] == "lesson")
        .map(|l| {
            let d = &l["data"];
            assert!(!d["sessions"].as_array().unwrap().is_empty(), "a lesson without its sessions: {d}");
            (
                d["status"].as_str().unwrap().to_string(),
                d["id"].as_str().unwrap().to_string(),
                d["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn id_of(lessons: &[(String, String, String)], words: &str) -> String {
    lessons
        .iter()
        .find(|(_, _, text)| text.contains(words))
        .map(|(_, id, _)| id.clone())
        .unwrap_or_else(|| panic!("no lesson {words:?} in {lessons:?}"))
}

#[test]
fn review_accepts_and_rejects_partially() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second, third) = (dir.path().join("first"), dir.path().join("second"), dir.path().join("third"));
    copy_tree(&fixtures().join("generic"), &first);
    copy_tree(&fixtures().join("claude-preferences"), &second);
    let hb = Handbook::new();
    run(&hb, &["update", "--all", first.to_str().unwrap()]);
    let summary_1 = read(&hb, "memory_summary.md");
    run(&hb, &["extract", "--all", second.to_str().unwrap()]);
    let report = &json_lines(&run(&hb, &["--json", "consolidate", "--review"]).stdout)[0]["data"];
    assert_eq!(report["outcome"], "pending", "{report}");
    // "We use pnpm, not npm." and the correction to `pnpm vitest run` are one lesson.
    assert_eq!(report["lessons"]["lessons_added"].as_array().unwrap().len(), 4, "{report}");
    assert_eq!(read(&hb, "memory_summary.md"), summary_1, "the summary serves the accepted handbook");
    let lessons = pending_lessons(&hb);
    assert!(lessons.iter().all(|(status, _, _)| status == "added"));
    let shown = stdout(&run(&hb, &["review"]));
    assert!(shown.contains("from session 5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001"), "{shown}");

    let (pnpm, staging) = (id_of(&lessons, "use pnpm"), id_of(&lessons, "staging API"));
    let accepted = stdout(&run(&hb, &["review", "--accept", &pnpm[2..7]]));
    assert!(accepted.contains("accepted 1 lesson as generation 2; the rest waits"), "{accepted}");
    let summary = read(&hb, "memory_summary.md");
    assert!(summary.contains("use pnpm") && !summary.contains("staging"), "{summary}");
    run(&hb, &["review", "--reject", &staging]);
    let left = pending_lessons(&hb);
    assert_eq!(left.len(), 2, "{left:?}");
    assert!(!left.iter().any(|(_, id, _)| *id == staging || *id == pnpm));
    // A consolidation proposes the same again, without the rejected lesson.
    let again = stdout(&run(&hb, &["consolidate", "--review"]));
    assert!(again.contains("a change waits for review"), "{again}");
    assert_eq!(pending_lessons(&hb), left);
    run(&hb, &["review", "--accept"]);
    let summary = read(&hb, "memory_summary.md");
    assert!(summary.contains("pnpm vitest run") && !summary.contains("staging"), "{summary}");
    assert!(log(&hb).get("pending").is_none());
    let refused = hb.cmd().env("HANDBOOK_NOW", NOW).args(["review", "--accept", "L-0000"]).output().unwrap();
    assert!(refused.status.success() && stderr(&refused).contains("nothing waits for review"));

    // With `review = true` in the environment: reject every lesson, accept what is left.
    session(
        &third,
        "third-0001",
        Path::new("/w/widget"),
        "From now on, always run the linter first.",
        "2026-11-27T10:00:00Z",
    );
    let proposed = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
        .env("HANDBOOK_REVIEW", "true")
        .args(["update", "--all", third.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(proposed.status.success(), "{}", stderr(&proposed));
    assert!(!read(&hb, "memory_summary.md").contains("linter first. (preference"));
    let rejected = stdout(&run(&hb, &["review", "--reject"]));
    assert!(rejected.contains("held back 2 lessons"), "{rejected}");
    run(&hb, &["review", "--accept"]);
    assert!(!read(&hb, "MEMORY.md").contains("linter first. (preference"), "a rejected lesson came in");
    assert!(read(&hb, "MEMORY.md").contains("third-0001"), "the session's task came in");
    assert_consistent(&hb);
}

/// A working tree with a `lint` script and `src/widget.ts`, and a session there that names
/// both.
fn project() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("widget");
    fs::create_dir_all(tree.join(".git")).unwrap();
    fs::create_dir_all(tree.join("src")).unwrap();
    fs::write(tree.join("package.json"), r#"{"scripts": {"lint": "eslint ."}}"#).unwrap();
    fs::write(tree.join("src/widget.ts"), "export {}\n").unwrap();
    let sessions = dir.path().join("sessions");
    session(
        &sessions,
        "fresh-0001",
        &tree,
        "From now on, always run the linter after editing src/widget.ts.",
        "2026-11-27T10:00:00Z",
    );
    (dir, tree, sessions)
}

#[test]
fn a_lesson_goes_stale_when_its_script_and_file_are_removed_and_back_when_restored() {
    let (_dir, tree, sessions) = project();
    let hb = Handbook::new();
    run(&hb, &["update", "--all", sessions.to_str().unwrap()]);
    let fresh = read(&hb, "memory_summary.md");
    assert!(fresh.contains("src/widget.ts. (preference; widget)"), "{fresh}");
    fs::write(tree.join("package.json"), r#"{"scripts": {}}"#).unwrap();
    fs::remove_file(tree.join("src/widget.ts")).unwrap();
    run_at(&hb, "2026-11-30T12:00:00Z", &["consolidate"]);
    let memory = read(&hb, "MEMORY.md");
    assert!(
        memory.contains("src/widget.ts. (preference; 1 session) [Task 1] [stale: `src/widget.ts` no longer exists]"),
        "{memory}"
    );
    assert!(
        memory.contains("`npm run lint` (1 session) [Task 1] [stale: `lint` is no longer a script in package.json]"),
        "{memory}"
    );
    let stale = read(&hb, "memory_summary.md");
    assert!(!stale.contains("src/widget.ts. (preference; widget)"), "{stale}");
    let status = stdout(&run(&hb, &["status"]));
    assert!(
        status.contains("stale lessons: 2") && status.contains("`lint` is no longer a script in package.json"),
        "{status}"
    );
    let doctor = hb.cmd().env("HANDBOOK_NOW", NOW).arg("doctor").output().unwrap();
    assert!(
        stdout(&doctor).contains("note: lessons: L-")
            && stdout(&doctor).contains("is stale (`src/widget.ts` no longer exists)"),
        "{}",
        stdout(&doctor)
    );
    // Byte-stable while the tree does not change, however often it is consolidated.
    assert!(stdout(&run_at(&hb, "2026-12-01T12:00:00Z", &["consolidate"])).contains("nothing changed"));
    assert_eq!(read(&hb, "memory_summary.md"), stale);
    fs::write(tree.join("package.json"), r#"{"scripts": {"lint": "eslint ."}}"#).unwrap();
    fs::write(tree.join("src/widget.ts"), "export {}\n").unwrap();
    run_at(&hb, "2026-12-02T12:00:00Z", &["consolidate"]);
    assert!(!read(&hb, "MEMORY.md").contains("[stale:"));
    assert_eq!(read(&hb, "memory_summary.md"), fresh);
    let trust: Value = serde_json::from_str(&read(&hb, ".handbook/trust.json")).unwrap();
    let confirmed: Vec<&str> =
        trust["checks"].as_object().unwrap().values().map(|c| c["confirmed_at"].as_str().unwrap()).collect();
    assert_eq!(confirmed, ["2026-12-02T12:00:00Z", "2026-12-02T12:00:00Z"]);
    assert!(stdout(&run(&hb, &["status"])).contains("stale lessons: none"));
}

/// The line of `MEMORY.md` holding `words`, as a reference.
fn line_of(hb: &Handbook, words: &str) -> String {
    let memory = read(hb, "MEMORY.md");
    let n = memory
        .lines()
        .position(|l| l.starts_with("- ") && l.contains(words))
        .unwrap_or_else(|| panic!("{words:?} not in {memory}"));
    format!("MEMORY.md:{}", n + 1)
}

#[test]
fn promote_writes_a_managed_block_idempotently_and_removes_it() {
    let (_dir, tree, sessions) = project();
    let agents = "# Agents\n\nRun `make check` before pushing.\n";
    fs::write(tree.join("AGENTS.md"), agents).unwrap();
    let hb = Handbook::new();
    run(&hb, &["update", "--all", sessions.to_str().unwrap()]);
    let lesson = line_of(&hb, "always run the linter");
    let done = stdout(&run(&hb, &["promote", &lesson]));
    assert!(done.starts_with("promoted: L-"), "{done}");
    let promoted = fs::read_to_string(tree.join("AGENTS.md")).unwrap();
    assert!(promoted.starts_with(agents), "text outside the block changed: {promoted}");
    assert!(
        promoted.contains("<!-- BEGIN handbook lessons")
            && promoted.contains("- From now on, always run the linter after editing src/widget.ts.")
    );
    assert!(promoted.contains("promoted 2026-11-29 from session fresh-0001"), "{promoted}");
    assert!(
        !read(&hb, "memory_summary.md").contains("src/widget.ts. (preference; widget)"),
        "a promoted lesson stays in the summary"
    );
    assert!(read(&hb, "MEMORY.md").contains("[promoted to AGENTS.md]"));
    // Again: nothing changes.
    assert!(stdout(&run(&hb, &["promote", &line_of(&hb, "always run the linter")])).starts_with("unchanged: "));
    assert_eq!(fs::read_to_string(tree.join("AGENTS.md")).unwrap(), promoted);
    // A second lesson joins the same block; taking both out gives the file back.
    run(&hb, &["promote", &line_of(&hb, "npm run lint")]);
    let two = fs::read_to_string(tree.join("AGENTS.md")).unwrap();
    assert_eq!(two.matches("<!-- BEGIN handbook lessons").count(), 1);
    assert!(two.contains("verified lint command: `npm run lint`"), "{two}");
    run(&hb, &["promote", "--remove", &line_of(&hb, "always run the linter")]);
    run(&hb, &["promote", "--remove", &line_of(&hb, "npm run lint")]);
    assert_eq!(fs::read_to_string(tree.join("AGENTS.md")).unwrap(), agents);
    assert!(
        read(&hb, "memory_summary.md").contains("src/widget.ts. (preference; widget)"),
        "the lesson is back in the summary"
    );
    assert!(!read(&hb, "MEMORY.md").contains("[promoted"));
    // Into a file that already has a block, with text after it.
    let with_block = "# Claude\n\n<!-- BEGIN handbook lessons: kept by `handbook promote`; edit outside this block -->\n## Lessons from past sessions\n\n<!-- END handbook lessons -->\n\n## Later\n\nkeep me\n";
    fs::write(tree.join("CLAUDE.md"), with_block).unwrap();
    run(&hb, &["promote", "--to", "CLAUDE.md", &line_of(&hb, "always run the linter")]);
    let claude = fs::read_to_string(tree.join("CLAUDE.md")).unwrap();
    assert!(
        claude.starts_with("# Claude\n\n<!-- BEGIN")
            && claude.ends_with("<!-- END handbook lessons -->\n\n## Later\n\nkeep me\n"),
        "{claude}"
    );
    assert!(claude.contains("- From now on, always run the linter"), "{claude}");
    assert_consistent(&hb);
}

#[cfg(unix)]
#[test]
fn promote_refuses_a_link_that_leads_out_of_the_project() {
    let (dir, tree, sessions) = project();
    let outside = dir.path().join("elsewhere.md");
    fs::write(&outside, "mine\n").unwrap();
    std::os::unix::fs::symlink(&outside, tree.join("GEMINI.md")).unwrap();
    let hb = Handbook::new();
    run(&hb, &["update", "--all", sessions.to_str().unwrap()]);
    let refused = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .args(["promote", "--to", "GEMINI.md", &line_of(&hb, "always run the linter")])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("is a symbolic link to") && stderr(&refused).contains("outside the project"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(fs::read_to_string(&outside).unwrap(), "mine\n");
    // A link inside the project (CLAUDE.md -> AGENTS.md) is written through.
    fs::write(tree.join("AGENTS.md"), "# Agents\n").unwrap();
    std::os::unix::fs::symlink("AGENTS.md", tree.join("CLAUDE.md")).unwrap();
    run(&hb, &["promote", "--to", "CLAUDE.md", &line_of(&hb, "always run the linter")]);
    assert!(fs::read_to_string(tree.join("AGENTS.md")).unwrap().contains("always run the linter"));
    assert!(fs::symlink_metadata(tree.join("CLAUDE.md")).unwrap().file_type().is_symlink());
}

#[test]
fn why_explains_every_kind_of_lesson() {
    let dir = tempfile::tempdir().unwrap();
    for case in ["claude-preferences", "gemini-cli-0.61", "codex-failure-fix"] {
        copy_tree(&fixtures().join(case), &dir.path().join(case));
    }
    let hb = Handbook::new();
    run(&hb, &["update", "--all", dir.path().to_str().unwrap()]);
    run(&hb, &["note", "Staging deploys need the VPN up first."]);
    let kinds = [
        ("Staging deploys need the VPN", "note", "written by you: extensions/ad_hoc/notes/"),
        ("We use pnpm, not npm.", "preference", "5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001 (claude, 2026-11-22T14:08:03Z)"),
        (
            "verified test command: `pnpm vitest run`",
            "knowledge",
            "claude-preferences/projects/-home-dev-webshop/5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001.jsonl:",
        ),
        ("closing account says", "knowledge", "019d7a10-4c2e-7b31-9a55-0c0de0000001 (codex"),
        ("`npm test` failed", "failure", "5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001"),
        ("and was not resolved", "failure", "b1676a96-dc01-4152-94ff-80a151b1b935 (gemini"),
    ];
    for (words, kind, source) in kinds {
        let reference = match kind {
            "note" => {
                let memory = read(&hb, "MEMORY.md");
                format!(
                    "MEMORY.md:{}",
                    memory.lines().position(|l| l.starts_with("## Note:") && l.contains("VPN")).unwrap() + 1
                )
            }
            _ => line_of(&hb, words),
        };
        let why = stdout(&run(&hb, &["why", &reference]));
        assert!(why.starts_with("L-") && why.lines().next().unwrap().contains(&format!("({kind}")), "{words}: {why}");
        assert!(why.contains(source), "{words}: {why}");
        assert!(why.contains("rank: ") && why.contains("support: "), "{words}: {why}");
        assert!(
            why.contains("in the summary at memory_summary.md:")
                || why.contains("not in the summary")
                || why.contains("kept in MEMORY.md only"),
            "{words}: {why}"
        );
        let id = why.split_whitespace().next().unwrap();
        let object = &json_lines(&run(&hb, &["--json", "why", &id[2..8]]).stdout)[0]["data"];
        assert_eq!(object["id"], id);
        assert_eq!(object["kind"], kind);
        if kind != "note" {
            let lines = object["sessions"][0]["lines"].as_array().unwrap();
            assert!(!lines.is_empty(), "{words}: no transcript line: {object}");
        }
    }
    let unknown = hb.cmd().env("HANDBOOK_NOW", NOW).args(["why", "L-00000000"]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("no lesson L-00000000"), "{}", stderr(&unknown));
}

#[test]
fn forgetting_a_session_drops_the_generations_that_held_it() {
    let (_dir, first, second) = sources();
    let hb = before_the_second(&first, &second);
    run(&hb, &["consolidate"]);
    let forgot = run(&hb, &["forget", "5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001"]);
    assert!(stderr(&forgot).contains("dropped 1 generation that held what was forgotten"), "{}", stderr(&forgot));
    run(&hb, &["consolidate"]);
    assert_consistent(&hb);
    for (path, bytes) in every_file(&hb) {
        if path.contains("objects") {
            assert!(
                !String::from_utf8_lossy(&bytes).contains("We use pnpm"),
                "{path} still holds a forgotten session's lesson"
            );
        }
    }
    let listed = stdout(&run(&hb, &["log"]));
    assert_eq!(listed.lines().count(), 2, "{listed}");
}

#[test]
fn a_handbook_consolidated_before_generations_gets_its_first_at_the_next_run() {
    let (_dir, first, _) = sources();
    let hb = Handbook::new();
    run(&hb, &["update", "--all", first.to_str().unwrap()]);
    fs::remove_file(hb.state().join("generations.json")).unwrap();
    let summary = read(&hb, "memory_summary.md");
    assert!(stdout(&run(&hb, &["consolidate"])).contains("nothing changed"));
    let listed = stdout(&run(&hb, &["log"]));
    assert!(listed.contains("baseline: the workspace as found") && listed.contains("(current)"), "{listed}");
    assert_eq!(read(&hb, "memory_summary.md"), summary);
    assert_consistent(&hb);
}

#[test]
fn review_works_with_a_model_engine() {
    use crate::stub::{Reply, Stub};
    let stub = Stub::start(|request, _| {
        if request.user_message().contains("Rewrite the lessons of one task group") {
            Reply::lessons(
                &["\"Keep the cart total in cents.\" [Task 1]"],
                &["pnpm vitest run passes the cart tests [Task 1]"],
                &[],
            )
        } else {
            Reply::summary("A developer of a web shop.", &["Keep the cart total in cents."], &[])
        }
    });
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("claude-preferences"), dir.path());
    let hb = Handbook::new();
    run(&hb, &["extract", "--all", dir.path().to_str().unwrap()]);
    let model = ["--engine", "openai", "--model", "m", "--base-url", stub.url.as_str()];
    let proposed = stdout(&run(&hb, &[&["consolidate", "--review", "--force"][..], &model].concat()));
    assert!(proposed.contains("a change waits for review"), "{proposed}");
    assert!(!hb.home.path().join("memory_summary.md").exists(), "nothing is served before it is accepted");
    let lessons = pending_lessons(&hb);
    assert_eq!(lessons.len(), 2, "{lessons:?}");
    run(&hb, &["review", "--accept", &id_of(&lessons, "cart total in cents")]);
    let memory = read(&hb, "MEMORY.md");
    assert!(memory.contains("Keep the cart total in cents.") && !memory.contains("passes the cart tests"), "{memory}");
    run(&hb, &["review", "--accept"]);
    assert!(read(&hb, "MEMORY.md").contains("passes the cart tests"));
    assert_consistent(&hb);
}

/// The workspace `before_the_second` makes, consolidated, then `then` run on it.
fn consolidated_then(first: &Path, second: &Path, then: &[&[&str]]) -> BTreeMap<String, Vec<u8>> {
    let hb = before_the_second(first, second);
    run(&hb, &["consolidate"]);
    for args in then {
        run(&hb, args);
    }
    every_file(&hb)
}

#[test]
fn an_undo_after_a_killed_consolidation_ends_as_after_a_clean_one() {
    let (_dir, first, second) = sources();
    // Killed once the log was written: the commit is finished, then undone.
    let expected = consolidated_then(&first, &second, &[&["undo"], &["consolidate"]]);
    for point in ["commit-log", "commit-manifest"] {
        let hb = before_the_second(&first, &second);
        assert!(!killed_at(&hb, point, &["consolidate"]).status.success());
        let undone = stdout(&run(&hb, &["undo"]));
        assert!(undone.contains("back as generation 1 left it as generation 3"), "{point}: {undone}");
        assert_consistent(&hb);
        run(&hb, &["consolidate"]);
        assert_consistent(&hb);
        assert_eq!(every_file(&hb), expected, "{point}: the workspace differs from a clean consolidate and undo");
    }
    // Killed before it committed: the handbook it wrote goes back, and the next
    // consolidation does it again, taking none of its lines for the user's.
    let expected = consolidated_then(&first, &second, &[]);
    for point in ["between-writes", "after-write", "commit-objects"] {
        let hb = before_the_second(&first, &second);
        assert!(!killed_at(&hb, point, &["consolidate"]).status.success());
        let undone = run(&hb, &["undo", "1"]);
        assert!(stderr(&undone).contains("nothing to undo"), "{point}: {}", stderr(&undone));
        assert_consistent(&hb);
        run(&hb, &["consolidate"]);
        assert_consistent(&hb);
        assert_eq!(every_file(&hb), expected, "{point}: the workspace differs from a clean consolidation");
    }
}

/// A handbook of `first` with the change `second` brings waiting for review.
fn pending_review(first: &Path, second: &Path) -> Handbook {
    let hb = before_the_second(first, second);
    run(&hb, &["consolidate", "--review"]);
    assert!(log(&hb).get("pending").is_some());
    hb
}

#[test]
fn an_accept_killed_at_every_commit_point_and_run_again_ends_as_a_clean_one() {
    let (_dir, first, second) = sources();
    let clean = pending_review(&first, &second);
    run(&clean, &["review", "--accept"]);
    let expected = every_file(&clean);
    for point in ["restore-between-writes", "commit-objects", "commit-log", "commit-manifest"] {
        let hb = pending_review(&first, &second);
        assert!(!killed_at(&hb, point, &["review", "--accept"]).status.success(), "{point} did not stop it");
        run(&hb, &["review", "--accept"]);
        assert_consistent(&hb);
        assert!(log(&hb).get("pending").is_none(), "{point}: the change still waits");
        assert_eq!(every_file(&hb), expected, "{point}: the workspace differs from a clean accept's");
    }
}

#[test]
fn a_promote_killed_at_every_commit_point_and_run_again_ends_as_a_clean_one() {
    let (_dir, tree, sessions) = project();
    let agents = "# Agents\n\nRun `make check` before pushing.\n";
    let promoted = |kill: Option<&str>| {
        fs::write(tree.join("AGENTS.md"), agents).unwrap();
        let hb = Handbook::new();
        run(&hb, &["update", "--all", sessions.to_str().unwrap()]);
        let lesson = line_of(&hb, "always run the linter");
        if let Some(point) = kill {
            assert!(!killed_at(&hb, point, &["promote", &lesson]).status.success(), "{point} did not stop it");
        }
        run(&hb, &["promote", &lesson]);
        assert_consistent(&hb);
        (every_file(&hb), fs::read_to_string(tree.join("AGENTS.md")).unwrap())
    };
    let expected = promoted(None);
    for point in ["restore-between-writes", "commit-objects", "commit-log", "commit-manifest"] {
        assert!(expected == promoted(Some(point)), "{point}: the workspace differs from a clean promote's");
    }
}

#[test]
fn keeping_few_generations_prunes_the_copies_only_the_dropped_ones_needed() {
    let dir = tempfile::tempdir().unwrap();
    let hb = Handbook::new();
    let objects = || fs::read_dir(hb.state().join("objects")).unwrap().count();
    let mut counts = Vec::new();
    for (n, keep) in ["20", "20", "20", "20", "2"].iter().enumerate() {
        let folder = dir.path().join(format!("s{n}"));
        let preference = format!("From now on, always run check number {n} first.");
        session(&folder, &format!("keep-000{n}"), Path::new("/w/widget"), &preference, "2026-11-27T10:00:00Z");
        let output = hb
            .cmd()
            .env("HANDBOOK_NOW", NOW)
            .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
            .env("HANDBOOK_KEEP_GENERATIONS", keep)
            .args(["update", "--all", folder.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        counts.push(objects());
    }
    let ids: Vec<u64> = log(&hb)["generations"].as_array().unwrap().iter().map(|g| g["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, [4, 5], "the newest two are kept");
    assert!(counts[4] < counts[3], "the objects did not shrink: {counts:?}");
    assert_consistent(&hb);
    let gone = hb.cmd().env("HANDBOOK_NOW", NOW).args(["undo", "3"]).output().unwrap();
    assert!(stderr(&gone).contains("no generation 3"), "{}", stderr(&gone));
    let undone = stdout(&run(&hb, &["undo", "4"]));
    assert!(undone.contains("back as generation 4 left it as generation 6"), "{undone}");
    assert!(!read(&hb, "MEMORY.md").contains("check number 4"));
    assert!(read(&hb, "MEMORY.md").contains("check number 3"));
    assert_consistent(&hb);
}

#[test]
fn file_doors_follow_undo_accept_and_reject() {
    let (_dir, first, second) = sources();
    let hb = pending_review(&first, &second);
    run(&hb, &["integrate", "opencode", "--write"]);
    let path = hb.home.path().join(".handbook/doors/opencode.md");
    let door = || fs::read_to_string(&path).unwrap();
    let prompt = || stdout(&run(&hb, &["summary", "--prompt"]));
    assert_eq!(door(), prompt());
    // Accepting and undoing change the summary: the door follows.
    for args in [&["review", "--accept"][..], &["undo"]] {
        let before = door();
        run(&hb, args);
        assert_ne!(door(), before, "{args:?} changed no summary, so it proves nothing");
        assert_eq!(door(), prompt(), "the door is stale after {args:?}");
    }
    // A rejection leaves the summary as accepted: a door gone stale by other means is
    // written again.
    let third = first.parent().unwrap().join("third");
    session(&third, "third-0001", Path::new("/w/widget"), "Always run the linter first.", NOW);
    run(&hb, &["extract", "--all", third.to_str().unwrap()]);
    run(&hb, &["consolidate", "--review"]);
    fs::write(&path, "an older summary\n").unwrap();
    run(&hb, &["review", "--reject"]);
    assert_eq!(door(), prompt(), "the door is stale after a rejection");
}

#[test]
fn a_rejected_lesson_comes_back_with_a_notice_when_new_evidence_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let (first, later) = (dir.path().join("first"), dir.path().join("later"));
    copy_tree(&fixtures().join("generic"), &first);
    let hb = Handbook::new();
    run(&hb, &["update", "--all", first.to_str().unwrap()]);
    let said = |at: &str| session(&later, "later-0001", Path::new("/w/widget"), "Always run the linter first.", at);
    let lesson = "linter first. (preference";
    said("2026-11-27T10:00:00Z");
    run(&hb, &["extract", "--all", later.to_str().unwrap()]);
    run(&hb, &["consolidate", "--review"]);
    let linter = id_of(&pending_lessons(&hb), "run the linter first");
    run(&hb, &["review", "--reject", &linter]);
    run(&hb, &["review", "--accept"]);
    assert!(!read(&hb, "MEMORY.md").contains(lesson), "a rejected lesson came in");
    // The same evidence again brings nothing back.
    let again = run(&hb, &["update", "--all", later.to_str().unwrap()]);
    assert!(!stderr(&again).contains("is back"), "{}", stderr(&again));
    assert!(!read(&hb, "MEMORY.md").contains(lesson));
    // The session goes on: the lesson comes back, and the run says why.
    said("2026-11-28T10:00:00Z");
    let back = run(&hb, &["update", "--all", later.to_str().unwrap()]);
    let notice = format!("lesson {linter} is back in the handbook: it was rejected on");
    assert!(stderr(&back).contains(&notice), "{}", stderr(&back));
    assert!(read(&hb, "MEMORY.md").contains(lesson));
    assert!(read(&hb, "memory_summary.md").contains(lesson));
    assert_consistent(&hb);
}

#[test]
fn log_diff_and_why_show_a_commit_a_killed_run_left_halfway_as_finished() {
    let (_dir, first, second) = sources();
    let clean = before_the_second(&first, &second);
    run(&clean, &["consolidate"]);
    let lesson = line_of(&clean, "use pnpm");
    for args in [&["log"][..], &["diff", "1"], &["why", &lesson]] {
        let hb = before_the_second(&first, &second);
        assert!(!killed_at(&hb, "commit-log", &["consolidate"]).status.success());
        assert_eq!(stdout(&run(&hb, args)), stdout(&run(&clean, args)), "{args:?}");
        assert_consistent(&hb);
        assert_eq!(every_file(&hb), every_file(&clean), "{args:?}");
    }
}
