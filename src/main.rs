//! The `cubist` binary: the UCI loop by default (or `cubist uci`), the `perft` and `bench` tools and the
//! `match` runner.

use clap::{ArgAction, ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use cubist::arena::config::{DrawRule, EngineSpec, OpeningsSpec, ResignRule, parse_sprt};
use cubist::arena::game::Adjudication;
use cubist::arena::{MatchConfig, run_match};
use cubist::core::{Position, Variant, VariantKind};
use std::process::ExitCode;
use std::time::Instant;

/// Cubist: a chess engine for 3D chess (hdc and haberkorn) speaking UCI.
#[derive(Parser)]
#[command(name = "cubist", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Speak UCI on stdin/stdout (the default when no subcommand is given); see protocol.md.
    Uci,
    /// Count the leaf nodes of the legal move tree (move generator check and benchmark).
    Perft(PerftArgs),
    /// Play engines against each other (fastchess-style options; see protocol.md).
    Match(Box<MatchArgs>),
    /// Search fixed positions to a fixed depth: speed benchmark and node-count signature.
    Bench(BenchArgs),
    /// Serve the browser GUI: play, analyse, watch and replay games.
    Gui(cubist::gui::GuiArgs),
}

#[derive(Args)]
struct BenchArgs {
    /// Depth in plies.
    #[arg(default_value_t = cubist::bench::DEFAULT_DEPTH, value_parser = clap::value_parser!(u32).range(1..=100))]
    depth: u32,
    /// Search threads.
    #[arg(default_value_t = cubist::bench::DEFAULT_THREADS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024))]
    threads: usize,
    /// Hash table size in MiB.
    #[arg(default_value_t = cubist::bench::DEFAULT_HASH_MB, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65536))]
    hash: usize,
}

/// Which variant to play and its haberkorn options.
#[derive(Args, Clone)]
struct VariantArgs {
    /// The game: hdc or haberkorn.
    #[arg(long, default_value = "hdc", value_parser = ["hdc", "haberkorn"])]
    variant: String,
    /// Haberkorn: layers of the board (3 to 8).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(3..=8))]
    layers: u8,
    /// Haberkorn: White's setup layer (1 = I).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=8))]
    white_layer: u8,
    /// Haberkorn: Black's setup layer (1 = I).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(1..=8))]
    black_layer: u8,
    /// Haberkorn: switch en passant on.
    #[arg(long)]
    en_passant: bool,
    /// Haberkorn: switch castling on.
    #[arg(long)]
    castling: bool,
}

impl VariantArgs {
    fn variant(&self) -> Result<Variant, String> {
        match self.variant.as_str() {
            "hdc" => Ok(Variant::hdc()),
            _ => {
                Variant::haberkorn_with(self.layers, self.white_layer, self.black_layer, self.en_passant, self.castling)
                    .map_err(|e| e.to_string())
            }
        }
    }
}

#[derive(Args)]
struct PerftArgs {
    /// Depth in plies.
    depth: u32,
    #[command(flatten)]
    variant: VariantArgs,
    /// Start from this 3D-FEN instead of the variant's start position.
    #[arg(long)]
    fen: Option<String>,
    /// Print the count below each legal root move.
    #[arg(long)]
    divide: bool,
}

