//! `cubist perft` as scripts use it: Stockfish's output layout on stdout.

use std::process::Command;

use crate::common::CUBIST;

fn cubist(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(CUBIST).args(args).output().expect("run cubist");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn divide_lists_every_root_move_and_the_total() {
    let (ok, out, err) = cubist(&["perft", "2", "--divide"]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let moves: Vec<&str> = lines.iter().copied().filter(|l| l.contains(": ") && !l.starts_with("Nodes")).collect();
    assert_eq!(moves.len(), 242);
    let sum: u64 = moves.iter().map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap()).sum();
    assert_eq!(sum, 58564);
    assert!(moves.contains(&"e2-IVe4-IV: 242") || moves.iter().any(|l| l.starts_with("e2-IVe4-IV: ")));
    assert_eq!(*lines.last().unwrap(), "Nodes searched: 58564");
    assert!(err.contains("nodes/second"), "{err}");
}

#[test]
fn haberkorn_options_and_fen() {
    let (ok, out, _) = cubist(&["perft", "2", "--variant", "haberkorn"]);
    assert!(ok);
    assert_eq!(out.trim(), "Nodes searched: 42628");
    let (ok, out, _) =
        cubist(&["perft", "1", "--variant", "haberkorn", "--layers", "3", "--white-layer", "1", "--black-layer", "3"]);
    assert!(ok);
    let n: u64 = out.trim().trim_start_matches("Nodes searched: ").parse().unwrap();
    assert!(n > 20, "{out}");
    let fen = "8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/PPPPPPPP/RNBQKBNR|rnbqkbnr/pppppppp/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8 w - - 0 1";
    let (ok, out, _) = cubist(&["perft", "1", "--variant", "haberkorn", "--fen", fen]);
    assert!(ok);
    assert_eq!(out.trim(), "Nodes searched: 208");
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    for args in [
        &["perft", "2", "--fen", "not a fen"][..],
        &["perft", "2", "--variant", "haberkorn", "--layers", "3", "--white-layer", "7"],
        &["perft", "2", "--variant", "chess"],
        &["perft", "-1"],
        &["perft"],
    ] {
        let (ok, out, err) = cubist(args);
        assert!(!ok, "{args:?} succeeded: {out}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.is_empty());
    }
    let (ok, out, _) = cubist(&["perft", "0", "--divide"]);
    assert!(ok);
    assert_eq!(out.trim(), "Nodes searched: 1");
}

/// Issue 12: `perft --layers 3` without `--variant haberkorn` silently ran
/// hdc; and stderr named the option's layer count, not the FEN's.
#[test]
fn haberkorn_options_need_the_variant_and_stderr_names_the_fens_board() {
    for flag in [&["--layers", "3"][..], &["--white-layer", "2"], &["--en-passant"], &["--castling"]] {
        let mut args = vec!["perft", "1"];
        args.extend_from_slice(flag);
        let (ok, _, err) = cubist(&args);
        assert!(!ok, "{flag:?} without --variant haberkorn was accepted");
        assert!(err.contains("--variant haberkorn"), "{err}");
    }
    let fen = "8/8/8/8/8/8/8/4K3|8/8/8/8/8/8/8/8|4k3/8/8/8/8/8/8/8 w - - 0 1";
    let (ok, _, err) = cubist(&["perft", "1", "--variant", "haberkorn", "--fen", fen]);
    assert!(ok, "{err}");
    assert!(err.contains("3 layers"), "stderr names the FEN's board: {err}");
}

/// On 3 or 4 layers the setup layers default to the middle (II and III);
/// a layer off the board is named as `--white-layer`/`--black-layer`.
#[test]
fn small_haberkorn_boards_default_to_the_middle_layers() {
    for layers in ["3", "4"] {
        let (ok, out, err) = cubist(&["perft", "2", "--variant", "haberkorn", "--layers", layers]);
        assert!(ok, "{layers} layers: {err}");
        let explicit = ["--white-layer", "2", "--black-layer", "3"];
        let (ok, same, _) =
            cubist(&[&["perft", "2", "--variant", "haberkorn", "--layers", layers][..], &explicit[..]].concat());
        assert!(ok);
        assert_eq!(out, same, "{layers} layers");
    }
    let (ok, _, err) = cubist(&["perft", "1", "--variant", "haberkorn", "--layers", "3", "--white-layer", "7"]);
    assert!(!ok);
    assert!(err.contains("--white-layer 7 is not on a board of 3 layers"), "{err}");
    assert!(err.contains("--white-layer/--black-layer from 1 to 3"), "{err}");
}
