//! The stage-1 records under `.handbook/stage1/`: reading, storing and removing one session's
//! record, by its injective name (or the name records had before, see
//! [`crate::core::stage1::legacy_file_name`]).
//!
//! A command that touches a few records looks at the disk for each, and syncs each write. An
//! `extract` run, which may settle a hundred thousand sessions, checks the folder and lists it
//! once ([`Records::listed`]): a record whose name is not there is not read, and records are
//! written without a sync each, then made durable together by [`Records::sync`] before the
//! state that names them is saved. A run that dies before that leaves records the state does
//! not name yet; the next run reads their transcripts and writes them again, so nothing is
//! lost, and a reader never sees a record half written.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use jiff::Timestamp;

use super::fsio::{self, Home, Unsynced};
use super::workspace::Workspace;
use crate::core::stage1::{STAGE1_VERSION, Stage1, file_name, legacy_file_name};
use crate::core::state::{RecordChange, Sources, usage};

/// What the folder held when it was listed.
#[derive(Debug, Default)]
struct Listed {
    /// Names of plain files.
    files: HashSet<String>,
    /// Names of anything else (a link, a folder): every use of one goes through the home's
    /// checks, which refuse it with an error that says what to do.
    others: HashSet<String>,
    /// Hashes of the names written since (see [`name_hash`]): a run that stores a hundred
    /// thousand records keeps no copy of their names. A name whose hash is here is looked up
    /// on disk.
    written: HashSet<u64>,
}

/// The hash a written record's name (or a stored record's session id) is remembered by; a
/// name that only shares it with one is looked up on disk, so a shared hash costs a look,
/// never a wrong answer.
fn name_hash(name: &str) -> u64 {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut hasher = DefaultHasher::new();
    name.hash(&mut hasher);
    hasher.finish()
}

/// What is known of a name without looking at the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Absent,
    /// A plain file in the checked folder.
    File,
    /// Not listed, or not a plain file: the home's checks decide.
    Unknown,
}

/// The records of one workspace, as one command reads and writes them.
pub(crate) struct Records<'a> {
    home: Home<'a>,
    dir: PathBuf,
    /// `None`: every name is looked up on disk.
    listed: Option<Listed>,
    /// `None`: every write is synced at once.
    unsynced: Option<Unsynced>,
    /// The usage each record stored by this run was written with, by session id, when it
    /// was any: most records are new, and written with none.
    stored_usage: HashMap<String, (u32, Option<Timestamp>)>,
    /// Hashes of the session ids (see [`name_hash`]) of the records this run stored with no
    /// usage: only the cited ones among them can need it brought in line, and they are
    /// read back to see, so a run that stores a hundred thousand keeps no copy of their ids.
    stored_unused: HashSet<u64>,
}

