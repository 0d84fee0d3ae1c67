//! What a failure and the command that got past it teach: a typo corrected is nothing, an
//! edit that makes a test pass is the task's own work, and a setting or argument added to
//! the same command is the lesson "`X` needs `VAR=val`".

use std::sync::LazyLock;

use regex::Regex;

use super::errors;
use super::shell::{self, CommandKind, classify};

/// Errors that name a symbol, an assertion or a lint code: what editing the code under work
/// fixes, not a landmine of the project.
static CODE_ERROR: LazyLock<Regex> = LazyLock::new(|| {
    crate::core::patterns::regex(concat!(
        r"(?i)\b[A-Z]{1,3}[0-9]{3,5}\b|assert|failure/error|expected .* (?:to (?:be|equal)|got|but)|left == right|",
        // A lint rule named in brackets (`error[prefer-const]`, `[no-unused-vars]`).
        r"\[[a-z]+(?:-[a-z]+)+\]|",
        // ktlint's (`Exceeded max line length (100) (standard:max-line-length)`).
        r"\((?:[a-z]+:)?[a-z]+(?:-[a-z]+)+\)\s*$|",
        r"cannot find (?:value|function|type|symbol|name|module)|undefined(?: name| function| variable| method|:)|",
        r"is not defined|not declared|undeclared|unresolved|no method named|has no attribute|has no member|",
        r"implicit declaration|imported but unused|never used|unused|mismatched types|type error|typeerror|",
        r"nameerror|syntaxerror|compileerror|compilation failed|does not compile|cannot be applied|",
        r"no matching function|is not assignable|property .* does not exist|missing (?:field|argument)|",
        r"wrong number of arguments|arity|FAILED|[0-9]+ (?:failed|failures?)|test.*fail|^failure:|fail(?:ed|ing)? (?:test|spec|example)|warning|would be reformatted|",
        r"would reformat|not formatted|must be formatted|formatted properly|formatting|\bfail\b|\bexpected\b|\bwant\b.*\bgot\b|\bgot\b.*\bwant\b|",
        r"\bactual\b|not in scope|data race|(?:Address|Memory|UndefinedBehavior)Sanitizer: [a-z-]+|\b[A-Z]{2,5}-[0-9]{3,6}\b|panicked at|unwrap\(\)|traceback|exception",
    ))
});

/// Errors about the machine rather than the code (a service down, a tool or file missing, a
/// port taken): a lesson even when the task edited code on the way.
static ENVIRONMENT: LazyLock<Regex> = LazyLock::new(|| {
    crate::core::patterns::regex(concat!(
        r"(?i)connection refused|econnrefused|could not connect|failed to connect|couldn'?t connect|timed out|",
        // What the shell lacks: `Required environment variable TG_STATE_BUCKET - not found`.
        r"required environment variable|environment variable \S+ (?:is )?(?:not set|missing|not found)|",
        r"command not found|: not found|permission denied|eacces|address already in use|eaddrinuse|",
        r"could not resolve|name or service not known|temporary failure in name resolution|no space left|",
        // What the toolchain lacks, wherever it is placed: a module, a header, a library.
        r"cannot open module file|fatal error: [\w./+-]+\.h(?:pp)?: no such file|fatal error: '[\w./+-]+\.h(?:pp)?' file not found|",
        r"cannot find -l\w|library not found for|no module named|modulenotfounderror|no required module provides package|",
        // What the machine lacks to run the build: a JDK of the version asked for.
        r"cannot find a java installation|unable to locate a java runtime|no java runtime present|java_home is not set",
    ))
});

/// True when a version-control tool refused as part of everyday work: a push behind the
/// remote, nothing to commit, a merge that stopped on conflicts.
pub(crate) fn is_routine_vcs_refusal(output: &str) -> bool {
    static ROUTINE: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(concat!(
            r"(?i)\[rejected\]|failed to push some refs|updates were rejected|non-fast-forward|fetch first|",
            r"nothing to commit|automatic merge failed|merge conflict in|resolve all conflicts|have diverged",
        ))
    });
    // Git says so at the end of what it printed.
    let mut start = output.len().saturating_sub(4096);
    while !output.is_char_boundary(start) {
        start += 1;
    }
    ROUTINE.is_match(&output[start..])
}

/// True when an error says the network let a command down (a timeout, a reset, a name that
/// did not resolve): what a plain retry gets through.
pub(crate) fn is_network_blip(error: &str) -> bool {
    static BLIP: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(concat!(
            r"(?i)opentimeout|readtimeout|etimedout|econnreset|connection reset|timed out|timeout|",
            r"temporary failure in name resolution|could not resolve host|tls handshake|i/o timeout",
        ))
    });
    BLIP.is_match(error) || is_server_unavailable(error)
}

/// True when an error says a server answered it was down for the moment (a 502, 503 or
/// 504): the server's day, whatever the command was doing.
pub(crate) fn is_server_unavailable(error: &str) -> bool {
    static UNAVAILABLE: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(concat!(
            r"(?i)503 service unavailable|service unavailable 503|bad gateway 502|",
            // (Gradle's `Received status code 503 from server: Service Unavailable`.)
            r"received status code 50[234]\b|status code 50[234] from server|\b50[234] (?:bad gateway|gateway time-?out)|",
            // (Bun's `error: GET https://registry.npmjs.org/hono - 503`, cargo's `got 503`.)
            r"\b(?:GET|HEAD|POST|PUT)\s+https?://\S+\s+-\s+50[234]\b|successful http response from [^\n]*\bgot 50[234]\b|\bhttp error 50[234]\b|",
            // (pnpm's `GET https://… error (ERR_PNPM_FETCH_503)`, npm's `npm ERR! code E503`.)
            r"\bERR_PNPM_FETCH_50[234]\b|\bcode E50[234]\b",
        ))
    });
    UNAVAILABLE.is_match(error)
}

/// True when an error or a sentence says the disk was full (`No space left on device`,
/// Zig's `NoSpaceLeft`, `ENOSPC`, a quota exceeded): the machine's state that day, which
/// freeing space mends, no lesson of the project.
pub(crate) fn is_disk_full(text: &str) -> bool {
    static FULL: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(concat!(
            r"(?i)no space left on (?:the )?device|\bNoSpaceLeft\b|\bENOSPC\b|disk quota exceeded|",
            r"not enough (?:free )?(?:disk )?space on the disk|\b(?:the )?disk (?:is|was) full\b|",
            r"(?:(?:^|[\s(])/\S*|\bthe root (?:fs|filesystem|partition))\s+(?:is|was)\s+(?:at\s+)?(?:100%|full\b)",
        ))
    });
    FULL.is_match(text)
}

/// A format check's complaint: code not laid out as the formatter would, or an import-sort
/// lint (`I001 [*] Import block is un-sorted or un-formatted`).
static UNFORMATTED: LazyLock<Regex> = LazyLock::new(|| {
    crate::core::patterns::regex(concat!(
        r"(?i)would reformat|would be reformatted|not formatted|un-?formatted|must be formatted|check-formatted|",
        r"formatted properly|format check|formatting (?:issues|differences|violations)|\bdiff in\b|\bun-?sorted\b",
    ))
});

/// The family of the format or lint step of a chain (`mix format` of `mix test && mix
/// format --check-formatted`) whose complaint `error` is: the step that failed, whatever
/// the chain is classified by.
pub(crate) fn failed_check(failed: &str, error: &str) -> Option<String> {
    if !UNFORMATTED.is_match(error) {
        return None;
    }
    // (Of `mypy src && ruff format --check`, the format check's, not the type checker's.)
    let checks = |kind: CommandKind| matches!(kind, CommandKind::Format | CommandKind::Lint);
    let formats =
        |step: &str| ["fmt", "format", "prettier", "black", "isort", "--check"].iter().any(|w| step.contains(w));
    let steps = failed.split(" && ").map(|step| (step, classify(step))).filter(|(_, c)| checks(c.kind));
    steps.max_by_key(|(step, _)| formats(step)).map(|(_, c)| c.family)
}

/// A linter's complaint that names the rule it applies (`@typescript-eslint/no-unused-vars`,
/// `C: Metrics/AbcSize:`, `F401`, `clippy::needless_range_loop`, `SC2086`, `(errcheck)`), or a
/// formatter's that a file is not formatted: what only a check step of a chain says.
pub(crate) fn is_check_complaint(error: &str) -> bool {
    static LINT_RULE: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(concat!(
            // (ESLint's `31:7  error  … @typescript-eslint/no-unused-vars`: a place, a
            // severity, the rule last; a package name alone is no rule.)
            r"\b\d+:\d+\s+(?:error|warning)\s.*\s(?:@[a-z][\w-]*/)?[a-z]+(?:-[a-z]+)+\s*$|",
            r"\[[a-z]+(?:-[a-z]+)+\]|\((?:[a-z]+:)?[a-z]+(?:-[a-z]+)+\)\s*$|",
            r"\b[A-Z]: [A-Z][A-Za-z]+/[A-Z][A-Za-z]+:|\bclippy::[a-z_]+|:\d+:\d+: [A-Z]{1,3}\d{3,4}\b|\bSC\d{4}\b|",
            r"\((?:errcheck|govet|staticcheck|unused|ineffassign|gosimple|revive|gocritic|errorlint|gosec)\)",
        ))
    });
    UNFORMATTED.is_match(error) || LINT_RULE.is_match(error)
}

/// True when an error is a test's or a linter's verdict on the code (a failed assertion, a
/// value other than the one expected, a lint rule's complaint): what a run says once it got
/// as far as the code under work.
pub(crate) fn is_verdict_on_code(error: &str) -> bool {
    static VERDICT: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(
            r"(?i)\bassert(?:ion|ionerror|ionfailederror|_eq|_equal|equals)?\b|\bexpected\b.{0,80}\b(?:to|but|got)\b|left == right|\bwant\b.*\bgot\b",
        )
    });
    (VERDICT.is_match(error) || is_check_complaint(error)) && !ENVIRONMENT.is_match(error)
}

/// True when a failure about something else (a shard missing, a disk full) gave way to one
/// in the code under work (a failed spec, a test that timed out): the run got as far as the
/// code.
pub(crate) fn reached_the_code(before: &str, after: &str) -> bool {
    // A test run's own verdict (`FAIL: //internal/queue:queue_test`, `Failure/Error: …`,
    // alcotest's `[FAIL]  parse_profile  0  ok.`, Flutter's `Some tests failed.`, dbt's `3 of
    // 3 FAIL 412 unique_x` and `Failure in test unique_x`, or RSpec's and gleeunit's
    // `Failures:` heading).
    static TEST_FAILED: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(
            r"^FAIL\b|--- FAIL|\b\d+ of \d+ FAIL \d+ \w|\bFAILED (?:tests?/|\w+::)|^\s*\[FAIL\]\s+\S+\s+\d+\s|(?i:failure/error|\bassert|panicked at|\bsome tests? failed\b|\b[1-9][0-9]* (?:tests? )?(?:failed|failures?)\b|\bfail(?:ed|ing)? (?:test|spec|example)|\bfailure in test\b)",
        )
    });
    // (`BUILD.bazel:24:8: GoLink … (No space left on device)` is placed in a file, and is
    // about the machine all the same.)
    let in_code = |error: &str| is_code_error(error) || is_verdict_on_code(error);
    // (Go's `FAIL	github.com/x/api [build failed]` ran no test.)
    let ran_none = after.ends_with("[build failed]") || after.ends_with("[setup failed]");
    (is_environmental(before) || !in_code(before))
        && !ran_none
        && (TEST_FAILED.is_match(after) || errors::is_failures_heading(after) || is_verdict_on_code(after))
        && !is_environmental(after)
        && !errors::same_error(before, after)
}

/// True when `command` is `failed` run again narrowed to the test its failure named
/// (`crystal spec spec/rate_window_spec.cr` after `crystal spec` failed in that file,
/// `bazel test //internal/queue:queue_test` after `FAIL: //internal/queue:queue_test`).
pub(crate) fn reruns_the_failed_test(command: &str, failed: &str, error: &str, places: &[String]) -> bool {
    // (Or another runner picking that test: `cargo test -p weser-core --lib
    // watch::tests::picks_up_new_file` after `make test` failed in it.)
    // (Of a chain, the test run: not `cat test/golden/x.out` after it.)
    let job = shell::job_line(command);
    let narrowed = match shell::runs_the_same(&job, failed) {
        true => shell::is_narrowed_rerun(&job, failed),
        false => classify(&job).kind == CommandKind::Test && shell::is_narrowed(&job),
    };
    if !narrowed {
        return false;
    }
    let failed_words = shell::words(failed);
    let words = shell::words(&job);
    // (What `--deselect tests/x.py::test_y` names is the test left out.)
    let leaves_out = |flag: &str| ["deselect", "ignore", "exclude", "skip", "invert"].iter().any(|w| flag.contains(w));
    let picked = words.iter().enumerate().filter(|(i, w)| {
        let after =
            i.checked_sub(1).and_then(|i| words.get(i)).is_some_and(|flag| flag.starts_with('-') && leaves_out(flag));
        !w.starts_with('-') && !failed_words.contains(w) && !after
    });
    picked.map(|(_, w)| w).any(|word| {
        let word = word.trim_start_matches("./");
        let file = word.split("::").next().unwrap_or(word);
        let file = file.rsplit_once(':').filter(|(_, n)| n.parse::<u32>().is_ok()).map_or(file, |(f, _)| f);
        // (A test's path or name, not a word of the command: `weser-core`, `test`.)
        let names_a_test = word.len() >= 6 && word.contains(['/', ':', '.', '_']);
        names_a_test
            && (error.contains(word) || places.iter().any(|p| p.starts_with(file) || p.ends_with(&format!("/{file}"))))
    })
}

