//! Every kind of bad 3D-FEN is refused with a typed error, never a panic.

use cubist::core::{FenError, Position, Variant};

const HDC: &str = cubist::core::variant::HDC_START_FEN;

fn hab3(layers: [&str; 3], rest: &str) -> String {
    format!("{}|{}|{} {rest}", layers[0], layers[1], layers[2])
}

fn hab() -> Variant {
    Variant::haberkorn_with(3, 1, 3, true, true).unwrap()
}

fn err(fen: &str, v: Variant) -> FenError {
    match Position::from_fen(fen, v) {
        Ok(p) => panic!("accepted bad FEN {fen}: {p:?}"),
        Err(e) => e,
    }
}

const E: &str = "8/8/8/8/8/8/8/8";

#[test]
fn good_fens_are_accepted() {
    Position::from_fen(HDC, Variant::hdc()).unwrap();
    Position::from_fen(&hab3(["8/8/8/8/8/8/8/4K3", E, "4k3/8/8/8/8/8/8/8"], "w - - 0 1"), hab()).unwrap();
    // Clocks may be left out, as in Stockfish.
    Position::from_fen(&hab3(["8/8/8/8/8/8/8/4K3", E, "4k3/8/8/8/8/8/8/8"], "b - -"), hab()).unwrap();
}

#[test]
fn wrong_number_of_layers() {
    let seven = HDC.replacen("4r3/pppppppp/8/8/8/8/PPPPPPPP/4R3|", "", 1);
    assert!(matches!(err(&seven, Variant::hdc()), FenError::LayerCount { found: 7, .. }));
    let two = "8/8/8/8/8/8/8/4K3|4k3/8/8/8/8/8/8/8 w - - 0 1";
    assert!(matches!(err(two, hab()), FenError::LayerCount { found: 2, .. }));
    let nine = format!("{}|8/8/8/8/8/8/8/8 w - - 0 1", HDC.split(' ').next().unwrap());
    assert!(matches!(err(&nine, Variant::haberkorn()), FenError::LayerCount { found: 9, .. }));
}

#[test]
fn ranks_of_the_wrong_length_or_count() {
    let f = hab3(["8/8/8/8/8/8/8/4K4", E, "4k3/8/8/8/8/8/8/8"], "w - - 0 1");
    assert!(matches!(err(&f, hab()), FenError::RankLength { found: 9, .. }));
    let f = hab3(["8/8/8/8/8/8/8/4K2", E, "4k3/8/8/8/8/8/8/8"], "w - - 0 1");
    assert!(matches!(err(&f, hab()), FenError::RankLength { found: 7, .. }));
    let f = hab3(["8/8/8/8/8/8/4K3", E, "4k3/8/8/8/8/8/8/8"], "w - - 0 1");
    assert!(matches!(err(&f, hab()), FenError::RankCount { found: 7, .. }));
    let f = hab3(["8/8/8/8/8/8/8/4K3", E, "4k3/8/8/8/8/8/8/8/8"], "w - - 0 1");
    assert!(matches!(err(&f, hab()), FenError::RankCount { found: 9, .. }));
}

#[test]
fn unknown_piece_letters() {
    let f = hab3(["8/8/8/8/8/8/8/4K2X", E, "4k3/8/8/8/8/8/8/8"], "w - - 0 1");
    assert_eq!(err(&f, hab()), FenError::UnknownPiece('X'));
    let f = hab3(["8/8/8/8/8/8/8/4K2D", E, "4k3/8/8/8/8/8/8/8"], "w - - 0 1");
    assert!(matches!(err(&f, hab()), FenError::PieceNotInVariant('D', _)));
    let f = hab3(["8/8/8/8/8/8/8/4K2 ", E, "4k3/8/8/8/8/8/8/8"], "w - - 0 1");
    err(&f, hab());
    let f = hab3(["8/8/8/8/8/8/8/4K0", E, "4k3/8/8/8/8/8/8/8"], "w - - 0 1");
    err(&f, hab());
}

#[test]
fn kings_missing_or_doubled() {
    let f = hab3(["8/8/8/8/8/8/8/8", E, "4k3/8/8/8/8/8/8/8"], "w - - 0 1");
    assert!(matches!(err(&f, hab()), FenError::KingCount { color: "White", count: 0 }));
    let f = hab3(["8/8/8/8/8/8/8/3KK3", E, "4k3/8/8/8/8/8/8/8"], "w - - 0 1");
    assert!(matches!(err(&f, hab()), FenError::KingCount { color: "White", count: 2 }));
    let f = hab3(["8/8/8/8/8/8/8/4K3", "k7/8/8/8/8/8/8/8", "4k3/8/8/8/8/8/8/8"], "w - - 0 1");
    assert!(matches!(err(&f, hab()), FenError::KingCount { color: "Black", count: 2 }));
}

