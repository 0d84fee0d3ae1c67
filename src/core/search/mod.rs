//! Searching the handbook: the query, the documents the workspace splits into, and BM25
//! ranking with more weight for matches in headings, keyword lines and commands.
//!
//! Only documents whose raw text matches the query are scored, so a search costs little more
//! than reading the files; the collection statistics BM25 needs (how many documents, how
//! long on average, how many hold each term) come from that same pass.

pub(crate) mod bounds;
pub(crate) mod corpus;
pub(crate) mod docs;
pub(crate) mod render;
pub(crate) mod transcripts;

use std::fmt;

use jiff::Timestamp;
use regex::{Regex, RegexBuilder};

use crate::core::project::display_name;
use docs::Doc;

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;
/// Weights of where a match sits.
const HEADING_WEIGHT: f64 = 3.0;
const KEYWORDS_WEIGHT: f64 = 2.5;
const CODE_WEIGHT: f64 = 2.0;
/// Longest snippet shown, in characters.
const SNIPPET: usize = 200;

/// Why a query could not be compiled. The regex library's reason, which points at the
/// problem in the pattern, is the [`source`](std::error::Error::source).
#[derive(Debug)]
pub(crate) enum QueryError {
    /// No words, or only blank ones.
    Empty,
    /// One of the user's patterns is not a regex.
    InvalidRegex { pattern: String, source: regex::Error },
    /// The patterns are each valid but not together (too large once joined, or using the
    /// group names the query adds).
    Combined { source: regex::Error },
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::Empty => f.write_str("the query is empty"),
            QueryError::InvalidRegex { pattern, .. } => write!(f, "invalid regex {pattern:?}"),
            QueryError::Combined { .. } => f.write_str("invalid regex"),
        }
    }
}

impl std::error::Error for QueryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            QueryError::Empty => None,
            QueryError::InvalidRegex { source, .. } | QueryError::Combined { source } => Some(source),
        }
    }
}

/// A compiled query: one pattern per word (or per regex), matched together.
#[derive(Debug, Clone)]
pub(crate) struct Query {
    text: Regex,
    bytes: regex::bytes::Regex,
    /// The capture group of each word.
    names: Vec<String>,
    words: Vec<String>,
    regex: bool,
    case_sensitive: bool,
}

impl Query {
    /// Compile the query words. Words are literals unless `regex` is set; matching ignores
    /// case unless `case_sensitive` is set; `^` and `$` match at line boundaries. A bad regex
    /// is an error that names the problem.
    ///
    /// # Errors
    ///
    /// [`QueryError::Empty`] without a word, [`QueryError::InvalidRegex`] for the first
    /// pattern that is not a regex, [`QueryError::Combined`] when the patterns do not join.
    pub(crate) fn new(words: &[String], regex: bool, case_sensitive: bool) -> Result<Query, QueryError> {
        let words: Vec<String> = words.iter().map(|w| w.trim()).filter(|w| !w.is_empty()).map(str::to_string).collect();
        if words.is_empty() {
            return Err(QueryError::Empty);
        }
        // Each pattern alone first, so an error shows the user's own pattern.
        if regex {
            for word in &words {
                if let Err(source) = RegexBuilder::new(word).size_limit(1 << 24).build() {
                    return Err(QueryError::InvalidRegex { pattern: word.clone(), source });
                }
            }
        }
        // One named group per word, so a match tells which word it is even when a user's
        // regex has groups of its own.
        let parts: Vec<String> =
            words
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    if regex { format!("(?P<hb_term{i}>{w})") } else { format!("(?P<hb_term{i}>{})", regex::escape(w)) }
                })
                .collect();
        let pattern = parts.join("|");
        let text = RegexBuilder::new(&pattern)
            .case_insensitive(!case_sensitive)
            .multi_line(true)
            .size_limit(1 << 24)
            .build()
            .map_err(|source| QueryError::Combined { source })?;
        let bytes = regex::bytes::RegexBuilder::new(&pattern)
            .case_insensitive(!case_sensitive)
            .multi_line(true)
            .size_limit(1 << 24)
            .build()
            .map_err(|source| QueryError::Combined { source })?;
        let names = (0..words.len()).map(|i| format!("hb_term{i}")).collect();
        Ok(Query { text, bytes, names, words, regex, case_sensitive })
    }

    /// A pattern that matches every stored JSON line whose decoded text could match the
    /// query: each literal word, with every character that JSON may escape (quotes,
    /// backslashes, `/`, `<>&'`, control and non-ASCII characters) also accepted in its
    /// escaped forms. `None` for a regex query, which only decoded text can answer.
    pub(crate) fn json_line_pattern(&self) -> Option<String> {
        if self.regex {
            return None;
        }
        // A phrase may be split in the file (a command stored as `["git","commit"]`), so a
        // line must only hold the phrase's longest word.
        let words: Vec<String> = self
            .words
            .iter()
            .map(|w| w.split_whitespace().max_by_key(|piece| piece.len()).unwrap_or(w))
            .map(|w| json_tolerant(w, !self.case_sensitive))
            .collect();
        let flags = if self.case_sensitive { "" } else { "(?i)" };
        Some(format!("{flags}(?:{})", words.join("|")))
    }

    /// True when `raw` holds a match anywhere (the cheap first pass over file bytes).
    pub(crate) fn matches_bytes(&self, raw: &[u8]) -> bool {
        self.bytes.is_match(raw)
    }

    pub(crate) fn is_match(&self, text: &str) -> bool {
        self.text.is_match(text)
    }

    /// Each match in `text`: its byte range and which query word it is.
    pub(crate) fn matches<'t>(
        &'t self,
        text: &'t str,
    ) -> Box<dyn Iterator<Item = (std::ops::Range<usize>, usize)> + 't> {
        // One word needs no capture groups to tell which word matched, and finding is
        // cheaper than capturing.
        if self.names.len() == 1 {
            return Box::new(self.text.find_iter(text).map(|m| (m.range(), 0)));
        }
        Box::new(self.text.captures_iter(text).filter_map(move |caps| {
            let whole = caps.get(0)?;
            let term = self.names.iter().position(|name| caps.name(name).is_some()).unwrap_or(0);
            Some((whole.range(), term))
        }))
    }

    pub(crate) fn terms(&self) -> usize {
        self.names.len()
    }
}

