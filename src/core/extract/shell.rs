//! Reading shell command lines: which part of a compound command matters, what kind of
//! work it does (test, build, lint, ...), and its family (`cargo test`, `npm run build`), so a
//! later success can be matched with an earlier failure of the same job.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::progress;
use crate::core::patterns;

/// What a command does, as far as lessons go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum CommandKind {
    Test,
    Build,
    Lint,
    Format,
    Run,
    Install,
    Vcs,
    Other,
    /// Looking around (`ls`, `cat`, `grep`): a failure here is not a landmine.
    Explore,
}

impl CommandKind {
    /// Commands whose success is worth remembering as a verified way to do the job.
    pub(crate) fn is_verification(self) -> bool {
        matches!(
            self,
            CommandKind::Test
                | CommandKind::Build
                | CommandKind::Lint
                | CommandKind::Format
                | CommandKind::Run
                | CommandKind::Install
        )
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            CommandKind::Test => "test",
            CommandKind::Build => "build",
            CommandKind::Lint => "lint",
            CommandKind::Format => "format",
            CommandKind::Run => "run",
            CommandKind::Install => "install",
            CommandKind::Vcs => "vcs",
            CommandKind::Other => "other",
            CommandKind::Explore => "explore",
        }
    }

    /// Which kind wins when a compound command holds several.
    fn priority(self) -> u8 {
        match self {
            CommandKind::Test => 9,
            CommandKind::Build => 8,
            CommandKind::Lint => 7,
            CommandKind::Format => 6,
            CommandKind::Run => 5,
            CommandKind::Install => 4,
            CommandKind::Vcs => 3,
            CommandKind::Other => 2,
            CommandKind::Explore => 1,
        }
    }
}

/// A command line, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Classified {
    pub(crate) kind: CommandKind,
    /// Program and sub-command, e.g. `cargo test`; equal families are the same job.
    pub(crate) family: String,
    pub(crate) program: String,
}

/// Classify a command line. For a compound line (`cd app && npm test | tail`), the part that
/// does the most telling job decides.
/// True when a linter is asked to mend what it finds (`sqlfluff fix`, `eslint --fix`,
/// `rubocop -a`). (`-a` means other things to other linters: `shellcheck -a` checks sourced
/// files.)
fn fixes_findings(program: &str, sub: Option<&str>, args: &[&str]) -> bool {
    let rubocop = matches!(program, "rubocop" | "standardrb");
    sub == Some("fix")
        || args.iter().any(|a| {
            matches!(*a, "--fix" | "--fix-only" | "--autocorrect" | "--autocorrect-all" | "--write")
                || a.starts_with("--fix=")
                || rubocop && matches!(*a, "-a" | "-A")
        })
}

pub(crate) fn classify(command: &str) -> Classified {
    let mut best: Option<Classified> = None;
    for segment in segments(command) {
        let Some(classified) = classify_segment(&segment) else {
            continue;
        };
        // Of two that do jobs of one kind, the later is the chain's point (`make testdb &&
        // pytest`).
        if best.as_ref().is_none_or(|b| classified.kind.priority() >= b.kind.priority()) {
            best = Some(classified);
        }
    }
    let best = best.unwrap_or(Classified { kind: CommandKind::Other, family: String::new(), program: String::new() });
    // `curl -fsSL https://sh.rustup.rs | sh`: what is read is run.
    static INTO_SHELL: LazyLock<Regex> =
        LazyLock::new(|| patterns::regex(r"\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:sh|bash|zsh|python3?|node|perl|ruby)\b"));
    if best.kind == CommandKind::Explore && INTO_SHELL.is_match(command) {
        return Classified { kind: CommandKind::Other, ..best };
    }
    best
}

/// The family of each segment of `command` that does a job, in order.
pub(crate) fn segment_families(command: &str) -> Vec<String> {
    let jobs = segments(command).into_iter().filter_map(|segment| classify_segment(&segment));
    jobs.filter(|c| c.kind != CommandKind::Explore && !c.family.is_empty()).map(|c| c.family).collect()
}

/// The line to keep as a verified way to do a job: the job's own segment of a chain, without
/// what only trims its output (`| tail -2`) or looks around after it (`&& rg -n x src`).
pub(crate) fn job_line(command: &str) -> String {
    let line = without_output_filters(&main_segment(command).unwrap_or_else(|| command.to_string()));
    // `cat /etc/os-release | grep ID; MONGOMS_DISTRO=ubuntu-22.04 npx jest`: a look run
    // before it, whatever its status, is no part of the job either.
    let steps = sequential_parts(&line);
    let line = match steps.iter().position(|step| !is_a_look(step)) {
        Some(first) if first > 0 => steps[first..].join("; "),
        _ => line.clone(),
    };
    let mut parts: Vec<&str> = line.split(" && ").collect();
    while parts.len() > 1 && parts.last().is_some_and(|p| classify(p).kind == CommandKind::Explore) {
        parts.pop();
    }
    // `grep -n sqlc-check Makefile && make sqlc-check`: the look before it is no part either.
    while parts.len() > 1 && parts.first().is_some_and(|p| classify(p).kind == CommandKind::Explore) {
        parts.remove(0);
    }
    parts.join(" && ")
}

/// True when a command only stops a build tool's daemons (`./gradlew --stop`).
pub(crate) fn stops_daemons(command: &str) -> bool {
    let words = words(command);
    runs_gradle(&words) && words.len() > 1 && words[1..].iter().all(|w| w == "--stop")
}

/// `command` without the version checks that open its chain (`flutter --version && flutter
/// test`, `php artisan --version && ./vendor/bin/pest`): a failure of the chain with `error`
/// is the job's, told without them, unless the error names the program checked (`Could not
/// open input file: artisan`).
pub(crate) fn without_looks_before(command: &str, error: &str) -> String {
    // (Only a version asked for: a look may be an edit too, `sed -i … && deno task test`.)
    let look = |part: &str| {
        let words = words(&without_output_filters(part));
        let asks = words.len() <= 4
            && (words.get(1).is_some_and(|w| w == "version")
                || words.iter().skip(1).any(|w| w == "--version" || w == "-V"));
        let named = words.iter().take(2).any(|w| error.contains(w.rsplit('/').next().unwrap_or(w)));
        asks && !named
    };
    let mut parts: Vec<&str> = command.split(" && ").collect();
    while parts.len() > 1 && parts.first().is_some_and(|p| look(p)) {
        parts.remove(0);
    }
    parts.join(" && ")
}

/// The job line of `command` that got past `failed`: its segment that runs the same job when
/// the chain's main job is another (`tmux source-file ~/.tmux.conf && zsh -ic exit`), and of
/// several that do, the one most like the failed command (`zcat data/seed.sql | psql -q`
/// loaded what `psql -q -f data/seed.sql` could not, not the count query after it).
pub(crate) fn job_line_for(command: &str, failed: &str) -> String {
    let (line, wanted) = (job_line(command), job_line(failed));
    let failed_words = words(failed);
    let likeness = |part: &str| words(part).iter().filter(|w| failed_words.contains(w)).count();
    // (Each step on its own: `echo $PATH | head; corepack enable --install-directory ~/x`.)
    let parts: Vec<&str> = command
        .split(" && ")
        .flat_map(sequential_parts)
        .map(str::trim)
        .filter(|part| runs_the_same(part, &wanted))
        .collect();
    // (Of as like ones, the first.)
    let best = parts.iter().copied().rev().max_by_key(|part| likeness(part));
    match best {
        Some(part) if parts.len() > 1 || !runs_the_same(&line, &wanted) => without_output_filters(part),
        _ => line,
    }
}

/// Whether a segment of `chain` runs what `command` ran: the same program and sub-commands
/// (`bin/rails test` in `PGHOST=… bin/rails test`), whatever settings, flags and paths follow.
pub(crate) fn runs_the_same(chain: &str, command: &str) -> bool {
    fn job_words(words: &[String]) -> Vec<&str> {
        let mut rest = words.iter().map(String::as_str).skip_while(|w| w.contains('=') && !w.starts_with('-'));
        // (`corepack pnpm test` runs what `pnpm test` does.)
        let mut ahead = rest.clone();
        if ahead.next() == Some("corepack") && ahead.next().is_some_and(|w| COREPACK_TOOLS.contains(&w)) {
            rest.next();
        }
        let Some(program) = rest.next() else { return Vec::new() };
        let subs = rest.take_while(|w| !w.starts_with('-') && !w.contains(['/', '.', '='])).take(2);
        std::iter::once(program).chain(subs).collect()
    }
    let Some(first) = segments(command).into_iter().next() else { return false };
    let wanted = job_words(&first).join(" ");
    // (`stack --no-system-ghc test` runs `stack test`, a flag before its sub-command.)
    fn past_flags(words: &[String]) -> Vec<&str> {
        let mut rest = words.iter().map(String::as_str).skip_while(|w| w.contains('=') && !w.starts_with('-'));
        let Some(program) = rest.next() else { return Vec::new() };
        // (Only long flags are passed over: `make -C build` gives `-C` a value.)
        let subs = rest
            .take_while(|w| !w.starts_with('-') || w.starts_with("--"))
            .filter(|w| !w.starts_with("--") && !w.contains(['>', '<']))
            .take_while(|w| !w.contains(['/', '.', '=']))
            .take(2);
        std::iter::once(program).chain(subs).collect()
    }
    let flagged = past_flags(&first);
    let same_past_flags = |words: &[String]| flagged.len() > 1 && past_flags(words) == flagged;
    !wanted.is_empty()
        && segments(chain).iter().any(|words| job_words(words).join(" ") == wanted || same_past_flags(words))
}

/// Whether any segment of `command` does the job `family` names: `pnpm lint && pnpm test`
/// runs `pnpm lint` as well as the test it is classified by.
pub(crate) fn runs_job(command: &str, family: &str) -> bool {
    segments(command).iter().any(|words| task_families(words).iter().any(|f| f == family))
}

/// The jobs one segment runs: its family, and of a build tool's several tasks (`sbt
/// core/scalafmt scalafmtCheckAll`) each task's as well.
fn task_families(words: &[String]) -> Vec<String> {
    let Some(whole) = classify_segment(words) else { return Vec::new() };
    let program = whole.program.clone();
    let mut families = vec![whole.family];
    if !MULTI_TASK_BUILDERS.contains(&program.as_str()) {
        return families;
    }
    let Some(at) = words.iter().position(|w| program_name(w).trim_start_matches("./") == program) else {
        return families;
    };
    let is_task: Vec<bool> =
        words.iter().enumerate().map(|(i, w)| i > at && !w.starts_with('-') && !w.contains('=')).collect();
    for task in (0..words.len()).filter(|&i| is_task[i]) {
        let one: Vec<String> =
            (0..words.len()).filter(|&i| i == task || !is_task[i]).map(|i| words[i].clone()).collect();
        if let Some(family) = classify_segment(&one).map(|c| c.family).filter(|f| !families.contains(f)) {
            families.push(family);
        }
    }
    families
}

/// Whether a test run repeats its tests to catch a flaky one (`bazel test //x
/// --runs_per_test=30`, `go test -count=50 -run TestPool`): its failure is what it was run
/// to find, not a step that broke.
pub(crate) fn repeats_to_find_flakes(command: &str) -> bool {
    const REPEATING: &[&str] = &["--runs_per_test", "-count", "--count", "-test.count", "--repeat", "--repeat-each"];
    let words = words(command);
    words.iter().enumerate().any(|(i, word)| {
        let (flag, value) = match word.split_once('=') {
            Some((flag, value)) => (flag, Some(value)),
            None => (word.as_str(), words.get(i + 1).map(String::as_str)),
        };
        let times = value.map(|v| v.trim_start_matches("until-fail:")).and_then(|v| v.parse::<u32>().ok());
        REPEATING.contains(&flag) && times.is_some_and(|n| n > 1)
    }) || repeated_body(command).is_some_and(|body| classify(&body).kind == CommandKind::Test)
}

/// What a loop runs the same each time round, counted out (`for i in 1 2 3`, `$(seq 20)`,
/// `{1..5}`, `((i = 0; i < 5; i++))`) and not reading its variable: not `for f in tests/*.py;
/// do pytest "$f"; done`, which runs another test each time.
pub(crate) fn repeated_body(command: &str) -> Option<String> {
    static COUNTED: LazyLock<Regex> = LazyLock::new(|| {
        patterns::regex(
            r"^\s*for\s+(?:(\w+)\s+in\s+(?:\d+(?:\s+\d+)*|\$\(seq\s+[\d\s]+\)|\{\d+\.\.\d+\})\s*[;\n]|\(\((\w+)[^)]*\)\))",
        )
    });
    let caps = COUNTED.captures(command)?;
    let var = caps.get(1).or(caps.get(2))?.as_str();
    let body = loop_body(command)?;
    let reads = body.contains(&format!("${var}")) || body.contains(&format!("${{{var}}}"));
    (!reads).then_some(body)
}

/// What a shell loop runs each time round (`pytest t.py::x` of `for i in 1 2 3; do pytest
/// t.py::x; done`, or of `for i in $(seq 20)`, `for ((i = 0; i < 5; i++))`).
pub(crate) fn loop_body(command: &str) -> Option<String> {
    static LOOP: LazyLock<Regex> = LazyLock::new(|| {
        patterns::regex(
            r"(?s)^\s*for\s+(?:\w+\s+in\s+[^;\n]*|\(\(.*?\)\))\s*[;\n]\s*do\s+(.+?)[;\s]*\bdone\b(?:\s*(?:\||\d?>|&>|<).*)?$",
        )
    });
    let body = LOOP.captures(command)?.get(1)?.as_str().trim();
    (!body.is_empty()).then(|| body.to_string())
}

/// Whether a command ends in a search (`… | grep x`, `… && rg -n x src`), whose exit status
/// 1 only says it found nothing.
pub(crate) fn ends_in_search(command: &str) -> bool {
    let all = segments(command);
    all.last()
        .and_then(|words| words.first())
        .is_some_and(|w| matches!(program_name(w).as_str(), "grep" | "rg" | "ag" | "egrep" | "fgrep"))
}

/// The variables `command` exports (`export PATH=…`) before its first step that does the
/// job `family` names, each step as written.
pub(crate) fn settings_before_job(command: &str, family: &str) -> Vec<String> {
    let steps: Vec<&str> = command.split(" && ").flat_map(sequential_parts).collect();
    let Some(job) = steps.iter().position(|step| classify(step).family == family) else { return Vec::new() };
    // (`set -a; . ./.env; set +a; poetry install` is one way, which no step of it tells.)
    let exports_all = |step: &&str| {
        let words = words(step);
        let short = |f: &str| (f.starts_with('-') || f.starts_with('+')) && !f.starts_with("--") && f.contains('a');
        words.first().is_some_and(|w| w == "set") && words.iter().skip(1).any(|f| short(f) || f == "allexport")
    };
    if steps[..job].iter().any(exports_all) {
        return Vec::new();
    }
    steps[..job]
        .iter()
        .filter(|step| words(step).first().is_some_and(|w| w == "export") && sets_a_setting(step))
        .map(|step| step.to_string())
        .collect()
}

/// What a search piped at the end of `command` looks for, and whether it only counts
/// (`dune build 2>&1 | grep -c 'Library "yojson" not found'`).
pub(crate) fn searched_pattern(command: &str) -> Option<(String, bool)> {
    let last = pipe_parts(command).into_iter().skip(1).last()?;
    // (`| grep -i postgres || echo 'not installed'` says what it found otherwise.)
    if last.contains("||") {
        return None;
    }
    let words = words(last);
    if !words.first().is_some_and(|w| matches!(program_name(w).as_str(), "grep" | "rg" | "egrep" | "fgrep")) {
        return None;
    }
    // (`grep -v` shows what does not match.)
    if words.iter().any(|w| w == "-v" || w == "--invert-match") {
        return None;
    }
    let counts = words.iter().any(|w| w == "-c" || w == "--count");
    let pattern = words.iter().skip(1).find(|w| !w.starts_with('-'))?;
    Some((pattern.clone(), counts))
}

/// Whether `command` ended in a count of what it looked for (`airflow dags list | grep -c
/// meuse_`) that `output` says is 0: it found none, whatever status the pipe gave. (Not a
/// count of trouble, `| grep -c ERROR`, whose 0 is the job's pass.)
pub(crate) fn counted_none(command: &str, output: &str) -> bool {
    let Some((pattern, true)) = searched_pattern(command) else { return false };
    let pattern = pattern.to_lowercase();
    let trouble = [
        "err",
        "fail",
        "warn",
        "exception",
        "panic",
        "fatal",
        "denied",
        "traceback",
        "critical",
        "not ok",
        "leak",
        "todo",
        "fixme",
        "deprecat",
    ];
    let last = output.lines().rev().map(str::trim).find(|l| !l.is_empty());
    last == Some("0") && !trouble.iter().any(|t| pattern.contains(t))
}

/// Whether a command's exit status is its answer rather than a failure: `systemctl status`
/// says 3 of a unit that is not running, `systemctl is-active` anything but 0 of one that is
/// not, `diff`, `cmp` and `test` say 1 of files that differ or a condition that is false.
pub(crate) fn status_is_an_answer(command: &str, code: Option<i64>) -> bool {
    let all = segments(command);
    let Some(last) = all.last() else { return false };
    let words: Vec<&str> = last.iter().map(String::as_str).skip_while(|w| *w == "sudo").collect();
    let program = words.first().map(|w| program_name(w)).unwrap_or_default();
    match (program.as_str(), words.get(1).copied(), code) {
        ("systemctl", Some("status"), Some(3)) => true,
        ("systemctl", Some("is-active" | "is-failed" | "is-enabled"), Some(c)) => c != 0,
        ("diff" | "cmp" | "test" | "[", _, Some(1)) => true,
        _ => false,
    }
}

/// `command` without what only trims or merges its output (`2>&1`, `| tail -2`, `| head`),
/// so a retry that shows less is the same command.
pub(crate) fn without_output_filters(command: &str) -> String {
    let mut kept: Vec<&str> = Vec::new();
    let mut words = command.split_whitespace().peekable();
    // (`sh -c 'rg --version | head -1'`: a pipe inside quotes is the inner shell's.)
    let quoted = |kept: &[&str]| kept.iter().map(|w| w.matches(['\'', '"']).count()).sum::<usize>() % 2 == 1;
    while let Some(word) = words.next() {
        let filter = words.peek().is_some_and(|next| matches!(*next, "tail" | "head" | "cat" | "less"));
        if word == "|" && filter && !quoted(&kept) {
            break;
        }
        // `> /tmp/dev.log`: where the output went is no part of the job.
        if matches!(word, ">" | ">>" | "2>" | "&>" | "2>>") {
            words.next();
            continue;
        }
        let redirected = ["&>", ">", "1>", "2>"].iter().any(|r| word.starts_with(r));
        if !redirected {
            kept.push(word);
        }
    }
    kept.join(" ")
}

/// Whether `command` is `failed` again with only some of its test files picked (`mix test
/// test/x_test.exs` after `mix test`): it ran less, and got past nothing. (A flag added,
/// `--test-options=--accept`, may be what changed.)
pub(crate) fn is_narrowed_rerun(command: &str, failed: &str) -> bool {
    // (With the same seed or another: `go test -shuffle=1733738402 ./internal/watchdog/`
    // after `go test -shuffle=on ./...`.)
    // (Of `bazel test -- //... -//e2e/...`, what it left out is no part of what it ran.)
    let (command, failed) = (as_rerun(command), as_rerun(&without_bazel_exclusions(failed)));
    let (words, failed_words) = (words(&command), words(&failed));
    let added: Vec<&String> = words.iter().filter(|w| !failed_words.contains(w)).collect();
    // (`./internal/watchdog/` is one of Go's `./...`, `//internal/queue:queue_test` one of
    // Bazel's `//...`.)
    let one_package = added.iter().any(|a| a.starts_with("./") && !a.ends_with("..."));
    let all_packages = failed_words.iter().any(|w| w == "./...");
    let one_label = added.iter().any(|a| is_bazel_label(a));
    let all_labels = failed_words.iter().any(|w| is_bazel_pattern(w));
    let kept = |w: &String| {
        words.contains(w) || (w == "./..." && one_package) || (one_label && (is_bazel_pattern(w) || w == "--"))
    };
    (is_narrowed(&command) || (all_packages && one_package) || (all_labels && one_label))
        && !is_narrowed(&failed)
        && !added.is_empty()
        && added.iter().all(|w| !w.starts_with('-') && w.contains('/'))
        && failed_words.iter().all(kept)
}

/// A Bazel target pattern that names many targets (`//...`, `//internal/...`, `//pkg:all`).
fn is_bazel_pattern(word: &str) -> bool {
    word.starts_with("//") && (word.ends_with("...") || word.ends_with(":all") || word.ends_with(":*"))
}

/// A Bazel label that names one target (`//internal/queue:queue_test`).
fn is_bazel_label(word: &str) -> bool {
    word.starts_with("//") && !is_bazel_pattern(word)
}

/// `command` without the targets a Bazel run left out (`-//e2e/...` of `bazel test --
/// //... -//e2e/...`): the task's choice of what to run.
fn without_bazel_exclusions(command: &str) -> String {
    let part = |part: &str| match segments(part).first().is_some_and(|words| runs_bazel(words)) {
        true => part.split(' ').filter(|w| !w.starts_with("-//")).collect::<Vec<_>>().join(" "),
        false => part.to_string(),
    };
    command.split(" && ").map(part).collect::<Vec<_>>().join(" && ")
}

/// True when `words` run Bazel (`bazel`, `bazelisk`).
fn runs_bazel(words: &[String]) -> bool {
    words.first().is_some_and(|p| matches!(p.rsplit('/').next(), Some("bazel" | "bazelisk")))
}

/// Whether a chain builds a binary only to try it out: a build into a named place, then that
/// place run (`go build -o bin/x ./cmd/x && ./bin/x --version`, `cargo build --release &&
/// ./target/release/x --help`). The build is the smoke test's set-up, not a way to build.
pub(crate) fn builds_to_try(command: &str) -> bool {
    let Some(parts) = and_parts(command) else { return false };
    // What the builds so far wrote, by name; `None` once a build named no place.
    let mut built: Vec<Option<String>> = Vec::new();
    for part in parts {
        let words = words(part);
        let program = words.iter().find(|w| !w.contains('=') || w.starts_with('-'));
        let program = program.map(|p| p.trim_start_matches("./")).unwrap_or_default();
        let cargo_output = program.starts_with("target/release/") || program.starts_with("target/debug/");
        if !built.is_empty() && (cargo_output || built.iter().flatten().any(|b| b == program)) {
            return true;
        }
        if classify(part).kind == CommandKind::Build {
            let named = words.windows(2).find(|w| matches!(w[0].as_str(), "-o" | "--output")).map(|w| w[1].clone());
            let named = named.or_else(|| words.iter().find_map(|w| w.strip_prefix("--output=").map(str::to_string)));
            built.push(named.map(|o| o.trim_start_matches("./").to_string()));
        }
    }
    false
}

/// Flags that only make a run say more.
const LOUD: &[&str] = &["-v", "-vv", "-vvv", "--verbose", "--debug", "-d", "--trace", "--info"];

/// `command` without the flags that only make it say more or show what failed
/// (`ctest --preset asan --output-on-failure` is `ctest --preset asan`).
pub(crate) fn without_loud_flags(command: &str) -> String {
    let words = words(command);
    let kept: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| !LOUD.contains(w) && !matches!(*w, "--output-on-failure" | "--show-output"))
        .collect();
    match kept.len() == words.len() {
        true => command.to_string(),
        false => kept.join(" "),
    }
}

/// Whether `command` is `failed` run again louder, its output cut (`timeout 60 poetry install
/// -vvv 2>&1 | tail -n 5` after `timeout 120 poetry install` hung): a look at why, whose
/// status is the filter's, not the job's.
pub(crate) fn is_louder_rerun(command: &str, failed: &str) -> bool {
    fn core(command: &str) -> Vec<String> {
        let mut words = words(&without_output_filters(command));
        if words.first().is_some_and(|w| w == "timeout") {
            words.drain(..words.len().min(2));
        }
        words.retain(|w| !LOUD.contains(&w.as_str()) && w != "2>&1");
        words
    }
    let piped = without_output_filters(command) != command.split_whitespace().collect::<Vec<_>>().join(" ");
    let louder = words(command).iter().any(|w| LOUD.contains(&w.as_str()) && !words(failed).contains(w));
    piped && louder && !core(failed).is_empty() && core(command) == core(failed)
}

/// Flags that pick some of the tests (by name, tag or category): the task's choice of what to
/// check, not part of the way to test the project.
const NARROWING_FLAGS: &[&str] = &[
    "--filter",
    "-k",
    "-run",
    "-t",
    "--test-name-pattern",
    "--testNamePattern",
    "--grep",
    "--grep-invert",
    "-g",
    "--tests",
    "--only",
    "--match",
    "--tags",
    "--exclude-tags",
    "--exclude-tag",
    "--testPathPattern",
    // Maven's (`-Dtest=InvoiceRoundingTest`, and the switch that lets a module without it pass).
    "-Dtest",
    "-Dit.test",
    "-Dsurefire.failIfNoSpecifiedTests",
    "-DfailIfNoTests",
];

/// Maven's switches that leave a kind of test out (`-DskipITs`): in a test run, the task's
/// pick of tests. (`mvn -DskipTests package` builds, and stays as it is.)
const SKIP_SWITCHES: &[&str] = &["-DskipITs", "-DskipTests", "-Dmaven.test.skip"];

/// Flags that set the order or the seed of one run (`go test -shuffle=1733738402 -count=1`,
/// `pytest -p randomly --randomly-seed 42`): the same tests, run as another run would.
const SEED_FLAGS: &[&str] =
    &["-shuffle", "-test.shuffle", "--seed", "-seed", "--randomly-seed", "--random-seed", "--order", "-initialSeed"];

