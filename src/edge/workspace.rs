//! The workspace on disk (HANDBOOK_HOME): where each file lives, and loading and saving the
//! private state under `.handbook/`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use super::fsio::{ensure_private_dir, read_json, remove_if_exists, write_json};
use super::lock::{WorkspaceLock, acquire};
use crate::core::stage1::{STAGE1_VERSION, Stage1, file_name};
use crate::core::state::{SOURCES_VERSION, Sources};

/// Paths of one workspace.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub home: PathBuf,
}

impl Workspace {
    pub fn new(home: &Path) -> Workspace {
        Workspace {
            home: home.to_path_buf(),
        }
    }

    /// `.handbook/`: private state, never shown to agents.
    pub fn state_dir(&self) -> PathBuf {
        self.home.join(".handbook")
    }

    pub fn sources_path(&self) -> PathBuf {
        self.state_dir().join("sources.json")
    }

    pub fn stage1_dir(&self) -> PathBuf {
        self.state_dir().join("stage1")
    }

    pub fn stage1_path(&self, session_id: &str) -> PathBuf {
        self.stage1_dir().join(file_name(session_id))
    }

    /// Create the home and its state folder, private to the user.
    pub fn create(&self) -> Result<()> {
        ensure_private_dir(&self.home)?;
        ensure_private_dir(&self.state_dir())
    }

    /// Take the workspace lock, waiting up to `wait` for another run.
    pub fn lock(&self, wait: Duration) -> Result<WorkspaceLock> {
        self.create()?;
        acquire(&self.state_dir().join("lock"), wait)
    }

    pub fn load_sources(&self) -> Result<Sources> {
        let path = self.sources_path();
        let sources: Sources = read_json(&path)?.unwrap_or(Sources {
            version: SOURCES_VERSION,
            ..Sources::default()
        });
        if sources.version > SOURCES_VERSION {
            bail!(
                "{} was written by a newer handbook (version {}); upgrade handbook",
                path.display(),
                sources.version
            );
        }
        Ok(sources)
    }

    pub fn save_sources(&self, sources: &Sources) -> Result<()> {
        write_json(&self.sources_path(), sources)
    }

    /// The stored stage-1 record of a session, if any. A record of a newer or damaged shape
    /// is an error that names the file.
    pub fn load_stage1(&self, session_id: &str) -> Result<Option<Stage1>> {
        let path = self.stage1_path(session_id);
        let record: Option<Stage1> = read_json(&path)?;
        if let Some(r) = &record
            && r.version > STAGE1_VERSION
        {
            bail!(
                "{} was written by a newer handbook (version {}); upgrade handbook",
                path.display(),
                r.version
            );
        }
        Ok(record)
    }

    pub fn save_stage1(&self, record: &Stage1) -> Result<()> {
        write_json(&self.stage1_path(&record.session_id), record)
            .with_context(|| format!("cannot store the extraction of session {}", record.session_id))
    }

    pub fn remove_stage1(&self, session_id: &str) -> Result<()> {
        remove_if_exists(&self.stage1_path(session_id))
    }
}
