//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

/// The repository's `fixtures/` folder.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A workspace and a user home, both temporary, and a way to run handbook in them.
pub struct Handbook {
    pub home: TempDir,
    pub user: TempDir,
}

impl Handbook {
    pub fn new() -> Handbook {
        Handbook { home: tempfile::tempdir().unwrap(), user: tempfile::tempdir().unwrap() }
    }

    /// `handbook --home <home>` with nothing from the real environment but PATH.
    pub fn cmd(&self) -> Command {
        Command::from_std(self.process())
    }

    /// The same, as a process to spawn and signal while it runs.
    pub fn process(&self) -> std::process::Command {
        self.process_of(Path::new(env!("CARGO_BIN_EXE_handbook")))
    }

    /// The same with another copy of the binary.
    pub fn process_of(&self, binary: &Path) -> std::process::Command {
        let mut cmd = std::process::Command::new(binary);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.user.path())
            .env("XDG_CONFIG_HOME", self.user.path().join(".config"))
            .env("XDG_DATA_HOME", self.user.path().join(".local/share"))
            .arg("--home")
            .arg(self.home.path());
        cmd
    }

    /// `update --all` on `source` at the tests' fixed time, keeping sessions of any age: the
    /// run's output.
    pub fn update_output(&self, source: &Path) -> std::process::Output {
        self.cmd()
            .env("HANDBOOK_NOW", NOW)
            .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
            .args(["update", "--all"])
            .arg(source)
            .output()
            .unwrap()
    }

    /// The same, which must succeed; its stderr.
    pub fn update(&self, source: &Path) -> String {
        let output = self.update_output(source);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{stderr}");
        stderr
    }

    /// Run `extract --all --json` on `sources` plus `extra` arguments; the JSON lines.
    pub fn extract_json(&self, sources: &[&Path], extra: &[&str]) -> Vec<Value> {
        let output = self.cmd().arg("--json").arg("extract").arg("--all").args(extra).args(sources).output().unwrap();
        assert!(output.status.success(), "extract failed: {}", String::from_utf8_lossy(&output.stderr));
        json_lines(&output.stdout)
    }

    pub fn state(&self) -> PathBuf {
        self.home.path().join(".handbook")
    }

    /// The stored stage-1 record of a session.
    pub fn stage1(&self, session_id: &str) -> Option<Value> {
        let path = self.state().join("stage1").join(handbook::core::stage1::file_name(session_id));
        let text = std::fs::read_to_string(path).ok()?;
        Some(serde_json::from_str(&text).unwrap())
    }

    /// The state as handbook reads it: `sources.json` with its journal, `sources.log`,
    /// replayed (the lines written on top of this very snapshot).
    pub fn sources(&self) -> Value {
        let bytes = std::fs::read(self.state().join("sources.json")).unwrap();
        let mut state: Value = serde_json::from_slice(&bytes).unwrap();
        let base = blake3::hash(&bytes).to_hex()[..16].to_string();
        let log = std::fs::read_to_string(self.state().join("sources.log")).unwrap_or_default();
        for line in log.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()) {
            if line["base"] != base.as_str() {
                continue;
            }
            let change = &line["change"];
            if let Some(set) = change.get("set") {
                let key = set["key"].as_str().unwrap();
                match set["member"].as_str() {
                    Some(member) => state["members"][key][member] = set["entry"].clone(),
                    None => state["sources"][key] = set["entry"].clone(),
                }
            } else if let Some(remove) = change.get("remove") {
                let key = remove["key"].as_str().unwrap();
                match remove["member"].as_str() {
                    Some(member) => drop(state["members"][key].as_object_mut().unwrap().remove(member)),
                    None => drop(state["sources"].as_object_mut().unwrap().remove(key)),
                }
            } else if let Some(extracted) = change.get("extracted") {
                state["last_extract"] = extracted["at"].clone();
            }
        }
        state
    }

    /// Every file under the workspace, with its contents as text.
    pub fn every_file(&self) -> Vec<(PathBuf, String)> {
        walkdir::WalkDir::new(self.home.path())
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| (e.path().to_path_buf(), String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned()))
            .collect()
    }

    /// Panic when `needle` appears in any file under the workspace.
    pub fn assert_nowhere(&self, needle: &str) {
        for (path, text) in self.every_file() {
            assert!(!text.contains(needle), "{needle:?} found in {}", path.display());
        }
    }
}

/// The clock the fixture runs use.
pub const NOW: &str = "2026-11-29T12:00:00Z";

/// All fixtures copied to a private folder and run through `update --all` (extract and
/// consolidate, nothing aged out); the handbook and the copy.
pub fn handbook_of_fixtures() -> (Handbook, TempDir) {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures(), dir.path());
    let hb = Handbook::new();
    let output = hb
        .cmd()
        .env("HANDBOOK_NOW", NOW)
        .env("HANDBOOK_MAX_UNUSED_DAYS", "3650")
        .args(["update", "--all"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    (hb, dir)
}

/// Parse stdout as one JSON object per line.
pub fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8(stdout.to_vec())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect()
}

/// The `session` objects of a JSON run.
pub fn sessions(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l["type"] == "session").map(|l| &l["data"]).collect()
}

/// The coverage object of a JSON run's totals.
pub fn coverage(lines: &[Value]) -> &Value {
    &lines.iter().find(|l| l["type"] == "totals").expect("a totals object")["data"]["coverage"]
}

/// Copy a folder tree.
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).into_iter().filter_map(Result::ok) {
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