/// True when an error is one in the code under work (a symbol, an assertion, a lint code).
pub(crate) fn is_code_error(error: &str) -> bool {
    CODE_ERROR.is_match(error)
}

/// The names a piece of code coins: identifiers with an underscore or a hump
/// (`wingspan_mm`, `summaryPlot`), not plain words, and not the error classes code raises.
pub(crate) fn coined_names(code: &str) -> impl Iterator<Item = &str> {
    static NAME: LazyLock<Regex> = LazyLock::new(|| crate::core::patterns::regex(r"[A-Za-z_][A-Za-z0-9_]{5,63}"));
    // Of a patch, only what it adds (not its context, its old lines or its file headers).
    let patch = code.lines().any(|l| l.starts_with("*** ") || l.starts_with("@@") || l.starts_with("+++"));
    code.lines()
        .filter(move |l| !patch || (l.starts_with('+') && !l.starts_with("+++")))
        .flat_map(|line| NAME.find_iter(line).map(|m| m.as_str()))
        .filter(|name| {
            // (`summaryPlot`, `wingspan_mm`; not `OpenSSL` or `GitHub` of a comment, nor a
            // variable of the environment, `DATABASE_URL`.)
            let camel = name.starts_with(|c: char| c.is_ascii_lowercase())
                && name.as_bytes().windows(2).any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
            let snake = name.trim_matches('_').contains('_') && name.contains(|c: char| c.is_ascii_lowercase());
            camel || snake
        })
}

/// True when an error names something the task's own code coined (`column name :wingspan_mm
/// not found` after the task wrote `df.wingspan_mm`): the code under work answered.
pub(crate) fn names_coined(error: &str, coined: &std::collections::BTreeSet<String>) -> bool {
    !is_environmental(error) && coined_names(error).any(|name| coined.contains(name))
}

/// File names that are code under work, as opposed to configuration a fix may change.
const SOURCE_EXTENSIONS: &[&str] = &[
    "rs", "py", "ts", "tsx", "js", "jsx", "mjs", "go", "c", "h", "cc", "cpp", "hpp", "ex", "exs", "rb", "java", "kt",
    "swift", "cs", "hs", "zig", "php", "vue", "svelte", "scala", "clj", "erl", "lua", "dart", "m", "mm", "ml", "fs",
    "pm", "pl", "t", "r", "jl", "nim", "cr", "gd", "cljs", "cljc", "elm", "purs", "fsx", "vb", "groovy", "d", "v",
    "sv", "vhd", "f90", "f", "ada", "adb", "pas", "cob", "gleam", "odin", "mojo", "sol", "move", "cairo", "astro",
    // Documents are the work product of a docs project, and scripts, schemas and templates
    // that of theirs.
    "md", "rst", "adoc", "tex", "html", "css", "scss", "tf", "sql", "sh", "bash", "zsh", "fish", "ps1", "nix", "proto",
    "graphql", "erb", "haml", "heex", "eex", "jinja", "j2",
];

/// Folders whose files are scripts, with or without an extension (`bin/gclean`).
const SCRIPT_FOLDERS: &[&str] = &["bin", "scripts", "script", "libexec", "hooks"];

/// True for a file of the code under work (a source, a script, a document of a docs
/// project), as opposed to a configuration or a manifest.
pub(crate) fn is_source(path: &str) -> bool {
    let mut parts = path.rsplit(['/', '\\']);
    let name = parts.next().unwrap_or(path);
    let folder = parts.next();
    let script = !name.contains('.') && folder.is_some_and(|folder| SCRIPT_FOLDERS.contains(&folder));
    // (`charts/api/templates/pdb.yaml`: a chart's templates are its code.)
    let template =
        folder == Some("templates") && (name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".tpl"));
    script
        || template
        || name.rsplit_once('.').is_some_and(|(_, ext)| SOURCE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()))
}

/// A failure and the command that got past it, with what the task did in between.
pub(crate) struct Attempt<'a> {
    /// The command that failed.
    pub(crate) failed: &'a str,
    /// Its error line.
    pub(crate) error: &'a str,
    /// The places (`path:line`) its output pointed at.
    pub(crate) places: &'a [String],
    /// The command that then succeeded.
    pub(crate) fixed: &'a str,
    /// Files edited between the two.
    pub(crate) edited: &'a [String],
    /// Commands run between the two.
    pub(crate) ran: &'a [String],
    /// Files the task had written before the failure.
    pub(crate) written: &'a [String],
}

impl Attempt<'_> {
    /// True when a failure fixed by editing only source files and running the same job again
    /// is the task's own red-to-green work (a failing test, a lint finding, a compile error in
    /// the code being changed), not a lesson about the project.
    ///
    /// An error a standard tool reports in a file the task had written
    /// (`template: ingest/templates/pdb.yaml:1:14: nil pointer`, a failing assertion at
    /// `test/filters_tests.jl:5`) is the task's own bug, whatever file its fix then edits.
    pub(crate) fn is_own_work(&self) -> bool {
        let Attempt { failed, error, places, fixed, edited, ran, written } = *self;
        // (`CGO_ENABLED=1 go test ./...` past a test the task also mended: the variable it
        // needed is the project's, whatever code was edited too.)
        // (Not one that only says more: `RUST_BACKTRACE=1`, `DEBUG=1`.)
        let diagnostic = |w: &str| {
            let name = w.split('=').next().unwrap_or(w).to_ascii_uppercase();
            ["BACKTRACE", "LOG", "DEBUG", "VERBOSE", "COLOR", "TRACE", "UNBUFFERED"].iter().any(|d| name.contains(d))
        };
        let set = needs(failed, fixed).is_some_and(|n| n.added.iter().any(|w| is_assignment(w) && !diagnostic(w)));
        if set {
            return false;
        }
        let (failed_kind, fixed_kind) = (classify(failed).kind, classify(fixed).kind);
        // A format or lint check that fails until the formatter runs is the formatter's job
        // done. (Or a chain that runs the formatter on its way: `crystal tool format && … --check`.)
        let formats =
            fixed_kind == CommandKind::Format || fixed.split(" && ").any(|p| classify(p).kind == CommandKind::Format);
        // (Or the check of a chain whose tests passed first, `mix test && mix format
        // --check-formatted`, when what failed is the format.)
        let checked =
            matches!(failed_kind, CommandKind::Format | CommandKind::Lint) || failed_check(failed, error).is_some();
        let formatted = checked && formats;
        // (What ran on the way, if anything, was the formatter too.)
        if formatted && ran.iter().all(|r| classify(r).kind == CommandKind::Format) {
            return true;
        }
        // A test run of the same tool builds what failed to build (`cabal build` → `cabal test`).
        let (a, b) = (classify(failed), classify(fixed));
        let builds_it = a.kind == CommandKind::Build
            && b.kind == CommandKind::Test
            && !a.program.is_empty()
            && a.program == b.program;
        let same_job = shell::runs_job(fixed, &a.family) || builds_it;
        let checks_only = checks_only_of(ran);
        let own_checker = is_own_checker(failed_kind, error);
        // A slip at a line of a file the task wrote, mended in that file: the task's own,
        // whatever else it ran on the way (`units/x.service:10: Unknown key name
        // 'RestartSecs'`, then an install).
        let mended_its_slip =
            edited.iter().any(|f| is_one_of(f, written) && names_one_of(error, std::slice::from_ref(f)));
        if same_job && mended_its_slip && !own_checker && !ENVIRONMENT.is_match(error) {
            return true;
        }
        // A spec the task wrote, run on its own, red until the code under work was edited,
        // then the project's tests passing (`playwright test e2e/x.spec.ts`, then `pnpm
        // test:e2e`): test-first work, however the green run was called.
        let tests_after = fixed.split(" && ").any(|p| classify(p).kind == CommandKind::Test);
        // Only an assertion's failure says the spec met code not yet written (a wait for an
        // expectation that timed out is one, no machine's).
        static ASSERTS: LazyLock<Regex> =
            LazyLock::new(|| crate::core::patterns::regex(r"(?i)\bexpect\(|assert|\bexpected\b.{0,80}\b(?:to|but)\b"));
        let waited_for_expect = error.contains("waiting for expect(");
        let red_spec = failed_kind == CommandKind::Test
            && tests_after
            && !own_checker
            && ASSERTS.is_match(error)
            && (!ENVIRONMENT.is_match(error) || waited_for_expect)
            && is_placed_in(failed, error, places, written);
        if red_spec && !edited.is_empty() && edited.iter().all(|f| is_source(f)) && checks_only {
            return true;
        }
        if !same_job || !checks_only || edited.is_empty() || ENVIRONMENT.is_match(error) {
            return false;
        }
        // A standard linter that complains until the code under work is edited is doing its
        // job, whatever its last line says (`found 1 readability issue`).
        // (Unless it points into a file the task left alone.)
        let linted = failed_kind == CommandKind::Lint && (!is_located(error) || points_into(error, edited));
        // A standard tool's output that places the failure in a source file then edited.
        let placed_in_edits = !own_checker && places.iter().any(|p| is_one_of(p, edited));
        let in_the_code =
            CODE_ERROR.is_match(error) || linted || placed_in_edits || (!own_checker && points_into(error, edited));
        // A spec the task wrote first and ran on its own fails until the code under work is
        // written: test-first work, whatever the runner's error line says.
        let in_its_own_file = !own_checker && is_placed_in(failed, error, places, written);
        in_its_own_file || edited.iter().all(|f| is_source(f)) && in_the_code
    }
}

/// True when the commands run between a failure and its fix only checked the work on the
/// way (a build, another test, a diff): no setup step.
fn checks_only_of(ran: &[String]) -> bool {
    ran.iter().all(|r| {
        let kind = classify(r).kind;
        kind.is_verification() && !matches!(kind, CommandKind::Install | CommandKind::Run) || kind == CommandKind::Vcs
    })
}

