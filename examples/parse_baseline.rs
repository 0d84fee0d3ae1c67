//! The benchmark's yardstick: a bare serde_json parse of every line of every `.jsonl` file
//! under a folder, and of every `data` column of the messages and parts of every opencode
//! database (`*.db`) there, into `serde_json::Value`, and nothing else.
//!
//! ```text
//! cargo run --release --example parse_baseline -- DIR
//! ```

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::time::Instant;

/// Bytes, records and values parsed.
#[derive(Default)]
struct Parsed {
    bytes: u64,
    lines: u64,
    values: u64,
}

impl Parsed {
    fn parse(&mut self, text: &[u8]) {
        self.bytes += text.len() as u64;
        self.lines += 1;
        if serde_json::from_slice::<serde_json::Value>(text).is_ok() {
            self.values += 1;
        }
    }

    fn lines_of(&mut self, path: &Path) {
        let mut reader = BufReader::with_capacity(256 * 1024, File::open(path).expect("open"));
        let mut line = Vec::new();
        while reader.read_until(b'\n', &mut line).expect("read") > 0 {
            self.parse(&line);
            line.clear();
        }
    }

    fn rows_of(&mut self, path: &Path) {
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
        let conn = rusqlite::Connection::open_with_flags(path, flags).expect("open the database");
        for table in ["message", "part"] {
            let mut statement = conn.prepare(&format!("SELECT data FROM {table}")).expect("query the database");
            let mut rows = statement.query([]).expect("query the database");
            while let Some(row) = rows.next().expect("read the database") {
                self.parse(row.get_ref(0).expect("a data column").as_bytes().unwrap_or_default());
            }
        }
    }
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: parse_baseline DIR");
    let start = Instant::now();
    let mut parsed = Parsed::default();
    for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
        let entry = entry.expect("walk the corpus");
        let name = entry.path().to_string_lossy();
        if !entry.file_type().is_file() {
            continue;
        }
        if name.ends_with(".jsonl") {
            parsed.lines_of(entry.path());
        } else if name.ends_with(".db") {
            parsed.rows_of(entry.path());
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let Parsed { bytes, lines, values } = parsed;
    println!("{{\"bytes\":{bytes},\"lines\":{lines},\"values\":{values},\"seconds\":{seconds:.3}}}");
}
