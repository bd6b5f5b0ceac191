//! The search through the `Engine` API: tactics in both variants within a
//! node budget, determinism, stop, the only move, searchmoves and MultiPV.

use cubist::core::{Color, Move, PieceKind, Position, Variant, VariantKind};
use cubist::search::{
    Engine, GameSwitches, GameTunables, Info, Limits, Report, Score, SearchParams, Settings, Switches,
};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What one search reported.
struct Outcome {
    infos: Vec<Info>,
    best: Option<Move>,
    ponder: Option<Move>,
}

fn search_with(settings: Settings, pos: &Position, limits: Limits) -> Outcome {
    let mut engine = Engine::new(settings);
    let (tx, rx) = mpsc::channel();
    engine.go(pos, limits, Box::new(move |r| drop(tx.send(r))));
    engine.wait();
    let mut out = Outcome { infos: Vec::new(), best: None, ponder: None };
    for r in rx.try_iter() {
        match r {
            Report::Info(i) => out.infos.push(i),
            Report::BestMove { best, ponder } => {
                out.best = best;
                out.ponder = ponder;
            }
            Report::Message(_) => {}
        }
    }
    out
}

fn search(pos: &Position, limits: Limits) -> Outcome {
    search_with(Settings { hash_mb: 8, ..Settings::default() }, pos, limits)
}

fn nodes(n: u64) -> Limits {
    Limits { nodes: Some(n), ..Limits::default() }
}

/// Whether the side to move can force mate within `n` moves (a plain AND-OR search, checks first).
fn forced_mate(pos: &mut Position, n: u32) -> bool {
    let mut moves: Vec<Move> = pos.legal_moves().to_vec();
    moves.sort_by_key(|&m| {
        let u = pos.make(m);
        let check = pos.in_check();
        pos.unmake(m, &u);
        !check
    });
    moves.into_iter().any(|m| mate_after(pos, m, n))
}

/// Whether playing `m` mates at once or leaves every reply facing mate in `n - 1`.
fn mate_after(pos: &mut Position, m: Move, n: u32) -> bool {
    let u = pos.make(m);
    let replies = pos.legal_moves();
    let result = if replies.is_empty() {
        pos.in_check()
    } else if n <= 1 {
        false
    } else {
        replies.iter().all(|&r| {
            let ru = pos.make(r);
            let ok = forced_mate(pos, n - 1);
            pos.unmake(r, &ru);
            ok
        })
    };
    pos.unmake(m, &u);
    result
}

/// Whether `m` wins Black's queen: it takes the queen, or every reply leaves
/// it to a capture (an in-between check, say, after which it still falls).
fn wins_the_queen(pos: &mut Position, m: Move) -> bool {
    let queens = |p: &Position| p.pieces(Color::Black, PieceKind::Queen);
    let u = pos.make(m);
    let result = queens(pos).is_empty()
        || pos.legal_moves().iter().all(|&r| {
            let ru = pos.make(r);
            let q = queens(pos);
            let falls = q.is_empty() || pos.legal_moves().iter().any(|w| q.has(w.to()));
            pos.unmake(r, &ru);
            falls
        });
    pos.unmake(m, &u);
    result
}

fn haberkorn() -> Variant {
    Variant::haberkorn()
}

