//! The match runner behind `cubist match`: engines as UCI child processes,
//! games refereed by the rules library, round robin or gauntlet pairings,
//! worker threads, statistics with SPRT, progress and game records.
//!
//! Each worker thread owns its engine processes and plays one game at a time;
//! the calling thread collects results, updates the statistics and the
//! progress bar and stops the match when the SPRT decides. When all the
//! games of a block (one round of one pairing: its game pair) are in, it
//! writes their records (synced), the state file and the results JSON
//! ([`state`]): a match interrupted by SIGINT or SIGTERM, or killed, is
//! resumed from there ([`resume_match`]), replaying only the blocks that
//! were in progress.
//!
//! `--shard K/N` plays one slice of the schedule: the schedule is cut into
//! blocks, one per round and pairing (all the games of a pairing on one
//! opening, so colour-reversed pairs stay together), and block `b` belongs to
//! shard `b mod N + 1` ([`crate::arena::shard`]). Openings, colours and random
//! plies depend only on the round, so the N shards together play exactly
//! the games of the unsharded match; `cubist merge` ([`merge`]) adds them up.

pub mod book;
pub mod config;
pub(crate) mod fingerprint;
pub mod game;
pub mod merge;
pub(crate) mod openings;
pub(crate) mod process;
pub mod record;
pub mod referee;
pub mod shard;
pub mod spsa;
pub mod state;
pub mod stats;
pub mod summary;

use crate::arena::shard::{Shard, ShardSet};
use crate::core::{Position, Variant};
use config::{ConfigError, EngineSpec, OpeningsSpec, OutputFormat};
use fingerprint::{EngineIdentity, MatchIdentity, describe_adjudication};
use game::{Adjudication, Played, play_game};
use indicatif::{ProgressBar, ProgressStyle};
use openings::{OpeningBook, OpeningError};
use process::{EngineProcess, ProcessError};
use record::{GameRecord, GameResult, Termination, today};
use serde::{Deserialize, Serialize};
use state::{MatchState, Program, Progress as Kept, StateError, deserialize_variant, serialize_variant};
use stats::{Sprt, SprtDecision, SprtStop, Tally};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{RecvTimeoutError, SyncSender, sync_channel};
use std::thread;
use std::time::Duration;
use summary::{MatchSummary, PairingSummary, SprtSummary, Standing, fmt_elo, fmt_err};
use thiserror::Error;

/// Why a match could not run.
#[derive(Debug, Error)]
pub enum ArenaError {
    /// A bad setting.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Bad openings.
    #[error(transparent)]
    Openings(#[from] OpeningError),
    /// An engine that does not start or does not speak UCI.
    #[error("engine '{name}' does not start: {source}")]
    Engine {
        /// The engine.
        name: String,
        /// Why.
        source: ProcessError,
    },
    /// An `option.X=V` the engine refuses (unknown name, wrong type, out of range).
    #[error("engine '{name}': {why}")]
    EngineOption {
        /// The engine.
        name: String,
        /// The refusal, naming the option.
        why: String,
    },
    /// An output file that cannot be written.
    #[error("cannot write '{0}': {1}")]
    Io(String, std::io::Error),
    /// A state file that cannot be read, trusted or written, or a resume it refuses.
    #[error(transparent)]
    State(#[from] StateError),
    /// SIGINT or SIGTERM stopped the match; the finished game pairs are kept.
    #[error("{}", interrupted(*games, *scheduled, state.as_deref()))]
    Interrupted {
        /// Games kept: those of the finished blocks.
        games: u64,
        /// Games of the schedule.
        scheduled: u64,
        /// The state file to resume from, if one is kept.
        state: Option<PathBuf>,
    },
}

/// The message of an interrupted match: what is kept and how to go on.
fn interrupted(games: u64, scheduled: u64, state: Option<&Path>) -> String {
    let kept = format!(
        "interrupted: {games} of {scheduled} games kept (those of finished game pairs; games in progress are dropped)"
    );
    match state {
        Some(p) => format!("{kept}; resume with: cubist match --resume {}", p.display()),
        None => format!("{kept}; no state was kept (--state FILE, --results-json or --pgnout keep one)"),
    }
}

/// Everything `cubist match` was asked to do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchConfig {
    /// The engines (at least two).
    pub engines: Vec<EngineSpec>,
    /// The first engine plays everyone else, the others do not meet.
    pub gauntlet: bool,
    /// The variant (setup layers vary with constellations).
    #[serde(serialize_with = "serialize_variant", deserialize_with = "deserialize_variant")]
    pub variant: Variant,
    /// An opening file.
    pub openings: Option<OpeningsSpec>,
    /// Random plies played after each opening.
    pub random_plies: u32,
    /// Haberkorn: cycle through all white/black setup-layer pairs.
    pub constellations: bool,
    /// Play each opening with colours reversed in consecutive games.
    pub repeat: bool,
    /// Rounds (one opening each).
    pub rounds: u32,
    /// Games per pairing and round (default 2 with repeat, else 1).
    pub games: Option<u32>,
    /// Games played at once.
    pub concurrency: usize,
    /// Seed for opening order and random plies.
    pub seed: u64,
    /// Resign, draw and max-moves adjudication.
    pub adjudication: Adjudication,
    /// SPRT (two engines only).
    pub sprt: Option<Sprt>,
    /// Game records file.
    pub pgnout: Option<PathBuf>,
    /// Summary JSON file.
    pub results_json: Option<PathBuf>,
    /// Conversation log: every line between the runner and each engine, timestamped.
    pub log: Option<PathBuf>,
    /// The state file (`None`: beside the results JSON, else beside the records, else none).
    #[serde(default)]
    pub state: Option<PathBuf>,
    /// The slice of the schedule to play (`1/1`: all of it). A shard plays
    /// all its games: its SPRT is reported but never stops it.
    pub shard: Shard,
    /// The records' `Event` tag.
    pub event: String,
    /// The records' `Site` tag.
    pub site: String,
    /// The first engine of a pairing always plays White (no colour swap).
    pub noswap: bool,
    /// A pause before each worker's next game.
    pub wait: std::time::Duration,
    /// Progress in fastchess's or cutechess-cli's words.
    pub output: OutputFormat,
    /// Print the score line every N finished games (0: never).
    pub score_interval: u32,
    /// Print the rating lines every N finished games (0: never).
    pub rating_interval: u32,
    /// The rating lines show the pentanomial counts.
    pub penta_report: bool,
    /// No progress bar and no line per game (the SPSA tuner's matches).
    #[serde(default)]
    pub quiet: bool,
}

/// The defaults of the settings fastchess and cutechess-cli users may change.
impl Default for MatchConfig {
    fn default() -> MatchConfig {
        MatchConfig {
            engines: Vec::new(),
            gauntlet: false,
            variant: Variant::hdc(),
            openings: None,
            random_plies: 0,
            constellations: false,
            repeat: true,
            rounds: 1,
            games: None,
            concurrency: 1,
            seed: 0,
            adjudication: Adjudication::default(),
            sprt: None,
            pgnout: None,
            results_json: None,
            log: None,
            state: None,
            shard: Shard::whole(),
            event: "Cubist match".into(),
            site: "?".into(),
            noswap: false,
            wait: std::time::Duration::ZERO,
            output: OutputFormat::Fastchess,
            score_interval: 0,
            rating_interval: 0,
            penta_report: true,
            quiet: false,
        }
    }
}

/// One scheduled game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Job {
    pairing: usize,
    round: u32,
    game: u32,
    white: usize,
    black: usize,
}

