//! Self-play data generation for tuning the evaluation (`cubist datagen`):
//! Cubist plays itself at a fixed node count per move from varied openings
//! (random plies from the start; haberkorn on 3 to 8 layers with a random
//! setup constellation; hdc), games run in parallel on rayon's pool, and
//! every quiet position of a finished game is written with the search's
//! score and the game's result.
//!
//! A game is a pure function of the seed and its index (one search thread,
//! the hash table cleared before each game, node-limited searches), so a
//! rerun with the same seed reproduces the same games whatever the thread
//! count; only their order in the file depends on which game finishes
//! first. A run plays one shard of the games (`--shard K/N`, see
//! [`crate::arena::shard`]) and skips the games already in the binary file
//! it resumes.
//!
//! The output is either format of [`super::data`] (documented in
//! protocol.md, "Data sets"): game records in the binary format (every ply's
//! move and score, a few bytes a position), or `GAME ; FEN ; SCORE ; RESULT`
//! lines for the samples alone.

use super::data::{Format, GameData, file_start, read_games};
use crate::arena::shard::Shard;
use crate::book::{play_random_plies, random_constellation};
use crate::core::{Color, GameState, HABERKORN_LAYERS, Move, Position, Variant, VariantKind};
use crate::search::movepick::is_quiet;
use crate::search::{Engine, Limits, Score, Settings};
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::io::{Seek, SeekFrom};
use std::path::Path;
use std::str::FromStr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Which game (or both, alternating by game index) the self-play games are of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Games {
    /// HyperDimension Chess only.
    Hdc,
    /// Haberkorn only (3 to 8 layers, random constellation).
    Haberkorn,
    /// Even game indices hdc, odd ones haberkorn.
    Both,
}

impl Games {
    /// The names [`Games`] reads: each game's, and `both`.
    pub const NAMES: [&'static str; 3] = [VariantKind::NAMES[0], VariantKind::NAMES[1], "both"];
}

impl FromStr for Games {
    type Err = String;

