//! The endgame tables (`cubist::tb`): generated on haberkorn's smallest
//! board (3 layers, where a three-piece table takes seconds), each checked
//! against the engine's own moves, the brute-force mate prover and the
//! board's symmetries; loaded as the engine's tables (`Tablebases`),
//! probed with either colour holding the material, and played by the search.

use cubist::core::tactics::mate_within;
use cubist::core::{Position, Variant, VariantKind};
use cubist::search::{Engine, Info, Limits, Report, Score, Settings};
use cubist::tb::cube::CubeMap;
use cubist::tb::{Material, Table, TableFileError, Tablebases, Value};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::sync::OnceLock;

const LAYERS: u8 = 3;

/// Haberkorn's king and queen against a king on 3 layers, generated once for every test.
fn kqk() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let m = Material::parse("KQvK", VariantKind::Haberkorn).unwrap();
        Table::generate(VariantKind::Haberkorn, LAYERS, &m, &|_| None).unwrap()
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

/// Random legal positions on 3 layers of the two kings (anywhere) and a
/// White `piece` on a square `third` draws: (the pieces, White to move?,
/// the position).
fn random_three(
    seed: u64,
    count: usize,
    piece: char,
    third: impl Fn(&mut StdRng) -> usize,
) -> Vec<(Placement, bool, Position)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let variant = Variant::haberkorn_from(LAYERS, None, None, false, false).unwrap();
    let n = 64 * LAYERS as usize;
    let mut out = Vec::new();
    while out.len() < count {
        let (k, q) = (rng.random_range(0..n), rng.random_range(0..n));
        let s = third(&mut rng);
        if k == q || k == s || q == s {
            continue;
        }
        let pieces = vec![('K', k), ('k', q), (piece, s)];
        let white = rng.random_bool(0.5);
        if let Ok(pos) = Position::from_fen(&fen(&pieces, LAYERS, white), variant) {
            out.push((pieces, white, pos));
        }
    }
    out
}

/// Random legal KQvK positions on 3 layers.
fn random_positions(seed: u64, count: usize) -> Vec<(Placement, bool, Position)> {
    random_three(seed, count, 'Q', |rng| rng.random_range(0..64 * LAYERS as usize))
}

#[test]
fn a_table_agrees_with_the_moves_of_its_positions() {
    let t = kqk();
    // Every position of the compact index, of which every position is a symmetric image.
    let checked = t.verify(1, &|_| None).unwrap();
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
        let t = Table::generate(kind, layers, &Material::parse("KvK", kind).unwrap(), &|_| None).unwrap();
        let s = t.stats();
        assert_eq!((s.wins, s.losses, s.longest), ([0, 0], [0, 0], None), "{kind}: no mate");
        // Two kings on n squares, not touching, counted directly (a perft
        // of the table's legal positions, which it sums from its kept index
        // with each White-king orbit's size): the same with either side to move.
        let n = 64 * layers as u64;
        let variant = match kind {
            VariantKind::Hdc => Variant::hdc(),
            VariantKind::Haberkorn => Variant::haberkorn_from(layers, None, None, false, false).unwrap(),
        };
        let direct: u64 = (0..n as usize).map(|s| n - 1 - u64::from(variant.rules().king[s].count())).sum();
        assert_eq!(s.positions, [direct, direct], "{kind} on {layers} layers");
        assert!(t.verify(1, &|_| None).unwrap() > 0);
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

/// The colour-swapped letter of a piece.
fn swap_case(c: char) -> char {
    if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() }
}

/// The tables of a folder holding [`kqk`], with a damaged file beside it.
fn loaded_kqk() -> (tempfile::TempDir, Tablebases) {
    let dir = tempfile::tempdir().unwrap();
    kqk().save(dir.path()).unwrap();
    std::fs::write(dir.path().join("broken.cbtb"), b"not a table").unwrap();
    let loaded = Tablebases::load(&dir.path().display().to_string()).unwrap();
    assert_eq!(loaded.refused.len(), 1);
    assert!(loaded.refused[0].to_string().contains("broken.cbtb"), "{}", loaded.refused[0]);
    (dir, loaded.tablebases)
}