/// True when a command leaves a process running in the background (`uv run uvicorn app:app
/// --port 8000 &`, `docker compose up -d`): whatever it holds, the session holds.
pub(crate) fn starts_in_background(command: &str) -> bool {
    let words = words(command);
    let detached = words.iter().any(|w| w == "-d" || w == "--detach")
        && words.first().is_some_and(|p| matches!(p.as_str(), "docker" | "podman" | "docker-compose"))
        && words.iter().any(|w| w == "run" || w == "up");
    runs_in_background(command) || detached
}

/// `command` without the seed it pinned for one run (`-shuffle=1733738402`; `-shuffle=on`
/// stays, a way to run).
pub(crate) fn without_seeds(command: &str) -> String {
    without_flags_if(command, SEED_FLAGS, |value| value.contains(|c: char| c.is_ascii_digit()))
}

/// `command` as a rerun of the same tests reads it: without its order, seed or cache
/// switch (`go test -shuffle=1733738402 -count=1` reruns `go test -shuffle=on`).
pub(crate) fn as_rerun(command: &str) -> String {
    // (An order fixed, `--order defined` or `-shuffle=off`, is another way to run: it stays.)
    let random = |value: &str| !matches!(value, "off" | "defined" | "none" | "false");
    without_flags(&without_flags_if(command, SEED_FLAGS, random), &["-count"])
}

/// Flags that run a failed test again before calling it failed: a run that passes with them
/// says the test is flaky, not that anything was fixed.
const RETRY_FLAGS: &[&str] = &["--retries", "--retry", "--reruns", "--flaky-retries", "--max-retries", "--retry-count"];

/// `command` without the flags that pick some of the tests, and their values (`dotnet test
/// --filter "Category!=Integration"` is `dotnet test`): what a failure about the machine
/// says of every run of the job, whichever tests the task picked.
pub(crate) fn without_narrowing(command: &str) -> String {
    // Only a test run's own parts, and a JVM build's: `stow -t ~ tmux` or `docker build -t
    // app .` picks no tests, nor does `bash -x run.sh` skip anything.
    let parts: Vec<String> = command
        .split(" && ")
        .map(|part| {
            let words = segments(part).into_iter().next().unwrap_or_default();
            let gradle = runs_gradle(&words);
            let jvm = gradle || words.first().is_some_and(|p| matches!(p.rsplit('/').next(), Some("mvn" | "mvnw")));
            let runs_tests = classify(part).kind == CommandKind::Test
                || words.iter().any(|w| TEST_RUNNERS.contains(&w.rsplit('/').next().unwrap_or(w)));
            let part = match jvm || runs_tests {
                true => without_flags(part, NARROWING_FLAGS),
                false => part.to_string(),
            };
            let part = match classify(&part).kind == CommandKind::Test {
                true => without_flags(&part, SKIP_SWITCHES),
                false => part,
            };
            let part = without_bazel_exclusions(&part);
            // (`terraform plan -target=module.storage -out=exports.tfplan`: some resources, and
            // the task's own plan file.)
            let terraform = matches!(classify(&part).program.as_str(), "terraform" | "tofu");
            let part = if terraform { without_flags(&part, &["-target", "-out"]) } else { part };
            if gradle { without_flags(&part, GRADLE_SKIPS) } else { part }
        })
        .collect();
    parts.join(" && ")
}

/// Words that name a test runner, however it is wrapped (`yarn jest -t login`, `nix develop
/// -c pytest -k slow`, `hatch run test -k slow`).
const TEST_RUNNERS: &[&str] = &[
    "test",
    "tests",
    "jest",
    "vitest",
    "pytest",
    "mocha",
    "rspec",
    "phpunit",
    "pest",
    "ctest",
    "nextest",
    "bats",
    "busted",
    "prove",
    "ava",
    "playwright",
    "cypress",
    "karma",
    "minitest",
    "exunit",
];

/// Gradle's flags that leave a task out (`./gradlew build -x detekt`): a check skipped for
/// the task at hand, not part of the way to build.
const GRADLE_SKIPS: &[&str] = &["-x", "--exclude-task"];

/// True when `words` run Bazel's tests (`bazel test`, `bazelisk test`).
fn runs_bazel_tests(words: &[String]) -> bool {
    runs_bazel(words) && words.iter().skip(1).find(|w| !w.starts_with('-')).is_some_and(|w| w == "test")
}

/// True when `words` run Gradle (`gradle`, `./gradlew`).
fn runs_gradle(words: &[String]) -> bool {
    words.first().is_some_and(|program| matches!(program.rsplit('/').next(), Some("gradle" | "gradlew")))
}

/// `command` without the flags that retry failed tests, and their values.
pub(crate) fn without_retries(command: &str) -> String {
    without_flags(command, RETRY_FLAGS)
}

/// `command` without `flags` and their values (the word after `=`, else the next word, to
/// the end of its quotes; a JVM switch without `=`, `-DskipITs`, has none).
fn without_flags(command: &str, flags: &[&str]) -> String {
    without_flags_if(command, flags, |_| true)
}

/// [`without_flags`], of the flags whose value `drop` holds to go.
fn without_flags_if(command: &str, flags: &[&str], drop: impl Fn(&str) -> bool) -> String {
    let mut kept: Vec<String> = Vec::new();
    let mut parts = command.split(' ').peekable();
    while let Some(part) = parts.next() {
        let flag = part.split_once('=').map_or(part, |(flag, _)| flag);
        if !flags.contains(&flag) {
            kept.push(part.to_string());
            continue;
        }
        // (A JVM property without `=`, `-DskipITs`, is a switch: it takes no value.)
        let (mut value, mut words) = if part.contains('=') {
            (part.split_once('=').map_or("", |(_, v)| v).to_string(), vec![part.to_string()])
        } else if part.starts_with("-D") {
            (String::new(), vec![part.to_string()])
        } else {
            let value = parts.next().unwrap_or_default().to_string();
            (value.clone(), vec![part.to_string(), value])
        };
        while open_quote(&value)
            && let Some(more) = parts.next()
        {
            value.push(' ');
            value.push_str(more);
            words.push(more.to_string());
        }
        if !drop(&value) {
            kept.extend(words.into_iter().filter(|w| !w.is_empty()));
        }
    }
    kept.join(" ")
}

/// True when `text` opens a quote it does not close.
fn open_quote(text: &str) -> bool {
    ['"', '\''].iter().any(|q| text.starts_with(*q) && (text.len() == 1 || !text.ends_with(*q)))
}

/// Whether a command checks one test or one file (`swift test --filter RetryTests`, `npx jest
/// src/export.test.js`, `pytest tests/test_a.py::test_b`): the task's own check of what it
/// wrote, not the way to test the project.
pub(crate) fn is_narrowed(command: &str) -> bool {
    segments(command).iter().any(|words| {
        words.iter().skip(1).any(|w| {
            let flag = w.split_once('=').map_or(w.as_str(), |(flag, _)| flag);
            let test_file = (w.contains('/') || w.contains('.'))
                && !w.starts_with('-')
                && (w.contains("test") || w.contains("spec"))
                && !w.ends_with("/...")
                && w.rsplit('/').next().is_some_and(|last| {
                    // (`nox -s tests-3.12` names a session: a version is no extension.)
                    let extension = last.rsplit_once('.').is_some_and(|(_, ext)| ext.starts_with(char::is_alphabetic));
                    extension || last.contains("::")
                });
            // `test/cart`: one folder of the tests, not all of them.
            let test_folder = !w.starts_with('-')
                && ["test/", "tests/", "spec/", "specs/"].iter().any(|root| {
                    w.strip_prefix(root)
                        .is_some_and(|rest| !rest.trim_end_matches('/').is_empty() && !rest.contains("..."))
                });
            // (`stack test --ta '--match "renderStatsJson"'` passes the flag on to the tests.)
            let passed_on = w.contains(' ')
                && w.split_whitespace().next().is_some_and(|inner| {
                    NARROWING_FLAGS.contains(&inner.split_once('=').map_or(inner, |(flag, _)| flag))
                });
            // (`bazel test //internal/queue:queue_test`, `bazel test -- //... -//e2e/...`.)
            let bazel_pick = runs_bazel_tests(words) && (is_bazel_label(w) || w.starts_with("-//"));
            let skips =
                SKIP_SWITCHES.contains(&flag) && classify_segment(words).is_some_and(|c| c.kind == CommandKind::Test);
            NARROWING_FLAGS.contains(&flag)
                || bazel_pick
                || skips
                || passed_on
                || (runs_gradle(words) && GRADLE_SKIPS.contains(&flag))
                || flag.starts_with("-Dtest")
                || w.contains("::")
                || test_file
                || test_folder
        }) || cargo_filtered(words)
            || checks_one_file(words)
    })
}

/// A formatter or a linter run on one file (`terraform fmt envs/staging/s3.tf`, `ruff check
/// src/app.py`): the tidying of what the task touched. (A flag's value, `helm lint chart -f
/// values.yaml`, is no file it checks.)
fn checks_one_file(words: &[String]) -> bool {
    let tidies = classify_segment(words).is_some_and(|c| matches!(c.kind, CommandKind::Format | CommandKind::Lint));
    // (A solution, a project file, a dotted folder or module is the whole of it.)
    let one_file = |w: &String| {
        let last = w.rsplit('/').next().unwrap_or(w);
        !w.starts_with(['-', '+']) && !w.contains(['*', '?', '{', '=']) && progress::is_source(last)
    };
    tidies && words.windows(2).any(|pair| !pair[0].starts_with('-') && one_file(&pair[1]))
}

/// A cargo test or bench run narrowed to a name (`cargo test parse`, `cargo bench --bench
/// parse -- bench_parse`) or to one target (`--test cli`, `--bench parse`).
fn cargo_filtered(words: &[String]) -> bool {
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let ["cargo", sub, rest @ ..] = words.as_slice() else { return false };
    if !matches!(*sub, "test" | "bench") {
        return false;
    }
    let mut valued = false;
    rest.iter().any(|w| {
        let takes_value = matches!(
            *w,
            "--test"
                | "--bench"
                | "--example"
                | "--bin"
                | "-p"
                | "--package"
                | "--features"
                | "-F"
                | "--target"
                | "--profile"
                | "-j"
                | "--jobs"
                | "--manifest-path"
                | "--target-dir"
        );
        let narrowing = matches!(*w, "--test" | "--bench") || (!w.starts_with('-') && !valued);
        valued = takes_value;
        narrowing
    })
}

/// Whether a command only asks about the state of things (`git log`, `pip show x`, `helm
/// list`, `cat f`): every segment that does something looks around or queries. Such a command
/// is not a step of a fix, though its failure may still be a landmine.
pub(crate) fn is_query(command: &str) -> bool {
    let mut any = false;
    for words in segments(command) {
        let Some(classified) = classify_segment(&words) else { continue };
        any = true;
        // (`git -C ~/src/vcpkg rev-parse …`: an option's value is no sub-command.)
        let valued = |i: usize| i > 0 && matches!(words[i - 1].as_str(), "-C" | "-c" | "--git-dir" | "--work-tree");
        let positional: Vec<&str> = (1..words.len())
            .filter(|&i| !words[i].starts_with('-') && !valued(i))
            .take(3)
            .map(|i| words[i].as_str())
            .collect();
        // (`cargo nextest --version`: a plugin asked what it is.)
        let version = positional.len() <= 1 && words[1..].iter().any(|w| w == "--version");
        let asks = version
            || only_reads_a_database(&words)
            || match positional.as_slice() {
                // `ssh -T git@github.com` only tries whether the key is let in.
                [_, rest @ ..] if words[0] == "ssh" && words.iter().any(|w| w == "-T") => {
                    rest.iter().all(|w| w.contains('>'))
                }
                // `npm run list` runs a script of that name.
                ["run" | "exec" | "x" | "dlx", ..] => false,
                [first, ..] if classified.kind == CommandKind::Vcs => {
                    VCS_QUERIES.contains(first) || QUERY_SUBCOMMANDS.contains(first)
                }
                [first, rest @ ..] => is_query_word(first) || rest.iter().any(|w| is_query_word(w)),
                // `nix --version`, `terraform -help`: the program says what it is.
                [] => words[1..].iter().any(|w| matches!(w.as_str(), "--version" | "--help" | "-help" | "-h")),
            };
        if classified.kind != CommandKind::Explore && !asks {
            return false;
        }
    }
    any
}

/// True when a command asks a database client a question that changes nothing (`psql -c
/// "select …"`, `mysql -e 'SHOW CREATE TABLE accounts\G'`, `sqlite3 app.db '.schema'`), run
/// here or in a container (`docker compose exec -T mysql mysql … -e …`).
fn only_reads_a_database(words: &[String]) -> bool {
    // (`PGPASSWORD=… psql …`, `sudo -u postgres psql …`: the client past what sets it up.)
    let mut words = words;
    loop {
        words = match words {
            [word, rest @ ..] if word == "sudo" || (word.contains('=') && !word.starts_with('-')) => rest,
            [flag, _user, rest @ ..] if flag == "-u" => rest,
            _ => break,
        };
    }
    let program = words.first().map(|w| program_name(w)).unwrap_or_default();
    if matches!(program.as_str(), "docker" | "podman" | "docker-compose" | "podman-compose") {
        return in_container(words).is_some_and(only_reads_a_database);
    }
    // (A script given as well, `psql -f seed.sql -c 'select …'`, does something.)
    let scripted = words.iter().any(|w| matches!(w.as_str(), "-f" | "--file") || w.starts_with("--file="));
    let queries = match program.as_str() {
        "psql" => values_of(words, &["-c", "--command"]),
        "mysql" | "mariadb" => values_of(words, &["-e", "--execute"]),
        // (`sqlite3 app.db 'select …'`: the query follows the database.)
        "sqlite3" | "duckdb" => {
            words.iter().skip(1).filter(|w| !w.starts_with('-')).nth(1).map(String::as_str).into_iter().collect()
        }
        _ => Vec::new(),
    };
    // What a SELECT may still do: move a sequence, end a session, take a lock, write a table
    // or a file; and EXPLAIN ANALYZE runs what it explains.
    static ACTS: LazyLock<Regex> = LazyLock::new(|| {
        patterns::regex(
            r"(?i)\binto\b|\b(?:setval|nextval|pg_terminate_backend|pg_cancel_backend|pg_advisory\w*|pg_reload_conf)\b|^explain\s+(?:\(\s*)?analy[sz]e",
        )
    });
    !scripted
        && !queries.is_empty()
        && queries.iter().all(|query| {
            let statements: Vec<&str> = query
                .split([';', '\n'])
                .map(|s| s.trim().trim_end_matches("\\G").trim())
                .filter(|s| !s.is_empty())
                .collect();
            !statements.is_empty()
                && statements.iter().all(|statement| {
                    let first = statement.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
                    let reads = matches!(first.as_str(), "select" | "show" | "describe" | "desc" | "explain")
                        || first.starts_with("\\d")
                        || matches!(first.as_str(), "\\l" | "\\dt+" | "\\du")
                        || first.starts_with(".schema")
                        || first.starts_with(".tables")
                        || (first == "pragma" && !statement.contains('='));
                    reads && !ACTS.is_match(statement)
                })
        })
}

/// The values of every one of `flags` in `words` (`-c "select 1"`, `--command=select 1`).
fn values_of<'a>(words: &'a [String], flags: &[&str]) -> Vec<&'a str> {
    words
        .iter()
        .enumerate()
        .filter_map(|(i, word)| {
            if flags.contains(&word.as_str()) {
                return words.get(i + 1).map(String::as_str);
            }
            flags.iter().filter(|f| f.starts_with("--")).find_map(|f| word.strip_prefix(*f)?.strip_prefix('='))
        })
        .collect()
}

/// The command a `docker exec` or `docker compose exec` runs in its container, past the
/// options and the container's or service's name.
fn in_container(words: &[String]) -> Option<&[String]> {
    let compose = words.first().is_some_and(|w| w.ends_with("-compose"));
    let at = match (compose, words.get(1).map(String::as_str), words.get(2).map(String::as_str)) {
        (true, Some("exec"), _) => 2,
        (false, Some("compose"), Some("exec")) | (false, Some("container"), Some("exec")) => 3,
        (false, Some("exec"), _) => 2,
        _ => return None,
    };
    // Options that take a value: a user, a folder, a variable, an index.
    const VALUED: &[&str] = &["-u", "--user", "-w", "--workdir", "-e", "--env", "--env-file", "--index"];
    let mut i = at;
    while let Some(word) = words.get(i) {
        if VALUED.contains(&word.as_str()) {
            i += 2;
        } else if word.starts_with('-') {
            i += 1;
        } else {
            // (The container's or service's name, then its command.)
            return words.get(i + 1..).filter(|rest| !rest.is_empty());
        }
    }
    None
}

/// True for a sub-command that only reports: one of [`QUERY_SUBCOMMANDS`], or one named for
/// what it lists or describes (`aws configure list-profiles`, `aws ec2 describe-instances`).
fn is_query_word(word: &str) -> bool {
    // (`make migrate-version`, `rails db:migrate:status`: a target that says where things stand.)
    QUERY_SUBCOMMANDS.contains(&word)
        || ["list-", "describe-"].iter().any(|p| word.starts_with(p))
        || (["-version", "-status", ":version", ":status"].iter().any(|s| word.len() > s.len() && word.ends_with(s))
            && !["set-", "bump-", "update-", "next-"].iter().any(|p| word.starts_with(p)))
}

/// Sub-commands that only report (`npm ls`, `kubectl get`, `ansible-galaxy collection list`).
const QUERY_SUBCOMMANDS: &[&str] = &[
    "list",
    "ls",
    "show",
    "info",
    "status",
    "get",
    "describe",
    "view",
    "search",
    "outdated",
    "why",
    "explain",
    "inspect",
    "ps",
    "images",
    "logs",
    "freeze",
    "tree",
    "metadata",
    "doctor",
    "which",
    "version",
    "--version",
    "port",
];

/// What a version-control tool answers without changing anything.
const VCS_QUERIES: &[&str] = &[
    "log",
    "diff",
    "blame",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "grep",
    "reflog",
    "shortlog",
    "remote",
    "check-ignore",
    "check-attr",
    "cat-file",
    "show-ref",
];

/// The segment of a compound line that does its job (`npm test` of `node bin/x.js export
/// --dry-run && npm test`), when the line has more than one segment that does something;
/// `None` for a simple line. A `cd` before it and a pager after it are not segments that do
/// something.
pub(crate) fn main_segment(command: &str) -> Option<String> {
    let doing: Vec<(Vec<String>, Classified)> = segments(command)
        .into_iter()
        .filter_map(|words| classify_segment(&words).map(|c| (words, c)))
        .filter(|(_, c)| c.kind != CommandKind::Explore)
        .collect();
    if doing.len() < 2 {
        return None;
    }
    let best = doing.iter().max_by_key(|(_, c)| c.kind.priority())?;
    let mut words: Vec<&str> = Vec::new();
    let mut target_next = false;
    for word in best.0.iter().map(String::as_str) {
        let redirect = word.starts_with(['>', '<']) || word.contains(">&") || word.starts_with("2>") || word == "&>";
        // `> /tmp/dev.log`: the file after a lone redirection is where output went.
        if redirect || std::mem::take(&mut target_next) {
            target_next = redirect && word.trim_start_matches(['2', '&', '>', '<']).is_empty();
            continue;
        }
        words.push(word);
    }
    Some(words.join(" "))
}

/// The name a command's program prints its messages under (`install.sh` for
/// `./scripts/install.sh --adopt`), after settings and prefixes.
pub(crate) fn program_of(command: &str) -> Option<String> {
    let first = program_word(command)?;
    Some(first.rsplit('/').next().unwrap_or(&first).to_string())
}

/// The program of the segment of `command` that does the job `family` names (`buf` of
/// `go install … && buf generate`), or else of its first segment.
pub(crate) fn program_of_job(command: &str, family: &str) -> Option<String> {
    let jobs = segments(command);
    let job = jobs.iter().rev().find(|words| task_families(words).iter().any(|f| f == family));
    match job {
        Some(words) if jobs.len() > 1 => {
            program_in(words).map(|word| word.rsplit('/').next().unwrap_or(word).to_string())
        }
        _ => program_of(command),
    }
}

/// The word that names the program of a command's first segment, as written, past settings
/// and prefixes (`.venv/bin/python` of `PYTHONPATH=. .venv/bin/python -m pytest`).
fn program_word(command: &str) -> Option<String> {
    program_in(&segments(command).into_iter().next()?).cloned()
}

/// The word of a segment's words that names its program, past settings and prefixes.
fn program_in(words: &[String]) -> Option<&String> {
    words.iter().find(|w| (w.starts_with('-') || !w.contains('=')) && !PREFIX_COMMANDS.contains(&w.as_str()))
}

/// The steps a chain runs before the segment that does the job `family` names (`docker
/// compose up -d db` of `docker compose up -d db && sleep 3 && mix test`): with `&&`, each of
/// them succeeded when the job ran at all. Waits, moves and looks around are no steps.
pub(crate) fn steps_before_job(command: &str, family: &str) -> Vec<String> {
    let parts: Vec<&str> = command.split(" && ").map(str::trim).collect();
    // (`stow -R zsh zsh-prompt` does the job of `stow zsh-prompt`: the same program, other
    // words after it.)
    let program = family.split(' ').next().unwrap_or_default();
    let same_program = |p: &&str| !program.is_empty() && classify(p).program == program;
    let Some(job) = parts.iter().position(|p| runs_job(p, family)).or_else(|| parts.iter().rposition(same_program))
    else {
        return Vec::new();
    };
    parts[..job]
        .iter()
        .filter(|p| {
            let kind = classify(p).kind;
            // (`git add nix/devshell.nix` puts a file where the tool reads the tree; `git
            // status` only looks, and a pull or a checkout changes more than a step.)
            let stages =
                words(p).get(..2).is_some_and(|w| w[0] == "git" && matches!(w[1].as_str(), "add" | "rm" | "mv"));
            let vcs_change = kind == CommandKind::Vcs && stages;
            let step = !classify(p).family.is_empty()
                && (vcs_change || !matches!(kind, CommandKind::Explore | CommandKind::Vcs));
            step || writes_a_file(p) || sets_a_setting(p)
        })
        .map(|p| p.to_string())
        .collect()
}

/// True when a command only evaluates a line of code given to an interpreter (`python3 -c
/// 'print(2**10)'`, `node -e '…'`, `echo '2^16' | bc`): a sum worked out, no way to do a job.
pub(crate) fn is_inline_eval(command: &str) -> bool {
    let all = segments(command);
    !all.is_empty()
        && all.iter().all(|words| {
            // (`bundle exec ruby -Ilib -e '…'` evaluates as `ruby -e` does.)
            let runner = matches!(
                words.get(..2).map(|w| [w[0].as_str(), w[1].as_str()]),
                Some(["bundle" | "poetry" | "uv" | "pipenv" | "pdm" | "hatch" | "rye" | "carton", "exec" | "run"])
            );
            let words = &words[if runner { 2 } else { 0 }..];
            let program = words.first().map(|w| w.rsplit('/').next().unwrap_or(w)).unwrap_or_default();
            let interpreter =
                ["python", "python3", "node", "ruby", "perl", "php", "lua", "bun", "deno", "Rscript", "julia"]
                    .contains(&program)
                    || program.starts_with("python3.");
            // (The code comes first: `python3 scripts/gen.py -c cfg.yml` runs a script.)
            let evaluates = words
                .iter()
                .skip(1)
                .take_while(|w| w.starts_with('-') || w.as_str() == "eval")
                .any(|w| matches!(w.as_str(), "-c" | "-e" | "-p" | "--eval" | "--print" | "eval"));
            (interpreter && evaluates) || matches!(program, "bc" | "expr" | "echo" | "printf" | "qalc" | "units")
        })
}

/// True when a command only evaluates a line of code that prints something (`bundle exec
/// ruby -Ilib -e 'require "prespa"; puts Prespa::VERSION'`, `python -c 'import x;
/// print(x.__version__)'`): a look at the work, no step of a way around. (`python -c
/// "import nltk; nltk.download('punkt')"` does something.)
pub(crate) fn only_prints(command: &str) -> bool {
    static PRINTS: LazyLock<Regex> =
        LazyLock::new(|| patterns::regex(r"\b(?:print|puts|pp|p|console\.log|say|echo|IO\.puts|println|var_dump)\b"));
    static DOES: LazyLock<Regex> = LazyLock::new(|| {
        patterns::regex(
            r"(?i)download|install|setup|create|write|mkdir|init|migrate|seed|save|dump|delete|remove|unlink|open\(|system\(|subprocess|exec\(",
        )
    });
    // (`echo 'APP_URL=…' >> .env.local` writes a setting.)
    is_inline_eval(command) && PRINTS.is_match(command) && !DOES.is_match(command) && !writes_a_file(command)
}

/// True when a command starts a service in the background (`docker compose --profile
/// backing up -d`, `brew services start postgresql@16`, `systemctl --user start redis`,
/// `pg_ctl -D … start`): what a refused connection asks for.
pub(crate) fn starts_a_service(command: &str) -> bool {
    segments(command).iter().any(|words| {
        let words: Vec<&str> = words
            .iter()
            .map(String::as_str)
            .skip_while(|w| *w == "sudo" || (w.contains('=') && !w.starts_with('-')))
            .collect();
        let positional: Vec<&str> = words.iter().copied().filter(|w| !w.starts_with('-')).collect();
        let detached = words.iter().any(|w| matches!(*w, "-d" | "--detach" | "-d=true"));
        match positional.as_slice() {
            ["docker" | "podman", "compose", ..] | ["docker-compose" | "podman-compose", ..] => {
                positional.iter().any(|w| matches!(*w, "up" | "start" | "restart"))
            }
            ["docker" | "podman", "start" | "restart", ..] => true,
            ["docker" | "podman", "run", ..] => detached,
            ["brew", "services", "start" | "restart" | "run", ..] => true,
            ["systemctl", ..] => positional.get(1).is_some_and(|w| matches!(*w, "start" | "restart")),
            ["service", _, "start" | "restart", ..] => true,
            ["pg_ctl" | "pg_ctlcluster", ..] => positional.iter().any(|w| matches!(*w, "start" | "restart")),
            ["colima" | "minikube", "start", ..] => true,
            _ => false,
        }
    })
}