    /// Reads `hdc`, `haberkorn` or `both`.
    fn from_str(s: &str) -> Result<Games, String> {
        match s.parse::<VariantKind>() {
            Ok(VariantKind::Hdc) => Ok(Games::Hdc),
            Ok(VariantKind::Haberkorn) => Ok(Games::Haberkorn),
            Err(_) if s == "both" => Ok(Games::Both),
            Err(_) => Err(format!("unknown game '{s}' (hdc, haberkorn or both)")),
        }
    }
}

/// What `cubist datagen` runs.
#[derive(Clone, Debug)]
pub struct DatagenConfig {
    /// Games to play (of the whole schedule, before sharding).
    pub games: u64,
    /// Nodes searched per move.
    pub nodes: u64,
    /// Which game.
    pub game: Games,
    /// Random moves played from the start position before the engines take over.
    pub random_plies: u32,
    /// The seed every game's opening is derived from.
    pub seed: u64,
    /// Games played at once (rayon threads).
    pub threads: usize,
    /// Hash table per game, in MiB.
    pub hash_mb: usize,
    /// A game still running after this many plies is scored a draw.
    pub max_plies: u32,
    /// Play only this shard's games: index `i` belongs to shard `i mod N + 1`.
    pub shard: Shard,
    /// The file format written.
    pub format: Format,
    /// Games already in the output (a resumed run): skipped, and no header is written.
    pub done: BTreeSet<u64>,
}

impl DatagenConfig {
    /// The settings that decide the games, as the binary header records them:
    /// a run resumes only a file whose header is the same.
    pub fn header(&self) -> String {
        format!(
            "cubist datagen: nodes={} game={:?} random_plies={} seed={} max_plies={} hash={} shard={}",
            self.nodes, self.game, self.random_plies, self.seed, self.max_plies, self.hash_mb, self.shard
        )
    }
}

impl Default for DatagenConfig {
    fn default() -> DatagenConfig {
        DatagenConfig {
            games: 100,
            nodes: 5000,
            game: Games::Both,
            random_plies: 8,
            seed: 1,
            threads: 1,
            hash_mb: 16,
            max_plies: 400,
            shard: Shard::whole(),
            format: Format::Binary,
            done: BTreeSet::new(),
        }
    }
}

/// A side is adjudicated the winner once the score has favoured it by this
/// much (centipawns, or any mate score) for [`WIN_PLIES`] plies in a row.
pub const WIN_SCORE: i32 = 1000;
/// See [`WIN_SCORE`].
pub const WIN_PLIES: usize = 8;
/// After [`DRAW_FROM_PLY`] plies, a game whose score stayed within
/// ±[`DRAW_SCORE`] for [`DRAW_PLIES`] plies in a row is adjudicated a draw.
pub const DRAW_SCORE: i32 = 10;
/// See [`DRAW_SCORE`].
pub const DRAW_PLIES: usize = 16;
/// See [`DRAW_SCORE`].
pub const DRAW_FROM_PLY: usize = 80;
/// Positions whose search score exceeds this (centipawns) are not written:
/// the game is decided and the evaluation has nothing left to learn there.
pub const MAX_SAMPLE_SCORE: i32 = 2000;

/// The variant and opening position of game `index`: a pure function of the seed and the index.
pub fn opening(cfg: &DatagenConfig, index: u64) -> Position {
    let mut rng = StdRng::seed_from_u64(cfg.seed ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let hdc = match cfg.game {
        Games::Hdc => true,
        Games::Haberkorn => false,
        Games::Both => index.is_multiple_of(2),
    };
    let variant = if hdc {
        Variant::hdc()
    } else {
        let layers = rng.random_range(HABERKORN_LAYERS);
        random_constellation(layers, &mut rng)
    };
    let mut pos = Position::start(variant);
    play_random_plies(&mut pos, cfg.random_plies, &mut rng);
    pos.clear_history();
    pos
}

/// A score in centipawns from White's point of view (mates as ±[`WIN_SCORE`] × 10).
fn white_cp(score: Score, side: Color) -> i32 {
    let cp = match score {
        Score::Cp(cp) => cp,
        Score::Mate(n) => WIN_SCORE * 10 * n.signum(),
    };
    if side == Color::White { cp } else { -cp }
}

/// Plays game `index`: every ply's move, with the score of the position
/// before it where that position is a sample (quiet, see the module docs).
/// `nodes` grows by the nodes its searches took.
pub fn play_game(engine: &mut Engine, cfg: &DatagenConfig, index: u64, nodes: &mut u64) -> GameData {
    engine.clear();
    let start = opening(cfg, index);
    let mut pos = start.clone();
    let mut plies = 0;
    let mut recorded: Vec<(Move, Option<i16>)> = Vec::new();
    let mut history: Vec<i32> = Vec::new();
    let result = loop {
        match pos.game_state() {
            GameState::Ongoing => {}
            GameState::Checkmate => break if pos.side_to_move() == Color::White { 0.0 } else { 1.0 },
            _ => break 0.5,
        }
        if plies >= cfg.max_plies {
            break 0.5;
        }
        let (score, best) = engine.search_to_end(&pos, Limits { nodes: Some(cfg.nodes), ..Limits::default() });
        *nodes += engine.nodes();
        let Some(best) = best else { break 0.5 };
        // A node budget too small to finish depth 1 (hdc's 200-odd root moves) gives no score: play on.
        let Some(score) = score else {
            recorded.push((best, None));
            pos.make(best);
            plies += 1;
            continue;
        };
        let cp = white_cp(score, pos.side_to_move());
        let sample =
            matches!(score, Score::Cp(_)) && !pos.in_check() && is_quiet(&pos, best) && cp.abs() <= MAX_SAMPLE_SCORE;
        recorded.push((best, sample.then_some(cp as i16)));
        history.push(cp);
        let tail = |n: usize| &history[history.len().saturating_sub(n)..];
        if history.len() >= WIN_PLIES {
            if tail(WIN_PLIES).iter().all(|&s| s >= WIN_SCORE) {
                break 1.0;
            }
            if tail(WIN_PLIES).iter().all(|&s| s <= -WIN_SCORE) {
                break 0.0;
            }
        }
        if history.len() >= DRAW_FROM_PLY.max(DRAW_PLIES) && tail(DRAW_PLIES).iter().all(|s| s.abs() <= DRAW_SCORE) {
            break 0.5;
        }
        pos.make(best);
        plies += 1;
    };
    GameData { index, start, plies: recorded, result }
}

/// What a finished run produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DatagenSummary {
    /// Games played.
    pub games: u64,
    /// Positions written.
    pub positions: u64,
    /// Nodes searched by all the games' searches.
    pub nodes: u64,
}

/// Opens the data file `path` for a run of `cfg`: a binary file that
/// exists is resumed (its whole games are kept and their indices put in
/// `cfg.done`, a torn last record cut off, writing goes on at its end),
/// anything else is created anew. Returns the file and how many games it
/// already held; a file of other settings or with a damaged record is
/// refused, untouched.
pub fn open_output(cfg: &mut DatagenConfig, path: &Path) -> Result<(File, usize), String> {
    let name = path.display();
    let existing = match cfg.format {
        Format::Binary => std::fs::read(path).ok().filter(|b| !b.is_empty()),
        Format::Text => None,
    };
    let Some(bytes) = existing else {
        return Ok((File::create(path).map_err(|e| format!("{name}: {e}"))?, 0));
    };
    let found = read_games(&bytes).map_err(|e| format!("{name}: {e}; not resumed (remove it to start anew)"))?;
    if let Some(e) = found.errors.first() {
        return Err(format!("{name}: {e}; not resumed (remove it to start anew)"));
    }
    if found.header != cfg.header() {
        return Err(format!(
            "{name} holds games of other settings ('{}', this run: '{}'); not resumed",
            found.header,
            cfg.header()
        ));
    }
    cfg.done = found.games.iter().map(|g| g.index).collect();
    let mut file = std::fs::OpenOptions::new().write(true).open(path).map_err(|e| format!("{name}: {e}"))?;
    file.set_len(found.end as u64).map_err(|e| format!("{name}: {e}"))?;
    file.seek(SeekFrom::End(0)).map_err(|e| format!("{name}: {e}"))?;
    Ok((file, cfg.done.len()))
}

/// Plays the configured games on `cfg.threads` rayon threads and writes
/// each finished game's samples to `out` at once (flushed), so that an
/// interrupted run loses only the games in progress.
pub fn run(cfg: &DatagenConfig, out: &mut (dyn Write + Send), progress: bool) -> Result<DatagenSummary, String> {
    if cfg.nodes == 0 || cfg.threads == 0 || cfg.hash_mb == 0 {
        return Err("--nodes, --threads and --hash must be at least 1".into());
    }
    let header = match cfg.format {
        _ if !cfg.done.is_empty() => Ok(()),
        Format::Binary => out.write_all(&file_start(&cfg.header())),
        Format::Text => writeln!(
            out,
            "# cubist {} datagen: games={} nodes={} game={:?} random_plies={} seed={} max_plies={} shard={}",
            env!("CARGO_PKG_VERSION"),
            cfg.games,
            cfg.nodes,
            cfg.game,
            cfg.random_plies,
            cfg.seed,
            cfg.max_plies,
            cfg.shard
        )
        .and_then(|_| writeln!(out, "# GAME ; FEN ; SCORE (centipawns, White's view) ; RESULT (White's: 1, 0.5, 0)")),
    };
    header.and_then(|_| out.flush()).map_err(|e| format!("writing the data set: {e}"))?;
    let indices: Vec<u64> = (0..cfg.games).filter(|&i| cfg.shard.contains(i) && !cfg.done.contains(&i)).collect();
    let bar = if progress { ProgressBar::new(indices.len() as u64) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games, {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let positions = AtomicU64::new(0);
    let nodes = AtomicU64::new(0);
    let started = std::time::Instant::now();
    let out = Mutex::new(out);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(cfg.threads).build().map_err(|e| e.to_string())?;
    let settings = Settings { hash_mb: cfg.hash_mb, threads: 1, ..Settings::default() };
    pool.install(|| {
        indices.par_iter().try_for_each_init(
            || Engine::new(settings.clone()),
            |engine, &index| -> Result<(), String> {
                let mut searched = 0;
                let game = play_game(engine, cfg, index, &mut searched);
                nodes.fetch_add(searched, Ordering::Relaxed);
                let count = game.plies.iter().filter(|p| p.1.is_some()).count();
                let bytes = match cfg.format {
                    Format::Binary => {
                        let mut buf = Vec::new();
                        game.encode(&mut buf);
                        buf
                    }
                    Format::Text => game.samples().iter().map(|s| format!("{s}\n")).collect::<String>().into_bytes(),
                };
                {
                    let mut out = out.lock().map_err(|_| "the output lock was poisoned".to_string())?;
                    out.write_all(&bytes)
                        .and_then(|_| out.flush())
                        .map_err(|e| format!("writing the data set: {e}"))?;
                }
                let n = positions.fetch_add(count as u64, Ordering::Relaxed) + count as u64;
                let rate = n as f64 / started.elapsed().as_secs_f64().max(1e-3);
                bar.set_message(format!("{n} positions, {rate:.0} positions/s"));
                bar.inc(1);
                Ok(())
            },
        )
    })?;
    bar.finish();
    Ok(DatagenSummary {
        games: indices.len() as u64,
        positions: positions.load(Ordering::Relaxed),
        nodes: nodes.load(Ordering::Relaxed),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::data::{decode_game, parse_sample, read_games};

    fn tiny(game: Games) -> DatagenConfig {
        DatagenConfig { games: 2, nodes: 300, game, random_plies: 4, max_plies: 60, ..DatagenConfig::default() }
    }

    #[test]
    fn a_game_is_a_function_of_seed_and_index() {
        let cfg = tiny(Games::Haberkorn);
        let mut engine = Engine::new(Settings { hash_mb: 2, ..Settings::default() });
        let a = play_game(&mut engine, &cfg, 1, &mut 0);
        let b = play_game(&mut engine, &cfg, 1, &mut 0);
        assert_eq!(a, b);
        let samples = a.samples();
        assert!(!samples.is_empty());
        assert_ne!(opening(&cfg, 1).fen(), opening(&cfg, 2).fen());
        assert!(samples.iter().all(|s| s.score.abs() <= MAX_SAMPLE_SCORE && [0.0, 0.5, 1.0].contains(&s.result)));
        assert!(samples.iter().all(|s| !s.position.in_check()));
    }

    /// What a record keeps of a game (a position read from its FEN has no move history).
    fn view(g: &GameData) -> String {
        format!("{} {} {:?} {:?} {}", g.index, g.start.fen(), g.start.variant(), g.plies, g.result)
    }

    #[test]
    fn games_round_trip_through_both_formats() {
        let cfg = tiny(Games::Both);
        let mut engine = Engine::new(Settings { hash_mb: 2, ..Settings::default() });
        let mut file = file_start(&cfg.header());
        let mut games = Vec::new();
        for index in 0..2 {
            let game = play_game(&mut engine, &cfg, index, &mut 0);
            let mut record = Vec::new();
            game.encode(&mut record);
            assert_eq!(view(&decode_game(&record[4..]).unwrap()), view(&game));
            file.extend_from_slice(&record);
            for s in game.samples() {
                let back = parse_sample(&s.to_string()).unwrap();
                assert_eq!(back.position.fen(), s.position.fen());
                assert_eq!(back.position.variant().layers, s.position.variant().layers);
                assert_eq!((back.score, back.result), (s.score, s.result));
            }
            games.push(game);
        }
        let read = read_games(&file).unwrap();
        assert_eq!(read.games.iter().map(view).collect::<Vec<_>>(), games.iter().map(view).collect::<Vec<_>>());
        assert!(read.errors.is_empty() && read.torn_at.is_none());
        // A few bytes a position, where a text line takes hundreds.
        let positions: usize = games.iter().map(|g| g.plies.len()).sum();
        assert!(file.len() < 1000 * games.len() + 6 * positions, "{} bytes", file.len());
    }

    #[test]
    fn games_parse() {
        assert_eq!("both".parse(), Ok(Games::Both));
        assert_eq!("haberkorn".parse(), Ok(Games::Haberkorn));
        assert!("chess".parse::<Games>().is_err());
    }
}