/// True when an error quotes a name of the code (`'calcite.o.created_at'`, `'parse_row'`)
/// that an edit then took out or rewrote: the error was about what the task's code said.
/// A name an error quotes (`'ring_drain'`, `"limit_req_zne"`).
static QUOTED_NAME: LazyLock<Regex> =
    LazyLock::new(|| crate::core::patterns::regex(r#"['`"‘“]([A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*)['`"’”]"#));

/// True when an edit mended a misspelt name an error quotes: it took the name out (it is in
/// `removed`) and put in one a letter or two from it (one of `added`): `limit_req_zne` →
/// `limit_req_zone`, no rename for a rule (`ring_drain` → `pip_ring_drain`).
pub(crate) fn mends_a_misspelling(error: &str, removed: &str, added: &[&str]) -> bool {
    QUOTED_NAME
        .captures_iter(error)
        .map(|c| c[1].to_string())
        .any(|name| removed.contains(name.as_str()) && added.iter().any(|new| is_misspelling(&name, new)))
}

/// The names `error` quotes that `text` holds (`limit_req_zone` of `"limit_req_zone"
/// directive is not allowed here`, in the lines an edit took out).
pub(crate) fn quoted_names_in(error: &str, text: &str) -> Vec<String> {
    QUOTED_NAME.captures_iter(error).map(|c| c[1].to_string()).filter(|name| text.contains(name.as_str())).collect()
}

pub(crate) fn names_what_was_removed(error: &str, removed: &str) -> bool {
    // A name as the code would write it: whole, by its last two parts (`o.created_at`), or
    // by its last part when that is an identifier no prose has (`created_at`, `parseRow`).
    let forms = |name: &str| -> Vec<String> {
        let parts: Vec<&str> = name.split('.').collect();
        let mut forms = vec![name.to_string()];
        if parts.len() >= 3 {
            forms.push(parts[parts.len() - 2..].join("."));
        }
        let last = parts[parts.len() - 1];
        let coded = last.contains('_') || last.chars().skip(1).any(|c| c.is_ascii_uppercase());
        if parts.len() >= 2 && coded && last.len() >= 4 {
            forms.push(last.to_string());
        }
        forms
    };
    !removed.trim().is_empty()
        && QUOTED_NAME
            .captures_iter(error)
            .map(|c| c[1].to_string())
            .filter(|name| name.len() >= 3)
            .any(|name| forms(&name).iter().any(|form| removed.contains(form.as_str())))
}

/// True when a failure is a complaint about the code in a file the task wrote, in its own
/// line: placed there (`.github/workflows/ci.yml:22:14: label "ubuntu-lastest" is unknown`),
/// or an error of the code itself (`AddressSanitizer: heap-buffer-overflow`) the output
/// places there. Not one the code only met (`no cached data for this query, run cargo sqlx
/// prepare`) with the output pointing at the task's file, nor one about the machine.
pub(crate) fn is_own_complaint(failed: &str, error: &str, places: &[String], written: &[String]) -> bool {
    is_own_unfinished_work(failed, error, places, written) && (names_one_of(error, written) || is_code_error(error))
}

/// True when a failure nothing got past is the task's own work left red: a test or a check
/// that failed in a file the task had written (its new spec), not a lesson about the project.
pub(crate) fn is_own_unfinished_work(failed: &str, error: &str, places: &[String], written: &[String]) -> bool {
    let kind = classify(failed).kind;
    let checks = matches!(kind, CommandKind::Test | CommandKind::Build | CommandKind::Lint | CommandKind::Format);
    checks
        && !ENVIRONMENT.is_match(error)
        && !is_own_checker(kind, error)
        && is_placed_in(failed, error, places, written)
}

/// True when a failure is the project's own program answering what the task fed it
/// (`dune exec -- brambling export --since 14.11.2026` → `brambling: option '--since':
/// invalid date`, `pdm run teasel validate tests/data/bad.csv` listing the bad rows): the
/// program under work, tried out, not a landmine. `names` are the project's names (its
/// folder, its repository). What the machine refused stays a lesson.
pub(crate) fn is_own_program_answer(failed: &str, error: &str, names: &[String]) -> bool {
    // Set-up it asks for is a lesson: `run teasel init first`, `DATABASE_URL is not set`.
    static SETUP: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(
            r"(?i)\brun\b.{0,40}\b(?:first|before)\b|\bnot set\b|\bno such table\b|\binit(?:iali[sz]e)?\b|\bmigrat|\blogin\b|\bcredential",
        )
    });
    let last = failed.rsplit(" && ").next().unwrap_or(failed);
    // Run from the project (`./x`, `dune exec -- x`, `pdm run x`, `cargo run`), not a tool
    // of the same name found on the PATH (`terraform` in a folder called terraform).
    let words = shell::words(last);
    let words: Vec<&str> =
        words.iter().map(String::as_str).skip_while(|w| w.contains('=') && !w.starts_with('-')).collect();
    let from_project = match words.as_slice() {
        [first, ..] if first.starts_with("./") || first.starts_with("target/") || first.starts_with("_build/") => true,
        ["dune", "exec", ..] | ["cargo", "run", ..] | ["go", "run", ..] | ["stack", "exec" | "run", ..] => true,
        ["pdm" | "poetry" | "uv" | "pipenv" | "hatch" | "rye", "run", ..] | ["bundle", "exec", ..] => true,
        _ => false,
    };
    let program = classify(last).program;
    let own = |name: &String| {
        name.len() >= 3
            && (program.eq_ignore_ascii_case(name)
                || error.trim_start().to_lowercase().starts_with(&format!("{}:", name.to_lowercase())))
    };
    from_project && names.iter().any(own) && !ENVIRONMENT.is_match(error) && !SETUP.is_match(error)
}

/// True when the failure's own error named a step the task then ran (`You may need to run
/// `helm dependency build``): that step is the way around, and what the task edited on the
/// way was its work.
pub(crate) fn ran_what_it_advised(error: &str, ran: &[String]) -> bool {
    let error = error.to_lowercase();
    // Advice, not a command the error only quotes (`Command 'git submodule update' failed`).
    let advised = |at: usize| {
        let mut from = at.saturating_sub(40);
        while !error.is_char_boundary(from) {
            from -= 1;
        }
        let before = &error[from..at];
        ["run", "try", "use", "need", "execute", "install"].iter().any(|w| before.contains(w))
    };
    ran.iter().any(|step| {
        let words = shell::words(&shell::job_line(step));
        let lead: Vec<&str> = words.iter().map(String::as_str).take_while(|w| !w.starts_with('-')).take(3).collect();
        // The program and what it is asked to do, as the error would write it.
        (2..=lead.len()).rev().any(|n| {
            let phrase = lead[..n].join(" ").to_lowercase();
            phrase.len() >= 8 && error.find(&phrase).is_some_and(advised)
        })
    })
}

/// `error` without the advice it ends with ("… no schema history table. Use baseline() or
/// set baselineOnMigrate to true …") when the way that got past it took none of it: the
/// tool's guess, not followed, would read as the fix. Advice the way took stays.
pub(crate) fn without_advice_not_taken(error: &str, failed: &str, fixed: &str, ran: &[String]) -> String {
    static ADVICE: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(
            r"[.!]\s+(?:(?:Use|Try|Run|Set|Consider|Please (?:run|use|set|try))\b|You (?:may|might|should|can|could) (?:need to |want to )?(?:run|use|set|try|add)\b)",
        )
    });
    let Some(at) = ADVICE.find(error) else { return error.to_string() };
    let advice = error[at.start() + 1..].to_lowercase();
    let failed_words = shell::words(failed);
    let taken = ran_what_it_advised(error, ran)
        || shell::words(fixed)
            .into_iter()
            .chain(ran.iter().flat_map(|step| shell::words(step)))
            .filter(|w| !failed_words.contains(w))
            .flat_map(|w| w.split(['=', ':', '/']).map(str::to_lowercase).collect::<Vec<_>>())
            .any(|part| part.len() >= 4 && advice.contains(&part));
    if taken {
        return error.to_string();
    }
    // (Only the advice: "Caused by: …" after it is the error again.)
    let rest = &error[at.end()..];
    let end = rest.find(". ").map_or(error.len(), |i| at.end() + i + 1);
    format!("{}{}", &error[..at.start() + 1], &error[end..]).trim_end().to_string()
}

/// True when an error says nothing listened where the command connected
/// (`connect ECONNREFUSED 127.0.0.1:5432`): what gets past it starts what listens.
pub(crate) fn is_refused(error: &str) -> bool {
    static REFUSED: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(
            r"(?i)connection refused|econnrefused|could not connect to (?:the )?server|cannot connect to the docker daemon|is the (?:server|docker daemon) running",
        )
    });
    REFUSED.is_match(error)
}

/// True when an error says a port is held by another process (`Errno 98`, `EADDRINUSE`,
/// `AddrInUse`, Docker's `port is already allocated`).
pub(crate) fn is_port_taken(error: &str) -> bool {
    static TAKEN: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(
            r"(?i)address already in use|\beaddrinuse\b|\baddrinuse\b|port is already allocated|errno 98\b|os error 98\b",
        )
    });
    TAKEN.is_match(error)
}

/// True when an error is the machine's or the toolchain's (a refused connection, a missing
/// program, header or module), not the code's.
pub(crate) fn is_environmental(error: &str) -> bool {
    ENVIRONMENT.is_match(error)
}

/// True when an error only says a sub-command or plug-in is not there (`error: no such
/// command: `nextest``, `unknown command "diff" for "helm"`).
pub(crate) fn says_absent(error: &str) -> bool {
    static ABSENT: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(
            r"(?i)\bno such (?:sub)?command\b|\bunknown (?:sub)?command\b|\bunrecognized (?:sub)?command\b|\bis not installed\b|\bplugin not found\b",
        )
    });
    ABSENT.is_match(error)
}

/// True when a project's own checker reported the failure (`./scripts/lint.sh`, `check-ns:
/// src/x.clj:1: …`): it states a rule of the project, which is a lesson, wherever it points.
/// (`Error: …` is a label, not a program's name, nor is an exception's, nor a phrase:
/// `[error] Failed tests: …`.)
pub(crate) fn is_own_checker(kind: CommandKind, error: &str) -> bool {
    let voiced = |head: &str| {
        let head = head.to_ascii_lowercase();
        // (kotlinc's `e: file:///…` marks an error by a letter; it is no checker's name.)
        head.len() > 1
            && !head.contains([':', ' ', '[', '('])
            && !["error", "warning", "fatal", "note", "failed", "failure"].contains(&head.as_str())
            && !head.ends_with("error")
            && !head.ends_with("exception")
    };
    // (A file's name followed by its line is a place: `rules/disk.yml: 14:13: group …`.)
    let placed =
        |rest: &str| rest.split_once(':').is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    kind == CommandKind::Run || error.split_once(": ").is_some_and(|(head, rest)| voiced(head) && !placed(rest))
}

/// True when a failure is in one of `files`: its error names one with a line number, the
/// command ran one, or its output placed it there.
fn is_placed_in(failed: &str, error: &str, places: &[String], files: &[String]) -> bool {
    names_one_of(error, files) || runs_one_of(failed, files) || places.iter().any(|p| is_one_of(p, files))
}

/// The places (`src/x.rs:12`) a command's output points at, without their line numbers:
/// where a test, a compiler or a linter says the failure is.
pub(crate) fn places_in(output: &str, max: usize) -> Vec<String> {
    let mut places: Vec<String> = Vec::new();
    for found in PLACE.captures_iter(output).filter_map(|c| c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3))) {
        let path = found.as_str().trim_start_matches("./");
        // (`file:///home/x/A.kt:8:13` is `/home/x/A.kt`.)
        let path = path.strip_prefix("//").filter(|p| p.starts_with('/')).unwrap_or(path);
        if !places.iter().any(|p| p == path) {
            places.push(path.to_string());
            if places.len() == max {
                break;
            }
        }
    }
    places
}

/// A place in a file: a path with an extension, then a line number (`src/x.rs:12`,
/// promtool's `rules/x.yml: 14:13`, or OCaml's `File "test/run.t", line 1, characters 0-0`). (Not a Python traceback's frames:
/// a frame in a settings file says where a missing setting was read, not whose bug it is.)
static PLACE: LazyLock<Regex> = LazyLock::new(|| {
    crate::core::patterns::regex(concat!(
        // (A route's folder may be bracketed: `src/pages/trips/[slug]/gallery.astro:23:19`.)
        // (A build file goes without an extension: `Makefile:24: *** missing separator`.)
        // (Not make's own `make: *** [Makefile:12: test] Error 1`, which every failed target
        // prints.)
        r#"(?:^|[^\[\w./-])((?:[\w./-]*/)?(?:Makefile|GNUmakefile|makefile|Dockerfile|Containerfile|Justfile|justfile|Rakefile|Gemfile|Vagrantfile|Jenkinsfile|Brewfile|Procfile|Taskfile)):\d+|([\w./-][\w./\[\]-]*\.\w+):(?:\d+| \d+:\d+:)"#,
        r#"|\bFile "([\w./-]+\.\w+)", line \d+, characters\b"#,
    ))
});

/// True when `path` is one of `files`, either written relative to the other.
pub(crate) fn is_one_of(path: &str, files: &[String]) -> bool {
    let path = path.trim_start_matches("./");
    files.iter().any(|f| f == path || f.ends_with(&format!("/{path}")) || path.ends_with(&format!("/{f}")))
}

/// True when an error names, with a line number, one of `files` (`ingest/templates/pdb.yaml:1`
/// for `charts/ingest/templates/pdb.yaml`).
fn names_one_of(error: &str, files: &[String]) -> bool {
    // A test runner's line over a test file (`❯ src/routes/sightings.test.ts (2 tests | 1 failed)`,
    // `FAIL src/x.test.ts`) names it without a line number.
    let words = error.split_whitespace().map(|w| w.trim_matches(|c: char| "()[]'\"`,;:".contains(c)));
    PLACE
        .captures_iter(error)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3)))
        .any(|path| is_one_of(path.as_str(), files))
        || words.filter(|w| w.contains('/') && is_test_file(w)).any(|w| is_one_of(w, files))
}

/// True for a source file named as a test (`x.test.ts`, `x_spec.rb`, `test_x.py`, `x_test.go`).
fn is_test_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    is_source(path)
        && ([".test.", ".spec."].iter().any(|m| name.contains(m))
            || stem.starts_with("test_")
            || stem.ends_with("_test")
            || stem.ends_with("_spec"))
}

/// True when a command names one of `files` as a word (`crystal spec spec/x_spec.cr`).
fn runs_one_of(command: &str, files: &[String]) -> bool {
    // A test module by its dotted name (`bookings.tests.test_form`) is its file.
    let module_file = |f: &str| f.strip_suffix(".py").map(|m| m.replace('/', "."));
    shell::words(command).iter().map(|w| w.trim_start_matches("./")).any(|word| {
        word.contains(['/', '.'])
            && files.iter().any(|f| {
                f == word
                    || f.ends_with(&format!("/{word}"))
                    || module_file(f).is_some_and(|m| {
                        m == word || m.ends_with(&format!(".{word}")) || word.starts_with(&format!("{m}."))
                    })
            })
    })
}

/// True when an error says where it is (`internal/store/pg.go:41:2: …`) and that is a file
/// the agent then edited: whatever it says, it was about the code under work.
fn points_into(error: &str, edited: &[String]) -> bool {
    let Some((path, _)) = error.split_once(':') else { return false };
    is_located(error) && is_one_of(path, edited)
}

/// True when an error opens with the place it is about (`path:line:`).
fn is_located(error: &str) -> bool {
    let Some((path, line)) = error.split_once(':') else { return false };
    let numbered = line.split(':').next().is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    numbered && !path.is_empty()
}

