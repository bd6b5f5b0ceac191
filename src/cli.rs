//! The command line of the `cubist` binary: clap's structures for every
//! subcommand (`Command`: uci, perft, match, merge, bench, gui, datagen,
//! tune, convert, train, spsa, book, analyse), the jobs and options they
//! turn into for the library's drivers, and the single-dash spelling that
//! fastchess and cutechess-cli users type (`-engine`, `-each`, `-pgnout
//! file=…`) turned into Cubist's ([`normalise_args`]).

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{ArgAction, Args, Parser, Subcommand};
use cubist::arena::config::Adjudication;
use cubist::arena::config::{ConfigError, DrawRule, ResignRule};
use cubist::core::{HABERKORN_LAYERS, Variant, VariantKind};
#[cfg(feature = "gui")]
use cubist::gui::GuiOptions;
use cubist::learn::data::Format;
use cubist::learn::datagen::Games;
use cubist::learn::dataset::Augment;
use cubist::learn::train::{TrainConfig, TrainJob};
use cubist::learn::tune::{TuneConfig, TuneJob};
use std::ops::RangeInclusive;

/// A game name (`hdc`, `haberkorn`) read by [`VariantKind`]'s `FromStr`, both listed in `--help`.
fn game_parser() -> impl TypedValueParser<Value = VariantKind> {
    PossibleValuesParser::new(VariantKind::NAMES).try_map(|s| s.parse::<VariantKind>())
}

/// A game name or `both`, read by [`Games`]'s `FromStr`.
fn games_parser() -> impl TypedValueParser<Value = Games> {
    PossibleValuesParser::new(Games::NAMES).try_map(|s| s.parse::<Games>())
}

/// [`HABERKORN_LAYERS`] as clap's integer range.
fn layer_range() -> RangeInclusive<i64> {
    i64::from(*HABERKORN_LAYERS.start())..=i64::from(*HABERKORN_LAYERS.end())
}

/// Cubist: a chess engine for 3D chess (hdc and haberkorn) speaking UCI.
#[derive(Parser)]
#[command(name = "cubist", version, about)]
pub struct Cli {
    /// What to do (default: speak UCI).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Speak UCI on stdin/stdout (the default when no subcommand is given); see protocol.md.
    Uci,
    /// Count the leaf nodes of the legal move tree (move generator check and benchmark).
    Perft(PerftArgs),
    /// Play engines against each other (fastchess-style options; see protocol.md).
    Match(Box<MatchArgs>),
    /// Add up the results JSONs of a match's shards (`match --shard K/N`); see docs/sharding.md.
    Merge(MergeArgs),
    /// Search fixed positions to a fixed depth: speed benchmark and node-count signature.
    Bench(BenchCli),
    /// Serve the browser GUI: play, analyse, watch and replay games.
    #[cfg(feature = "gui")]
    Gui(GuiCli),
    /// Self-play data for tuning the evaluation: quiet positions with score and result (see protocol.md).
    Datagen(DatagenCli),
    /// Fit every evaluation weight of one game to `datagen` data (Texel's method, Adam).
    Tune(TuneCli),
    /// Convert a data set between the text and the binary format (see protocol.md, "Data sets").
    Convert(ConvertCli),
    /// Train an evaluation network (NNUE) of one game on `datagen` data.
    Train(TrainCli),
    /// Tune an engine's numeric UCI options by SPSA on the match runner (see docs/spsa.md).
    Spsa(Box<SpsaCli>),
    /// Make a book of balanced openings: random plies, kept when a short search scores them near equal.
    Book(BookCli),
    /// Analyse game records move by move: evals, ?!/?/?? marks, better lines, a summary per side.
    Analyse(AnalyseCli),
    /// Endgame tablebases: solve endings of few pieces exactly (see docs/endgames.md).
    Tb(TbCli),
}

/// `cubist tb`: endgame tablebases.
#[derive(Args)]
pub struct TbCli {
    /// What to do with them.
    #[command(subcommand)]
    pub command: TbCommand,
}

/// The subcommands of `cubist tb`.
#[derive(Subcommand)]
pub enum TbCommand {
    /// Solve endings by retrograde analysis and print, for each, the share of won positions, the longest mate and the wins the fifty-move rule may cut.
    Generate(TbGenerateCli),
    /// Look a position up in the tables: its result and distance to mate, and every legal move's (as Fathom does for Syzygy).
    Probe(TbProbeCli),
}

/// `cubist tb probe`: one position looked up.
#[derive(Args)]
pub struct TbProbeCli {
    /// The position, a 3D-FEN (its layer count gives haberkorn's board).
    #[arg(long)]
    pub fen: String,
    /// The game: hdc or haberkorn.
    #[arg(long, alias = "game", default_value = "hdc", value_parser = game_parser())]
    pub variant: VariantKind,
    /// The folder of the table files (`cubist tb generate --out`).
    #[arg(long)]
    pub path: std::path::PathBuf,
}

