//! Prints the quality benchmark's figures for each part of `fixtures/quality/`.
//!
//! ```text
//! cargo run --release --example quality -- BINARY [--json] [--details PART]...
//! ```
//!
//! Details (every missed lesson, every summary line that is neither expected nor acceptable)
//! are shown for the tuning part; name the held-back part with `--details held-back` only to
//! read it, never to tune on it. Exits 1 when a part misses its target.

#[path = "../tests/quality/score.rs"]
mod score;

use std::path::{Path, PathBuf};

const PARTS: [&str; 2] = ["tune", "held-back"];

fn main() {
    let mut args = std::env::args().skip(1);
    let mut binary = None;
    let (mut json, mut details) = (false, vec!["tune".to_string()]);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => json = true,
            "--details" => details.extend(args.next()),
            _ => binary = Some(PathBuf::from(arg)),
        }
    }
    let Some(binary) = binary else {
        eprintln!("usage: quality BINARY [--json] [--details PART]");
        std::process::exit(2);
    };
    let quality = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/quality");
    let mut short = Vec::new();
    for part in PARTS {
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
    short.extend(report.shortfalls(&score::TARGETS));
    if !short.is_empty() {
        eprintln!("quality below target:\n{}", short.join("\n"));
        std::process::exit(1);
    }
}
