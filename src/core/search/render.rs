//! How search results read: a hit as one line of text (matches highlighted when colour is
//! on) or one JSON object, a session of a period the same two ways, and the totals.
//!
//! Text lines come out escaped: file names and transcript text may hold control characters.

use std::path::Path;

use jiff::Timestamp;
use serde::Serialize;

use super::docs::Doc;
use super::{Hit, Query, highlight};
use crate::core::escape::escape;
use crate::core::project::display_name;
use crate::core::session::Agent;
use crate::core::stage1::Stage1;

const MATCH_ON: &str = "\x1b[1;31m";
const PATH_ON: &str = "\x1b[35m";
const LINE_ON: &str = "\x1b[32m";
const DIM_ON: &str = "\x1b[2m";
const OFF: &str = "\x1b[0m";

/// `path:line: text  (date, session id)`, escaped; with `colour`, the path, line number and
/// trailer styled and every match highlighted.
pub(crate) fn hit_line(hit: &Hit, doc: &Doc, query: &Query, colour: bool) -> String {
    let about: Vec<String> =
        [doc.date.map(day), doc.session_id.as_ref().map(|id| format!("session {id}"))].into_iter().flatten().collect();
    let about = if about.is_empty() { String::new() } else { format!("  ({})", about.join(", ")) };
    let text = escape(&hit.text);
    // A place in a session stands where a line of a file would.
    let (sep, at) = match &doc.place {
        Some(place) => (" ", format!("({place})")),
        None => (":", hit.line.to_string()),
    };
    if colour {
        format!(
            "{PATH_ON}{}{OFF}{sep}{LINE_ON}{}{OFF}: {}{DIM_ON}{}{OFF}",
            escape(&doc.path),
            escape(&at),
            highlight(&text, query, MATCH_ON, OFF),
            escape(&about)
        )
    } else {
        format!("{}{sep}{}: {}{}", escape(&doc.path), escape(&at), text, escape(&about))
    }
}

/// A hit as a `result` object.
#[derive(Debug, Serialize)]
pub(crate) struct HitJson<'a> {
    path: &'a str,
    /// The file's absolute path.
    file: String,
    /// The line of the file; none for a session read as a stream of records, which has a
    /// `place` instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    place: Option<&'a str>,
    kind: &'static str,
    score: f64,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    project: Option<&'a str>,
}

impl<'a> HitJson<'a> {
    /// The hit on `doc`, whose file is at `file` and whose project is `project`; the score
    /// is rounded to four decimals, which is all a reader can compare.
    pub(crate) fn new(hit: &'a Hit, doc: &'a Doc, project: Option<&'a str>, file: String) -> HitJson<'a> {
        HitJson {
            path: &doc.path,
            file,
            line: doc.place.is_none().then_some(hit.line),
            place: doc.place.as_deref(),
            kind: doc.kind.name(),
            score: (hit.score * 1e4).round() / 1e4,
            text: &hit.text,
            session_id: doc.session_id.as_deref(),
            date: doc.date.map(day),
            project,
        }
    }
}

/// The `totals` object of a search.
#[derive(Debug, Serialize)]
pub(crate) struct Totals<'a> {
    pub(crate) results: usize,
    /// Results the limit cut.
    pub(crate) more: usize,
    pub(crate) files: usize,
    pub(crate) documents: usize,
    pub(crate) home: &'a str,
}

/// One session of a period, with only what a listing shows of it ([`session_line`],
/// [`SessionJson`]): a period of a hundred thousand sessions is listed without holding their
/// records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    pub(crate) session_id: String,
    pub(crate) updated_at: Timestamp,
    pub(crate) started_at: Option<Timestamp>,
    pub(crate) project: String,
    pub(crate) agent: Agent,
    /// The session in one line: its summary's title, else its own title, else its slug.
    pub(crate) summary: String,
    pub(crate) rollout_path: String,
}

