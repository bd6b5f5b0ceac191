//! `bench`: a fixed search over fixed positions of both variants, the speed
//! benchmark and (with one thread) a determinism signature: the node total is
//! the same on every run and every machine. `cubist bench` and the UCI
//! `bench` command run it alike, their arguments read by [`BenchArgs`].
//!
//! The middle- and end-game positions come from seeded greedy-versus-random
//! games played with this library from each start position; every FEN is
//! checked to load and to have a legal move (see the tests).

use crate::core::{Position, Variant};
use crate::eval::Networks;
use crate::search::{Engine, EngineError, Limits, Report, Settings};
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The depth `bench` searches to when none is given.
pub const DEFAULT_DEPTH: u32 = 8;
/// `Nodes searched` of the default bench (1 thread, 16 MiB): the search's
/// signature. Every functional change updates it here (asserted by
/// `tests/suite/bench.rs`), in README.md and in its commit message (`Bench: N`).
pub const SIGNATURE: u64 = 1_761_066;
/// Threads when none are given.
pub const DEFAULT_THREADS: usize = 1;
/// Hash MiB when none are given.
pub const DEFAULT_HASH_MB: usize = 16;

/// What `bench` is asked to do: `[hash] [threads] [depth]` by position
/// (Stockfish's order) or as `hash=N threads=N depth=N` in any order (both
/// forms may be mixed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchArgs {
    /// Depth in plies, 1 to 100.
    pub depth: u32,
    /// Search threads, 1 to 1024.
    pub threads: usize,
    /// Hash MiB, 1 to 65536.
    pub hash_mb: usize,
}

impl Default for BenchArgs {
    fn default() -> BenchArgs {
        BenchArgs { depth: DEFAULT_DEPTH, threads: DEFAULT_THREADS, hash_mb: DEFAULT_HASH_MB }
    }
}

/// How `bench`'s arguments are written (for errors and `help`).
pub const BENCH_USAGE: &str =
    "bench [hash=1..65536 MiB] [threads=1..1024] [depth=1..100] (or the numbers in that order, as Stockfish's)";

impl BenchArgs {
    /// Reads the arguments; an error names the bad one and the usage.
    pub fn parse(args: &[&str]) -> Result<BenchArgs, String> {
        const NAMES: [(&str, u64, u64); 3] = [("hash", 1, 65536), ("threads", 1, 1024), ("depth", 1, 100)];
        let mut values = [DEFAULT_HASH_MB as u64, DEFAULT_THREADS as u64, DEFAULT_DEPTH as u64];
        if args.len() > NAMES.len() {
            return Err(format!("at most three arguments; usage: {BENCH_USAGE}"));
        }
        for (i, arg) in args.iter().enumerate() {
            let (slot, text) = match arg.split_once('=') {
                Some((key, v)) => match NAMES.iter().position(|(n, ..)| *n == key) {
                    Some(slot) => (slot, v),
                    None => return Err(format!("unknown argument '{key}'; usage: {BENCH_USAGE}")),
                },
                None => (i, *arg),
            };
            let (name, min, max) = NAMES[slot];
            match text.parse::<u64>() {
                Ok(v) if (min..=max).contains(&v) => values[slot] = v,
                _ => return Err(format!("{name} must be a whole number from {min} to {max}; usage: {BENCH_USAGE}")),
            }
        }
        Ok(BenchArgs { hash_mb: values[0] as usize, threads: values[1] as usize, depth: values[2] as u32 })
    }
}

/// One bench position: a label, its variant and its 3D-FEN.
pub struct BenchPosition {
    /// What it is (variant and game stage).
    pub name: &'static str,
    /// The variant it belongs to.
    pub variant: fn() -> Variant,
    /// The position.
    pub fen: &'static str,
}

fn hdc() -> Variant {
    Variant::hdc()
}
fn hab8() -> Variant {
    Variant::haberkorn()
}
fn hab6() -> Variant {
    Variant::haberkorn_with(6, 3, 4, true, true).unwrap_or_else(|_| Variant::haberkorn())
}
fn hab4() -> Variant {
    Variant::haberkorn_with(4, 2, 3, false, false).unwrap_or_else(|_| Variant::haberkorn())
}
fn hab3() -> Variant {
    Variant::haberkorn_with(3, 1, 3, false, false).unwrap_or_else(|_| Variant::haberkorn())
}

