//! The sessions the user asked to forget (`.handbook/forgotten.json`), kept apart from the
//! rest of the state so that no damage to `sources.json` (and no rebuild of it) can bring a
//! forgotten session back. `sources.json` still carries a copy, as earlier versions kept the
//! list there alone; on loading, the two are joined.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::core::words::count;

/// Bumped when the file's shape changes incompatibly.
pub(crate) const FORGOTTEN_VERSION: u32 = 1;

/// `forgotten.json` as it is written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Forgotten {
    pub(crate) version: u32,
    #[serde(default)]
    pub(crate) sessions: BTreeSet<String>,
}

impl Forgotten {
    pub(crate) fn new(sessions: &BTreeSet<String>) -> Forgotten {
        Forgotten { version: FORGOTTEN_VERSION, sessions: sessions.clone() }
    }
}

/// What a run says when it rebuilds the state from nothing (`sources.json` missing) and the
/// forgotten list survived: how many sessions stay forgotten.
pub(crate) fn rebuilt_note(sources_found: bool, kept: usize) -> Option<String> {
    (!sources_found && kept > 0).then(|| format!("sources.json was rebuilt; {} kept", count(kept, "forgotten session")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rebuild_says_how_many_forgotten_sessions_it_kept() {
        assert_eq!(rebuilt_note(false, 1).as_deref(), Some("sources.json was rebuilt; 1 forgotten session kept"));
        assert_eq!(rebuilt_note(false, 2).as_deref(), Some("sources.json was rebuilt; 2 forgotten sessions kept"));
        assert_eq!(rebuilt_note(true, 2), None, "nothing was rebuilt");
        assert_eq!(rebuilt_note(false, 0), None, "a first run has nothing to keep");
        let json = serde_json::to_string(&Forgotten::new(&BTreeSet::from(["s".to_string()]))).unwrap();
        assert_eq!(json, r#"{"version":1,"sessions":["s"]}"#);
    }
}
