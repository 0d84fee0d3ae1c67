//! Streaming line readers for transcripts that may hold multi-megabyte lines: memory stays
//! bounded by the line cap, lines over it are skipped (and reported) without being buffered.
//! [`Lines`] yields every line and hashes the file on the same pass; [`MatchingLines`] yields
//! only the lines whose raw bytes match a pattern, for search.

use std::io::{self, BufRead, Read};
use std::ops::Range;

use regex::bytes::Regex;

/// Lines longer than this are skipped with a warning instead of being read into memory.
pub(crate) const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// What the reader found at the next line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Line {
    /// A line of at most the cap; its bytes are in [`Lines::bytes`].
    Text {
        /// False for a last line without a line ending: possibly torn by a writer.
        terminated: bool,
    },
    /// A line over the cap, skipped; its length in bytes.
    TooLong { len: u64 },
}

/// Reads lines from `inner`, hashing every byte as it goes.
pub(crate) struct Lines<R> {
    inner: R,
    line: Vec<u8>,
    number: u64,
    hasher: blake3::Hasher,
    bytes_read: u64,
    max: usize,
}

impl<R: BufRead> Lines<R> {
    pub(crate) fn new(inner: R) -> Lines<R> {
        Lines::with_cap(inner, MAX_LINE_BYTES)
    }

    pub(crate) fn with_cap(inner: R, max: usize) -> Lines<R> {
        Lines { inner, line: Vec::new(), number: 0, hasher: blake3::Hasher::new(), bytes_read: 0, max }
    }