/// The words a build's task is usually called by.
const TASK_WORDS: &[&str] =
    &["build", "test", "check", "install", "lint", "format", "clean", "release", "deploy", "bench", "compile", "serve"];

/// True when the command that succeeded only corrects a typo in the one that failed
/// (`make bulid` → `make build`): nothing to learn.
pub(crate) fn is_typo_pair(failed: &str, fixed: &str) -> bool {
    // Settings in front (`JAVA_HOME=… ./gradlew build`) are not part of the spelling.
    let words = |command: &'_ str| -> Vec<String> {
        command.split_whitespace().skip_while(|w| is_assignment(w)).map(str::to_string).collect()
    };
    let (a, b) = (words(failed), words(fixed));
    let (a, b): (Vec<&str>, Vec<&str>) =
        (a.iter().map(String::as_str).collect(), b.iter().map(String::as_str).collect());
    // `make bulid` → `make`: the misspelt task dropped for the default one.
    // (Not a flag, `cargo build --release` → `cargo build`, nor another word of the same
    // stem, `make tests` → `make`.)
    let misspelt = |x: &str| {
        TASK_WORDS.iter().any(|task| {
            let stem = x.starts_with(task) || task.starts_with(x);
            *task != x && edit_distance(task, x) <= 2 && (x.len() == task.len() || !stem)
        })
    };
    if let Some((x, rest)) = a.split_last()
        && rest == b.as_slice()
        && x.len() >= 4
        && !x.starts_with('-')
        && misspelt(x)
    {
        return true;
    }
    let Some(i) = a.iter().zip(&b).position(|(x, y)| x != y) else {
        return false;
    };
    let (x, y) = (a[i], b[i]);
    x.len() >= 3 && y.len() >= 3 && x.len().abs_diff(y.len()) <= 1 && edit_distance(x, y) <= 2 && {
        // The rest of the line is the same, or only adds to it (`make build BOARD=rev2`).
        let rest_a = &a[i + 1..];
        rest_a.iter().all(|w| b[i + 1..].contains(w))
    }
}

/// True when a failed command's output offers the right spelling of one of its words
/// (`Did you mean this? server` for `hugo sever`, git's `The most similar command is
/// status`): a typo, whatever the agent ran next.
pub(crate) fn is_misspelt(command: &str, output: &str) -> bool {
    static OFFER: LazyLock<Regex> = LazyLock::new(|| {
        // sbt's `Not a valid key: tset (similar: test, tests, testOnly)`.
        crate::core::patterns::regex(r"(?i)did you mean|the most similar commands? (?:is|are)|\(similar:")
    });
    // `ninja: error: unknown target 'tset'`, make's `No rule to make target 'tset'`, npm's
    // `Missing script: "tset"`: a task word mistyped, whatever the tool offers.
    static UNKNOWN_TASK: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(
            r#"(?i)\b(?:unknown target|no rule to make target|missing script|(?:unknown|no such) (?:task|command|script)|task)\s*:?\s*['"`‘“]([\w:-]{3,20})['"`’”]"#,
        )
    });
    let refused = |line: &str| {
        let line = line.to_ascii_lowercase();
        ["unknown", "no rule", "not found", "does not exist", "missing", "no such"].iter().any(|r| line.contains(r))
    };
    // (Letters swapped or one mistyped, at the same length: not `tests` or `server`, other
    // names of their own.)
    let mistyped_task = |name: &str| {
        let name = name.to_ascii_lowercase();
        TASK_WORDS.iter().any(|t| *t != name && t.len() == name.len() && edit_distance(t, &name) == 1)
    };
    let typed = |name: &str| command.split_whitespace().any(|w| w.trim_matches(['\'', '"']) == name);
    // (Read around the first few names only, however long the output.)
    let unknown = UNKNOWN_TASK.captures_iter(output).take(8).any(|c| {
        let (Some(whole), Some(name)) = (c.get(0), c.get(1)) else { return false };
        if !typed(name.as_str()) || !mistyped_task(name.as_str()) {
            return false;
        }
        let mut from = whole.start().saturating_sub(80);
        while !output.is_char_boundary(from) {
            from += 1;
        }
        let mut to = (whole.end() + 80).min(output.len());
        while !output.is_char_boundary(to) {
            to -= 1;
        }
        let around = &output[from..to];
        let line_start = around[..whole.start() - from].rfind('\n').map_or(0, |i| i + 1);
        let line_end = around[whole.end() - from..].find('\n').map_or(around.len(), |i| whole.end() - from + i);
        refused(&around[line_start..line_end])
    });
    if unknown {
        return true;
    }
    let Some(offer) = OFFER.find(output) else { return false };
    let mut end = (offer.end() + 200).min(output.len());
    while !output.is_char_boundary(end) {
        end -= 1;
    }
    let word = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '_').to_string();
    let offered: Vec<String> = output[offer.end()..end].split_whitespace().map(word).filter(|w| w.len() >= 3).collect();
    command.split_whitespace().skip_while(|w| is_assignment(w)).map(word).filter(|w| w.len() >= 3).any(|typed| {
        offered.iter().any(|o| *o != typed && o.len().abs_diff(typed.len()) <= 2 && edit_distance(o, &typed) <= 2)
    })
}

/// True when a command failed because its program's name was mistyped (`terrafrom plan`:
/// not found) and `fixed` runs the program spelt right, whatever it does next.
/// True when an error names a flag the program does not know (`Unknown argument:
/// --output-on-fail`) and `fixed` uses one spelt close to it (`--output-on-failure`).
pub(crate) fn is_mistyped_flag(error: &str, fixed: &str) -> bool {
    static UNKNOWN_FLAG: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(
            r"(?i)(?:unknown|unrecogni[sz]ed|invalid|unexpected)\s+(?:argument|option|flag|switch)s?:?\s+'?(--?[A-Za-z][\w-]*)",
        )
    });
    let Some(bad) = UNKNOWN_FLAG.captures(error).and_then(|c| c.get(1)).map(|m| m.as_str()) else { return false };
    fixed
        .split_whitespace()
        .map(|w| w.split_once('=').map_or(w, |(flag, _)| flag))
        .any(|flag| flag.starts_with('-') && flag != bad && (flag.starts_with(bad) || edit_distance(flag, bad) <= 2))
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

pub(crate) fn is_mistyped_program(failed: &str, error: &str, exit: Option<i64>, fixed: &str) -> bool {
    let not_found = exit == Some(127) || error.contains("not found") || error.contains("not recognized");
    // Of a chain (`mkdir -p x && stwo -n x`), the part whose program the error names.
    let programs = |command: &'_ str| -> Vec<String> {
        command
            .split(['&', '|', ';'])
            .filter_map(|part| part.split_whitespace().find(|w| !is_assignment(w)))
            .map(str::to_string)
            .collect()
    };
    let fixes = programs(fixed);
    not_found
        && programs(failed).iter().any(|a| {
            // The error names the mistyped program itself, and the name is long enough to be
            // mistyped rather than another tool (`npm` and `pnpm` are two).
            let named = error.contains(a.rsplit('/').next().unwrap_or(a));
            named && fixes.iter().any(|b| is_misspelling(a, b))
        })
}

/// True when program name `a` is `b` mistyped.
fn is_misspelling(a: &str, b: &str) -> bool {
    // Four letters are enough when the length is the same (`pnpn` → `pnpm`), or when the
    // name was cut short (`carg` → `cargo`).
    let long_enough = a.len() >= 5
        || (a.len() == 4 && b.len() == 4 && edit_distance(a, b) == 1)
        || (a.len() == 4 && b.len() == 5 && b.starts_with(a));
    // (`python` → `python3` is another program, not a typo.)
    let versioned =
        |x: &str, y: &str| y.strip_prefix(x).is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'));
    a != b
        && !versioned(a, b)
        && !versioned(b, a)
        && long_enough
        && a.len().abs_diff(b.len()) <= 1
        && edit_distance(a, b) <= 2
}

/// Optimal string alignment distance (Levenshtein with transpositions), on characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// True when someone says a service is down or held for a while ("the internal PyPI mirror
/// is down this morning", "staging is frozen this week", "the Athens proxy is down today"),
/// or tells of a server elsewhere in an outage ("the npm registry is returning 503").
pub(crate) fn announces_outage(text: &str) -> bool {
    static OUTAGE: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(concat!(
            r"(?i)(?:\b(?:is|are|'s|'re|was|were|has been|have been)\s+(?:down|offline|unreachable|unavailable|frozen|flaky|broken|being (?:upgraded|migrated|rebuilt|moved))\b|\b(?:is|are|'s|'re)\s+having\s+(?:an?\s+)?(?:outage|incident|downtime)\b)",
            r"[^.;!?]{0,80}?\b(?:today|tonight|this (?:morning|afternoon|evening|week)|right now|at the moment|for now|for the day|until (?:tomorrow|monday|tuesday|wednesday|thursday|friday|later))\b",
            // (A spell that is over: "was down for a few minutes around half ten".)
            r"|\b(?:was|were|had been)\s+(?:down|offline|unreachable|unavailable)\b[^.;!?]{0,40}?",
            r"\b(?:for (?:a (?:few|couple of) |some |\d+ )?(?:minutes?|mins?)|briefly|earlier(?:\s+today)?\s*(?:[.,;!]|$))",
        ))
    });
    OUTAGE.is_match(text) || reports_outage(text)
}

/// True when a sentence tells of a server elsewhere in an outage, as a status page or a
/// registry's answers show it ("The npm registry is returning 503 (status page: 'Partial
/// System Outage')", "Docker Hub is having an outage"): what an agent found, where a server
/// of the project's own that is "down right now" may be one the task was to start.
pub(crate) fn reports_outage(text: &str) -> bool {
    static REPORTED: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(concat!(
            r"(?i)\b(?:partial|major)\s+(?:system\s+)?outage\b|\b(?:is|are|was|were)\s+having\s+(?:an?\s+)?outage\b|\bhit\s+an?\s+(?:\w+\s+)?outage\b",
            r"|\b(?:registry|hub|mirror|proxy|index|cdn)\b[^.;!?]{0,30}?\b(?:is|are|was|were|keeps?|kept)\s+(?:returning|answering|giving|throwing|serving)\s+(?:an?\s+)?(?:http\s+)?50[234]\b",
        ))
    });
    REPORTED.is_match(text)
}

/// True for a word added to a command that takes it off the server it reaches (`--offline`,
/// `-o` of Maven and Gradle, pip's `--no-index`, a URL, or a proxy, a mirror, an index or a
/// registry set): a way around a server that is down, no setting the project needs.
pub(crate) fn goes_offline(word: &str) -> bool {
    let name = word.split('=').next().unwrap_or(word).to_ascii_uppercase();
    matches!(word, "--offline" | "--prefer-offline" | "-o" | "--no-index" | "--frozen-offline")
        || word.contains("://")
        || (word.contains('=')
            && ["PROXY", "MIRROR", "OFFLINE", "INDEX_URL", "REGISTRY"].iter().any(|n| name.contains(n)))
}

/// True when `fixed` got past `failed` by pointing it at another server (`UV_INDEX_URL=https://
/// pypi.org/simple`, `HEX_MIRROR=https://…`, `--index-url https://…`) that `failed` did not
/// name: a way around a server that was down, when one was.
pub(crate) fn goes_around_elsewhere(failed: &str, error: &str, fixed: &str) -> bool {
    // (A server the error asked for, `helm repo add bitnami https://…`, is no way around.)
    let named = shell::words(failed);
    shell::words(fixed).iter().any(|w| w.contains("://") && !named.contains(w) && !error.contains(w.as_str()))
}

/// What the command that succeeded has that the failed one lacked, when it is the same
/// command with settings or arguments added or swapped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Needs {
    /// Words added: `PGHOST=db.internal`, `--locked`.
    pub(crate) added: Vec<String>,
    /// Words the failed command had instead (`localhost:8080` for `localhost:8081`).
    pub(crate) replaced: Vec<String>,
}

/// Longest list of words a "needs" lesson names; more is another command, not a setting.
const MAX_NEEDED: usize = 3;

