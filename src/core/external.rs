//! Context from outside the session: web searches, fetched pages and MCP tools' answers.
//!
//! Such text is the lowest-trust evidence there is: anyone can write a web page, and an MCP
//! server answers with whatever its source holds. It never becomes a preference or a tip on
//! its own. The filter marks these tools' results as from outside
//! ([`crate::core::session::Unredacted::marked_outside`]) rather than dropping their text: an
//! engine may still search it (the built-in extractor tells a hijacked agent's commands by
//! the instruction a fetched page slipped in), but an excerpt of it, all that any engine keeps
//! or shows a model, is only [`EXTERNAL_WITHHELD`]. What the agent did next (the commands it
//! ran, and how they went) is still the session's own evidence. A session that used any of
//! these tools can also be left out whole (`exclude_external_context`).

/// What an excerpt of a web or MCP tool's output reads.
pub(crate) const EXTERNAL_WITHHELD: &str = "[web or MCP tool output withheld]";

/// Tools that bring the web in, by the names the agents give them: Claude Code (`WebSearch`,
/// `WebFetch`, and its server tools `web_search`, `web_fetch`), Codex (`web_search`, the
/// name its reader gives a `web_search_call`), Gemini CLI (`google_web_search`,
/// `web_fetch`), opencode (`websearch`, `webfetch`, `codesearch`), Oh My Pi (`web_search`,
/// `fetch`). Compared without case.
const WEB_TOOLS: &[&str] = &[
    "websearch",
    "webfetch",
    "web_search",
    "web_fetch",
    "google_web_search",
    "codesearch",
    "fetch",
    "web_search_preview",
];

/// True when a call to the tool `name` brings in context from outside the session: a web
/// tool, or an MCP tool (`mcp__<server>__<tool>` in Claude Code and Codex, `mcp_…` in
/// others). A handbook MCP server's tools are handbook's own words (see
/// [`crate::core::echo`]), not outside context.
///
/// opencode names an MCP tool `<server>_<tool>`, which its name alone cannot tell from a
/// built-in tool's, so only its web tools are known.
pub(crate) fn is_external_tool(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if crate::core::echo::is_handbook_tool(&lower) {
        return false;
    }
    WEB_TOOLS.contains(&lower.as_str()) || lower.starts_with("mcp__") || lower.starts_with("mcp_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_and_mcp_tools_of_every_agent_are_external() {
        for name in ["WebSearch", "WebFetch", "web_search", "google_web_search", "web_fetch", "webfetch", "websearch"] {
            assert!(is_external_tool(name), "{name}");
        }
        assert!(is_external_tool("mcp__github__get_issue"));
        assert!(is_external_tool("mcp_context7_resolve"));
    }

    #[test]
    fn local_tools_and_handbook_s_own_server_are_not() {
        for name in ["Bash", "Read", "read_file", "run_shell_command", "exec_command", "webfetcher", "mcp"] {
            assert!(!is_external_tool(name), "{name}");
        }
        assert!(!is_external_tool("mcp__handbook__search"));
    }
}