/// `cubist tb generate`: endings solved in memory, summed up.
#[derive(Args)]
pub struct TbGenerateCli {
    /// The game: hdc or haberkorn.
    #[arg(long, alias = "game", default_value = "hdc", value_parser = game_parser())]
    pub variant: VariantKind,
    /// Haberkorn's layers (3 to 8; hdc has 8).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(3..=8))]
    pub layers: u8,
    /// The endings, as KQvK, comma-separated (default: every ending of three pieces, KPvK last).
    #[arg(long, value_delimiter = ',')]
    pub material: Vec<String>,
    /// Check every position of each table against its moves afterwards (see docs/endgames.md).
    #[arg(long)]
    pub verify: bool,
    /// With --verify, check only every N-th position of the kept index (a sample, for four pieces).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub verify_every: u64,
    /// Write each table into this folder (`hdc-KQvK.cbtb`; protocol.md, "Endgame tables"),
    /// where the tables a pawn's promotions lead to are read from too.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
}

/// `cubist analyse`: every position of game records searched, the moves marked (see docs/analysis.md).
#[derive(Args)]
pub struct AnalyseCli {
    /// The records to analyse (a match's --pgnout or the GUI's records).
    #[arg(value_name = "RECORDS")]
    pub input: std::path::PathBuf,
    /// Where the annotated records go; an output that holds the first games already is resumed.
    #[arg(long, short = 'o')]
    pub out: std::path::PathBuf,
    /// Nodes searched per position (the default, 100000, when no limit is given).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Depth searched per position.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub depth: Option<u32>,
    /// Milliseconds searched per position.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub movetime: Option<u64>,
    /// Positions searched at once, one thread each (default: one per core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// Hash of each worker in MiB.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=65_536))]
    pub hash: u64,
    /// Endgame tables (`cubist tb generate --out`): searched with, and the
    /// positions they hold judged by them ("tablebase: White mates in 5").
    #[arg(long, value_name = "DIR")]
    pub tb: Option<std::path::PathBuf>,
}

/// `cubist book`: balanced openings for matches and SPSA (see docs/strength.md, "How we test").
#[derive(Args)]
pub struct BookCli {
    /// The book to write (3D-FEN lines under `#` lines with its recipe); `-` for standard output.
    #[arg(long, short = 'o')]
    pub out: std::path::PathBuf,
    /// The game: hdc or haberkorn (every setup-layer pair of its layers).
    #[arg(long, alias = "game", default_value = "hdc", value_parser = game_parser())]
    pub variant: VariantKind,
    /// Haberkorn: layers of the board (3 to 8).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(layer_range()))]
    pub layers: u8,
    /// Positions wanted.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub count: u64,
    /// Random plies from the start position.
    #[arg(long, default_value_t = 8)]
    pub plies: u32,
    /// Depth of the search that judges a candidate.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=30))]
    pub depth: u32,
    /// A candidate is kept when that search scores it within ± this many centipawns.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(i32).range(0..=10_000))]
    pub window: i32,
    /// The seed every candidate derives from: the same seed makes the same book.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Candidates searched at once (default: one per core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// Give up after this many candidates (the book may then be short).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tries: u64,
}

/// `cubist spsa`: OpenBench-style SPSA over self-play game pairs.
#[derive(Args)]
pub struct SpsaCli {
    /// The state of the run: created, or resumed (by any number of processes) when it exists.
    #[arg(long, value_name = "FILE")]
    pub state: std::path::PathBuf,
    /// The engine (match `--engine` keys: cmd=, tc=/st=/nodes=, option.X=, timemargin= …); both sides run it.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE", required_unless_present = "print_params")]
    pub engine: Vec<String>,
    /// The tuned options, OpenBench lines `name, int|float, start, min, max, c_end, r_end` (default: every
    /// search and time tunable of Cubist's `tune` build for the game).
    #[arg(long, value_name = "FILE")]
    pub params: Option<std::path::PathBuf>,
    /// Print the parameters (the run's current values when the state exists) as a --params file and stop.
    #[arg(long)]
    pub print_params: bool,
    /// The game and its options.
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Haberkorn: each game pair on a setup-layer pair drawn from all 64.
    #[arg(long)]
    pub constellations: bool,
    /// Iterations of the run.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..))]
    pub iterations: u64,
    /// Game pairs per iteration (colours reversed within each pair).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub pairs: u32,
    /// The openings: match `--openings` keys (file=, order=, start=); `file=builtin` (the default for
    /// hdc and 8-layer haberkorn) is the game's built-in balanced book; `none` plays from the start position.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE|none")]
    pub openings: Option<Vec<String>>,
    /// Random plies after the opening (default: 0 with a book, 4 without).
    #[arg(long)]
    pub random_plies: Option<u32>,
    /// Games played at the same time (default: one per core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub concurrency: Option<u16>,
    /// Seed of the perturbations, openings and random plies.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Resign, draw and max-moves adjudication.
    #[command(flatten)]
    pub adjudication: AdjudicationArgs,
}

