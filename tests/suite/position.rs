//! Make/unmake, Zobrist keys, FEN round trips and game states over random
//! playouts in every variant.

use cubist::core::{Color, GameState, Move, MoveFlag, Position, Variant};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;

fn variants() -> Vec<Variant> {
    let mut v = vec![Variant::hdc(), Variant::haberkorn()];
    for (layers, w, b, ep, castling) in
        [(3, 1, 3, true, true), (4, 2, 2, true, false), (5, 1, 5, false, true), (8, 8, 1, true, true)]
    {
        v.push(Variant::haberkorn_with(layers, w, b, ep, castling).unwrap());
    }
    v
}

/// Plays `plies` random legal moves, checking at every step that the
/// incremental key and line occupancy equal those from scratch, that the
/// FEN reads back to the same position and that no move leaves the mover's
/// king attacked; then takes every move back and checks that the start is
/// restored exactly.
fn playout(start: &Position, plies: usize, rng: &mut StdRng) -> usize {
    let mut pos = start.clone();
    let mut stack: Vec<(Move, cubist::core::Undo, Position)> = Vec::new();
    for _ in 0..plies {
        let moves = pos.legal_moves();
        assert_eq!(moves.len() as u64, pos.count_legal());
        let Some(&m) = moves.choose(rng) else { break };
        let before = pos.clone();
        let undo = pos.make(m);
        let mover = !pos.side_to_move();
        assert!(!pos.is_attacked(pos.king(mover), pos.side_to_move()), "{m:?} leaves the king attacked in {before:?}");
        assert_eq!(pos.key(), pos.compute_key(), "incremental key after {m:?} from {before:?}");
        assert!(pos.lines_agree(), "line occupancy after {m:?} from {before:?}");
        let reread = Position::from_fen(&pos.fen(), *pos.variant()).unwrap_or_else(|e| panic!("{}: {e}", pos.fen()));
        assert_eq!(reread.fen(), pos.fen());
        assert_eq!(reread.key(), pos.key(), "key of the re-read FEN {}", pos.fen());
        stack.push((m, undo, before));
        if pos.game_state().is_over() {
            break;
        }
    }
    let n = stack.len();
    while let Some((m, undo, before)) = stack.pop() {
        pos.unmake(m, &undo);
        assert_eq!(pos, before, "unmake of {m:?}");
    }
    assert_eq!(&pos, start);
    n
}

#[test]
fn random_playouts_restore_everything_in_every_variant() {
    let mut rng = StdRng::seed_from_u64(20261129);
    let mut total = 0;
    for variant in variants() {
        let start = Position::start(variant);
        for _ in 0..12 {
            total += playout(&start, 120, &mut rng);
        }
    }
    assert!(total > 3000, "only {total} plies played");
}

/// `key_after`, the table prefetch's guess of the child's key, is the key
/// `make` gives for every normal move that changes no castling right and
/// leaves no en-passant state, over every legal move of random games; and
/// those are most moves (about 89% here: early in a game many moves still
/// change castling rights or double-step a pawn).
#[test]
fn key_after_is_the_key_of_most_moves() {
    let mut rng = StdRng::seed_from_u64(20261201);
    let (mut exact, mut other) = (0u64, 0u64);
    for variant in variants() {
        for _ in 0..4 {
            let mut pos = Position::start(variant);
            for _ in 0..80 {
                let moves = pos.legal_moves();
                for &m in moves.iter() {
                    let guess = pos.key_after(m);
                    let rights = pos.castling_rights();
                    let undo = pos.make(m);
                    let simple =
                        m.flag() == MoveFlag::Normal && pos.castling_rights() == rights && pos.en_passant().is_none();
                    if simple {
                        assert_eq!(guess, pos.key(), "key_after({m:?}) in {}", pos.fen());
                        exact += 1;
                    } else {
                        other += 1;
                    }
                    pos.unmake(m, &undo);
                }
                let Some(&m) = moves.choose(&mut rng) else { break };
                pos.make(m);
                if pos.game_state().is_over() {
                    break;
                }
            }
        }
    }
    assert!(exact > 5 * other, "{exact} moves guessed exactly, {other} others");
}

#[test]
fn random_playouts_from_the_perft_vectors() {
    let text = include_str!("../data/public.vec");
    let mut rng = StdRng::seed_from_u64(7);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let parts: Vec<&str> = line.split(';').map(str::trim).collect();
        let layers = parts[1].split('|').count() as u8;
        let variant = Variant::from_spec(parts[0], layers).unwrap();
        let start = Position::from_fen(parts[1], variant).unwrap();
        for _ in 0..3 {
            playout(&start, 40, &mut rng);
        }
    }
}

#[test]
fn fen_round_trips_for_start_positions() {
    for variant in variants() {
        let fen = variant.start_fen();
        let pos = Position::from_fen(&fen, variant).unwrap();
        assert_eq!(pos.fen(), fen);
    }
}

#[test]
fn en_passant_state_after_double_steps() {
    let mut hdc = Position::start(Variant::hdc());
    hdc.play("e2-IVe4-IV").unwrap();
    assert!(hdc.fen().contains(" b KQLUkqlu e3-IV 0 1"), "{}", hdc.fen());
    // A haberkorn stair double step passes over one square on another layer: the pawn's square follows.
    let v = Variant::haberkorn_with(8, 4, 5, true, false).unwrap();
    let mut hab = Position::start(v);
    hab.play("e2-IVe4-VI").unwrap();
    assert!(hab.fen().contains(" b - e3-V:e4-VI 0 1"), "{}", hab.fen());
    // A two-path step with both paths free lists both squares.
    let mut hab = Position::start(v);
    hab.play("e2-IVe4-V").unwrap();
    assert!(hab.fen().contains(" b - e3-IV,e3-V:e4-V 0 1"), "{}", hab.fen());
    // Without the en-passant rule nothing is recorded.
    let mut plain = Position::start(Variant::haberkorn());
    plain.play("e2-IVe4-V").unwrap();
    assert!(plain.fen().contains(" b - - 0 1"), "{}", plain.fen());
}

