//! What a sound handbook is, checked before it is written and again before its baseline is
//! committed: a broken one never reaches the agents that read it.

use std::fmt;

use crate::core::layout::{MEMORY, ROLLOUT_SUMMARIES, SUMMARY};
use crate::core::manifest::Snapshot;
use crate::core::redact::secret_kinds;
use crate::core::summary::VERSION_LINE;
use crate::core::tokens::{Cap, estimate};

/// Why a workspace is not sound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Invalid {
    /// `MEMORY.md` or `memory_summary.md` is missing.
    Missing(&'static str),
    /// The summary does not start with its version line.
    NoVersionLine,
    /// The summary is over its token cap.
    OverCap { tokens: usize, cap: usize },
    /// `MEMORY.md` cites a rollout summary that does not exist.
    CitesMissing(String),
    /// Files that hold secrets, each with the kinds found.
    Secrets(Vec<String>),
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::Missing(file) => write!(f, "{file} is missing"),
            Invalid::NoVersionLine => write!(f, "{SUMMARY} does not start with the line `{VERSION_LINE}`"),
            Invalid::OverCap { tokens, cap } => write!(f, "{SUMMARY} is {tokens} tokens, over the cap of {cap}"),
            Invalid::CitesMissing(file) => write!(f, "{MEMORY} cites {file}, which does not exist"),
            Invalid::Secrets(leaks) => write!(
                f,
                "secrets found in {}; remove them (or `handbook forget` their session) and run again",
                leaks.join("; ")
            ),
        }
    }
}

impl std::error::Error for Invalid {}

/// The workspace is sound: the handbook (see [`validate_handbook`]) and no secret in any
/// file.
pub(crate) fn validate(snapshot: &Snapshot, cap: Cap) -> Result<(), Invalid> {
    validate_handbook(snapshot, cap)?;
    no_secrets(snapshot.files.iter())
}

/// The generated files are sound: `MEMORY.md` present and citing only rollout summaries
/// that exist, the summary starting with `v1` within its cap, neither holding a secret.
pub(crate) fn validate_handbook(snapshot: &Snapshot, cap: Cap) -> Result<(), Invalid> {
    let memory = snapshot.text(MEMORY).ok_or(Invalid::Missing(MEMORY))?;
    let summary = snapshot.text(SUMMARY).ok_or(Invalid::Missing(SUMMARY))?;
    if summary.lines().next() != Some(VERSION_LINE) {
        return Err(Invalid::NoVersionLine);
    }
    if !cap.fits(&summary) {
        return Err(Invalid::OverCap { tokens: estimate(&summary), cap: cap.tokens.unwrap_or(0) });
    }
    let prefix = format!("{ROLLOUT_SUMMARIES}/");
    for reference in memory.lines().filter_map(|l| l.strip_prefix("- ")).filter(|l| l.starts_with(&prefix)) {
        let file = reference.split_whitespace().next().unwrap_or(reference);
        if !snapshot.files.contains_key(file) {
            return Err(Invalid::CitesMissing(file.to_string()));
        }
    }
    no_secrets(snapshot.files.iter().filter(|(path, _)| [MEMORY, SUMMARY].contains(&path.as_str())))
}

/// An error naming every file that holds a secret, and its kinds.
fn no_secrets<'a>(files: impl Iterator<Item = (&'a String, &'a Vec<u8>)>) -> Result<(), Invalid> {
    let leaks: Vec<String> = files
        .filter_map(|(path, bytes)| {
            let kinds = secret_kinds(&String::from_utf8_lossy(bytes));
            (!kinds.is_empty()).then(|| format!("{path} ({})", kinds.join(", ")))
        })
        .collect();
    match leaks.is_empty() {
        true => Ok(()),
        false => Err(Invalid::Secrets(leaks)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(files: &[(&str, &str)]) -> Snapshot {
        Snapshot { files: files.iter().map(|(p, t)| (p.to_string(), t.as_bytes().to_vec())).collect() }
    }

    const CAP: Cap = Cap { tokens: Some(2500), chars: None };

    #[test]
    fn a_sound_handbook_cites_what_exists() {
        let good = workspace(&[
            ("MEMORY.md", "# Task Group: x\n- rollout_summaries/a.md (cwd=/x)\n"),
            ("memory_summary.md", "v1\n## User Profile\n"),
            ("rollout_summaries/a.md", "session_id: a\n"),
        ]);
        assert_eq!(validate(&good, CAP), Ok(()));
        let mut dangling = good.clone();
        dangling.files.remove("rollout_summaries/a.md");
        assert_eq!(validate(&dangling, CAP), Err(Invalid::CitesMissing("rollout_summaries/a.md".into())));
    }

    #[test]
    fn the_summary_needs_its_version_line_and_its_cap() {
        let unversioned = workspace(&[("MEMORY.md", ""), ("memory_summary.md", "## User Profile\n")]);
        assert_eq!(validate_handbook(&unversioned, CAP), Err(Invalid::NoVersionLine));
        let long = format!("v1\n{}", "word ".repeat(4000));
        let over = workspace(&[("MEMORY.md", ""), ("memory_summary.md", &long)]);
        assert!(matches!(validate_handbook(&over, CAP), Err(Invalid::OverCap { cap: 2500, .. })));
        let missing = workspace(&[("memory_summary.md", "v1\n")]);
        assert_eq!(validate_handbook(&missing, CAP).unwrap_err().to_string(), "MEMORY.md is missing");
    }

    #[test]
    fn a_secret_anywhere_is_named_with_its_file() {
        let key = format!("sk-proj-{}", "a1B2c3D4e5".repeat(4));
        let note = format!("use {key}\n");
        let leaky =
            workspace(&[("MEMORY.md", ""), ("memory_summary.md", "v1\n"), ("extensions/ad_hoc/notes/n.md", &note)]);
        assert_eq!(validate_handbook(&leaky, CAP), Ok(()), "only the generated files are the handbook");
        let err = validate(&leaky, CAP).unwrap_err();
        assert!(err.to_string().starts_with("secrets found in extensions/ad_hoc/notes/n.md ("), "{err}");
    }
}