/// What a listing keeps of `record`.
pub(crate) fn listed(record: Stage1) -> Listed {
    let summary = heading(&record).or(record.title.as_deref()).unwrap_or(&record.rollout_slug).to_string();
    Listed {
        session_id: record.session_id,
        updated_at: record.updated_at,
        started_at: record.started_at,
        project: record.project,
        agent: record.agent,
        summary,
        rollout_path: record.rollout_path,
    }
}

/// The title of a session's summary, when it has one.
fn heading(record: &Stage1) -> Option<&str> {
    record.rollout_summary.lines().find_map(|l| l.strip_prefix("# ")).map(str::trim).filter(|t| !t.is_empty())
}

/// `updated  project  agent  summary  (id)`, one session of a period (escaped when printed).
pub(crate) fn session_line(session: &Listed) -> String {
    format!(
        "{}  {}  {}  {}  ({})",
        session.updated_at.strftime("%Y-%m-%d %H:%M"),
        display_name(&session.project),
        session.agent.name(),
        session.summary,
        session.session_id
    )
}

/// A session of a period as a `session` object.
#[derive(Debug, Serialize)]
pub(crate) struct SessionJson<'a> {
    session_id: &'a str,
    updated_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    started_at: Option<Timestamp>,
    project: &'a str,
    agent: &'static str,
    summary: &'a str,
    rollout_path: &'a str,
}

impl SessionJson<'_> {
    pub(crate) fn new(session: &Listed) -> SessionJson<'_> {
        SessionJson {
            session_id: &session.session_id,
            updated_at: session.updated_at,
            started_at: session.started_at,
            project: &session.project,
            agent: session.agent.name(),
            summary: &session.summary,
            rollout_path: &session.rollout_path,
        }
    }
}

/// `no results for "a" "b" (since …, until …, in project …)`: the words quoted, then the
/// bounds as they were given.
pub(crate) fn no_results(
    words: &[String],
    since: Option<Timestamp>,
    until: Option<Timestamp>,
    project: Option<&Path>,
) -> String {
    let words = words.iter().map(|w| format!("{w:?}")).collect::<Vec<_>>().join(" ");
    let mut bounds = Vec::new();
    if let Some(since) = since {
        bounds.push(format!("since {since}"));
    }
    if let Some(until) = until {
        bounds.push(format!("until {until}"));
    }
    if let Some(project) = project {
        bounds.push(format!("in project {}", project.display()));
    }
    if bounds.is_empty() {
        format!("no results for {words}")
    } else {
        format!("no results for {words} ({})", bounds.join(", "))
    }
}