#[test]
fn tablebases_probe_either_colour_and_leave_out_damaged_files() {
    let (_dir, tb) = loaded_kqk();
    assert_eq!(tb.names(), ["haberkorn3-KQvK.cbtb"]);
    assert_eq!((tb.len(), tb.max_pieces()), (1, 3));
    let variant = Variant::haberkorn_from(LAYERS, None, None, false, false).unwrap();
    let sorted = |mut v: Vec<(cubist::core::Move, Value)>| {
        v.sort_by_key(|(m, _)| m.to_string());
        v
    };
    for (pieces, white, pos) in random_positions(11, 200) {
        let value = kqk().probe(&pos).unwrap();
        assert_eq!(tb.probe(&pos), Some(value));
        // Black holding the queen, the other side to move: the same ending.
        let swapped: Placement = pieces.iter().map(|&(c, s)| (swap_case(c), s)).collect();
        let other = Position::from_fen(&fen(&swapped, LAYERS, !white), variant).unwrap();
        assert_eq!(tb.probe(&other), Some(value), "{}", other.fen());
        assert_eq!(sorted(tb.move_values(&other).unwrap()), sorted(kqk().move_values(&pos, &|_| None)));
    }
    // Positions no loaded table holds; kings alone are a draw.
    assert_eq!(tb.probe(&Position::start(Variant::haberkorn())), None);
    let rook = random_positions(1, 1)[0].2.fen().replace('Q', "R");
    assert_eq!(tb.probe(&Position::from_fen(&rook, variant).unwrap()), None);
    let kings = Position::from_fen(&fen(&[('K', 0), ('k', 100)], LAYERS, true), variant).unwrap();
    assert_eq!(tb.probe(&kings), Some(Value::Draw));
    // A folder that cannot be listed is an error; an empty path loads none.
    let missing = Tablebases::load("/nonexistent/cubist-tables").err().unwrap();
    assert!(missing.to_string().contains("/nonexistent/cubist-tables"), "{missing}");
    assert!(Tablebases::load("").unwrap().tablebases.is_empty());
}

#[test]
fn the_fifty_move_rule_draws_mates_that_come_too_late() {
    assert_eq!(Value::Mate(9).under_fifty_moves(91), Value::Mate(9));
    assert_eq!(Value::Mate(9).under_fifty_moves(92), Value::Draw);
    assert_eq!(Value::Mate(8).under_fifty_moves(93), Value::Draw);
    assert_eq!(Value::Mate(0).under_fifty_moves(100), Value::Mate(0));
    assert_eq!(Value::Draw.under_fifty_moves(0), Value::Draw);
    // For the mover: quick wins, slow wins, draws, slow losses, quick losses, nothing.
    let order = [Value::Mate(0), Value::Mate(20), Value::Draw, Value::Mate(21), Value::Mate(1), Value::Illegal];
    assert!(order.windows(2).all(|w| w[0].mover_rank() < w[1].mover_rank()));
}

/// The infos and best move of a search of `pos` to `depth` with `tablebases`.
fn search_with_tables(pos: &Position, depth: u32, tablebases: Tablebases) -> (Vec<Info>, Option<cubist::core::Move>) {
    let mut engine = Engine::new(Settings { hash_mb: 8, tablebases, ..Settings::default() });
    let (tx, rx) = std::sync::mpsc::channel();
    engine.go(pos, Limits { depth: Some(depth), ..Limits::default() }, Box::new(move |r| drop(tx.send(r))));
    engine.wait();
    let (mut infos, mut best) = (Vec::new(), None);
    for r in rx.try_iter() {
        match r {
            Report::Info(i) => infos.push(i),
            Report::BestMove { best: b, .. } => best = b,
            Report::Message(_) => {}
        }
    }
    (infos, best)
}

