//! Runs a tactics file (`tests/data/mates.txt` format, see `cubist::core::tactics`)
//! through the search and counts the mates found at `go depth 2N + extra`,
//! with techniques switched off or tunables changed (`name` for both games,
//! `name_hdc` or `name_haberkorn` for one), to see which part of the
//! search hides a mate.
//!
//! `cargo run --release --example tactics -- --extra 2 --off reverse_futility --set lmp_share=4`

use clap::Parser;
use cubist::core::tactics::MateCase;
use cubist::search::{Engine, Limits, Report, Score, SearchParams, Settings, Switches};
use cubist::uci::move_list;
use std::sync::mpsc;

/// Command line.
#[derive(Parser)]
struct Args {
    /// The tactics file.
    #[arg(long, default_value = "tests/data/mates.txt")]
    file: String,
    /// Plies beyond 2N.
    #[arg(long, default_value_t = 0)]
    extra: u32,
    /// Techniques to switch off (comma-separated; `<name>_<game>` for one game).
    #[arg(long, value_delimiter = ',')]
    off: Vec<String>,
    /// Tunables to set, as name=value.
    #[arg(long)]
    set: Vec<String>,
    /// Print every miss, with the last principal variation.
    #[arg(long)]
    verbose: bool,
    /// Run only these lines of the file (comma-separated).
    #[arg(long, value_delimiter = ',')]
    lines: Vec<usize>,
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    let mut params = SearchParams::default();
    for name in &args.off {
        if !params.switches.set(name, false) {
            return Err(format!("unknown technique {name} (one of {})", Switches::NAMES.join(", ")));
        }
    }
    for kv in &args.set {
        let (k, v) = kv.split_once('=').ok_or(format!("expected name=value, got {kv}"))?;
        let v: i32 = v.parse().map_err(|_| format!("bad value in {kv}"))?;
        params.tunables.set(k, v).map_err(|e| e.to_string())?;
    }
    let text = std::fs::read_to_string(&args.file).map_err(|e| format!("{}: {e}", args.file))?;
    let (mut found, mut total, mut nodes) = ([0u32; 4], [0u32; 4], 0u64);
    for (i, line) in text.lines().enumerate() {
        let chosen = args.lines.is_empty() || args.lines.contains(&(i + 1));
        if !chosen || line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let case = MateCase::parse(line).map_err(|e| format!("line {}: {e}", i + 1))?;
        let mut engine = Engine::new(Settings { hash_mb: 8, ..Settings::default() });
        engine.set_params(params);
        let (tx, rx) = mpsc::channel();
        let limits = Limits { depth: Some(2 * case.moves + args.extra), ..Limits::default() };
        engine.go(&case.position, limits, Box::new(move |r| drop(tx.send(r))));
        engine.wait();
        nodes += engine.nodes();
        let (mut score, mut best, mut pv) = (None, None, Vec::new());
        for r in rx.try_iter() {
            match r {
                Report::Info(info) => {
                    score = Some(info.score);
                    pv = info.pv;
                }
                Report::BestMove { best: b, .. } => best = b,
                Report::Message(_) => {}
            }
        }
        let n = case.moves.min(3) as usize;
        total[n] += 1;
        if score == Some(Score::Mate(case.moves as i32)) && best.is_some_and(|b| case.keys.contains(&b)) {
            found[n] += 1;
        } else if args.verbose {
            println!("missed (line {}): {score:?} {best:?}: {}\n  pv {}", i + 1, case.line(), move_list(&pv));
        }
    }
    for n in 1..=3 {
        println!("mate in {n}: {}/{} found at depth {}", found[n], total[n], 2 * n as u32 + args.extra);
    }
    println!("nodes: {nodes}");
    Ok(())
}