/// The pairings of `engines` engines by index: round robin, or the first
/// against each other one (a gauntlet, or the one pairing of two engines).
pub fn pairings(engines: usize, gauntlet: bool) -> Vec<(usize, usize)> {
    if gauntlet || engines == 2 {
        (1..engines).map(|j| (0, j)).collect()
    } else {
        (0..engines).flat_map(|i| (i + 1..engines).map(move |j| (i, j))).collect()
    }
}

/// The games of a match (or of one shard of it), computed from their index
/// when asked for: a schedule of 2³² rounds costs no memory.
struct Schedule {
    pairings: Vec<(usize, usize)>,
    rounds: u32,
    games_per_round: u32,
    repeat: bool,
    noswap: bool,
    shard: Shard,
}

impl Schedule {
    /// The schedule of `cfg`: round robin (or gauntlet, or the one pairing of two engines), then its shard.
    fn new(cfg: &MatchConfig) -> Schedule {
        let games_per_round = cfg.games.unwrap_or(if cfg.repeat { 2 } else { 1 });
        Schedule {
            pairings: pairings(cfg.engines.len(), cfg.gauntlet),
            rounds: cfg.rounds,
            games_per_round,
            repeat: cfg.repeat,
            noswap: cfg.noswap,
            shard: cfg.shard,
        }
    }

    /// Blocks of the whole match: one per round and pairing.
    fn blocks(&self) -> u64 {
        u64::from(self.rounds) * self.pairings.len() as u64
    }

    /// How many games this shard plays (all of them when unsharded).
    fn len(&self) -> u64 {
        self.shard.len_of(self.blocks()) * u64::from(self.games_per_round)
    }

    /// This shard's game `index` (from 0): its blocks in order, the games of each block in order.
    fn job(&self, index: u64) -> Option<Job> {
        let per_block = u64::from(self.games_per_round);
        let block = self.shard.unit(index / per_block, self.blocks())?;
        self.match_job(block * per_block + index % per_block)
    }

    /// Game `index` (from 0) of the whole match: round by round, pairing by
    /// pairing; colours alternate within a round with `repeat`, else from
    /// round to round.
    fn match_job(&self, index: u64) -> Option<Job> {
        if index >= self.blocks() * u64::from(self.games_per_round) {
            return None;
        }
        let per_round = self.pairings.len() as u64 * u64::from(self.games_per_round);
        let round = (index / per_round) as u32;
        let pairing = (index % per_round / u64::from(self.games_per_round)) as usize;
        let game = (index % u64::from(self.games_per_round)) as u32;
        let (a, b) = self.pairings[pairing];
        let colour_index = if self.repeat {
            u64::from(game)
        } else {
            u64::from(round) * u64::from(self.games_per_round) + u64::from(game)
        };
        let (white, black) = if colour_index % 2 == 1 && !self.noswap { (b, a) } else { (a, b) };
        Some(Job { pairing, round, game, white, black })
    }
}

/// Gives engines with the same name a `-2`, `-3` … suffix.
fn unique_names(engines: &mut [EngineSpec]) {
    for i in 1..engines.len() {
        let base = engines[i].name.clone();
        let mut k = 2;
        while engines[..i].iter().any(|e| e.name == engines[i].name) {
            engines[i].name = format!("{base}-{k}");
            k += 1;
        }
    }
}

/// A finished game as a worker hands it to the collector.
struct Finished {
    /// Its index in this shard's schedule.
    index: u64,
    job: Job,
    variant: Variant,
    start_fen: String,
    played: Played,
}

/// The output files. The records file and the log are opened (created, or
/// reopened to append on a resume) before the first game; the results JSON
/// is written whole each time ([`crate::files::write_atomically`]).
struct Outputs {
    pgn: Option<(PathBuf, File)>,
    json: Option<PathBuf>,
    /// The length of the records file.
    records_bytes: u64,
}