/// The settings or arguments that made `failed` work as `fixed`, when both are one command
/// of one job (same program and sub-command) differing in a few words.
pub(crate) fn needs(failed: &str, fixed: &str) -> Option<Needs> {
    if failed == fixed || classify(failed).family != classify(fixed).family || failed.contains('\n') {
        return None;
    }
    // (The tests a run picked, `-Dtest=InvoiceRoundingTest`, are no setting it lacked.)
    let tests = classify(failed).kind == CommandKind::Test;
    let plain = |c: &str| if tests { shell::without_narrowing(c) } else { c.to_string() };
    let (a, b) = (shell::setting_words(&plain(failed)), shell::setting_words(&plain(fixed)));
    // (A long flag's value after it is the flag's: `--profiles-dir profiles` is one word.)
    let mut added: Vec<String> = Vec::new();
    for (i, word) in b.iter().enumerate().filter(|(_, w)| !a.contains(w)) {
        let after_flag = i > 0
            && b[i - 1].starts_with("--")
            && b[i - 1] != "--"
            && !b[i - 1].contains('=')
            && !a.contains(&b[i - 1])
            && !word.starts_with('-');
        match added.last_mut() {
            Some(flag) if after_flag && !flag.contains(' ') => *flag = format!("{flag} {word}"),
            _ => added.push(word.clone()),
        }
    }
    // A test file or folder the failed run was narrowed to is no setting it lacked.
    let program = a.first().cloned().unwrap_or_default();
    let narrowing = |w: &String| !w.starts_with('-') && shell::is_narrowed(&format!("{program} {w}"));
    let replaced: Vec<String> = a.iter().filter(|w| !b.contains(w) && !narrowing(w)).cloned().collect();
    let small = !added.is_empty() && added.len() <= MAX_NEEDED && replaced.len() <= MAX_NEEDED;
    // Settings and flags added, or a value swapped for one of its own shape (a port, a host,
    // a flag's value); another file or sub-command is another command, not a setting.
    let settings = replaced.is_empty() && added.iter().all(|w| is_setting(w) || w.starts_with('-'));
    let swapped = replaced.len() == added.len() && replaced.iter().zip(&added).all(|(r, a)| same_shape(r, a));
    (small && (settings || swapped)).then_some(Needs { added, replaced })
}

/// True when `fixed` is `failed` with environment settings added and nothing else changed
/// (`JAVA_HOME=/usr/lib/jvm/java-17 ./gradlew test` for `./gradlew test`).
pub(crate) fn adds_settings_only(failed: &str, fixed: &str) -> bool {
    needs(failed, fixed).is_some_and(|n| n.replaced.is_empty() && n.added.iter().all(|w| is_setting(w)))
}

/// True when `fixed` is `failed` with flags or settings added (and the flags' values), no
/// word of it taken out: `pytest -q --create-db`, `dbt build --profiles-dir profiles`.
/// (Not one that only picks which tests run, when to stop or how much to print: `ctest
/// --rerun-failed`, `pytest --tb=short`, `--ignore tests/integration`.)
pub(crate) fn adds_flags(failed: &str, fixed: &str) -> bool {
    const PICKING: &[&str] = &[
        "--rerun-failed",
        "--lf",
        "--last-failed",
        "--ff",
        "--failed-first",
        "--onlyFailures",
        "-x",
        "--exitfirst",
        "--fail-fast",
        "--failfast",
        "--bail",
        "--stop-on-failure",
        "-failfast",
        "--maxfail",
        "--ignore",
        "--deselect",
        "--exclude",
        "--skip",
        "-s",
        "-q",
        "--quiet",
        "--tb",
        "--no-header",
        "--durations",
        "--color",
        "--colour",
        "--no-color",
        "--verbose",
        "-v",
        "-vv",
        "-vvv",
        "--debug",
        "--trace",
        "--summary",
        "--no-daemon",
    ];
    let (failed, fixed) = (shell::without_loud_flags(failed), shell::without_loud_flags(fixed));
    // (A setting beside it is a way too: `ZIG_GLOBAL_CACHE_DIR=… zig build test --summary all`.)
    let a_way =
        |w: &String| is_setting(w) || w.starts_with('-') && !PICKING.contains(&w.split([' ', '=']).next().unwrap_or(w));
    needs(&failed, &fixed).is_some_and(|n| n.replaced.is_empty() && n.added.iter().any(a_way))
}

/// The words `fixed` added to `failed` to serve on another port (`--port 4001`,
/// `PORT=4001`), one by one: the way past a port another process held that day, which the
/// job needs no more than that day did.
pub(crate) fn port_words(failed: &str, fixed: &str) -> Vec<String> {
    let Some(needs) = needs(failed, fixed) else { return Vec::new() };
    let port = |w: &String| {
        let setting = is_setting(w) && w.split('=').next().is_some_and(|key| key == "PORT" || key.ends_with("_PORT"));
        setting || (w.starts_with("--") && !shell::ports_named(w).is_empty())
    };
    needs.added.iter().filter(|w| port(w)).flat_map(|w| w.split(' ').map(str::to_string)).collect()
}

/// True for a setting of where a program keeps its files: a variable named for a folder
/// (`ZIG_GLOBAL_CACHE_DIR`, `TMPDIR`, `GOPATH`) set to a path. (`RUST_BACKTRACE=1` is none.)
pub(crate) fn sets_a_place(word: &str) -> bool {
    const PLACES: &[&str] = &["DIR", "CACHE", "TMP", "ROOT", "HOME", "PATH", "PREFIX"];
    let Some((name, value)) = word.split_once('=') else { return false };
    is_setting(word) && PLACES.iter().any(|p| name.contains(p)) && (value.starts_with(['/', '~', '$', '.']))
}

/// `VAR=value`, or `env -u VAR`: an environment setting; or a property a JVM or its build
/// tool takes on the command line (`-Dfile.encoding=UTF-8`,
/// `-Porg.gradle.java.installations.paths=/opt/jdk-21`).
pub(crate) fn is_setting(word: &str) -> bool {
    // (Not one that skips a step, `-Dmaven.test.skip=true`: that gets past no failure.)
    let property = (word.starts_with("-D") || word.starts_with("-P"))
        && word[2..]
            .split_once('=')
            .is_some_and(|(key, _)| key.len() > 1 && key.contains('.') && !key.to_ascii_lowercase().contains("skip"));
    property
        || word.starts_with("env -u ")
        || word.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
}

/// Two words that are one value in two versions: the same setting or flag with another
/// value, or the same text around other digits (`localhost:8080` and `localhost:8081`).
fn same_shape(a: &str, b: &str) -> bool {
    let head = |w: &str| w.split_once('=').map(|(h, _)| h.to_string());
    if let (Some(x), Some(y)) = (head(a), head(b)) {
        return x == y;
    }
    let skeleton = |w: &str| w.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).collect::<String>();
    skeleton(a) == skeleton(b) && a.chars().any(|c| c.is_ascii_digit())
}

/// The variable names a command prints (`echo $PGHOST`, `printenv PGHOST`), so the value the
/// shell had can be told beside the one that worked.
pub(crate) fn printed_variable(command: &str) -> Option<String> {
    static PRINTED: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(
            r#"^\s*(?:echo|printf\s+'?%s\\n'?)\s+"?\$\{?([A-Z_][A-Z0-9_]*)\}?"?\s*$|^\s*printenv\s+([A-Z_][A-Z0-9_]*)\s*$"#,
        )
    });
    let caps = PRINTED.captures(command)?;
    caps.get(1).or_else(|| caps.get(2)).map(|m| m.as_str().to_string())
}

/// True when an install's output says it changed nothing (`Already up-to-date.`, `Nothing
/// to do.`, `x is already the newest version`, `up to date, audited 212 packages`) and
/// nothing of what it did install: no step of any way past a failure.
pub(crate) fn changed_nothing(output: &str) -> bool {
    static NOTHING: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(concat!(
            r"(?im)^\s*(?:already up[- ]to[- ]date\b|nothing to do\b|up to date, audited \d+ packages?\b)",
            r"|\bis already the newest version\b|\balready installed and up[- ]to[- ]date\b|\bunchanged - rustc\b",
            r"|^\s*0 upgraded, 0 newly installed\b|\ball requested (?:collections|packages) are already installed\b",
        ))
    });
    static DID: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(concat!(
            r"(?i)\b(?:successfully installed|installed successfully|(?:was|were) installed|downloading|extracting|will be installed|[1-9]\d* (?:upgraded|newly installed)|installing|installed \S+ v?\d",
            r"|downgrad(?:e|ing)|upgrading|(?:added|changed|removed|updated) \d+ packages?|-> (?:installed|removed)|setting up",
            r"|building from source|pouring|fetching|packages? (?:are|is) (?:being )?(?:installed|upgraded))\b",
        ))
    });
    NOTHING.is_match(output) && !DID.is_match(output)
}

