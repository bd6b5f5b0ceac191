//! Property tests of the board's symmetries (`cubist::core::Symmetry`):
//! on random positions of both games (haberkorn on 3 to 8 layers, any
//! setup layers, both options), every symmetry the game's rules keep maps
//! the legal moves onto the image's legal moves one to one, and keeps the
//! perft counts, the check and the game state; a map the rules do not keep
//! is refused. Positions with castling rights are tried as they are and
//! with the rights taken away (most maps need that). Case counts are small
//! (seconds in `cargo test --release`); `PROPTEST_CASES=1000` hunts longer.

use crate::common::variant;
use cubist::core::{Move, PieceKind, Position, Symmetry, Variant, VariantKind};
use cubist::perft::perft;
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use std::collections::BTreeSet;

fn config() -> ProptestConfig {
    ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() }
}

/// The position after up to `plies` random legal moves from `variant`'s start.
fn playout(variant: Variant, seed: u64, plies: usize) -> Position {
    let mut pos = Position::start(variant);
    let mut rng = StdRng::seed_from_u64(seed);
    for _ in 0..plies {
        if pos.game_state().is_over() {
            break;
        }
        let Some(&m) = pos.legal_moves().choose(&mut rng) else { break };
        pos.make(m);
    }
    pos
}

/// `pos` with its castling rights taken away (a legal position too).
fn without_castling(pos: &Position) -> Position {
    let fen = pos.fen();
    let mut fields: Vec<&str> = fen.split(' ').collect();
    fields[2] = "-";
    Position::from_fen(&fields.join(" "), *pos.variant()).expect("a FEN without castling rights loads")
}

/// What identifies a move: its squares' indices and its promotion piece (the flags follow from the position).
type MoveKey = (usize, usize, Option<PieceKind>);

/// The key of `m` after mapping its squares by `s` on `layers` layers.
fn mapped_move(s: Symmetry, layers: u8, m: Move) -> MoveKey {
    (s.square(m.from(), layers).index(), s.square(m.to(), layers).index(), m.promotion_kind())
}

/// Checks every symmetry of `pos`'s game against `pos` (see the module docs).
fn check(pos: &Position) -> Result<(), TestCaseError> {
    let kind = pos.variant().kind;
    let moves = pos.legal_moves();
    for &s in Symmetry::of_game(kind) {
        let Some(mut image) = s.apply(pos) else {
            prop_assert!(!s.keeps(pos));
            prop_assert!(pos.castling_rights() != 0, "{:?} refused {} without castling rights", s, pos.fen());
            continue;
        };
        let fen = pos.fen();
        prop_assert_eq!(image.side_to_move(), pos.side_to_move());
        prop_assert_eq!(image.in_check(), pos.in_check(), "{:?} of {}", s, fen);
        prop_assert_eq!(image.game_state(), pos.game_state(), "{:?} of {}", s, fen);
        let layers = pos.variant().layers;
        let expected: BTreeSet<MoveKey> = moves.iter().map(|&m| mapped_move(s, layers, m)).collect();
        let found: BTreeSet<MoveKey> =
            image.legal_moves().iter().map(|&m| mapped_move(Symmetry::IDENTITY, layers, m)).collect();
        prop_assert_eq!(&found, &expected, "{:?} of {}", s, fen);
        let depth = if kind == VariantKind::Hdc { 2 } else { 3 };
        let mut original = pos.clone();
        prop_assert_eq!(perft(&mut image, depth), perft(&mut original, depth), "{:?} of {}", s, fen);
    }
    // The maps of no game: files and layers exchanged in haberkorn, or on fewer than 8 layers.
    if kind == VariantKind::Haberkorn {
        let swap = Symmetry { swap: true, ..Symmetry::IDENTITY };
        prop_assert!(!swap.keeps(pos));
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn symmetric_positions_have_the_same_game_tree(v in variant(), seed in any::<u64>(), plies in 0usize..60) {
        let pos = playout(v, seed, plies);
        check(&pos)?;
        if pos.castling_rights() != 0 {
            check(&without_castling(&pos))?;
        }
    }
}

#[test]
fn hdc_maps_its_en_passant_squares() {
    // White's pawn reaches e5-IV and Black's d7-IV steps two beside it: en passant on d6-IV, to carry over.
    let mut pos = without_castling(&Position::start(Variant::hdc()));
    for text in ["e2-IVe4-IV", "a7-Ia6-I", "e4-IVe5-IV", "d7-IVd5-IV"] {
        let m = pos.legal_moves().into_iter().find(|m| m.to_string() == text).expect("a legal move");
        pos.make(m);
    }
    assert!(pos.en_passant().is_some(), "{}", pos.fen());
    for &s in Symmetry::of_game(VariantKind::Hdc) {
        let image = s.apply(&pos).expect("no castling rights");
        let ep = image.en_passant().expect("the en passant square is carried over");
        assert_eq!(ep.victim(), s.square(pos.en_passant().unwrap().victim(), 8));
    }
    check(&pos).unwrap();
}