impl Outputs {
    /// Creates the records file and the log of a fresh match.
    fn create(cfg: &MatchConfig) -> Result<Outputs, ArenaError> {
        let create = |p: &PathBuf| File::create(p).map_err(|e| ArenaError::Io(p.display().to_string(), e));
        if let Some(p) = &cfg.log {
            process::log_to(create(p)?);
        }
        let pgn = match &cfg.pgnout {
            Some(p) => Some((p.clone(), create(p)?)),
            None => None,
        };
        Ok(Outputs { pgn, json: cfg.results_json.clone(), records_bytes: 0 })
    }

    /// Reopens the records file of a resumed match, cut back to the
    /// `records_bytes` its state holds (dropping records a kill left behind
    /// the last saved state), and the log to append to.
    fn reopen(cfg: &MatchConfig, records_bytes: u64) -> Result<Outputs, ArenaError> {
        let io = |p: &PathBuf, e| ArenaError::Io(p.display().to_string(), e);
        if let Some(p) = &cfg.log {
            process::log_to(std::fs::OpenOptions::new().create(true).append(true).open(p).map_err(|e| io(p, e))?);
        }
        let pgn = match &cfg.pgnout {
            Some(p) => {
                let mut f = std::fs::OpenOptions::new()
                    .create(true)
                    .write(true)
                    .truncate(false)
                    .open(p)
                    .map_err(|e| io(p, e))?;
                let len = f.metadata().map_err(|e| io(p, e))?.len();
                if len < records_bytes {
                    return Err(StateError::Changed(format!(
                        "the records file '{}' holds {len} bytes, fewer than the {records_bytes} of the games kept: was it changed?",
                        p.display()
                    ))
                    .into());
                }
                f.set_len(records_bytes).and_then(|_| f.seek(std::io::SeekFrom::End(0))).map_err(|e| io(p, e))?;
                Some((p.clone(), f))
            }
            None => None,
        };
        Ok(Outputs { pgn, json: cfg.results_json.clone(), records_bytes })
    }

    /// Appends records and syncs them to the disk.
    fn records<'a>(&mut self, records: impl IntoIterator<Item = &'a GameRecord>) -> Result<(), ArenaError> {
        let Some((p, out)) = &mut self.pgn else { return Ok(()) };
        let mut bytes = Vec::new();
        for record in records {
            record.write(&mut bytes).map_err(|e| ArenaError::Io(p.display().to_string(), e))?;
        }
        out.write_all(&bytes).and_then(|_| out.sync_data()).map_err(|e| ArenaError::Io(p.display().to_string(), e))?;
        self.records_bytes += bytes.len() as u64;
        Ok(())
    }

    /// Writes the summary JSON whole.
    fn summary(&self, summary: &MatchSummary) -> Result<(), ArenaError> {
        let Some(p) = &self.json else { return Ok(()) };
        let io = |e: std::io::Error| ArenaError::Io(p.display().to_string(), e);
        let text = serde_json::to_string_pretty(summary).map_err(|e| io(e.into()))?;
        crate::files::write_atomically(p, format!("{text}\n").as_bytes()).map_err(io)
    }
}

/// The results so far: per pairing tallies (with game pairs), per engine points, terminations.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Results {
    tallies: Vec<Tally>,
    /// First games of pairs waiting for their second: (pairing, round, pair) → points.
    #[serde(skip)]
    pending: HashMap<(usize, u32, u32), f64>,
    points: Vec<(u32, f64)>,
    terminations: BTreeMap<String, u32>,
    finished: u64,
}

impl Results {
    fn new(engines: usize, pairings: usize) -> Results {
        Results {
            tallies: vec![Tally::default(); pairings],
            pending: HashMap::new(),
            points: vec![(0, 0.0); engines],
            terminations: BTreeMap::new(),
            finished: 0,
        }
    }

    /// Counts a game; `first` is the pairing's first engine.
    fn add(&mut self, job: Job, first: usize, result: GameResult, termination: Termination, repeat: bool) {
        self.finished += 1;
        let white_points = result.white_points();
        let first_points = if job.white == first { white_points } else { 1.0 - white_points };
        let tally = &mut self.tallies[job.pairing];
        tally.add_game(first_points);
        if repeat {
            let key = (job.pairing, job.round, job.game / 2);
            if let Some(other) = self.pending.remove(&key) {
                tally.add_pair(((other + first_points) * 2.0).round() as usize);
            } else {
                self.pending.insert(key, first_points);
            }
        }
        self.points[job.white].0 += 1;
        self.points[job.white].1 += white_points;
        self.points[job.black].0 += 1;
        self.points[job.black].1 += 1.0 - white_points;
        *self.terminations.entry(termination.to_string()).or_default() += 1;
    }

    /// Game pairs of pairing 0 so far (games halved where games are not paired).
    fn pairs(&self, repeat: bool) -> u32 {
        let t = &self.tallies[0];
        if repeat { t.penta.iter().sum() } else { t.games() / 2 }
    }

    /// Checks counts read from a state file against the match's shape; the reason when they do not fit.
    fn check(&self, engines: usize, pairings: usize, games: u64) -> Result<(), String> {
        if self.tallies.len() != pairings || self.points.len() != engines {
            return Err(format!(
                "its counts are for {} pairings and {} engines",
                self.tallies.len(),
                self.points.len()
            ));
        }
        let counted: u64 =
            self.tallies.iter().map(|t| u64::from(t.wins) + u64::from(t.draws) + u64::from(t.losses)).sum();
        let ends: u64 = self.terminations.values().map(|&n| u64::from(n)).sum();
        if counted != games || self.finished != games || ends != games {
            return Err(format!("its counts ({counted} games, {ends} ends) are not of its {games} games"));
        }
        Ok(())
    }
}

/// The progress bar and its one-line status.
struct Progress {
    bar: ProgressBar,
}

impl Progress {
    fn new(games: u64) -> Progress {
        let bar = ProgressBar::new(games);
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        Progress { bar }
    }

