//! The `cubist` binary: the UCI loop by default (or `cubist uci`), and the `perft` tool.

use clap::{Args, Parser, Subcommand};
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

fn run_perft(args: &PerftArgs) -> Result<(), String> {
    let variant = args.variant.variant()?;
    let mut pos = match &args.fen {
        Some(fen) => Position::from_fen(fen, variant).map_err(|e| format!("bad FEN: {e}"))?,
        None => Position::start(variant),
    };
    let start = Instant::now();
    let total = if args.divide {
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
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Perft(args)) => run_perft(args),
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
