//! What a match has done so far and where it goes: the results (tallies,
//! game pairs, points, terminations), the output files (records, results
//! JSON), the kept state and the blocks it adds up, the summary and the
//! interval lines.

use super::config::{MatchConfig, OutputFormat};
use super::error::ArenaError;
use super::fingerprint::{EngineIdentity, MatchIdentity, describe_adjudication};
use super::game::Played;
use super::openings::OpeningBook;
use super::process;
use super::schedule::{Schedule, ScheduledGame};
use super::shard::ShardSet;
use super::state::{MatchState, Progress as Kept, StateError};
use super::stats::Tally;
use super::summary::{MatchSummary, PairingSummary, SprtSummary, Standing, fmt_elo, fmt_err};
use crate::core::Variant;
use crate::record::{GameRecord, GameResult, Termination};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{Seek, Write};
use std::path::PathBuf;

/// A finished game as a worker hands it to the collector.
pub(super) struct FinishedGame {
    /// Its index in this shard's schedule.
    pub(super) index: u64,
    pub(super) job: ScheduledGame,
    pub(super) variant: Variant,
    pub(super) start_fen: String,
    pub(super) played: Played,
}

/// A game waiting for the rest of its block: its place and its record.
pub(super) type Waiting = (ScheduledGame, GameRecord);

/// The output files. The records file and the log are opened (created, or
/// reopened to append on a resume) before the first game; the results JSON
/// is written whole each time ([`crate::files::write_atomically`]).
pub(super) struct Outputs {
    pub(super) pgn: Option<(PathBuf, File)>,
    pub(super) json: Option<PathBuf>,
    /// The length of the records file.
    pub(super) records_bytes: u64,
}

impl Outputs {
    /// Creates the records file and the log of a fresh match.
    pub(super) fn create(cfg: &MatchConfig) -> Result<Outputs, ArenaError> {
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
    pub(super) fn reopen(cfg: &MatchConfig, records_bytes: u64) -> Result<Outputs, ArenaError> {
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
    pub(super) fn records<'a>(&mut self, records: impl IntoIterator<Item = &'a GameRecord>) -> Result<(), ArenaError> {
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
    pub(super) fn summary(&self, summary: &MatchSummary) -> Result<(), ArenaError> {
        let Some(p) = &self.json else { return Ok(()) };
        let io = |e: std::io::Error| ArenaError::Io(p.display().to_string(), e);
        let text = serde_json::to_string_pretty(summary).map_err(|e| io(e.into()))?;
        crate::files::write_atomically(p, format!("{text}\n").as_bytes()).map_err(io)
    }
}

/// The results so far: per pairing tallies (with game pairs), per engine points, terminations.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Results {
    pub(super) tallies: Vec<Tally>,
    /// First games of pairs waiting for their second: (pairing, round, pair) → points.
    #[serde(skip)]
    pub(super) pending: HashMap<(usize, u32, u32), f64>,
    pub(super) points: Vec<(u32, f64)>,
    pub(super) terminations: BTreeMap<String, u32>,
    pub(super) finished: u64,
}

impl Results {
    pub(super) fn new(engines: usize, pairings: usize) -> Results {
        Results {
            tallies: vec![Tally::default(); pairings],
            pending: HashMap::new(),
            points: vec![(0, 0.0); engines],
            terminations: BTreeMap::new(),
            finished: 0,
        }
    }

    /// Counts a game; `first` is the pairing's first engine.
    pub(super) fn add(
        &mut self,
        job: ScheduledGame,
        first: usize,
        result: GameResult,
        termination: Termination,
        repeat: bool,
    ) {
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
    pub(super) fn pairs(&self, repeat: bool) -> u32 {
        let t = &self.tallies[0];
        if repeat { t.penta.iter().sum() } else { t.games() / 2 }
    }

    /// Checks counts read from a state file against the match's shape; the reason when they do not fit.
    pub(super) fn check(&self, engines: usize, pairings: usize, games: u64) -> Result<(), String> {
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

/// The state a match keeps: where (if anywhere) and what.
pub(super) struct Keeping {
    pub(super) path: Option<PathBuf>,
    pub(super) state: MatchState<MatchConfig, Results>,
}

/// Keeps the games of a block: counted, their records written in the order of the schedule, the block marked finished.
pub(super) fn keep(
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

/// The record of a finished game.
pub(super) fn record_of(cfg: &MatchConfig, date: &str, f: FinishedGame) -> GameRecord {
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
        notes: Vec::new(),
        extra_tags: Vec::new(),
    }
}

/// The score and rating lines due after `finished` games, in the chosen format, for the first pairing.
pub(super) fn interval_lines(cfg: &MatchConfig, finished: u64, a: &str, b: &str, t: &Tally) -> Vec<String> {
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
pub(super) fn identity_of(cfg: &MatchConfig, schedule: &Schedule, book: &OpeningBook) -> MatchIdentity {
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
pub(super) fn summarise(
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