    /// A line above the bar (or on stderr when there is no terminal); a closed stderr is ignored.
    fn say(&self, line: String) {
        if self.bar.is_hidden() {
            let _ = writeln!(std::io::stderr(), "{line}");
        } else {
            self.bar.println(line);
        }
    }
}

/// The record of a finished game.
fn record_of(cfg: &MatchConfig, date: &str, f: Finished) -> GameRecord {
    let (w, b) = (&cfg.engines[f.job.white], &cfg.engines[f.job.black]);
    GameRecord {
        event: cfg.event.clone(),
        site: cfg.site.clone(),
        date: date.to_string(),
        round: format!("{}.{}", u64::from(f.job.round) + 1, u64::from(f.job.game) + 1),
        white: w.name.clone(),
        black: b.name.clone(),
        result: f.played.result,
        variant: f.variant,
        fen: f.start_fen,
        time_control: if w.limit == b.limit {
            w.limit.describe()
        } else {
            format!("{}:{}", w.limit.describe(), b.limit.describe())
        },
        termination: f.played.termination,
        moves: f.played.moves,
        move_comments: f.played.move_comments,
        comment: f.played.comment,
    }
}

/// Checks what must hold before anything starts.
fn validate(cfg: &MatchConfig) -> Result<(), ArenaError> {
    let n = cfg.engines.len();
    if n < 2 {
        return Err(ConfigError::Conflict("a match needs at least two --engine".into()).into());
    }
    if cfg.sprt.is_some() && n != 2 {
        return Err(ConfigError::Conflict("--sprt needs exactly two engines".into()).into());
    }
    if cfg.rounds == 0 || cfg.games == Some(0) || cfg.concurrency == 0 {
        return Err(ConfigError::Conflict("--rounds, --games and --concurrency must be at least 1".into()).into());
    }
    Ok(())
}

/// A worker: takes the next game of the schedule (skipping the blocks a
/// resumed match has finished), plays it with its own engine processes (kept
/// between games, restarted after a fault) and hands the result over, until
/// the schedule ends or the match is stopped.
fn worker(
    schedule: &Schedule,
    book: &OpeningBook,
    cfg: &MatchConfig,
    done: &BTreeSet<u64>,
    next: &AtomicU64,
    stop: &AtomicBool,
    tx: SyncSender<Finished>,
) {
    let (specs, rules, wait) = (&cfg.engines, cfg.adjudication, cfg.wait);
    let per_block = u64::from(schedule.games_per_round);
    let mut slots: Vec<Option<EngineProcess>> = specs.iter().map(|_| None).collect();
    let mut first = true;
    while !stop.load(Ordering::Relaxed) {
        let index = next.fetch_add(1, Ordering::Relaxed);
        let Some(job) = schedule.job(index) else { break };
        if done.contains(&(index / per_block)) {
            continue;
        }
        if !first && !wait.is_zero() {
            thread::sleep(wait);
        }
        first = false;
        // `restart=on`: a fresh process for every game.
        for side in [job.white, job.black] {
            if specs[side].restart
                && let Some(engine) = slots[side].take()
            {
                engine.quit();
            }
        }
        let opening = book.opening(job.round as usize);
        // The book only hands out FENs it has parsed; a refusal here ends the match.
        let Ok(start) = Position::from_fen(&opening.fen, opening.variant) else {
            stop.store(true, Ordering::Relaxed);
            break;
        };
        let mut pair = [slots[job.white].take(), slots[job.black].take()];
        let played = play_game(&start, [&specs[job.white], &specs[job.black]], &mut pair, rules);
        let [w, b] = pair;
        slots[job.white] = w;
        slots[job.black] = b;
        let finished = Finished { index, job, variant: opening.variant, start_fen: start.fen(), played };
        if tx.send(finished).is_err() {
            break;
        }
    }
    for engine in slots.into_iter().flatten() {
        engine.quit();
    }
}

/// The state a match keeps: where (if anywhere) and what.
struct Keeping {
    path: Option<PathBuf>,
    state: MatchState<MatchConfig, Results>,
}

/// The settings with every path made absolute, so that a resume from another folder finds the same files.
fn with_absolute_paths(cfg: &MatchConfig) -> MatchConfig {
    let abs = |p: &mut PathBuf| {
        if let Ok(a) = std::path::absolute(&*p) {
            *p = a;
        }
    };
    let mut cfg = cfg.clone();
    for p in [&mut cfg.pgnout, &mut cfg.results_json, &mut cfg.log, &mut cfg.state].into_iter().flatten() {
        abs(p);
    }
    if let Some(o) = &mut cfg.openings {
        abs(&mut o.file);
    }
    for e in &mut cfg.engines {
        for p in [&mut e.stderr, &mut e.dir].into_iter().flatten() {
            abs(p);
        }
        // A program with a `/` is found from the runner's folder (`dir=` or not); one without, on the PATH.
        if e.cmd.contains('/')
            && let Ok(a) = std::path::absolute(&e.cmd)
        {
            e.cmd = a.display().to_string();
        }
    }
    cfg
}

/// Plays the match and returns its summary (also printed as a table).
pub fn run_match(cfg: MatchConfig) -> Result<MatchSummary, ArenaError> {
    run_match_until(cfg, &AtomicBool::new(false))
}