/// The flags and settings `attempt` added to the job `failed` ran (`--no-system-ghc` of
/// `stack --no-system-ghc test` after `stack test`; `--features fts5` of `cargo test
/// --features fts5`), each a flag with its value, as written: nothing when the attempt ran
/// another job, took words out or added a word of another kind. A flag that only makes the
/// run say more (`-v`) is none of them.
pub(crate) fn added_options(failed: &str, attempt: &str) -> Vec<String> {
    let (failed, attempt) = (job_line(failed), job_line(attempt));
    if !runs_the_same(&attempt, &failed) {
        return Vec::new();
    }
    let before: Vec<&str> = failed.split(' ').collect();
    let after: Vec<&str> = attempt.split(' ').collect();
    if before.iter().any(|w| !after.contains(w)) {
        return Vec::new();
    }
    let is_option = |w: &str| (w.starts_with('-') && w.len() > 1) || (w.contains('=') && !w.starts_with('='));
    // (A word after a flag is its value only when it reads as one, `.env.test`, `fts5`:
    // `integration` after `--release` is a test filter.)
    let value_like = |w: &str| w.contains(['.', '/', ':']) || w.bytes().any(|b| b.is_ascii_digit());
    let mut groups: Vec<String> = Vec::new();
    for (i, word) in after.iter().enumerate().filter(|(_, w)| !before.contains(w)) {
        let flag_before =
            i > 0 && is_option(after[i - 1]) && !after[i - 1].contains('=') && !before.contains(&after[i - 1]);
        match (is_option(word), flag_before && value_like(word)) {
            (true, _) => groups.push(word.to_string()),
            (false, true) => {
                if let Some(group) = groups.last_mut() {
                    group.push(' ');
                    group.push_str(word);
                }
            }
            (false, false) => return Vec::new(),
        }
    }
    groups.retain(|group| !without_loud_flags(&format!("x {group}")).trim().eq("x"));
    groups
}

/// `command` without `group` (`--features fts5`) where its words stand together.
pub(crate) fn without_group(command: &str, group: &str) -> String {
    let words: Vec<&str> = command.split(' ').collect();
    let gone: Vec<&str> = group.split(' ').collect();
    match words.windows(gone.len()).position(|window| window == gone.as_slice()) {
        Some(at) => words[..at].iter().chain(&words[at + gone.len()..]).copied().collect::<Vec<_>>().join(" "),
        None => command.to_string(),
    }
}

/// The words of the step of `command` that does the job `family` names (`bundle install` of
/// `sleep 60; bundle install | tail -3`), without what trims its output.
pub(crate) fn job_step_words(command: &str, family: &str) -> Option<Vec<String>> {
    let part =
        command.split(" && ").flat_map(sequential_parts).filter(|part| classify(part).family == family).last()?;
    Some(words(&without_output_filters(part)))
}

/// `command` without the looks it took on the way (`df -h /home | tail -1; uv python
/// install 3.12` is the install), unless it only looks.
pub(crate) fn without_looks(command: &str) -> String {
    let looks = |part: &str| is_a_look(part);
    let kept: Vec<String> = sequential_parts(command)
        .into_iter()
        .map(|part| part.split(" && ").map(str::trim).filter(|p| !looks(p)).collect::<Vec<_>>().join(" && "))
        .filter(|part| !part.is_empty())
        .collect();
    if kept.is_empty() { command.to_string() } else { kept.join("; ") }
}

/// True when every step of `command` only looks (`getent hosts proxy.golang.org; go env
/// GOPROXY`): it changed nothing a failure could get past by.
pub(crate) fn only_looks(command: &str) -> bool {
    let parts = sequential_parts(command);
    !parts.is_empty() && parts.iter().all(|part| part.split(" && ").map(str::trim).all(is_a_look))
}

/// True when every part of `command` but the job of `family` only looks or waits
/// (`curl -sI https://repo.hex.pm/… | head -1; sleep 20; gleam test`).
pub(crate) fn only_waits_and_looks_before(command: &str, family: &str) -> bool {
    steps_of(command)
        .into_iter()
        .filter(|part| classify(part).family != family)
        .all(|part| is_a_look(part) || program_of(part).is_some_and(|program| program == "sleep"))
}

/// True when `step` only restarts what was running, clears what a tool keeps, waits or looks
/// (`sudo systemctl restart docker && sleep 2 && docker version`): it sets nothing up.
pub(crate) fn only_restarts(step: &str) -> bool {
    let restarts =
        |part: &str| starts_a_service(part) && words(part).iter().any(|w| w == "restart") && segments(part).len() == 1;
    let parts = steps_of(step);
    parts.iter().any(|part| restarts(part) || clears_all(part, &mut Vec::new()))
        && parts.iter().all(|part| {
            restarts(part)
                || clears_all(part, &mut Vec::new())
                || is_a_look(part)
                || program_of(part).is_some_and(|program| program == "sleep")
        })
}

/// A step that only looks: a reader, or `go env` printing a setting, writing no file.
fn is_a_look(part: &str) -> bool {
    let words = words(part);
    // (`go env GOPROXY` prints a setting; `go env -w` writes one.)
    // (So does `npm config get ignore-scripts`.)
    let prints_a_setting = (words.get(..2).is_some_and(|w| w[0] == "go" && w[1] == "env")
        && !words.iter().any(|w| w == "-w" || w == "-u"))
        || words.get(1..3).is_some_and(|w| {
            // (`kubectl config get-contexts`, `kubectl config current-context`: a query by a
            // hyphened verb.)
            let query = |verb: &str| {
                matches!(verb, "get" | "list" | "ls" | "view")
                    || verb.starts_with("get-")
                    || verb.starts_with("current-")
            };
            (w[0] == "config" && query(&w[1]))
                // (`pnpm store path`, `pip cache dir` print where a tool keeps things.)
                || (w[0] == "store" && w[1] == "path")
                || (w[0] == "cache" && w[1] == "dir")
        });
    // (`docker system df`, `docker ps`: what the engine holds.)
    let docker_look = words.first().is_some_and(|p| matches!(p.as_str(), "docker" | "podman"))
        && words.get(1..).is_some_and(|rest| {
            matches!(rest, [sub, ..] if matches!(sub.as_str(), "ps" | "images" | "info" | "version" | "inspect"))
                || matches!(rest, [a, b, ..] if matches!((a.as_str(), b.as_str()), ("system", "df") | ("image" | "container" | "volume" | "network", "ls")))
        });
    // (`find … -exec chmod +x {} \;` acts on what it finds.)
    let acts = words.first().is_some_and(|p| p == "find")
        && words.iter().any(|w| matches!(w.as_str(), "-exec" | "-execdir" | "-delete" | "-ok" | "-okdir"));
    // (`ocaml -version`, `java -version`: the old single-dash way to ask a version; `opam
    // switch show`, `rustup toolchain list`: what a tool holds, asked by noun and query.)
    let asks = match words.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        [_, "-version"] => true,
        // (`systemctl is-active docker`, `sudo systemctl status nginx`: how a unit stands.)
        // (`direnv status`: which `.envrc` it found, and whether it is allowed.)
        ["direnv", "status", ..] => true,
        ["systemctl", verb, ..] | ["sudo", "systemctl", verb, ..] => {
            matches!(*verb, "status" | "is-active" | "is-enabled" | "is-failed" | "show" | "list-units" | "list-timers")
        }
        [_, noun, query] => {
            matches!(
                *noun,
                "switch"
                    | "toolchain"
                    | "toolchains"
                    | "plugin"
                    | "plugins"
                    | "env"
                    | "envs"
                    | "python"
                    | "services"
                    | "workspace"
                    | "state"
                    | "stash"
                    | "remote"
                    | "submodule"
                    | "worktree"
                    | "auth"
                    | "config"
                    | "component"
                    | "target"
                    | "context"
                    | "repo"
                    | "sdk"
                    | "java"
                    | "node"
            ) && matches!(*query, "list" | "ls" | "show" | "status" | "current")
        }
        _ => false,
    };
    (classify(part).kind == CommandKind::Explore
        || prints_a_setting
        || docker_look
        || asks
        || asks_what_is_installed(part))
        && !writes_a_file(part)
        && !acts
}

/// Programs whose `-v` alone prints their version (for most others it is verbose).
const VERSION_BY_V: &[&str] = &[
    "node",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "deno",
    "ruby",
    "bundle",
    "bundler",
    "gem",
    "php",
    "composer",
    "perl",
    "make",
    "docker",
    "terraform",
    "tofu",
    "elixir",
    "mix",
    "gcc",
    "g++",
    "clang",
];

/// True when `part` asks what a package manager or git has, changing nothing: `git config
/// --get core.autocrlf`, `apt-cache policy biber`, `dpkg -l libxml2`, `pkg-config --modversion
/// libxml-2.0`, `pip show pyspark`, `gem list webrick`.
fn asks_what_is_installed(part: &str) -> bool {
    // (Only the first command of a pipeline, with filters after it: `dpkg -s x || sudo apt-get
    // install x` installs.)
    let all = segments(part);
    let Some((first, rest)) = all.split_first() else { return false };
    if !rest.iter().all(|words| classify_segment(words).is_none_or(|c| c.kind == CommandKind::Explore)) {
        return false;
    }
    let w: Vec<&str> = first.iter().map(String::as_str).collect();
    let flags = |set: &[&str]| w.iter().skip(1).any(|a| set.contains(a));
    match w.as_slice() {
        ["git", "config", rest @ ..] => {
            let reads = ["--get", "--get-all", "--get-regexp", "--list", "-l"];
            let writes = ["--unset", "--unset-all", "--add", "--replace-all", "--edit", "-e", "--remove-section"];
            // (`git config core.compression -1` sets a value that looks like a flag.)
            let value = |a: &str| !a.starts_with('-') || a[1..].parse::<i64>().is_ok();
            let plain: Vec<&&str> = rest.iter().filter(|a| value(a)).collect();
            !rest.iter().any(|a| writes.contains(a)) && (rest.iter().any(|a| reads.contains(a)) || plain.len() == 1)
        }
        ["dpkg-query" | "pkg-config", ..] => true,
        [
            "apt-cache",
            "policy" | "show" | "showpkg" | "search" | "madison" | "depends" | "rdepends" | "pkgnames",
            ..,
        ] => true,
        ["apt", "list" | "show" | "policy" | "search", ..] => true,
        ["dpkg", ..] => flags(&["-l", "-s", "-L", "-S", "--list", "--status", "--listfiles", "--search"]),
        ["rpm", ..] => flags(&["-q", "-qa", "-qi", "-ql"]),
        ["update-alternatives", ..] => flags(&["--display", "--query", "--list", "--get-selections"]),
        ["pip" | "pip3" | "uv" | "pipx", "show" | "list" | "freeze", ..]
        | ["uv", "pip", "show" | "list" | "freeze", ..]
        | ["gem" | "brew" | "cargo" | "go", "list" | "info", ..]
        | ["npm" | "pnpm" | "yarn", "ls" | "list" | "view" | "why" | "outdated", ..]
        | ["cargo", "tree", ..] => true,
        // (`bundle -v` asks for its version; `pytest -v` and `ninja -v` run, louder.)
        [program, "-v"] => VERSION_BY_V.contains(program),
        _ => false,
    }
}

/// `steps` without those that only clear what a tool keeps (`dbt clean`, `go clean -cache`,
/// `php bin/console cache:clear`, `rm -rf resources/_gen`, `bin/spring stop`), or fetch again
/// what was just cleared (`dbt clean`, then `dbt deps`): nothing a later step could need, so
/// nothing a failure that came back after it, or a setting the job then took, was got past by.
pub(crate) fn without_clears(steps: Vec<String>) -> Vec<String> {
    let mut cleared = Vec::new();
    steps.into_iter().filter(|step| !clears_all(step, &mut cleared)).collect()
}

/// Whether every part of `command` clears, or fetches again what a part before it (or a step
/// before, in `cleared`) cleared; notes the programs it cleared.
fn clears_all(command: &str, cleared: &mut Vec<String>) -> bool {
    let parts = steps_of(command);
    !parts.is_empty() && parts.iter().all(|part| clears_or_restores(part, cleared))
}

/// The parts of `step` that do more than clear what `cleared` names (`bundle install` of
/// `docker builder prune -f && bundle install`), joined again; empty when none does.
pub(crate) fn without_parts_cleared(step: &str, clears: &[String]) -> String {
    step.split(" && ").filter(|part| !clears.iter().any(|c| c == part.trim())).collect::<Vec<_>>().join(" && ")
}

/// `command`, the job of `family` run behind steps that only cleared what a tool keeps, as
/// the job alone (`poetry install` of `poetry cache clear --all pypi -n && poetry install`):
/// the clear got past nothing. (A clear that took away what the job needed, `dbt clean`
/// before `dbt build` said `Run "dbt deps"`, is told by the way the job then took.)
pub(crate) fn job_past_clears(command: &str, family: &str) -> String {
    let before = steps_before_job(command, family);
    match !before.is_empty()
        && before.iter().all(|step| clears_only(step))
        && steps_of(command).len() == before.len() + 1
    {
        true => job_line(command),
        false => command.to_string(),
    }
}

/// True when `step` only installs what the project already names (`bundle install`, `npm
/// ci`, `pip install -r requirements.txt`), no package of its own.
pub(crate) fn names_no_package(step: &str) -> bool {
    steps_of(step).into_iter().all(|part| {
        let words = words(part);
        let words: Vec<&str> = words.iter().map(String::as_str).skip_while(|w| *w == "sudo").collect();
        let mut named = words.iter().skip(2).filter(|w| !w.starts_with('-'));
        // (The file after `-r` names what the project wants.)
        let from_file = words.iter().any(|w| *w == "-r" || *w == "--requirement");
        from_file || named.next().is_none()
    })
}

/// True when `step` only takes files away (`rm -rf renv/library`), with looks between: what
/// it removed, a later step may have made again.
pub(crate) fn only_removes(step: &str) -> bool {
    let removes = |part: &str| {
        let words = words(part);
        words.iter().map(String::as_str).find(|w| *w != "sudo").is_some_and(|w| w == "rm") && segments(part).len() == 1
    };
    let parts = steps_of(step);
    parts.iter().any(|part| removes(part)) && parts.iter().all(|part| removes(part) || is_a_look(part))
}

/// True when every part of `step` only clears what a tool keeps (see [`without_clears`]).
pub(crate) fn clears_only(step: &str) -> bool {
    clears_all(step, &mut Vec::new())
}

/// The parts of `command` run one after another, at `;`, newlines and `&&`.
pub(crate) fn steps_of(command: &str) -> Vec<&str> {
    sequential_parts(command).into_iter().flat_map(|part| part.split(" && ")).map(str::trim).collect()
}

/// The parts of `command` that only clear (see [`without_clears`]).
pub(crate) fn clearing_parts(command: &str) -> Vec<String> {
    command.split(" && ").map(str::trim).filter(|part| clears_all(part, &mut Vec::new())).map(str::to_string).collect()
}

/// Whether `part` clears what a tool keeps, or fetches again, naming nothing new, what a part
/// before it cleared; notes the tools it cleared for.
fn clears_or_restores(part: &str, cleared: &mut Vec<String>) -> bool {
    let words = words(&without_output_filters(part));
    let words: Vec<&str> = words.iter().map(String::as_str).skip_while(|w| *w == "sudo").collect();
    let program = words.first().map(|w| program_name(w)).unwrap_or_default();
    let flags_only = |rest: &[&str]| rest.iter().all(|w| w.starts_with('-'));
    let clears = match words.as_slice() {
        // (Not `mvn clean install`: the install after it is a job of its own.)
        [_, "clean", rest @ ..] => flags_only(rest),
        // (`npx nuxi cleanup`: Nuxt's own clean, fetched for the run.)
        ["npx" | "bunx" | "pnpx", "nuxi" | "nuxt", "cleanup", rest @ ..] | ["nuxi" | "nuxt", "cleanup", rest @ ..] => {
            flags_only(rest)
        }
        // (`pnpm store prune` drops what no project uses: a cache.)
        [_, "cache", "clean" | "purge" | "clear", ..] | [_, "builder" | "system" | "store", "prune", ..] => true,
        ["rm", rest @ ..] => removes_only_caches(rest, cleared),
        [_, "stop"] => program == "spring",
        ["hash", "-r"] => true,
        _ => words.iter().skip(1).any(|w| w.ends_with("cache:clear")) || stops_daemons(part),
    };
    if clears {
        cleared.push(program);
        return true;
    }
    // (`dbt deps` after `dbt clean`, `npm ci` after `rm -rf node_modules`: the same again.)
    let restores = match words.as_slice() {
        [_, "deps" | "install" | "ci" | "restore" | "sync" | "fetch", rest @ ..] => flags_only(rest),
        _ => false,
    };
    restores && cleared.contains(&program)
}

/// Whether `rm` with `args` removes, recursively, only folders a tool keeps and makes again
/// (`rm -rf node_modules .next`, `rm -rf ~/.cache/mongodb-binaries`); notes the tools that
/// fetch them again (`npm` for `node_modules`).
fn removes_only_caches(args: &[&str], cleared: &mut Vec<String>) -> bool {
    const KEPT: &[(&str, &[&str])] = &[
        ("node_modules", &["npm", "pnpm", "yarn", "bun"]),
        ("dbt_packages", &["dbt"]),
        (".venv", &["pip", "uv", "poetry"]),
        (".terraform", &["terraform", "tofu"]),
        (".gradle", &[]),
        (".next", &[]),
        (".nuxt", &[]),
        (".turbo", &[]),
        (".parcel-cache", &[]),
        (".pytest_cache", &[]),
        (".mypy_cache", &[]),
        (".ruff_cache", &[]),
        ("__pycache__", &[]),
        ("_gen", &[]),
        (".output", &[]),
        (".svelte-kit", &[]),
        (".angular", &[]),
        (".cache", &[]),
    ];
    let recursive = args
        .iter()
        .any(|w| *w == "--recursive" || (w.starts_with('-') && !w.starts_with("--") && w.contains(['r', 'R'])));
    let paths: Vec<&str> = args.iter().copied().filter(|w| !w.starts_with('-')).collect();
    let kept = |path: &str| {
        let path = path.trim_end_matches('/');
        let name = path.rsplit('/').next().unwrap_or(path);
        let under_a_cache = path.split('/').any(|p| p == ".cache" || p.ends_with("-cache") || p == "cache");
        KEPT.iter().find(|(folder, _)| *folder == name).map(|(_, tools)| *tools).or(under_a_cache.then_some(&[][..]))
    };
    if !recursive || paths.is_empty() || !paths.iter().all(|p| kept(p).is_some()) {
        return false;
    }
    cleared.extend(paths.iter().flat_map(|p| kept(p).unwrap_or_default()).map(|t| t.to_string()));
    true
}

/// `command` without the words `gone` (`--offline`), each taken out wherever it stands.
pub(crate) fn without_words(command: &str, gone: &[String]) -> String {
    command.split(' ').filter(|word| !gone.iter().any(|g| g == word)).collect::<Vec<_>>().join(" ")
}

/// The files `command` puts back as the last commit has them (`git checkout --
/// a.yml b.sql`, `git restore a.yml`), as it names them.
pub(crate) fn reverted_files(command: &str) -> Vec<String> {
    let mut files = Vec::new();
    for words in segments(command) {
        let args: Vec<&str> = words.iter().map(String::as_str).skip_while(|w| *w != "git").skip(1).collect();
        let paths: Vec<&str> = match args.as_slice() {
            // (Not `git checkout origin/main -- Cargo.lock`: another version is a change.)
            ["checkout", "--", paths @ ..] | ["checkout", "HEAD", "--", paths @ ..] => paths.to_vec(),
            ["restore", rest @ ..]
                if !rest.iter().any(|w| *w == "--staged" || *w == "-s" || w.starts_with("--source")) =>
            {
                rest.iter().copied().filter(|w| !w.starts_with('-')).collect()
            }
            _ => Vec::new(),
        };
        files.extend(paths.into_iter().filter(|p| *p != ".").map(str::to_string));
    }
    files
}

/// `command` without its steps that put files back (`git checkout -- a.yml && npm ci` is
/// `npm ci`); empty when that is all it did.
pub(crate) fn without_putting_back(command: &str) -> String {
    if reverted_files(command).is_empty() {
        return command.to_string();
    }
    command.split(" && ").filter(|part| reverted_files(part).is_empty()).collect::<Vec<_>>().join(" && ")
}

/// The tool and key a step sets in a tool's own settings (`npm config set ignore-scripts
/// false`, `go env -w GOFLAGS=-mod=mod`, `git config --global pull.rebase true`), or unsets
/// (`go env -u GOFLAGS`, `git config --unset pull.rebase`).
fn tool_setting(part: &str) -> Option<(String, String)> {
    let words = words(part);
    let program = words.first()?.rsplit('/').next()?.to_string();
    let options: Vec<&str> = words[1..].iter().map(String::as_str).filter(|w| !w.starts_with("--global")).collect();
    let key = match options.as_slice() {
        ["config", "set" | "delete" | "rm" | "unset", key, ..] => key,
        ["env", "-w" | "-u", key, ..] => key,
        ["config", "--unset" | "--unset-all", key, ..] => key,
        ["config", key, _value] if program == "git" && !key.starts_with('-') => key,
        _ => return None,
    };
    Some((program, key.split('=').next()?.to_string()))
}

/// True when `command` holds a word that may take a step back ([`undoes`]): a cheap test
/// before the whole comparison.
pub(crate) fn may_take_back(command: &str) -> bool {
    const UNDO_WORDS: &[&str] = &[
        "unuse",
        "uninstall",
        "remove",
        "rm",
        "un",
        "uninject",
        "unlink",
        "delete",
        "unset",
        "-u",
        "--unset",
        "--unset-all",
        // (`sed -i '/…/d' ~/.bashrc` deletes a line a step appended.)
        "sed",
    ];
    command.split_whitespace().any(|word| UNDO_WORDS.contains(&word))
}

/// A thing a command names, with the version it gives (`zig@0.13.0` → `zig`, `0.13.0`).
type Named<'a> = (&'a str, Option<&'a str>);

/// What one command does to which things: its program, its verb and the things it names.
fn acts_on(words: &[String]) -> Option<(String, &str, Vec<Named<'_>>)> {
    let at = words.iter().take_while(|w| *w == "sudo" || (w.contains('=') && !w.starts_with('-'))).count();
    let program = program_name(words.get(at)?);
    let mut args = words[at + 1..].iter().map(String::as_str).filter(|w| !w.starts_with('-'));
    let verb = args.next()?;
    let things = args
        .filter_map(|thing| {
            let mut parts = thing.splitn(2, ['@', '=', '<', '>']);
            let name = parts.next().filter(|n| !n.is_empty())?;
            Some((
                name,
                parts.next().map(|v| v.trim_start_matches(['=', '<', '>', '~', '^'])).filter(|v| !v.is_empty()),
            ))
        })
        .collect();
    Some((program, verb, things))
}

/// True when `later` takes back what a step of `earlier` did: a global tool version unset
/// (`mise unuse -g zig` after `mise use -g zig@0.13.0`), a package removed after it was
/// installed or added (`pip uninstall fonttools`, `poetry remove httpx`), a tool setting
/// unset or deleted after it was set (`git config --unset core.hooksPath`). The undo names
/// every thing the step named, at the same version where both give one (`mise uninstall
/// node@18` leaves `node@20`); one that installs it again (`pip uninstall -y torch && pip
/// install torch --index-url …`) takes nothing back.
pub(crate) fn undoes(later: &str, earlier: &str) -> bool {
    fn undo_verbs(verb: &str) -> &'static [&'static str] {
        match verb {
            "use" => &["unuse"],
            "install" | "i" | "add" => &["uninstall", "remove", "rm", "un"],
            "inject" => &["uninject"],
            "link" => &["unlink"],
            _ => &[],
        }
    }
    let unsets = |words: &[String]| {
        words.iter().any(|w| ["delete", "rm", "unset", "-u", "--unset", "--unset-all"].contains(&w.as_str()))
    };
    let takes_back = |undo: &[String], step: &[String]| {
        if deletes_the_line(undo, step) {
            return true;
        }
        if let (Some(set), Some(back)) = (tool_setting(&step.join(" ")), tool_setting(&undo.join(" ")))
            && set == back
        {
            return unsets(undo) && !unsets(step);
        }
        let (Some((program, verb, things)), Some((back, back_verb, named))) = (acts_on(step), acts_on(undo)) else {
            return false;
        };
        let named_too = |(name, version): &Named<'_>| {
            named.iter().any(|(n, v)| n == name && (v.is_none() || version.is_none() || v == version))
        };
        program == back && undo_verbs(verb).contains(&back_verb) && !things.is_empty() && things.iter().all(named_too)
    };
    let steps = segments(earlier);
    let undos = segments(later);
    // (What the same command does again is no undo.)
    let again = |step: &Vec<String>| {
        let Some((program, verb, things)) = acts_on(step) else { return false };
        undos.iter().filter_map(|part| acts_on(part)).any(|(p, v, named)| {
            p == program && v == verb && things.iter().all(|(name, _)| named.iter().any(|(n, _)| n == name))
        })
    };
    undos.iter().any(|undo| steps.iter().any(|step| takes_back(undo, step) && !again(step)))
}

/// True when `undo` deletes from a file (`sed -i '/export ANDROID_HOME=…/d' ~/.bashrc`) the
/// line `step` appended to it (`echo 'export ANDROID_HOME=$HOME/Android/Sdk' >> ~/.bashrc`).
fn deletes_the_line(undo: &[String], step: &[String]) -> bool {
    let [echo, line, append, file] = step else { return false };
    if !matches!(echo.as_str(), "echo" | "printf") || append != ">>" {
        return false;
    }
    let [sed, flag, script, target] = undo else { return false };
    let Some(pattern) = script.strip_prefix('/').and_then(|rest| rest.strip_suffix("/d")) else { return false };
    let pattern = pattern.replace('\\', "");
    sed == "sed" && flag.starts_with("-i") && target == file && pattern.len() >= 4 && line.contains(&pattern)
}