fn day(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::search::docs::Kind;
    use crate::core::search::tests::session;

    fn query(words: &[&str]) -> Query {
        Query::new(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>(), false, false).unwrap()
    }

    fn memory_doc(session_id: Option<&str>, date: Option<&str>) -> Doc {
        Doc {
            path: "MEMORY.md".to_string(),
            first_line: 10,
            text: String::new(),
            fixed_line: false,
            kind: Kind::Memory,
            session_id: session_id.map(str::to_string),
            date: date.map(|d| d.parse().unwrap()),
            date_end: None,
            project: None,
            place: None,
        }
    }

    fn hit(text: &str) -> Hit {
        Hit { doc: 0, score: 1.234_567, line: 12, text: text.to_string() }
    }

    #[test]
    fn a_hit_reads_as_its_place_text_date_and_session() {
        let doc = memory_doc(Some("s-1"), Some("2026-11-22T14:08:00Z"));
        let plain = hit_line(&hit("run pnpm test"), &doc, &query(&["pnpm"]), false);
        assert_eq!(plain, "MEMORY.md:12: run pnpm test  (2026-11-22, session s-1)");
        let bare = hit_line(&hit("run pnpm test"), &memory_doc(None, None), &query(&["pnpm"]), false);
        assert_eq!(bare, "MEMORY.md:12: run pnpm test");
    }

    #[test]
    fn colour_styles_the_place_and_highlights_every_match() {
        let doc = memory_doc(None, Some("2026-11-22T14:08:00Z"));
        let line = hit_line(&hit("pnpm, not npm"), &doc, &query(&["pnpm", "npm"]), true);
        assert_eq!(
            line,
            "\x1b[35mMEMORY.md\x1b[0m:\x1b[32m12\x1b[0m: \x1b[1;31mpnpm\x1b[0m, not \x1b[1;31mnpm\x1b[0m\
             \x1b[2m  (2026-11-22)\x1b[0m"
        );
    }

    #[test]
    fn control_characters_in_a_hit_are_escaped_before_colour_is_added() {
        let doc = memory_doc(None, None);
        let plain = hit_line(&hit("x\x1b[2J pnpm\r"), &doc, &query(&["pnpm"]), false);
        assert_eq!(plain, "MEMORY.md:12: x\\u{1b}[2J pnpm\\u{d}");
        let coloured = hit_line(&hit("\x1b[2J pnpm"), &doc, &query(&["pnpm"]), true);
        assert!(coloured.contains(": \\u{1b}[2J \x1b[1;31mpnpm\x1b[0m"), "{coloured:?}");
    }

    #[test]
    fn a_hit_object_rounds_its_score_and_leaves_out_what_it_lacks() {
        let hit = hit("run pnpm test");
        let doc = memory_doc(Some("s-1"), Some("2026-11-22T14:08:00Z"));
        let json = serde_json::to_value(HitJson::new(&hit, &doc, Some("/w/shop"), "/h/MEMORY.md".into())).unwrap();
        assert_eq!(json["score"], 1.2346);
        assert_eq!((json["date"].as_str(), json["project"].as_str()), (Some("2026-11-22"), Some("/w/shop")));
        assert_eq!((json["kind"].as_str(), json["file"].as_str()), (Some("memory"), Some("/h/MEMORY.md")));
        let bare = memory_doc(None, None);
        let json = serde_json::to_value(HitJson::new(&hit, &bare, None, String::new())).unwrap();
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert!(keys.iter().all(|k| !["session_id", "date", "project"].contains(&k.as_str())), "{keys:?}");
    }

    #[test]
    fn a_session_reads_as_its_summary_title_else_its_title_else_its_slug() {
        let mut record = session("s-1", "2026-11-22T14:08:00Z", "/w/webshop");
        assert_eq!(session_line(&listed(record.clone())), "2026-11-22 14:08  webshop  codex  s-1-slug  (s-1)");
        record.title = Some("Fix the cart".into());
        assert_eq!(SessionJson::new(&listed(record.clone())).summary, "Fix the cart");
        record.rollout_summary = "session_id: s-1\n\n#  \n".into();
        assert_eq!(SessionJson::new(&listed(record.clone())).summary, "Fix the cart");
        record.rollout_summary = "session_id: s-1\n\n# Add a cart test \n\n## Later\n".into();
        let line = session_line(&listed(record.clone()));
        assert!(line.ends_with("  codex  Add a cart test  (s-1)"), "{line}");
        let json = serde_json::to_value(SessionJson::new(&listed(record))).unwrap();
        assert_eq!(
            (json["summary"].as_str(), json["rollout_path"].as_str()),
            (Some("Add a cart test"), Some("/t/s-1.jsonl"))
        );
    }

    #[test]
    fn no_results_names_the_words_and_the_bounds() {
        let words = ["make docs".to_string(), "sphinx".to_string()];
        assert_eq!(no_results(&words, None, None, None), "no results for \"make docs\" \"sphinx\"");
        let since = Some("2026-11-20T00:00:00Z".parse().unwrap());
        assert_eq!(
            no_results(&words[1..], since, None, Some(Path::new("../shop"))),
            "no results for \"sphinx\" (since 2026-11-20T00:00:00Z, in project ../shop)"
        );
    }
}