/// Plays the match, keeping its state file, until it ends or `interrupt` is
/// set (by SIGINT or SIGTERM): then the engines are stopped, games in
/// progress dropped, and the error [`ArenaError::Interrupted`] says how to resume.
pub fn run_match_until(mut cfg: MatchConfig, interrupt: &AtomicBool) -> Result<MatchSummary, ArenaError> {
    validate(&cfg)?;
    unique_names(&mut cfg.engines);
    let path = cfg.state.clone().or_else(|| state::default_path(cfg.results_json.as_deref(), cfg.pgnout.as_deref()));
    if let Some(p) = &path {
        state::check_fresh(p)?;
    }
    let book = OpeningBook::new(cfg.variant, cfg.openings.as_ref(), cfg.constellations, cfg.random_plies, cfg.seed)?;
    let schedule = Schedule::new(&cfg);
    let identity = identity_of(&cfg, &schedule, &book);
    let state = MatchState {
        format: state::FORMAT.to_string(),
        fingerprint: identity.fingerprint(),
        identity,
        programs: cfg.engines.iter().map(|e| Program::of(&e.cmd)).collect(),
        config: with_absolute_paths(&cfg),
        progress: Kept::new(Results::new(cfg.engines.len(), schedule.pairings.len()), cfg.engines.len()),
    };
    let outputs = Outputs::create(&cfg)?;
    play(cfg, book, schedule, outputs, Keeping { path, state }, interrupt)
}

/// A match command line given with `--resume`: it must describe the state's match.
#[derive(Clone, Debug)]
pub struct Expected {
    /// The settings it gives.
    pub config: MatchConfig,
    /// Whether it gives `--seed` (else the state's seed is taken).
    pub seed_given: bool,
}

/// Goes on with the match whose state is in `path`: the same schedule,
/// openings and colours, the records appended. Refused (the state left as
/// it is) when the state does not hold together, when an engine's program
/// has changed since, or when `expected` describes another match.
pub fn resume_match(
    path: &Path,
    expected: Option<Expected>,
    interrupt: &AtomicBool,
) -> Result<MatchSummary, ArenaError> {
    let state: MatchState<MatchConfig, Results> = MatchState::load(path)?;
    let file = path.display().to_string();
    let bad = |why: String| ArenaError::State(StateError::Inconsistent(file.clone(), why));
    let cfg = state.config.clone();
    validate(&cfg).map_err(|e| bad(e.to_string()))?;
    if let Some(s) = cfg.sprt {
        Sprt::new(s.elo0, s.elo1, s.alpha, s.beta, s.model).map_err(|e| bad(format!("config.sprt: {e}")))?;
    }
    let book = OpeningBook::new(cfg.variant, cfg.openings.as_ref(), cfg.constellations, cfg.random_plies, cfg.seed)?;
    let schedule = Schedule::new(&cfg);
    let identity = identity_of(&cfg, &schedule, &book);
    if let Some((field, settings, described)) = state.identity.difference(&identity) {
        return Err(bad(format!(
            "its settings give match.{field} = {described}, its match says {settings}: was it edited?"
        )));
    }
    let p = &state.progress;
    let per_block = u64::from(schedule.games_per_round);
    let blocks = schedule.len() / per_block.max(1);
    let engines = cfg.engines.len();
    if p.blocks_below > blocks || p.blocks_above.iter().any(|&b| b <= p.blocks_below || b >= blocks) {
        return Err(bad(format!("its finished blocks lie outside the {blocks} of its schedule")));
    }
    if p.error_lines.len() != engines || state.programs.len() != engines {
        return Err(bad(format!("it does not describe its {engines} engines")));
    }
    if !p.finished && p.games != p.blocks_done() * per_block {
        return Err(bad(format!("{} games in {} finished blocks of {per_block} games", p.games, p.blocks_done())));
    }
    p.results.check(engines, schedule.pairings.len(), p.games).map_err(bad)?;
    if let Some(expected) = expected {
        check_expected(&state, expected)?;
    }
    for ((e, then), i) in cfg.engines.iter().zip(&state.programs).zip(1..) {
        let now = Program::of(&e.cmd);
        if now != *then {
            let shown = |p: &Program| {
                format!(
                    "{} ({} bytes, digest {})",
                    p.path.as_ref().map_or("not found".into(), |p| p.display().to_string()),
                    p.bytes,
                    p.digest
                )
            };
            return Err(StateError::Changed(format!(
                "engine {i} '{}': its program is now {}, but the match started with {}",
                e.name,
                shown(&now),
                shown(then)
            ))
            .into());
        }
    }
    if p.finished {
        let summary = summarise(&cfg, &schedule, p, identity);
        Outputs { pgn: None, json: cfg.results_json.clone(), records_bytes: 0 }.summary(&summary)?;
        Progress::new(0).say(format!("the match of '{file}' is complete: nothing is left to play"));
        return Ok(summary);
    }
    let outputs = Outputs::reopen(&cfg, p.records_bytes)?;
    play(cfg, book, schedule, outputs, Keeping { path: Some(path.to_path_buf()), state }, interrupt)
}

/// Refuses a `--resume` whose command line describes another match than the state's, or other output files.
fn check_expected(state: &MatchState<MatchConfig, Results>, expected: Expected) -> Result<(), ArenaError> {
    let mut given = expected.config;
    validate(&given)?;
    unique_names(&mut given.engines);
    if !expected.seed_given {
        given.seed = state.config.seed;
    }
    let book =
        OpeningBook::new(given.variant, given.openings.as_ref(), given.constellations, given.random_plies, given.seed)?;
    let identity = identity_of(&given, &Schedule::new(&given), &book);
    if let Some((field, kept, here)) = state.identity.difference(&identity) {
        return Err(StateError::Changed(format!(
            "match.{field} is {here} on this command line but {kept} in the state"
        ))
        .into());
    }
    let given = with_absolute_paths(&given);
    for (what, here, kept) in [
        ("--pgnout", &given.pgnout, &state.config.pgnout),
        ("--results-json", &given.results_json, &state.config.results_json),
    ] {
        if here.is_some() && here != kept {
            let show = |p: &Option<PathBuf>| p.as_ref().map_or("none".into(), |p| format!("'{}'", p.display()));
            return Err(
                StateError::Changed(format!("{what} is {} here but {} in the state", show(here), show(kept))).into()
            );
        }
    }
    Ok(())
}

/// A game waiting for the rest of its block: its place and its record.
type Waiting = (Job, GameRecord);