/// `cubist match`: options in fastchess style, `key=value` groups after
/// `--engine`, `--each`, `--openings`, `--resign`, `--draw` and `--sprt`.
#[derive(Args)]
struct MatchArgs {
    /// An engine: cmd=<path> [name=<n>] [arg=<a>]... [option.<Name>=<v>]... [tc=<moves>/<s>+<inc> | tc=<s>+<inc>]
    /// [st=<s>] [depth=<n>] [nodes=<n>] [timemargin=<ms>] [readytimeout=<s>]; repeat for each engine.
    #[arg(long, num_args = 1.., action = ArgAction::Append, value_name = "KEY=VALUE", required = true)]
    engine: Vec<String>,
    /// Settings for every engine (same keys as --engine; an engine's own settings win).
    #[arg(long, num_args = 1.., action = ArgAction::Append, value_name = "KEY=VALUE")]
    each: Vec<String>,
    /// The first engine plays all others, who do not meet (default with more than two engines: round robin).
    #[arg(long)]
    gauntlet: bool,
    #[command(flatten)]
    variant: VariantArgs,
    /// Openings: file=<path> [format=fen|epd] [order=random|sequential].
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    openings: Option<Vec<String>>,
    /// Random plies played after each opening.
    #[arg(long, default_value_t = 0)]
    random_plies: u32,
    /// Haberkorn: cycle through every white/black setup-layer pair, one per round.
    #[arg(long)]
    constellations: bool,
    /// Play each opening twice with colours reversed (the default).
    #[arg(long, overrides_with = "no_repeat")]
    repeat: bool,
    /// Play each opening once, alternating colours between rounds.
    #[arg(long)]
    no_repeat: bool,
    /// Rounds; each round has its own opening.
    #[arg(long, default_value_t = 1)]
    rounds: u32,
    /// Games per pairing and round (default 2 with --repeat, else 1).
    #[arg(long)]
    games: Option<u32>,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Seed for the opening order and random plies (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Resign adjudication: movecount=<n> score=<cp>.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    resign: Option<Vec<String>>,
    /// Draw adjudication: movenumber=<n> movecount=<n> score=<cp>.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    draw: Option<Vec<String>>,
    /// Draw a game after this many full moves.
    #[arg(long)]
    maxmoves: Option<u32>,
    /// SPRT: elo0=<e> elo1=<e> alpha=<a> beta=<b> [model=normalized|logistic].
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    sprt: Option<Vec<String>>,
    /// Write the game records to this file (flushed after each game).
    #[arg(long, value_name = "FILE")]
    pgnout: Option<std::path::PathBuf>,
    /// Write the summary as JSON to this file.
    #[arg(long, value_name = "FILE")]
    results_json: Option<std::path::PathBuf>,
}

/// The values of each occurrence of a repeatable option, kept apart.
fn occurrences(matches: &ArgMatches, id: &str) -> Vec<Vec<String>> {
    matches
        .get_occurrences::<String>(id)
        .map(|occ| occ.map(|values| values.cloned().collect()).collect())
        .unwrap_or_default()
}

fn run_match_command(args: &MatchArgs, matches: &ArgMatches) -> Result<(), String> {
    let each: Vec<String> = args.each.clone();
    let engines =
        occurrences(matches, "engine").iter().map(|own| EngineSpec::parse(&each, own)).collect::<Result<Vec<_>, _>>();
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
    });
    let cfg = MatchConfig {
        engines: engines.map_err(|e| e.to_string())?,
        gauntlet: args.gauntlet,
        variant: args.variant.variant()?,
        openings: args.openings.as_deref().map(OpeningsSpec::parse).transpose().map_err(|e| e.to_string())?,
        random_plies: args.random_plies,
        constellations: args.constellations,
        repeat: !args.no_repeat,
        rounds: args.rounds,
        games: args.games,
        concurrency: args.concurrency,
        seed,
        adjudication: Adjudication {
            resign: args.resign.as_deref().map(ResignRule::parse).transpose().map_err(|e| e.to_string())?,
            draw: args.draw.as_deref().map(DrawRule::parse).transpose().map_err(|e| e.to_string())?,
            maxmoves: args.maxmoves,
        },
        sprt: args.sprt.as_deref().map(parse_sprt).transpose().map_err(|e| e.to_string())?,
        pgnout: args.pgnout.clone(),
        results_json: args.results_json.clone(),
    };
    let summary = run_match(cfg).map_err(|e| e.to_string())?;
    print!("{}", summary.table());
    Ok(())
}

fn run_perft(args: &PerftArgs) -> Result<(), String> {
    let variant = args.variant.variant()?;
    let mut pos = match &args.fen {
        Some(fen) => Position::from_fen(fen, variant).map_err(|e| format!("bad FEN: {e}"))?,
        None => Position::start(variant),
    };
    let start = Instant::now();
    let total = if args.divide && args.depth > 0 {
        let mut total = 0;
        for (m, n) in cubist::perft::divide(&mut pos, args.depth) {
            println!("{m}: {n}");
            total += n;
        }
        println!();
        total
    } else {
        cubist::perft::perft(&mut pos, args.depth)
    };
    let elapsed = start.elapsed();
    println!("Nodes searched: {total}");
    let secs = elapsed.as_secs_f64();
    eprintln!(
        "{} perft({}) in {:.3} s, {:.0} nodes/second",
        if variant.kind == VariantKind::Hdc { "hdc".to_string() } else { variant.to_string() },
        args.depth,
        secs,
        total as f64 / secs.max(1e-9)
    );
    Ok(())
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let result = match &cli.command {
        Some(Command::Perft(args)) => run_perft(args),
        Some(Command::Match(args)) => match matches.subcommand_matches("match") {
            Some(m) => run_match_command(args, m),
            None => Err("internal: no match arguments".to_string()),
        },
        Some(Command::Bench(args)) => {
            cubist::bench::run(args.depth, args.threads, args.hash, &mut std::io::stdout().lock());
            Ok(())
        }
        Some(Command::Gui(args)) => cubist::gui::run(args).map_err(|e| e.to_string()),
        Some(Command::Uci) | None => {
            // Logging goes to stderr only (RUST_LOG=debug shows every line in and out).
            env_logger::Builder::from_default_env().target(env_logger::Target::Stderr).init();
            cubist::uci::run(std::io::stdin(), cubist::uci::fmt::Output::stdout());
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