#[test]
fn the_search_plays_the_tables_shortest_mate_and_counts_its_hits() {
    let (_dir, tb) = loaded_kqk();
    let (_, _, pos) = random_positions(21, 4000)
        .into_iter()
        .find(|(_, white, p)| *white && matches!(kqk().probe(p), Some(Value::Mate(d)) if (11..=21).contains(&d)))
        .expect("a White win of 6 to 11 moves");
    let Some(Value::Mate(d)) = kqk().probe(&pos) else { unreachable!() };
    let (infos, best) = search_with_tables(&pos, 3, tb);
    let last = infos.last().expect("an info");
    assert_eq!(last.score, Score::Mate(i32::from(d.div_ceil(2))), "{}", pos.fen());
    assert!(last.tbhits > 0);
    // The move played keeps the shortest mate.
    let best = best.expect("a move");
    let after = kqk().move_values(&pos, &|_| None).into_iter().find(|(m, _)| *m == best).unwrap().1;
    assert_eq!(after, Value::Mate(d - 1), "{best} from {}", pos.fen());
    // Without tables nothing is probed.
    let (infos, _) = search_with_tables(&pos, 3, Tablebases::default());
    assert_eq!(infos.last().unwrap().tbhits, 0);
}

#[test]
fn a_match_ends_where_the_tables_hold_the_position() {
    use cubist::record::{GameResult, Termination, parse_records};
    let dir = tempfile::tempdir().unwrap();
    kqk().save(dir.path()).unwrap();
    // White to move wins, but not within the few plies depth 1 would need to find it.
    let (_, _, pos) = random_positions(31, 4000)
        .into_iter()
        .find(|(_, white, p)| *white && matches!(kqk().probe(p), Some(Value::Mate(d)) if d >= 9))
        .expect("a long win");
    let book = dir.path().join("book.epd");
    let epd: Vec<String> = pos.fen().split_whitespace().take(4).map(String::from).collect();
    std::fs::write(&book, format!("{}\n", epd.join(" "))).unwrap();
    let run = |tb: &str, pgn: &std::path::Path| {
        std::process::Command::new(crate::common::CUBIST)
            .args(["match", "--variant", "haberkorn", "--layers", "3", "--each", "depth=1", "--rounds", "1"])
            .args(["--engine", &format!("cmd={}", crate::common::CUBIST), "name=a"])
            .args(["--engine", &format!("cmd={}", crate::common::CUBIST), "name=b"])
            .arg("--openings")
            .arg(format!("file={}", book.display()))
            .arg("format=epd")
            .args(["--tb", tb, "--pgnout"])
            .arg(pgn)
            .output()
            .unwrap()
    };
    let pgn = dir.path().join("games.pgn");
    let out = run(&dir.path().display().to_string(), &pgn);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let records = parse_records(&std::fs::read_to_string(&pgn).unwrap()).unwrap();
    assert_eq!(records.len(), 2);
    for r in &records {
        assert_eq!((r.result, r.termination), (GameResult::WhiteWins, Termination::Tablebase));
        assert!(r.moves.is_empty());
    }
    // A folder that is not there stops the match before its first game.
    let out = run("/nonexistent/cubist-tables", &dir.path().join("none.pgn"));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--tb: /nonexistent/cubist-tables"));
}

#[test]
fn an_analysis_shows_what_the_tables_say() {
    use cubist::analysis::analyse_record;
    use cubist::record::{GameRecord, GameResult, Termination};
    let (_dir, tb) = loaded_kqk();
    // A White win where one move throws it away (the queen left to the king).
    let (_, _, pos) = random_positions(41, 4000)
        .into_iter()
        .find(|(_, white, p)| {
            *white
                && matches!(kqk().probe(p), Some(Value::Mate(d)) if (7..=15).contains(&d))
                && kqk().move_values(p, &|_| None).iter().any(|(_, v)| *v == Value::Draw)
        })
        .expect("a White win with a drawing move");
    let Some(Value::Mate(d)) = kqk().probe(&pos) else { unreachable!() };
    let moves = kqk().move_values(&pos, &|_| None);
    let (weak, _) = moves.iter().find(|(_, v)| *v == Value::Draw).unwrap();
    let mut after = pos.clone();
    after.make(*weak);
    let reply = after.legal_moves()[0];
    let variant = *pos.variant();
    let mut rec = GameRecord {
        event: "t".into(),
        site: "s".into(),
        date: "2026.12.07".into(),
        round: "1".into(),
        white: "a".into(),
        black: "b".into(),
        result: GameResult::Unfinished,
        variant,
        fen: pos.fen(),
        time_control: "-".into(),
        termination: Termination::Unterminated,
        moves: vec![weak.to_string(), reply.to_string()],
        move_comments: Vec::new(),
        comment: String::new(),
        notes: Vec::new(),
        extra_tags: Vec::new(),
    };
    let limits = Limits { nodes: Some(500), ..Limits::default() };
    let a = analyse_record(&mut rec, &limits, 1, &tb, "t", &|| {}).unwrap();
    // The first move threw the win away: a draw by the tables, and a blunder.
    assert_eq!(a.moves[0].tablebase.as_deref(), Some("tablebase: draw"), "{}", pos.fen());
    assert!(rec.move_comments[0].starts_with("[%eval 0.00] tablebase: draw"), "{:?}", rec.move_comments);
    assert_eq!(a.moves[0].mark, Some(cubist::record::Mark::Blunder));
    // The better line is a quickest win.
    let better = a.moves[0].better.as_deref().unwrap_or_default();
    let shown =
        moves.iter().find(|(m, _)| better.split_whitespace().any(|w| w == m.to_string())).expect("a move in the line");
    assert_eq!(shown.1, Value::Mate(d - 1), "{better}");
}

