//! Prints the quality benchmark's figures for each part of `fixtures/quality/`.
//!
//! ```text
//! cargo run --release --example quality -- BINARY [--json] [--lines] [--details PART]... [--quality DIR]
//! ```
//!
//! Details (every missed lesson, every summary line that is neither expected nor acceptable)
//! are shown for the tuning part; name the held-back part with `--details held-back` only to
//! read it, never to tune on it. `--lines` prints every summary line of the tuning part's
//! slices with its verdict; `--quality DIR` scores the parts under another folder than
//! `fixtures/quality`. Exits 1 when a part misses its target.

#[path = "../tests/quality/score.rs"]
mod score;

use std::path::{Path, PathBuf};

const PARTS: [&str; 2] = ["tune", "held-back"];

fn main() {
    let mut args = std::env::args().skip(1);
    let mut binary = None;
    let (mut json, mut lines, mut details) = (false, false, vec!["tune".to_string()]);
    let mut quality_dir = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => json = true,
            "--lines" => lines = true,
            "--quality" => quality_dir = args.next().map(PathBuf::from),
            "--details" => details.extend(args.next()),
            _ => binary = Some(PathBuf::from(arg)),
        }
    }
    let Some(binary) = binary else {
        eprintln!("usage: quality BINARY [--json] [--lines] [--details PART] [--quality DIR]");
        std::process::exit(2);
    };
    // An incoming batch (`--quality fixtures/quality/incoming/batch10`) has a tuning part only.
    let batch = quality_dir.is_some();
    let quality = quality_dir.unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/quality"));
    let mut short = Vec::new();
    for part in PARTS {
        if batch && !quality.join(part).is_dir() {
            continue;
        }
        let report = score::score(&binary, &quality, part).unwrap_or_else(|e| {
            eprintln!("quality: {part}: {e}");
            std::process::exit(2);
        });
        if json {
            println!("{}", report.json());
        } else {
            print!("{}", report.render(details.iter().any(|d| d == part)));
        }
        short.extend(report.shortfalls(&score::TARGETS));
    }
    // The tuning part again at the held-back part's size, where the summary's tail shows.
    let report = score::score_in_slices(&binary, &quality, "tune").unwrap_or_else(|e| {
        eprintln!("quality: tune in slices: {e}");
        std::process::exit(2);
    });
    if json {
        println!("{}", report.json());
    } else {
        print!("{}", report.render(true));
    }
    if lines {
        print!("{}", report.render_lines());
    }
    short.extend(report.shortfalls(&score::TARGETS));
    if !short.is_empty() {
        eprintln!("quality below target:\n{}", short.join("\n"));
        std::process::exit(1);
    }
}