/// `cubist gui`: serve the browser GUI.
#[cfg(feature = "gui")]
#[derive(Args, Clone, Debug)]
pub struct GuiCli {
    /// Address to listen on: an IP address or a host name such as localhost (only this machine by default).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Another engine: "CMD [ARGS…]" (repeatable); the cubist binary itself is always the first.
    #[arg(long, value_name = "CMD")]
    pub engine: Vec<String>,
    /// Folder for the game records (created when missing).
    #[arg(long, value_name = "DIR", default_value = "cubist-games")]
    pub games_dir: std::path::PathBuf,
    /// Games in progress at the same time.
    #[arg(long, default_value_t = 8)]
    pub max_games: usize,
    /// Engine processes running at the same time.
    #[arg(long, default_value_t = 8)]
    pub max_engines: usize,
    /// `Hash` of all engine processes together, MiB (one game's Hash is at most this).
    #[arg(long, value_name = "MIB", default_value_t = cubist::gui::DEFAULT_MAX_HASH)]
    pub max_hash: u64,
    /// GUI records (`gui-*.pgn`) the games folder may hold; new games are refused beyond.
    #[arg(long, default_value_t = cubist::gui::DEFAULT_MAX_RECORDS)]
    pub max_records: usize,
    /// Seconds a client has to send a request's head, and its body.
    #[arg(long, value_name = "SECONDS", default_value_t = cubist::gui::listen::REQUEST_TIMEOUT.as_secs())]
    pub request_timeout: u64,
    /// Endgame tables (`cubist tb generate --out`) for the game analysis.
    #[arg(long, value_name = "DIR")]
    pub tb: Option<std::path::PathBuf>,
}

#[cfg(feature = "gui")]
impl GuiCli {
    /// The options as the library takes them.
    pub fn options(&self) -> GuiOptions {
        GuiOptions {
            host: self.host.clone(),
            port: self.port,
            engine: self.engine.clone(),
            games_dir: self.games_dir.clone(),
            max_games: self.max_games,
            max_engines: self.max_engines,
            max_hash: self.max_hash,
            max_records: self.max_records,
            request_timeout: self.request_timeout,
            tb: self.tb.clone(),
        }
    }
}

/// `cubist train`: fits an evaluation network to self-play data.
#[derive(Args)]
pub struct TrainCli {
    /// Data sets written by `cubist datagen` (either format).
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<std::path::PathBuf>,
    /// The game whose positions are fitted.
    #[arg(long, alias = "game", value_parser = game_parser())]
    pub variant: VariantKind,
    /// Neurons of the hidden layer.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub hidden: u32,
    /// Passes over the training positions.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub epochs: u32,
    /// Positions per optimiser step.
    #[arg(long, default_value_t = 16384, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub batch: u32,
    /// AdamW's step size at the start (it falls along a cosine to a twentieth).
    #[arg(long, default_value_t = 0.001)]
    pub lr: f32,
    /// AdamW's weight decay.
    #[arg(long, default_value_t = 0.01)]
    pub weight_decay: f32,
    /// Weight of the game result in the target, 0 to 1 (the rest: the search score).
    #[arg(long, default_value_t = 0.5)]
    pub lambda: f32,
    /// Share of the training target taken from the linear evaluation, 0 to 1 (distillation; the held-out loss measures the plain target).
    #[arg(long, default_value_t = 0.0)]
    pub teacher: f32,
    /// Positions made from each training position by 1-3 random moves, taught by the linear evaluation alone.
    #[arg(long, default_value_t = 0)]
    pub augment: u32,
    /// Images of each training position under the board's symmetries, up to 7 in hdc and 3 in haberkorn (chosen at random), with its score and result.
    #[arg(long, default_value_t = 0)]
    pub symmetries: u32,
    /// Train a residual network: its output is added to the linear evaluation, which it starts as.
    #[arg(long)]
    pub residual: bool,
    /// Share of the positions (the last ones, whole games) held out to report the loss on unseen games.
    #[arg(long, default_value_t = 0.1)]
    pub validation: f64,
    /// Data sets held out instead of a share of --data (the same positions for runs on different data).
    #[arg(long, num_args = 1..)]
    pub held_out: Vec<std::path::PathBuf>,
    /// The seed of the initial weights and the shuffles.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// The network file written after every epoch (a checkpoint goes beside it, FILE.ckpt).
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// Carry on from this checkpoint (same data and settings).
    #[arg(long, conflicts_with = "init")]
    pub resume: Option<std::path::PathBuf>,
    /// Start from this network file instead of random weights (fine-tuning, for example
    /// `nets/hdc.nnue` on new data); its game and residual flag must match, and a network
    /// with fewer neurons than --hidden is widened (new neurons start silent).
    #[arg(long, value_name = "NET")]
    pub init: Option<std::path::PathBuf>,
}