/// The bench positions, in order.
pub const POSITIONS: [BenchPosition; 14] = [
    BenchPosition { name: "hdc start", variant: hdc, fen: crate::core::variant::HDC_START_FEN },
    BenchPosition {
        name: "hdc opening",
        variant: hdc,
        fen: "4r1n1/pppppppp/8/8/8/8/PPPPPPPP/4R3|8/1ppppppp/8/p7/6PP/8/PPPPPP2/4N3|4b3/pppppppp/8/8/8/3P4/PPP1PPPP/4B3|rn1qkbnr/ppp1pppp/3pb3/8/6P1/8/PPPPPP1P/RNBQKBNR|4d3/pppppppp/8/8/8/8/PPPPPPPP/4D3|4b3/pppppppp/8/8/8/3P4/PPP1PPPP/4B3|4n3/pppppppp/8/8/8/8/PPPPPPPP/4N3|4r3/pppppp1p/6p1/8/8/8/PPPPPPPP/4R3 w KQLUkqlu - 1 6",
    },
    BenchPosition {
        name: "hdc middle game",
        variant: hdc,
        fen: "8/p1pp2pp/8/1P2r3/8/P4P2/1PPP2P1/2B5|8/1pppp1pp/8/p7/7P/3N4/P1PPP3/8|7n/pppppppp/1n6/8/8/2PP4/PP2PP2/3K4|r4b2/pp3ppr/4p3/8/5PP1/8/P1PPP3/R7|8/ppp1pppp/8/8/7P/8/PPP2P2/8|4k3/ppp1p2p/6p1/8/8/P3P3/1PP3P1/8|r7/pppp2p1/5p2/7P/8/3P4/PPP3PP/1B6|8/3ppp2/8/1pp4p/p6P/8/PPPP4/8 b - - 0 60",
    },
    BenchPosition {
        name: "hdc middle game 2",
        variant: hdc,
        fen: "8/pppppppp/8/8/7q/2N5/PP1P4/8|8/p1pp1p2/1p6/6P1/4P2P/8/P1PP2P1/8|4n3/1ppppkpp/5p2/8/5P2/3P4/1PP1P1PP/3N4|8/pp1ppp2/7p/2p5/4P3/3P1P2/P1P3PP/8|8/p2ppppp/8/1P6/8/6K1/PPPPP1P1/8|3d3r/n1p2pp1/3p4/7p/2P5/8/PP1PPP2/8|4n3/pppp2p1/4p2p/8/8/8/PPPP1P1P/8|8/p1p1ppp1/8/8/7R/8/PPPPP1P1/8 w - - 0 58",
    },
    BenchPosition {
        name: "hdc end game",
        variant: hdc,
        fen: "8/5p2/8/4P3/2P5/P7/8/8|8/8/7p/3q4/P7/8/8/3k4|8/8/8/5P2/8/P7/8/8|8/8/8/8/7p/5p2/1P6/8|8/7p/3P4/5p2/P2P4/1P6/8/8|8/8/8/8/7p/8/8/8|8/8/8/7p/8/8/8/8|8/8/8/8/K4p2/P7/8/8 b - - 0 200",
    },
    BenchPosition { name: "haberkorn start", variant: hab8, fen: "" },
    BenchPosition {
        name: "haberkorn opening",
        variant: hab8,
        fen: "8/8/8/8/8/8/8/8|8/8/8/8/8/3B4/8/5R2|8/8/1b6/8/8/P5P1/8/8|5k2/8/8/8/2P5/8/1P1PPP1P/RNBQK1N1|rnbq2nr/1ppp1ppp/8/8/8/8/8/8|8/8/p3p3/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8 w - - 1 6",
    },
    BenchPosition {
        name: "haberkorn middle game",
        variant: hab8,
        fen: "8/8/8/8/8/8/8/8|8/8/8/8/P7/8/8/N1N2Q2|8/8/8/8/7P/8/8/8|5k2/8/8/3P2P1/8/3P4/1P2P3/8|rR5r/1p6/6p1/2p5/8/8/8/4K3|8/3b4/4p3/p7/8/8/8/8|8/8/1q6/8/8/8/8/8|8/8/8/8/8/8/8/8 b - - 0 21",
    },
    BenchPosition {
        name: "haberkorn end game",
        variant: hab8,
        fen: "8/8/8/8/8/8/8/8|8/8/8/8/6P1/8/8/7B|8/8/8/8/k7/5K2/8/8|8/8/8/8/8/8/8/8|8/8/4R3/8/2P5/8/5N2/8|8/8/8/8/3R4/8/8/8|8/8/8/8/N7/8/8/8|8/8/8/8/8/8/8/8 w - - 0 59",
    },
    BenchPosition {
        name: "haberkorn 6 layers +ep +castling middle game",
        variant: hab6,
        fen: "8/8/8/8/8/8/8/8|8/8/8/8/6P1/7r/8/8|8/8/8/8/3P4/8/R2P1P2/2B1KB2|r3kb2/ppp2R2/8/8/1P6/8/8/8|8/8/8/7p/8/2n5/8/7N|8/8/4b3/4p3/8/8/8/8 b q - 0 18",
    },
    BenchPosition { name: "haberkorn 4 layers start", variant: hab4, fen: "" },
    BenchPosition {
        name: "haberkorn 4 layers middle game",
        variant: hab4,
        fen: "7r/8/8/8/8/8/4B3/8|8/8/n2B4/4p3/7P/2P5/4PPP1/4K1NR|4kbn1/p1p5/6pp/8/8/8/1N6/8|8/3b4/8/8/8/8/8/8 b - - 0 18",
    },
    BenchPosition {
        name: "haberkorn 3 layers middle game",
        variant: hab3,
        fen: "8/8/3Q4/4p3/5P2/7N/1BP4P/R7|8/8/6p1/2p5/3P4/P1N5/8/4K3|1nbqkb2/1p1p4/8/r7/8/8/8/8 b - - 0 15",
    },
    BenchPosition {
        name: "haberkorn 3 layers end game",
        variant: hab3,
        fen: "8/8/8/8/2P5/P1P4P/5K2/2B5|8/8/8/8/R7/8/8/8|6k1/8/8/2P5/8/8/8/8 b - - 0 41",
    },
];