/// `ran` without the tool settings set one way and later again (`npm config set
/// ignore-scripts false`, then `npm config set ignore-scripts true` when the user said to put
/// it back): neither is part of the way past, whatever the rest of those steps did.
pub(crate) fn without_set_back(ran: Vec<String>) -> Vec<String> {
    let settings: Vec<Vec<Option<(String, String)>>> =
        ran.iter().map(|step| step.split(" && ").map(tool_setting).collect()).collect();
    let all: Vec<&(String, String)> = settings.iter().flatten().flatten().collect();
    let set_twice = |setting: &(String, String)| all.iter().filter(|s| **s == setting).count() > 1;
    ran.iter()
        .zip(&settings)
        .filter_map(|(step, parts)| {
            let kept: Vec<&str> = step
                .split(" && ")
                .zip(parts)
                .filter(|(_, setting)| !setting.as_ref().is_some_and(set_twice))
                .map(|(part, _)| part)
                .collect();
            (!kept.is_empty()).then(|| kept.join(" && "))
        })
        .collect()
}

/// `ran` without the steps a later one does over with more (`bundle install`, then
/// `BUNDLE_WITHOUT= bundle install`; `docker compose up -d`, then `docker compose --profile
/// backing up -d --wait`): the step done over did not get past the failure, the later did.
pub(crate) fn without_superseded(ran: Vec<String>) -> Vec<String> {
    // One command's words, and where its program stands after the settings in front.
    let own = |step: &str| -> Option<(Vec<String>, usize)> {
        let all = segments(step);
        let [words] = all.as_slice() else { return None };
        let at = words.iter().take_while(|w| w.contains('=') && !w.starts_with('-')).count();
        (words.len() >= at + 2).then(|| (words.clone(), at))
    };
    let done_over = |i: usize| {
        let Some((earlier, at)) = own(&ran[i]) else { return false };
        ran[i + 1..].iter().filter_map(|later| own(later)).any(|(later, later_at)| {
            // (Only flags, their values and settings added: `npm install -D @types/node`
            // after `npm install` installed something more, it did nothing over.)
            let over = |j: usize| {
                let word = &later[j];
                earlier.contains(word)
                    || word.starts_with('-')
                    || word.contains('=')
                    || (j > 0 && later[j - 1].starts_with("--") && !later[j - 1].contains('='))
            };
            later.len() > earlier.len()
                && later[later_at] == earlier[at]
                && earlier.iter().all(|w| later.contains(w))
                && (0..later.len()).all(over)
        })
    };
    let keep: Vec<bool> = (0..ran.len()).map(|i| !done_over(i)).collect();
    ran.into_iter().zip(keep).filter_map(|(step, keep)| keep.then_some(step)).collect()
}

/// The source files a command edits in place (`sed -i 's/a/b/' charts/api/templates/pdb.yaml`,
/// `perl -pi -e '…' lib/x.pm`) when that is all it does: an edit of the code, made through
/// the shell.
pub(crate) fn edits_in_place(command: &str) -> Vec<String> {
    let mut files = Vec::new();
    for words in segments(command) {
        let words: Vec<&str> = words.iter().map(String::as_str).skip_while(|w| *w == "sudo").collect();
        // (`mv app/ops/create_refunds.rb app/ops/create_refund.rb`: code renamed is code edited.)
        if let ["mv", paths @ ..] | ["git", "mv", paths @ ..] = words.as_slice() {
            let paths: Vec<&str> = paths.iter().filter(|w| !w.starts_with('-')).copied().collect();
            if paths.len() < 2 || !paths.iter().all(|p| progress::is_source(p)) {
                return Vec::new();
            }
            files.extend(paths.iter().map(|p| p.to_string()));
            continue;
        }
        let in_place = match words.first() {
            // (`-i`, `-i.bak`, `-Ei`, `--in-place=.bak`.)
            Some(&"sed") => words.iter().any(|w| {
                let short = w.strip_prefix('-').filter(|f| !f.starts_with('-') && f.len() <= 3);
                short.is_some_and(|f| f.chars().all(|c| c.is_ascii_alphabetic()) && f.contains('i'))
                    || w.starts_with("-i.")
                    || w.starts_with("--in-place")
            }),
            Some(&"perl") => words.iter().any(|w| w.starts_with("-pi") || w.starts_with("-i")),
            _ => false,
        };
        if !in_place {
            return Vec::new();
        }
        // The script is the first word that is no flag (or the value of `-e`); files follow it.
        let mut rest = words.iter().skip(1).skip_while(|w| w.starts_with('-'));
        rest.next();
        files.extend(rest.filter(|w| !w.starts_with('-') && progress::is_source(w)).map(|w| w.to_string()));
    }
    files
}

/// True when a command writes a file through the shell (`echo 'x = 1' >> ~/.config/x.conf`,
/// `printf … | sudo tee -a /etc/hosts`): a setting put in place, however plain the program.
/// Output sent to `/dev/null`, a scratch file or a log, or merged into another stream, puts
/// nothing in place.
pub(crate) fn writes_a_file(command: &str) -> bool {
    // (A setting's file: one in the home or /etc, a dotfile, or a configuration by its name;
    // `git diff > before.patch` keeps a scratch copy.)
    let is_setting = |target: &str| {
        let name = target.rsplit('/').next().unwrap_or(target);
        let placed = ["~/", "/etc/", "$HOME/", "${HOME}/"].iter().any(|p| target.starts_with(p));
        let configured = [".conf", ".toml", ".ini", ".yaml", ".yml", ".env", ".properties", ".cfg", "rc"]
            .iter()
            .any(|e| name.ends_with(e));
        !target.starts_with("/tmp/") && (placed || name.starts_with('.') || configured)
    };
    let all = segments(command);
    let redirected = all.iter().any(|words| {
        words.iter().enumerate().any(|(i, word)| {
            let target = match word.trim_start_matches(['1', '2', '&']) {
                ">" | ">>" => words.get(i + 1).map(String::as_str).unwrap_or_default(),
                other => match other.strip_prefix(">>").or_else(|| other.strip_prefix('>')) {
                    Some(rest) => rest,
                    None => return false,
                },
            };
            !target.starts_with('&') && is_setting(target)
        })
    });
    let teed = all.iter().skip(1).any(|words| {
        let words: Vec<&str> = words.iter().map(String::as_str).skip_while(|w| *w == "sudo").collect();
        words.first() == Some(&"tee") && words.iter().skip(1).any(|w| !w.starts_with('-') && is_setting(w))
    });
    // `sed -i "s/^gpr.key=.*/gpr.key=…/" ~/.gradle/gradle.properties`: edited in place.
    let in_place = all.iter().any(|words| {
        let words: Vec<&str> = words.iter().map(String::as_str).skip_while(|w| *w == "sudo").collect();
        let edits = words.iter().any(|w| *w == "-i" || w.starts_with("-i.") || *w == "--in-place");
        words.first() == Some(&"sed") && edits && words.last().is_some_and(|w| !w.starts_with('-') && is_setting(w))
    });
    redirected || teed || in_place
}

/// True when a command changes a setting through a program made for it (`export
/// PATH="$PATH:$(go env GOPATH)/bin"`, `git config --global url.….insteadOf …`, `go env -w
/// GOPRIVATE=…`, `npm config set …`): a step of the way around, however it is classified.
pub(crate) fn sets_a_setting(command: &str) -> bool {
    segments(command).iter().any(|words| {
        let words: Vec<&str> = words.iter().map(String::as_str).skip_while(|w| *w == "sudo").collect();
        let positional = |from: usize| words.iter().skip(from).filter(|w| !w.starts_with('-')).count();
        let asks = words.iter().any(|w| {
            matches!(*w, "--get" | "--get-all" | "--get-regexp" | "--list" | "-l" | "--show-origin" | "--show-scope")
        });
        match words.as_slice() {
            ["export", name, ..] => name.contains('='),
            // `source scripts/tg-env.sh dev`: a file of settings read into the shell.
            // (A virtualenv's `activate` is how every command of the project runs.)
            ["source" | ".", file, ..] => {
                !file.contains("://") && !file.starts_with('<') && !file.ends_with("/activate")
            }
            ["git", "config", ..] => !asks && positional(2) >= 2,
            ["go", "env", flag, ..] => matches!(*flag, "-w" | "-u"),
            [_, "config", "set", ..] => true,
            ["poetry" | "bundle" | "pip" | "pip3", "config", ..] => !asks && positional(2) >= 2,
            ["conda", "config", flag, ..] => matches!(*flag, "--set" | "--add" | "--append" | "--prepend"),
            _ => false,
        }
    })
}

/// True when a command line's exit status is its job's: the job (the segment its family
/// names) runs in the last of its `;`-separated parts. `ctest -R x | tail -6; ls tests/data`
/// exits with `ls`'s status, whatever the tests did.
pub(crate) fn status_is_the_jobs(command: &str) -> bool {
    // `deno run main.ts & sleep 1; curl …`: a server started in the background is proven by
    // the checks that follow it.
    if runs_in_background(command) {
        return true;
    }
    let family = classify(command).family;
    let parts = sequential_parts(command);
    match parts.iter().rposition(|p| runs_job(p, &family)) {
        Some(i) => i + 1 == parts.len(),
        None => true,
    }
}

/// True when the job's exit status is lost in a pipe into a filter (`go test ./... | tail
/// -20`, `make test | grep -v cd`): the shell reports the filter's status, so only the output
/// says whether the job passed. (`family` names the job: of `uv sync && uv run x | tail -1`,
/// `x` may be the one that ran again.)
pub(crate) fn status_hidden_by_filter(command: &str, family: &str) -> bool {
    const FILTERS: &[&str] = &[
        "tail", "head", "grep", "egrep", "rg", "sed", "awk", "cut", "sort", "uniq", "tee", "less", "more", "cat",
        "column", "wc", "tr", "nl", "jq",
    ];
    sequential_parts(command).into_iter().flat_map(|part| part.split("&&").collect::<Vec<_>>()).any(|part| {
        let pipes = pipe_parts(part);
        pipes.len() >= 2
            && runs_job(pipes[0], family)
            && pipes[1..].iter().all(|p| program_of(p).is_some_and(|program| FILTERS.contains(&program.as_str())))
    })
}

/// How many lines of the job's output a filter it ends in let through (`pytest -q 2>&1 |
/// tail -1` shows one), when nothing runs after it: what it printed is all the job said.
pub(crate) fn lines_shown(command: &str, family: &str) -> Option<usize> {
    let last = *sequential_parts(command).last()?;
    let part = last.rsplit("&&").next()?;
    let pipes = pipe_parts(part);
    let filter = pipes.get(1..).and_then(<[&str]>::last).filter(|_| runs_job(pipes[0], family))?;
    let words: Vec<&str> = filter.split_whitespace().collect();
    let count = match words.as_slice() {
        ["tail" | "head", flag] => flag.strip_prefix("-n").or_else(|| flag.strip_prefix('-')),
        ["tail" | "head", "-n", count] => Some(*count),
        _ => None,
    };
    // (`tail -n +2` prints all but the first line.)
    count.filter(|n| !n.starts_with('+')).and_then(|n| n.parse().ok()).filter(|n| *n > 0)
}

/// The commands of a pipeline: `a | b` cut at each lone `|` outside quotes.
fn pipe_parts(command: &str) -> Vec<&str> {
    let bytes = command.as_bytes();
    let (mut parts, mut start, mut quote) = (Vec::new(), 0, None);
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (Some(q), b) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(b),
            (None, b'|') if bytes.get(i + 1) != Some(&b'|') && (i == 0 || bytes[i - 1] != b'|') => {
                parts.push(&command[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&command[start..]);
    parts.into_iter().map(str::trim).filter(|p| !p.is_empty()).collect()
}

/// The ports a command or an error names (`--port 8000`, `-p 5433`, `:3000`, `('127.0.0.1',
/// 8000)`).
pub(crate) fn ports_named(text: &str) -> BTreeSet<String> {
    static PORT: LazyLock<Regex> =
        LazyLock::new(|| patterns::regex(r"(?:--port[= ]|\s-p\s+|:|\bport\s+|',\s*)(?P<port>\d{2,5})\b"));
    PORT.captures_iter(text).map(|c| c["port"].to_string()).collect()
}

/// True when a command line sends something to the background: a lone `&` outside quotes,
/// not `&&`, `2>&1`, `<&3`, `&>` or bash's `|&`.
fn runs_in_background(command: &str) -> bool {
    let mut quote: Option<char> = None;
    let chars: Vec<char> = command.chars().collect();
    chars.iter().enumerate().any(|(i, &c)| {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            _ => {}
        }
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + 1).copied();
        quote.is_none()
            && c == '&'
            && !matches!(before, Some('&' | '>' | '<' | '|'))
            && !matches!(after, Some('&' | '>'))
    })
}

/// A command line cut at `;` and newlines outside quotes and substitutions.
/// The parts of a plain `a && b && c` chain, each of which succeeded when the whole did;
/// `None` when a part's status is not its own (`||`, `;`, a pipe, a subshell) or the line
/// has no `&&` outside quotes (`ssh web1 "cd /srv/app && make test"` runs its chain there).
pub(crate) fn and_parts(command: &str) -> Option<Vec<&str>> {
    let mut parts = Vec::new();
    let (mut start, mut quote) = (0, None);
    let bytes = command.as_bytes();
    for (i, c) in command.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, ';' | '\n' | '(' | ')') => return None,
            (None, '|') => return None,
            (None, '&') if bytes.get(i + 1) == Some(&b'&') => {
                parts.push(command[start..i].trim());
                start = i + 2;
            }
            (None, '&') if i > 0 && bytes[i - 1] == b'&' => {}
            _ => {}
        }
    }
    parts.push(command[start..].trim());
    (parts.len() > 1 && parts.iter().all(|p| !p.is_empty())).then_some(parts)
}

fn sequential_parts(command: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut quote, mut depth) = (0, None, 0usize);
    let mut previous = ' ';
    for (i, c) in command.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') if previous == '$' => depth += 1,
            (None, ')') if depth > 0 => depth -= 1,
            // (`tmux … start-server \; show -g prefix`: an escaped `;` is the program's own.)
            (None, ';' | '\n') if depth == 0 && previous != '\\' => {
                parts.push(&command[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        previous = c;
    }
    parts.push(&command[start..]);
    parts.into_iter().map(str::trim).filter(|p| !p.is_empty()).collect()
}

/// True when `fixed` runs the program `failed` ran directly through a runner that brings the
/// project's own environment (`uv run mkdocs build` after `mkdocs serve`, `bundle exec rake`
/// after `rake`, `npx eslint` after `eslint`): the way around a program missing its plugins
/// or its version is to run it the project's way.
pub(crate) fn through_runner(failed: &str, fixed: &str) -> bool {
    let (a, b) = (classify(failed), classify(fixed));
    let direct = program_of(failed).is_some_and(|p| canonical(program_name(&p)) == a.program);
    // (The runner wraps the program in one segment: `eval "$(direnv export bash)" && terraform
    // force-unlock …` runs no terraform through eval.)
    let placing = |words: &&Vec<String>| {
        words.first().is_some_and(|w| matches!(w.as_str(), "cd" | "source" | "." | "export" | "pushd"))
    };
    let wrapped = program_of(fixed).is_some_and(|p| canonical(program_name(&p)) != b.program)
        && segments(fixed)
            .iter()
            .find(|words| !placing(words))
            .is_some_and(|words| words.iter().skip(1).any(|w| canonical(program_name(w)) == b.program));
    // (A test run is got past by a test run: `uv run python manage.py makemigrations` runs no
    // `python manage.py test`.)
    let same_kind = a.kind != CommandKind::Test || b.kind == CommandKind::Test;
    !a.program.is_empty() && a.program == b.program && direct && wrapped && same_kind
}

/// True when `fixed` runs the program `failed` ran from another install of it: a runner
/// (`uv run pytest`), an environment's own copy (`.venv/bin/python -m pytest`,
/// `./node_modules/.bin/jest`) where `failed` took the one on PATH.
pub(crate) fn runs_another_install(failed: &str, fixed: &str) -> bool {
    let (Some(a), Some(b)) = (program_word(failed), program_word(fixed)) else { return false };
    let (x, y) = (classify(failed), classify(fixed));
    let placed = a != b && !a.contains('/') && b.contains('/');
    // (`env -u DATABASE_URL bin/rspec` runs the same install with a variable unset.)
    let runner = through_runner(failed, fixed) && program_of(fixed).as_deref() != Some("env");
    !x.program.is_empty() && x.program == y.program && (runner || placed)
}

/// True when a step of `chain` runs the program `failed` ran from another install of it
/// (`opam update && opam exec --switch=. -- dune build @runtest`).
pub(crate) fn runs_another_install_in(failed: &str, chain: &str) -> bool {
    std::iter::once(chain).chain(steps_of(chain)).any(|part| runs_another_install(failed, part))
}

/// True when every part of `step` only fetches a package index again (`opam update -y`, `sudo
/// apt-get update`, `helm repo update`), clears what a tool keeps, or looks: it installs and
/// sets nothing a job could run with. (`opam update -u` upgrades too.)
pub(crate) fn refreshes_only(step: &str) -> bool {
    let refreshes = |part: &str| {
        let words = words(&without_output_filters(part));
        let words: Vec<&str> = words.iter().map(String::as_str).skip_while(|w| *w == "sudo").collect();
        let rest_flags = |rest: &[&str]| rest.iter().all(|w| w.starts_with('-'));
        match words.as_slice() {
            [program, "update", rest @ ..] => {
                matches!(program_name(program).as_str(), "apt" | "apt-get" | "apk" | "opam" | "brew" | "cabal")
                    && rest_flags(rest)
                    && !rest.iter().any(|w| matches!(*w, "-u" | "--upgrade"))
            }
            ["helm", "repo", "update", ..] => true,
            [program, "makecache", ..] => matches!(program_name(program).as_str(), "dnf" | "yum"),
            ["zypper", "refresh" | "ref", ..] => true,
            _ => false,
        }
    };
    let parts = steps_of(step);
    !parts.is_empty() && parts.iter().all(|part| refreshes(part) || clears_only(part) || is_a_look(part))
}

/// True when `text` names the job `command` ran by two of its words in a row past its
/// program alone (`manage.py test` of `python manage.py test orders`): not by the program
/// and a sub-command every job of it shares (`npm run`, `cargo test`).
pub(crate) fn is_named_in(command: &str, text: &str) -> bool {
    let plain = |w: &str| w.trim_end_matches(['.', ':', '!', '?']).to_lowercase();
    let said: Vec<String> = text
        .split(|c: char| c.is_whitespace() || matches!(c, '`' | '"' | '\'' | ',' | ';' | '(' | ')'))
        .filter(|w| !w.is_empty() && !w.starts_with('-'))
        .map(plain)
        .collect();
    let job = job_line(command);
    let last = job.rsplit(" && ").next().unwrap_or(&job);
    let ran: Vec<String> = words(last)
        .into_iter()
        .skip_while(|w| w.contains('=') && !w.starts_with('-'))
        .filter(|w| !w.starts_with('-'))
        .map(|w| plain(&w))
        .collect();
    ran.windows(2).skip(1).any(|pair| said.windows(2).any(|words| words == pair))
}

/// True when a command generates a named thing once (`mix ecto.gen.migration add_x`, `bin/rails
/// g model Plot`, `php bin/console make:migration`, `dotnet ef migrations add AddX`): the task's
/// own step, no way to run the project.
pub(crate) fn generates(command: &str) -> bool {
    static GENERATOR: LazyLock<Regex> =
        LazyLock::new(|| patterns::regex(r"[.:](?:gen|generate)(?:[.:]|$)|^(?:gen|generate)[.:]|^make:"));
    segments(command).iter().any(|words| {
        let program = words.first().map(|p| program_name(p)).unwrap_or_default();
        let subs: Vec<&str> =
            words.iter().skip(1).filter(|w| !w.starts_with('-')).take(3).map(String::as_str).collect();
        match (program.as_str(), subs.as_slice()) {
            ("rails", ["g" | "generate", ..]) => true,
            ("alembic", subs) => subs.contains(&"revision"),
            (_, subs) => {
                subs.iter().any(|w| GENERATOR.is_match(w))
                    || subs.windows(2).any(|w| matches!(w, ["migrations" | "migration", "add"]))
            }
        }
    })
}

/// The program whose lock a command breaks by force (`terraform force-unlock -force 7c1d…`,
/// `tofu plan -lock=false`), if it does.
pub(crate) fn breaks_a_lock(command: &str) -> Option<String> {
    segments(command).iter().find_map(|words| {
        // `rm -f .git/index.lock`: git's lock, whatever program removes it.
        if words.first().is_some_and(|p| p == "rm") && words.iter().any(|w| w.ends_with(".git/index.lock")) {
            return Some("git".to_string());
        }
        let forced = words.iter().any(|w| w == "force-unlock" || w == "-lock=false");
        forced.then(|| classify_segment(words).map(|c| c.program)).flatten()
    })
}

/// True when a chain runs the program `failed` ran, for a job of the same kind, after steps
/// of its own (`mv x.zsh x.zsh.bak && stow -R zsh zsh-prompt` after `stow zsh-prompt`): the
/// same job done another way. (`eval … && terraform force-unlock` does no `terraform plan`.)
pub(crate) fn same_program_after_steps(failed: &str, fixed: &str) -> bool {
    let a = classify(failed);
    let operands = |command: &str| -> Vec<String> {
        words(command).into_iter().skip(1).filter(|w| !w.starts_with('-') && !w.contains('=')).collect()
    };
    let wanted = operands(failed);
    let parts: Vec<&str> = fixed.split(" && ").map(str::trim).collect();
    // (Every word the failed run was given, so `php bin/console doctrine:…` does no `php
    // bin/phpunit tests/…`.)
    !a.program.is_empty()
        && parts.len() > 1
        && parts[1..].iter().any(|p| {
            let b = classify(p);
            let given = operands(p);
            b.program == a.program && b.kind == a.kind && wanted.iter().all(|w| given.contains(w))
        })
}

/// True for a project's default build or test command, bare (`cargo test`, `npm test`,
/// `pytest`, `make`): that it passed says nothing a future session would not try first.
pub(crate) fn is_default_command(command: &str) -> bool {
    const DEFAULTS: &[&str] = &[
        "cargo test",
        "cargo build",
        "cargo check",
        "npm test",
        "npm run test",
        "npm run build",
        "yarn test",
        "yarn build",
        "pnpm test",
        "pnpm build",
        "pytest",
        "pytest -q",
        "python -m pytest",
        "go test ./...",
        "go build ./...",
        "go vet ./...",
        "make",
        "make test",
        "make check",
        "make all",
        "mix test",
        "bundle exec rspec",
        "rspec",
        "dotnet test",
        "dotnet build",
        "swift build",
        "swift test",
        "./gradlew test",
        "./gradlew build",
        "mvn test",
        "mvn verify",
        "ctest",
        "zig build",
        "zig build test",
        "deno test",
        "cabal test",
        "cabal build",
        "composer test",
        "vendor/bin/phpunit",
        "phpunit",
        "npx jest",
        "npx vitest run",
        "jest",
        "vitest run",
        "terraform validate",
        "terraform plan",
        "tofu validate",
        "tofu plan",
    ];
    let mut words: Vec<&str> = command.split_whitespace().collect();
    // The preset named `default` is what the tool picks anyway (`ctest --preset default`).
    if let Some(at) = words.windows(2).position(|w| w == ["--preset", "default"]) {
        words.drain(at..at + 2);
    }
    words.retain(|w| *w != "--preset=default");
    // How much a run prints changes nothing of what it runs (`cargo test -q`).
    words.retain(|w| !matches!(*w, "-q" | "--quiet" | "-v" | "-vv" | "--verbose"));
    // A program named by the folder a virtualenv or a package keeps it in is the program.
    let bin = words.first().map(|w| {
        [".venv/bin/", "venv/bin/", "node_modules/.bin/"]
            .iter()
            .find_map(|dir| w.trim_start_matches("./").strip_prefix(dir))
            .unwrap_or(w)
    });
    if let Some(program) = bin {
        words[0] = program;
    }
    // A runner in front changes nothing: `bundle exec rake test` is `rake test`.
    if let ["bundle" | "poetry" | "uv" | "pipenv" | "pdm" | "pnpm" | "hatch", "exec" | "run", ..] = words.as_slice() {
        words.drain(..2);
    } else if let ["npx" | "bunx", ..] = words.as_slice() {
        words.drain(..1);
    }
    // Any tool's bare `test`, `build`, `check` or `lint` (`sbt test`, `lein test`, `dune
    // build`), and a package script of that name (`npm run lint`), are found by reading the
    // project's own manifest.
    const JOBS: &[&str] =
        &["test", "build", "check", "compile", "lint", "typecheck", "format", "fmt", "runtest", "spec"];
    let bare = match words.as_slice() {
        ["npm" | "yarn" | "pnpm" | "bun", "run", job] | [_, job] => JOBS.contains(job),
        [_] => matches!(words[0], "make" | "rake" | "ctest" | "pytest" | "tox" | "nox" | "jest"),
        _ => false,
    };
    bare || DEFAULTS.contains(&words.join(" ").as_str())
}

/// A download piped into a shell, or run by one (`curl … | sh`, `bash <(wget …)`,
/// `sh -c "$(curl …)"`, `iwr … | iex`): the program that runs is whatever the server sent.
static DOWNLOAD_INTO_SHELL: LazyLock<Regex> = LazyLock::new(|| {
    let download = r"(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)";
    let shell = r"(?:(?:ba|z|da|k|fi)?sh|iex|invoke-expression)\b";
    let interpreter = r"(?:python[0-9.]*|perl|ruby|node)(?:\s+-\S*)*\s*(?:$|[;&|)])";
    let runner = r"(?:sudo(?:\s+-\S+)*\s+)?(?:env\s+(?:\S+=\S*\s+)*)?(?:\S*/)?";
    // `curl … | sudo bash`, and `bash <(curl …)` or `sh -c "$(curl …)"`.
    let piped = format!(r"\b{download}\b[^;&\n]*\|\s*{runner}(?:{shell}|{interpreter})");
    let substituted = format!(
        r#"(?:\b(?:ba|z|da|k)?sh|\bsource|\beval|(?:^|[\s;&|(])\.)\s+(?:-\S+\s+)*["']?(?:<\(|\$\()\s*{download}\b"#
    );
    patterns::regex(&format!("(?im){piped}|{substituted}"))
});

/// True when `command` runs what a download returned, unseen: never a lesson, however it
/// ended.
pub(crate) fn downloads_into_shell(command: &str) -> bool {
    DOWNLOAD_INTO_SHELL.is_match(command)
}

/// The variables an `env` at the head of `words` unsets (`env -u PYTHONPATH …`,
/// `env --unset=PYTHONPATH …`), and how many words that takes, `env` with them.
fn unsets(words: &[String]) -> (Vec<String>, usize) {
    let mut names = Vec::new();
    let mut at = 1;
    while let Some(word) = words.get(at) {
        if let Some(name) = word.strip_prefix("--unset=").or_else(|| word.strip_prefix("-u").filter(|n| !n.is_empty()))
        {
            names.push(name.to_string());
            at += 1;
        } else if (word == "-u" || word == "--unset")
            && let Some(name) = words.get(at + 1)
        {
            names.push(name.clone());
            at += 2;
        } else {
            break;
        }
    }
    (names, at)
}

/// The words of a command line, with each variable an `env` prefix unsets as one word of its
/// own (`env -u PYTHONPATH`): a setting the command ran with, as `PYTHONPATH=…` is.
pub(crate) fn setting_words(command: &str) -> Vec<String> {
    let words = words(command);
    let mut out = Vec::new();
    let mut at = 0;
    while at < words.len() {
        let (names, taken) = if words[at] == "env" { unsets(&words[at..]) } else { (Vec::new(), 1) };
        match names.is_empty() {
            true => out.push(words[at].clone()),
            false => out.extend(names.iter().map(|name| format!("env -u {name}"))),
        }
        at += taken.max(1);
    }
    out
}

/// The words of a simple command line as the shell splits them, quotes and substitutions
/// kept whole (`GITHUB_TOKEN=$(gh auth token)` is one word).
pub(crate) fn words(command: &str) -> Vec<String> {
    segments(command).concat()
}

/// Split a command line at `&&`, `||`, `;`, `|` and newlines, ignoring those inside quotes.
fn segments(command: &str) -> Vec<Vec<String>> {
    let mut segments = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut chars = command.chars().peekable();
    let flush_word = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() {
            words.push(std::mem::take(word));
        }
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => quote = Some(c),
            // `GITHUB_TOKEN=$(gh auth token) sbt compile`: a substitution is part of its word.
            (None, '$') if chars.peek() == Some(&'(') => {
                word.push(c);
                let mut depth = 0usize;
                for inner in chars.by_ref() {
                    word.push(inner);
                    match inner {
                        '(' => depth += 1,
                        ')' if depth <= 1 => break,
                        ')' => depth -= 1,
                        _ => {}
                    }
                }
            }
            (None, '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            // `2>&1`, `&>`: a redirection, not a separator.
            (None, '&') if word.ends_with('>') || chars.peek() == Some(&'>') => word.push(c),
            (None, '&' | '|' | ';' | '\n') => {
                if matches!(chars.peek(), Some('&' | '|')) {
                    chars.next();
                }
                flush_word(&mut word, &mut words);
                push_segment(&mut segments, std::mem::take(&mut words));
            }
            (None, c) if c.is_whitespace() => flush_word(&mut word, &mut words),
            (None, c) => word.push(c),
        }
        // A heredoc body is data, not commands.
        if quote.is_none() && word.starts_with("<<") {
            word.clear();
            break;
        }
    }
    flush_word(&mut word, &mut words);
    push_segment(&mut segments, words);
    segments
}

