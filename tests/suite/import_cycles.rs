//! `scripts/import_cycles.py`, the check of docs/design.md's "no import
//! circles": it finds a circle of three files that no pair shows, does not
//! mistake an inline module's `super::` for its file's parent, and finds
//! none in `src/`.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::Scratch;

/// Runs the script on the source tree at `src`.
fn check(src: &Path) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/import_cycles.py");
    Command::new("python3").arg(script).arg(src).output().expect("python3 runs")
}

#[test]
fn a_circle_of_three_files_is_found_and_an_inline_module_is_not_one() {
    let dir = Scratch::new("import-cycles");
    let files = [
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\npub mod d;\npub mod e;\n"),
        ("a.rs", "use crate::b::B;\npub struct A;\n"),
        ("b.rs", "pub struct B(pub crate::c::C);\n"),
        ("c.rs", "use crate::{a::A, d::D};\npub struct C;\n"),
        // `super::` inside an inline module names d.rs itself, not lib.rs.
        ("d.rs", "pub struct D;\nmod inner {\n    use super::D;\n}\n"),
        // e.rs imports a.rs, which never imports it back.
        ("e.rs", "use crate::a::A;\n"),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let out = check(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("3 files reach each other: a.rs, b.rs, c.rs\n"), "{stdout}");
    assert!(stdout.contains("a.rs -> b.rs -> c.rs -> a.rs"), "{stdout}");
    assert_eq!(stdout.lines().count(), 2, "one circle only: {stdout}");

    // Without c.rs's import of a.rs the tree is a line.
    std::fs::write(dir.join("c.rs"), "use crate::d::D;\npub struct C;\n").unwrap();
    let out = check(&dir);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn the_engines_source_has_no_import_circle() {
    let out = check(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}