/// Plays what is left of the schedule, keeping the state after every finished block.
fn play(
    cfg: MatchConfig,
    book: OpeningBook,
    schedule: Schedule,
    mut outputs: Outputs,
    mut keeping: Keeping,
    interrupt: &AtomicBool,
) -> Result<MatchSummary, ArenaError> {
    // Every engine must start, answer `uci` and take its options before games are scheduled.
    for spec in &cfg.engines {
        match EngineProcess::start(spec) {
            Ok(engine) => engine.quit(),
            Err(source) => {
                let name = spec.name.clone();
                return Err(match source {
                    ProcessError::Option(why) => ArenaError::EngineOption { name, why },
                    source => ArenaError::Engine { name, source },
                });
            }
        }
    }
    // Error reports before the match (other matches in this process) are not this match's.
    let errors_before: Vec<u64> = cfg.engines.iter().map(|e| process::error_lines(&e.name)).collect();
    let errors_kept = keeping.state.progress.error_lines.clone();
    let errors_now = || -> Vec<u64> {
        cfg.engines
            .iter()
            .zip(&errors_before)
            .zip(&errors_kept)
            .map(|((e, before), kept)| kept + process::error_lines(&e.name) - before)
            .collect()
    };
    let identity = keeping.state.identity.clone();
    let per_block = u64::from(schedule.games_per_round);
    // Saves the state and the results JSON of the finished blocks.
    let checkpoint = |keeping: &mut Keeping, outputs: &Outputs| -> Result<(), ArenaError> {
        let p = &mut keeping.state.progress;
        p.records_bytes = outputs.records_bytes;
        p.error_lines = errors_now();
        outputs.summary(&summarise(&cfg, &schedule, p, identity.clone()))?;
        match &keeping.path {
            Some(path) => Ok(keeping.state.save(path)?),
            None => Ok(()),
        }
    };
    checkpoint(&mut keeping, &outputs)?;
    let progress = if cfg.quiet { Progress { bar: ProgressBar::hidden() } } else { Progress::new(schedule.len()) };
    progress.bar.set_position(keeping.state.progress.games);
    if schedule.len() == 0 {
        // More shards than blocks: this one plays nothing, and its (empty) results still merge.
        progress.say(format!(
            "shard {} holds no games: the match has only {} blocks (rounds × pairings)",
            cfg.shard,
            schedule.blocks()
        ));
    }
    let mut results = keeping.state.progress.results.clone();
    let done = keeping.state.progress.blocks_above.clone();
    let next = AtomicU64::new(keeping.state.progress.blocks_below * per_block);
    let stop = AtomicBool::new(false);
    let sharded = cfg.shard.count() > 1;
    // Where the SPRT stopped the match, once it has.
    let mut sprt_stop = keeping.state.progress.sprt_stop;
    // A resumed match whose SPRT had decided with its last finished block plays no more.
    if let Some(sprt) = &cfg.sprt
        && !sharded
    {
        let llr = sprt.llr(&results.tallies[0]);
        let decision = sprt.decision_after(llr, results.pairs(cfg.repeat));
        if decision != SprtDecision::Continue || sprt_stop.is_some() {
            stop.store(true, Ordering::Relaxed);
            sprt_stop = sprt_stop.or(Some(SprtStop { decision, llr, games: results.tallies[0].games() }));
        }
    }
    let mut write_error = None;
    let mut was_interrupted = false;
    let mut waiting: HashMap<u64, Vec<Waiting>> = HashMap::new();
    let date = today();
    // A worker hands its game over only when the collector takes it, so that no worker runs ahead of
    // the statistics: when the SPRT decides, each worker finishes at most the game it has begun.
    let (tx, rx) = sync_channel::<Finished>(0);
    let mut started = 0u64;
    thread::scope(|scope| {
        let workers = if stop.load(Ordering::Relaxed) { 0 } else { (cfg.concurrency as u64).min(schedule.len()) };
        for i in 0..workers {
            let tx = tx.clone();
            let (schedule, book, cfg, done, next, stop) = (&schedule, &book, &cfg, &done, &next, &stop);
            let spawned = thread::Builder::new()
                .name(format!("match-worker-{i}"))
                .spawn_scoped(scope, move || worker(schedule, book, cfg, done, next, stop, tx));
            // A worker the system refuses: the match goes on with the ones it has.
            match spawned {
                Ok(_) => started += 1,
                Err(e) => {
                    progress.say(format!("warning: --concurrency {}: only {i} workers started ({e})", cfg.concurrency));
                    break;
                }
            }
        }
        drop(tx);
        loop {
            if interrupt.load(Ordering::SeqCst) {
                if !was_interrupted {
                    was_interrupted = true;
                    stop.store(true, Ordering::Relaxed);
                    progress.say("interrupted: stopping the engines; games in progress are dropped".into());
                }
                // Again while workers remain: an engine started meanwhile is stopped too.
                process::kill_all();
            }
            let finished = match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(f) => f,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            if was_interrupted {
                // Cut off by the interrupt (or finishing with it): its block is replayed on resume.
                continue;
            }
            let (job, index) = (finished.job, finished.index);
            let first = schedule.pairings[job.pairing].0;
            results.add(job, first, finished.played.result, finished.played.termination, cfg.repeat);
            let record = record_of(&cfg, &date, finished);
            if !cfg.quiet {
                progress.say(format!(
                    "Finished game {} ({} vs {}): {} {{{}}}",
                    results.finished,
                    record.white,
                    record.black,
                    record.result.as_str(),
                    record.termination
                ));
            }
            let block = index / per_block;
            let games = waiting.entry(block).or_default();
            games.push((job, record));
            if games.len() as u64 == per_block && write_error.is_none() {
                let games = waiting.remove(&block).unwrap_or_default();
                let kept = keep(&mut keeping, &mut outputs, &schedule, cfg.repeat, block, games)
                    .and_then(|_| checkpoint(&mut keeping, &outputs));
                if let Err(e) = kept {
                    write_error = Some(e);
                    stop.store(true, Ordering::Relaxed);
                }
            }
            let (a, b) = schedule.pairings[0];
            let t = &results.tallies[0];
            let mut msg = format!(
                "{} vs {}: {:.1}/{} Elo {} ± {}",
                cfg.engines[a].name,
                cfg.engines[b].name,
                t.points(),
                t.games(),
                fmt_elo(t.elo()),
                fmt_err(t.elo_error())
            );
            if let Some(sprt) = &cfg.sprt {
                let llr = sprt.llr(t);
                let (lo, hi) = sprt.bounds();
                msg += &format!("  LLR {llr:.2} [{lo:.2}, {hi:.2}]");
                let decision = sprt.decision_after(llr, results.pairs(cfg.repeat));
                // A shard plays all its games: the test decides on the merged shards.
                if decision != SprtDecision::Continue && sprt_stop.is_none() && !sharded {
                    sprt_stop = Some(SprtStop { decision, llr, games: t.games() });
                    stop.store(true, Ordering::Relaxed);
                    progress.say(format!("SPRT: {decision}, stopping"));
                }
            }
            progress.bar.set_message(msg);
            progress.bar.inc(1);
            for line in interval_lines(&cfg, results.finished, &cfg.engines[a].name, &cfg.engines[b].name, t) {
                progress.say(line);
            }
        }
    });
    progress.bar.finish_and_clear();
    if started == 0 && schedule.len() > 0 && !stop.load(Ordering::Relaxed) {
        return Err(ConfigError::Conflict("no worker thread could start: the system refused them".into()).into());
    }
    if let Some(e) = write_error {
        return Err(e);
    }
    if was_interrupted {
        checkpoint(&mut keeping, &outputs)?;
        return Err(ArenaError::Interrupted {
            games: keeping.state.progress.games,
            scheduled: schedule.len(),
            state: keeping.path,
        });
    }
    // The match has ended; blocks the SPRT cut short are kept as they are, in schedule order.
    let mut rest: Vec<(u64, Vec<Waiting>)> = waiting.into_iter().collect();
    rest.sort_by_key(|(block, _)| *block);
    for (block, games) in rest {
        keep(&mut keeping, &mut outputs, &schedule, cfg.repeat, block, games)?;
    }
    let p = &mut keeping.state.progress;
    p.finished = true;
    p.stopped_early = sprt_stop.is_some();
    p.sprt_stop = sprt_stop;
    checkpoint(&mut keeping, &outputs)?;
    let p = &keeping.state.progress;
    Ok(summarise(&cfg, &schedule, p, identity))
}