/// Adds a command's words to `segments`, without the shell's own grammar around it: a loop's
/// `do` and a condition's `if`/`then` before it, and the `for i in 1 2 3` or `done` that runs
/// nothing itself (`for i in 1 2 3; do pytest -x t.py; done` runs `pytest -x t.py`).
fn push_segment(segments: &mut Vec<Vec<String>>, mut words: Vec<String>) {
    const OPENING: &[&str] = &["do", "then", "else", "elif", "if", "while", "until", "!"];
    const CLOSING: &[&str] = &["done", "fi", "esac", "for", "select", "case"];
    let opening = words.iter().take_while(|w| OPENING.contains(&w.as_str())).count();
    words.drain(..opening);
    if words.first().is_some_and(|w| !CLOSING.contains(&w.as_str())) {
        segments.push(words);
    }
}

const PREFIX_COMMANDS: &[&str] = &["sudo", "time", "nice", "nohup", "command", "exec", "xvfb-run", "stdbuf"];
const NO_OP_COMMANDS: &[&str] = &["cd", "export", "source", ".", "set", "pushd", "popd", "unset", "alias", "true", ":"];
/// Package-manager commands that are not project scripts (`pnpm why`, `yarn config`).
const PACKAGE_MANAGER_COMMANDS: &[&str] = &[
    "config",
    "set",
    "get",
    "why",
    "info",
    "view",
    "list",
    "ls",
    "outdated",
    "audit",
    "cache",
    "link",
    "unlink",
    "publish",
    "pack",
    "login",
    "logout",
    "whoami",
    "version",
    "init",
    "create",
    "store",
    "patch",
    "remove",
    "rm",
    "uninstall",
    "global",
    "prune",
    "rebuild",
    "dedupe",
    "doctor",
    "search",
    "owner",
    "help",
    "env",
];
/// The package managers `corepack` runs at the version a project pins (`corepack pnpm test`).
const COREPACK_TOOLS: &[&str] = &["pnpm", "yarn", "npm", "npx", "pnpx"];
/// Programs that run the command after them (`npx eslint`, `fvm flutter test`).
const WRAPPERS: &[&str] = &["npx", "bunx", "pnpx", "dotenv", "fvm", "dotenvx"];
const EXPLORE: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "grep",
    "rg",
    "ag",
    "find",
    "fd",
    "sed",
    "awk",
    "wc",
    "pwd",
    "echo",
    "printf",
    "which",
    "type",
    "file",
    "stat",
    "tree",
    "less",
    "more",
    "diff",
    "cmp",
    "test",
    "[",
    "jq",
    "html2text",
    "tac",
    "du",
    "df",
    "ps",
    "env",
    "printenv",
    "date",
    "whoami",
    "uname",
    "nl",
    "sort",
    "uniq",
    "cut",
    "realpath",
    "dirname",
    "basename",
    "readlink",
    "sleep",
    "xxd",
    "hexdump",
    "od",
    "tr",
    "column",
    "bat",
    "lsof",
    // Who holds a port.
    "ss",
    "netstat",
    "id",
    "hostname",
    "history",
    "man",
    "help",
    // Readers of compressed files and of the system's logs: what they print is the file's.
    "zcat",
    "zstdcat",
    "xzcat",
    "bzcat",
    "lz4cat",
    "zless",
    "zmore",
    "zgrep",
    "zstdgrep",
    "strings",
    "journalctl",
    "dmesg",
    // What the machine has: memory, processors, disks.
    "free",
    "nproc",
    "lscpu",
    "lsblk",
    "uptime",
    "vmstat",
    "getconf",
    // Name lookups.
    "getent",
    "nslookup",
    "dig",
];

/// A program by the name of the one it stands in for: a launcher that fetches the pinned
/// version and runs it (`bazelisk`) does the same job.
fn canonical(program: String) -> String {
    match program.as_str() {
        "bazelisk" => "bazel".to_string(),
        _ => program,
    }
}

fn classify_segment(words: &[String]) -> Option<Classified> {
    let mut rest: &[String] = words;
    // Environment assignments and prefixes that only change how the command runs.
    loop {
        let first = rest.first()?;
        let assignment = first.contains('=') && !first.starts_with('-') && !first.starts_with('=');
        let env_prefix = first == "env" && rest.get(1).is_some_and(|w| w.contains('='));
        let unset = if first == "env" { unsets(rest).1 } else { 0 };
        if unset > 1 {
            // `env -u PYTHONPATH hatch test` runs `hatch test` with a variable unset.
            rest = &rest[unset..];
        } else if assignment || env_prefix {
            rest = &rest[1..];
        } else if first == "command" && rest.get(1).is_some_and(|w| w == "-v" || w == "-V") {
            // `command -v bazelisk` asks where a program is, as `which` does.
            return Some(named(CommandKind::Explore, "command", Some("-v")));
        } else if first == "timeout" {
            rest = rest.get(2..)?;
        } else if first == "direnv" && rest.get(1).is_some_and(|w| w == "exec") {
            // `direnv exec . airflow dags test x` runs the job with the folder's `.envrc` loaded.
            rest = rest.get(3..)?;
        } else if PREFIX_COMMANDS.contains(&first.as_str()) {
            rest = &rest[1..];
        } else {
            break;
        }
    }
    let program = canonical(program_name(rest.first()?));
    // `php8.3 /usr/local/bin/composer install`: an interpreter running an installed program
    // runs that program.
    let interpreter = matches!(program.as_str(), "php" | "python" | "ruby" | "node" | "perl");
    if interpreter && rest.get(1).is_some_and(|w| w.contains("/bin/") && !w.contains('.')) {
        return classify_segment(&rest[1..]);
    }
    if NO_OP_COMMANDS.contains(&program.as_str()) {
        return None;
    }
    let args: Vec<&str> = rest[1..].iter().map(String::as_str).collect();
    // `zig version`, `node --help`: asking a program about itself builds nothing.
    // (Nor does `zig env`, `go env`: its settings, printed.)
    if matches!(args.as_slice(), ["version" | "--version" | "-V" | "help" | "--help" | "-h" | "env"]) {
        return Some(named(CommandKind::Explore, &program, None));
    }
    // (Nor one asked in another shape: `docker version --format '{{.Server.Version}}'`,
    // `kubectl version --client`; not `npm version patch` or `yarn version --patch`, which
    // bump it.)
    const ASKING: &[&str] = &["--format", "-f", "--output", "-o", "--client", "--short", "--json", "--template"];
    if let ["version" | "--version", rest @ ..] = args.as_slice()
        && !rest.is_empty()
        && rest.iter().enumerate().all(|(i, arg)| {
            let flag = arg.split('=').next().unwrap_or(arg);
            ASKING.contains(&flag)
                || i > 0 && matches!(rest[i - 1], "--format" | "-f" | "--output" | "-o" | "--template")
        })
    {
        return Some(named(CommandKind::Explore, &program, None));
    }
    // (Nor does one run through a launcher of installed tools: `pixi run dagster --version`,
    // `uv run ruff --version`; not `go run ./cmd/server --help`, the project's own.)
    const LAUNCHERS: &[&str] = &["pixi", "uv", "poetry", "pipenv", "pdm", "hatch", "rye", "bundle", "conda", "mamba"];
    let launched = match args.as_slice() {
        ["run" | "exec", tool, ask] if LAUNCHERS.contains(&program.as_str()) => Some((*tool, *ask)),
        [tool, ask] if WRAPPERS.contains(&program.as_str()) => Some((*tool, *ask)),
        _ => None,
    };
    if let Some((tool, ask)) = launched
        && !tool.starts_with(['-', '.', '/'])
        && matches!(ask, "--version" | "-V")
    {
        return Some(named(CommandKind::Explore, &program, None));
    }
    Some(classify_program(&program, &args))
}

/// The program's name without its folder or version suffix (`/usr/bin/python3.11` → `python`).
fn program_name(word: &str) -> String {
    let base = word.rsplit('/').next().unwrap_or(word);
    let base = base.strip_suffix(".exe").unwrap_or(base);
    let trimmed = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match trimmed {
        "python" | "pip" | "node" | "ruby" | "perl" | "php" => trimmed.to_string(),
        _ => base.to_string(),
    }
}

/// A word that reads as a sub-command (`apply`, `db-migrate`), not a path, file or value.
fn is_subcommand_word(word: &str) -> bool {
    word.len() <= 24
        && word.starts_with(|c: char| c.is_ascii_lowercase())
        && word.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// The first argument that is not a flag (`-x`, `--x`) or a toolchain pin (`+nightly`).
fn first_word<'a>(args: &[&'a str]) -> Option<&'a str> {
    args.iter().copied().find(|a| !a.starts_with('-') && !a.starts_with('+'))
}

fn has_flag(args: &[&str], flags: &[&str]) -> bool {
    args.iter().any(|a| flags.contains(a))
}

fn named(kind: CommandKind, program: &str, sub: Option<&str>) -> Classified {
    let family = match sub {
        Some(sub) => format!("{program} {sub}"),
        None => program.to_string(),
    };
    Classified { kind, family, program: program.to_string() }
}

/// The flag (or module) with which an interpreter only parses its script, if it is given.
/// Whether `command` only parses a script (`bash -n bin/backup`, `ruby -c app.rb`): it
/// checks the file at hand, no way to lint the project.
pub(crate) fn is_syntax_check(command: &str) -> bool {
    let interpreters = ["bash", "sh", "zsh", "dash", "fish", "python", "node", "ruby", "perl", "php"];
    let classified = classify(command);
    classified.kind == CommandKind::Lint
        && interpreters.contains(&classified.program.as_str())
        && classified.family.split_once(' ').is_some_and(|(_, check)| {
            matches!(check, "-n" | "-c" | "-wc" | "-l" | "--check" | "py_compile" | "compileall")
        })
}

fn syntax_check<'a>(program: &str, args: &[&'a str]) -> Option<&'a str> {
    let flags: &[&str] = match program {
        "ruby" | "perl" => &["-c", "-wc"],
        "php" => &["-l"],
        "node" => &["--check", "-c"],
        _ => &[],
    };
    let module = |m: &str| matches!(m, "py_compile" | "compileall");
    match program {
        "python" => args.windows(2).find(|w| w[0] == "-m" && module(w[1])).map(|w| w[1]),
        _ => args.iter().find(|a| flags.contains(a)).copied(),
    }
}

/// A package manager's flags that pick the workspace package a command runs in, with it.
const PACKAGE_PICKERS: &[&str] = &["--filter", "-F", "--workspace", "-w", "-C", "--dir", "--prefix", "--cwd"];

/// Build tools whose command line names several tasks, each a job (`mvn clean verify`).
const MULTI_TASK_BUILDERS: &[&str] = &["mvn", "mvnw", "gradle", "gradlew", "sbt"];

/// A build tool's task without its project (`http/testOnly x` → `testOnly`, `:app:test` →
/// `test`).
fn build_task(arg: &str) -> &str {
    let task = arg.split_whitespace().next().unwrap_or(arg);
    // A formatter plugin's goal (`spotless:apply`) is said by its plugin and goal together.
    if ["spotless:", "fmt:", "formatter:", "checkstyle:"].iter().any(|plugin| task.starts_with(plugin)) {
        return task;
    }
    task.rsplit(['/', ':']).next().unwrap_or(task)
}

/// The kind of a build tool's task or sub-command.
fn build_task_kind(program: &str, task: &str) -> CommandKind {
    use CommandKind::*;
    match task {
        // `mix deps.get`, `mix ecto.gen.migration x`, `mix phx.server`: tasks, not builds.
        "deps.get" | "deps.update" => Install,
        // (`stack setup` installs the compiler the resolver asks for; `cabal update` fetches
        // the package index.)
        "setup" if program == "stack" => Install,
        "update" if program == "cabal" => Install,
        task if program == "mix" && task.contains('.') => Run,
        "test" | "testOnly" | "testQuick" | "verify" | "check" | "spec" | "integrationTest" => Test,
        "build" | "compile" | "package" | "install" | "assemble" | "publish" | "jar" => Build,
        "run" | "exec" | "bootRun" => Run,
        "credo" | "dialyzer" | "lint" | "hlint" | "detekt" | "ktlintCheck" | "spotlessCheck" | "scalafmtCheck"
        | "scalafmtCheckAll" | "scalafmtSbtCheck" | "scalastyle" | "clj-kondo" | "checkstyleMain" => Lint,
        "scalafmt" | "scalafmtAll" | "scalafmtSbt" | "spotlessApply" | "ktlintFormat" | "spotless:apply"
        | "fmt:format" | "formatter:format" => Format,
        "spotless:check" | "checkstyle:check" | "fmt:check" | "formatter:validate" => Lint,
        "clean" => Other,
        // Gradle's test tasks by target or variant: `jvmTest`, `allTests`, `testDebugUnitTest`.
        // (`assembleAndroidTest`, `installDebugAndroidTest` only build or install the tests.)
        task if (task.ends_with("Test") || task.ends_with("Tests"))
            && !["assemble", "install", "compile", "bundle"].iter().any(|p| task.starts_with(p)) =>
        {
            Test
        }
        _ => Build,
    }
}

/// The kind of an npm-style script by its name.
fn script_kind(script: &str) -> CommandKind {
    let s = script.to_ascii_lowercase();
    // `testdb`, `test-data`, `test-setup`: what a test run needs, not the run.
    let prepares = ["db", "data", "setup", "env", "fixture", "seed", "clean", "deps"].iter().any(|p| s.contains(p));
    if (s.contains("test") && !prepares) || s == "e2e" || s.starts_with("spec") {
        CommandKind::Test
    } else if s.contains("lint")
        || s.contains("typecheck")
        || s.contains("type-check")
        || s == "check"
        || s.contains("tsc")
    {
        CommandKind::Lint
    } else if s.contains("format") || s == "fmt" || s.contains("prettier") {
        CommandKind::Format
    } else if s.contains("build") || s.contains("compile") || s == "bundle" {
        CommandKind::Build
    } else {
        CommandKind::Run
    }
}