#[test]
fn pawns_on_the_first_or_last_rank() {
    let f = hab3(["8/8/8/8/8/8/8/4K2P", E, "4k3/8/8/8/8/8/8/8"], "w - - 0 1");
    assert!(matches!(err(&f, hab()), FenError::PawnOnLastRank(_)));
    let f = hab3(["8/8/8/8/8/8/8/4K3", E, "4k2p/8/8/8/8/8/8/8"], "w - - 0 1");
    assert!(matches!(err(&f, hab()), FenError::PawnOnLastRank(_)));
}

#[test]
fn bad_side_castling_en_passant_and_clocks() {
    let base = |rest: &str| hab3(["8/8/8/8/8/8/8/4K3", E, "4k3/8/8/8/8/8/8/8"], rest);
    assert!(matches!(err(&base("x - - 0 1"), hab()), FenError::Side(_)));
    assert!(matches!(err(&base("w Z - 0 1"), hab()), FenError::Castling { .. }));
    // L and U exist only in hdc.
    assert!(matches!(err(&base("w L - 0 1"), hab()), FenError::Castling { .. }));
    assert!(matches!(err(&base("w - e9-I 0 1"), hab()), FenError::EnPassant { .. }));
    assert!(matches!(err(&base("w - e3-I 0 1"), hab()), FenError::EnPassant { .. }));
    assert!(matches!(err(&base("w - e6-I 0 1"), hab()), FenError::EnPassant { .. }));
    assert!(matches!(err(&base("w - - x 1"), hab()), FenError::Clock { .. }));
    assert!(matches!(err(&base("w - - 0 -3"), hab()), FenError::Clock { .. }));
    assert!(matches!(err(&base("w - - 99999999 1"), hab()), FenError::Clock { .. }));
    assert!(matches!(err(&base("w - - 0 1 extra"), hab()), FenError::FieldCount(7)));
    assert!(matches!(err("", hab()), FenError::FieldCount(0)));
    // En passant and castling are refused where the rule is not in force.
    let plain = Variant::haberkorn_with(3, 1, 3, false, false).unwrap();
    let ep = hab3(["8/8/8/8/8/8/8/4K3", E, "4k3/8/8/4p3/8/8/8/8"], "w - e6-III 0 1");
    Position::from_fen(&ep, hab()).unwrap();
    assert!(matches!(err(&ep, plain), FenError::EnPassant { .. }));
    let castle = hab3(["8/8/8/8/8/8/8/4K2R", E, "4k3/8/8/8/8/8/8/8"], "w K - 0 1");
    Position::from_fen(&castle, hab()).unwrap();
    assert!(matches!(err(&castle, plain), FenError::Castling { .. }));
}

#[test]
fn clocks_out_of_range_are_refused_with_the_range() {
    let base = |rest: &str| hab3(["8/8/8/8/8/8/8/4K3", E, "4k3/8/8/8/8/8/8/8"], rest);
    let e = err(&base("w - - 65536 1"), hab());
    assert!(matches!(e, FenError::Clock { max: 65535, .. }), "{e}");
    assert!(e.to_string().contains("0 to 65535"), "{e}");
    Position::from_fen(&base("w - - 65535 1"), hab()).unwrap();
    let max = cubist::core::fen::MAX_FULLMOVE;
    let e = err(&base(&format!("w - - 0 {}", u32::MAX)), hab());
    assert!(matches!(e, FenError::Clock { which: "full-move number", .. }), "{e}");
    assert!(e.to_string().contains(&max.to_string()), "{e}");
    Position::from_fen(&base(&format!("w - - 0 {max}")), hab()).unwrap();
}

