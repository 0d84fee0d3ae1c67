//! What a search keeps: the results, sessions and transcripts inside its period and its
//! project, and how many of them the limit lets through.

use jiff::Timestamp;

use super::docs::Doc;
use super::render::Listed;
use super::{Hit, in_period, same_project};
use crate::core::state::{SourceEntry, SourceKey, SourceState, Sources};

/// The period (`--since`, `--until`) and the project (`--project`, as its key) a search is
/// bound to; each is open when `None`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Bounds<'a> {
    pub(crate) since: Option<Timestamp>,
    pub(crate) until: Option<Timestamp>,
    pub(crate) project: Option<&'a str>,
}

impl Bounds<'_> {
    /// True when something covering `start..=end` overlaps the period (see [`in_period`]).
    pub(crate) fn in_period(&self, start: Option<Timestamp>, end: Option<Timestamp>) -> bool {
        in_period(start, end, self.since, self.until)
    }

    /// True when there is no project bound or `project` is it (see [`same_project`]).
    pub(crate) fn in_project(&self, project: Option<&str>) -> bool {
        self.project.is_none_or(|key| same_project(project, key))
    }
}

/// The ranked hits inside the bounds, in rank order, each shown once (see [`distinct`]).
/// `project_of` tells a document's project; it is asked only with a project bound and only
/// for documents inside the period, since finding it may mean reading a record.
pub(crate) fn kept_hits<'h>(
    hits: &'h [Hit],
    docs: &[Doc],
    bounds: &Bounds,
    project_of: &mut dyn FnMut(&Doc) -> Option<String>,
) -> Vec<&'h Hit> {
    let kept = hits.iter().filter(|hit| {
        let doc = &docs[hit.doc];
        bounds.in_period(doc.date, doc.date_end)
            && (bounds.project.is_none() || bounds.in_project(project_of(doc).as_deref()))
    });
    distinct(kept, docs)
}

/// The hits without repeats, the best-ranked of each kept: two documents that show the same
/// line of a file, or the same text of one file for the same session and day (two tasks of a
/// session with the same keywords line), would print the same result twice. A transcript's
/// repeated line is a second event, and is kept.
fn distinct<'h>(hits: impl Iterator<Item = &'h Hit>, docs: &[Doc]) -> Vec<&'h Hit> {
    let mut lines = std::collections::HashSet::new();
    let mut texts = std::collections::HashSet::new();
    hits.filter(|hit| {
        let doc = &docs[hit.doc];
        let at = (doc.path.as_str(), doc.place.as_deref(), hit.line);
        let said = (doc.path.as_str(), hit.text.as_str(), doc.session_id.as_deref(), doc.date);
        lines.insert(at) && (doc.kind == super::docs::Kind::Transcript || texts.insert(said))
    })
    .collect()
}

/// The sessions inside the bounds, newest first; sessions that ended together by id.
pub(crate) fn sessions_in(mut sessions: Vec<Listed>, bounds: &Bounds) -> Vec<Listed> {
    sessions.retain(|r| bounds.in_period(Some(r.updated_at), None) && bounds.in_project(Some(&r.project)));
    sessions.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then_with(|| a.session_id.cmp(&b.session_id)));
    sessions
}

/// The transcripts worth searching, in path order: those extraction read (and did not
/// exclude since), skipping the ones whose last activity is outside the period before they
/// are read. Their project is only known once read, so it is bound on the results. A file
/// that holds many sessions is searched once, with its first session's entry.
pub(crate) fn transcripts_in<'s>(sources: &'s Sources, bounds: &Bounds) -> Vec<(&'s SourceKey, &'s SourceEntry)> {
    sources
        .sources
        .iter()
        .filter(|(_, entry)| matches!(entry.state, SourceState::Extracted | SourceState::NoOp))
        .filter(|(_, entry)| entry.session_id.as_deref().is_none_or(|id| !sources.excluded.contains(id)))
        .filter(|(_, entry)| entry.updated_at.is_none() || bounds.in_period(entry.updated_at, None))
        .collect()
}

