//! The benchmark's yardstick: a bare serde_json parse of every line of every `.jsonl` file
//! under a folder, into `serde_json::Value`, and nothing else.
//!
//! ```text
//! cargo run --release --example parse_baseline -- DIR
//! ```

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::time::Instant;

fn main() {
    let dir = std::env::args().nth(1).expect("usage: parse_baseline DIR");
    let start = Instant::now();
    let (mut bytes, mut lines, mut values) = (0u64, 0u64, 0u64);
    for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
        let entry = entry.expect("walk the corpus");
        if !entry.file_type().is_file() || !entry.path().to_string_lossy().ends_with(".jsonl") {
            continue;
        }
        let mut reader = BufReader::with_capacity(256 * 1024, File::open(entry.path()).expect("open"));
        let mut line = Vec::new();
        while reader.read_until(b'\n', &mut line).expect("read") > 0 {
            bytes += line.len() as u64;
            lines += 1;
            if serde_json::from_slice::<serde_json::Value>(&line).is_ok() {
                values += 1;
            }
            line.clear();
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    println!("{{\"bytes\":{bytes},\"lines\":{lines},\"values\":{values},\"seconds\":{seconds:.3}}}");
}
