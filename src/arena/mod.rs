//! The match runner behind `cubist match`: engines as UCI child processes,
//! games refereed by the rules library, round robin or gauntlet pairings,
//! worker threads, statistics with SPRT, progress and game records.
//!
//! Each worker thread owns its engine processes and plays one game at a time;
//! the calling thread collects results, writes the records (flushed per
//! game), updates the statistics and the progress bar and stops the match
//! when the SPRT decides.

pub mod config;
pub mod game;
pub mod openings;
pub mod process;
pub mod record;
pub mod stats;
pub mod summary;

use crate::core::{Position, Variant};
use config::{ConfigError, EngineSpec, OpeningsSpec};
use game::{Adjudication, Played, play_game};
use indicatif::{ProgressBar, ProgressStyle};
use openings::{OpeningBook, OpeningError};
use process::{EngineProcess, ProcessError};
use record::GameRecord;
use stats::{Sprt, SprtDecision, Tally};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::thread;
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
    /// An output file that cannot be written.
    #[error("cannot write '{0}': {1}")]
    Io(String, std::io::Error),
}

/// Everything `cubist match` was asked to do.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The engines (at least two).
    pub engines: Vec<EngineSpec>,
    /// The first engine plays everyone else, the others do not meet.
    pub gauntlet: bool,
    /// The variant (setup layers vary with constellations).
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
}

