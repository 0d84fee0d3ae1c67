//! Reading the citation blocks agents append when they used memory, so lessons that get used
//! rank higher and stay. Four forms are read: handbook's own (`<handbook-citation>`, asked for
//! by `summary --prompt`), its bracketed twin (`[handbook-citation]` … `[/handbook-citation]`
//! with `[session_ids]` … `[/session_ids]`, asked for by `summary --for gemini`, since Gemini
//! CLI HTML-escapes angle brackets in what a hook gives it), Codex's `<oai-mem-citation>` (with
//! `<rollout_ids>` or the older `<thread_ids>`), and opencode's `<memory-citation>` (with
//! `<session_ids>`).

const WRAPPERS: &[&str] = &["handbook-citation", "oai-mem-citation", "memory-citation", "memory_citation"];
/// The one wrapper also read in brackets: the others are the agents' own forms, only ever
/// written in tags.
const BRACKETED_WRAPPER: &str = "handbook-citation";
const ID_LISTS: &[&str] = &["session_ids", "rollout_ids", "thread_ids"];

/// How a block is delimited: `<name>` … `</name>`, or `[name]` … `[/name]`.
#[derive(Clone, Copy)]
enum Delimiters {
    Tags,
    Brackets,
}

impl Delimiters {
    fn around(self, name: &str) -> (String, String) {
        match self {
            Delimiters::Tags => (format!("<{name}>"), format!("</{name}>")),
            Delimiters::Brackets => (format!("[{name}]"), format!("[/{name}]")),
        }
    }
}

/// The session ids one message cites, in order, each once.
pub(crate) fn cited_sessions(text: &str) -> Vec<String> {
    if !text.contains("citation") {
        return Vec::new();
    }
    let mut ids: Vec<String> = Vec::new();
    let wrappers = WRAPPERS
        .iter()
        .map(|w| Delimiters::Tags.around(w))
        .chain(std::iter::once(Delimiters::Brackets.around(BRACKETED_WRAPPER)));
    for (open, close) in wrappers {
        let mut rest = text;
        while let Some(start) = rest.find(&open) {
            let body_start = start + open.len();
            // An unterminated block runs to the end of the message.
            let body_end = rest[body_start..].find(&close).map_or(rest.len(), |e| body_start + e);
            collect_ids(&rest[body_start..body_end], &mut ids);
            rest = &rest[body_end..];
        }
    }
    ids
}

fn collect_ids(block: &str, ids: &mut Vec<String>) {
    let lists = ID_LISTS.iter().flat_map(|l| [Delimiters::Tags.around(l), Delimiters::Brackets.around(l)]);
    for (open, close) in lists {
        let Some(start) = block.find(&open) else { continue };
        let body = &block[start + open.len()..];
        let body = body.find(&close).map_or(body, |end| &body[..end]);
        for id in body.split(|c: char| c.is_whitespace() || c == ',').map(str::trim) {
            let plausible =
                (4..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b));
            if plausible && !ids.iter().any(|known| known == id) {
                ids.push(id.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_and_opencode_forms_are_read() {
        let codex = "<oai-mem-citation>\n<citation_entries>\nMEMORY.md:1-2|note=[x]\n</citation_entries>\n<rollout_ids>\n019c6e27-e55b-73d1-87d8-4e01f1f75043\n</rollout_ids>\n</oai-mem-citation>";
        assert_eq!(cited_sessions(codex), ["019c6e27-e55b-73d1-87d8-4e01f1f75043"]);
        let legacy = "<oai-mem-citation><thread_ids>aaaa-1111 bbbb-2222</thread_ids></oai-mem-citation>";
        assert_eq!(cited_sessions(legacy), ["aaaa-1111", "bbbb-2222"]);
        let opencode =
            "<memory-citation>\n<session_ids>\nses_6aade4081ffe216ygZUgcUQdR1\n</session_ids>\n</memory-citation>";
        assert_eq!(cited_sessions(opencode), ["ses_6aade4081ffe216ygZUgcUQdR1"]);
    }

    #[test]
    fn ids_count_once_and_junk_is_ignored() {
        let twice =
            "<handbook-citation><session_ids>s-0001\ns-0001, s-0002\n<not an id>\n</session_ids></handbook-citation>";
        assert_eq!(cited_sessions(twice), ["s-0001", "s-0002"]);
        assert!(cited_sessions("I cite nothing; <session_ids>s-0003</session_ids> outside a block").is_empty());
        assert_eq!(cited_sessions("<memory_citation><rollout_ids>r-0001"), ["r-0001"]);
    }

    #[test]
    fn the_bracketed_form_reads_back_like_the_tagged_one() {
        let reply = "Ran it with uv.\n\n[handbook-citation]\n[citation_entries]\nMEMORY.md:12-14|note=[uv, not pip]\n[/citation_entries]\n[session_ids]\n4d5e6f70-1a2b-4c3d-8e9f-000000000002\ns-0002\n[/session_ids]\n[/handbook-citation]";
        assert_eq!(cited_sessions(reply), ["4d5e6f70-1a2b-4c3d-8e9f-000000000002", "s-0002"]);
        // As a model may fence it, or leave it unterminated at the end of its reply.
        assert_eq!(
            cited_sessions(
                "```\n[handbook-citation]\n[session_ids]\ns-0003\n[/session_ids]\n[/handbook-citation]\n```"
            ),
            ["s-0003"]
        );
        assert_eq!(cited_sessions("[handbook-citation]\n[session_ids]\ns-0004"), ["s-0004"]);
        // Prose about citations is no citation, nor are ids outside a block, nor an agent's
        // own form in brackets.
        assert!(cited_sessions("see the handbook-citation [session_ids] s-0005 [/session_ids]").is_empty());
        assert!(cited_sessions("[oai-mem-citation][rollout_ids]r-0006[/rollout_ids][/oai-mem-citation]").is_empty());
        assert!(
            cited_sessions(
                "[handbook-citation] with no id list [/handbook-citation] [session_ids]s-0007[/session_ids]"
            )
            .is_empty()
        );
        // Both forms in one reply count each id once.
        let both = "<handbook-citation><session_ids>s-0008</session_ids></handbook-citation>\n[handbook-citation][session_ids]s-0008 s-0009[/session_ids][/handbook-citation]";
        assert_eq!(cited_sessions(both), ["s-0008", "s-0009"]);
    }
}

/// Worked examples of this module's functions.
#[cfg(test)]
mod examples {
    #[test]
    fn cited_sessions_example() {
        use crate::core::citations::cited_sessions;
        let reply = "Done.\n<handbook-citation>\n<citation_entries>\nMEMORY.md:3-4|note=[build]\n</citation_entries>\n<session_ids>\n019d7a10-aaaa\n</session_ids>\n</handbook-citation>";
        assert_eq!(cited_sessions(reply), ["019d7a10-aaaa"]);
    }
}
