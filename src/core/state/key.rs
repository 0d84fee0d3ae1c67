//! What the state is kept by: one session. Most transcript files hold one session and are
//! known by their path alone; a file that holds many (an opencode database) keeps one entry
//! per session in it, known by the file's path and the session's id.
//! (How `sources.json` keeps them is [`super::file`]'s.)

use std::fmt;
use std::sync::Arc;

/// One session's place: its transcript, and its id within it when the file holds many.
///
/// The path is shared, not copied, by every holder of the key (the state, its index, the
/// list of sessions a run reads): a run over a hundred thousand sessions keeps each path once.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct SourceKey {
    pub(crate) path: Arc<str>,
    pub(crate) member: Option<Box<str>>,
}

impl SourceKey {
    /// The session a whole transcript file holds.
    pub(crate) fn file(path: impl Into<Arc<str>>) -> SourceKey {
        SourceKey { path: path.into(), member: None }
    }

    /// Session `id` of a file that holds many.
    pub(crate) fn member(path: impl Into<Arc<str>>, id: impl Into<Box<str>>) -> SourceKey {
        SourceKey { path: path.into(), member: Some(id.into()) }
    }
}

impl From<&str> for SourceKey {
    fn from(path: &str) -> SourceKey {
        SourceKey::file(path)
    }
}

/// The path, and the session within it when there is one: how reports name a session.
impl fmt::Display for SourceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.member {
            None => f.write_str(&self.path),
            Some(id) => {
                // An id is the agent's (or whoever wrote the database): a newline in it would
                // start a new line of the report, a tab or a control character hide what it is.
                let mut shown = String::with_capacity(id.len());
                for c in id.chars() {
                    if c.is_control() || crate::core::escape::is_unsafe(c) {
                        shown.extend(c.escape_unicode());
                    } else {
                        shown.push(c);
                    }
                }
                write!(f, "{} (session {shown})", self.path)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_id_is_shown_on_one_line_with_its_controls_written_out() {
        assert_eq!(
            SourceKey::member("/o.db", "ses\nfailed: x\t\u{1b}").to_string(),
            "/o.db (session ses\\u{a}failed: x\\u{9}\\u{1b})"
        );
    }
}