#[test]
fn dead_material_is_what_the_tables_prove_cannot_mate() {
    // On haberkorn's 3 layers (the tables every test shares): every
    // one-piece ending but the queen's has no mate position at all, and
    // exactly those are dead.
    let tb = three_piece_tables();
    let variant = Variant::haberkorn_from(LAYERS, None, None, false, false).unwrap();
    for (piece, letter) in [("KQvK", 'Q'), ("KRvK", 'R'), ("KBvK", 'B'), ("KNvK", 'N')] {
        let m = Material::parse(piece, VariantKind::Haberkorn).unwrap();
        let mates = tb.table(VariantKind::Haberkorn, LAYERS, &m).unwrap().stats().longest.is_some();
        let pos = Position::from_fen(&fen(&[('K', 0), ('k', 63), (letter, 100)], LAYERS, true), variant).unwrap();
        assert_eq!(pos.is_dead_material(), !mates, "{piece} on {LAYERS} layers");
    }
    // The larger boards as the tables of `cubist tb generate --layers 4..8`
    // found them (docs/endgames.md; minutes each, too slow here): the queen
    // mates on every board, the rook, bishop and knight on none.
    for layers in 4..=8 {
        let variant = Variant::haberkorn_from(layers, None, None, false, false).unwrap();
        for (letter, dead) in [('Q', false), ('R', true), ('B', true), ('N', true)] {
            let pos = Position::from_fen(&fen(&[('K', 0), ('k', 63), (letter, 100)], layers, true), variant).unwrap();
            assert_eq!(pos.is_dead_material(), dead, "K{letter}vK on {layers} layers");
        }
    }
}

/// Haberkorn's five three-piece endings on 3 layers, generated in
/// `Material::all`'s order (KQvK from [`kqk`]): each piece's, then the
/// pawn's, whose promotions are read from the others.
fn three_piece_tables() -> &'static Tablebases {
    static TABLES: OnceLock<Tablebases> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut tb = Tablebases::default();
        tb.insert(kqk().clone());
        for m in Material::all(VariantKind::Haberkorn, 3).into_iter().skip(1) {
            let t = Table::generate(VariantKind::Haberkorn, LAYERS, &m, &|p| tb.probe(p)).unwrap();
            tb.insert(t);
        }
        tb
    })
}

/// The KPvK table of [`three_piece_tables`].
fn kpk() -> &'static Table {
    let m = Material::parse("KPvK", VariantKind::Haberkorn).unwrap();
    three_piece_tables().table(VariantKind::Haberkorn, LAYERS, &m).unwrap()
}

/// Random legal KPvK positions on 3 layers (the pawn on ranks 2 to 7).
fn random_pawn_positions(seed: u64, count: usize) -> Vec<(Placement, bool, Position)> {
    random_three(seed, count, 'P', |rng| {
        rng.random_range(0..LAYERS as usize) * 64 + rng.random_range(1..7) * 8 + rng.random_range(0..8)
    })
}