/// A variant, a FEN and the length of its forced mate.
type MateCase = (fn() -> Variant, &'static str, i32);

/// Found by seeded random setups; the test proves each mate with `forced_mate`.
const MATES: [MateCase; 6] = [
    (
        Variant::hdc,
        "8/8/1k6/8/8/8/8/8|3Q4/8/8/8/8/8/1R6/8|8/8/8/8/8/8/8/8|8/8/8/1K6/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8 w - - 0 1",
        1,
    ),
    (
        Variant::hdc,
        "8/8/8/8/8/8/8/6k1|8/8/8/8/8/6R1/8/8|8/8/8/8/8/8/4K3/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/Q7/8/8 w - - 0 1",
        2,
    ),
    (Variant::hdc, HDC_MATE_IN_3, 3),
    (
        haberkorn,
        "4R3/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/K7|k7/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/4Q3/8/8/8/8|8/8/8/8/8/8/8/8 w - - 0 1",
        1,
    ),
    (
        haberkorn,
        "7k/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/5Q2/8/8/8/8/8|8/8/7K/8/8/8/8/8|8/8/8/8/8/8/8/8|8/1R6/8/8/8/8/8/8|8/8/8/8/8/8/8/8 w - - 0 1",
        2,
    ),
    (
        haberkorn,
        "8/8/8/8/8/8/8/k7|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/2R5/8|8/8/8/8/8/8/8/8|8/8/8/8/8/Q7/8/8|8/8/8/8/8/8/8/8|8/8/8/8/K7/8/8/8 w - - 0 1",
        3,
    ),
];

const HDC_MATE_IN_3: &str = "8/3K4/8/8/8/8/8/7k|8/8/8/8/8/8/6R1/8|8/8/Q7/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8 w - - 0 1";

#[test]
fn forced_mates_in_one_two_and_three_in_both_variants() {
    for (variant, fen, n) in MATES {
        let mut pos = Position::from_fen(fen, variant()).unwrap_or_else(|e| panic!("{fen}: {e}"));
        if n > 1 {
            assert!(!forced_mate(&mut pos, n as u32 - 1), "{fen}: no mate in {}", n - 1);
        }
        let out = search(&pos, nodes(400_000));
        let best = out.best.expect("a move");
        let last = out.infos.last().expect("an info");
        assert_eq!(last.score, Score::Mate(n), "{fen}");
        assert!(mate_after(&mut pos, best, n as u32), "{fen}: {best} mates in {n}");
    }
}

#[test]
fn the_winning_capture_is_found_in_both_variants() {
    let layer = |s: &str| s.to_string();
    let empty = "8/8/8/8/8/8/8/8";
    // White: Ke1-IV Ra1-IV Qd1-IV. Black: Kh8-V, queen a8-IV (undefended), pawns d6-IV and e7-IV.
    // A move that does not win the queen (a quiet one, say) fails the test.
    let iv = layer("q7/4p3/3p4/8/8/8/8/R2QK3");
    let v = layer("7k/8/8/8/8/8/8/8");
    let layers: Vec<String> = (0..8)
        .map(|z| {
            if z == 3 {
                iv.clone()
            } else if z == 4 {
                v.clone()
            } else {
                empty.into()
            }
        })
        .collect();
    let fen = format!("{} w - - 0 1", layers.join("|"));
    for variant in [Variant::hdc(), Variant::haberkorn()] {
        let mut pos = Position::from_fen(&fen, variant).unwrap();
        let capture = pos.parse_move("a1-IVa8-IV").unwrap();
        assert!(pos.is_legal(capture) && wins_the_queen(&mut pos, capture));
        let quiet = pos.parse_move("e1-IVe2-IV").unwrap();
        assert!(!wins_the_queen(&mut pos, quiet), "{variant}: the queen can flee a quiet move");
        let out = search(&pos, nodes(200_000));
        // The capture, or (hdc) the queen's check from d4-I first, after which the queen still falls.
        let best = out.best.expect("a move");
        assert!(wins_the_queen(&mut pos, best), "{variant}: {best} does not win the queen");
        assert!(matches!(out.infos.last().unwrap().score, Score::Cp(cp) if cp > 500));
    }
}

#[test]
fn one_thread_node_counts_are_deterministic() {
    let a = cubist::bench::run(4, 1, 4, &mut std::io::sink());
    let b = cubist::bench::run(4, 1, 4, &mut std::io::sink());
    assert_eq!(a.nodes, b.nodes);
    assert!(a.nodes > 1000);
}

/// History pruning (on by default in haberkorn, docs/strength.md row 68)
/// is wired into the search: pruning at every depth up to 8 with a margin
/// that prunes nearly every quiet move that has ever failed, the same
/// depth-8 searches of haberkorn's start position and five positions two
/// plies from it visit fewer nodes in all than with its switch off (13%
/// fewer with row 91's network; a single tree can come out either side of
/// the unpruned one, as the start position alone did with that network:
/// what pruning saves, the iterations it reorders can cost), and every
/// search plays a legal move.
#[test]
fn history_pruning_narrows_haberkorn_searches() {
    let start = Position::start(haberkorn());
    let mut positions = vec![start.clone()];
    for (i, j) in [(0, 0), (7, 3), (15, 9), (30, 20), (45, 1)] {
        let mut pos = start.clone();
        let first = pos.legal_moves()[i];
        pos.make(first);
        let reply = pos.legal_moves()[j];
        pos.make(reply);
        positions.push(pos);
    }
    let run = |on: bool, margin: i32| -> u64 {
        let mut total = 0;
        for pos in &positions {
            let mut engine = Engine::new(Settings { hash_mb: 8, ..Settings::default() });
            let mut params = engine.params();
            assert!(params.switches[VariantKind::Haberkorn].history_pruning, "on by default in haberkorn");
            params.switches[VariantKind::Haberkorn].history_pruning = on;
            let t = &mut params.tunables[VariantKind::Haberkorn];
            t.history_prune_depth = 8;
            t.history_prune_margin = margin;
            engine.set_params(params);
            let end = engine.search_line(pos, Limits { depth: Some(8), ..Limits::default() });
            let best = end.best.expect("a best move");
            assert!(pos.legal_moves().contains(&best), "{best} is legal");
            total += engine.nodes();
        }
        total
    };
    let (pruned, unpruned) = (run(true, 250), run(false, 250));
    assert!(pruned * 20 < unpruned * 19, "{pruned} nodes with history pruning, {unpruned} without");
}

#[test]
fn stop_ends_an_infinite_search_with_a_bestmove() {
    let pos = Position::start(Variant::hdc());
    let mut engine = Engine::new(Settings { threads: 2, ..Settings::default() });
    let (tx, rx) = mpsc::channel();
    engine.go(&pos, Limits { infinite: true, ..Limits::default() }, Box::new(move |r| drop(tx.send(r))));
    std::thread::sleep(Duration::from_millis(200));
    assert!(engine.is_searching(), "infinite keeps searching");
    engine.stop();
    let deadline = Instant::now() + Duration::from_secs(5);
    let best = loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Report::BestMove { best, .. }) => break best,
            Ok(_) => {}
            Err(e) => panic!("no bestmove after stop: {e}"),
        }
    };
    engine.wait();
    assert!(pos.is_legal(best.expect("a move")));
}

