//! A bounded fuzz run of the UCI process: random and mutated command lines
//! against the built binary, checking after every line that the engine is
//! alive (`isready` is answered, nothing panics), and with `d` that its
//! position is a valid one of the game it names and that a refused
//! `position` left it unchanged.
//!
//! It runs for `CUBIST_FUZZ_SECS` seconds (default 10, so CI stays short)
//! from seed `CUBIST_FUZZ_SEED` (default: from the clock, printed so that a
//! failure can be replayed), or, when `CUBIST_FUZZ_LINES` is set, until that
//! many lines have been sent (the time limit then applies only if also set).
//! A long hunt:
//! `CUBIST_FUZZ_SECS=600 cargo test --release --test suite fuzz_uci:: -- --nocapture`;
//! an exact one: `CUBIST_FUZZ_LINES=250000 CUBIST_FUZZ_SEED=1 cargo test …`.
//! It ends by printing the lines sent, the seed and the lines per second.
//!
//! Lines that would legitimately stall or end the engine are not sent:
//! `quit`, `go perft` deeper than 3 (perft holds commands back until it
//! finishes, as Stockfish's does), `bench` beyond depth 1, and `Hash` above
//! 1024 MiB (a machine with the memory would really allocate it).

use cubist::core::{Position, Variant};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use std::io::Write;
use std::process::{Child, ChildStdin};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use crate::common::spawn_cubist;

/// How long one `isready` may take: generous, a search of 1024 threads may be winding down on a busy machine.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// The last lines sent, for the failure message.
    sent: Vec<String>,
}

impl Engine {
    fn start() -> Engine {
        let (child, stdin, lines) = spawn_cubist(&[]);
        Engine { child, stdin, lines, sent: Vec::new() }
    }

    fn fail(&self, why: &str) -> ! {
        let tail = &self.sent[self.sent.len().saturating_sub(30)..];
        panic!("{why}; the last lines sent:\n{}", tail.join("\n"))
    }

    fn send(&mut self, line: &str) {
        self.sent.push(line.chars().take(200).collect());
        if self.stdin.write_all(format!("{line}\n").as_bytes()).and_then(|()| self.stdin.flush()).is_err() {
            self.fail("the engine closed its input");
        }
    }

