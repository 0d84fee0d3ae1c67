//! `handbook config`: the settings in effect, each with where its value came from.

use anyhow::Result;

use crate::config::{Resolved, Settings};
use crate::core::redact::redact;
use crate::edge::terminal::Terminal;

/// Print one line (or `setting` object) per setting. API keys never reach this far: a key's
/// record holds only whether its variable is set. Values are redacted all the same, since a
/// command line or a URL may carry a credential.
pub(crate) fn run(settings: &Settings, term: &Terminal) -> Result<()> {
    let width = settings.resolved.iter().map(|r| r.name.len()).max().unwrap_or(0);
    for resolved in &settings.resolved {
        let shown = Resolved { value: resolved.value.as_deref().map(|v| redact(v).into_owned()), ..resolved.clone() };
        term.json("setting", &shown)?;
        let value = shown.value.as_deref().unwrap_or("none");
        term.line(&format!("{:width$}  {value}  ({})", shown.name, shown.origin))?;
    }
    Ok(())
}
