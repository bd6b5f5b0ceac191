//! In-process strength test: Cubist against a baseline (or against itself
//! with search techniques switched off), colours alternating, each opening
//! (a few seeded random plies from the start position) played with both
//! colours. Games end by the rules or at a move cap, adjudicated by material.
//!
//! `cargo run --release --example strength -- --variant hdc --opponent greedy --games 100 --movetime 100`
//! Self-play of one technique: `--opponent search --off null_move` (the
//! opponent searches without null-move pruning).

use cubist::core::{Color, Move, PieceKind, Position, Variant};
use cubist::search::strategy::baseline_value;
use cubist::search::{Engine, Limits, Report, SearchParams, Settings, Strategy, Switches};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use std::sync::mpsc;
use std::time::Duration;

struct Args {
    variant: Variant,
    opponent: Strategy,
    games: usize,
    movetime: u64,
    max_plies: usize,
    open_plies: usize,
    off: Vec<String>,
    seed: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        variant: Variant::hdc(),
        opponent: Strategy::Greedy,
        games: 100,
        movetime: 100,
        max_plies: 300,
        open_plies: 4,
        off: Vec::new(),
        seed: 1,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut layers = 8u8;
    let mut i = 0;
    while i < argv.len() {
        let val = argv.get(i + 1).cloned().ok_or(format!("{} needs a value", argv[i]))?;
        let num = |v: &str| v.parse::<u64>().map_err(|e| format!("{v}: {e}"));
        match argv[i].as_str() {
            "--variant" => {
                a.variant = match val.as_str() {
                    "hdc" => Variant::hdc(),
                    "haberkorn" => Variant::haberkorn(),
                    v => return Err(format!("unknown variant {v}")),
                }
            }
            "--layers" => layers = num(&val)? as u8,
            "--opponent" => a.opponent = Strategy::from_name(&val).ok_or(format!("unknown opponent {val}"))?,
            "--games" => a.games = num(&val)? as usize,
            "--movetime" => a.movetime = num(&val)?,
            "--max-plies" => a.max_plies = num(&val)? as usize,
            "--open-plies" => a.open_plies = num(&val)? as usize,
            "--off" => a.off = val.split(',').map(str::to_string).collect(),
            "--seed" => a.seed = num(&val)?,
            other => return Err(format!("unknown option {other}")),
        }
        i += 2;
    }
    if layers != 8 {
        a.variant = a.variant.with_layers(layers).map_err(|e| e.to_string())?;
    }
    Ok(a)
}

fn params_without(off: &[String]) -> Result<SearchParams, String> {
    let mut p = SearchParams::default();
    for name in off.iter().filter(|n| !n.is_empty()) {
        if !p.switches.turn_off(name) {
            return Err(format!("unknown technique {name} (one of {})", Switches::NAMES.join(", ")));
        }
    }
    Ok(p)
}

fn material(pos: &Position, c: Color) -> i32 {
    PieceKind::ALL.iter().map(|&k| pos.pieces(c, k).count() as i32 * baseline_value(k)).sum()
}

fn best_move(engine: &mut Engine, pos: &Position, movetime: u64) -> Option<Move> {
    let (tx, rx) = mpsc::channel();
    let limits = Limits { movetime: Some(Duration::from_millis(movetime)), ..Limits::default() };
    engine.go(pos, limits, Box::new(move |r| drop(tx.send(r))));
    engine.wait();
    rx.try_iter().find_map(|r| match r {
        Report::BestMove { best, .. } => Some(best),
        _ => None,
    })?
}

/// Plays one game; returns Cubist's result (1 win, 0.5 draw, 0 loss) and how it ended.
fn play(a: &Args, cubist: &mut Engine, other: &mut Engine, opening: &[Move], cubist_white: bool) -> (f64, String) {
    let mut pos = Position::start(a.variant);
    for &m in opening {
        pos.make(m);
    }
    cubist.clear();
    other.clear();
    for _ in 0..a.max_plies {
        let state = pos.game_state();
        if state.is_over() {
            let white_to_move = pos.side_to_move() == Color::White;
            let r = if state.is_draw() {
                0.5
            } else if white_to_move == cubist_white {
                0.0
            } else {
                1.0
            };
            return (r, format!("{state:?}"));
        }
        let cubist_to_move = (pos.side_to_move() == Color::White) == cubist_white;
        let engine = if cubist_to_move { &mut *cubist } else { &mut *other };
        let Some(m) = best_move(engine, &pos, a.movetime) else {
            return (if cubist_to_move { 0.0 } else { 1.0 }, "no move".into());
        };
        if !pos.is_legal(m) {
            return (if cubist_to_move { 0.0 } else { 1.0 }, format!("illegal {m}"));
        }
        pos.make(m);
    }
    let us = if cubist_white { Color::White } else { Color::Black };
    let diff = material(&pos, us) - material(&pos, !us);
    let r = if diff >= 300 {
        1.0
    } else if diff <= -300 {
        0.0
    } else {
        0.5
    };
    (r, format!("move cap, material {diff:+}"))
}

fn main() {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let off = match params_without(&a.off) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let mut cubist = Engine::new(Settings { hash_mb: 16, ..Settings::default() });
    let mut other = Engine::new(Settings { hash_mb: 16, strategy: a.opponent, ..Settings::default() });
    other.set_params(off);
    let mut rng = rand::rngs::StdRng::seed_from_u64(a.seed);
    let (mut w, mut d, mut l) = (0, 0, 0);
    let mut opening = Vec::new();
    for g in 0..a.games {
        if g % 2 == 0 {
            opening.clear();
            let mut pos = Position::start(a.variant);
            for _ in 0..a.open_plies {
                let Some(&m) = pos.legal_moves().choose(&mut rng) else { break };
                pos.make(m);
                opening.push(m);
            }
        }
        let cubist_white = g % 2 == 0;
        let (r, how) = play(&a, &mut cubist, &mut other, &opening, cubist_white);
        match r {
            1.0 => w += 1,
            0.0 => l += 1,
            _ => d += 1,
        }
        let n = (w + d + l) as f64;
        println!(
            "game {:3} cubist {} {:>4} ({how})  W {w} D {d} L {l}  score {:.1}%",
            g + 1,
            if cubist_white { "white" } else { "black" },
            r,
            (w as f64 + d as f64 / 2.0) / n * 100.0
        );
    }
    let n = (w + d + l).max(1) as f64;
    let score = (w as f64 + d as f64 / 2.0) / n;
    let elo = if score <= 0.0 || score >= 1.0 { f64::NAN } else { -400.0 * (1.0 / score - 1.0).log10() };
    println!(
        "{} vs {:?}{}: {} games, movetime {} ms: W {w} D {d} L {l}, score {:.1}%, Elo {:+.0}",
        a.variant,
        a.opponent,
        if a.off.is_empty() { String::new() } else { format!(" without {}", a.off.join(",")) },
        w + d + l,
        a.movetime,
        score * 100.0,
        elo
    );
}
