//! The endgame tables (`cubist::tb`): generated on haberkorn's smallest
//! board (3 layers, where a three-piece table takes seconds), each checked
//! against the engine's own moves, the brute-force mate prover and the
//! board's symmetries.

use cubist::core::tactics::mate_within;
use cubist::core::{Position, Variant, VariantKind};
use cubist::tb::cube::CubeMap;
use cubist::tb::{Material, Table, TableFileError, Value};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::sync::OnceLock;

const LAYERS: u8 = 3;

/// Haberkorn's king and queen against a king on 3 layers, generated once for every test.
fn kqk() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let m = Material::parse("KQvK", VariantKind::Haberkorn).unwrap();
        Table::generate(VariantKind::Haberkorn, LAYERS, &m).unwrap()
    })
}

/// The 3D-FEN of `pieces` (letter, square index) on `layers` layers.
fn fen(pieces: &[(char, usize)], layers: u8, white_to_move: bool) -> String {
    let mut board = vec![None; 64 * layers as usize];
    for &(c, s) in pieces {
        board[s] = Some(c);
    }
    let layer_text = |z: usize| {
        (0..8)
            .rev()
            .map(|y| {
                let mut rank = String::new();
                let mut empty = 0;
                for x in 0..8 {
                    match board[z * 64 + y * 8 + x] {
                        Some(c) => {
                            if empty > 0 {
                                rank.push_str(&empty.to_string());
                                empty = 0;
                            }
                            rank.push(c);
                        }
                        None => empty += 1,
                    }
                }
                if empty > 0 {
                    rank.push_str(&empty.to_string());
                }
                rank
            })
            .collect::<Vec<_>>()
            .join("/")
    };
    let layers_text: Vec<String> = (0..layers as usize).map(layer_text).collect();
    format!("{} {} - - 0 1", layers_text.join("|"), if white_to_move { "w" } else { "b" })
}

/// Pieces as (FEN letter, square index).
type Placement = Vec<(char, usize)>;

/// Random legal KQvK positions on 3 layers: (the pieces, White to move?, the position).
fn random_positions(seed: u64, count: usize) -> Vec<(Placement, bool, Position)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let variant = Variant::haberkorn_from(LAYERS, None, None, false, false).unwrap();
    let n = 64 * LAYERS as usize;
    let mut out = Vec::new();
    while out.len() < count {
        let squares: Vec<usize> = (0..3).map(|_| rng.random_range(0..n)).collect();
        if squares[0] == squares[1] || squares[0] == squares[2] || squares[1] == squares[2] {
            continue;
        }
        let pieces = vec![('K', squares[0]), ('k', squares[1]), ('Q', squares[2])];
        let white = rng.random_bool(0.5);
        if let Ok(pos) = Position::from_fen(&fen(&pieces, LAYERS, white), variant) {
            out.push((pieces, white, pos));
        }
    }
    out
}

#[test]
fn a_table_agrees_with_the_moves_of_its_positions() {
    let t = kqk();
    // Every position of the compact index, of which every position is a symmetric image.
    let checked = t.verify(1).unwrap();
    assert!(checked > 1_000_000, "{checked} positions checked");
    let s = t.stats();
    assert_eq!(s.wins[0], s.positions[0], "White to move always wins");
    assert_eq!(s.wins[1], 0, "the lone king never wins");
    assert_eq!(s.longest.as_ref().map(|(d, _)| *d), Some(28));
    // The table's longest mate, set up from its FEN, has that value.
    let (d, fen) = s.longest.unwrap();
    let pos = Position::from_fen(&fen, Variant::haberkorn_from(LAYERS, None, None, false, false).unwrap()).unwrap();
    assert_eq!(t.probe(&pos), Some(Value::Mate(d)));
}

