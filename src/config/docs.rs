//! The documentation made from the settings table: the man page's ENVIRONMENT section and
//! the README's configuration section. Tests compare them with the committed files.

use crate::config::table::{ALL, OTHER_VARIABLES, Spec, TEST_ONLY};

/// Text made safe for roff: backslashes and hyphens escaped.
fn roff(text: &str) -> String {
    text.replace('\\', "\\\\").replace('-', "\\-")
}

fn bold(text: &str) -> String {
    format!("\\fB{}\\fR", roff(text))
}

/// The settings the docs describe: all but the test suite's own.
fn specs() -> impl Iterator<Item = Spec> {
    ALL.iter().map(|s| s.spec()).filter(|s| !TEST_ONLY.contains(&s.name))
}

/// Every key the config file takes, for the man page's FILES section, roff-escaped.
pub fn man_config_keys() -> String {
    roff(&specs().filter_map(|s| s.key).collect::<Vec<_>>().join(", "))
}

/// Where else a setting is set and what applies without it, as one sentence: names set with
/// `code`, words with `plain`.
fn twins(spec: &Spec, code: impl Fn(&str) -> String, plain: impl Fn(&str) -> String) -> String {
    let mut parts = Vec::new();
    if let Some(flag) = spec.flag {
        parts.push(format!("flag {}", code(flag)));
    }
    if let Some(key) = spec.key {
        parts.push(format!("config key {}", code(key)));
    }
    let mut sentence = parts.join(", ");
    if !sentence.is_empty() {
        sentence.push_str("; ");
    }
    sentence.push_str("default: ");
    sentence.push_str(&plain(spec.default));
    sentence
}

/// The man page's ENVIRONMENT section: every variable handbook reads.
pub fn man_environment() -> String {
    let mut out = String::from(".SH ENVIRONMENT\n");
    out.push_str(
        "A flag wins over its variable, which wins over the config file, which wins over the default. \
         An empty variable counts as unset.\n",
    );
    for spec in specs() {
        let Some(env) = spec.env else { continue };
        out.push_str(&format!(".TP\n{}\n", bold(env)));
        out.push_str(&format!("{}; {}.", roff(spec.help), twins(&spec, bold, roff)));
        if let Some(old) = spec.old {
            out.push_str(&format!(" {}, its old name, is still read, with a warning.", bold(old.env)));
        }
        out.push('\n');
    }
    for variable in OTHER_VARIABLES {
        out.push_str(&format!(".TP\n{}\n{}.\n", bold(variable.name), roff(variable.help)));
    }
    out
}

/// The body of the README's "## Configuration" section.
pub fn readme_configuration() -> String {
    let code = |text: &str| format!("`{text}`");
    let mut out = String::from(
        "Flags win over `HANDBOOK_*` variables, which win over the config file\n\
         (`--config`, `HANDBOOK_CONFIG`, or `$XDG_CONFIG_HOME/handbook/config.toml`), which wins\n\
         over the defaults. An unknown key in the file is an error that names the key meant\n\
         after a typo (`unknown key \"min_idle_hour\" (did you mean \"min_idle_hours\"?)`), and\n\
         so is a value out of bounds, with where it came from: `--wait 7200: …`,\n\
         `HANDBOOK_MAX_RETRIES=50: …`, `lock_wait_seconds in ~/.config/handbook/config.toml: …`.\n\n\
         `handbook config` prints every setting in effect and where it came from (a flag, a\n\
         variable, a key of the config file, or the default); with `--json`, one `setting`\n\
         object per line. An API key is never printed: only the variable that holds it, and\n\
         whether it is set.\n\n",
    );
    out.push_str("| config key | variable | flag | default | what it sets |\n|---|---|---|---|---|\n");
    for spec in specs() {
        let cell = |text: Option<&str>| text.map(code).unwrap_or_default();
        let mut help = spec.help.replace('|', "\\|");
        if let Some(old) = spec.old {
            help.push_str(&format!(" (old names `{}`, `{}`: still read, with a warning)", old.key, old.env));
        }
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            cell(spec.key),
            cell(spec.env),
            cell(spec.flag),
            spec.default,
            help
        ));
    }
    out.push_str("\nAlso read:\n\n");
    for variable in OTHER_VARIABLES {
        out.push_str(&format!("- `{}`: {}.\n", variable.name, variable.help));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variable_of_the_table_is_in_the_docs() {
        let (man, readme) = (man_environment(), readme_configuration());
        for spec in specs() {
            for env in spec.env.into_iter().chain(spec.old.map(|o| o.env)) {
                assert!(man.contains(&bold(env)), "{env} is not in the man page");
                assert!(readme.contains(&format!("`{env}`")), "{env} is not in the README");
            }
        }
        assert!(!man.contains("HANDBOOK_FAULT") && !readme.contains("HANDBOOK_FAULT"));
    }

    #[test]
    fn the_test_suite_s_own_settings_stay_out_of_the_docs() {
        let (man, readme) = (man_environment(), readme_configuration());
        for variable in ["HANDBOOK_NOW", "HANDBOOK_FAULT"] {
            assert!(!man.contains(variable) && !readme.contains(variable), "{variable} is documented");
        }
        assert!(man_config_keys().contains("max_retries") && !man_config_keys().contains("now"));
    }
}