fn classify_program(program: &str, args: &[&str]) -> Classified {
    use CommandKind::*;
    let sub = first_word(args);
    match program {
        p if WRAPPERS.contains(&p) => match args.iter().position(|a| !a.starts_with('-')) {
            Some(i) => classify_program(&program_name(args[i]), &args[i + 1..]),
            None => named(Other, p, None),
        },
        // `go tool golangci-lint run`: the tool at the version go.mod pins.
        "go" if sub == Some("tool") && args.get(1).is_some_and(|a| !a.starts_with('-')) => {
            classify_program(&program_name(args[1]), &args[2..])
        }
        // `corepack pnpm install`: the package manager at the version the project pins.
        "corepack" if sub.is_some_and(|w| COREPACK_TOOLS.contains(&w)) => {
            let i = args.iter().position(|a| Some(*a) == sub).unwrap_or_default();
            classify_program(args[i], &args[i + 1..])
        }
        "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye" | "bundle" if matches!(sub, Some("run" | "exec")) => {
            let i = args.iter().position(|a| Some(*a) == sub).map_or(args.len(), |i| i + 1);
            match args.get(i) {
                // `hatch run test`, `pdm run lint`: a script of the project's, named for its
                // job (not the shell's `test`).
                Some(&script @ ("test" | "tests" | "lint")) if !matches!(program, "uv" | "bundle") => {
                    let kind = if script == "lint" { Lint } else { Test };
                    Classified { kind, family: format!("{program} run {script}"), program: program.to_string() }
                }
                Some(next) => classify_program(&program_name(next), &args[i + 1..]),
                None => named(Run, program, sub),
            }
        }
        // Hatch's own commands: `hatch fmt` formats with ruff, `hatch fmt --check` only checks.
        "hatch" => {
            let kind = match sub {
                Some("fmt") if has_flag(args, &["--check"]) => Lint,
                Some("fmt") => Format,
                Some("test") => Test,
                Some("build") => Build,
                Some("python") if args.contains(&"install") => Install,
                _ => Other,
            };
            named(kind, "hatch", sub)
        }
        // `mise exec -- mix test`, `mise x node@22 -- npm test`: the command after `--` is the job.
        // (So is `opam exec --switch=. -- dune build`'s, in the switch it names.)
        "mise" | "rtx" | "opam" if matches!(sub, Some("exec" | "x")) => match args.iter().position(|a| *a == "--") {
            Some(i) => {
                let rest: Vec<String> = args[i + 1..].iter().map(|a| a.to_string()).collect();
                classify_segment(&rest).unwrap_or_else(|| named(Run, program, sub))
            }
            None => named(Run, program, sub),
        },
        // `ruby -c x.rb`, `node --check x.js`, `python -m py_compile x.py` only parse: a
        // syntax check.
        "python" | "node" | "ruby" | "perl" | "php" if syntax_check(program, args).is_some() => {
            named(Lint, program, syntax_check(program, args))
        }
        "python" if args.first() == Some(&"-m") => match args.get(1) {
            Some(module) => classify_program(module, &args[2..]),
            None => named(Run, program, None),
        },
        "cargo" => {
            let kind = match sub {
                Some("test" | "t" | "nextest" | "bench" | "miri") => Test,
                Some("build" | "b" | "check" | "c" | "doc") => Build,
                Some("clippy" | "deny" | "audit" | "machete") => Lint,
                Some("fmt") if has_flag(args, &["--check"]) => Lint,
                Some("fmt") => Format,
                Some("run" | "r") => Run,
                Some("install" | "add" | "update" | "fetch" | "generate-lockfile") => Install,
                _ => Other,
            };
            named(kind, "cargo", sub)
        }
        "go" => {
            let kind = match sub {
                Some("test") => Test,
                // `go install golang.org/x/tools/cmd/goimports@latest` installs a tool.
                Some("install") if args.iter().any(|a| a.contains('@')) => Install,
                Some("build" | "install") => Build,
                Some("vet") => Lint,
                Some("fmt") => Format,
                Some("run" | "generate") => Run,
                Some("get" | "mod") => Install,
                _ => Other,
            };
            named(kind, "go", sub)
        }
        // (`pnpm --filter @app/api test`: the package picked is no sub-command.)
        "npm" | "pnpm" | "yarn" | "bun"
            if args.first().is_some_and(|a| PACKAGE_PICKERS.contains(a)) && args.len() > 2 =>
        {
            let family = classify_program(program, &args[2..]);
            Classified { program: program.to_string(), ..family }
        }
        "npm" | "pnpm" | "yarn" | "bun" | "deno" => match sub {
            Some("run" | "run-script") => {
                let script = first_word(&args[args.iter().position(|a| Some(*a) == sub).map_or(0, |i| i + 1)..]);
                let kind = script.map_or(Run, script_kind);
                let family = format!("{program} run {}", script.unwrap_or(""));
                Classified { kind, family: family.trim_end().to_string(), program: program.to_string() }
            }
            Some("test" | "t" | "tst") => named(Test, program, Some("test")),
            Some("install" | "i" | "ci" | "add" | "update" | "upgrade") => named(Install, program, sub),
            Some("start" | "dev" | "serve" | "preview") => named(Run, program, sub),
            Some("exec" | "x" | "dlx") => {
                let rest: Vec<&str> = args.iter().copied().skip_while(|a| Some(*a) != sub).skip(1).collect();
                match rest.iter().position(|a| !a.starts_with('-')) {
                    Some(i) => classify_program(&program_name(rest[i]), &rest[i + 1..]),
                    None => named(Other, program, sub),
                }
            }
            Some(builtin) if PACKAGE_MANAGER_COMMANDS.contains(&builtin) => named(Other, program, Some(builtin)),
            Some(script) if program == "npm" => named(Other, program, Some(script)),
            Some(script) => named(script_kind(script), program, Some(script)),
            None => named(if program == "yarn" { Install } else { Other }, program, None),
        },
        "make" | "just" | "task" | "mage" | "rake" | "invoke" => {
            let target = args.iter().copied().find(|a| !a.starts_with('-') && !a.contains('='));
            let kind = match target {
                None => Build,
                Some(t) => match script_kind(t) {
                    Run if t.contains("install") || t.contains("deps") || t.contains("setup") => Install,
                    Run if !(t.contains("run") || t.contains("serve") || t.contains("dev") || t.contains("start")) => {
                        Build
                    }
                    k => k,
                },
            };
            named(kind, program, target)
        }
        "pytest" | "py.test" | "jest" | "vitest" | "mocha" | "rspec" | "phpunit" | "tox" | "nox" | "bats" | "ctest"
        | "unittest" | "karma" | "ava" | "tap" | "playwright" | "cypress" | "nextest" => named(Test, program, None),
        "tsc" if has_flag(args, &["--noEmit", "--noemit"]) => named(Lint, "tsc", None),
        "tsc" | "webpack" | "esbuild" | "rollup" | "javac" | "gcc" | "g++" | "clang" | "clang++" | "cc" | "rustc"
        | "ninja" | "msbuild" | "meson" | "scons" | "parcel" | "turbo" | "nx" => named(Build, program, None),
        "vite" | "next" | "nuxt" | "astro" | "svelte-kit" => match sub {
            Some("build") => named(Build, program, sub),
            Some("test") => named(Test, program, sub),
            _ => named(Run, program, sub),
        },
        "cmake" => named(if has_flag(args, &["--build"]) { Build } else { Other }, "cmake", None),
        "dotnet" if matches!(sub, Some("csharpier" | "format")) => {
            let check = has_flag(args, &["--check", "--verify-no-changes"]);
            named(if check { Lint } else { Format }, program, sub)
        }
        "dotnet" if matches!(sub, Some("tool" | "restore" | "add" | "remove")) => named(Install, program, sub),
        // (`dune build @runtest` runs the tests by their alias, `@src/runtest` those of a folder,
        // and `dune build @fmt` checks the formatting, promoting nothing unless told to. They
        // stay jobs of the one build, as `dune build @runtest @fmt` is both.)
        "dune" if matches!(sub, Some("test" | "runtest")) => named(Test, program, sub),
        "dune" if sub == Some("build") && args.iter().any(|a| a.trim_start_matches('@').ends_with("runtest")) => {
            named(Test, program, sub)
        }
        "dune" if sub == Some("build") && args.iter().any(|a| a.trim_start_matches('@') == "fmt") => {
            named(if has_flag(args, &["--auto-promote"]) { Format } else { Lint }, program, sub)
        }
        "mvn" | "gradle" | "gradlew" | "./gradlew" | "mvnw" | "sbt" | "lein" | "mix" | "dotnet" | "swift" | "zig"
        | "bazel" | "buck" | "stack" | "cabal" | "dune" => {
            let program = program.trim_start_matches("./");
            if let Some("format" | "fmt") = sub {
                let check = has_flag(args, &["--check-formatted", "--check"]);
                return named(if check { Lint } else { Format }, program, sub);
            }
            // `./gradlew clean test`, `sbt "http/testOnly x" scalafmtCheckAll`, `mvn -q clean
            // verify`: of several tasks, the one that verifies most is the job (a check after a
            // formatter only confirms it).
            let tasks: Vec<&str> = if MULTI_TASK_BUILDERS.contains(&program) {
                args.iter().filter(|a| !a.starts_with('-') && !a.contains('=')).map(|a| build_task(a)).collect()
            } else {
                sub.into_iter().collect()
            };
            let job = tasks.iter().map(|task| (build_task_kind(program, task), *task)).min_by_key(|(kind, _)| {
                [Test, Build, Format, Lint, Run, Install, Other].iter().position(|k| k == kind).unwrap_or(usize::MAX)
            });
            match job {
                // Every test task (`testOnly x`, `it:test`, `verify`) runs the same job.
                Some((Test, _)) => named(Test, program, Some("test")),
                Some((kind, task)) => named(kind, program, Some(task)),
                // (`./gradlew --stop` stops the daemons; it builds nothing.)
                None if has_flag(args, &["--stop", "--status"]) => named(Other, program, None),
                None => named(Build, program, None),
            }
        }
        "crystal" => {
            let kind = match sub {
                Some("spec") => Test,
                Some("build") => Build,
                Some("tool") if has_flag(args, &["--check"]) => Lint,
                Some("tool") => Format,
                Some("run") => Run,
                _ => Other,
            };
            named(kind, program, sub)
        }
        "shards" => named(Install, program, sub),
        "flutter" | "dart" => {
            let kind = match sub {
                Some("test") => Test,
                Some("analyze") => Lint,
                Some("format") if has_flag(args, &["--set-exit-if-changed", "--output=none"]) => Lint,
                Some("format") => Format,
                Some("build" | "compile") => Build,
                Some("pub") => Install,
                Some("run") => Run,
                _ => Other,
            };
            named(kind, program, sub)
        }
        "docker" | "podman" => {
            let kind = match sub {
                Some("build" | "buildx") => Build,
                Some("run" | "compose" | "up" | "exec" | "start") => Run,
                _ => Other,
            };
            named(kind, program, sub)
        }
        // `tflint --init` fetches the rule plugins the linter then needs.
        "tflint" if has_flag(args, &["--init"]) => named(Install, program, Some("--init")),
        "eslint" | "flake8" | "pylint" | "mypy" | "pyright" | "golangci-lint" | "shellcheck" | "clippy-driver"
        | "stylelint" | "hadolint" | "rubocop" | "ktlint" | "swiftlint" | "markdownlint" | "yamllint"
        | "actionlint" | "vale" | "typos" | "staticcheck" | "phpstan" | "psalm" | "tflint" | "luacheck" | "selene"
        | "cppcheck" | "clang-tidy" | "detekt" | "revive" | "golint" | "jshint" | "sqlfluff" | "standardrb"
        | "hlint" | "clj-kondo" | "credo" | "dartanalyzer" | "ansible-lint" | "cfn-lint" | "djlint" => {
            // `sqlfluff fix`, `eslint --fix`, `rubocop -a`: the linter mends what it finds,
            // as a formatter would.
            named(if fixes_findings(program, sub, args) { Format } else { Lint }, program, None)
        }
        "ruff" | "biome" => match sub {
            Some("format") => named(Format, program, sub),
            _ if fixes_findings(program, None, args) => named(Format, program, sub.filter(|s| *s == "check")),
            _ => named(Lint, program, sub.filter(|s| *s == "check")),
        },
        "prettier" | "black" | "isort" | "autopep8" | "yapf" => {
            named(if has_flag(args, &["--check", "-c", "--diff"]) { Lint } else { Format }, program, None)
        }
        "gofmt" | "rustfmt" | "clang-format" | "shfmt" | "taplo" | "dprint" => named(Format, program, None),
        "pip" | "pipx" | "apt" | "apt-get" | "brew" | "conda" | "mamba" | "gem" | "composer" | "dnf" | "yum"
        | "apk" | "pacman" | "rustup" | "asdf" | "mise" | "nvm" => named(Install, program, sub),
        "uv" | "poetry" | "pipenv" | "pdm" | "bundle" => named(
            if matches!(sub, Some("sync" | "install" | "add" | "lock" | "pip")) { Install } else { Other },
            program,
            sub,
        ),
        "git" | "gh" | "hg" | "svn" | "jj" => named(Vcs, program, sub),
        "bash" | "sh" | "zsh" | "dash" | "fish" => match args.iter().position(|a| matches!(*a, "-c" | "-lc" | "-ic")) {
            // `bash -lc "cargo test"`: the script is the command.
            Some(i) => args.get(i + 1).map_or_else(|| named(Explore, program, None), |script| classify(script)),
            // `zsh -n functions.zsh` only parses the script: a syntax check.
            None if has_flag(args, &["-n", "--no-execute"]) => named(Lint, program, Some("-n")),
            // A bare shell is an interactive session: it verifies nothing.
            None if sub.is_none() => named(Explore, program, None),
            None => named(Run, program, sub),
        },
        // Django's `manage.py test` runs the tests, `manage.py check` checks the project.
        "python"
            if sub.is_some_and(|s| s.ends_with("manage.py")) && matches!(args.get(1), Some(&("test" | "check"))) =>
        {
            let kind = if args.get(1) == Some(&"test") { Test } else { Lint };
            Classified { kind, family: format!("python manage.py {}", args[1]), program: program.to_string() }
        }
        "python" | "node" | "ruby" | "perl" | "php" | "ts-node" | "tsx" => match sub {
            // A bare interpreter is a REPL: it verifies nothing.
            None if !has_flag(args, &["-c", "-e", "-m"]) => named(Explore, program, None),
            _ => named(Run, program, sub),
        },
        p if EXPLORE.contains(&p) => named(Explore, p, None),
        "terraform" | "tofu" | "terragrunt" => {
            let kind = match sub {
                Some("fmt") if has_flag(args, &["-check", "--check"]) => Lint,
                Some("fmt") => Format,
                Some("validate") => Lint,
                Some("plan" | "test") => Test,
                Some("init" | "get" | "providers") => Install,
                Some("apply" | "destroy" | "import") => Run,
                _ => Other,
            };
            named(kind, program, sub)
        }
        // `curl -sL https://…/docs.html` reads a page. (Not with `-o`, which downloads, nor
        // with data, credentials or headers, which ask a server to do something, nor of a
        // service of the project's own: `localhost:8080/health`.)
        "curl" => {
            let short = |letters: &[char]| {
                args.iter().any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains(letters))
            };
            let long = [
                "--data",
                "--form",
                "--request",
                "--upload-file",
                "--json",
                "--header",
                "--user",
                "--output",
                "--remote",
            ];
            // (`-o /dev/null -w '%{http_code}'` keeps nothing: it asks whether the server
            // answers.)
            let discards = args.windows(2).any(|pair| {
                let short_o = pair[0].starts_with('-') && !pair[0].starts_with("--") && pair[0].ends_with('o');
                (short_o || pair[0] == "--output") && pair[1] == "/dev/null"
            }) || args.contains(&"--output=/dev/null");
            let long: Vec<&str> = long.into_iter().filter(|flag| !(discards && *flag == "--output")).collect();
            let mut letters = vec!['d', 'F', 'T', 'X', 'H', 'u', 'o', 'O'];
            letters.retain(|c| !(discards && *c == 'o'));
            let acts = short(&letters) || args.iter().any(|a| long.iter().any(|flag| a.starts_with(flag)));
            // (An address of its own, `192.168.1.20`, is a machine of the project's.)
            let page = args.iter().any(|a| {
                let rest = a.strip_prefix("https://").or_else(|| a.strip_prefix("http://"));
                let host = rest.map(|r| r.split('/').next().unwrap_or(r));
                host.is_some_and(|h| {
                    h.contains('.') && !h.contains(':') && !h.chars().all(|c| c.is_ascii_digit() || c == '.')
                })
            });
            named(if page && !acts { Explore } else { Other }, program, None)
        }
        // `dbt build` runs the models and then their tests. (`dbt deps` refreshes the packages
        // the project pinned: no install of a way around, before a flag that got past.)
        "dbt" => {
            let kind = match sub {
                Some("test" | "build") => Test,
                Some("run" | "compile" | "seed" | "snapshot") => Build,
                _ => Other,
            };
            named(kind, program, sub)
        }
        "helm" => {
            let kind = match sub {
                Some("lint") => Lint,
                Some("test" | "unittest") => Test,
                Some("template" | "package") => Build,
                Some("install" | "upgrade") => Run,
                Some("repo" | "dependency" | "dep" | "plugin") => Install,
                _ => Other,
            };
            named(kind, program, sub)
        }
        p if p.starts_with("./") || p.ends_with(".sh") || p.ends_with(".py") => named(Run, p, None),
        // An unknown program's sub-command is its job: `terraform apply` is not `terraform fmt`.
        // (A path before it is an option's value: `alembic -c db/alembic.ini revision`.)
        p => {
            let sub = args.iter().copied().find(|a| !a.starts_with('-') && !a.contains(['/', '.', '=']));
            let named_sub =
                first_word(args).filter(|s| is_subcommand_word(s)).or(sub.filter(|s| is_subcommand_word(s)));
            named(Other, p, named_sub)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_before_the_sub_command_runs_the_same_job() {
        assert!(runs_the_same("stack --no-system-ghc test 2>&1 | tail -3", "stack test"));
        assert!(!runs_the_same("stack --no-system-ghc build", "stack test"));
        // (Nor does another program's job of the same name, or another job of the program.)
        assert!(!runs_the_same("cabal --verbose test", "stack test"));
        assert!(!runs_the_same("php artisan key:generate", "php artisan test"));
        // (A short flag may take a value: `make -C build` is no `make build`.)
        assert!(!runs_the_same("make -C build", "make build"));
    }

    #[test]
    fn a_program_asked_its_version_through_a_launcher_only_looks() {
        for look in ["pixi run dagster --version", "uv run ruff --version", "npx tsc --version", "poetry run pytest -V"]
        {
            assert_eq!(classify(look).kind, CommandKind::Explore, "{look}");
        }
        // (A task named so, or a job with more to it, is run.)
        assert_ne!(classify("uv run pytest -x --help-me").kind, CommandKind::Explore);
        assert_ne!(classify("npx tsc --noEmit").kind, CommandKind::Explore);
        assert_ne!(classify("uv run pytest").kind, CommandKind::Explore);
        // (Or asked in another shape; a bump is no question.)
        assert_eq!(classify("docker version --format '{{.Server.Version}}'").kind, CommandKind::Explore);
        assert_eq!(classify("kubectl version --client").kind, CommandKind::Explore);
        assert_ne!(classify("npm version patch").kind, CommandKind::Explore);
        assert_ne!(classify("yarn version --new-version 1.2.3").kind, CommandKind::Explore);
        assert_ne!(classify("yarn version --patch").kind, CommandKind::Explore);
        assert_ne!(classify("go run ./cmd/server --help").kind, CommandKind::Explore);
        assert_ne!(classify("docker run myimg --version").kind, CommandKind::Explore);
    }

    #[test]
    fn the_program_of_a_chain_is_that_of_the_job_it_does() {
        let chain = "go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.5.1 && buf generate";
        assert_eq!(program_of_job(chain, "buf generate").as_deref(), Some("buf"));
        assert_eq!(program_of_job(chain, "mdbook build").as_deref(), Some("go"));
        // (A quoted setting is one word, however many flags it holds.)
        let set = "make deps && GOFLAGS=\"-tags=integration -count=1\" go vet ./...";
        assert_eq!(program_of_job(set, "go vet").as_deref(), Some("go"));
        assert_eq!(
            program_of_job("PYTEST_ADDOPTS=\"-p no:cacheprovider\" pytest", "pytest").as_deref(),
            Some("pytest")
        );
        assert_eq!(
            segment_families("uv cache clean && uv sync -q && ls && uv run app eval | tail -1")
                .last()
                .map(String::as_str),
            Some("app eval")
        );
    }

    #[test]
    fn installing_a_compiler_or_an_index_is_an_install() {
        assert_eq!(classify("stack setup").kind, CommandKind::Install);
        assert_eq!(classify("cabal update").kind, CommandKind::Install);
        assert_eq!(classify("stack test").kind, CommandKind::Test);
        // `opam exec -- dune build` builds, in the switch it names.
        assert_eq!(classify("opam exec --switch=. -- dune build").family, "dune build");
    }

    #[test]
    fn the_options_an_attempt_added_are_told_word_by_word() {
        assert_eq!(added_options("stack test", "stack --no-system-ghc test"), ["--no-system-ghc"]);
        assert_eq!(added_options("cargo test", "cargo test --features fts5"), ["--features fts5"]);
        // (A word after a flag that reads as no value is another kind of word; a flag that
        // only says more is no option of the way.)
        assert!(added_options("cargo test", "cargo test --release integration").is_empty());
        assert!(added_options("pytest tests", "pytest -v tests").is_empty());
        // A group goes only where its words stand together.
        assert_eq!(without_group("cargo test --features fts5 -q", "--features fts5"), "cargo test -q");
        assert_eq!(
            without_group("cargo test --features fts5,json", "--features fts5"),
            "cargo test --features fts5,json"
        );
        assert_eq!(added_options("go test ./...", "CGO_ENABLED=1 go test ./..."), ["CGO_ENABLED=1"]);
        // Another job, words taken out, or a path added: no options.
        assert!(added_options("stack test", "stack build --fast").is_empty());
        assert!(added_options("pytest -q tests", "pytest tests").is_empty());
        assert!(added_options("pytest", "pytest tests/test_a.py").is_empty());
    }

    #[test]
    fn asking_a_version_or_what_a_tool_holds_only_looks() {
        assert_eq!(
            without_looks("ocaml -version; opam switch show; opam switch list; opam update -y"),
            "opam update -y"
        );
        assert!(only_looks("java -version; rustup toolchain list"));
        // (A script of that name is the project's own.)
        assert!(!only_looks("npm run status"));
        assert!(!only_looks("opam switch create . 5.2.0"));
        assert!(!only_looks("git checkout current"));
        assert!(!only_looks("rm -rf current"));
        // (A tool's settings asked by a hyphened verb; `use-context` changes them.)
        assert!(only_looks("kubectl config current-context; kubectl config get-contexts -o name"));
        assert!(only_looks("kubectl config view --minify"));
        assert!(!only_looks("kubectl config use-context kind-dev"));
        assert!(!only_looks("kubectl config set-context --current --namespace=dev"));
    }

    #[test]
    fn a_package_index_fetched_again_installs_nothing() {
        assert!(refreshes_only("opam update -y >/dev/null 2>&1"));
        assert!(refreshes_only("sudo apt-get update && dune clean"));
        assert!(refreshes_only("helm repo update"));
        assert!(!refreshes_only("opam update -u"), "it upgrades too");
        assert!(!refreshes_only("sudo service postgresql restart"));
        assert!(!refreshes_only("opam update -y && opam install ppx_deriving"));
        assert!(!refreshes_only("brew update pkg-config"));
        assert!(!refreshes_only("npm update"));
    }

    #[test]
    fn dunes_aliases_say_what_its_build_does() {
        let kind = |command: &str| (classify(command).kind, classify(command).family);
        assert_eq!(kind("dune build @runtest"), (CommandKind::Test, "dune build".to_string()));
        assert_eq!(kind("dune build @src/runtest").0, CommandKind::Test);
        assert_eq!(kind("opam exec --switch=. -- dune build @runtest @fmt").0, CommandKind::Test);
        assert_eq!(kind("dune build @fmt"), (CommandKind::Lint, "dune build".to_string()));
        assert_eq!(kind("dune build @fmt --auto-promote").0, CommandKind::Format);
        assert_eq!(kind("dune test").0, CommandKind::Test);
        assert_eq!(kind("dune build").0, CommandKind::Build);
    }

    #[test]
    fn a_restart_or_a_clear_sets_nothing_up() {
        assert!(only_restarts(
            "sudo systemctl restart docker && sleep 2 && docker version --format '{{.Server.Version}}'"
        ));
        assert!(only_restarts("docker builder prune -af"));
        assert!(only_restarts("brew services restart postgresql@16"));
        assert!(!only_restarts("sudo systemctl start postgresql"));
        assert!(!only_restarts("sdk install java 17"));
        assert!(!only_restarts("sudo systemctl restart docker && docker buildx install"));
        assert!(!only_restarts("docker version"));
        // (`systemctl is-active docker` after it only asks how the unit stands.)
        assert!(only_restarts("sudo systemctl restart docker && systemctl is-active docker"));
        assert!(!only_restarts("sudo systemctl restart docker && systemctl enable docker"));
        assert!(only_restarts("sudo systemctl restart nginx && sudo systemctl status nginx"));
        assert!(only_removes("rm -rf renv/library"));
        assert!(only_removes("sudo rm -rf ~/.m2/repository/com/xenophora && ls ~/.m2"));
        assert!(!only_removes("rm -rf renv/library && Rscript -e 'renv::restore()'"));
        assert!(!only_removes("ls renv"));
        assert!(names_no_package("bundle install"));
        assert!(names_no_package("pip install -r requirements.txt"));
        assert!(!names_no_package("sudo apt-get install -y libssl-dev"));
        assert!(!names_no_package("bundle add webrick"));
        assert!(names_no_package("nimble refresh && nimble install -d"));
        assert_eq!(
            job_past_clears("poetry cache clear --all pypi -n && poetry install", "poetry install"),
            "poetry install"
        );
        assert_eq!(job_past_clears("npm ci && npm test", "npm test"), "npm ci && npm test");
    }

    #[test]
    fn a_step_taken_back_is_undone_by_the_same_program_on_the_same_thing() {
        assert!(undoes("mise unuse -g zig && mise exec -- zig version", "mise use -g zig@0.13.0 && zig version"));
        assert!(undoes("pip uninstall -y fonttools", "pip install --force-reinstall fonttools==4.55.0"));
        assert!(undoes("poetry remove httpx", "poetry add httpx@^0.27"));
        assert!(undoes("pipx uninject ansible-core molecule", "pipx inject ansible-core molecule"));
        assert!(undoes("git config --unset core.hooksPath", "git config core.hooksPath .husky"));
        assert!(undoes("npm config delete ignore-scripts", "npm config set ignore-scripts false"));
        // Another thing, another program, or the same step again takes nothing back.
        assert!(!undoes("mise unuse -g node", "mise use -g zig@0.13.0"));
        assert!(!undoes("npm uninstall left-pad", "pip install left-pad"));
        assert!(!undoes("mise use -g zig@0.13.0", "mise use -g zig@0.13.0"));
        assert!(!undoes("git config core.hooksPath .githooks", "git config core.hooksPath .husky"));
        assert!(!undoes("npm install", "npm uninstall left-pad"));
        assert!(undoes("sudo apt-get remove -y libfoo-dev", "sudo apt-get install -y libfoo-dev"));
        // A line appended to a file, deleted from it again.
        let appended = "echo 'export ANDROID_HOME=$HOME/Android/Sdk' >> ~/.bashrc && ./gradlew test";
        assert!(undoes(
            r"sed -i '/export ANDROID_HOME=\$HOME\/Android\/Sdk/d' ~/.bashrc && tail -2 ~/.bashrc",
            appended
        ));
        assert!(!undoes(r"sed -i '/export ANDROID_HOME=/d' ~/.profile", appended));
        assert!(!undoes(r"sed -i '/export PATH=/d' ~/.bashrc", appended));
        // Another version, a flag's value, or one package of two is not what was installed.
        assert!(!undoes("mise uninstall node@18", "mise install node@20"));
        assert!(!undoes("poetry remove --group dev black", "poetry add --group dev pytest"));
        assert!(!undoes("dotnet remove package Serilog", "dotnet add package Polly"));
        assert!(!undoes("pip uninstall -y numpy", "pip install numpy pandas"));
        // (Put back at once, it is a reinstall.)
        assert!(!undoes("pip uninstall -y torch && pip install torch --index-url https://x/cpu", "pip install torch"));
    }

    #[test]
    fn the_looks_on_the_way_are_no_part_of_a_step() {
        assert_eq!(without_looks("df -h /home | tail -1; uv python install 3.12"), "uv python install 3.12");
        assert_eq!(without_looks("swiftly use 6.0.3 && swift --version"), "swiftly use 6.0.3");
        // (A command that only looks stays as it is.)
        assert_eq!(without_looks("df -h /home"), "df -h /home");
        assert_eq!(without_looks("getent hosts example.net; go env -w GOPROXY=direct"), "go env -w GOPROXY=direct");
        assert!(only_looks("getent hosts proxy.golang.org; go env GOPROXY"));
        assert_eq!(
            without_set_back(vec![
                "npm config set ignore-scripts false && npm config get ignore-scripts".into(),
                "npm config set ignore-scripts true && npm rebuild better-sqlite3 --ignore-scripts=false".into(),
            ]),
            ["npm config get ignore-scripts", "npm rebuild better-sqlite3 --ignore-scripts=false"]
        );
        assert_eq!(
            without_set_back(vec!["go env -w GOFLAGS=-mod=mod".into(), "go env -u GOFLAGS".into(), "make".into()]),
            ["make"]
        );
        // (Set once, it stays.)
        assert_eq!(
            without_set_back(vec!["pip config set global.cert /etc/ssl/corp.pem".into()]),
            ["pip config set global.cert /etc/ssl/corp.pem"]
        );
        assert!(!only_looks("getent hosts example.net; go env -w GOPROXY=direct"));
        assert!(!only_looks("cat .env > .env.test"));
        assert!(only_looks("npm config get ignore-scripts"));
        assert!(only_looks(
            "cat .npmrc; curl -sS -o /dev/null -w '%{http_code}' https://npm.example.internal/-/ping; pnpm store path"
        ));
        assert!(only_looks("pip cache dir"));
        assert!(only_looks("git config --show-origin --get core.autocrlf"));
        assert!(only_looks("git config core.autocrlf"));
        assert!(!only_looks("git config --global core.autocrlf input"));
        assert!(!only_looks("git config --unset core.autocrlf"));
        assert!(only_looks("apt-cache policy texlive-bibtex-extra biber | grep -E '^[a-z]|Installed'"));
        assert!(only_looks("pkg-config --modversion libxml-2.0; dpkg -l libxml2 libxml2-dev 2>&1 | tail -2"));
        assert!(only_looks("bundle -v; gem list webrick"));
        assert!(!only_looks("dpkg -i ./x.deb"));
        assert!(!only_looks("pip install -e ."));
        assert!(only_looks("free -g | head -2"));
        assert!(only_looks("update-alternatives --display php | head -4"));
        assert!(!only_looks("update-alternatives --set php /usr/bin/php8.3"));
        for look in [
            "rpm -q libxml2",
            "apt list --installed 2>/dev/null | grep -i webkit",
            "pip show pyspark",
            "npm ls typescript",
            "cargo tree -i openssl",
            "node -v",
        ] {
            assert!(only_looks(look), "{look}");
        }
        for not in [
            "apt-cache gencaches",
            "dpkg -s libxml2-dev || sudo apt-get install -y libxml2-dev",
            "npm ls typescript || npm i -D typescript",
            "git config --get user.name || git config --global user.name bot",
            "git config core.compression -1",
            "ninja -v",
            "find . -name '*.sh' -exec chmod +x {} \\;",
        ] {
            assert!(!only_looks(not), "{not}");
        }
        assert!(!only_looks("pytest -v"));
        for clears in [
            "dbt clean && dbt deps",
            "go clean -cache",
            "php8.3 bin/console cache:clear --env=test",
            "rm -rf resources/_gen",
            "bin/spring stop",
            "rm -rf node_modules && npm ci",
            "./gradlew --stop",
            "rm -rf .nuxt .output node_modules/.cache",
            "rm -rf .svelte-kit",
            "npx nuxi cleanup",
        ] {
            assert!(without_clears(vec![clears.to_string()]).is_empty(), "{clears}");
        }
        for not in [
            "dbt deps",
            "npm ci",
            "go env -u GOFLAGS",
            "cargo clean && cargo build",
            "ls",
            "mvn clean install",
            "rm -rf app/pages",
            "rm --force x.lock",
            "rm -rf .next && pip install psycopg2-binary",
            "go clean -cache && go install golang.org/x/tools/cmd/stringer@latest",
            "./test-env.sh cleanup",
            "npx jest clean",
        ] {
            assert!(!without_clears(vec![not.to_string()]).is_empty(), "{not}");
        }
        let steps = ["dbt clean", "dbt deps", "dbt debug"].map(String::from).to_vec();
        assert_eq!(without_clears(steps), ["dbt debug"]);
        assert!(only_looks("df -h /home | tail -1; docker system df"));
        assert!(!only_looks("docker builder prune -f"));
        assert!(only_looks("curl -sL 'https://discourse.gohugo.io/t/x/44731' | html2text | sed -n '1,18p'"));
        assert!(!only_looks("pnpm store prune"));
        assert_eq!(
            reverted_files("git checkout -- src/V7.sql src/test/resources/application-test.yml && git status --short"),
            ["src/V7.sql", "src/test/resources/application-test.yml"]
        );
        assert_eq!(reverted_files("git restore --staged a.yml"), Vec::<String>::new());
        assert_eq!(reverted_files("git checkout main"), Vec::<String>::new());
        assert_eq!(reverted_files("git checkout origin/main -- Cargo.lock"), Vec::<String>::new());
        assert_eq!(without_putting_back("git checkout -- package-lock.json && npm ci"), "npm ci");
        assert_eq!(without_putting_back("git checkout -- a.yml && git status --short"), "git status --short");
        assert_eq!(without_looks("echo 'x=1' > .env && make test"), "echo 'x=1' > .env && make test");
    }

    #[test]
    fn a_variable_exported_before_the_job_is_a_step_of_it() {
        let line = "export PATH=\"$HOME/.local/share/swiftly/bin:$PATH\"; swift --version | head -1; swift build";
        assert_eq!(settings_before_job(line, "swift build"), ["export PATH=\"$HOME/.local/share/swiftly/bin:$PATH\""]);
        // (Not one of a file read with every variable exported: no single step tells it.)
        assert!(settings_before_job("set -a; . ./.env; set +a; poetry install", "poetry install").is_empty());
        let piped = "set -o pipefail; export UV_PYTHON=3.12; uv sync";
        assert_eq!(settings_before_job(piped, "uv sync"), ["export UV_PYTHON=3.12"]);
        assert!(settings_before_job("swift build", "swift build").is_empty());
    }

    #[test]
    fn a_search_piped_last_is_told_with_what_it_looks_for() {
        let line = "dune build 2>&1 | grep -c 'Library \"yojson\" not found'";
        assert_eq!(searched_pattern(line), Some(("Library \"yojson\" not found".to_string(), true)));
        assert_eq!(searched_pattern("make 2>&1 | grep error"), Some(("error".to_string(), false)));
        assert_eq!(searched_pattern("ansible-galaxy collection list | grep -i postgres || echo none"), None);
        assert_eq!(searched_pattern("make 2>&1 | grep -v 'not found'"), None);
        assert_eq!(searched_pattern("make test"), None);
    }

    #[test]
    fn the_step_that_does_the_job_is_found_in_a_line_of_steps() {
        let words = |line: &str| job_step_words(line, "bundle install");
        let install = Some(vec!["bundle".to_string(), "install".to_string()]);
        assert_eq!(words("sleep 60; bundle install | tail -3"), install);
        assert_eq!(words("git log -3 && bundle install"), install);
        assert_eq!(words("make test"), None);
    }

    #[test]
    fn a_variable_unset_before_a_command_is_no_part_of_its_job() {
        assert_eq!(classify("env -u PYTHONPATH hatch test").family, classify("hatch test").family);
        assert_eq!(classify("env --unset=GOFLAGS -u CC go build ./...").family, "go build");
        assert_eq!(setting_words("env -u A -uB make test"), ["env -u A", "env -u B", "make", "test"]);
        assert_eq!(setting_words("make test"), ["make", "test"]);
    }

    #[test]
    fn a_process_left_running_is_started_in_the_background() {
        for command in [
            "uv run uvicorn app.main:app --port 8000 &",
            "nohup ./bin/serve > /tmp/s.log 2>&1 &",
            "docker compose up -d db",
            "deno task dev > /tmp/dev.log 2>&1 & sleep 2 && curl -s localhost:8787/health",
        ] {
            assert!(starts_in_background(command), "{command}");
        }
        for command in [
            "make test 2>&1 | tail -5",
            "cargo build && cargo test",
            "echo 'a & b'",
            "ls &> /dev/null",
            "cargo test |& tail -5",
        ] {
            assert!(!starts_in_background(command), "{command}");
        }
    }

    #[test]
    fn ports_are_read_from_commands_and_errors() {
        let named = |text: &str| ports_named(text).into_iter().collect::<Vec<_>>();
        assert_eq!(named("uv run uvicorn app.main:app --port 8000 &"), ["8000"]);
        assert_eq!(named("[Errno 98] error while attempting to bind on address ('127.0.0.1', 8000)"), ["8000"]);
        assert_eq!(named("listen EADDRINUSE: address already in use :::3000"), ["3000"]);
        assert!(named("Os { code: 98, kind: AddrInUse }").is_empty());
    }

    #[test]
    fn a_daemon_stop_is_told_apart() {
        assert!(stops_daemons("./gradlew --stop"));
        assert!(!stops_daemons("./gradlew test"));
        assert!(!stops_daemons("./gradlew"));
    }

    fn without_looks_before_ok(command: &str) -> String {
        without_looks_before(command, "FAILED: 2 tests")
    }

    #[test]
    fn a_version_look_before_a_job_is_no_part_of_its_failure() {
        // (Unless the version check is what failed, or no version was asked.)
        let missing = "php artisan --version && ./vendor/bin/pest";
        assert_eq!(without_looks_before(missing, "Could not open input file: artisan"), missing);
        let committed = "git commit -m version && git push";
        assert_eq!(without_looks_before_ok(committed), committed);
        assert_eq!(without_looks_before_ok("flutter --version && flutter test"), "flutter test");
        assert_eq!(without_looks_before_ok("php artisan --version && ./vendor/bin/pest"), "./vendor/bin/pest");
        // (A look alone is the command; one after the job stays.)
        assert_eq!(without_looks_before_ok("go version"), "go version");
        assert_eq!(
            without_looks_before_ok("sed -i 's/a/b/' x.json && deno task test"),
            "sed -i 's/a/b/' x.json && deno task test"
        );
        assert_eq!(without_looks_before_ok("deno --version | head -1 && deno task test"), "deno task test");
        assert_eq!(without_looks_before_ok("make build && ./bin/x --version"), "make build && ./bin/x --version");
    }

    #[test]
    fn a_job_line_keeps_the_job_only() {
        assert_eq!(
            job_line("cargo clippy --workspace -- -D warnings 2>&1 | tail -2 && rg -n anyhow crates/core"),
            "cargo clippy --workspace -- -D warnings"
        );
        assert_eq!(job_line("cargo test -p core 2>&1 | tail -2"), "cargo test -p core");
        assert_eq!(job_line("cd app && npm run test:unit"), "cd app && npm run test:unit");
        assert_eq!(job_line("node bin/x.js export --dry-run && npm test"), "npm test");
        assert_eq!(job_line("grep -n -A3 '^sqlc-check' Makefile && make sqlc-check"), "make sqlc-check");
        assert_eq!(job_line("cd api && make dev > /tmp/dev.log 2>&1"), "cd api && make dev");
        assert_eq!(without_output_filters("make dev >/tmp/dev.log"), "make dev");
        assert_eq!(
            job_line(
                "cat /etc/os-release | grep -E '^(ID|VERSION_ID)='; MONGOMS_DISTRO=ubuntu-22.04 npx jest t.test.js"
            ),
            "MONGOMS_DISTRO=ubuntu-22.04 npx jest t.test.js"
        );
        // (Not a `;` inside a quoted argument, nor `find`'s own `\;`.)
        assert_eq!(job_line("psql -c 'select 1; select 2'"), "psql -c 'select 1; select 2'");
        assert_eq!(
            job_line("find . -name '*.sh' -exec chmod +x {} \\; ; ./run_tests.sh"),
            "find . -name '*.sh' -exec chmod +x {} \\; ; ./run_tests.sh"
        );
    }

    #[test]
    fn the_same_invocation_is_found_in_a_chain() {
        assert!(runs_the_same(
            "bin/rails runner 'x' && PGHOST=localhost bin/rails test",
            "bin/rails test test/services/a_test.rb"
        ));
        assert!(!runs_the_same("cp .env.example .env && php artisan key:generate", "php artisan test"));
        assert!(runs_the_same("cargo test -p core", "cargo test"));
    }

    #[test]
    fn the_steps_before_a_job_in_a_chain_are_read() {
        assert_eq!(
            steps_before_job("docker compose up -d postgres && sleep 3 && mix test test/a_test.exs", "mix test"),
            ["docker compose up -d postgres"]
        );
        assert!(steps_before_job("cd app && mix test", "mix test").is_empty());
        assert_eq!(
            steps_before_job(
                "mkdir -p ~/.config/nix && echo 'x = 1' >> ~/.config/nix/nix.conf && nix flake show",
                "nix flake"
            ),
            ["mkdir -p ~/.config/nix", "echo 'x = 1' >> ~/.config/nix/nix.conf"]
        );
        assert!(steps_before_job("echo start > /tmp/t && date 2>&1 >/dev/null && mix test", "mix test").is_empty());
        assert!(steps_before_job("mix test && docker compose down", "mix test").is_empty());
    }

    #[test]
    fn a_status_is_the_jobs_only_when_the_job_runs_last() {
        assert!(status_is_the_jobs("cargo test"));
        assert!(status_is_the_jobs("cd app; npm test 2>&1 | tail -3"));
        assert!(!status_is_the_jobs("ctest --preset x -R data | tail -6; ls -A tests/data; cat .gitmodules"));
        assert!(!status_is_the_jobs("cargo test; echo \"exit=$?\""));
        assert!(status_is_the_jobs("echo 'a; b' && make test"));
        assert!(status_is_the_jobs("deno run --allow-net main.ts & sleep 1; curl -s localhost:8000/; kill %1"));
        assert!(status_is_the_jobs("(REDIS_URL=redis://localhost:6380 npm run dev &) ; sleep 4; curl -s x"));
        assert!(!status_is_the_jobs("cargo test 2>&1; echo done"));
        // An escaped `;` is an argument of the program, no separator of the shell's.
        assert!(status_is_the_jobs("stow --dotfiles -t ~ tmux && tmux -L check start-server \\; show -g prefix"));
    }

    #[test]
    fn a_status_lost_in_a_filter_is_told() {
        let status_hidden_by_filter = |c: &str| status_hidden_by_filter(c, &classify(c).family);
        assert!(status_hidden_by_filter("go test ./... 2>&1 | tail -20"));
        assert!(status_hidden_by_filter("cd app && make test SIM=x | grep -v '^ cd '"));
        assert!(!status_hidden_by_filter("go test ./..."));
        assert!(!status_hidden_by_filter("cat x.log | go test ./..."));
        assert!(!status_hidden_by_filter("make test || echo 'a | b'"));
        let lines_shown = |c: &str| lines_shown(c, &classify(c).family);
        assert_eq!(lines_shown("pytest tests -q 2>&1 | tail -1"), Some(1));
        assert_eq!(lines_shown("pip install -U x 2>&1 | tail -1 && dbt build --select m 2>&1 | tail -n 2"), Some(2));
        assert_eq!(lines_shown("cargo build 2>&1 | head -n3"), Some(3));
        assert_eq!(lines_shown("go test ./... | tail -1 && git status --short"), None);
        assert_eq!(lines_shown("go test ./... | grep FAIL"), None);
        assert_eq!(lines_shown("go test ./... | tail -f"), None);
        assert_eq!(lines_shown("go test ./... | tail -n +2"), None);
    }

    #[test]
    fn a_program_run_the_projects_way_is_told_apart() {
        assert!(through_runner("mkdocs serve", "uv run mkdocs build --strict"));
        // `corepack pnpm` is the pinned pnpm: the same job as `pnpm`.
        assert_eq!(classify("corepack pnpm --filter @m/shared test").kind, CommandKind::Test);
        assert_eq!(classify("corepack pnpm install").kind, CommandKind::Install);
        assert!(runs_the_same("corepack pnpm install && corepack pnpm test", "pnpm test"));
        assert!(!runs_the_same("corepack enable", "enable"));
        assert_eq!(
            job_line_for(
                "echo $PATH | tr ':' '\\n' | head -4; corepack enable --install-directory ~/.local/bin && hash -r",
                "corepack enable"
            ),
            "corepack enable --install-directory ~/.local/bin"
        );
        assert_ne!(classify("corepack enable").program, "enable");
        assert!(through_runner("eslint src", "npx eslint src"));
        assert!(through_runner("rake test", "bundle exec rake test"));
        assert!(through_runner("flutter test", "fvm flutter test"));
        assert!(through_runner("golangci-lint run ./...", "go tool golangci-lint run ./..."));
        assert!(!through_runner("uv run mkdocs serve", "uv run mkdocs build"));
        assert!(!through_runner("bazel test //x:y", "bazelisk run //:gazelle"));
        assert!(!through_runner("pytest", "pytest -q"));
        assert!(!through_runner("mkdocs serve", "uv run pytest"));
        assert!(runs_another_install("pytest tests/api -q", ".venv/bin/python -m pytest tests/api -q"));
        assert!(runs_another_install("mypy src", ".venv/bin/mypy src"));
        assert!(runs_another_install("pytest -x", "uv run pytest -x"));
        assert!(!runs_another_install("pytest -x", "pytest -x -q"));
        assert!(!runs_another_install("./gradlew test", "./gradlew test --offline"));
        assert!(!runs_another_install("pytest", ".venv/bin/mypy src"));
        assert!(!runs_another_install("bin/rspec", "env -u DATABASE_URL bin/rspec"));
        // (A chain's step that runs it: the index fetched before it is another step.)
        assert!(runs_another_install_in(
            "dune build @runtest",
            "opam update -y && opam exec --switch=. -- dune build @runtest"
        ));
        assert!(runs_another_install_in("flutter test", "fvm flutter test test/cart/"));
        assert!(!runs_another_install_in("dune build @runtest", "opam update -y && dune build @runtest"));
        assert!(runs_another_install_in(
            "dune build @runtest",
            "opam update; opam exec --switch=. -- dune build @runtest"
        ));
        assert!(is_named_in("python manage.py test orders", "No — the tests are pytest, not `manage.py test`."));
        assert!(is_named_in("npm run e2e -- --headed", "no, never npm run e2e here"));
        assert!(!is_named_in("python manage.py test orders", "No, use uv run python for everything."));
        assert!(!is_named_in("pytest -x tests/api", "No — run pytest through uv."));
        assert!(!is_named_in("npm run build", "No — use npm run lint, not eslint directly."));
        assert!(!is_named_in("cd api && pytest tests", "No, the api tests need the db."));
        assert!(through_runner("python manage.py test orders", "uv run python manage.py test orders"));
        assert!(!through_runner("python manage.py test orders", "uv run python manage.py makemigrations orders"));
        assert!(through_runner("mkdocs serve", "cd docs && uv run mkdocs build --strict"));
        assert!(!writes_a_file("grep -n \"count > 0\" src/cart.ts"));
        assert!(!writes_a_file("git diff > before.patch"));
        assert!(writes_a_file("echo 'x = 1' >> ~/.config/nix/nix.conf"));
        assert!(writes_a_file("echo '10.0.0.5 db' | sudo tee -a /etc/hosts"));
        assert_eq!(
            breaks_a_lock("eval \"$(direnv export bash)\" && terraform force-unlock -force 7c").as_deref(),
            Some("terraform")
        );
        assert_eq!(breaks_a_lock("tofu plan -lock=false").as_deref(), Some("tofu"));
        assert_eq!(breaks_a_lock("rm -f .git/index.lock").as_deref(), Some("git"));
        for generator in [
            "mix ecto.gen.migration add_visibility",
            "bin/rails g model Plot",
            "php bin/console make:migration",
            "dotnet ef migrations add AddArchivedAt --project src/Data",
            "alembic -c db/alembic.ini revision --autogenerate -m x",
        ] {
            assert!(generates(generator), "{generator}");
        }
        // (Code generated again from the project's sources is a way to build it.)
        for run in [
            "go generate ./internal/db",
            "npx prisma generate",
            "mix test",
            "bin/rails db:migrate",
            "dotnet ef database update",
            "go run ./cmd/x list",
        ] {
            assert!(!generates(run), "{run}");
        }
        assert_eq!(breaks_a_lock("terraform plan -lock-timeout=10m"), None);
        assert!(same_program_after_steps("stow zsh-prompt", "mv a.zsh a.zsh.bak && stow -R zsh zsh-prompt"));
        assert!(!same_program_after_steps(
            "terraform plan",
            "eval \"$(direnv export bash)\" && terraform force-unlock 7c"
        ));
        assert!(!same_program_after_steps("stow zsh-prompt", "stow -R zsh zsh-prompt"));
        assert!(!same_program_after_steps(
            "php bin/phpunit tests/A.php",
            "php bin/console doctrine:database:create && php bin/console doctrine:migrations:migrate"
        ));
        assert!(!through_runner(
            "terraform plan",
            "eval \"$(direnv export bash)\" && terraform force-unlock -force 7c1d"
        ));
    }

    #[test]
    fn every_segment_of_a_chain_does_its_job() {
        assert!(runs_job("pnpm lint && pnpm test", "pnpm lint"));
        assert!(runs_job("cd app && npm test | tail -3", "npm test"));
        assert!(!runs_job("pnpm lint && pnpm test", "pnpm build"));
        // Each of a build tool's tasks is a job the line runs.
        assert!(runs_job("SBT_OPTS=-Xss2m sbt core/scalafmt scalafmtCheckAll && git diff", "sbt scalafmtCheckAll"));
        assert!(runs_job("./gradlew clean ktlintCheck test", "gradlew ktlintCheck"));
        assert!(runs_job("./gradlew clean ktlintCheck test", "gradlew test"));
        assert!(!runs_job("./gradlew clean ktlintCheck test", "gradlew ktlintFormat"));
    }

    #[test]
    fn a_search_at_the_end_and_output_filters_are_read() {
        assert!(ends_in_search("cargo clippy -- -D warnings 2>&1 | tail -2 && rg -n anyhow crates/core"));
        assert!(ends_in_search("ps aux | grep -i postgres"));
        assert!(!ends_in_search("grep -c x a.txt && make test"));
        assert!(status_is_an_answer("systemctl status restic-backup.service --no-pager", Some(3)));
        assert!(status_is_an_answer("sudo systemctl is-active nginx", Some(3)));
        assert!(status_is_an_answer("diff -u a.conf b.conf", Some(1)));
        assert!(!status_is_an_answer("systemctl status nginx", Some(1)));
        assert!(!status_is_an_answer("diff -u a.conf missing.conf", Some(2)));
        assert!(!status_is_an_answer("systemctl restart nginx", Some(1)));
        assert_eq!(without_output_filters("bundle install 2>&1 | tail -2"), "bundle install");
        assert_eq!(without_output_filters("bundle install"), "bundle install");
        assert_eq!(without_output_filters("npm test | grep FAIL"), "npm test | grep FAIL");
    }

    #[test]
    fn a_check_of_one_test_is_narrowed() {
        for narrowed in [
            "swift test --filter RetryTests",
            "npx jest src/commands/export.test.js",
            "pytest tests/test_a.py::test_b",
            "go test ./internal/store -run TestPool",
            "./gradlew test --tests 'dev.ironwood.*Totals*'",
            "cargo test parser::tests::empty",
            "cargo test parse_row",
            "cargo bench --bench parse -- bench_parse",
            "cargo test --features fast -- --nocapture empty_rows",
            "flutter test --exclude-tags golden",
            "dotnet test --filter \"Category!=Integration\"",
            "terraform fmt envs/staging/s3.tf",
            "uv run ruff check src/app.py",
            "./gradlew allTests build -x detekt",
            "stack test --ta '--match \"renderStatsJson\"'",
            "pnpm test:e2e --grep-invert @visual",
        ] {
            assert!(is_narrowed(narrowed), "{narrowed}");
        }
        for whole in [
            "cargo test --workspace",
            "go test ./...",
            "npm run test:unit -- --run",
            "make test",
            "pytest tests/",
            "cargo test --features fast",
            "cargo bench",
            "terraform fmt -recursive",
            "helm lint charts/avon -f values-staging.yaml --strict",
            "ruff check .",
            "npx prettier --check 'src/**/*.ts'",
            "bash scripts/lint.sh",
            "./scripts/fmt.sh --check",
            "python3 tools/lint.py src",
            "dotnet format MyApp.sln --verify-no-changes",
            "dotnet format src/Acme.Api",
            "python -m pylint acme.billing",
            "cargo +1.75.0 clippy --all-targets",
            "nox -s tests-3.12",
            "pytest -x",
        ] {
            assert!(!is_narrowed(whole), "{whole}");
        }
    }

    #[test]
    fn the_flags_that_pick_tests_are_left_out_with_their_values() {
        for (command, whole) in [
            ("dotnet test --filter \"Category!=Integration\"", "dotnet test"),
            ("dotnet test --filter \"Category!=Integration & Priority=1\" -v q", "dotnet test -v q"),
            ("flutter test --exclude-tags=golden test/", "flutter test test/"),
            ("go test ./... -run 'TestPool Test'", "go test ./..."),
            ("python -m pytest -q", "python -m pytest -q"),
            ("npm test", "npm test"),
            ("./gradlew allTests build -x detekt", "./gradlew allTests build"),
            (
                "./gradlew installDist && bash -x build/install/app/bin/app",
                "./gradlew installDist && bash -x build/install/app/bin/app",
            ),
            ("pytest -x tests/", "pytest -x tests/"),
        ] {
            assert_eq!(without_narrowing(command), whole, "{command}");
        }
    }

    #[test]
    fn default_commands_are_the_ones_a_manifest_names() {
        for default in [
            "cargo test",
            "bundle exec rake test",
            "npm run lint",
            "pnpm lint",
            "make",
            "sbt test",
            "npx jest",
            "ctest --preset default",
            ".venv/bin/pytest -q",
            "./node_modules/.bin/jest",
            "cargo test -q",
            "dune runtest",
            "crystal spec",
            "terraform validate",
        ] {
            assert!(is_default_command(default), "{default}");
        }
        for specific in [
            "npm run test:unit -- --run",
            "make html SPHINXOPTS=-W",
            "bundle exec rake db:migrate",
            "LUA_PATH='lua/?.lua;;' busted",
            "bazel test //... --test_output=errors",
            "./scripts/check-abi.sh",
            "terraform plan -var-file=envs/staging.tfvars",
        ] {
            assert!(!is_default_command(specific), "{specific}");
        }
    }

    #[test]
    fn flags_that_only_say_more_are_no_part_of_the_job() {
        assert_eq!(without_loud_flags("ctest --preset asan --output-on-failure"), "ctest --preset asan");
        assert_eq!(without_loud_flags("pytest -v tests/x.py"), "pytest tests/x.py");
        assert_eq!(without_loud_flags("cargo test -p store"), "cargo test -p store");
    }

    #[test]
    fn a_loop_or_a_condition_runs_what_is_inside_it() {
        let looped = classify("for i in 1 2 3; do cargo test -p store --lib pool; done");
        assert_eq!((looped.kind, looped.family.as_str()), (CommandKind::Test, "cargo test"));
        let checked = classify("if ! make lint; then echo 'lint failed'; fi");
        assert_eq!((checked.kind, checked.family.as_str()), (CommandKind::Lint, "make lint"));
        assert_eq!(
            loop_body("for i in 1 2 3; do\n  npx jest src/a.test.ts\ndone").as_deref(),
            Some("npx jest src/a.test.ts")
        );
        assert_eq!(loop_body("pytest -x; done"), None);
    }

    #[test]
    fn a_repeated_run_looks_for_flakes() {
        assert!(repeats_to_find_flakes("~/go/bin/bazelisk test //store:store_test --runs_per_test=30"));
        assert!(repeats_to_find_flakes("go test -count=50 -run TestPool ./internal/store"));
        assert!(repeats_to_find_flakes("ctest --repeat until-fail:20 -R net"));
        assert!(repeats_to_find_flakes("npx playwright test --repeat-each 10"));
        // `-count=1` only turns the cache off.
        assert!(!repeats_to_find_flakes("go test -count=1 ./..."));
        assert!(repeats_to_find_flakes("for i in $(seq 20); do pytest -q tests/test_poll.py || break; done"));
        assert!(repeats_to_find_flakes("for ((i = 0; i < 5; i++)); do go test -run TestPool ./pool; done 2>&1 | tail"));
        assert!(!repeats_to_find_flakes("for f in *.md; do wc -l \"$f\"; done"));
        assert!(!repeats_to_find_flakes("for i in 1 2 3; do pytest t.py; done; make deploy"));
        assert!(!repeats_to_find_flakes("for f in tests/*.py; do pytest \"$f\"; done"));
        assert!(!repeats_to_find_flakes("for i in 1 2 3; do pytest tests/test_$i.py; done"));
        assert!(!repeats_to_find_flakes("bazel test //..."));
    }

    #[test]
    fn a_query_reports_and_changes_nothing() {
        for query in [
            "git log -1 --format=%s -- source/conf.py && cat requirements-docs.txt",
            "ansible-galaxy collection list 2>/dev/null | grep -E 'community.general' || echo none",
            "pip show requests",
            "kubectl get pods -n web",
            "git status",
            "cd app && npm ls react",
            "aws configure list-profiles && grep -rn profile ../../README.md",
            "aws ec2 describe-instances --region eu-west-1",
            "grep -n DATABASE_URL .env; git check-ignore .env && echo ignored",
            "cat .bazelversion; ls -l /usr/bin/bazel*; command -v bazelisk || echo 'no bazelisk'",
            "git -C ~/src/vcpkg rev-parse --is-shallow-repository && grep -n builtin-baseline vcpkg.json",
            "cat ~/.config/nix/nix.conf /etc/nix/nix.conf 2>&1; nix --version",
            "terraform -help",
            "make migrate-version",
            "bin/rails db:migrate:status",
        ] {
            assert!(is_query(query), "{query}");
        }
        for doing in [
            "pip install -r requirements-docs.txt",
            "make bump-version",
            "npm run list",
            "git commit -m status",
            "helm plugin install https://example.com/p",
            "git -C ~/src/vcpkg fetch --unshallow",
            "cat x && make build",
            "python3 --version && make build",
            "cd app",
            "",
        ] {
            assert!(!is_query(doing), "{doing}");
        }
    }

    fn family(cmd: &str) -> (CommandKind, String) {
        let c = classify(cmd);
        (c.kind, c.family)
    }

    #[test]
    fn common_jobs_are_recognised() {
        use CommandKind::*;
        assert_eq!(family("cargo test --workspace"), (Test, "cargo test".into()));
        assert_eq!(family("cargo +nightly fmt -- --check"), (Lint, "cargo fmt".into()));
        assert_eq!(family("npm run build:prod"), (Build, "npm run build:prod".into()));
        assert_eq!(family("pnpm test -- --watch=false"), (Test, "pnpm test".into()));
        assert_eq!(family("yarn lint"), (Lint, "yarn lint".into()));
        assert_eq!(family("python -m pytest tests/test_api.py -x"), (Test, "pytest".into()));
        assert_eq!(family("uv run pytest -q"), (Test, "pytest".into()));
        assert_eq!(family("npx vitest run"), (Test, "vitest".into()));
        assert_eq!(family("make -j4 test"), (Test, "make test".into()));
        assert_eq!(family("make"), (Build, "make".into()));
        assert_eq!(family("go vet ./..."), (Lint, "go vet".into()));
        assert_eq!(family("./gradlew test"), (Test, "gradlew test".into()));
        assert_eq!(family("git push origin main"), (Vcs, "git push".into()));
        assert_eq!(family("ls -la src"), (Explore, "ls".into()));
        assert_eq!(family("cd envs/dev && terraform apply -auto-approve"), (Run, "terraform apply".into()));
        assert_eq!(family("terraform fmt -check -recursive"), (Lint, "terraform fmt".into()));
        assert_eq!(family("hatch fmt --check"), (Lint, "hatch fmt".into()));
        assert_eq!(family("hatch fmt"), (Format, "hatch fmt".into()));
        assert_eq!(family("hatch python install 3.12"), (Install, "hatch python".into()));
        assert_eq!(family("helm unittest charts/web"), (Test, "helm unittest".into()));
        assert_eq!(family("sprocketctl sync --all"), (Other, "sprocketctl sync".into()));
        assert_eq!(family("ansible-playbook -i inventories/staging site.yml"), (Other, "ansible-playbook".into()));
        assert_eq!(family("python3.11 manage.py migrate"), (Run, "python manage.py".into()));
        assert_eq!(family("pnpm --filter @hornwort/api test"), (Test, "pnpm test".into()));
        assert_eq!(
            job_line_for(
                "tmux source-file ~/.tmux.conf && zsh -ic exit && echo clean",
                "tmux source-file ~/.tmux.conf"
            ),
            "tmux source-file ~/.tmux.conf"
        );
        assert_eq!(job_line_for("make deps && make test | tail -3", "make test"), "make test");
        let (prepared, failed) =
            ("bin/rails db:test:prepare && bundle exec rspec", "bin/rails db:test:prepare && bundle exec rspec");
        assert_eq!(job_line_for(prepared, failed), "bundle exec rspec");
        assert!(is_narrowed_rerun("PGPORT=5433 mix test test/app_web/presence_test.exs", "PGPORT=5433 mix test"));
        assert!(!is_narrowed_rerun("PGPORT=5433 mix test", "mix test"), "a setting added");
        assert!(is_narrowed_rerun(
            "go test -shuffle=1733738402 -count=1 ./internal/watchdog/",
            "go test -shuffle=on ./..."
        ));
        assert_eq!(without_seeds("go test -shuffle=1733738402 -count=1 ./..."), "go test -count=1 ./...");
        assert_eq!(without_seeds("go test -shuffle=on ./..."), "go test -shuffle=on ./...");
        assert_eq!(as_rerun("go test -shuffle=1733738402 -count=1 ./..."), as_rerun("go test -shuffle=on ./..."));
        assert_ne!(as_rerun("bundle exec rspec --order defined"), as_rerun("bundle exec rspec --order random"));
        // (A JVM switch takes no value: what follows it stays.)
        assert_eq!(without_narrowing("./mvnw -DfailIfNoTests -Pci verify"), "./mvnw -Pci verify");
        assert_eq!(
            without_narrowing("env -u GAC terraform -chdir=envs/dev plan -target=module.storage -out=x.tfplan"),
            "env -u GAC terraform -chdir=envs/dev plan"
        );
        assert_eq!(without_seeds("pytest -p randomly --randomly-seed 42 tests"), "pytest -p randomly tests");
        assert!(!is_narrowed_rerun("cabal test -O0 --test-options=--accept", "cabal test -O0"), "a flag added");
        assert!(builds_to_try("go build -o bin/bachmann ./cmd/bachmann && ./bin/bachmann --version"));
        assert!(builds_to_try("cargo build --release && ./target/release/pistole --help"));
        assert!(!builds_to_try("go build -o bin/bachmann ./cmd/bachmann && go test ./..."));
        assert!(!builds_to_try("./bin/bachmann --version && go build ./..."), "run before the build");
        assert!(is_louder_rerun("timeout 60 poetry install -vvv 2>&1 | tail -n 5", "timeout 120 poetry install"));
        assert!(is_louder_rerun("pytest -vv tests/ 2>&1 | tail -30", "pytest tests/"));
        assert!(!is_louder_rerun("pytest -vv tests/", "pytest tests/"), "its own status");
        assert!(!is_louder_rerun("pytest tests/ | tail -3", "pytest tests/"), "no louder");
        assert!(!is_louder_rerun("pytest -vv tests/api | tail -3", "pytest tests/"), "another run");
        // Of two segments of the job, the one that did what failed, not the check after it.
        let loaded = "zcat data/seed.sql | psql service=dev -v ON_ERROR_STOP=1 -q && psql service=dev -Atc 'select 1'";
        assert_eq!(
            job_line_for(loaded, "psql service=dev -v ON_ERROR_STOP=1 -q -f data/seed.sql"),
            "zcat data/seed.sql | psql service=dev -v ON_ERROR_STOP=1 -q"
        );
        // A script only parsed is checked, not run.
        assert_eq!(family("zsh -n zsh/.config/zsh/functions.zsh"), (Lint, "zsh -n".into()));
        assert_eq!(family("bash -n bin/deploy"), (Lint, "bash -n".into()));
        assert_eq!(family("php8.3 /usr/local/bin/composer install"), family("composer install"));
        assert_eq!(family("python3 /usr/bin/pip3 install -r requirements.txt"), family("pip install -r x"));
        assert!(is_syntax_check("bash -n bin/deploy") && is_syntax_check("python3 -m py_compile app.py"));
        assert!(!is_syntax_check("shellcheck bin/deploy") && !is_syntax_check("ruby -Itest test/a_test.rb"));
        assert_eq!(family("ruby -c app/models/user.rb"), (Lint, "ruby -c".into()));
        assert_eq!(family("python3 -m py_compile src/app.py"), (Lint, "python py_compile".into()));
        assert_eq!(family("bash bin/deploy"), (Run, "bash bin/deploy".into()));
        assert_eq!(family("npm -w packages/web run build"), (Build, "npm run build".into()));
        assert_eq!(family("python manage.py test bookings --settings=x"), (Test, "python manage.py test".into()));
        assert_eq!(family("python3 manage.py check --deploy"), (Lint, "python manage.py check".into()));
        // A bare shell or interpreter is an interactive session; a shell's script is the job.
        assert_eq!(family("bash"), (Explore, "bash".into()));
        assert_eq!(family("python3 -i"), (Explore, "python".into()));
        assert_eq!(family("bash -lc 'cargo test -q'"), (Test, "cargo test".into()));
        assert_eq!(family("sh scripts/release.sh"), (Run, "sh scripts/release.sh".into()));
        assert_eq!(family("GITHUB_TOKEN=$(gh auth token) sbt compile"), (Build, "sbt compile".into()));
        assert_eq!(family("fvm flutter test"), (Test, "flutter test".into()));
        assert_eq!(
            family("make testdb && poetry run alembic upgrade head && poetry run pytest -q tests/a.py"),
            (Test, "pytest".into())
        );
        assert_eq!(family("dotnet csharpier --check ."), (Lint, "dotnet csharpier".into()));
        assert_eq!(family("dotnet csharpier src/A.cs"), (Format, "dotnet csharpier".into()));
        assert_eq!(family("dotnet format --verify-no-changes"), (Lint, "dotnet format".into()));
        assert_eq!(family("dotnet test"), (Test, "dotnet test".into()));
        assert_eq!(family("dotnet tool restore"), (Install, "dotnet tool".into()));
        assert_eq!(family("direnv exec . pytest tests/dags -q"), (Test, "pytest".into()));
        // (A package taken out of a project is its dependencies' business, no build.)
        assert_eq!(family("dotnet remove src/Api package Newtonsoft.Json"), (Install, "dotnet remove".into()));
        assert_eq!(family("flutter analyze"), (Lint, "flutter analyze".into()));
        assert_eq!(family("crystal spec spec/a_spec.cr"), (Test, "crystal spec".into()));
        assert_eq!(family("FOO=\"$(cat x | tr a b)\" make test"), (Test, "make test".into()));
        // Linters behind a build tool's task are linters.
        assert_eq!(family("mix credo --strict"), (Lint, "mix credo".into()));
        assert_eq!(family("mix format --check-formatted"), (Lint, "mix format".into()));
        assert_eq!(family("mix format"), (Format, "mix format".into()));
        assert_eq!(family("sqlfluff fix -f models/a.sql").0, Format);
        assert_eq!(family("sqlfluff lint models").0, Lint);
        assert_eq!(family("npx eslint --fix src").0, Format);
        assert_eq!(family("ruff check --fix .").0, Format);
        assert_eq!(family("ruff check .").0, Lint);
        assert_eq!(family("rubocop -a lib").0, Format);
        assert_eq!(family("shellcheck -a -x scripts/deploy.sh").0, Lint);
        assert_eq!(family("mix ecto.gen.migration add_x"), (Run, "mix ecto.gen.migration".into()));
        assert_eq!(family("./gradlew spotlessCheck"), (Lint, "gradlew spotlessCheck".into()));
        assert_eq!(family("./mvnw -q spotless:apply").0, Format);
        assert_eq!(family("staticcheck ./..."), (Lint, "staticcheck".into()));
        assert_eq!(family("ansible-lint"), (Lint, "ansible-lint".into()));
        assert_eq!(family("mise exec -- mix test"), (Test, "mix test".into()));
        assert_eq!(family("mise exec -- env MIX_ENV=test mix ecto.create"), (Run, "mix ecto.create".into()));
        assert_eq!(family("mise install"), (Install, "mise install".into()));
        assert_eq!(family("go install github.com/x/y@v1.2.0"), (Install, "go install".into()));
        assert_eq!(family("alembic -c db/alembic.ini revision -m x"), (Other, "alembic revision".into()));
        // Of a build tool's several tasks, the one that verifies most is the job; every test
        // task is the same job.
        assert_eq!(family("./gradlew clean build"), (Build, "gradlew build".into()));
        assert_eq!(family("mvn -q clean verify"), (Test, "mvn test".into()));
        assert_eq!(family("./gradlew :app:test --tests 'x.*'"), (Test, "gradlew test".into()));
        assert_eq!(family("./gradlew :shared:jvmTest"), (Test, "gradlew test".into()));
        assert_eq!(family("./gradlew --stop"), (Other, "gradlew".into()));
        assert_eq!(family("./gradlew assembleDebugAndroidTest").0, Build);
        assert_eq!(family("CHROME_BIN=/usr/bin/chromium ./gradlew :shared:allTests"), (Test, "gradlew test".into()));
        assert_eq!(family("sbt \"http/testOnly x.Spec\" scalafmtCheckAll"), (Test, "sbt test".into()));
        assert_eq!(family("sbt scalafmtAll scalafmtCheckAll"), (Format, "sbt scalafmtAll".into()));
        assert_eq!(family("sbt scalafmtCheckAll"), (Lint, "sbt scalafmtCheckAll".into()));
        assert_eq!(family("~/go/bin/bazelisk test //services/..."), (Test, "bazel test".into()));
        assert_eq!(family("curl -sL https://fpm.fortran-lang.org/spec/metapackages.html").0, Explore);
        assert_eq!(family("curl -fsSLo /tmp/kc.tgz https://example.com/kc.tgz").0, Other);
        let probe = "curl -sS -o /dev/null -w '%{http_code}\\n' https://repo.packagist.org/packages.json";
        assert_eq!(family(probe).0, Explore);
        assert_eq!(family("curl -so /dev/null --output=/dev/null https://registry.npmjs.org/").0, Explore);
        assert_eq!(family("curl -s -o /dev/null -X POST https://api.example.com/reindex").0, Other);
        assert_eq!(family("curl -s -X POST https://api.example.com/reindex").0, Other);
        assert_eq!(family("curl -fsS http://localhost:8080/health").0, Other);
        assert_eq!(family("curl -s --data-urlencode q=x https://api.example.com/s").0, Other);
        assert_eq!(family("curl -s --request=DELETE https://api.example.com/x").0, Other);
        assert_eq!(family("curl -s http://192.168.1.20/api/reset").0, Other);
        // A script piped into a shell is an install, whatever fetched it.
        assert_ne!(family("curl -fsSL https://sh.rustup.rs | sh -s -- -y").0, Explore);
        assert_ne!(family("curl -fsSL https://install.python-poetry.org | python3 -").0, Explore);
        assert_eq!(family("mvn clean"), (Other, "mvn clean".into()));
    }

    #[test]
    fn downloads_run_by_a_shell_are_recognised() {
        for command in [
            "curl -s https://x.example/i.sh | sh",
            "curl -fsSL https://x.example/i | sudo -E bash -s -- --yes",
            "wget -qO- https://x.example/i | tee log | bash",
            "cd /tmp && curl https://x.example/i | /bin/zsh; make",
            "curl https://x.example/get.py | python3 -",
            "bash <(curl -s https://x.example/i)",
            "sh -c \"$(wget -O- https://x.example/i)\"",
            "source <(curl -s https://x.example/env)",
            "eval \"$(curl -s https://x.example/env)\"",
            "iwr https://x.example/i.ps1 | iex",
        ] {
            assert!(downloads_into_shell(command), "missed: {command}");
        }
        for command in [
            "curl -o app.tar.gz https://x.example/app.tar.gz && tar xf app.tar.gz",
            "curl -s https://api.example/items | jq .",
            "curl -s https://x.example/i.sh | shellcheck -",
            "cat install.sh | sh",
            "wget https://x.example/i.sh -O i.sh",
            "curl https://x.example/data.json | python3 tools/check.py",
        ] {
            assert!(!downloads_into_shell(command), "flagged: {command}");
        }
    }

    #[test]
    fn compound_lines_are_read_for_their_main_job() {
        use CommandKind::*;
        assert_eq!(family("cd web && npm ci && npm test 2>&1 | tail -20"), (Test, "npm test".into()));
        assert_eq!(family("RUST_BACKTRACE=1 timeout 600 cargo build --release"), (Build, "cargo build".into()));
        assert_eq!(family("echo 'a && cargo test' > notes.txt"), (Explore, "echo".into()));
        assert_eq!(family("cat <<'EOF' > x.sh\ncargo test\nEOF"), (Explore, "cat".into()));
        assert_eq!(family("cd /tmp"), (Other, String::new()));
    }
    #[test]
    fn a_setting_changed_through_its_program_is_a_step() {
        for command in [
            "export PATH=\"$PATH:$(go env GOPATH)/bin\"",
            "git config --global url.\"git@github.com:\".insteadOf \"https://github.com/\"",
            "go env -w 'GOPRIVATE=github.com/acme/*'",
            "npm config set registry http://localhost:4873",
            "poetry config keyring.enabled false",
            "conda config --set channel_priority strict",
            "source scripts/tg-env.sh dev",
            ". ./.env",
        ] {
            assert!(sets_a_setting(command), "{command}");
        }
        for command in [
            "export PATH",
            "git config --get user.email",
            "git config --list",
            "go env GOPATH",
            "poetry config --list",
            ". .venv/bin/activate",
        ] {
            assert!(!sets_a_setting(command), "{command}");
        }
        assert_eq!(
            steps_before_job(
                "export PATH=\"$PATH:$(go env GOPATH)/bin\" && make proto && git status --short",
                "make proto"
            ),
            ["export PATH=\"$PATH:$(go env GOPATH)/bin\""]
        );
        assert!(writes_a_file("sed -i \"s/^gpr.key=.*/gpr.key=x/\" ~/.gradle/gradle.properties"));
        assert!(!writes_a_file("sed -i 's/a/b/' src/main.rs"));
        assert_eq!(
            edits_in_place("sed -i 's/a/b/g' src/main.rs charts/x/templates/pdb.yaml"),
            ["src/main.rs", "charts/x/templates/pdb.yaml"]
        );
        assert_eq!(edits_in_place("perl -pi -e 's/a/b/' lib/X.pm"), ["lib/X.pm"]);
        assert!(is_inline_eval("python3 -c 'print(int(1.5 * 1024**3))'"));
        assert!(is_inline_eval("echo '2^16' | bc"));
        assert!(is_inline_eval("node -e 'console.log(0.1 + 0.2)'"));
        assert!(!is_inline_eval("python3 -m pytest"));
        assert!(!is_inline_eval("echo ok && cargo test"));
        assert!(!is_inline_eval("node scripts/build.js"));
        assert!(!is_inline_eval("python3 scripts/gen.py -c cfg.yml"));
        assert_eq!(edits_in_place("sed -Ei 's/a+/b/' src/x.rs"), ["src/x.rs"]);
        // (Not a setting, not a look, not an edit chained to a job.)
        assert!(edits_in_place("sed -i 's/a/b/' ~/.gradle/gradle.properties").is_empty());
        // Code renamed is code edited; a settings file moved is not.
        let renamed = edits_in_place("mv app/operations/create_refunds.rb app/operations/create_refund.rb");
        assert_eq!(renamed, ["app/operations/create_refunds.rb", "app/operations/create_refund.rb"]);
        assert_eq!(edits_in_place("git mv -f src/a.ts src/b.ts"), ["src/a.ts", "src/b.ts"]);
        assert!(edits_in_place("mv .env.example .env").is_empty());
        assert!(edits_in_place("sed -n '1,20p' src/main.rs").is_empty());
        assert!(edits_in_place("sed -i 's/a/b/' src/x.rs && cargo test").is_empty());
        assert!(!writes_a_file("sed -n '1,20p' ~/.gradle/gradle.properties"));
    }

    #[test]
    fn only_a_test_runs_flags_pick_tests() {
        assert_eq!(without_narrowing("mkdir -p tmux && stow -t ~ tmux"), "mkdir -p tmux && stow -t ~ tmux");
        assert_eq!(without_narrowing("docker build -t app . && pytest -k slow"), "docker build -t app . && pytest");
        assert_eq!(without_narrowing("./mvnw -q verify -Dtest=ParcelTest"), "./mvnw -q verify");
        assert_eq!(without_narrowing("yarn jest -t login"), "yarn jest");
        assert_eq!(without_narrowing("sudo -E pytest -k slow"), "sudo -E pytest");
        assert_eq!(without_narrowing("hatch run test -k slow"), "hatch run test");
        // What a Bazel run or a Maven build left out this time.
        assert_eq!(without_narrowing("bazel test -- //... -//e2e/..."), "bazel test -- //...");
        assert_eq!(without_narrowing("./mvnw -o -DskipITs verify"), "./mvnw -o verify");
        assert_eq!(without_narrowing("./mvnw -DskipTests package"), "./mvnw -DskipTests package");
        assert!(!is_narrowed("mvn -DskipTests package"));
        assert!(is_narrowed("bazel test -- //... -//e2e/...") && is_narrowed("bazel test //internal/queue:queue_test"));
        assert!(!is_narrowed("bazel test //...") && !is_narrowed("bazel build //cmd/server:server"));
        assert!(is_narrowed_rerun("bazel test //internal/queue:queue_test", "bazel test -- //... -//e2e/..."));
    }

    #[test]
    fn a_plain_chain_is_cut_into_its_parts() {
        assert_eq!(
            and_parts("shellcheck -x install.sh bin/* && bats test/"),
            Some(vec!["shellcheck -x install.sh bin/*", "bats test/"])
        );
        assert_eq!(and_parts("git commit -m \"a && b\" && make"), Some(vec!["git commit -m \"a && b\"", "make"]));
        for command in [
            "ssh deploy@web1 \"cd /srv/app && make test\"",
            "docker compose run --rm app sh -c \"npm run lint && npm test\"",
            "make || true && make test",
            "make; make test",
            "pytest | tail -3 && ruff check .",
            "(cd a && make) && make test",
            "make test",
        ] {
            assert_eq!(and_parts(command), None, "{command}");
        }
    }

    #[test]
    fn a_question_to_a_database_is_a_look() {
        for command in [
            "psql \"$DATABASE_URL\" -c \"select lower(email), count(*) from users group by 1 having count(*) > 1\"",
            "docker compose exec -T mysql mysql -usodalite -pX sodalite_dev -e 'SHOW CREATE TABLE accounts\\G' | head -6",
            "docker exec -i -e PGUSER=app pg psql -c '\\d users'",
            "mysql --execute='DESCRIBE orders; SELECT 1'",
            "sqlite3 data/app.db '.schema users'",
            "PGPASSWORD=x psql -h db -U app -c 'select count(*) from users'",
            "sudo -u postgres psql -c '\\du'",
        ] {
            assert!(is_query(command), "{command}");
        }
        for command in [
            "psql -c 'DROP TABLE audit_log'",
            "docker compose exec -T mysql mysql -e 'SELECT 1; DELETE FROM t'",
            "mysql app < db/migrations/0042.sql",
            "psql -f seed.sql",
            "docker compose exec app pytest",
            "sqlite3 data/app.db",
            "psql -c \"SELECT setval('users_id_seq', (SELECT max(id) FROM users))\"",
            "psql -c 'select 1' -c 'drop table x'",
            "psql -f seed.sql -c 'select count(*) from users'",
            "psql -c 'EXPLAIN ANALYZE DELETE FROM events'",
            "mysql -e \"SELECT * FROM t INTO OUTFILE '/tmp/t.csv'\"",
        ] {
            assert!(!is_query(command), "{command}");
        }
    }

    #[test]
    fn a_count_of_none_found_nothing_unless_it_counted_trouble() {
        let listed = "airflow dags reserialize 2>&1 | tail -1 && airflow dags list 2>/dev/null | grep -c meuse_";
        assert!(counted_none(listed, "INFO - Filling up the DagBag from /home/dev/airflow/dags\n0\n"));
        assert!(!counted_none(listed, "INFO - Filling up the DagBag\n3\n"));
        assert!(!counted_none("make 2>&1 | grep -c 'error:'", "0"));
        assert!(!counted_none("airflow dags list | grep meuse_", "0"));
    }

    #[test]
    fn trying_an_ssh_key_is_a_look() {
        assert!(is_query("ssh -T git@github.com 2>&1 | head -1"));
        assert!(!is_query("ssh deploy@web1 systemctl restart app"));
    }

    #[test]
    fn asking_direnv_what_it_found_is_a_look() {
        assert!(is_a_look("direnv status"));
        assert!(!is_a_look("direnv allow ."));
    }
}

/// Worked examples of this module's functions.
#[cfg(test)]
mod examples {
    #[test]
    fn classify_example() {
        use crate::core::extract::shell::{CommandKind, classify, only_looks};
        let c = classify("cd web && RUST_LOG=debug cargo test -p parser -- --nocapture");
        assert_eq!((c.kind, c.family.as_str()), (CommandKind::Test, "cargo test"));
        // dbt's build runs the models' tests too; its deps installs packages.
        let kind = |command: &str| classify(command).kind;
        assert_eq!(kind(".venv/bin/dbt build --select +mart_peaks"), CommandKind::Test);
        assert_eq!(kind("dbt test -s stg_members"), CommandKind::Test);
        assert_eq!(kind("dbt run --select fct_sessions"), CommandKind::Build);
        assert_eq!(kind("dbt deps"), CommandKind::Other);
        assert_eq!(kind("dbt debug"), CommandKind::Other);
        assert_eq!(kind("tflint --init"), CommandKind::Install);
        // Asking who holds a port only looks.
        assert_eq!(kind("ss -ltnp"), CommandKind::Explore);
        assert!(only_looks("ss -ltnp | grep ':8080'") && only_looks("netstat -tlnp"));
        // A project's script named for its job is that job, not the shell's `test`.
        let c = classify("hatch run test tests/test_retry_after.py");
        assert_eq!((c.kind, c.family.as_str()), (CommandKind::Test, "hatch run test"));
        assert_eq!(kind("pdm run lint"), CommandKind::Lint);
        assert_eq!(kind("poetry run pytest -q"), CommandKind::Test);
        assert_eq!(kind("tflint --recursive"), CommandKind::Lint);
    }
}

#[cfg(test)]
mod way_tests {
    use super::*;

    #[test]
    fn a_smoke_that_only_prints_is_no_step_and_one_that_writes_is() {
        assert!(only_prints("bundle exec ruby -Ilib -e 'require \"prespa\"; puts Prespa::VERSION'"));
        assert!(only_prints("python3 -c 'import x; print(x.__version__)'"));
        assert!(!only_prints("python -c \"import nltk; nltk.download('punkt')\""));
        assert!(!only_prints("echo 'APP_URL=http://localhost:3000' >> .env.local"));
        assert!(!only_prints("bundle exec rake test"));
    }

    #[test]
    fn a_service_started_is_told_from_one_looked_at() {
        for started in [
            "docker compose --profile backing up -d --wait",
            "docker-compose up -d db",
            "docker run -d -p 5432:5432 postgres:16",
            "brew services start postgresql@16",
            "sudo systemctl start redis",
            "systemctl --user restart syncthing",
            "pg_ctl -D /usr/local/var/pg start",
        ] {
            assert!(starts_a_service(started), "{started}");
        }
        for not in ["docker compose ps", "docker run --rm alpine true", "systemctl status redis", "brew install redis"]
        {
            assert!(!starts_a_service(not), "{not}");
        }
    }

    #[test]
    fn a_step_done_over_with_more_drops_the_first() {
        let ran = |steps: &[&str]| without_superseded(steps.iter().map(|s| s.to_string()).collect());
        assert_eq!(ran(&["bundle install", "BUNDLE_WITHOUT= bundle install"]), ["BUNDLE_WITHOUT= bundle install"]);
        assert_eq!(
            ran(&["docker compose up -d", "docker compose --profile backing up -d --wait"]),
            ["docker compose --profile backing up -d --wait"]
        );
        // Two services, or two files, are both the way.
        assert_eq!(ran(&["docker compose up -d db", "docker compose up -d cache"]).len(), 2);
        assert_eq!(ran(&["pip install -r a.txt", "pip install -r b.txt"]).len(), 2);
        // (A bare program is no step to do over, and a package named is more, not over.)
        assert_eq!(ran(&["make", "make tools"]).len(), 2);
        assert_eq!(ran(&["npm install", "npm install -D @types/node"]).len(), 2);
    }

    #[test]
    fn the_days_words_are_taken_out_of_a_command() {
        assert_eq!(without_words("./gradlew check --offline", &["--offline".to_string()]), "./gradlew check");
    }
}