/// Keeps the games of a block: counted, their records written in the order of the schedule, the block marked finished.
fn keep(
    keeping: &mut Keeping,
    outputs: &mut Outputs,
    schedule: &Schedule,
    repeat: bool,
    block: u64,
    mut games: Vec<Waiting>,
) -> Result<(), ArenaError> {
    games.sort_by_key(|(job, _)| job.game);
    outputs.records(games.iter().map(|(_, r)| r))?;
    let p = &mut keeping.state.progress;
    for (job, r) in &games {
        p.results.add(*job, schedule.pairings[job.pairing].0, r.result, r.termination, repeat);
    }
    p.games += games.len() as u64;
    if games.len() as u64 == u64::from(schedule.games_per_round) {
        p.mark_done(block);
    }
    Ok(())
}

/// The score and rating lines due after `finished` games, in the chosen format, for the first pairing.
fn interval_lines(cfg: &MatchConfig, finished: u64, a: &str, b: &str, t: &Tally) -> Vec<String> {
    let due = |every: u32| every > 0 && finished.is_multiple_of(u64::from(every));
    let mut lines = Vec::new();
    let penta = format!("Ptnml(0-2): {:?}", t.penta);
    match cfg.output {
        OutputFormat::Cutechess => {
            if due(cfg.score_interval) {
                lines.push(format!(
                    "Score of {a} vs {b}: {} - {} - {}  [{:.3}] {}",
                    t.wins,
                    t.losses,
                    t.draws,
                    t.score(),
                    t.games()
                ));
            }
            if due(cfg.rating_interval) {
                lines.push(format!(
                    "Elo difference: {} +/- {}, LOS: {:.1} %, DrawRatio: {:.1} %",
                    fmt_elo(t.elo()),
                    fmt_err(t.elo_error()),
                    t.los() * 100.0,
                    t.draw_ratio() * 100.0
                ));
                if cfg.penta_report {
                    lines.push(penta);
                }
            }
        }
        OutputFormat::Fastchess => {
            if due(cfg.score_interval) {
                lines.push(format!(
                    "Results of {a} vs {b}: Games: {}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1} ({:.2} %)",
                    t.games(),
                    t.wins,
                    t.losses,
                    t.draws,
                    t.points(),
                    t.score() * 100.0
                ));
            }
            if due(cfg.rating_interval) {
                let mut line = format!(
                    "Elo: {} +/- {}, LOS: {:.2} %, DrawRatio: {:.2} %",
                    fmt_elo(t.elo()),
                    fmt_err(t.elo_error()),
                    t.los() * 100.0,
                    t.draw_ratio() * 100.0
                );
                if cfg.penta_report {
                    line += &format!(", {penta}");
                }
                lines.push(line);
            }
        }
    }
    lines
}

/// What makes results files shards of this match.
fn identity_of(cfg: &MatchConfig, schedule: &Schedule, book: &OpeningBook) -> MatchIdentity {
    MatchIdentity {
        engines: cfg.engines.iter().map(EngineIdentity::from).collect(),
        gauntlet: cfg.gauntlet,
        variant: cfg.variant.to_string(),
        openings: book.describe(),
        random_plies: cfg.random_plies,
        repeat: cfg.repeat,
        rounds: cfg.rounds,
        games_per_round: schedule.games_per_round,
        seed: cfg.seed,
        adjudication: describe_adjudication(&cfg.adjudication),
        sprt: cfg.sprt,
        shards: cfg.shard.count(),
    }
}

