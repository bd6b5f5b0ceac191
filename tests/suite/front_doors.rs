//! One default for haberkorn's setup layers, whichever door a user comes in
//! by: the command line, UCI and the data reader build the start positions
//! of `tests/data/haberkorn_starts.txt` for every layer count, as the rules
//! library does (the GUI's door is tested in `tests/suite/gui`, the Python
//! package's in `python/tests`).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use cubist::core::{HABERKORN_LAYERS, Position, Variant};
use cubist::learn::data::{GameData, decode_game};

use crate::common::CUBIST;

/// The file's start positions: (layers, 3D-FEN).
fn starts() -> Vec<(u8, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/haberkorn_starts.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let starts: Vec<(u8, String)> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (layers, fen) = l.split_once(" ; ").unwrap();
            (layers.parse().unwrap(), fen.to_string())
        })
        .collect();
    assert_eq!(starts.iter().map(|s| s.0).collect::<Vec<_>>(), HABERKORN_LAYERS.collect::<Vec<_>>());
    starts
}

/// The rules library's variant for `layers` with every default.
fn default_variant(layers: u8) -> Variant {
    Variant::haberkorn_from(layers, None, None, false, false).unwrap()
}

#[test]
fn the_rules_library_builds_the_files_start_positions() {
    for (layers, fen) in starts() {
        assert_eq!(Position::start(default_variant(layers)).fen(), fen, "{layers} layers");
    }
}

#[test]
fn the_command_line_builds_the_rules_default() {
    for (layers, _) in starts() {
        let out = Command::new(CUBIST)
            .args(["perft", "1", "--variant", "haberkorn", "--layers", &layers.to_string()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        // `cubist perft` names the variant with its setup layers.
        let expected = format!("{} perft(1)", default_variant(layers));
        assert!(out.status.success() && stderr.contains(&expected), "{layers} layers: {stderr} (not {expected})");
    }
}

#[test]
fn uci_position_startpos_builds_the_files_start_positions() {
    for (layers, fen) in starts() {
        let mut child = Command::new(CUBIST).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        let script = format!(
            "setoption name UCI_Variant value haberkorn\nsetoption name HaberkornLayers value {layers}\n\
             position startpos\nd\nquit\n"
        );
        child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.lines().any(|l| l == format!("Fen: {fen}")), "{layers} layers:\n{stdout}");
    }
}

#[test]
fn the_data_reader_reads_back_each_start_position() {
    for (layers, fen) in starts() {
        let game = GameData { index: 7, start: Position::start(default_variant(layers)), plies: vec![], result: 0.5 };
        let mut bytes = Vec::new();
        game.encode(&mut bytes);
        let back = decode_game(&bytes[4..]).unwrap();
        assert_eq!((back.start.fen(), *back.start.variant()), (fen, default_variant(layers)), "{layers} layers");
    }
}