#[test]
fn the_only_legal_move_is_played_at_once() {
    // White Ka1-I; black rooks b8-I, b8-II, a8-II cover every flight square but a2-I.
    let mut layers = vec!["8/8/8/8/8/8/8/8".to_string(); 8];
    layers[0] = "1r6/8/8/8/8/8/8/K7".into();
    layers[1] = "rr6/8/8/8/8/8/8/8".into();
    layers[7] = "7k/8/8/8/8/8/8/8".into();
    let fen = format!("{} w - - 0 1", layers.join("|"));
    let pos = Position::from_fen(&fen, Variant::hdc()).unwrap();
    assert_eq!(pos.legal_moves().len(), 1);
    let clock =
        Limits { wtime: Some(Duration::from_secs(600)), btime: Some(Duration::from_secs(600)), ..Limits::default() };
    let out = search(&pos, clock);
    assert_eq!(out.best.map(|m| m.to_string()), Some("a1-Ia2-I".to_string()));
    assert!(out.infos.iter().all(|i| i.depth <= 1), "no deeper search for a forced move");
}

#[test]
fn searchmoves_are_respected() {
    let pos = Position::start(Variant::haberkorn());
    let only: Vec<Move> = ["a2-IVa3-IV", "h2-IVh3-IV"].iter().map(|t| pos.parse_move(t).unwrap()).collect();
    let out = search(&pos, Limits { depth: Some(4), searchmoves: only.clone(), ..Limits::default() });
    assert!(only.contains(&out.best.unwrap()));
    assert!(out.infos.iter().all(|i| only.contains(&i.pv[0])));
}

