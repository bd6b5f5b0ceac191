//! Finds forced mates in 1, 2 and 3 in both games (haberkorn on 3 to 8
//! layers) and writes them in the tactics format of `cubist::core::tactics`.
//!
//! Random sparse positions (two kings, one to three attacking pieces, up to
//! two defenders, the defending king often on a face of the cube) are
//! screened by a full-width search (no pruning, so the screen does not share
//! the blind spots of the engine under test) and then proved by brute force:
//! a mate in N and no mate in N - 1, with every key move listed.
//!
//! With `--kind lopsided` the setups are crowded, one-sided positions of
//! real play instead: from the start position (haberkorn with random setup
//! layers on 3 to 8 layers) one side searches (1,500 nodes a move) and the
//! other moves at random, and each position where the searching side is to
//! move, leads by `--lead` or more in material and still has most of its
//! army is tried for a mate in 2 or 3 (mates in 1 are skipped): the class of
//! mates a winning side overlooks when it plays "a winning but slower move".
//!
//! `cargo run --release --example mates -- --per-length 14 --seed 1 > tests/data/mates.txt`
//! `cargo run --release --example mates -- --kind lopsided --per-length 28 --seed 11 > lopsided.txt`

use clap::Parser;
use cubist::core::tactics::{MateCase, mate_within};
use cubist::core::{Color, Move, PieceKind, Position, Variant};
use cubist::eval::values::baseline_value;
use cubist::search::{Engine, GameSwitches, Limits, Report, Score, SearchParams, Settings, Switches};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use std::sync::mpsc;

/// Command line.
#[derive(Parser)]
struct Args {
    /// Mates of each length (1, 2, 3) per game.
    #[arg(long, default_value_t = 14)]
    per_length: usize,
    /// Seed of the random setups.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Only this game (`hdc` or `haberkorn`).
    #[arg(long)]
    variant: Option<String>,
    /// `sparse` (a few pieces around a king) or `lopsided` (crowded, one side far ahead).
    #[arg(long, default_value = "sparse", value_parser = ["sparse", "lopsided"])]
    kind: String,
    /// Lopsided: the least material lead (baseline values, centipawns) of the side to move.
    #[arg(long, default_value_t = 1500)]
    lead: i32,
}

/// Puts `piece` on a random empty square: in a corner if `corner`, else
/// within `near` squares (Chebyshev distance) of `centre` if given; returns it.
fn put(
    rng: &mut StdRng,
    board: &mut [Vec<[char; 8]>],
    piece: char,
    corner: bool,
    near: Option<([usize; 3], usize)>,
) -> [usize; 3] {
    let layers = board.len();
    let max = [7, 7, layers - 1];
    loop {
        let mut c = [rng.random_range(0..8usize), rng.random_range(0..8usize), rng.random_range(0..layers)];
        if corner {
            for (axis, v) in c.iter_mut().enumerate() {
                let edge = rng.random_range(0..2usize);
                *v = if rng.random_bool(0.8) { edge * max[axis] } else { rng.random_range(0..=max[axis]) };
            }
        } else if let Some((centre, d)) = near {
            for (axis, v) in c.iter_mut().enumerate() {
                let lo = centre[axis].saturating_sub(d);
                let hi = (centre[axis] + d).min(max[axis]);
                *v = rng.random_range(lo..=hi);
            }
        }
        if board[c[2]][c[1]][c[0]] == '.' {
            board[c[2]][c[1]][c[0]] = piece;
            return c;
        }
    }
}