impl TrainCli {
    /// The run these options describe.
    pub fn job(&self) -> TrainJob {
        TrainJob {
            data: self.data.clone(),
            held_out: self.held_out.clone(),
            variant: self.variant,
            augment: Augment {
                children: self.augment as usize,
                symmetries: self.symmetries as usize,
                ..Augment::default()
            },
            validation: self.validation,
            out: self.out.clone(),
            resume: self.resume.clone(),
            init: self.init.clone(),
            config: TrainConfig {
                hidden: self.hidden as usize,
                epochs: self.epochs as usize,
                batch: self.batch as usize,
                lr: self.lr,
                weight_decay: self.weight_decay,
                lambda: self.lambda,
                teacher: self.teacher,
                seed: self.seed,
                residual: self.residual,
            },
        }
    }
}

/// `cubist convert`: a data set in the other format.
#[derive(Args)]
pub struct ConvertCli {
    /// The data set to read (either format).
    pub input: std::path::PathBuf,
    /// The data set to write (created or truncated).
    pub output: std::path::PathBuf,
    /// The format written (default: text for a `.txt` name, binary otherwise).
    #[arg(long, value_parser = format_parser())]
    pub format: Option<Format>,
}

/// `text` or `binary`.
fn format_parser() -> impl TypedValueParser<Value = Format> {
    PossibleValuesParser::new(["text", "binary"]).map(|s| if s == "text" { Format::Text } else { Format::Binary })
}

/// `cubist tune`: fits every evaluation weight to self-play data.
#[derive(Args)]
pub struct TuneCli {
    /// Data sets written by `cubist datagen`.
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<std::path::PathBuf>,
    /// The game whose positions are fitted: hdc or haberkorn (`--game` is an alias).
    #[arg(long, alias = "game", value_parser = game_parser())]
    pub variant: VariantKind,
    /// Full-batch optimiser steps.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub epochs: u32,
    /// Adam's step size in centipawns.
    #[arg(long, default_value_t = 2.0)]
    pub lr: f64,
    /// Weight of the game result in the target, 0 to 1 (the rest: the search score).
    #[arg(long, default_value_t = 0.5)]
    pub lambda: f64,
    /// The pull towards the starting weights (this times the squared distance in centipawns² joins the loss).
    #[arg(long, default_value_t = 1e-8)]
    pub l2: f64,
    /// Share of the positions (the last ones, whole games) held out to report the loss on unseen games.
    #[arg(long, default_value_t = 0.1)]
    pub validation: f64,
    /// Fit only these weight groups (comma-separated: material, file, layer, rank, mobility,
    /// king-attack, open-line, passed, doubled, isolated, tempo); the rest keep their values.
    #[arg(long, value_delimiter = ',')]
    pub fit: Option<Vec<String>>,
    /// Threads for the gradient (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// Write the fitted weights as Rust source for the build to include (src/eval/weights_GAME.rs), atomically; a checkpoint (OUT.ckpt) is saved every 100 epochs.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Carry on from this checkpoint (OUT.ckpt of an interrupted run with the same data and settings).
    #[arg(long)]
    pub resume: Option<std::path::PathBuf>,
    /// Fit the linear weights beneath this residual network of the game (trained on this
    /// build's weights): its output is held fixed and added to each position's evaluation.
    #[arg(long, value_name = "NET", requires = "net_out")]
    pub under: Option<std::path::PathBuf>,
    /// With --under: write the network here, marked as trained on the fitted weights (its
    /// weights unchanged), for the build that includes them.
    #[arg(long, value_name = "NET", requires = "under")]
    pub net_out: Option<std::path::PathBuf>,
}

impl TuneCli {
    /// The fit these options describe (`command`: the command line, recorded in the source written).
    pub fn job(&self, command: Vec<String>) -> TuneJob {
        TuneJob {
            data: self.data.clone(),
            variant: self.variant,
            validation: self.validation,
            fit: self.fit.clone(),
            out: self.out.clone(),
            resume: self.resume.clone(),
            under: self.under.clone().zip(self.net_out.clone()),
            command,
            config: TuneConfig {
                epochs: self.epochs as usize,
                learning_rate: self.lr,
                lambda: self.lambda,
                l2: self.l2,
            },
        }
    }
}

/// `cubist datagen`: self-play at a fixed node count per move.
#[derive(Args)]
pub struct DatagenCli {
    /// The data set to write: created, or (binary) resumed when it exists: its games are skipped.
    #[arg(long, short = 'o')]
    pub out: std::path::PathBuf,
    /// The format written (default: text for a `.txt` name, binary otherwise).
    #[arg(long, value_parser = format_parser())]
    pub format: Option<Format>,
    /// Games to play (of the whole schedule when sharded).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Nodes searched per move.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: u64,
    /// hdc, haberkorn (3 to 8 layers, random constellation) or both (alternating); `--game` is an alias.
    #[arg(long, alias = "game", default_value = "both", value_parser = games_parser())]
    pub variant: Games,
    /// Random moves from the start position before self-play begins.
    #[arg(long, default_value_t = 8)]
    pub random_plies: u32,
    /// The seed of the openings: the same seed plays the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: u16,
    /// Hash table per game, in MiB.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub hash: u32,
    /// A game still running after this many plies is a draw.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_plies: u32,
    /// Play only shard K of N (1-based): game indices i with i mod N = K - 1.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
}

