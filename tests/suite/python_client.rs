//! scripts/uci_client.py, the standard-library Python client of protocol.md
//! ("Scripts in Python"), driving the built binary: a short game whose moves
//! are all legal, and one search's `info` lines; and scripts/depth_probe.py,
//! built on it: the mean depth of fixed-node searches, and a refused option.

use cubist::{Position, Variant};
use std::process::Command;

use crate::common::CUBIST;

/// Runs `scripts/<script>` with `--engine` the built binary and `args`.
fn script(script: &str, args: &[&str]) -> std::process::Output {
    Command::new("python3")
        .arg(format!("{}/scripts/{script}", env!("CARGO_MANIFEST_DIR")))
        .arg("--engine")
        .arg(CUBIST)
        .args(args)
        .output()
        .expect("python3 runs (CI installs it)")
}

fn client(args: &[&str]) -> String {
    let o = script("uci_client.py", args);
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

#[test]
fn the_depth_probe_reports_each_positions_depth_and_refuses_unknown_options() {
    let o = script("depth_probe.py", &["--variant", "haberkorn", "--nodes", "3000", "--count", "3", "Hash=8"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.starts_with("Hash=8: 3 positions, 3000 nodes, mean depth "), "{out}");
    let list = out.trim().rsplit_once("depths [").and_then(|(_, l)| l.strip_suffix(']')).expect("a depth list");
    let depths: Vec<u32> = list.split(", ").map(|d| d.parse().expect("a depth")).collect();
    assert_eq!(depths.len(), 3, "{out}");
    assert!(depths.iter().all(|&d| d >= 1), "{out}");
    let o = script("depth_probe.py", &["--count", "1", "no_such_option=1"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown option"), "{}", String::from_utf8_lossy(&o.stderr));
}
