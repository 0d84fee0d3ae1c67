//! What a search ranks: the documents that can match, and the statistics of everything
//! read, matching or not. A file whose raw bytes cannot match is only counted, never split
//! into documents; that keeps a search over many files close to the cost of reading them.

use jiff::Timestamp;

use super::docs::{self, Doc, Kind, Split};
use super::transcripts::Found;
use super::{Collection, Query};

/// The documents that can match, and the statistics of everything searched.
#[derive(Debug, Default)]
pub(crate) struct Corpus {
    pub(crate) docs: Vec<Doc>,
    pub(crate) collection: Collection,
    /// Files read.
    pub(crate) files: usize,
}

impl Corpus {
    /// Count a file of `bytes` bytes, and keep its documents that can match.
    pub(crate) fn add_file(&mut self, split: Split, bytes: usize) {
        self.files += 1;
        self.collection.documents += split.count;
        self.collection.total_bytes += bytes;
        self.docs.extend(split.docs);
    }

    /// Count a transcript: each of its lines is a document of the collection.
    pub(crate) fn add_transcript(&mut self, lines: u64, bytes: u64) {
        self.files += 1;
        self.collection.documents += lines as usize;
        self.collection.total_bytes += bytes as usize;
    }
}

/// The documents of a workspace file that can match the query, and how many it holds. The
/// raw bytes are tested first; a file that cannot match is only split when its documents
/// must be counted (`MEMORY.md` and the summary hold many, every other file one).
pub(crate) fn file_split(kind: Kind, relative: &str, raw: &[u8], query: &Query) -> Split {
    if !query.matches_bytes(raw) {
        let count = match kind {
            Kind::Memory | Kind::Summary => split(kind, relative, &String::from_utf8_lossy(raw), &|_| false).count,
            Kind::Rollout | Kind::Note | Kind::Transcript => 1,
        };
        return Split { docs: Vec::new(), count };
    }
    split(kind, relative, &String::from_utf8_lossy(raw), &|body| query.is_match(body))
}

/// The documents of a workspace file that `keep` accepts, and how many it holds.
fn split(kind: Kind, relative: &str, text: &str, keep: &dyn Fn(&str) -> bool) -> Split {
    match kind {
        Kind::Memory => docs::memory_docs(relative, text, keep),
        Kind::Summary => docs::summary_docs(relative, text, keep),
        Kind::Rollout => Split { docs: vec![docs::rollout_doc(relative, text)], count: 1 },
        Kind::Note | Kind::Transcript => Split { docs: vec![docs::note_doc(relative, text)], count: 1 },
    }
}

/// What a transcript's results share: the session, its last activity, its project key.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TranscriptOf {
    pub(crate) session_id: Option<String>,
    pub(crate) date: Option<Timestamp>,
    pub(crate) project: String,
}

/// One document per matching record of the transcript at `path`, each reporting its line,
/// and its place in the session when `place` knows one.
pub(crate) fn transcript_docs<'a>(
    path: &'a str,
    found: Vec<Found>,
    of: &'a TranscriptOf,
    place: impl Fn(u64) -> Option<String> + 'a,
) -> impl Iterator<Item = Doc> + 'a {
    found.into_iter().map(move |found| Doc {
        place: place(found.line),
        path: path.to_string(),
        first_line: found.line as usize,
        text: found.text,
        fixed_line: true,
        kind: Kind::Transcript,
        session_id: of.session_id.clone(),
        date: of.date,
        date_end: None,
        project: Some(of.project.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(word: &str) -> Query {
        Query::new(&[word.to_string()], false, false).unwrap()
    }

    const MEMORY: &str =
        "# Task Group: /w/shop\n\n## Task 1: Build\n\nran make build\n\n## Task 2: Test\n\nran make test\n";

    #[test]
    fn files_that_cannot_match_are_counted_not_kept() {
        let none = file_split(Kind::Memory, "MEMORY.md", MEMORY.as_bytes(), &query("zebracorn"));
        assert_eq!((none.docs.len(), none.count), (0, 3));
        let note = file_split(Kind::Note, "notes/a.md", b"nothing here", &query("zebracorn"));
        assert_eq!((note.docs.len(), note.count), (0, 1));
        let some = file_split(Kind::Memory, "MEMORY.md", MEMORY.as_bytes(), &query("TEST"));
        assert_eq!(some.count, 3);
        assert_eq!(some.docs.iter().map(|d| d.first_line).collect::<Vec<_>>(), [7]);
        let rollout =
            file_split(Kind::Rollout, "rollout_summaries/a.md", b"session_id: s-1\n\nmake test", &query("test"));
        assert_eq!((rollout.count, rollout.docs[0].session_id.as_deref()), (1, Some("s-1")));
    }

    #[test]
    fn the_corpus_counts_every_file_and_keeps_only_documents() {
        let mut corpus = Corpus::default();
        corpus.add_file(file_split(Kind::Memory, "MEMORY.md", MEMORY.as_bytes(), &query("build")), MEMORY.len());
        corpus.add_file(file_split(Kind::Note, "notes/a.md", b"other", &query("build")), 5);
        corpus.add_transcript(40, 4000);
        assert_eq!((corpus.files, corpus.docs.len()), (3, 1));
        assert_eq!((corpus.collection.documents, corpus.collection.total_bytes), (3 + 1 + 40, MEMORY.len() + 5 + 4000));
    }

    #[test]
    fn transcript_results_report_their_record_and_session() {
        let of = TranscriptOf {
            session_id: Some("s-9".to_string()),
            date: Some("2026-11-20T10:00:00Z".parse().unwrap()),
            project: "/w/shop".to_string(),
        };
        let found = vec![Found { line: 4, text: "a".into() }, Found { line: 9, text: "b\nc".into() }];
        let place = |line: u64| (line == 9).then(|| "message msg_1, part prt_2".to_string());
        let docs: Vec<Doc> = transcript_docs("/t/x.jsonl", found, &of, place).collect();
        let shape: Vec<(usize, &str, bool, Option<&str>)> =
            docs.iter().map(|d| (d.first_line, d.text.as_str(), d.fixed_line, d.project.as_deref())).collect();
        assert_eq!(shape, [(4, "a", true, Some("/w/shop")), (9, "b\nc", true, Some("/w/shop"))]);
        let places: Vec<Option<&str>> = docs.iter().map(|d| d.place.as_deref()).collect();
        assert_eq!(places, [None, Some("message msg_1, part prt_2")]);
        assert!(docs.iter().all(|d| d.kind == Kind::Transcript && d.session_id.as_deref() == Some("s-9")));
        assert_eq!(docs[1].date, of.date);
    }
}