impl<'a> Records<'a> {
    /// The records, looked up one by one on disk, each write synced.
    pub(crate) fn direct(workspace: &'a Workspace) -> Records<'a> {
        Records {
            home: Home::new(&workspace.home),
            dir: workspace.stage1_dir(),
            listed: None,
            unsynced: None,
            stored_usage: HashMap::new(),
            stored_unused: HashSet::new(),
        }
    }

    /// The records of a run that settles many sessions: the folder checked and listed now,
    /// writes synced together by [`Records::sync`].
    pub(crate) fn listed(workspace: &'a Workspace) -> Result<Records<'a>> {
        let mut records = Records::direct(workspace);
        records.home.check_folder(&records.dir)?;
        let mut listed = Listed::default();
        for (name, plain) in fsio::list_names(&records.dir)? {
            match plain {
                true => listed.files.insert(name),
                false => listed.others.insert(name),
            };
        }
        records.listed = Some(listed);
        records.unsynced = Some(Unsynced::default());
        Ok(records)
    }

    fn place(&self, name: &str) -> Place {
        match &self.listed {
            Some(listed) if listed.files.contains(name) => Place::File,
            Some(listed) if listed.written.contains(&name_hash(name)) => Place::Unknown,
            Some(listed) if !listed.others.contains(name) => Place::Absent,
            _ => Place::Unknown,
        }
    }

    /// The record stored under `name`, if any; an error names a damaged file.
    fn read(&self, name: &str) -> Result<Option<Stage1>> {
        let path = self.dir.join(name);
        match self.place(name) {
            Place::Absent => Ok(None),
            Place::File => fsio::read_json(&path),
            Place::Unknown => self.home.read_json(&path),
        }
    }

    /// True when a session's record is a file (its contents unread).
    pub(crate) fn has(&self, session_id: &str) -> bool {
        let name = file_name(session_id);
        match self.place(&name) {
            Place::Absent => false,
            Place::File => true,
            Place::Unknown => self.home.exists(&self.dir.join(name)).unwrap_or(false),
        }
    }

    /// The record of `session_id` under the name records had before their names were made
    /// injective, with that name. Those names were not injective, so the file there may hold
    /// another session's record (or be damaged): then it is not this session's.
    fn legacy(&self, session_id: &str) -> Option<(String, Stage1)> {
        let legacy = legacy_file_name(session_id);
        if legacy == file_name(session_id) {
            return None;
        }
        let record = self.read(&legacy).ok().flatten()?;
        (record.session_id == session_id).then_some((legacy, record))
    }

    /// The stored record of a session, if any, under its name or the name records had
    /// before. A record of a newer or damaged shape, or one that holds another session, is
    /// an error that names the file.
    pub(crate) fn load(&self, session_id: &str) -> Result<Option<Stage1>> {
        let name = file_name(session_id);
        let record = match self.read(&name)? {
            Some(record) => Some(record),
            None => self.legacy(session_id).map(|(_, record)| record),
        };
        let path = self.dir.join(&name);
        if let Some(r) = &record
            && r.version > STAGE1_VERSION
        {
            bail!("{} was written by a newer handbook (version {}); upgrade handbook", path.display(), r.version);
        }
        if let Some(r) = &record
            && r.session_id != session_id
        {
            bail!(collision(&path, session_id, &r.session_id));
        }
        Ok(record)
    }

    /// A stored record, or `None` with a warning through `warn` when it is damaged: one bad
    /// file never stops a run, and the record is rewritten from its transcript.
    fn load_or_warn(&self, session_id: &str, warn: &mut dyn FnMut(String)) -> Option<Stage1> {
        self.load(session_id).unwrap_or_else(|e| {
            warn(format!("{e:#}; it is rewritten from its transcript"));
            None
        })
    }

    /// Store a session's record under its name, and drop the copy under its old name. A file
    /// there holding another session's record is an error, never overwritten; a damaged one
    /// is rewritten.
    pub(crate) fn save(&mut self, record: &Stage1) -> Result<()> {
        if let Ok(Some(held)) = self.read(&file_name(&record.session_id))
            && held.session_id != record.session_id
        {
            bail!(collision(&self.dir.join(file_name(&record.session_id)), &record.session_id, &held.session_id));
        }
        self.write(record)
    }

    /// Write a record under its name, known to hold no other session's, and drop the copy
    /// under its old name.
    fn write(&mut self, record: &Stage1) -> Result<()> {
        let name = file_name(&record.session_id);
        let path = self.dir.join(&name);
        let written = match (&mut self.unsynced, &mut self.listed) {
            (Some(unsynced), Some(listed)) if !listed.others.contains(&name) => {
                if listed.files.is_empty() && unsynced.is_empty() {
                    self.home.ensure_dir(&self.dir)?;
                }
                self.home.write_json_unsynced(&path, record)?;
                unsynced.add(path);
                if !listed.files.contains(&name) {
                    listed.written.insert(name_hash(&name));
                }
                Ok(())
            }
            _ => self.home.write_json(&path, record),
        };
        written.with_context(|| format!("cannot store the extraction of session {}", record.session_id))?;
        match self.legacy(&record.session_id) {
            Some((legacy, _)) => self.remove_name(&legacy),
            None => Ok(()),
        }
    }

    fn remove_name(&mut self, name: &str) -> Result<()> {
        if self.place(name) == Place::Absent {
            return Ok(());
        }
        self.home.remove_file(&self.dir.join(name))?;
        if let Some(listed) = &mut self.listed {
            listed.files.remove(name);
        }
        Ok(())
    }

    /// Remove a session's record, under its name and its old one; a file there holding
    /// another session's record stays.
    pub(crate) fn remove(&mut self, session_id: &str) -> Result<()> {
        let name = file_name(session_id);
        match self.read(&name) {
            Ok(Some(held)) if held.session_id != session_id => {}
            _ => self.remove_name(&name)?,
        }
        self.stored_usage.remove(session_id);
        match self.legacy(session_id) {
            Some((legacy, _)) => self.remove_name(&legacy),
            None => Ok(()),
        }
    }

    /// Apply what settling a session decided for its stored record.
    pub(crate) fn apply(&mut self, change: RecordChange, warn: &mut dyn FnMut(String)) -> Result<()> {
        match change {
            RecordChange::Keep => Ok(()),
            RecordChange::Store(mut record) => {
                let earlier = self.load_or_warn(&record.session_id, warn);
                record.usage_count = earlier.as_ref().map_or(0, |e| e.usage_count);
                record.last_usage = earlier.as_ref().and_then(|e| e.last_usage);
                match (record.usage_count, record.last_usage) {
                    (0, None) => self.stored_unused.insert(name_hash(&record.session_id)),
                    usage => self.stored_usage.insert(record.session_id.clone(), usage).is_none(),
                };
                // A record read back under its name holds this session: no need to look again.
                match earlier {
                    Some(_) => self.write(&record),
                    None => self.save(&record),
                }
            }
            RecordChange::DropIfFrom { session_id, key } => {
                match self.load_or_warn(&session_id, warn).is_some_and(|r| r.rollout_path == key) {
                    true => self.remove(&session_id),
                    false => Ok(()),
                }
            }
            RecordChange::Move { session_id, from, to } => match self.load_or_warn(&session_id, warn) {
                Some(mut record) if record.rollout_path == from => {
                    record.rollout_path = to;
                    self.write(&record)
                }
                _ => Ok(()),
            },
        }
    }

    /// Bring the usage stored with each `affected` session's record, and with each record
    /// this run stored, in line with the citations recorded across all transcripts. A record
    /// this run stored with the usage it has is not read again.
    pub(crate) fn sync_usage(&mut self, sources: &Sources, affected: &BTreeSet<String>) -> Result<()> {
        if affected.is_empty() && self.stored_usage.is_empty() && self.stored_unused.is_empty() {
            return Ok(());
        }
        let totals = usage(sources);
        let total = |id: &str| totals.get(id).map_or((0, None), |usage| (usage.count, usage.last));
        let stored = self.stored_usage.iter().filter(|(id, usage)| **usage != total(id)).map(|(id, _)| id);
        // Every session in the totals is cited: one stored with no usage needs it.
        let unused = totals.keys().filter(|id| self.stored_unused.contains(&name_hash(id)));
        let unstored = affected.iter().filter(|id| !self.stored_usage.contains_key(*id));
        let mut stale: Vec<&String> = stored.chain(unused).chain(unstored).collect();
        // In order, so a run writes (and fails) the same way every time.
        stale.sort_unstable();
        stale.dedup();
        let stale: Vec<String> = stale.into_iter().cloned().collect();
        for id in &stale {
            let total = total(id);
            // A record that cannot be read is rewritten, usage included, when its session is
            // read again.
            let Ok(Some(mut record)) = self.load(id) else { continue };
            if (record.usage_count, record.last_usage) != total {
                (record.usage_count, record.last_usage) = total;
                self.save(&record)?;
            }
        }
        Ok(())
    }

    /// Make every record written since the last sync durable (see [`fsio::sync_files`]).
    pub(crate) fn sync(&mut self) -> Result<()> {
        match &mut self.unsynced {
            Some(unsynced) => unsynced.sync(&self.dir),
            None => Ok(()),
        }
    }
}

/// Two session ids met at one record name (a file copied by hand, or a file system that
/// merges names).
fn collision(path: &Path, wanted: &str, held: &str) -> String {
    format!(
        "{} holds the record of session {held:?}, not of session {wanted:?}; move it aside and run again to rebuild both",
        path.display()
    )
}