/// `cubist bench [hash] [threads] [depth]` (Stockfish's order) or `hash=N threads=N depth=N`.
#[derive(Args)]
pub struct BenchCli {
    /// hash=1..65536 (MiB) threads=1..1024 depth=1..100, or the numbers in that order (Stockfish's).
    #[arg(value_name = "ARG", num_args = 0..=3)]
    pub args: Vec<String>,
}

/// Resign, draw and max-moves adjudication (`match` and `spsa`).
#[derive(Args, Clone)]
pub struct AdjudicationArgs {
    /// Resign adjudication: movecount=<n> score=<cp>.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub resign: Option<Vec<String>>,
    /// Draw adjudication: movenumber=<n> movecount=<n> score=<cp>.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub draw: Option<Vec<String>>,
    /// Draw a game after this many full moves.
    #[arg(long)]
    pub maxmoves: Option<u32>,
    /// End a game with the result of the endgame tables in this folder
    /// (`cubist tb generate --out`) once they hold its position.
    #[arg(long, value_name = "DIR")]
    pub tb: Option<std::path::PathBuf>,
}

impl AdjudicationArgs {
    /// The adjudication these options ask for.
    pub fn adjudication(&self) -> Result<Adjudication, ConfigError> {
        Ok(Adjudication {
            resign: self.resign.as_deref().map(ResignRule::parse).transpose()?,
            draw: self.draw.as_deref().map(DrawRule::parse).transpose()?,
            maxmoves: self.maxmoves,
            tb: self.tb.clone(),
        })
    }
}

/// Which variant to play and its haberkorn options.
#[derive(Args, Clone)]
pub struct VariantArgs {
    /// The game: hdc or haberkorn.
    #[arg(long, default_value = "hdc", value_parser = game_parser())]
    pub variant: VariantKind,
    /// Haberkorn: layers of the board (3 to 8; default 8).
    #[arg(long, value_parser = clap::value_parser!(u8).range(layer_range()))]
    pub layers: Option<u8>,
    /// Haberkorn: White's setup layer (1 = I; default 4, on fewer than 5 layers ceil(layers/2)).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=*layer_range().end()))]
    pub white_layer: Option<u8>,
    /// Haberkorn: Black's setup layer (1 = I; default 5, on fewer than 5 layers the one above White's default).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=*layer_range().end()))]
    pub black_layer: Option<u8>,
    /// Haberkorn: switch en passant on.
    #[arg(long)]
    pub en_passant: bool,
    /// Haberkorn: switch castling on.
    #[arg(long)]
    pub castling: bool,
}

impl VariantArgs {
    /// The variant; the haberkorn options are refused without `--variant
    /// haberkorn` (they would be ignored in silence otherwise). With
    /// `constellations` the setup layers are chosen per round, so the base
    /// variant takes layers I and the last one and refuses explicit ones.
    pub fn variant(&self, constellations: bool) -> Result<Variant, String> {
        let haberkorn_only = self.layers.is_some()
            || self.white_layer.is_some()
            || self.black_layer.is_some()
            || self.en_passant
            || self.castling;
        match self.variant {
            VariantKind::Hdc if haberkorn_only => {
                Err("--layers, --white-layer, --black-layer, --en-passant and --castling are haberkorn options: add \
                 --variant haberkorn"
                    .into())
            }
            VariantKind::Hdc => Ok(Variant::hdc()),
            VariantKind::Haberkorn => {
                let layers = self.layers.unwrap_or(8);
                let (white, black) = if constellations {
                    if self.white_layer.is_some() || self.black_layer.is_some() {
                        return Err("--constellations chooses the setup layers itself: drop --white-layer and \
                                    --black-layer"
                            .into());
                    }
                    (Some(1), Some(layers))
                } else {
                    for (name, layer) in [("--white-layer", self.white_layer), ("--black-layer", self.black_layer)] {
                        if let Some(layer) = layer.filter(|&l| l > layers) {
                            return Err(format!(
                                "{name} {layer} is not on a board of {layers} layers: give \
                                 --white-layer/--black-layer from 1 to {layers}"
                            ));
                        }
                    }
                    (self.white_layer, self.black_layer)
                };
                Variant::haberkorn_from(layers, white, black, self.en_passant, self.castling).map_err(|e| e.to_string())
            }
        }
    }
}