    /// The next line and its 1-based number, or `None` at the end.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<(u64, Line)>> {
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
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.line
    }

    /// Read what is left (so the hash covers the whole file) and return the hex digest.
    pub(crate) fn finish_hash(mut self) -> io::Result<String> {
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

/// A source of numbered lines: every line of a file, or the ones a search picks.
pub(crate) trait LineSource {
    /// The next line and its 1-based number, or `None` at the end.
    fn next_line(&mut self) -> io::Result<Option<(u64, Line)>>;
    /// The bytes of the last [`Line::Text`], without the line ending.
    fn bytes(&self) -> &[u8];
}

impl<R: BufRead> LineSource for Lines<R> {
    fn next_line(&mut self) -> io::Result<Option<(u64, Line)>> {
        Lines::next_line(self)
    }

    fn bytes(&self) -> &[u8] {
        Lines::bytes(self)
    }
}

/// Bytes read from the file at a time.
const CHUNK: usize = 1024 * 1024;

thread_local! {
    /// The buffer of the last [`MatchingLines`] on this thread, kept for the next one: a search
    /// reads thousands of files, and a fresh zeroed megabyte for each costs more than it seems.
    static SPARE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Yields the first lines of a file (so its format can be told and its metadata read), then
/// only the lines whose raw bytes match a pattern, with their true line numbers. The pattern
/// runs over whole chunks of the file, so lines that cannot match are never split out, let
/// alone decoded.
pub(crate) struct MatchingLines<'p, R> {
    inner: R,
    pattern: Option<&'p Regex>,
    buf: Vec<u8>,
    /// The unread bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    eof: bool,
    /// Lines passed so far.
    number: u64,
    line: Range<usize>,
    /// Non-blank lines still to yield whatever they hold.
    head: usize,
    max: usize,
    /// Length so far of a line over the cap being skipped.
    skipping: Option<u64>,
    bytes_read: u64,
}

impl<'p, R: Read> MatchingLines<'p, R> {
    /// Every line when `pattern` is `None`; else the first `head` non-blank lines and then
    /// the lines the pattern matches.
    pub(crate) fn new(inner: R, pattern: Option<&'p Regex>, head: usize) -> MatchingLines<'p, R> {
        MatchingLines::with_cap(inner, pattern, head, MAX_LINE_BYTES)
    }

    pub(crate) fn with_cap(inner: R, pattern: Option<&'p Regex>, head: usize, max: usize) -> MatchingLines<'p, R> {
        let size = CHUNK.min(max + 1).max(64);
        let mut buf = SPARE.with(|spare| std::mem::take(&mut *spare.borrow_mut()));
        if buf.len() != size {
            buf = vec![0; size];
        }
        MatchingLines {
            inner,
            pattern,
            buf,
            start: 0,
            end: 0,
            eof: false,
            number: 0,
            line: 0..0,
            head,
            max,
            skipping: None,
            bytes_read: 0,
        }
    }

    /// Lines in the file so far (all of them, once [`LineSource::next_line`] gave `None`).
    pub(crate) fn lines_seen(&self) -> u64 {
        self.number
    }

    pub(crate) fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// The line in `buf[from..to]` (`to` at its `\n` or the data's end) as the next result.
    fn take(&mut self, from: usize, to: usize) -> (u64, Line) {
        self.number += 1;
        let terminated = to < self.end;
        self.start = if terminated { to + 1 } else { to };
        let mut line = from..to;
        if line.end > line.start && self.buf[line.end - 1] == b'\r' {
            line.end -= 1;
        }
        if self.number == 1 && self.buf[line.clone()].starts_with(b"\xEF\xBB\xBF") {
            line.start += 3;
        }
        if self.head > 0 && !self.buf[line.clone()].iter().all(u8::is_ascii_whitespace) {
            self.head -= 1;
        }
        self.line = line;
        (self.number, Line::Text { terminated })
    }

    /// Read more into the buffer; false at the end of the file.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.end == self.buf.len() {
            let grown = (self.buf.len() * 2).min(self.max + 1);
            self.buf.resize(grown.max(self.buf.len()), 0);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(self.end > 0);
                }
                Ok(n) => {
                    self.end += n;
                    self.bytes_read += n as u64;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

impl<R> Drop for MatchingLines<'_, R> {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.buf);
        if buf.len() <= CHUNK {
            SPARE.with(|spare| *spare.borrow_mut() = buf);
        }
    }
}

impl<R: Read> LineSource for MatchingLines<'_, R> {
    fn next_line(&mut self) -> io::Result<Option<(u64, Line)>> {
        loop {
            let data = &self.buf[self.start..self.end];
            if let Some(len) = self.skipping {
                // Drop the rest of a line over the cap.
                match memchr::memchr(b'\n', data) {
                    Some(i) => {
                        self.start += i + 1;
                        self.number += 1;
                        self.skipping = None;
                        self.line = 0..0;
                        return Ok(Some((self.number, Line::TooLong { len: len + i as u64 })));
                    }
                    None => {
                        self.skipping = Some(len + data.len() as u64);
                        self.start = self.end;
                        if !self.fill()? {
                            let len = self.skipping.take().unwrap_or(len);
                            self.number += 1;
                            self.line = 0..0;
                            return Ok(Some((self.number, Line::TooLong { len })));
                        }
                        continue;
                    }
                }
            }
            // Whole lines only; at the end of the file, whatever is left is the last line.
            let complete = match memchr::memrchr(b'\n', data) {
                Some(i) => self.start + i + 1,
                None if self.eof => self.end,
                None => self.start,
            };
            if complete > self.start {
                let region = self.start..complete;
                let line_end = |at: usize| memchr::memchr(b'\n', &self.buf[at..complete]).map_or(complete, |i| at + i);
                match self.pattern {
                    Some(pattern) if self.head == 0 => match pattern.find(&self.buf[region.clone()]) {
                        Some(found) => {
                            let at = region.start + found.start();
                            let from = memchr::memrchr(b'\n', &self.buf[region.start..at])
                                .map_or(region.start, |i| region.start + i + 1);
                            self.number += memchr::memchr_iter(b'\n', &self.buf[region.start..from]).count() as u64;
                            let to = line_end(at);
                            return Ok(Some(self.take(from, to)));
                        }
                        None => {
                            self.number += memchr::memchr_iter(b'\n', &self.buf[region.clone()]).count() as u64;
                            if complete == self.end && self.eof && self.buf[complete - 1] != b'\n' {
                                self.number += 1;
                            }
                            self.start = complete;
                        }
                    },
                    _ => {
                        let to = line_end(region.start);
                        return Ok(Some(self.take(region.start, to)));
                    }
                }
                continue;
            }
            if self.end - self.start > self.max {
                self.skipping = Some(0);
                continue;
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    fn bytes(&self) -> &[u8] {
        &self.buf[self.line.clone()]
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

    fn matching(input: &[u8], pattern: Option<&str>, head: usize, cap: usize) -> (Vec<(u64, Line, Vec<u8>)>, u64) {
        let pattern = pattern.map(|p| Regex::new(p).unwrap());
        // A tiny reader, so lines straddle reads.
        let reader = io::BufReader::with_capacity(3, input);
        let mut lines = MatchingLines::with_cap(reader, pattern.as_ref(), head, cap);
        let mut out = Vec::new();
        while let Some((n, line)) = lines.next_line().unwrap() {
            out.push((n, line, lines.bytes().to_vec()));
        }
        (out, lines.lines_seen())
    }

    #[test]
    fn matching_lines_keep_their_numbers() {
        let input = b"\xEF\xBB\xBFhead\n\nskip\nneedle one\r\nskip\nskip\nlast needle";
        let (got, seen) = matching(input, Some("needle"), 1, 1000);
        let got: Vec<(u64, Vec<u8>)> = got.into_iter().map(|(n, _, b)| (n, b)).collect();
        assert_eq!(got, [(1, b"head".to_vec()), (4, b"needle one".to_vec()), (7, b"last needle".to_vec())]);
        assert_eq!(seen, 7);
        let (none, seen) = matching(b"a\nb\nc", Some("zzz"), 0, 1000);
        assert!(none.is_empty());
        assert_eq!(seen, 3);
    }

    #[test]
    fn matching_lines_without_a_pattern_are_every_line() {
        let input = b"one\r\ntwo\nthr";
        let (all, _) = matching(input, None, 0, 1000);
        let plain = collect(input, 1000);
        assert_eq!(all, plain);
    }

    #[test]
    fn matching_lines_skip_lines_over_the_cap() {
        let input = format!("short\n{}needle\nafter needle\n{}", "x".repeat(200), "y".repeat(300));
        let (got, seen) = matching(input.as_bytes(), Some("needle"), 0, 100);
        assert_eq!(got[0].1, Line::TooLong { len: 206 });
        assert_eq!((got[1].0, got[1].2.as_slice()), (3, &b"after needle"[..]));
        assert_eq!(got[2], (4, Line::TooLong { len: 300 }, Vec::new()));
        assert_eq!(seen, 4);
    }

    #[test]
    fn the_hash_covers_every_byte_read_or_not() {
        let input = b"a\nb\nc\n";
        let mut lines = Lines::new(io::BufReader::new(&input[..]));
        lines.next_line().unwrap();
        assert_eq!(lines.finish_hash().unwrap(), blake3::hash(input).to_hex().to_string());
    }
}