    /// Sends `isready`; the lines printed before `readyok`.
    fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let deadline = Instant::now() + READY_TIMEOUT;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l == "readyok" => return seen,
                Ok(l) => {
                    if l.contains("panicked") {
                        self.fail(&format!("the engine printed {l:?}"));
                    }
                    seen.push(l);
                }
                Err(_) => {
                    let status = self.child.try_wait().ok().flatten();
                    self.fail(&format!("no readyok within {READY_TIMEOUT:?} (exit status {status:?})"))
                }
            }
        }
    }

    /// `d`: the FEN and the variant line.
    fn position(&mut self) -> (String, String) {
        self.send("d");
        let out = self.sync();
        let find = |p: &str| out.iter().find_map(|l| l.strip_prefix(p)).map(str::to_string);
        match (find("Fen: "), find("Variant: ")) {
            (Some(f), Some(v)) => (f, v),
            _ => self.fail(&format!("d printed no Fen/Variant: {out:?}")),
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The variant `d` names (`hdc` or `haberkorn (<n> layers, en passant on|off, castling on|off)`),
/// to read its FEN back; the FEN brings its own layer count.
fn variant_of(text: &str) -> Option<Variant> {
    if text == "hdc" {
        return Some(Variant::hdc());
    }
    let rest = text.strip_prefix("haberkorn (")?;
    Some(Variant {
        en_passant: rest.contains("en passant on"),
        castling: rest.contains("castling on"),
        ..Variant::haberkorn()
    })
}

const OPTIONS: [(&str, &[&str]); 13] = [
    ("Hash", &["1", "16", "64", "0", "-5", "65537", "x"]),
    ("Threads", &["1", "2", "4", "64", "0", "1025", "many"]),
    ("Clear Hash", &[""]),
    ("MultiPV", &["1", "3", "256", "0"]),
    ("Ponder", &["true", "false", "maybe"]),
    ("Move Overhead", &["0", "10", "5000", "-1"]),
    ("Strategy", &["search", "greedy", "random", "chess"]),
    ("UCI_Variant", &["hdc", "haberkorn", "chess"]),
    ("HaberkornLayers", &["3", "4", "8", "2", "9"]),
    ("HaberkornWhiteLayer", &["1", "2", "4", "8", "0"]),
    ("HaberkornBlackLayer", &["1", "3", "5", "8", "9"]),
    ("HaberkornEnPassant", &["true", "false"]),
    ("HaberkornCastling", &["true", "false"]),
];

const FENS: [&str; 4] = [
    "8/8/8/8/8/8/8/R3K3|8/8/8/8/8/8/8/8|4k3/8/8/8/8/8/8/7r w - - 0 1",
    "8/8/8/8/8/8/8/4K3|8/8/8/8/4P3/8/8/8|4k3/8/8/8/8/8/8/8 b - e3-I,e3-II:e4-II 65535 4294967295",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8 w KQkq - 0 1",
    cubist::core::variant::HDC_START_FEN,
];

/// A well-formed line, with legal moves of `pos` where moves appear.
fn valid_line(rng: &mut StdRng, pos: &Position) -> String {
    let legal = pos.legal_moves();
    let some_moves = |rng: &mut StdRng| -> String {
        let mut p = pos.clone();
        let mut out = Vec::new();
        for _ in 0..rng.random_range(1..6) {
            let Some(&m) = p.legal_moves().choose(rng) else { break };
            p.make(m);
            out.push(m.to_string());
        }
        out.join(" ")
    };
    match rng.random_range(0..17) {
        0 => "uci".into(),
        1 => "ucinewgame".into(),
        2 => "position startpos".into(),
        3 => format!("position startpos moves {}", some_moves(rng)),
        4 => format!("position fen {}", FENS.choose(rng).unwrap()),
        5 => format!("position fen {} moves {}", pos.fen(), some_moves(rng)),
        6 => format!("go depth {}", rng.random_range(1..3)),
        7 => format!("go movetime {}", rng.random_range(1..30)),
        8 => format!("go nodes {}", rng.random_range(1..2000)),
        9 => format!("go perft {}", rng.random_range(0..3)),
        10 => "go infinite".into(),
        11 => "stop".into(),
        12 => {
            let (name, values) = OPTIONS.choose(rng).unwrap();
            match values.choose(rng).unwrap() {
                &"" => format!("setoption name {name}"),
                v => format!("setoption name {name} value {v}"),
            }
        }
        13 => ["d", "eval", "debug on", "debug off", "ponderhit", "help"].choose(rng).unwrap().to_string(),
        14 => match legal.choose(rng) {
            Some(m) => format!("go depth 2 searchmoves {m}"),
            None => "go depth 1".into(),
        },
        15 => "go wtime 500 btime 500 winc 10 binc 10".into(),
        _ => "bench depth=1".into(),
    }
}

/// Garbage and edge values that mutations splice in.
const NASTY: [&str; 14] = [
    "",
    "-1",
    "0",
    "18446744073709551616",
    "4294967296",
    "1e9",
    "NaN",
    "e2-IVe4-IV",
    "e2–IVe4–IV",
    "|||||||",
    "value",
    "moves",
    "\u{0}",
    "ü∑©",
];

/// `line` mutated: tokens dropped, doubled, swapped or replaced, bytes flipped.
fn mutate(rng: &mut StdRng, line: &str) -> String {
    let mut tokens: Vec<String> = line.split(' ').map(str::to_string).collect();
    for _ in 0..rng.random_range(1..4) {
        let n = tokens.len();
        let i = rng.random_range(0..n.max(1));
        match rng.random_range(0..7) {
            0 if n > 1 => {
                tokens.remove(i);
            }
            1 => {
                let t = tokens.get(i).cloned().unwrap_or_default();
                tokens.insert(i, t);
            }
            2 if n > 1 => tokens.swap(i, rng.random_range(0..n)),
            3 => {
                if let Some(t) = tokens.get_mut(i) {
                    *t = NASTY.choose(rng).unwrap().to_string();
                }
            }
            4 => {
                if let Some(t) = tokens.get_mut(i) {
                    let mut bytes = t.clone().into_bytes();
                    if !bytes.is_empty() {
                        let j = rng.random_range(0..bytes.len());
                        bytes[j] = rng.random_range(32..127);
                    }
                    *t = String::from_utf8_lossy(&bytes).into_owned();
                }
            }
            5 => tokens.push("x".repeat(rng.random_range(1..5000))),
            _ => {
                if let Some(t) = tokens.get_mut(i) {
                    *t = t.to_uppercase();
                }
            }
        }
    }
    tokens.join(" ")
}

/// Whether a line may stall or end the engine legitimately (see the module docs).
fn unsafe_to_send(line: &str) -> bool {
    let words: Vec<&str> = line.split_ascii_whitespace().collect();
    let number_above = |limit: u64| words.iter().any(|w| w.parse::<u64>().is_ok_and(|n| n > limit));
    match words.first().copied() {
        Some("quit") => true,
        Some("go") => words.contains(&"perft") && (number_above(3) || words.iter().any(|w| w.contains('e'))),
        Some("bench") => words.len() != 2 || words[1] != "depth=1",
        Some("setoption") => line.to_ascii_lowercase().contains("hash") && number_above(1024),
        _ => false,
    }
}

/// How long a run goes: `CUBIST_FUZZ_LINES` lines and/or `CUBIST_FUZZ_SECS` seconds.
fn budget() -> (Option<u64>, Option<Duration>) {
    let var = |name: &str| std::env::var(name).ok().and_then(|s| s.parse::<u64>().ok());
    let lines = var("CUBIST_FUZZ_LINES");
    let secs = var("CUBIST_FUZZ_SECS").or(if lines.is_some() { None } else { Some(10) });
    (lines, secs.map(Duration::from_secs))
}

#[test]
fn fuzzed_uci_lines_never_kill_stall_or_corrupt_the_engine() {
    let (max_lines, max_time) = budget();
    let seed: u64 = std::env::var("CUBIST_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    eprintln!("fuzzing the UCI loop ({max_lines:?} lines, {max_time:?}) with CUBIST_FUZZ_SEED={seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut e = Engine::start();
    let start = Instant::now();
    let (mut fen, mut variant_line) = e.position();
    let mut lines: u64 = 0;
    while max_lines.is_none_or(|n| lines < n) && max_time.is_none_or(|t| start.elapsed() < t) {
        let variant = variant_of(&variant_line).unwrap_or_else(|| e.fail(&format!("unknown variant {variant_line:?}")));
        let pos = Position::from_fen(&fen, variant)
            .unwrap_or_else(|err| e.fail(&format!("d shows a FEN its own game refuses ({err}): {fen}")));
        let valid = valid_line(&mut rng, &pos);
        let line = if rng.random_bool(0.5) { valid } else { mutate(&mut rng, &valid) };
        if unsafe_to_send(&line) {
            continue;
        }
        e.send(&line);
        let out = e.sync();
        lines += 1;
        let refused = out.iter().any(|l| l.starts_with("info string error: "));
        let (new_fen, new_variant) = e.position();
        if refused && line.starts_with("position") && new_fen != fen {
            e.fail(&format!("a refused position changed the position:\n{out:?}\n{fen}\n{new_fen}"));
        }
        (fen, variant_line) = (new_fen, new_variant);
        if lines.is_multiple_of(10_000) {
            eprintln!("{lines} lines, {:.0} s", start.elapsed().as_secs_f64());
        }
    }
    e.send("stop");
    e.sync();
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "{lines} lines survived (CUBIST_FUZZ_SEED={seed}, {secs:.0} s, {:.0} lines/s)",
        lines as f64 / secs.max(1e-9)
    );
    assert!(lines > 0);
}