/// A literal word as a pattern that also matches it JSON-escaped.
fn json_tolerant(word: &str, any_case: bool) -> String {
    let mut out = String::new();
    for c in word.chars() {
        let plain = c.is_ascii_alphanumeric() || " -_.:,;!?@#$%^*()+=[]{}|~`".contains(c);
        if plain {
            out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
            continue;
        }
        let mut forms = vec![regex::escape(c.encode_utf8(&mut [0; 4]))];
        match c {
            '"' => forms.push(r#"\\""#.to_string()),
            '\\' => forms.push(r"\\\\".to_string()),
            '/' => forms.push(r"\\/".to_string()),
            '\n' => forms.push(r"\\n".to_string()),
            '\t' => forms.push(r"\\t".to_string()),
            '\r' => forms.push(r"\\r".to_string()),
            _ => {}
        }
        // `\u00e9`, and when case does not matter, `\u00c9` too.
        let mut variants = vec![c];
        if any_case {
            variants.extend(c.to_lowercase().chain(c.to_uppercase()).filter(|v| *v != c));
            if c.to_lowercase().count() > 1 || c.to_uppercase().count() > 1 {
                variants.truncate(1);
            }
        }
        variants.dedup();
        for variant in variants {
            let mut units = [0u16; 2];
            let escaped: String =
                variant.encode_utf16(&mut units).iter().map(|u| format!(r"\\u(?i:{u:04x})")).collect();
            forms.push(escaped);
        }
        out.push_str(&format!("(?:{})", forms.join("|")));
    }
    out
}

/// One ranked result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hit {
    /// Index of the document in the slice given to [`rank`].
    pub(crate) doc: usize,
    pub(crate) score: f64,
    /// 1-based line in the file of the best matching line.
    pub(crate) line: usize,
    /// That line, trimmed and cut around the first match.
    pub(crate) text: String,
}

/// The statistics of the whole collection, matching or not.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Collection {
    pub(crate) documents: usize,
    pub(crate) total_bytes: usize,
}

/// Rank the documents that match the query by BM25, best first; ties by path and line.
pub(crate) fn rank(docs: &[Doc], query: &Query, collection: Collection) -> Vec<Hit> {
    let n = collection.documents.max(docs.len()).max(1) as f64;
    let avg_len = (collection.total_bytes.max(1) as f64 / n).max(1.0);
    let mut tfs: Vec<(usize, Vec<f64>, usize, String)> = Vec::new();
    let mut df = vec![0usize; query.terms()];
    for (index, doc) in docs.iter().enumerate() {
        let Some((tf, line, text)) = term_frequencies(doc, query) else { continue };
        for (t, f) in tf.iter().enumerate() {
            if *f > 0.0 {
                df[t] += 1;
            }
        }
        tfs.push((index, tf, line, text));
    }
    let mut hits: Vec<Hit> = tfs
        .into_iter()
        .map(|(index, tf, line, text)| {
            let len = docs[index].text.len() as f64;
            let score = tf
                .iter()
                .zip(&df)
                .filter(|(f, _)| **f > 0.0)
                .map(|(f, df)| {
                    let idf = (1.0 + (n - *df as f64 + 0.5) / (*df as f64 + 0.5)).ln();
                    idf * f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * len / avg_len))
                })
                .sum();
            Hit { doc: index, score, line, text }
        })
        .collect();
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| docs[a.doc].path.cmp(&docs[b.doc].path))
            .then_with(|| a.line.cmp(&b.line))
    });
    hits
}