#[test]
fn a_pawn_ending_agrees_with_its_moves_and_its_promotions() {
    let tb = three_piece_tables();
    assert_eq!(tb.len(), 5);
    // Every tenth position against its moves (`cubist tb generate --verify`
    // checks them all), the promotions' values read from the pieces' tables.
    let checked = kpk().verify(10, &|p| tb.probe(p)).unwrap();
    assert!(checked > 150_000, "{checked} positions checked");
    let s = kpk().stats();
    assert_eq!(s.wins[1], 0, "the lone king never wins");
    assert!(s.wins[0] > s.positions[0] / 2 && s.wins[0] < s.positions[0], "most, not all, are won: {s}");
    // Without the pieces' tables a pawn's ending cannot be made.
    let m = Material::parse("KPvK", VariantKind::Haberkorn).unwrap();
    let missing = Table::generate(VariantKind::Haberkorn, LAYERS, &m, &|_| None).err().unwrap();
    assert!(missing.to_string().contains("no table for K"), "{missing}");
    // A pawn about to promote with the defender far away wins by a queen's mate.
    let variant = Variant::haberkorn_from(LAYERS, None, None, false, false).unwrap();
    let pos =
        Position::from_fen(&fen(&[('K', 0), ('k', 64 + 3 * 8 + 7), ('P', 2 * 64 + 6 * 8 + 1)], LAYERS, true), variant)
            .unwrap();
    let value = tb.probe(&pos).unwrap();
    assert!(value.is_win(), "{}: {value}", pos.fen());
    let moves = tb.move_values(&pos).unwrap();
    let promotions = moves.iter().filter(|(m, _)| m.promotion_kind().is_some()).count();
    assert_eq!(promotions, 4 * 2, "queen, rook, bishop, knight on b8-III and on b8-II: {moves:?}");
    let best = moves.iter().map(|&(_, v)| v.mover_rank()).min().unwrap();
    assert_eq!(Value::Mate(best as u8 + 1), value, "the best move's value is the position's");
}

#[test]
fn pawn_endings_keep_their_symmetries_and_read_either_colour() {
    let tb = three_piece_tables();
    let variant = Variant::haberkorn_from(LAYERS, None, None, false, false).unwrap();
    let maps = CubeMap::with_pawns(VariantKind::Haberkorn, LAYERS);
    for (pieces, white, pos) in random_pawn_positions(17, 300) {
        let value = kpk().probe(&pos).unwrap();
        assert_eq!(tb.probe(&pos), Some(value));
        for m in &maps {
            let image: Placement = pieces
                .iter()
                .map(|&(c, s)| (c, m.square(cubist::core::Square::from_index(s).unwrap(), LAYERS).index()))
                .collect();
            let mapped = Position::from_fen(&fen(&image, LAYERS, white), variant).unwrap();
            assert_eq!(tb.probe(&mapped), Some(value), "{m:?} of {}", pos.fen());
        }
        // Black's pawn going down the ranks, the other side to move: the same ending.
        let mirrored: Placement =
            pieces.iter().map(|&(c, s)| (swap_case(c), s - s % 64 + (7 - s % 64 / 8) * 8 + s % 8)).collect();
        let other = Position::from_fen(&fen(&mirrored, LAYERS, !white), variant).unwrap();
        assert_eq!(tb.probe(&other), Some(value), "{} mirrors {}", other.fen(), pos.fen());
        let values = |p: &Position| {
            let mut v: Vec<u16> = tb.move_values(p).unwrap().iter().map(|(_, v)| v.mover_rank()).collect();
            v.sort_unstable();
            v
        };
        assert_eq!(values(&other), values(&pos), "{}", other.fen());
    }
}

#[test]
fn the_generator_names_a_missing_table_and_verifies_a_sample() {
    let dir = tempfile::tempdir().unwrap();
    let run = |material: &str, extra: &[&str]| {
        std::process::Command::new(crate::common::CUBIST)
            .args(["tb", "generate", "--variant", "haberkorn", "--layers", "3", "--material", material, "--out"])
            .arg(dir.path())
            .args(extra)
            .output()
            .unwrap()
    };
    // A pawn's ending before its pieces' tables: a clear error, no file.
    let out = run("KPvK", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("no table for K"), "{stderr}");
    assert!(!dir.path().join("haberkorn3-KPvK.cbtb").exists());
    // A sample of the kept positions checked.
    let out = run("KvK", &["--verify", "--verify-every", "7"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("(every 7th kept one) agrees with its moves"), "{stdout}");
    let out = run("KvK", &["--verify", "--verify-every", "0"]);
    assert!(!out.status.success(), "a step of 0 is refused");
}