/// `cubist perft`.
#[derive(Args)]
pub struct PerftArgs {
    /// Depth in plies.
    pub depth: u32,
    /// The game and its options.
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Start from this 3D-FEN instead of the variant's start position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Print the count below each legal root move.
    #[arg(long)]
    pub divide: bool,
}

/// `cubist match`: options in fastchess style, `key=value` groups after
/// `--engine`, `--each`, `--openings`, `--resign`, `--draw` and `--sprt`.
#[derive(Args)]
pub struct MatchArgs {
    /// An engine: cmd=<path> [name=<n>] [arg=<a>]... [option.<Name>=<v>]... [tc=<moves>/<s>+<inc> | tc=<s>+<inc>
    /// | tc=M:SS+inc | tc=inf] [st=<s>] [depth=<n>] [nodes=<n>] [timemargin=<ms>] [readytimeout=<s>]
    /// [stderr=<file>] [proto=uci]; repeat for each engine.
    #[arg(long, num_args = 1.., action = ArgAction::Append, value_name = "KEY=VALUE", required_unless_present = "resume")]
    pub engine: Vec<String>,
    /// Settings for every engine (same keys as --engine; an engine's own settings win).
    #[arg(long, num_args = 1.., action = ArgAction::Append, value_name = "KEY=VALUE")]
    pub each: Vec<String>,
    /// The first engine plays all others, who do not meet (default with more than two engines: round robin).
    #[arg(long)]
    pub gauntlet: bool,
    /// The game and its options.
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Openings: file=<path> [format=fen|epd] [order=random|sequential].
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub openings: Option<Vec<String>>,
    /// Random plies played after each opening.
    #[arg(long, default_value_t = 0)]
    pub random_plies: u32,
    /// Haberkorn: cycle through every white/black setup-layer pair, one per round.
    #[arg(long)]
    pub constellations: bool,
    /// Play each opening twice with colours reversed (the default).
    #[arg(long, overrides_with = "no_repeat")]
    pub repeat: bool,
    /// Play each opening once, alternating colours between rounds.
    #[arg(long)]
    pub no_repeat: bool,
    /// Rounds; each round has its own opening.
    #[arg(long, default_value_t = 1)]
    pub rounds: u32,
    /// Games per pairing and round (default 2 with --repeat, else 1).
    #[arg(long)]
    pub games: Option<u32>,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Seed for the opening order and random plies (default: from the clock).
    #[arg(long, alias = "srand")]
    pub seed: Option<u64>,
    /// fastchess's switch for a seed from the clock: the default here, accepted for its command lines.
    #[arg(long)]
    pub randomseed: bool,
    /// fastchess's switch to restart crashed engines: always done here, accepted for its command lines.
    #[arg(long)]
    pub recover: bool,
    /// Resign, draw and max-moves adjudication.
    #[command(flatten)]
    pub adjudication: AdjudicationArgs,
    /// SPRT: elo0=<e> elo1=<e> alpha=<a> beta=<b> [model=normalized|logistic] [minpairs=<n>].
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub sprt: Option<Vec<String>>,
    /// Write the game records to this file (synced after each game pair): FILE or file=FILE.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub pgnout: Option<Vec<String>>,
    /// Write the summary as JSON to this file (rewritten whole after every game pair).
    #[arg(long, value_name = "FILE")]
    pub results_json: Option<std::path::PathBuf>,
    /// Keep the match's state here, saved after every game pair and when interrupted (default: beside
    /// --results-json, else beside --pgnout, as NAME.state).
    #[arg(long, value_name = "FILE")]
    pub state: Option<std::path::PathBuf>,
    /// Go on with the interrupted match of this state file (fastchess: -config file=FILE); other options
    /// given with it must describe the same match.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<std::path::PathBuf>,
    /// fastchess's save interval: the state is saved after every game pair here; accepted for its command lines.
    #[arg(long, value_name = "N")]
    pub autosaveinterval: Option<u32>,
    /// Log every line between the runner and each engine, timestamped: FILE or file=FILE.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub log: Option<Vec<String>>,
    /// Play only shard K of N of the schedule (K from 1; needs --seed); `cubist merge` adds the shards up.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Progress lines: format=fastchess (the default) or format=cutechess (cutechess-cli's `Score of …`).
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub output: Option<Vec<String>>,
    /// Milliseconds each worker waits between its games.
    #[arg(long, default_value_t = 0, value_name = "MS")]
    pub wait: u64,
    /// The `Event` tag of the game records.
    #[arg(long, default_value = "Cubist match")]
    pub event: String,
    /// The `Site` tag of the game records.
    #[arg(long, default_value = "?")]
    pub site: String,
    /// No colour swap: the first engine of a pairing always plays White.
    #[arg(long)]
    pub noswap: bool,
    /// Print the rating lines every N games (default: 10 with --output format=cutechess, else never).
    #[arg(long, value_name = "N")]
    pub ratinginterval: Option<u32>,
    /// Print the score line every N games (default: 1 with --output format=cutechess, else never).
    #[arg(long, value_name = "N")]
    pub scoreinterval: Option<u32>,
    /// The rating lines: penta=true|false (the pentanomial counts; default true).
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub report: Option<Vec<String>>,
}