/// Weighted term frequencies of a document, and its best line (most distinct words, then
/// most matches, then the first), or `None` when nothing matches.
fn term_frequencies(doc: &Doc, query: &Query) -> Option<(Vec<f64>, usize, String)> {
    let text = doc.text.as_str();
    let mut tf = vec![0.0; query.terms()];
    let mut lines = LineCursor::new(text);
    // The line being tallied and the best so far: (line index, distinct words, matches).
    let mut current: Option<(usize, Vec<bool>, usize)> = None;
    let mut best: Option<(usize, usize, usize)> = None;
    let settle = |line: (usize, Vec<bool>, usize), best: &mut Option<(usize, usize, usize)>| {
        let distinct = line.1.iter().filter(|x| **x).count();
        if best.is_none_or(|(_, d, c)| (distinct, line.2) > (d, c)) {
            *best = Some((line.0, distinct, line.2));
        }
    };
    for (range, term) in query.matches(text) {
        let line = lines.seek(range.start);
        let weight = if line.heading {
            HEADING_WEIGHT
        } else if line.keywords {
            KEYWORDS_WEIGHT
        } else if text[line.start..range.start].matches('`').count() % 2 == 1 {
            CODE_WEIGHT
        } else {
            1.0
        };
        tf[term] += weight;
        if current.as_ref().is_some_and(|(index, _, _)| *index != line.index) {
            settle(current.take().expect("checked"), &mut best);
        }
        let entry = current.get_or_insert_with(|| (line.index, vec![false; query.terms()], 0));
        entry.1[term] = true;
        entry.2 += 1;
    }
    if let Some(line) = current {
        settle(line, &mut best);
    }
    let (index, _, _) = best?;
    let line = text.lines().nth(index).unwrap_or("");
    let number = if doc.fixed_line { doc.first_line } else { doc.first_line + index };
    Some((tf, number, snippet(line, query)))
}

/// Where a match sits: its line and what kind of line that is.
#[derive(Debug, Clone, Copy)]
struct LineInfo {
    index: usize,
    start: usize,
    heading: bool,
    keywords: bool,
}

/// Walks the lines of a text forward, to place matches that arrive in order.
struct LineCursor<'t> {
    text: &'t str,
    line: LineInfo,
    /// One past the end of the current line (its `\n`, or the text's end).
    end: usize,
    /// The line after a `### keywords` heading (and blank lines) holds the keywords.
    keywords_next: bool,
}

impl<'t> LineCursor<'t> {
    fn new(text: &'t str) -> LineCursor<'t> {
        let mut cursor = LineCursor {
            text,
            line: LineInfo { index: 0, start: 0, heading: false, keywords: false },
            end: 0,
            keywords_next: false,
        };
        cursor.enter(0, 0);
        cursor
    }

    fn enter(&mut self, index: usize, start: usize) {
        self.end = memchr::memchr(b'\n', &self.text.as_bytes()[start..]).map_or(self.text.len(), |i| start + i);
        let trimmed = self.text[start..self.end].trim();
        self.line = LineInfo {
            index,
            start,
            heading: trimmed.starts_with('#'),
            keywords: self.keywords_next || trimmed.starts_with("keywords:"),
        };
        self.keywords_next = trimmed == "### keywords" || (self.keywords_next && trimmed.is_empty());
    }

    /// The line holding byte `offset` (at or after the current one).
    fn seek(&mut self, offset: usize) -> LineInfo {
        while offset > self.end && self.end < self.text.len() {
            self.enter(self.line.index + 1, self.end + 1);
        }
        self.line
    }
}

/// True when a result covering `start..=end` (one instant when `end` is `None`) overlaps
/// `since..=until`; an undated result only when there is no bound.
pub(crate) fn in_period(
    start: Option<Timestamp>,
    end: Option<Timestamp>,
    since: Option<Timestamp>,
    until: Option<Timestamp>,
) -> bool {
    match start {
        None => since.is_none() && until.is_none(),
        Some(start) => {
            let end = end.unwrap_or(start);
            since.is_none_or(|s| end >= s) && until.is_none_or(|u| start <= u)
        }
    }
}

/// True when a result's project is the project `key`: the key itself, or for a summary
/// entry that only names the project, its short name.
pub(crate) fn same_project(project: Option<&str>, key: &str) -> bool {
    project.is_some_and(|p| p == key || (!p.contains('/') && p == display_name(key)))
}

/// `text` with every match wrapped in `on` … `off` (terminal colours).
pub(crate) fn highlight(text: &str, query: &Query, on: &str, off: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut last = 0;
    for (range, _) in query.matches(text) {
        if range.is_empty() {
            continue;
        }
        out.push_str(&text[last..range.start]);
        out.push_str(on);
        out.push_str(&text[range.clone()]);
        out.push_str(off);
        last = range.end;
    }
    out.push_str(&text[last..]);
    out
}

/// A line trimmed and cut to [`SNIPPET`] characters around its first match.
pub(crate) fn snippet(line: &str, query: &Query) -> String {
    let line = line.trim();
    if line.chars().count() <= SNIPPET {
        return line.to_string();
    }
    let first = query.matches(line).next().map_or(0, |(r, _)| r.start);
    let mut start = first.saturating_sub(SNIPPET / 3);
    while !line.is_char_boundary(start) {
        start -= 1;
    }
    let cut: String = line[start..].chars().take(SNIPPET).collect();
    format!("{}{}{}", if start > 0 { "…" } else { "" }, cut, if start + cut.len() < line.len() { "…" } else { "" })
}

#[cfg(test)]
mod tests;
