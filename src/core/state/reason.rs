//! Why a transcript was set aside, as `sources.json` records it.
//!
//! On disk a reason stays the short phrase it always was (`sub-agent`, `duplicate of <path>`,
//! the reader's own sentence for a file that is not a transcript), so the file stays
//! readable and files written by earlier versions load unchanged; in memory it is an enum, so
//! a misspelt reason does not compile.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why a transcript was excluded or skipped.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Reason {
    /// A session one of handbook's own model prompts produced: learning from it would recurse.
    OwnPrompt,
    /// A sub-agent's session, not extracted on its own unless sub-agents are included.
    SubAgent,
    /// The user asked to forget the session.
    Forgotten,
    /// The session used web or MCP tools, and `exclude_external_context` is on.
    ExternalContext,
    /// Another transcript holds the same session and keeps its lessons.
    DuplicateOf(String),
    /// Not a transcript, in the reader's words ("empty file", "binary file", ...).
    NotATranscript(String),
}

const OWN_PROMPT: &str = "handbook's own prompt";
const SUB_AGENT: &str = "sub-agent";
const FORGOTTEN: &str = "forgotten";
const EXTERNAL_CONTEXT: &str = "external context";
const DUPLICATE_OF: &str = "duplicate of ";

impl Reason {
    /// The noun a coverage line counts exclusions by ("2 sub-agent", "1 duplicate"), or the
    /// reader's sentence for a skipped file.
    pub(crate) fn label(&self) -> &str {
        match self {
            Reason::OwnPrompt => OWN_PROMPT,
            Reason::SubAgent => SUB_AGENT,
            Reason::Forgotten => FORGOTTEN,
            Reason::ExternalContext => EXTERNAL_CONTEXT,
            Reason::DuplicateOf(_) => "duplicate",
            Reason::NotATranscript(sentence) => sentence,
        }
    }

    /// Read a reason as `sources.json` holds it. A phrase that is none of the exclusions is a
    /// reader's sentence.
    pub(crate) fn parse(text: &str) -> Reason {
        match text {
            OWN_PROMPT => Reason::OwnPrompt,
            SUB_AGENT => Reason::SubAgent,
            FORGOTTEN => Reason::Forgotten,
            EXTERNAL_CONTEXT => Reason::ExternalContext,
            _ => match text.strip_prefix(DUPLICATE_OF) {
                Some(owner) => Reason::DuplicateOf(owner.to_string()),
                None => Reason::NotATranscript(text.to_string()),
            },
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::DuplicateOf(owner) => write!(f, "{DUPLICATE_OF}{owner}"),
            other => f.write_str(other.label()),
        }
    }
}

impl Serialize for Reason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Reason {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Reason, D::Error> {
        let text = String::deserialize(deserializer)?;
        Ok(Reason::parse(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_strings_of_an_old_sources_file_read_as_reasons() {
        let old: Vec<Reason> = serde_json::from_str(
            r#"["sub-agent", "forgotten", "handbook's own prompt", "duplicate of /a/rollout.jsonl", "empty file"]"#,
        )
        .unwrap();
        assert_eq!(
            old,
            [
                Reason::SubAgent,
                Reason::Forgotten,
                Reason::OwnPrompt,
                Reason::DuplicateOf("/a/rollout.jsonl".into()),
                Reason::NotATranscript("empty file".into()),
            ]
        );
    }

    #[test]
    fn reasons_are_written_as_the_phrases_they_were_read_from() {
        for phrase in
            ["sub-agent", "forgotten", "handbook's own prompt", "external context", "duplicate of /x y", "binary file"]
        {
            let json = serde_json::to_string(&Reason::parse(phrase)).unwrap();
            assert_eq!(json, serde_json::to_string(phrase).unwrap());
        }
    }

    #[test]
    fn exclusions_are_counted_by_their_noun() {
        assert_eq!(Reason::DuplicateOf("/a".into()).label(), "duplicate");
        assert_eq!(Reason::parse("external context"), Reason::ExternalContext);
        assert_eq!(Reason::NotATranscript("empty file".into()).label(), "empty file");
    }
}