/// The variables and values a look at the whole environment printed (`env | grep -i
/// docker` → `DOCKER_BUILDKIT=0`); nothing for any other command.
pub(crate) fn printed_environment(command: &str, output: &str) -> Vec<(String, String)> {
    static WHOLE: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(
            r#"^\s*(?:env|printenv|export\s+-p)\s*(?:\|\s*(?:grep|rg|egrep|sort|head|tail)\b(?:[^|;&<>'"]|'[^']*'|"[^"]*")*)*$"#,
        )
    });
    static SETTING: LazyLock<Regex> =
        LazyLock::new(|| crate::core::patterns::regex(r"^(?:declare -x |export )?([A-Z_][A-Z0-9_]*)=(.*)$"));
    if !WHOLE.is_match(command) {
        return Vec::new();
    }
    output
        .lines()
        .filter_map(|line| SETTING.captures(line.trim()))
        .map(|c| (c[1].to_string(), c[2].trim_matches('"').to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_install_that_changed_nothing_says_so() {
        assert!(changed_nothing("Already up-to-date.\n\n<><> Synchronising pinned packages ><><>\nNothing to do."));
        assert!(changed_nothing(
            "Reading package lists...\nlibxml2-dev is already the newest version (2.9.14).\n0 upgraded, 0 newly installed, 0 to remove and 3 not upgraded."
        ));
        assert!(changed_nothing("\nup to date, audited 212 packages in 2s\n\nfound 0 vulnerabilities"));
        assert!(changed_nothing("  stable-x86_64-unknown-linux-gnu unchanged - rustc 1.83.0 (90b35a623 2024-11-26)"));
        // Something installed or changed beside what was there already.
        assert!(!changed_nothing(
            "libxml2 is already the newest version.\nThe following NEW packages will be installed:\n  libxml2-dev\n1 upgraded, 1 newly installed"
        ));
        assert!(!changed_nothing("Already installed! (1 of 2)\ngtest/1.15.0: Building from source (2 of 2)"));
        assert!(!changed_nothing("Requirement already satisfied: numpy\nSuccessfully installed polars-1.17.1"));
        assert!(!changed_nothing("added 3 packages, and audited 215 packages in 3s"));
        assert!(!changed_nothing(
            "Warning: jq 1.7.1 is already installed and up-to-date.\n==> Pouring yq--4.44.5.arm64_sonoma.bottle.tar.gz"
        ));
        // (A role installed, and the collections there already.)
        let galaxy = "- extracting geerlingguy.docker to galaxy_roles/geerlingguy.docker\n- geerlingguy.docker (7.4.1) \
                      was installed successfully\nNothing to do. All requested collections are already installed.";
        assert!(!changed_nothing(galaxy));
        assert!(!changed_nothing("The tests have nothing to do with it."));
    }

    #[test]
    fn a_look_at_the_environment_prints_its_settings() {
        let printed = printed_environment(
            "env | grep -iE '^(docker|registry)' | sort",
            "DOCKER_BUILDKIT=0\nREGISTRY_URL=https://r.example\n",
        );
        assert_eq!(
            printed,
            [("DOCKER_BUILDKIT".into(), "0".into()), ("REGISTRY_URL".into(), "https://r.example".into())]
        );
        assert_eq!(
            printed_environment("export -p", "declare -x GOFLAGS=\"-mod=mod\""),
            [("GOFLAGS".into(), "-mod=mod".into())]
        );
        // (Not a file's settings, nor what a program printed.)
        assert!(printed_environment("cat .env", "DOCKER_BUILDKIT=0").is_empty());
        assert!(printed_environment("env DOCKER_BUILDKIT=1 docker build .", "X=1").is_empty());
    }

    #[test]
    fn a_server_down_for_the_moment_is_told_from_other_errors() {
        assert!(is_server_unavailable(
            "Gem::RemoteFetcher::FetchError bad response Service Unavailable 503 (https://x)"
        ));
        assert!(is_server_unavailable("Received status code 502 from server: Bad Gateway"));
        assert!(is_network_blip("Received status code 502 from server: Bad Gateway"));
        assert!(!is_server_unavailable("dial tcp 10.0.0.1:6443: i/o timeout"));
        assert!(!is_server_unavailable("expected status 503, got 200"));
        assert!(is_server_unavailable(
            "WARN GET https://npm.example.internal/@prisma%2Fclient/-/client-6.1.0.tgz error (ERR_PNPM_FETCH_503)."
        ));
        assert!(is_server_unavailable("npm ERR! code E503"));
        assert!(!is_server_unavailable("ERR_PNPM_FETCH_404 GET https://registry.npmjs.org/nope: Not Found - 404"));
    }

    #[test]
    fn a_property_given_on_the_command_line_is_a_setting() {
        assert!(adds_settings_only(
            "./gradlew test",
            "./gradlew test -Porg.gradle.java.installations.paths=/opt/jdk-21"
        ));
        assert!(adds_settings_only("mvn verify", "mvn verify -Dfile.encoding=UTF-8"));
        assert!(!adds_settings_only("./gradlew test", "./gradlew test --offline"));
        assert!(!adds_settings_only("pytest", "pytest -Pfoo"));
        // (One that skips a step gets past nothing.)
        assert!(!adds_settings_only("mvn verify", "mvn verify -Dmaven.test.skip=true"));
    }

    #[test]
    fn a_compilers_severity_letter_is_no_checker() {
        let error = "e: file:///home/dev/x/src/A.kt:8:13 Serializer has not been found for type 'Instant'.";
        assert!(!is_own_checker(CommandKind::Test, error));
        assert!(is_own_checker(
            CommandKind::Test,
            "check-prefix: include/ring.h:47: symbol 'ring_drain' lacks the prefix"
        ));
        // (Its place is the file the URL names.)
        assert_eq!(
            places_in("e: file:///home/dev/x/src/A.kt:8:13 Unresolved reference 'y'.", 4),
            ["/home/dev/x/src/A.kt"]
        );
    }

    #[test]
    fn the_names_an_error_quotes_are_found_in_a_text() {
        let error = r#"nginx: [emerg] "limit_req_zone" directive is not allowed here in /etc/nginx/sites-enabled/x:12"#;
        assert_eq!(quoted_names_in(error, "    limit_req_zone $binary_remote_addr zone=api:10m;"), ["limit_req_zone"]);
        assert!(quoted_names_in(error, "    limit_req zone=api burst=20;").is_empty());
    }

    #[test]
    fn a_rerun_of_the_failed_test_alone_is_told_from_one_that_leaves_it_out() {
        let error = "FAILED tests/test_export.py::test_export_csv - assert 1 == 2";
        assert!(reruns_the_failed_test("pytest -q tests/test_export.py::test_export_csv", "pytest -q", error, &[]));
        assert!(!reruns_the_failed_test(
            "pytest -q --deselect tests/test_export.py::test_export_csv",
            "pytest -q",
            error,
            &[]
        ));
        // (A run of other tests, or another program's, names nothing that failed.)
        assert!(!reruns_the_failed_test("pytest -q tests/test_import.py", "pytest -q", error, &[]));
        let places = ["spec/rate_window_spec.cr".to_string()];
        assert!(reruns_the_failed_test(
            "crystal spec spec/rate_window_spec.cr",
            "crystal spec",
            "Failure/Error: x",
            &places
        ));
        let panic = "thread 'watch::tests::picks_up_new_file' panicked at src/watch.rs:141:9";
        assert!(reruns_the_failed_test("cargo test --lib watch::tests::picks_up_new_file", "make test", panic, &[]));
        // (Nor is a golden file the rerun accepts a test it picked.)
        let golden = "Golden file test/golden/x.out does not exist; use --accept to create it";
        assert!(!reruns_the_failed_test(
            "cabal test --test-options=--accept && cat test/golden/x.out",
            "cabal test",
            golden,
            &[]
        ));
    }

    #[test]
    fn a_run_got_as_far_as_the_code_when_a_test_failed_after_a_machine_error() {
        let disk = "ERROR: BUILD.bazel:24:8: GoLink failed: I/O exception (No space left on device)";
        assert!(reached_the_code(disk, "FAIL: //internal/queue:queue_test (see test.log)"));
        assert!(reached_the_code("Error: can't find file 'webmock'", "Failure/Error: w.count(\"a\").should eq(0)"));
        // (dbt's test verdicts, in its log's voice.)
        let profile = "Runtime Error Could not find profile named 'summits'";
        assert!(reached_the_code(profile, "12:33:03  3 of 3 FAIL 412 unique_mart_peaks_id .... [FAIL 412 in 0.06s]"));
        assert!(reached_the_code(profile, "Failure in test unique_mart_peaks_id (models/marts/schema.yml)"));
        assert!(!reached_the_code(profile, "1 of 3 OK created sql table model main.mart_peaks"));
        // (Another machine error is the next landmine, not the code.)
        assert!(!reached_the_code(disk, "Error: connection refused (os error 111)"));
        assert!(!reached_the_code("E0432 unresolved import", "FAILED tests/test_x.py::test_y"));
        // (Nothing failed in "0 examples, 0 failures, 1 error occurred outside of examples".)
        assert!(!reached_the_code(
            "Error: can't find file 'webmock'",
            "0 examples, 0 failures, 1 error occurred outside of examples"
        ));
        // (Flutter's and alcotest's verdicts; Go's build that failed ran no test.)
        let missing = "Error: Library \"ppx_deriving.show\" not found.";
        assert!(reached_the_code(missing, "FAIL dry"));
        assert!(reached_the_code(missing, "  [FAIL]        parse_profile          0   ok."));
        assert!(reached_the_code("error: could not find `pg_config`", "00:04 +2 -1: Some tests failed."));
        // (A service script's failed start is no test's verdict.)
        assert!(!reached_the_code(
            "connection to server on socket \"/var/run/postgresql/.s.PGSQL.5432\" failed: Connection refused",
            "[FAIL] Starting PostgreSQL 15 database server: main failed!"
        ));
        assert!(!reached_the_code(
            "go: -race requires cgo; enable cgo by setting CGO_ENABLED=1",
            "FAIL\tgithub.com/pondside/greylag/internal/api [build failed]"
        ));
    }

    #[test]
    fn advice_an_error_gave_and_the_way_past_it_did_not_take_is_left_out() {
        let error = "ERROR: Found non-empty schema(s) \"public\" but no schema history table. Use baseline() or set \
                     baselineOnMigrate to true to initialize the schema history table.";
        let failed = "flyway -configFiles=conf/flyway.conf migrate";
        let fixed = "env -u FLYWAY_URL -u FLYWAY_USER flyway -configFiles=conf/flyway.conf migrate";
        assert_eq!(
            without_advice_not_taken(error, failed, fixed, &[]),
            "ERROR: Found non-empty schema(s) \"public\" but no schema history table."
        );
        let caused = "error: failed to select a version. Run cargo update -p x. Caused by: no matching package";
        assert_eq!(
            without_advice_not_taken(caused, "cargo build", "CARGO_NET_OFFLINE=false cargo build", &[]),
            "error: failed to select a version. Caused by: no matching package"
        );
        let taken = "flyway -configFiles=conf/flyway.conf -baselineOnMigrate=true migrate";
        assert_eq!(without_advice_not_taken(error, failed, taken, &[]), error);
        let helm =
            "Error: found in Chart.yaml, but missing in charts/ directory: postgresql. Run helm dependency build.";
        let ran = ["helm dependency build charts/x".to_string()];
        assert_eq!(without_advice_not_taken(helm, "helm lint charts/x", "helm lint charts/x", &ran), helm);
    }

    #[test]
    fn a_server_down_for_the_day_is_gone_around_elsewhere() {
        for said in [
            "Also, the internal PyPI mirror is down this morning, so point uv at public PyPI for today.",
            "hex.pm is having an outage this morning, so use the jsDelivr mirror for now.",
            "Heads-up: our devpi mirror is down today.",
            "staging is frozen this week for the audit",
            "Docker Hub is having an outage right now (auth.docker.io answers 503).",
            "The npm registry itself is returning 503 (status page: 'Partial System Outage'), so this isn't our config.",
            "The first `bun update` hit a registry outage (503 from registry.npmjs.org).",
            "fyi the office network was down for a few minutes around half ten, IT says it's back now",
        ] {
            assert!(announces_outage(said), "{said}");
        }
        for said in [
            "send the welcome email and record when it went out (users.welcome_sent_at). Also, for now, no retries.",
            "The build is broken on main.",
            "Prod is down, fix it.",
            "The export has been broken for a while, find out why.",
            "The date parser is broken for dates earlier than 1970.",
            "The cache is unavailable for 24 hours after a purge.",
            "The /api/orders endpoint is returning 503 since the deploy.",
            "Add a retry for when the upstream is returning errors.",
        ] {
            assert!(!announces_outage(said), "{said}");
        }
        assert!(goes_around_elsewhere("mix deps.get", "", "HEX_MIRROR=https://cdn.jsdelivr.net/hex mix deps.get"));
        assert!(goes_around_elsewhere("pip install -e .", "", "pip install --index-url https://pypi.org/simple -e ."));
        assert!(!goes_around_elsewhere("mix deps.get", "", "MIX_ENV=test mix deps.get"));
        assert!(!goes_around_elsewhere("curl https://x.test/a", "", "curl -L https://x.test/a"));
        let error = "Error: no repository definition for https://charts.bitnami.com/bitnami";
        assert!(!goes_around_elsewhere(
            "helm dependency build",
            error,
            "helm repo add bitnami https://charts.bitnami.com/bitnami"
        ));
    }

    #[test]
    fn the_projects_own_program_answering_is_no_landmine() {
        let names = ["brambling".to_string(), "teasel".to_string()];
        for (failed, error) in [
            (
                "dune build && dune exec -- brambling export --since 14.11.2026 test/data/sample.jsonl",
                "brambling: option '--since': invalid date \"14.11.2026\", expected YYYY-MM-DD",
            ),
            ("PDM_IGNORE_ACTIVE_VENV=1 pdm run teasel validate tests/data/bad.csv", "\"severity\": \"error\""),
            ("./teasel lint x", "teasel: 2 problems"),
        ] {
            assert!(is_own_program_answer(failed, error, &names), "{failed}");
        }
        let terraform = ["terraform".to_string()];
        assert!(!is_own_program_answer("terraform plan", "Error: Backend initialization required", &terraform));
        assert!(!is_own_program_answer("teasel validate x.csv", "teasel: 2 problems", &names));
        for (failed, error) in [
            // The machine refused it: a lesson.
            ("pdm run teasel serve", "OSError: [Errno 98] Address already in use"),
            // Another program failed.
            ("dune build", "Error: Unbound module Brambling"),
            ("pdm run pytest", "E   SyntaxError: invalid syntax"),
            ("./teasel serve", "teasel: error: DATABASE_URL is not set; run `teasel init` first"),
            ("pdm run teasel serve", "sqlite3.OperationalError: no such table: users"),
        ] {
            assert!(!is_own_program_answer(failed, error, &names), "{failed}");
        }
    }

    fn is_own_work(failed: &str, error: &str, fixed: &str, edited: &[String], ran: &[String]) -> bool {
        is_own_work_in(failed, error, fixed, edited, ran, &[])
    }

    fn is_own_work_in(
        failed: &str,
        error: &str,
        fixed: &str,
        edited: &[String],
        ran: &[String],
        written: &[String],
    ) -> bool {
        Attempt { failed, error, fixed, edited, ran, written, places: &[] }.is_own_work()
    }

    #[test]
    fn a_check_in_a_chain_the_formatter_then_passes_is_the_formatters_job() {
        let failed = "hatch run test:all && hatch fmt --check";
        let error = "src/gavotte/ical.py:3:1: I001 [*] Import block is un-sorted or un-formatted";
        let written = ["src/gavotte/ical.py".to_string()];
        let attempt = Attempt {
            failed,
            error,
            places: &[],
            fixed: "hatch fmt && hatch run types:check",
            edited: &[],
            ran: &[],
            written: &written,
        };
        assert!(attempt.is_own_work());
        let mix = Attempt {
            failed: "mix test && mix format --check-formatted",
            error: "** (Mix) mix format failed due to --check-formatted.",
            fixed: "mix format && mix format --check-formatted && mix credo --strict",
            ..attempt
        };
        assert!(mix.is_own_work());
        let ran = ["mix format".to_string()];
        assert!(Attempt { ran: &ran, ..mix }.is_own_work());
        let installed = ["mix deps.get".to_string()];
        assert!(!Attempt { ran: &installed, ..mix }.is_own_work());
        assert_eq!(
            failed_check("mypy src && ruff format --check", "Would reformat: src/x.py").as_deref(),
            Some("ruff format")
        );
        assert_eq!(failed_check("pytest && ruff check", "FAILED tests/test_sort.py::test_unsorted_input"), None);
        // A test failure of the chain is not the formatter's to mend.
        let red = "FAILED tests/test_ical.py::test_export - AssertionError";
        assert!(!Attempt { error: red, fixed: "hatch run test:all", ..attempt }.is_own_work());
    }

    #[test]
    fn a_build_file_without_an_extension_is_a_place() {
        assert_eq!(places_in("Makefile:24: *** missing separator.  Stop.", 4), ["Makefile"]);
        assert_eq!(places_in("docker/Dockerfile:3: unknown instruction", 4), ["docker/Dockerfile"]);
        assert!(names_one_of("Makefile:24: *** missing separator.  Stop.", &["Makefile".to_string()]));
        // (make's own line over a failed target places nothing.)
        assert!(places_in("make: *** [Makefile:12: test] Error 1", 4).is_empty());
    }

    #[test]
    fn a_refused_connection_and_a_server_unavailable_are_told() {
        assert!(is_refused("Error: connect ECONNREFUSED 127.0.0.1:5432"));
        assert!(is_refused("psql: error: connection to server on socket failed: Is the server running locally?"));
        assert!(!is_refused("FATAL: password authentication failed for user \"app\""));
        assert!(is_network_blip("Received status code 503 from server: Service Unavailable"));
        assert!(is_network_blip("HTTP 502 Bad Gateway"));
        for full in [
            "error: unable to write object file '/home/dev/x/.zig-cache/o/4c1e/x.o': NoSpaceLeft",
            "OSError: [Errno 28] No space left on device",
            "The disk is full (/ at 100%, 0 bytes free).",
            "npm ERR! code ENOSPC",
            "The build stopped because /home was full.",
            "It failed since / is at 100%.",
        ] {
            assert!(is_disk_full(full), "{full}");
        }
        assert!(!is_disk_full("the table is full of nulls") && !is_disk_full("ENOSPCX"));
        assert!(is_network_blip("error: GET https://registry.npmjs.org/hono - 503"));
        assert!(!is_network_blip("GET http://localhost:3000/api/health - 200"));
        assert!(!is_network_blip("smoke: expected 200, got 503"));
        assert!(reports_outage("The npm registry is returning 503, status page: Partial System Outage."));
        assert!(!reports_outage("The Postgres container is down right now, starting it."));
        assert!(!reports_outage("Add a fallback so installs work during a registry outage."));
        assert!(!is_network_blip("expected 503 to be 200"));
        assert!(!is_network_blip("expected status code 502, got 200"));
        assert!(is_refused(
            "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"
        ));
        assert!(goes_offline("--offline") && goes_offline("GOPROXY=https://proxy.golang.org"));
        assert!(!goes_offline("JAVA_HOME=/opt/jdk21") && !goes_offline("--tests"));
        assert!(is_environmental("Cannot find a Java installation on your machine matching: {languageVersion=21}"));
    }

    #[test]
    fn a_slip_in_a_file_the_task_wrote_mended_there_is_its_own_work_whatever_ran_between() {
        let unit = ["units/levanter-sync.service".to_string()];
        let error = "/home/dev/levanter/units/levanter-sync.service:10: Unknown key name 'RestartSecs' in section \
                     'Service', ignoring.";
        let verify = "systemd-analyze --user verify units/levanter-sync.service";
        let fixed =
            "export XDG_RUNTIME_DIR=/run/user/1000 && make install-units && systemd-analyze --user verify x.service";
        let ran = ["make install-units".to_string()];
        let attempt = Attempt { failed: verify, error, places: &[], fixed, edited: &unit, ran: &ran, written: &unit };
        assert!(attempt.is_own_work());
        // A file it did not write is the project's.
        assert!(!Attempt { written: &[], ..attempt }.is_own_work());
    }

    #[test]
    fn a_file_followed_by_its_line_is_no_checkers_name() {
        let error = r#"rules/disk.yml: 14:13: group "node-disk", rule 2, "Full": could not parse expression"#;
        assert!(!is_own_checker(CommandKind::Build, error));
        assert!(is_own_checker(CommandKind::Build, "lint.sh: docs/x.md:12: line too long (104 > 100)"));
        assert!(is_own_checker(CommandKind::Build, "check-ns: src/x.clj:1: namespace does not match"));
        let disk = ["rules/disk.yml".to_string()];
        let attempt = Attempt {
            failed: "make check",
            error,
            places: &[],
            fixed: "make check",
            edited: &disk,
            ran: &[],
            written: &disk,
        };
        assert!(attempt.is_own_work());
        assert!(!Attempt { written: &[], ..attempt }.is_own_work());
    }

    #[test]
    fn an_error_about_a_name_the_edit_took_out_is_about_the_code() {
        let error = "ERROR 1055 (42000) at line 2: Expression #2 of SELECT list is not in GROUP BY clause and \
                     contains nonaggregated column 'calcite.o.created_at' which is not functionally dependent";
        assert!(names_what_was_removed(error, "       o.created_at,"));
        assert!(!names_what_was_removed(error, "ORDER BY month;"));
        // A setting the error asks for, added by the edit, was not taken out.
        assert!(!names_what_was_removed("KeyError: 'DATABASE_URL'", ""));
        assert!(!names_what_was_removed("KeyError: 'DATABASE_URL'", "DEBUG = True"));
    }

    #[test]
    fn a_runners_line_over_a_file_it_wrote_names_it() {
        let written = ["/home/dev/hornwort/packages/api/src/routes/sightings.test.ts".to_string()];
        assert!(names_one_of("❯ src/routes/sightings.test.ts (2 tests | 1 failed) 48ms", &written));
        assert!(!names_one_of("❯ src/routes/colonies.test.ts (2 tests | 1 failed) 48ms", &written));
        // A checker's line over the source it is checking names no test of the task.
        let source = ["src/razorbill_limiter.erl".to_string()];
        assert!(!names_one_of("src/razorbill_limiter.erl", &source));
        assert!(is_own_unfinished_work(
            "pnpm --filter @hornwort/api test",
            "❯ src/routes/sightings.test.ts (2 tests | 1 failed) 48ms",
            &[],
            &written
        ));
    }

    #[test]
    fn a_test_module_named_by_its_dotted_name_is_the_file_it_wrote() {
        let written = ["bookings/tests/test_problem_form.py".to_string()];
        assert!(runs_one_of("python manage.py test bookings.tests.test_problem_form --settings=x", &written));
        assert!(runs_one_of("python manage.py test bookings.tests.test_problem_form.ProblemTests", &written));
        assert!(!runs_one_of("python manage.py test bookings.tests", &written));
    }

    #[test]
    fn a_step_the_error_asked_for_is_the_way_around() {
        let helm = "Error: An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: redis";
        assert!(ran_what_it_advised(helm, &["helm dependency build charts/avon".into()]));
        assert!(!ran_what_it_advised(helm, &["helm repo update".into()]));
        // A program's name alone is no advice.
        assert!(!ran_what_it_advised("error: helm failed", &["helm lint charts/avon".into()]));
        let quoted = "CalledProcessError: Command 'git submodule update' returned non-zero exit status 1.";
        assert!(!ran_what_it_advised(quoted, &["git submodule update --init".into()]));
    }

    #[test]
    fn a_spelling_the_tool_offers_marks_a_typo() {
        let cobra = "Error: unknown command \"sever\" for \"hugo\"\n\nDid you mean this?\n\tserver\n\nRun 'hugo --help' for usage.";
        assert!(is_misspelt("hugo sever -D", cobra));
        let git = "git: 'stauts' is not a git command. See 'git --help'.\n\nThe most similar command is\n\tstatus";
        assert!(is_misspelt("git stauts", git));
        assert!(is_misspelt("cargo biuld --release", "error: no such command: `biuld`\n\n\tDid you mean `build`?"));
        // An offer of something else, or no offer at all, is a real failure.
        assert!(!is_misspelt("poetry lock --no-update", "The option \"--no-update\" does not exist"));
        assert!(is_misspelt("sbt tset", "[error] Not a valid key: tset (similar: test, tests, testOnly)"));
        assert!(is_misspelt("cmake --build build/dev --target tset", "ninja: error: unknown target 'tset'"));
        assert!(is_misspelt("make tset", "make: *** No rule to make target 'tset'.  Stop."));
        assert!(is_misspelt("npm run biuld", "npm error Missing script: \"biuld\""));
        assert!(!is_misspelt("make dist", "make: *** No rule to make target 'dist'.  Stop."));
        assert!(!is_misspelt("make tests", "make: *** No rule to make target 'tests'.  Stop."));
        assert!(!is_misspelt("npm run server", "npm error Missing script: \"server\""));
        assert!(is_misspelt("gradle biuld", "Task 'biuld' not found in root project 'x'."));
        assert!(!is_misspelt(
            "make test",
            "make: *** No rule to make target 'tests/fixtures.json', needed by 'test'.  Stop."
        ));
        assert!(!is_misspelt(
            "npm run deploy",
            "npm error Missing script: \"deploy\"\nDid you mean one of these?\n  npm run build"
        ));
    }

    #[test]
    fn typo_pairs_are_told_from_real_changes() {
        assert!(is_typo_pair("make bulid", "make build"));
        assert!(is_typo_pair("make bulid", "make build BOARD=rev2"));
        assert!(is_typo_pair("make bulid", "make"));
        assert!(!is_typo_pair("make build", "make"));
        assert!(!is_typo_pair("make docs-serve", "make"));
        assert!(!is_typo_pair("cargo build --release", "cargo build"));
        assert!(!is_typo_pair("make tests", "make"));
        assert!(!is_typo_pair("make server", "make"));
        assert!(is_typo_pair("carg test", "cargo test"));
        assert!(!is_typo_pair("npm test", "pnpm vitest run"));
        assert!(!is_typo_pair("make build", "make all"));
        assert!(!is_typo_pair("pytest", "uv run pytest"));
        assert!(is_mistyped_program(
            "terrafrom plan",
            "bash: terrafrom: command not found",
            Some(127),
            "terraform init"
        ));
        assert!(!is_mistyped_program("npm test", "sh: jest: not found", Some(127), "pnpm test"));
        // The mistyped part of a chain.
        let chain = "mkdir -p git-extras/.config/git && git mv git/a git-extras/ && stwo -n -v --no-folding git-extras";
        assert!(is_mistyped_program(chain, "bash: stwo: command not found", Some(127), "stow -n -v git-extras"));
        assert!(!is_mistyped_program(chain, "bash: stwo: command not found", Some(127), "mkdir -p x"));
        let python = "cd backend && python manage.py migrate";
        assert!(!is_mistyped_program(
            python,
            "bash: python: command not found",
            Some(127),
            "cd backend && python3 manage.py migrate"
        ));
    }

    #[test]
    fn a_push_behind_the_remote_is_routine() {
        let behind = "To github.com:acme/x.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'github.com:acme/x.git'\n";
        assert!(is_routine_vcs_refusal(behind));
        assert!(is_routine_vcs_refusal(&format!("{}{behind}", "é".repeat(3000))));
        assert!(!is_routine_vcs_refusal(
            "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository."
        ));
    }

    #[test]
    fn mistyped_flags_and_prefixed_typos_are_typos() {
        assert!(is_mistyped_flag(
            "CMake Error: Unknown argument: --output-on-fail",
            "cmake --build build && ctest --test-dir build --output-on-failure"
        ));
        assert!(is_mistyped_flag("error: unrecognized option '--maxfail1'", "pytest --maxfail=1"));
        // The same flag again is a missing plugin, not a typo.
        assert!(!is_mistyped_flag("error: unrecognized arguments: --cov", "pytest --cov"));
        assert!(!is_mistyped_flag("Error: unknown command \"unittest\" for \"helm\"", "helm unittest charts/web"));
        assert!(is_typo_pair("./gradlew buidl", "JAVA_HOME=/usr/lib/jvm/java-21 ./gradlew build"));
        assert!(is_mistyped_program("pnpn dev", "/bin/bash: line 1: pnpn: command not found", Some(127), "pnpm dev"));
        assert!(!is_mistyped_program("pnpm i", "pnpm: command not found", Some(127), "npm i"));
        assert!(is_mistyped_program("carg tset", "bash: line 1: carg: command not found", Some(127), "cargo test"));
        assert!(!is_mistyped_program("npm ci", "bash: npm: command not found", Some(127), "npmx ci"));
    }

    #[test]
    fn a_spec_written_first_and_a_chain_that_formats_are_the_tasks_own_work() {
        let spec = vec!["spec/cli_metric_spec.cr".to_string()];
        let edited = vec!["src/whimbrel/cli.cr".to_string()];
        assert!(is_own_work_in("crystal spec spec/cli_metric_spec.cr", "Errors:", "crystal spec", &edited, &[], &spec));
        assert!(!is_own_work_in("crystal spec", "Errors:", "crystal spec", &edited, &[], &spec));
        // Green through the project's own script, whatever it is called.
        let e2e = vec!["e2e/booking-past-date.spec.ts".to_string()];
        let form = vec!["src/components/BookingForm.tsx".to_string()];
        let timed_out = "Error: Timed out 5000ms waiting for expect(locator).toHaveText(expected)";
        let (red, green) =
            ("pnpm exec playwright test e2e/booking-past-date.spec.ts", "pnpm test:e2e && pnpm lint && pnpm typecheck");
        assert!(is_own_work_in(red, timed_out, green, &form, &[], &e2e));
        // Not when the spec was the project's own, nor when the green run was no test.
        assert!(!is_own_work_in(red, timed_out, green, &form, &[], &[]));
        assert!(!is_own_work_in(red, timed_out, "pnpm lint", &form, &[], &e2e));
        let chain = "crystal tool format && crystal tool format --check && crystal spec";
        let produced = "Formatting src/whimbrel/height.cr produced changes";
        assert!(is_own_work_in("crystal tool format --check", produced, chain, &[], &[], &[]));
    }

    #[test]
    fn an_error_in_a_bracketed_route_the_task_wrote_is_its_own() {
        // (A route's folder in brackets, `[slug]`, is part of the path the error names.)
        let page = "src/pages/trips/[slug]/gallery.astro";
        let error = format!("{page}:23:19 - error ts(2322): Type 'string' is not assignable to type 'ImageMetadata'.");
        let files = [page.to_string()];
        assert!(is_own_work_in("npm run build", &error, "npm run build", &files, &[], &files));
        assert_eq!(places_in(&error, 4), [page]);
        assert!(is_source("src/components/Card.astro"));
    }

    #[test]
    fn red_to_green_edits_are_the_tasks_own_work() {
        let edited = vec!["src/app.py".to_string()];
        assert!(is_own_work(
            "ruff check .",
            "src/app.py:3:8: F401 `os` imported but unused",
            "ruff check .",
            &edited,
            &[]
        ));
        assert!(is_own_work(
            "cargo test",
            "error[E0425]: cannot find value `x`",
            "cargo test",
            &["src/lib.rs".into()],
            &[]
        ));

        // A script of `bin/` has no extension; a linter's finding in it is the code's.
        let sc = "^-- SC2013 (info): To read lines rather than words, pipe/redirect to a 'while read' loop.";
        assert!(is_own_work("shellcheck -x bin/*", sc, "shellcheck -x bin/*", &["bin/gclean".into()], &[]));
        assert!(!is_own_work("make", "make: *** [all] Error 2", "make", &["Makefile".into()], &[]));

        let go = "handler_test.go:42: got 200, want 429";
        assert!(is_own_work("go test ./...", go, "go test ./...", &["handler.go".into()], &["go build ./...".into()]));
        assert!(is_own_work(
            "cabal build",
            "src/Main.hs:3:1: error: [GHC-88464] Variable not in scope: foo",
            "cabal build",
            &["src/Main.hs".into()],
            &[]
        ));
        // An error located in the file the agent then edited, or a failed test by name.
        let lint = "internal/store/pg.go:41:2: ineffectual assignment to conns (ineffassign)";
        assert!(is_own_work(
            "golangci-lint run ./...",
            lint,
            "golangci-lint run ./...",
            &["internal/store/pg.go".into()],
            &[]
        ));
        let tap = "# Failed test 'NFD accents are stripped'";
        assert!(is_own_work("make test", tap, "make test", &["lib/Text/Slugify/Tiny.pm".into()], &[]));
        let own = "lint.sh: docs/x.md:12: line too long (104 > 100)";
        assert!(!is_own_work(
            "./scripts/lint.sh docs/x.md",
            own,
            "./scripts/lint.sh docs/x.md",
            &["docs/x.md".into()],
            &[]
        ));
        let elsewhere = "vendor/lib/x.go:3:1: ineffectual assignment to y";
        assert!(!is_own_work(
            "golangci-lint run ./...",
            elsewhere,
            "golangci-lint run ./...",
            &["internal/store/pg.go".into()],
            &[]
        ));
        // A standard linter's finding, however it is worded, is the code's.
        assert!(is_own_work(
            "mix credo --strict",
            "112 mods/funs, found 1 readability issue.",
            "mix credo --strict",
            &["lib/mossbank/transfers/fee.ex".into()],
            &[]
        ));
        // An error in a file the task wrote is its own bug, whatever the fix edits.
        let template =
            "Error: template: ingest/templates/pdb.yaml:1:14: executing at <.Values.pdb.enabled>: nil pointer";
        let written = ["charts/ingest/templates/pdb.yaml".to_string()];
        let values = ["charts/ingest/values.yaml".to_string()];
        assert!(is_own_work_in(
            "helm template ingest charts/ingest",
            template,
            "helm template ingest charts/ingest",
            &values,
            &[],
            &written
        ));
        assert!(!is_own_work(
            "helm template ingest charts/ingest",
            template,
            "helm template ingest charts/ingest",
            &values,
            &[]
        ));
        // A test the task wrote, failing where its output says, is the task's own work; so
        // is a failure the output places in a source file the task then edited.
        let julia = "UndefVarError: `rolling_median` not defined in `Main`";
        let places = ["/home/dev/eiderfjord/test/filters_tests.jl".to_string()];
        let test = "julia --project=. -e 'using Pkg; Pkg.test()'";
        let written = ["test/filters_tests.jl".to_string()];
        let edited = ["src/filters.jl".to_string()];
        let attempt = Attempt {
            failed: test,
            error: julia,
            places: &places,
            fixed: test,
            edited: &edited,
            ran: &[],
            written: &written,
        };
        assert!(attempt.is_own_work());
        assert!(!Attempt { written: &[], ..attempt }.is_own_work());
        // A cram test the task wrote, placed the way dune places things.
        let dune = "File \"test/fmt_check.t/run.t\", line 1, characters 0-0:\n-  [1]\n";
        let places = places_in(dune, 4);
        assert_eq!(places, ["test/fmt_check.t/run.t"]);
        let python = "  File \"/app/shop/settings.py\", line 12, in <module>\nKeyError: 'DJANGO_SECRET_KEY'\n";
        assert!(places_in(python, 4).is_empty());
        let written = ["test/fmt_check.t/run.t".to_string()];
        let edited = ["bin/fmt_cmd.ml".to_string()];
        let runtest = "dune runtest";
        let attempt = Attempt {
            failed: runtest,
            error: "-  [1]",
            places: &places,
            fixed: runtest,
            edited: &edited,
            ran: &[],
            written: &written,
        };
        assert!(attempt.is_own_work());
        let rails = "StandardError: An error has occurred, this and all later migrations canceled";
        let migration = ["db/migrate/20261128102233_add_x.rb".to_string()];
        let placed = ["/home/dev/shop/db/migrate/20261128102233_add_x.rb".to_string()];
        let migrate = "bin/rails db:migrate";
        let attempt = Attempt {
            failed: migrate,
            error: rails,
            places: &placed,
            fixed: migrate,
            edited: &migration,
            ran: &[],
            written: &[],
        };
        assert!(attempt.is_own_work());
        // Unless the place is elsewhere, or a project's own script says it.
        assert!(!Attempt { places: &["vendor/x.rb".to_string()], ..attempt }.is_own_work());
        let script = "./scripts/check.sh";
        assert!(!Attempt { failed: script, fixed: script, ..attempt }.is_own_work());
        // A project's own checker that names the task's file states a rule of the project.
        let abi = "abi-lint: src/ffi.zig:84: cinder_version: exported without callconv(.C)";
        let ffi = ["src/ffi.zig".to_string()];
        let zig = "zig build test";
        let attempt =
            Attempt { failed: zig, error: abi, places: &ffi, fixed: zig, edited: &ffi, ran: &[], written: &ffi };
        assert!(!attempt.is_own_work());
        // The machine's fault is a lesson, whatever the task edited on the way.
        let refused = "[error] Postgrex.Protocol failed to connect: tcp connect (localhost:5432): connection refused";
        assert!(!is_own_work("mix test", refused, "DB_PORT=5434 mix test", &["lib/fee.ex".into()], &[]));
        // So is what the toolchain lacks, though the compiler places it in the task's file.
        let omp = "Fatal Error: Cannot open module file 'omp_lib.mod' for reading at (1): No such file or directory";
        let stencil = ["src/stencil.f90".to_string()];
        let attempt = Attempt {
            failed: "fpm test",
            error: omp,
            places: &stencil,
            fixed: "fpm test",
            edited: &["fpm.toml".to_string()],
            ran: &[],
            written: &stencil,
        };
        assert!(!attempt.is_own_work());
        // A setup step, a configuration edit or another tool is a lesson.
        assert!(!is_own_work("make docs", "error: sphinx-build not found", "make docs", &[], &["pip install".into()]));
        assert!(!is_own_work("./ship.sh", "403", "./ship.sh", &[".env".into()], &[]));
        assert!(!is_own_work("npm test", "Missing script: \"test\"", "pnpm vitest run", &["src/cart.ts".into()], &[]));
    }

    #[test]
    fn a_linters_complaint_names_its_rule() {
        for said in [
            "31:7  error  'total' is assigned a value but never used  @typescript-eslint/no-unused-vars",
            "app/x.rb:3:3: C: Metrics/AbcSize: Assignment Branch Condition size for index is too high.",
            "src/a.py:1:8: F401 [*] `os` imported but unused",
            "error: the loop variable `i` is only used to index `xs` (clippy::needless_range_loop)",
            "main.go:12:2: Error return value of `f.Close` is not checked (errcheck)",
            "Would reformat: src/a.py",
            "P.kt:7:1 Exceeded max line length (100) (standard:max-line-length)",
        ] {
            assert!(is_check_complaint(said), "{said}");
        }
        for said in [
            "Error: connect ECONNREFUSED 127.0.0.1:5432",
            "AssertionError: expected 200 to be 400",
            "ERROR: No matching distribution found for django-foo",
            "ERR_PNPM_NO_MATCHING_VERSION No matching version found for @types/node@99",
        ] {
            assert!(!is_check_complaint(said), "{said}");
        }
        assert!(is_verdict_on_code("AssertionFailedError: expected:<\"2.68\"> but was:<\"2.67\">"));
        assert!(!is_verdict_on_code("Could not find org.assertj:assertj-core:3.25.0."));
    }

    #[test]
    fn a_setting_added_to_the_same_command_is_what_it_needs() {
        let needed = needs("pytest tests/db", "PGHOST=db.internal pytest tests/db").unwrap();
        assert_eq!(needed.added, ["PGHOST=db.internal"]);
        assert!(needed.replaced.is_empty());
        let swapped = needs("curl -s localhost:8080/health", "curl -s localhost:8081/health").unwrap();
        assert_eq!(
            (swapped.added, swapped.replaced),
            (vec!["localhost:8081/health".into()], vec!["localhost:8080/health".into()])
        );
        assert_eq!(needs("npm test", "pnpm vitest run"), None);
        assert_eq!(needs("uv run ruff format --check .", "uv run ruff format src/a.py"), None);
        assert_eq!(needs("make deploy", "make deploy ENV=staging").unwrap().added, ["ENV=staging"]);
        // The one test file the failed run was narrowed to is no setting.
        let wider = needs("bin/rails test test/services/a_test.rb", "PGHOST=localhost PGPORT=55433 bin/rails test");
        assert_eq!(wider.unwrap().added, ["PGHOST=localhost", "PGPORT=55433"]);
        assert_eq!(needs("cargo test", "cargo test"), None);
        // A variable unset is a setting as one set is.
        let unset = needs("dotnet test", "env -u ConnectionStrings__Default dotnet test").unwrap();
        assert_eq!(unset.added, ["env -u ConnectionStrings__Default"]);
        assert!(adds_settings_only("hatch test", "env --unset=PYTHONPATH -u PYTHONHOME hatch test"));
        // (Other programs' short flags are their own: `ssh -t`, `curl -k`.)
        assert_eq!(needs("ssh web1 systemctl restart app", "ssh -t web1 systemctl restart app").unwrap().added, ["-t"]);
        // Nor are the tests a run picked.
        let picked = needs(
            "./mvnw -pl billing -am test",
            "./mvnw -pl billing -am test -Dtest=RoundingTest -Dsurefire.failIfNoSpecifiedTests=false -DargLine=-Duser.timezone=UTC",
        );
        assert_eq!(picked.unwrap().added, ["-DargLine=-Duser.timezone=UTC"]);
        assert_eq!(
            needs("sbt compile", "GITHUB_TOKEN=$(gh auth token) sbt compile").unwrap().added,
            ["GITHUB_TOKEN=$(gh auth token)"]
        );
        // A long flag and its value are one thing it needed; a flag only the failed run had
        // is no setting added.
        let dir = needs("dbt build --select m", "dbt build --profiles-dir profiles --select m").unwrap();
        assert_eq!(dir.added, ["--profiles-dir profiles"]);
        assert!(adds_flags("dbt build --select m", "dbt build --profiles-dir profiles --select m"));
        assert!(adds_flags("pytest tests/trails -q", "pytest tests/trails -q --create-db"));
        assert!(!adds_flags("pytest tests/trails -q", "pytest tests/trails -q -v"));
        assert!(!adds_flags("pytest tests -q --reuse-db", "pytest tests --create-db"));
        assert!(!adds_flags("dbt build --select m", "dbt build --select n"));
        assert!(!adds_flags("ctest --preset dev", "ctest --preset dev --rerun-failed --output-on-failure"));
        assert!(
            !adds_flags("pytest", "pytest --tb=short") && !adds_flags("pytest", "pytest --ignore tests/integration")
        );
        // (`--` ends the flags: what follows is the program's.)
        assert_eq!(needs("cargo run", "cargo run -- serve").map(|n| n.added), None);
        // A place a setting moves a program's files to, and no other setting.
        assert!(sets_a_place("ZIG_GLOBAL_CACHE_DIR=/scratch/dev/zig-cache") && sets_a_place("TMPDIR=$HOME/tmp"));
        assert!(!sets_a_place("RUST_BACKTRACE=1") && !sets_a_place("REPORT=1"));
        assert!(port_words("x serve", "REPORT=1 x serve").is_empty());
        // A port added is the day's way past a port held, told word by word.
        let serve = "bundle exec jekyll serve --detach";
        assert_eq!(port_words(serve, "bundle exec jekyll serve --detach --port 4001"), ["--port", "4001"]);
        assert_eq!(port_words(serve, "PORT=4001 bundle exec jekyll serve --detach"), ["PORT=4001"]);
        assert!(port_words(serve, "bundle exec jekyll serve --detach --livereload").is_empty());
    }

    #[test]
    fn printed_variables_are_read() {
        assert_eq!(printed_variable("echo $PGHOST").as_deref(), Some("PGHOST"));
        assert_eq!(printed_variable("echo \"${DATABASE_URL}\"").as_deref(), Some("DATABASE_URL"));
        assert_eq!(printed_variable("printenv NODE_ENV").as_deref(), Some("NODE_ENV"));
        assert_eq!(printed_variable("echo hello"), None);
    }
}
