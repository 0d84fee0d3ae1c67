//! Generated documentation stays fresh: the man page is rebuilt from the flag definitions
//! and compared with the committed one.

use std::path::Path;

use clap::CommandFactory;

fn render_man_page() -> String {
    let command = handbook::cli::Cli::command();
    let mut out = Vec::new();
    clap_mangen::Man::new(command).render(&mut out).unwrap();
    let mut page = String::from_utf8(out).unwrap();
    for sub in handbook::cli::Cli::command().get_subcommands() {
        let mut out = Vec::new();
        // clap wants a 'static name; a test can afford to leak a few bytes.
        let name: &'static str = Box::leak(format!("handbook-{}", sub.get_name()).into_boxed_str());
        clap_mangen::Man::new(sub.clone().name(name)).render(&mut out).unwrap();
        page.push_str(&String::from_utf8(out).unwrap());
    }
    page
}

#[test]
fn the_man_page_is_fresh() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("man/handbook.1");
    let fresh = render_man_page();
    if std::env::var_os("UPDATE_MAN").is_some() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "man/handbook.1 is stale: run `UPDATE_MAN=1 cargo test --test integration the_man_page_is_fresh`"
    );
}

#[test]
fn the_cli_definition_is_consistent() {
    handbook::cli::Cli::command().debug_assert();
}