/// One scheduled game.
#[derive(Clone, Copy, Debug)]
struct Job {
    pairing: usize,
    round: u32,
    game: u32,
    white: usize,
    black: usize,
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

/// Today's date as `YYYY.MM.DD` (UTC), for the `Date` tag.
fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    // Days to civil date (Howard Hinnant's algorithm).
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Plays the match and returns its summary (also printed as a table).
pub fn run_match(mut cfg: MatchConfig) -> Result<MatchSummary, ArenaError> {
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
    unique_names(&mut cfg.engines);
    let book = OpeningBook::new(cfg.variant, cfg.openings.as_ref(), cfg.constellations, cfg.random_plies, cfg.seed)?;
    // Every engine must start and answer `uci` before games are scheduled.
    for spec in &cfg.engines {
        EngineProcess::start(spec).map_err(|source| ArenaError::Engine { name: spec.name.clone(), source })?.quit();
    }
    let mut pgn = match &cfg.pgnout {
        Some(p) => Some(BufWriter::new(File::create(p).map_err(|e| ArenaError::Io(p.display().to_string(), e))?)),
        None => None,
    };
    let pairings: Vec<(usize, usize)> = if cfg.gauntlet || n == 2 {
        (1..n).map(|j| (0, j)).collect()
    } else {
        (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect()
    };
    let games_per_round = cfg.games.unwrap_or(if cfg.repeat { 2 } else { 1 });
    let mut jobs = Vec::new();
    for round in 0..cfg.rounds {
        for (p, &(a, b)) in pairings.iter().enumerate() {
            for game in 0..games_per_round {
                let index = if cfg.repeat { game } else { round * games_per_round + game };
                let (white, black) = if index % 2 == 1 { (b, a) } else { (a, b) };
                jobs.push(Job { pairing: p, round, game, white, black });
            }
        }
    }
    let starts: Vec<(Variant, Position)> = (0..cfg.rounds as usize)
        .map(|r| {
            let o = book.opening(r);
            // The book only hands out FENs it has parsed.
            Position::from_fen(&o.fen, o.variant).map(|p| (o.variant, p))
        })
        .collect::<Result<_, _>>()
        .map_err(|e| OpeningError::Conflict(format!("opening does not parse: {e}")))?;

    let bar = ProgressBar::new(jobs.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let say = |line: String| if bar.is_hidden() { eprintln!("{line}") } else { bar.println(line) };

    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = channel::<(Job, Played)>();
    let mut tallies = vec![Tally::default(); pairings.len()];
    let mut pending: HashMap<(usize, u32, u32), f64> = HashMap::new();
    let mut points = vec![(0u32, 0.0f64); n];
    let mut terminations: BTreeMap<String, u32> = BTreeMap::new();
    let mut finished = 0u32;
    let mut stopped_early = false;
    let mut write_error = None;
    let date = today();
    thread::scope(|scope| {
        for _ in 0..cfg.concurrency.min(jobs.len()) {
            let tx = tx.clone();
            let (jobs, next, stop, specs, starts) = (&jobs, &next, &stop, &cfg.engines, &starts);
            let rules = cfg.adjudication;
            scope.spawn(move || {
                let mut slots: Vec<Option<EngineProcess>> = specs.iter().map(|_| None).collect();
                while !stop.load(Ordering::Relaxed) {
                    let Some(&job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                    let mut pair = [slots[job.white].take(), slots[job.black].take()];
                    let start = &starts[job.round as usize].1;
                    let played = play_game(start, [&specs[job.white], &specs[job.black]], &mut pair, rules);
                    let [w, b] = pair;
                    slots[job.white] = w;
                    slots[job.black] = b;
                    if tx.send((job, played)).is_err() {
                        break;
                    }
                }
                for engine in slots.into_iter().flatten() {
                    engine.quit();
                }
            });
        }
        drop(tx);
        for (job, played) in rx {
            finished += 1;
            let (a, _) = pairings[job.pairing];
            let white_points = played.result.white_points();
            let first_points = if job.white == a { white_points } else { 1.0 - white_points };
            let tally = &mut tallies[job.pairing];
            tally.add_game(first_points);
            if cfg.repeat {
                let key = (job.pairing, job.round, job.game / 2);
                if let Some(other) = pending.remove(&key) {
                    tally.add_pair(((other + first_points) * 2.0).round() as usize);
                } else {
                    pending.insert(key, first_points);
                }
            }
            points[job.white].0 += 1;
            points[job.white].1 += white_points;
            points[job.black].0 += 1;
            points[job.black].1 += 1.0 - white_points;
            *terminations.entry(played.termination.to_string()).or_default() += 1;
            let (variant, start) = &starts[job.round as usize];
            let record = GameRecord {
                event: "Cubist match".into(),
                site: "?".into(),
                date: date.clone(),
                round: format!("{}.{}", job.round + 1, job.game + 1),
                white: cfg.engines[job.white].name.clone(),
                black: cfg.engines[job.black].name.clone(),
                result: played.result,
                variant: *variant,
                fen: start.fen(),
                time_control: if cfg.engines[job.white].limit == cfg.engines[job.black].limit {
                    cfg.engines[job.white].limit.describe()
                } else {
                    format!("{}:{}", cfg.engines[job.white].limit.describe(), cfg.engines[job.black].limit.describe())
                },
                termination: played.termination,
                moves: played.moves,
                comment: played.comment,
            };
            if let Some(out) = pgn.as_mut()
                && let Err(e) = record.write(out)
            {
                write_error.get_or_insert(e);
                stop.store(true, Ordering::Relaxed);
            }
            say(format!(
                "Finished game {finished} ({} vs {}): {} {{{}}}",
                record.white,
                record.black,
                record.result.as_str(),
                record.termination
            ));
            let t = &tallies[0];
            let mut msg = format!(
                "{} vs {}: {:.1}/{} Elo {} ± {}",
                cfg.engines[pairings[0].0].name,
                cfg.engines[pairings[0].1].name,
                t.points(),
                t.games(),
                fmt_elo(t.elo()),
                fmt_err(t.elo_error())
            );
            if let Some(sprt) = &cfg.sprt {
                let llr = sprt.llr(t);
                let (lo, hi) = sprt.bounds();
                msg += &format!("  LLR {llr:.2} [{lo:.2}, {hi:.2}]");
                if sprt.decision(llr) != SprtDecision::Continue && !stopped_early && t.pairs() >= 10 {
                    stopped_early = true;
                    stop.store(true, Ordering::Relaxed);
                    say(format!("SPRT: {}, stopping", sprt.decision(llr)));
                }
            }
            bar.set_message(msg);
            bar.inc(1);
        }
    });
    bar.finish_and_clear();
    if let (Some(e), Some(p)) = (write_error, &cfg.pgnout) {
        return Err(ArenaError::Io(p.display().to_string(), e));
    }
    let mut standings: Vec<Standing> = cfg
        .engines
        .iter()
        .zip(&points)
        .map(|(e, &(games, points))| Standing { name: e.name.clone(), games, points })
        .collect();
    standings.sort_by(|x, y| y.points.total_cmp(&x.points));
    let summary = MatchSummary {
        engines: cfg.engines.iter().map(|e| e.name.clone()).collect(),
        games: finished,
        scheduled: jobs.len() as u32,
        stopped_early,
        pairings: pairings
            .iter()
            .zip(&tallies)
            .map(|(&(a, b), &t)| PairingSummary::new(&cfg.engines[a].name, &cfg.engines[b].name, t))
            .collect(),
        standings,
        terminations,
        sprt: cfg.sprt.as_ref().map(|s| SprtSummary::new(s, &tallies[0])),
    };
    if let Some(p) = &cfg.results_json {
        let io = |e: std::io::Error| ArenaError::Io(p.display().to_string(), e);
        let text = serde_json::to_string_pretty(&summary).map_err(|e| io(e.into()))?;
        let mut f = File::create(p).map_err(io)?;
        writeln!(f, "{text}").map_err(io)?;
    }
    Ok(summary)
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

    #[test]
    fn date_tag_shape() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"));
        assert_eq!(&d[4..5], ".");
    }
}