/// A half-move clock at 65535 stays there (the fifty-move state is kept), and
/// 80,000 quiet plies do not wrap it; a full-move number stops at its ceiling.
#[test]
fn counters_saturate_instead_of_wrapping() {
    let v = Variant::haberkorn_with(3, 1, 3, false, false).unwrap();
    let fen = "8/8/8/8/8/8/8/R3K3|8/8/8/8/8/8/8/8|4k3/8/8/8/8/8/8/7r w - - 65535 5";
    let mut pos = Position::from_fen(fen, v).unwrap();
    pos.play("a1-Ia2-I").unwrap();
    assert_eq!(pos.halfmove_clock(), 65535);
    assert!(pos.fen().ends_with(" 65535 5"), "{}", pos.fen());
    let mut pos = Position::from_fen(&fen.replace(" 65535 5", " 0 1"), v).unwrap();
    let shuttle = ["a1-Ia2-I", "h1-IIIh2-III", "a2-Ia1-I", "h2-IIIh1-III"];
    for i in 0..80_000 {
        let _ = pos.make(pos.parse_move(shuttle[i % 4]).unwrap());
        pos.clear_history();
    }
    assert_eq!(pos.halfmove_clock(), 65535);
    assert_eq!(pos.fullmove_number(), 40_001);
}

#[test]
fn game_states() {
    let hab = Variant::haberkorn_with(3, 1, 1, false, false).unwrap();
    let empty = "8/8/8/8/8/8/8/8";
    let fen = |layers: [&str; 3], rest: &str| format!("{}|{}|{} {rest}", layers[0], layers[1], layers[2]);
    // Kings alone: dead material.
    let p = Position::from_fen(&fen(["k7/8/8/8/8/8/8/7K", empty, empty], "w - - 0 1"), hab).unwrap();
    assert_eq!(p.game_state(), GameState::DeadMaterial);
    // A knight more is still dead; so is a rook (the tables find no mate
    // in the ending, on 3 layers as on 8); a queen is not.
    let p = Position::from_fen(&fen(["k7/8/8/8/8/8/8/6NK", empty, empty], "w - - 0 1"), hab).unwrap();
    assert_eq!(p.game_state(), GameState::DeadMaterial);
    let p = Position::from_fen(&fen(["k7/8/8/8/8/8/8/6RK", empty, empty], "w - - 0 1"), hab).unwrap();
    assert_eq!(p.game_state(), GameState::DeadMaterial);
    let p = Position::from_fen(&fen(["k7/8/8/8/8/8/8/6QK", empty, empty], "w - - 0 1"), hab).unwrap();
    assert_eq!(p.game_state(), GameState::Ongoing);
    let rook8 = format!("k7/8/8/8/8/8/8/6RK{} w - - 0 1", "|8/8/8/8/8/8/8/8".repeat(7));
    let p = Position::from_fen(&rook8, Variant::haberkorn_with(8, 1, 1, false, false).unwrap()).unwrap();
    assert_eq!(p.game_state(), GameState::DeadMaterial);
    // Fifty moves.
    let p = Position::from_fen(&fen(["k7/8/8/8/8/8/8/6RK", empty, empty], "w - - 100 80"), hab).unwrap();
    assert_eq!(p.game_state(), GameState::FiftyMoves);
    // Threefold repetition by shuffling rooks.
    let mut p = Position::from_fen(&fen(["k7/8/8/8/8/8/8/n5NK", empty, empty], "w - - 0 1"), hab).unwrap();
    for _ in 0..2 {
        for m in ["g1-Ih3-I", "a1-Ib3-I", "h3-Ig1-I", "b3-Ia1-I"] {
            assert_eq!(p.game_state(), GameState::Ongoing);
            p.play(m).unwrap();
        }
    }
    assert_eq!(p.game_state(), GameState::Repetition);
}

#[test]
fn checkmate_and_stalemate_in_3d() {
    // Haberkorn, 3 layers: Black's king in the a8 corner of layer III is
    // checked up the a8 column by the queen on a8-I, which also covers the
    // squares of layer II; the queen on c7-III covers the rest of layer III.
    let hab = Variant::haberkorn_with(3, 1, 1, false, false).unwrap();
    let mate = "Q7/8/8/8/8/8/8/7K|8/8/8/8/8/8/8/8|k7/2Q5/8/8/8/8/8/8 b - - 0 1";
    let p = Position::from_fen(mate, hab).unwrap();
    assert!(p.in_check());
    assert_eq!(p.count_legal(), 0, "{:?}", p.legal_moves());
    assert_eq!(p.game_state(), GameState::Checkmate);
    assert_eq!(p.side_to_move(), Color::Black);
    // Without the check (queen moved off the column) it is stalemate.
    let stale = "1Q6/8/8/8/8/8/8/7K|8/8/8/8/8/8/8/8|k7/2Q5/8/8/8/8/8/8 b - - 0 1";
    let p = Position::from_fen(stale, hab).unwrap();
    assert!(!p.in_check());
    assert_eq!(p.game_state(), GameState::Stalemate, "{:?}", p.legal_moves());
}
