//! Loading the prompt templates: the user's own file from the configuration directory when
//! there is one, else the embedded text.

use std::path::Path;

use anyhow::{Context, Result};

use crate::core::templates::embedded;

/// The template `name` (`read_path.md`, `stage_one_system.md`, ...).
pub(crate) fn load(config_dir: Option<&Path>, name: &str) -> Result<String> {
    if let Some(dir) = config_dir {
        let custom = dir.join(name);
        match std::fs::read_to_string(&custom) {
            Ok(text) => return Ok(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("cannot read the template {}", custom.display())),
        }
    }
    embedded(name).map(str::to_string).with_context(|| format!("no template named {name}"))
}