#[test]
fn multipv_reports_distinct_lines() {
    let pos = Position::start(Variant::haberkorn());
    let settings = Settings { multipv: 3, hash_mb: 8, ..Settings::default() };
    let out = search_with(settings, &pos, Limits { depth: Some(4), ..Limits::default() });
    let last: Vec<&Info> = out.infos.iter().filter(|i| i.depth == 4).collect();
    assert_eq!(last.iter().map(|i| i.multipv).collect::<Vec<_>>(), vec![1, 2, 3]);
    let firsts: std::collections::HashSet<Move> = last.iter().map(|i| i.pv[0]).collect();
    assert_eq!(firsts.len(), 3);
    assert_eq!(out.best, Some(last[0].pv[0]));
}

#[test]
fn a_clock_search_stays_inside_its_time_and_names_a_ponder_move() {
    let mut pos = Position::start(Variant::hdc());
    pos.play("e2-IVe4-IV").unwrap();
    // 10 s on the clock: a soft limit of 200 ms and a hard one of 600 ms, room
    // enough for depth 1 in a debug build (the hard limit is exact since the
    // watchdog watches it, so a 2 s clock's 120 ms could end it before depth 1).
    let limits = Limits {
        wtime: Some(Duration::from_millis(10_000)),
        btime: Some(Duration::from_millis(10_000)),
        ..Limits::default()
    };
    let t0 = Instant::now();
    let out = search_with(Settings { threads: 2, ..Settings::default() }, &pos, limits);
    assert!(t0.elapsed() < Duration::from_millis(1_600), "took {:?}", t0.elapsed());
    let best = out.best.expect("a move");
    assert!(pos.is_legal(best));
    if let Some(p) = out.ponder {
        pos.make(best);
        assert!(pos.is_legal(p));
    }
    let info = out.infos.last().expect("info");
    assert!(info.nodes > 0 && info.hashfull <= 1000 && !info.pv.is_empty());
}

#[test]
fn pondering_ignores_the_clock_until_ponderhit() {
    let pos = Position::start(Variant::haberkorn());
    let mut engine = Engine::new(Settings::default());
    let (tx, rx) = mpsc::channel();
    let clock = Limits {
        wtime: Some(Duration::from_millis(300)),
        btime: Some(Duration::from_millis(300)),
        ponder: true,
        ..Limits::default()
    };
    engine.go(&pos, clock, Box::new(move |r| drop(tx.send(r))));
    std::thread::sleep(Duration::from_millis(500));
    assert!(engine.is_searching(), "a ponder search outlives its clock");
    assert!(!rx.try_iter().any(|r| matches!(r, Report::BestMove { .. })));
    engine.ponderhit();
    let deadline = Instant::now() + Duration::from_secs(5);
    let best = loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Report::BestMove { best, .. }) => break best,
            Ok(_) => {}
            Err(e) => panic!("no bestmove after ponderhit: {e}"),
        }
    };
    engine.wait();
    assert!(pos.is_legal(best.expect("a move")));
}

#[test]
fn go_mate_and_go_depth_end_by_themselves() {
    let (variant, fen, n) = MATES[1];
    let pos = Position::from_fen(fen, variant()).unwrap();
    let out = search(&pos, Limits { mate: Some(n as u32), ..Limits::default() });
    assert_eq!(out.infos.last().unwrap().score, Score::Mate(n));
    let out = search(&Position::start(Variant::hdc()), Limits { depth: Some(3), ..Limits::default() });
    assert_eq!(out.infos.iter().map(|i| i.depth).max(), Some(3));
}