/// The summary of the games played so far (`progress`: their counts, the
/// engines' error lines and where the SPRT stopped the match).
fn summarise(
    cfg: &MatchConfig,
    schedule: &Schedule,
    progress: &Kept<Results>,
    identity: MatchIdentity,
) -> MatchSummary {
    let Kept { results, stopped_early, sprt_stop, error_lines: errors, .. } = progress;
    let mut standings: Vec<Standing> = cfg
        .engines
        .iter()
        .zip(&results.points)
        .zip(errors)
        .map(|((e, &(games, points)), &error_lines)| Standing { name: e.name.clone(), games, points, error_lines })
        .collect();
    standings.sort_by(|x, y| y.points.total_cmp(&x.points));
    let pairs = results.pairs(cfg.repeat);
    MatchSummary {
        engines: cfg.engines.iter().map(|e| e.name.clone()).collect(),
        games: results.finished,
        scheduled: schedule.len(),
        stopped_early: *stopped_early,
        pairings: schedule
            .pairings
            .iter()
            .zip(&results.tallies)
            .map(|(&(a, b), &t)| PairingSummary::new(&cfg.engines[a].name, &cfg.engines[b].name, t))
            .collect(),
        standings,
        terminations: results.terminations.clone(),
        // A shard's games are part of the budget: the merged shards decide.
        sprt: cfg.sprt.as_ref().map(|s| {
            let spent = cfg.shard.count() <= 1 && results.finished >= schedule.len();
            SprtSummary::new(s, &results.tallies[0], pairs, spent, *sprt_stop)
        }),
        shards: ShardSet::from(cfg.shard),
        fingerprint: identity.fingerprint(),
        identity,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_names_get_suffixes() {
        let spec = |name: &str| {
            EngineSpec::parse(&[], &["cmd=x".to_string(), format!("name={name}"), "depth=1".to_string()]).unwrap()
        };
        let mut engines = vec![spec("a"), spec("a"), spec("b"), spec("a")];
        unique_names(&mut engines);
        let names: Vec<&str> = engines.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["a", "a-2", "b", "a-3"]);
    }

    fn config(engines: usize, rounds: u32, repeat: bool) -> MatchConfig {
        let spec = EngineSpec::parse(&[], &["cmd=x".to_string(), "depth=1".to_string()]).unwrap();
        MatchConfig {
            engines: vec![spec; engines],
            gauntlet: false,
            variant: Variant::hdc(),
            openings: None,
            random_plies: 0,
            constellations: false,
            repeat,
            rounds,
            games: None,
            concurrency: 1,
            seed: 1,
            adjudication: Adjudication::default(),
            sprt: None,
            pgnout: None,
            results_json: None,
            log: None,
            shard: Shard::whole(),
            ..MatchConfig::default()
        }
    }

    /// Issue 12: `--rounds 4294967295` allocated the whole schedule and aborted.
    #[test]
    fn the_schedule_is_computed_lazily() {
        let s = Schedule::new(&config(2, u32::MAX, true));
        assert_eq!(s.len(), 2 * u64::from(u32::MAX));
        let last = s.job(s.len() - 1).unwrap();
        assert_eq!((last.round, last.game, last.white, last.black), (u32::MAX - 1, 1, 1, 0));
        assert_eq!(s.job(s.len()), None);
        // Round robin of three, colours alternating by round without repeat.
        let s = Schedule::new(&config(3, 2, false));
        let jobs: Vec<(u32, usize, usize)> =
            (0..s.len()).map(|i| s.job(i).unwrap()).map(|j| (j.round, j.white, j.black)).collect();
        assert_eq!(jobs, [(0, 0, 1), (0, 0, 2), (0, 1, 2), (1, 1, 0), (1, 2, 0), (1, 2, 1)]);
    }

    /// The shards of a schedule are disjoint, keep every block's games
    /// together and together are exactly the unsharded schedule.
    #[test]
    fn shards_partition_the_schedule() {
        for (engines, rounds, repeat, games) in [(2, 7, true, None), (3, 5, false, None), (4, 3, true, Some(3))] {
            let mut cfg = config(engines, rounds, repeat);
            cfg.games = games;
            let whole = Schedule::new(&cfg);
            let all: Vec<Job> = (0..whole.len()).map(|i| whole.job(i).unwrap()).collect();
            for n in [1, 2, 4, 6, 40] {
                let mut union = Vec::new();
                for k in 1..=n {
                    cfg.shard = Shard::new(k, n).unwrap();
                    let s = Schedule::new(&cfg);
                    let jobs: Vec<Job> = (0..s.len()).map(|i| s.job(i).unwrap()).collect();
                    assert_eq!(s.job(s.len()), None);
                    for block in jobs.chunks(s.games_per_round as usize) {
                        assert!(block.iter().all(|j| (j.round, j.pairing) == (block[0].round, block[0].pairing)));
                    }
                    union.extend(jobs);
                }
                union.sort_by_key(|j| (j.round, j.pairing, j.game));
                assert_eq!(union, all, "{engines} engines, {rounds} rounds, {n} shards");
            }
        }
        // A lazily scheduled huge match splits too.
        let mut cfg = config(2, u32::MAX, true);
        cfg.shard = Shard::new(3, 3).unwrap();
        let s = Schedule::new(&cfg);
        assert_eq!(s.len(), 2 * u64::from(u32::MAX / 3));
        assert_eq!(s.job(0).map(|j| j.round), Some(2));
        assert_eq!(s.job(s.len() - 1).map(|j| j.round), Some(u32::MAX - 1));
    }
}