/// How many of `found` results to show under `limit` (`None` shows all).
pub(crate) fn shown(found: usize, limit: Option<usize>) -> usize {
    limit.map_or(found, |limit| limit.min(found))
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;
    use crate::core::search::docs::Kind;
    use crate::core::search::tests::session as record;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn doc(path: &str, date: Option<&str>, project: Option<&str>) -> Doc {
        Doc {
            path: path.to_string(),
            first_line: 1,
            text: String::new(),
            fixed_line: false,
            kind: Kind::Rollout,
            session_id: None,
            date: date.map(at),
            date_end: None,
            project: project.map(str::to_string),
            place: None,
        }
    }

    fn hit(doc: usize) -> Hit {
        Hit { doc, score: 1.0, line: 1, text: String::new() }
    }

    #[test]
    fn hits_outside_the_period_or_project_are_dropped_in_rank_order() {
        let docs = [
            doc("old", Some("2026-11-01T00:00:00Z"), Some("/w/shop")),
            doc("new", Some("2026-11-25T00:00:00Z"), Some("/w/shop")),
            doc("other", Some("2026-11-26T00:00:00Z"), Some("/w/other")),
            doc("undated", None, Some("/w/shop")),
            doc("short", Some("2026-11-27T00:00:00Z"), Some("shop")),
        ];
        let hits = [hit(4), hit(2), hit(0), hit(1), hit(3)];
        let paths = |bounds: &Bounds, asked: &mut Vec<String>| -> Vec<String> {
            let mut project_of = |d: &Doc| {
                asked.push(d.path.clone());
                d.project.clone()
            };
            kept_hits(&hits, &docs, bounds, &mut project_of).iter().map(|h| docs[h.doc].path.clone()).collect()
        };
        let mut asked = Vec::new();
        let open = Bounds::default();
        assert_eq!(paths(&open, &mut asked), ["short", "other", "old", "new", "undated"]);
        assert!(asked.is_empty(), "asked for projects without a project bound: {asked:?}");
        let recent = Bounds { since: Some(at("2026-11-20T00:00:00Z")), ..Bounds::default() };
        assert_eq!(paths(&recent, &mut asked), ["short", "other", "new"]);
        let shop = Bounds { project: Some("/w/shop"), ..recent };
        assert_eq!(paths(&shop, &mut asked), ["short", "new"]);
        // Only the documents inside the period were looked up.
        assert_eq!(asked, ["short", "other", "new"]);
    }

    #[test]
    fn sessions_are_listed_newest_first_then_by_id() {
        let records = [
            record("b", "2026-11-20T10:00:00Z", "/w/shop"),
            record("c", "2026-11-22T10:00:00Z", "/w/other"),
            record("a", "2026-11-20T10:00:00Z", "/w/shop"),
            record("d", "2026-11-01T10:00:00Z", "/w/shop"),
        ];
        let ids = |bounds: &Bounds| -> Vec<String> {
            let listed = records.iter().cloned().map(super::super::render::listed).collect();
            sessions_in(listed, bounds).into_iter().map(|r| r.session_id).collect()
        };
        assert_eq!(ids(&Bounds::default()), ["c", "a", "b", "d"]);
        let since = Bounds { since: Some(at("2026-11-15T00:00:00Z")), ..Bounds::default() };
        assert_eq!(ids(&since), ["c", "a", "b"]);
        assert_eq!(ids(&Bounds { project: Some("/w/shop"), ..since }), ["a", "b"]);
        assert_eq!(ids(&Bounds { until: Some(at("2026-11-19T00:00:00Z")), ..Bounds::default() }), ["d"]);
    }

    #[test]
    fn only_read_unexcluded_transcripts_in_the_period_are_searched() {
        let entry = |state, id: Option<&str>, updated_at: Option<&str>| {
            let json = serde_json::json!({ "size": 1, "mtime_ns": 0, "state": state, "session_id": id, "updated_at": updated_at });
            serde_json::from_value::<SourceEntry>(json).unwrap()
        };
        let sources = Sources {
            version: 1,
            sources: BTreeMap::from([
                ("/t/a".into(), entry("extracted", Some("a"), Some("2026-11-25T00:00:00Z"))),
                ("/t/b".into(), entry("no-op", None, None)),
                ("/t/c".into(), entry("skipped", None, Some("2026-11-25T00:00:00Z"))),
                ("/t/d".into(), entry("extracted", Some("d"), Some("2026-11-25T00:00:00Z"))),
                ("/t/e".into(), entry("extracted", Some("e"), Some("2026-11-01T00:00:00Z"))),
            ]),
            excluded: BTreeSet::from(["d".to_string()]),
            last_extract: None,
        };
        let paths = |bounds: &Bounds| -> Vec<&str> {
            transcripts_in(&sources, bounds).iter().map(|(key, _)| &*key.path).collect()
        };
        assert_eq!(paths(&Bounds::default()), ["/t/a", "/t/b", "/t/e"]);
        // An undated transcript is read whatever the period.
        let recent = Bounds { since: Some(at("2026-11-20T00:00:00Z")), project: Some("/w/x"), until: None };
        assert_eq!(paths(&recent), ["/t/a", "/t/b"]);
    }

    #[test]
    fn the_limit_caps_what_is_shown() {
        assert_eq!((shown(5, None), shown(5, Some(3)), shown(2, Some(3)), shown(0, Some(3))), (5, 3, 2, 0));
    }
}
