//! File writes that cannot leave a half-written file behind, on private permissions:
//! directories 0700, files 0600. Errors name the path.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Create `dir` and its parents, private to the user.
pub fn ensure_private_dir(dir: &Path) -> Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).with_context(|| format!("cannot create folder {}", dir.display()))
}

/// Write `bytes` to `path` atomically: a temporary file in the same folder, synced, then
/// renamed over the target. Readers see the old file or the new one, never a mix.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    ensure_private_dir(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes).with_context(|| format!("cannot write {}", path.display()))?;
    tmp.as_file().sync_all().with_context(|| format!("cannot sync {}", path.display()))?;
    tmp.persist(path).map_err(|e| e.error).with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

/// Write `value` as pretty JSON (with a final newline), atomically.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value).with_context(|| format!("cannot encode {}", path.display()))?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// Read a JSON file, or `None` when it does not exist. A damaged file is an error that names
/// it, so the user can move it aside rather than lose it silently.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .with_context(|| format!("{} is damaged; move it aside and run again to rebuild it", path.display()))
}

/// Remove a file; a file already gone is fine.
pub fn remove_if_exists(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot remove {}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_writes_are_private_and_replace_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/state.json");
        write_json(&path, &vec![1, 2, 3]).unwrap();
        write_json(&path, &vec![4]).unwrap();
        assert_eq!(read_json::<Vec<u32>>(&path).unwrap(), Some(vec![4]));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
            assert_eq!(fs::metadata(dir.path().join("a")).unwrap().permissions().mode() & 0o777, 0o700);
        }
        let leftovers: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(leftovers.len(), 1);
    }

    #[test]
    fn damaged_json_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sources.json");
        fs::write(&path, "{not json").unwrap();
        let err = read_json::<Vec<u32>>(&path).unwrap_err();
        assert!(format!("{err:#}").contains("sources.json is damaged"), "{err:#}");
        assert_eq!(read_json::<Vec<u32>>(&dir.path().join("missing.json")).unwrap(), None);
    }
}