/// A random sparse position of `variant` (`None` if it is not a legal setup).
fn random_position(rng: &mut StdRng, variant: Variant) -> Option<Position> {
    let layers = variant.layers as usize;
    let mut board = vec![vec![['.'; 8]; 8]; layers];
    let attacker = if rng.random_bool(0.5) { Color::White } else { Color::Black };
    let case = |c: char, color: Color| if color == Color::White { c.to_ascii_uppercase() } else { c };
    let king = put(rng, &mut board, case('k', !attacker), true, None);
    put(rng, &mut board, case('k', attacker), false, Some((king, 3)));
    let strong: &[char] = if variant.rules().has_kind(cubist::core::PieceKind::Duke) {
        &['q', 'd', 'r', 'b', 'n']
    } else {
        &['q', 'r', 'b', 'n']
    };
    for _ in 0..rng.random_range(2..=3) {
        let p = *strong.choose(rng)?;
        put(rng, &mut board, case(p, attacker), false, Some((king, 4)));
    }
    for _ in 0..rng.random_range(0..=2) {
        let p = *['r', 'b', 'n', 'p', 'p'].choose(rng)?;
        put(rng, &mut board, case(p, !attacker), false, Some((king, 2)));
    }
    let placement: Vec<String> = board
        .iter()
        .map(|layer| {
            (0..8)
                .rev()
                .map(|y| {
                    let mut s = String::new();
                    let mut empty = 0;
                    for &c in &layer[y] {
                        if c == '.' {
                            empty += 1;
                        } else {
                            if empty > 0 {
                                s.push_str(&empty.to_string());
                                empty = 0;
                            }
                            s.push(c);
                        }
                    }
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                    }
                    s
                })
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    let side = if attacker == Color::White { "w" } else { "b" };
    let fen = format!("{} {side} - - 0 1", placement.join("|"));
    let pos = Position::from_fen(&fen, variant).ok()?;
    (!pos.legal_moves().is_empty()).then_some(pos)
}

/// The material of `color` by the greedy baseline's values.
fn material(pos: &Position, color: Color) -> i32 {
    PieceKind::ALL.iter().map(|&k| baseline_value(k) * pos.pieces(color, k).count() as i32).sum()
}

/// The best move of a 1,500-node search of `pos` (`None` when there is none).
fn searched_move(engine: &mut Engine, pos: &Position) -> Option<Move> {
    let (tx, rx) = mpsc::channel();
    engine.go(pos, Limits { nodes: Some(1500), ..Limits::default() }, Box::new(move |r| drop(tx.send(r))));
    engine.wait();
    rx.try_iter().find_map(|r| match r {
        Report::BestMove { best, .. } => best,
        _ => None,
    })
}

/// A mate in 2 or 3 met in a lopsided game from setup number `i` of `game`:
/// the searching side (random colour) plays against random moves, and each
/// of its turns with a lead of `lead` or more and at least three quarters of
/// its army left is tried (reproducible from the seed).
fn attempt_lopsided(game: &str, seed: u64, i: u64, lead: i32) -> Option<MateCase> {
    let mut rng = StdRng::seed_from_u64(seed.wrapping_mul(1_000_003).wrapping_add(i) ^ 0x5eed_1095);
    let variant = if game == "hdc" {
        Variant::hdc()
    } else {
        let layers = rng.random_range(3..=8u8);
        Variant::haberkorn_with(layers, rng.random_range(1..=layers), rng.random_range(1..=layers), false, false)
            .ok()?
    };
    let mut pos = Position::start(variant);
    let strong = if rng.random_bool(0.5) { Color::White } else { Color::Black };
    let army = pos.color_pieces(strong).count();
    let mut engine = Engine::new(Settings { hash_mb: 4, ..Settings::default() });
    for _ in 0..300 {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.halfmove_clock() >= 100 {
            return None;
        }
        let m = if pos.side_to_move() == strong {
            if material(&pos, strong) - material(&pos, !strong) >= lead
                && 4 * pos.color_pieces(strong).count() >= 3 * army
            {
                let mut nodes = 0;
                if !mate_within(&mut pos, 1, &mut nodes) {
                    if mate_within(&mut pos, 2, &mut nodes) {
                        return MateCase::prove(&pos, 2);
                    }
                    if screen(&pos) == Some(3) {
                        return MateCase::prove(&pos, 3);
                    }
                }
            }
            searched_move(&mut engine, &pos)?
        } else {
            *moves.choose(&mut rng)?
        };
        pos.make(m);
    }
    None
}

/// The full-width search's verdict at depth 5: the mate length it finds, if any
/// (only mates in 3 get this far).
fn screen(pos: &Position) -> Option<u32> {
    let mut engine = Engine::new(Settings { hash_mb: 4, ..Settings::default() });
    engine.set_params(SearchParams {
        switches: GameSwitches::every_game(Switches::FULL_WIDTH),
        ..SearchParams::default()
    });
    let (tx, rx) = mpsc::channel();
    let limits = Limits { depth: Some(5), nodes: Some(1_000_000), ..Limits::default() };
    engine.go(pos, limits, Box::new(move |r| drop(tx.send(r))));
    engine.wait();
    let mut last = None;
    for r in rx.try_iter() {
        if let Report::Info(i) = r {
            last = Some(i.score);
        }
    }
    match last {
        Some(Score::Mate(m)) if (1..=3).contains(&m) => Some(m as u32),
        _ => None,
    }
}

/// The mate found from setup number `i` of `game`, if any (reproducible from the seed).
fn attempt(game: &str, seed: u64, i: u64) -> Option<MateCase> {
    let mut rng = StdRng::seed_from_u64(seed.wrapping_mul(1_000_003).wrapping_add(i));
    let variant = if game == "hdc" {
        Variant::hdc()
    } else {
        Variant::haberkorn().with_layers(rng.random_range(3..=8u8)).ok()?
    };
    let mut pos = random_position(&mut rng, variant)?;
    let mut nodes = 0;
    for n in 1..=2 {
        if mate_within(&mut pos, n, &mut nodes) {
            return MateCase::prove(&pos, n);
        }
    }
    let n = screen(&pos)?;
    MateCase::prove(&pos, n)
}

fn main() {
    let args = Args::parse();
    println!("# Forced mates proved by brute force (cubist::core::tactics); made by");
    let kind = if args.kind == "lopsided" { format!(" --kind lopsided --lead {}", args.lead) } else { String::new() };
    println!("# cargo run --release --example mates --{kind} --per-length {} --seed {}", args.per_length, args.seed);
    println!("# variant ; mate in N ; proof nodes ; key moves ; 3D-FEN");
    let games: Vec<&str> = match args.variant.as_deref() {
        Some(v) => vec![v],
        None => vec!["hdc", "haberkorn"],
    };
    for game in games {
        let lopsided = args.kind == "lopsided";
        // Lopsided sets hold mates in 2 and 3 only.
        let wanted = |n: usize| if lopsided && n == 0 { 0 } else { args.per_length };
        let mut found: [Vec<MateCase>; 3] = Default::default();
        let mut next = 0u64;
        let step = if lopsided { 8 } else { 64 };
        while found.iter().enumerate().any(|(n, f)| f.len() < wanted(n)) {
            let batch: Vec<MateCase> = (next..next + step)
                .into_par_iter()
                .filter_map(|i| {
                    if lopsided { attempt_lopsided(game, args.seed, i, args.lead) } else { attempt(game, args.seed, i) }
                })
                .collect();
            next += step;
            for case in batch {
                let bucket = &mut found[case.moves as usize - 1];
                if bucket.len() < wanted(case.moves as usize - 1) {
                    bucket.push(case);
                }
            }
            let counts: Vec<usize> = found.iter().map(Vec::len).collect();
            eprintln!("{game}: {next} setups, mates in 1/2/3: {counts:?}");
        }
        for case in found.iter().flatten() {
            println!("{}", case.line());
        }
    }
}
