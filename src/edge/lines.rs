//! A streaming line reader for transcripts that may hold multi-megabyte lines: memory stays
//! bounded by the line cap, lines over it are skipped (and reported) without being buffered,
//! and the content hash is computed on the same pass.

use std::io::{self, BufRead};

/// Lines longer than this are skipped with a warning instead of being read into memory.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// What the reader found at the next line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// A line of at most the cap; its bytes are in [`Lines::bytes`].
    Text {
        /// False for a last line without a line ending: possibly torn by a writer.
        terminated: bool,
    },
    /// A line over the cap, skipped; its length in bytes.
    TooLong { len: u64 },
}

/// Reads lines from `inner`, hashing every byte as it goes.
pub struct Lines<R> {
    inner: R,
    line: Vec<u8>,
    number: u64,
    hasher: blake3::Hasher,
    bytes_read: u64,
    max: usize,
}

impl<R: BufRead> Lines<R> {
    pub fn new(inner: R) -> Lines<R> {
        Lines::with_cap(inner, MAX_LINE_BYTES)
    }

    pub fn with_cap(inner: R, max: usize) -> Lines<R> {
        Lines { inner, line: Vec::new(), number: 0, hasher: blake3::Hasher::new(), bytes_read: 0, max }
    }

    /// The next line and its 1-based number, or `None` at the end.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, Line)>> {
        self.line.clear();
        // A huge line leaves a huge buffer behind; give the memory back.
        if self.line.capacity() > 1024 * 1024 {
            self.line.shrink_to(64 * 1024);
        }
        let mut len: u64 = 0;
        let mut overflow = false;
        let terminated = loop {
            let available = match self.inner.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                if len == 0 {
                    return Ok(None);
                }
                break false;
            }
            let (chunk_len, consumed, done) = match memchr::memchr(b'\n', available) {
                Some(i) => (i, i + 1, true),
                None => (available.len(), available.len(), false),
            };
            self.hasher.update(&available[..consumed]);
            len += chunk_len as u64;
            if !overflow {
                if self.line.len() + chunk_len > self.max {
                    overflow = true;
                    self.line.clear();
                } else {
                    self.line.extend_from_slice(&available[..chunk_len]);
                }
            }
            self.inner.consume(consumed);
            self.bytes_read += consumed as u64;
            if done {
                break true;
            }
        };
        self.number += 1;
        if overflow {
            return Ok(Some((self.number, Line::TooLong { len })));
        }
        if self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        // A byte-order mark some editors write is not part of the first record.
        if self.number == 1 && self.line.starts_with(b"\xEF\xBB\xBF") {
            self.line.drain(..3);
        }
        Ok(Some((self.number, Line::Text { terminated })))
    }

    /// The bytes of the last [`Line::Text`], without the line ending.
    pub fn bytes(&self) -> &[u8] {
        &self.line
    }

    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Read what is left (so the hash covers the whole file) and return the hex digest.
    pub fn finish_hash(mut self) -> io::Result<String> {
        loop {
            let available = match self.inner.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                break;
            }
            let n = available.len();
            self.hasher.update(available);
            self.inner.consume(n);
        }
        Ok(self.hasher.finalize().to_hex().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(input: &[u8], cap: usize) -> Vec<(u64, Line, Vec<u8>)> {
        let mut lines = Lines::with_cap(io::BufReader::with_capacity(4, input), cap);
        let mut out = Vec::new();
        while let Some((n, line)) = lines.next_line().unwrap() {
            out.push((n, line, lines.bytes().to_vec()));
        }
        out
    }

    #[test]
    fn splits_lines_and_marks_a_torn_last_line() {
        let got = collect(b"one\r\ntwo\nthr", 100);
        assert_eq!(got[0], (1, Line::Text { terminated: true }, b"one".to_vec()));
        assert_eq!(got[1], (2, Line::Text { terminated: true }, b"two".to_vec()));
        assert_eq!(got[2], (3, Line::Text { terminated: false }, b"thr".to_vec()));
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        let got = collect(b"\xEF\xBB\xBF{}\n\xEF\xBB\xBFx\n", 100);
        assert_eq!(got[0].2, b"{}".to_vec());
        assert_eq!(got[1].2, b"\xEF\xBB\xBFx".to_vec());
    }

    #[test]
    fn skips_lines_over_the_cap_without_losing_the_rest() {
        let input = format!("short\n{}\nafter\n", "x".repeat(50));
        let got = collect(input.as_bytes(), 10);
        assert_eq!(got[1].1, Line::TooLong { len: 50 });
        assert_eq!(got[2], (3, Line::Text { terminated: true }, b"after".to_vec()));
    }

    #[test]
    fn the_hash_covers_every_byte_read_or_not() {
        let input = b"a\nb\nc\n";
        let mut lines = Lines::new(io::BufReader::new(&input[..]));
        lines.next_line().unwrap();
        assert_eq!(lines.finish_hash().unwrap(), blake3::hash(input).to_hex().to_string());
    }
}
