//! STAND-IN (replaced at merge): the interface of the opencode database edge.
#![allow(dead_code, unused_variables)]
use std::path::Path;

use crate::core::pipeline::Sink;
use crate::core::state::FileStat;
use crate::edge::transcript::FileRead;

pub(crate) fn is_database(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == "opencode.db" || (n.starts_with("opencode-") && n.ends_with(".db")))
}
pub(crate) fn database_stat(db: &Path) -> anyhow::Result<FileStat> {
    todo!()
}
pub(crate) struct Snapshot {}
impl Snapshot {
    pub(crate) fn take(db: &Path, scratch: &Path) -> anyhow::Result<Snapshot> {
        todo!()
    }
    pub(crate) fn sessions(&self) -> anyhow::Result<Vec<Member>> {
        todo!()
    }
    pub(crate) fn search<S: Sink>(
        &self,
        id: &str,
        make_sink: impl FnOnce() -> S,
    ) -> anyhow::Result<crate::edge::transcript::Searched<S>> {
        todo!()
    }
    pub(crate) fn read<S: Sink>(&self, id: &str, make_sink: impl FnOnce() -> S) -> anyhow::Result<FileRead<S>> {
        todo!()
    }
}
pub(crate) struct Member {
    pub(crate) id: String,
    pub(crate) parent: Option<String>,
    pub(crate) stat: FileStat,
}