/// The nodes of a one-thread search to `depth` with `params` (a fresh engine and table).
fn nodes_with(params: SearchParams, pos: &Position, depth: u32) -> u64 {
    let mut engine = Engine::new(Settings { hash_mb: 8, ..Settings::default() });
    engine.set_params(params);
    let (tx, rx) = mpsc::channel();
    engine.go(pos, Limits { depth: Some(depth), ..Limits::default() }, Box::new(move |r| drop(tx.send(r))));
    engine.wait();
    rx.try_iter().filter_map(|r| if let Report::Info(i) = r { Some(i.nodes) } else { None }).last().unwrap()
}

/// `Strategy::AlphaBeta` ("every selective technique off") is a full-width
/// search whatever the selective techniques' numbers: set to their most
/// aggressive ends, they change the node count of the normal search but not
/// of the full-width one. (History pruning had no switch, so the full-width
/// search still pruned by history in haberkorn.)
#[test]
fn the_full_width_search_ignores_every_pruning_number() {
    let aggressive = [
        ("rfp_max_depth", 16),
        ("rfp_margin", 20),
        ("nmp_min_depth", 1),
        ("lmp_max_depth", 16),
        ("lmp_base", 0),
        ("history_prune_depth", 12),
        ("history_prune_margin", 250),
        ("futility_max_depth", 12),
        ("futility_base", 0),
        ("futility_depth", 20),
        ("see_quiet_depth", 10),
        ("see_quiet_margin", 0),
        ("see_capture_depth", 12),
        ("see_capture_margin", 0),
        ("lmr_min_depth", 1),
        ("lmr_base", 300),
        ("lmr_divisor", 100),
    ];
    let mut pruning = GameTunables::default();
    for (name, value) in aggressive {
        pruning.set(name, value).unwrap();
    }
    for (pos, depth) in [(Position::start(Variant::hdc()), 3), (hab_start(), 4)] {
        let switches = GameSwitches::every_game(Switches::FULL_WIDTH);
        let full = |tunables| nodes_with(SearchParams { switches, tunables }, &pos, depth);
        let switches = GameSwitches::every_game(Switches::ALL_ON);
        let normal = |tunables| nodes_with(SearchParams { switches, tunables }, &pos, depth);
        let game = pos.variant().kind;
        assert_eq!(full(pruning), full(GameTunables::default()), "{game}");
        assert_ne!(
            normal(pruning),
            normal(GameTunables::default()),
            "{game}: the numbers act when the switches are on"
        );
    }
    // History pruning alone, in haberkorn (on by default there): off by its switch.
    let mut off = GameSwitches::default();
    assert!(off.set("history_pruning_haberkorn", false));
    let mut history = GameTunables::default();
    history.set("history_prune_margin", 250).unwrap();
    let params = |switches, tunables| SearchParams { switches, tunables };
    assert_eq!(
        nodes_with(params(off, history), &hab_start(), 5),
        nodes_with(params(off, GameTunables::default()), &hab_start(), 5)
    );
    // In hdc it is off by default, whatever its numbers, until its switch is on.
    // (A middle game: from the start, too few quiet moves fall below the margin.)
    let hdc = Position::from_fen(cubist::bench::POSITIONS[3].fen, Variant::hdc()).unwrap();
    history.set("history_prune_depth", 12).unwrap();
    let defaults = GameSwitches::default();
    let nodes = |switches, tunables| nodes_with(params(switches, tunables), &hdc, 6);
    assert_eq!(nodes(defaults, history), nodes(defaults, GameTunables::default()));
    let mut on = defaults;
    assert!(on.set("history_pruning_hdc", true));
    assert_ne!(nodes(on, history), nodes(defaults, history));
}

/// Haberkorn's start after four knight and pawn moves.
fn hab_start() -> Position {
    let mut pos = Position::start(Variant::haberkorn());
    for m in ["e2-IVe4-IV", "e7-Ve5-V", "g1-IVf3-IV", "b8-Vc6-V"] {
        pos.play(m).unwrap();
    }
    pos
}
