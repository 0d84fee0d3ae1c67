//! The quality benchmark as a test: both parts of `fixtures/quality/` are scored on every run.
//! The tuning part must meet the targets; the held-back part, which no rule was tuned on,
//! must not fall below the figures it has reached (`fixtures/quality/README.md`), and the run
//! says where it still falls short of the targets.

#[path = "quality/score.rs"]
mod score;

use std::path::Path;

use score::{Report, TARGETS, Targets};

/// What the held-back part has reached so far; a change that lowers a figure is a regression.
/// Raise these as the rules improve; the aim is [`TARGETS`].
/// Batches of fresh sessions moved into the tuning part moved the summary's cap window, and a
/// second wrong line of the held-back part came into it: the floor says so rather than hiding it.
/// Dropping red-to-green work the output places in the task's own files (which took a fresh
/// batch from 81% to 94%) freed room under the cap, and a line that repeats a lesson came into
/// it: the floor says that too. A narrowed or scratch run no longer kept as the way to do a job,
/// and a landmine got past once told once, took a wrong line out. A failure of what the user
/// forbade, code edited while steps got past a failure of the machine, and a look no build
/// took the duplicate and a noise line out (84.2% -> 89.2%). A rule and its other half said
/// next are now one line, and two good lines of the held-back part became one; its noise and
/// wrong lines are as they were (89.2% -> 88.9%). Ways past a failure that drop what did not
/// help, what only waited out a server and the looks on the way took a noise line out
/// (88.9% -> 91.4%); the wrong line is still there.
const HELD_BACK_FLOOR: Targets = Targets { recall: 0.9, precision: 0.914, wrong: 1, duplicate: 0 };

fn scored(part: &str) -> Report {
    let quality = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/quality");
    score::score(Path::new(env!("CARGO_BIN_EXE_handbook")), &quality, part).unwrap_or_else(|e| panic!("{part}: {e}"))
}

#[test]
fn the_built_in_engine_meets_the_quality_targets() {
    let tune = scored("tune");
    let held_back = scored("held-back");
    let quality = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/quality");
    let slices = score::score_in_slices(Path::new(env!("CARGO_BIN_EXE_handbook")), &quality, "tune")
        .unwrap_or_else(|e| panic!("tune in slices: {e}"));
    // The tuning part's details help whoever changes a rule; the held-back part shows only its
    // figures, so that it stays a measure of how the rules generalise.
    eprintln!("{}{}{}", tune.render(true), slices.render(true), held_back.render(false));
    for short in held_back.shortfalls(&TARGETS) {
        eprintln!("below target: {short}");
    }
    let mut short = tune.shortfalls(&TARGETS);
    short.extend(held_back.shortfalls(&HELD_BACK_FLOOR));
    // In slices of the held-back part's size, where the summary's tail shows, too.
    short.extend(slices.shortfalls(&TARGETS));
    assert!(short.is_empty(), "quality fell:\n{}", short.join("\n"));
}