/// `cubist merge RESULTS.json… [--results-json FILE] [--pgnout FILE --pgn FILE…]`.
#[derive(Args)]
pub struct MergeArgs {
    /// The results JSONs of the shards (`cubist match --shard K/N --results-json …`).
    #[arg(value_name = "RESULTS.json", required = true, num_args = 1..)]
    pub results: Vec<std::path::PathBuf>,
    /// Write the merged results as JSON (mergeable again with other shards of the match).
    #[arg(long, value_name = "FILE")]
    pub results_json: Option<std::path::PathBuf>,
    /// Write the records of the --pgn files to this file, in schedule order.
    #[arg(long, value_name = "FILE", requires = "pgn")]
    pub pgnout: Option<std::path::PathBuf>,
    /// The shards' record files (their --pgnout), checked against the merged results.
    #[arg(long, value_name = "FILE", num_args = 1.., requires = "pgnout")]
    pub pgn: Vec<std::path::PathBuf>,
}

/// The `match` options fastchess and cutechess-cli spell with one dash.
const MATCH_LONG_OPTIONS: [&str; 41] = [
    "engine",
    "each",
    "gauntlet",
    "variant",
    "layers",
    "white-layer",
    "black-layer",
    "en-passant",
    "castling",
    "openings",
    "random-plies",
    "constellations",
    "repeat",
    "no-repeat",
    "rounds",
    "games",
    "concurrency",
    "seed",
    "srand",
    "randomseed",
    "recover",
    "resign",
    "draw",
    "maxmoves",
    "sprt",
    "pgnout",
    "results-json",
    "state",
    "resume",
    "autosaveinterval",
    "log",
    "shard",
    "output",
    "wait",
    "event",
    "site",
    "noswap",
    "ratinginterval",
    "scoreinterval",
    "report",
    "help",
];

/// Whether a word stands where an option may: `-name` or `--name` (not `-3`, a negative number).
fn looks_like_option(arg: &str) -> bool {
    let name = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')).unwrap_or("");
    name.starts_with(|c: char| c.is_ascii_alphabetic())
}