/// `e3-I,e3-III:e4-II` names two squares that no single double step passes
/// over (the two-path step from e2-I reaches e4-II over e3-I or e3-II).
#[test]
fn en_passant_squares_must_come_from_one_double_step() {
    let v = Variant::haberkorn_with(3, 1, 3, true, false).unwrap();
    let white_pawn_on_e4_ii = ["8/8/8/8/8/8/8/4K3", "8/8/8/8/4P3/8/8/8", "4k3/8/8/8/8/8/8/8"];
    let fen = |ep: &str| hab3(white_pawn_on_e4_ii, &format!("b - {ep} 0 1"));
    let e = err(&fen("e3-I,e3-III:e4-II"), v);
    assert!(matches!(e, FenError::EnPassant { .. }), "{e}");
    assert!(e.to_string().contains("no double step to e4-II"), "{e}");
    // What real double steps leave: straight (e3-II), from e2-I (e3-I and e3-II), from e2-III.
    for ok in ["e3-II", "e3-I,e3-II:e4-II", "e3-II,e3-III:e4-II"] {
        Position::from_fen(&fen(ok), v).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
    // One square of a two-path step alone, while the other is free too, is not what any step leaves.
    assert!(matches!(err(&fen("e3-I:e4-II"), v), FenError::EnPassant { .. }));
    // The start square must be empty: a pawn still on e2-II did not double-step from there.
    let blocked = hab3(["8/8/8/8/8/8/8/4K3", "8/8/8/8/4P3/8/4P3/8", "4k3/8/8/8/8/8/8/8"], "b - e3-II 0 1");
    assert!(matches!(err(&blocked, v), FenError::EnPassant { .. }));
    // hdc's double step never changes layer.
    let hdc = HDC.replacen("pppppppp/8/8/8/8/PPPPPPPP", "pppppppp/8/8/4P3/8/PPPP1PPP", 1).replacen(" w ", " b ", 1);
    let hdc_ep = |ep: &str| hdc.replacen(" - 0 1", &format!(" {ep} 0 1"), 1);
    Position::from_fen(&hdc_ep("e3-I"), Variant::hdc()).unwrap();
    assert!(matches!(err(&hdc_ep("e3-I,e3-II:e4-I"), Variant::hdc()), FenError::EnPassant { .. }));
}

#[test]
fn castling_rights_need_king_and_rook_on_their_squares() {
    let f = hab3(["8/8/8/8/8/8/8/4K3", E, "4k3/8/8/8/8/8/8/8"], "w K - 0 1");
    assert!(matches!(err(&f, hab()), FenError::Castling { .. }));
    let f = hab3(["8/8/8/8/8/8/8/3K3R", E, "4k3/8/8/8/8/8/8/8"], "w K - 0 1");
    assert!(matches!(err(&f, hab()), FenError::Castling { .. }));
    let f = hab3(["8/8/8/8/8/8/8/R3K2R", E, "4k3/8/8/8/8/8/8/8"], "w KQk - 0 1");
    assert!(matches!(err(&f, hab()), FenError::Castling { .. }));
    let f = hab3(["8/8/8/8/8/8/8/R3K2R", E, "4k3/8/8/8/8/8/8/8"], "w KK - 0 1");
    assert!(matches!(err(&f, hab()), FenError::Castling { .. }));
    // hdc: the lower z-castling needs the rook on e1-I.
    let no_rook = HDC.replacen("4R3|", "8|", 1);
    assert!(matches!(err(&no_rook, Variant::hdc()), FenError::Castling { .. }));
}

#[test]
fn the_side_not_to_move_in_check() {
    // White to move while Black's king is attacked by the rook.
    let f = hab3(["8/8/8/8/8/8/8/4K3", E, "4k2R/8/8/8/8/8/8/8"], "w - - 0 1");
    assert_eq!(err(&f, hab()), FenError::OpponentInCheck);
}

#[test]
fn garbage_never_panics() {
    let samples = [
        "|||||||| w - - 0 1",
        "8 w",
        "////////|////////|//////// w - - 0 1",
        "99999999/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8 w - - 0 1",
        "kkkkkkkk/KKKKKKKK/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8 w - - 0 1",
        "é/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8 w - - 0 1",
        "8/8/8/8/8/8/8/4K3|8/8/8/8/8/8/8/8|4k3/8/8/8/8/8/8/8 w - e3-IV,e3-V,e3-VI:e4-IV 0 1",
        "8/8/8/8/8/8/8/4K3|8/8/8/8/8/8/8/8|4k3/8/8/8/8/8/8/8 w - : 0 1",
        "8/8/8/8/8/8/8/4K3|8/8/8/8/8/8/8/8|4k3/8/8/8/8/8/8/8 w - e6-I,e6-I:e5-I 0 1",
    ];
    for s in samples {
        assert!(Position::from_fen(s, hab()).is_err(), "{s}");
        assert!(Position::from_fen(s, Variant::hdc()).is_err(), "{s}");
    }
}