impl BenchPosition {
    /// The position (an empty FEN stands for the variant's start position).
    pub fn position(&self) -> Result<Position, crate::core::FenError> {
        let v = (self.variant)();
        if self.fen.is_empty() { Ok(Position::start(v)) } else { Position::from_fen(self.fen, v) }
    }
}

/// The outcome of a bench run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    /// Nodes searched over all positions.
    pub nodes: u64,
    /// Wall time in milliseconds.
    pub time_ms: u64,
    /// Nodes per second.
    pub nps: u64,
}

/// Searches every bench position to `depth` with `threads` threads and a
/// `hash_mb` table (cleared first), writing one line per position and then
/// the Stockfish-style summary to `out`. When the system refuses the table
/// or the threads, the reason is written instead and the result is empty
/// ([`try_run`] returns it as an error).
pub fn run(depth: u32, threads: usize, hash_mb: usize, out: &mut dyn Write) -> BenchResult {
    try_run(depth, threads, hash_mb, &Settings::default().networks, out).unwrap_or_else(|e| {
        let _ = writeln!(out, "bench: {e}");
        BenchResult { nodes: 0, time_ms: 0, nps: 0 }
    })
}

/// [`run`] with the evaluation `networks` (the UCI `bench` passes those of
/// `EvalFile`), or why the system refuses the table or the threads (nothing is written then).
pub fn try_run(
    depth: u32,
    threads: usize,
    hash_mb: usize,
    networks: &Networks,
    out: &mut dyn Write,
) -> Result<BenchResult, EngineError> {
    let settings =
        Settings { hash_mb, threads, move_overhead_ms: 0, networks: networks.clone(), ..Settings::default() };
    let mut engine = Engine::try_new(settings)?;
    engine.clear();
    let threads_word = if threads == 1 { "thread" } else { "threads" };
    let _ = writeln!(out, "Bench: hash {hash_mb} MiB, {threads} {threads_word}, depth {depth}");
    let start = Instant::now();
    let mut total = 0;
    for (i, bp) in POSITIONS.iter().enumerate() {
        let pos = match bp.position() {
            Ok(p) => p,
            Err(e) => {
                let _ = writeln!(out, "Position {}/{} ({}): bad FEN: {e}", i + 1, POSITIONS.len(), bp.name);
                continue;
            }
        };
        let seen: Arc<Mutex<(Option<crate::search::Info>, Option<crate::core::Move>)>> = Arc::default();
        let sink = Arc::clone(&seen);
        let t0 = Instant::now();
        engine.go(
            &pos,
            Limits { depth: Some(depth), ..Limits::default() },
            Box::new(move |r| {
                if let Ok(mut s) = sink.lock() {
                    match r {
                        Report::Info(info) => s.0 = Some(info),
                        Report::BestMove { best, .. } => s.1 = best,
                        Report::Message(_) => {}
                    }
                }
            }),
        );
        engine.wait();
        let ms = t0.elapsed().as_millis();
        let nodes = engine.nodes();
        total += nodes;
        let (score, best) = match seen.lock() {
            Ok(s) => (s.0.as_ref().map(|i| i.score.to_string()), s.1),
            Err(_) => (None, None),
        };
        let _ = writeln!(
            out,
            "Position {:2}/{} {:<46} nodes {:>10}  {:>6} ms  best {}  score {}",
            i + 1,
            POSITIONS.len(),
            bp.name,
            nodes,
            ms,
            best.map_or("(none)".to_string(), |m| m.to_string()),
            score.unwrap_or_default()
        );
    }
    let time_ms = start.elapsed().as_millis().max(1) as u64;
    let result = BenchResult { nodes: total, time_ms, nps: total * 1000 / time_ms };
    let _ = writeln!(out, "\n===========================");
    let _ = writeln!(out, "Total time (ms) : {}", result.time_ms);
    let _ = writeln!(out, "Nodes searched  : {}", result.nodes);
    let _ = writeln!(out, "Nodes/second    : {}", result.nps);
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_arguments_by_position_or_by_name() {
        let parse = |s: &str| BenchArgs::parse(&s.split_whitespace().collect::<Vec<_>>());
        assert_eq!(parse(""), Ok(BenchArgs::default()));
        assert_eq!(parse("3"), Ok(BenchArgs { hash_mb: 3, ..BenchArgs::default() }));
        assert_eq!(parse("depth=3"), Ok(BenchArgs { depth: 3, ..BenchArgs::default() }));
        assert_eq!(parse("hash=64 depth=5"), Ok(BenchArgs { depth: 5, threads: 1, hash_mb: 64 }));
        assert_eq!(parse("32 2 4"), Ok(BenchArgs { depth: 4, threads: 2, hash_mb: 32 }));
        assert_eq!(parse("16 1 6"), Ok(BenchArgs { depth: 6, threads: 1, hash_mb: 16 }));
        assert_eq!(parse("64 depth=5"), Ok(BenchArgs { depth: 5, threads: 1, hash_mb: 64 }));
        assert!(parse("16 1 101").unwrap_err().contains("depth must be"));
        for bad in ["0", "depth=101", "speed=3", "1 2 3 4", "threads=x"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert!(parse("depth=101").unwrap_err().contains("from 1 to 100"));
    }

    #[test]
    fn every_bench_position_loads_and_is_playable() {
        for bp in &POSITIONS {
            let pos = bp.position().unwrap_or_else(|e| panic!("{}: {e}", bp.name));
            assert!(!pos.game_state().is_over(), "{}", bp.name);
            if !bp.fen.is_empty() {
                assert_eq!(pos.fen(), bp.fen, "{} round-trips", bp.name);
            }
        }
        assert!(POSITIONS.len() >= 12);
    }
}
