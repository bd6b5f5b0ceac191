//! In-process strength test: Cubist against a baseline (or against itself
//! with search techniques switched off), colours alternating, each opening
//! (a few seeded random plies from the start position) played with both
//! colours. Games end by the rules or at a move cap, adjudicated by material.
//!
//! `cargo run --release --example strength -- --variant hdc --opponent greedy --games 100 --movetime 100`
//! Self-play of one technique: `--opponent search --off null_move` (the
//! opponent searches without null-move pruning).

use clap::Parser;
use cubist::arena::stats::Tally;
use cubist::arena::summary::{fmt_elo, fmt_err};
use cubist::core::{Color, GameState, Move, PieceKind, Position, Variant};
use cubist::eval::values::baseline_value;
use cubist::search::{Engine, Limits, Report, SearchParams, Settings, Strategy, Switches};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use std::sync::mpsc;
use std::time::Duration;

/// In-process games of Cubist against a baseline or a weakened copy of itself.
#[derive(Parser)]
struct Args {
    /// The game: hdc or haberkorn.
    #[arg(long, default_value = "hdc", value_parser = ["hdc", "haberkorn"])]
    variant: String,
    /// Haberkorn: layers of the board (the setup layers are adapted).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(3..=8))]
    layers: u8,
    /// The opponent: random, greedy or search.
    #[arg(long, default_value = "greedy", value_parser = Strategy::NAMES)]
    opponent: String,
    /// Games to play (colours alternate; each opening is played with both colours).
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Milliseconds per move for both sides.
    #[arg(long, default_value_t = 100)]
    movetime: u64,
    /// Plies after which a game is adjudicated by material.
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    /// Random plies that open each pair of games.
    #[arg(long, default_value_t = 4)]
    open_plies: usize,
    /// Search techniques switched off in the opponent, comma-separated
    /// (null_move, lmr, reverse_futility, futility, late_move_pruning,
    /// history_pruning, see_pruning, aspiration; `<name>_<game>` for one game).
    #[arg(long, value_delimiter = ',')]
    off: Vec<String>,
    /// Search techniques switched on in the opponent where they are off by
    /// default (`history_pruning_hdc`), comma-separated.
    #[arg(long, value_delimiter = ',')]
    on: Vec<String>,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

impl Args {
    fn variant(&self) -> Result<Variant, String> {
        match self.variant.as_str() {
            "hdc" => Ok(Variant::hdc()),
            _ if self.layers == 8 => Ok(Variant::haberkorn()),
            _ => Variant::haberkorn().with_layers(self.layers).map_err(|e| e.to_string()),
        }
    }

    fn opponent(&self) -> Strategy {
        Strategy::from_name(&self.opponent).unwrap_or_default()
    }
}

/// How a game state reads in the log.
fn describe(state: GameState) -> &'static str {
    match state {
        GameState::Ongoing => "ongoing",
        GameState::Checkmate => "checkmate",
        GameState::Stalemate => "stalemate",
        GameState::FiftyMoves => "fifty moves",
        GameState::Repetition => "repetition",
        GameState::DeadMaterial => "dead material",
    }
}

fn params_without(off: &[String], on: &[String]) -> Result<SearchParams, String> {
    let mut p = SearchParams::default();
    let switches = off.iter().map(|n| (n, false)).chain(on.iter().map(|n| (n, true)));
    for (name, value) in switches.filter(|(n, _)| !n.is_empty()) {
        if !p.switches.set(name, value) {
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
fn play(
    a: &Args,
    variant: Variant,
    cubist: &mut Engine,
    other: &mut Engine,
    opening: &[Move],
    cubist_white: bool,
) -> (f64, String) {
    let mut pos = Position::start(variant);
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
            return (r, describe(state).to_string());
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
    let a = Args::parse();
    let (variant, off) = match (a.variant(), params_without(&a.off, &a.on)) {
        (Ok(v), Ok(off)) => (v, off),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let mut cubist = Engine::new(Settings { hash_mb: 16, ..Settings::default() });
    let mut other = Engine::new(Settings { hash_mb: 16, strategy: a.opponent(), ..Settings::default() });
    other.set_params(off);
    let mut rng = rand::rngs::StdRng::seed_from_u64(a.seed);
    let mut tally = Tally::default();
    let mut opening = Vec::new();
    for g in 0..a.games {
        if g % 2 == 0 {
            opening.clear();
            let mut pos = Position::start(variant);
            for _ in 0..a.open_plies {
                let Some(&m) = pos.legal_moves().choose(&mut rng) else { break };
                pos.make(m);
                opening.push(m);
            }
        }
        let cubist_white = g % 2 == 0;
        let (r, how) = play(&a, variant, &mut cubist, &mut other, &opening, cubist_white);
        tally.add_game(r);
        println!(
            "game {:3} cubist {} {:>4} ({how})  W {} D {} L {}  score {:.1}%",
            g + 1,
            if cubist_white { "white" } else { "black" },
            r,
            tally.wins,
            tally.draws,
            tally.losses,
            tally.score() * 100.0
        );
    }
    println!(
        "{variant} vs {}{}: {} games, movetime {} ms: W {} D {} L {}, score {:.1}%, Elo {} ± {}",
        a.opponent,
        if a.off.is_empty() { String::new() } else { format!(" without {}", a.off.join(",")) },
        tally.games(),
        a.movetime,
        tally.wins,
        tally.draws,
        tally.losses,
        tally.score() * 100.0,
        fmt_elo(tally.elo()),
        fmt_err(tally.elo_error())
    );
}
