//! scripts/uci_client.py, the standard-library Python client of protocol.md
//! ("Scripts in Python"), driving the built binary: a short game whose moves
//! are all legal, and one search's `info` lines.

use cubist::{Position, Variant};
use std::process::Command;

fn client(args: &[&str]) -> String {
    let o = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/uci_client.py"))
        .arg("--engine")
        .arg(env!("CARGO_BIN_EXE_cubist"))
        .args(args)
        .output()
        .expect("python3 runs (CI installs it)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn the_python_client_plays_a_legal_haberkorn_game() {
    let out = client(&["--variant", "haberkorn", "--plies", "6", "--depth", "2"]);
    let mut lines = out.lines();
    assert!(lines.next().unwrap().contains(", haberkorn, depth 2"), "{out}");
    let mut pos = Position::start(Variant::haberkorn());
    let mut plies = 0;
    for (i, line) in lines.enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[0], (i + 1).to_string(), "{out}");
        pos.play(words[1]).unwrap_or_else(|e| panic!("{line}: {e}\n{out}"));
        assert!(matches!(words[2], "cp" | "mate"), "{out}");
        plies += 1;
    }
    assert_eq!(plies, 6, "{out}");
}

#[test]
fn the_python_client_shows_a_searchs_info_lines() {
    let out = client(&["--analyse", "--depth", "3"]);
    let infos = out.lines().filter(|l| l.starts_with("info depth ")).count();
    assert!(infos >= 3, "{out}");
    let last = out.lines().last().unwrap();
    let best = last.strip_prefix("bestmove ").unwrap().split_whitespace().next().unwrap();
    assert!(Position::start(Variant::hdc()).parse_move(best).is_ok(), "{out}");
}