/// The command line with the single-dash spelling of fastchess and
/// cutechess-cli (`-engine`, `-each`, `-rounds` …) after `match` turned into
/// the double-dash one. Only whole arguments that look like options are
/// touched (not `-3`, the value of `--seed`). A single-dash option `match`
/// does not know is refused here by the name the user typed, with its
/// values (`-tournament knockout`), so that clap never reads it as short
/// options (`-t`). fastchess's `-config file=FILE` (resume a tournament)
/// becomes `--resume FILE`; its other `-config` keys are refused.
pub fn normalise_args(args: impl IntoIterator<Item = String>) -> Result<Vec<String>, String> {
    let args: Vec<String> = args.into_iter().collect();
    let mut out = Vec::new();
    let mut in_match = false;
    let mut skip = 0;
    for (i, arg) in args.iter().enumerate() {
        if skip > 0 {
            skip -= 1;
            continue;
        }
        if !in_match && out.len() == 1 && arg == "match" {
            in_match = true;
        } else if in_match && looks_like_option(arg) {
            let name = arg.trim_start_matches('-');
            if name == "config" {
                let values: Vec<&String> = args[i + 1..].iter().take_while(|a| !looks_like_option(a)).collect();
                let file = match values.as_slice() {
                    [one] => one.strip_prefix("file=").filter(|f| !f.is_empty()),
                    _ => None,
                };
                let Some(file) = file else {
                    let typed: Vec<&str> = std::iter::once(arg).chain(values).map(String::as_str).collect();
                    return Err(format!(
                        "'{}': only {arg} file=FILE (resume the match of a state file) is read here",
                        typed.join(" ")
                    ));
                };
                out.extend(["--resume".to_string(), file.to_string()]);
                skip = 1;
                continue;
            }
            if !arg.starts_with("--") {
                if MATCH_LONG_OPTIONS.contains(&name) {
                    out.push(format!("--{name}"));
                    continue;
                }
                if name != "h" {
                    let values = args[i + 1..].iter().take_while(|a| !looks_like_option(a));
                    let typed: Vec<&str> = std::iter::once(arg).chain(values).map(String::as_str).collect();
                    return Err(format!(
                        "'{}': cubist match has no such option (see cubist match --help and protocol.md)",
                        typed.join(" ")
                    ));
                }
            }
        }
        out.push(arg.clone());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn small_boards_default_to_the_middle_layers_and_a_layer_off_the_board_is_named() {
        let haberkorn = |layers, white, black| VariantArgs {
            variant: VariantKind::Haberkorn,
            layers: Some(layers),
            white_layer: white,
            black_layer: black,
            en_passant: false,
            castling: false,
        };
        for layers in 3..=8 {
            assert!(haberkorn(layers, None, None).variant(false).is_ok(), "{layers} layers");
        }
        assert!(haberkorn(3, Some(1), None).variant(false).is_ok());
        let error = haberkorn(4, Some(6), None).variant(false).unwrap_err();
        assert!(error.contains("--white-layer 6 is not on a board of 4 layers") && error.contains("1 to 4"), "{error}");
        let error = haberkorn(3, None, Some(5)).variant(false).unwrap_err();
        assert!(error.contains("--black-layer 5") && error.contains("--white-layer/--black-layer"), "{error}");
    }

    #[test]
    fn single_dash_options_become_double_dash_after_match_only() {
        assert_eq!(
            normalise_args(args(
                "cubist match -engine cmd=a -each tc=inf -rounds 2 -pgnout file=x.pgn -shard 2/4 --seed -3"
            )),
            Ok(args("cubist match --engine cmd=a --each tc=inf --rounds 2 --pgnout file=x.pgn --shard 2/4 --seed -3"))
        );
        assert_eq!(normalise_args(args("cubist perft -engine")), Ok(args("cubist perft -engine")));
        assert_eq!(normalise_args(args("cubist match -h")), Ok(args("cubist match -h")));
        assert_eq!(
            normalise_args(args(
                "cubist match -output format=cutechess -wait 5 -event E -site S -noswap -ratinginterval 2 \
                 -scoreinterval 1 -report penta=true -pgnout a.pgn min"
            )),
            Ok(args(
                "cubist match --output format=cutechess --wait 5 --event E --site S --noswap --ratinginterval 2 \
                 --scoreinterval 1 --report penta=true --pgnout a.pgn min"
            ))
        );
    }

    /// An option without meaning here is refused by the name the user typed, never as clap's `-t`.
    #[test]
    fn unknown_single_dash_options_are_refused_as_typed() {
        let err = normalise_args(args("cubist match -engine cmd=a -tournament knockout -rounds 2")).unwrap_err();
        assert!(err.starts_with("'-tournament knockout': cubist match has no such option"), "{err}");
        assert!(normalise_args(args("cubist match -x")).unwrap_err().starts_with("'-x':"));
        // fastchess's resume: `-config file=FILE`; its other keys are refused by name.
        assert_eq!(
            normalise_args(args("cubist match -config file=s.json -autosaveinterval 10")),
            Ok(args("cubist match --resume s.json --autosaveinterval 10"))
        );
        assert_eq!(normalise_args(args("cubist match --config file=s.json")), Ok(args("cubist match --resume s.json")));
        for bad in ["-config outname=x.json", "-config", "-config file=", "-config file=a discard=true"] {
            let err = normalise_args(args(&format!("cubist match {bad}"))).unwrap_err();
            assert!(err.contains("only -config file=FILE") || err.contains("only --config file=FILE"), "{bad}: {err}");
        }
        // Only after `match`.
        assert!(normalise_args(args("cubist perft -x")).is_ok());
    }

    /// The new fastchess / cutechess-cli options parse through clap.
    #[test]
    fn cutechess_options_parse() {
        let line = normalise_args(args(
            "cubist match -engine cmd=a -engine cmd=b -output format=cutechess -wait 5 -event E -site S -noswap \
             -ratinginterval 2 -scoreinterval 3 -report penta=false",
        ))
        .unwrap();
        let Some(Command::Match(m)) = Cli::try_parse_from(line).unwrap().command else { panic!("not a match") };
        assert_eq!((m.wait, m.event.as_str(), m.site.as_str(), m.noswap), (5, "E", "S", true));
        assert_eq!((m.ratinginterval, m.scoreinterval), (Some(2), Some(3)));
        assert_eq!(m.output.as_deref(), Some(&args("format=cutechess")[..]));
        assert_eq!(m.report.as_deref(), Some(&args("penta=false")[..]));
    }

    #[test]
    fn haberkorn_options_need_the_haberkorn_variant() {
        let mut v = VariantArgs {
            variant: VariantKind::Hdc,
            layers: Some(3),
            white_layer: None,
            black_layer: None,
            en_passant: false,
            castling: false,
        };
        assert!(v.variant(false).unwrap_err().contains("--variant haberkorn"));
        v.variant = VariantKind::Haberkorn;
        v.layers = Some(4);
        // IV/V do not both fit 4 layers: the middle layers II and III stand in.
        let small = v.variant(false).unwrap();
        assert_eq!((small.layers, small.white_layer, small.black_layer), (4, 1, 2));
        assert_eq!(v.variant(true).map(|v| v.layers), Ok(4));
        v.white_layer = Some(1);
        assert!(v.variant(true).is_err());
        v.white_layer = Some(7);
        assert!(v.variant(false).unwrap_err().contains("--white-layer/--black-layer"));
    }
}