#[test]
fn short_mates_agree_with_the_brute_force_prover() {
    let t = kqk();
    let (mut wins, mut draws) = (0, 0);
    for (_, _, mut pos) in random_positions(73, 4000) {
        let value = t.probe(&pos).expect("a KQvK position");
        let mut nodes = 0;
        match value {
            Value::Mate(d) if d % 2 == 1 && d <= 5 && wins < 40 => {
                let moves = u32::from(d).div_ceil(2);
                assert!(mate_within(&mut pos, moves, &mut nodes), "{}: mate in {moves}", pos.fen());
                assert!(!mate_within(&mut pos, moves - 1, &mut nodes), "{}: no mate in {}", pos.fen(), moves - 1);
                wins += 1;
            }
            Value::Draw if draws < 20 => {
                assert!(!mate_within(&mut pos, 2, &mut nodes), "{}: a draw has no mate in 2", pos.fen());
                draws += 1;
            }
            _ => {}
        }
    }
    assert!(wins >= 20 && draws >= 5, "{wins} short wins and {draws} draws compared");
}

#[test]
fn symmetric_positions_have_the_same_value() {
    let t = kqk();
    let variant = Variant::haberkorn_from(LAYERS, None, None, false, false).unwrap();
    let maps = CubeMap::pawnless(VariantKind::Haberkorn, LAYERS);
    for (pieces, white, pos) in random_positions(7, 300) {
        let value = t.probe(&pos);
        for m in &maps {
            let image: Placement = pieces
                .iter()
                .map(|&(c, s)| (c, m.square(cubist::core::Square::from_index(s).unwrap(), LAYERS).index()))
                .collect();
            let mapped = Position::from_fen(&fen(&image, LAYERS, white), variant).unwrap();
            assert_eq!(mapped.legal_moves().len(), pos.legal_moves().len(), "{m:?} keeps the moves");
            assert_eq!(t.probe(&mapped), value, "{m:?} of {}", pos.fen());
        }
    }
}

#[test]
fn kings_alone_and_wrong_positions() {
    for (kind, layers) in [(VariantKind::Hdc, 8), (VariantKind::Haberkorn, 5)] {
        let t = Table::generate(kind, layers, &Material::parse("KvK", kind).unwrap()).unwrap();
        let s = t.stats();
        assert_eq!((s.wins, s.losses, s.longest), ([0, 0], [0, 0], None), "{kind}: no mate");
        // Two kings on n squares, not touching: the same count with either side to move.
        let n = 64 * layers as u64;
        assert_eq!(s.positions[0], s.positions[1]);
        assert!(s.positions[0] < n * (n - 1) && s.positions[0] > n * (n - 27));
        assert!(t.verify(1).unwrap() > 0);
    }
    // A position of another ending, game or board is not this table's.
    let t = kqk();
    assert_eq!(t.probe(&Position::start(Variant::haberkorn())), None);
    let rook = random_positions(1, 1)[0].2.fen().replace('Q', "R");
    let variant = Variant::haberkorn_from(LAYERS, None, None, false, false).unwrap();
    assert_eq!(t.probe(&Position::from_fen(&rook, variant).unwrap()), None);
}

#[test]
fn a_table_file_reads_back_and_damage_is_refused() {
    let t = kqk();
    let dir = tempfile::tempdir().unwrap();
    let path = t.save(dir.path()).unwrap();
    assert_eq!(path.file_name().unwrap(), "haberkorn3-KQvK.cbtb");
    let back = Table::load(&path).unwrap();
    assert_eq!(back.stats(), t.stats());
    for (_, _, pos) in random_positions(5, 200) {
        assert_eq!(back.probe(&pos), t.probe(&pos));
    }
    // The material of a position names its table.
    let pos = &random_positions(9, 1)[0].2;
    assert_eq!(Material::of_position(pos).unwrap().to_string(), "KQvK");
    assert!(Material::of_position(&Position::start(Variant::haberkorn())).is_err());
    // A flipped byte, a cut file, another format, a missing file: clear errors.
    let bytes = std::fs::read(&path).unwrap();
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 1;
    let damaged = dir.path().join("damaged.cbtb");
    std::fs::write(&damaged, &flipped).unwrap();
    assert!(matches!(Table::load(&damaged), Err(TableFileError::Checksum(_))));
    std::fs::write(&damaged, &bytes[..bytes.len() - 100]).unwrap();
    assert!(Table::load(&damaged).is_err());
    std::fs::write(&damaged, b"not a table at all").unwrap();
    assert!(matches!(Table::load(&damaged), Err(TableFileError::Format(..))));
    let missing = Table::load(&dir.path().join("none.cbtb")).err().unwrap();
    assert!(matches!(missing, TableFileError::Io(..)) && missing.to_string().contains("none.cbtb"));
}
