//! Running a match: starting it or resuming it from its state, the worker
//! threads that play its games ([`Lanes`]), the collector that counts,
//! shows and keeps them and stops the match ([`Collector`]), and the
//! checkpoints of what is kept ([`Keeper`]).

use super::config::{ConfigError, MatchConfig};
use super::error::ArenaError;
use super::fingerprint::MatchIdentity;
use super::game::play_game;
use super::openings::OpeningBook;
use super::process::{self, EngineProcess, ProcessError};
use super::results::{
    FinishedGame, Keeping, Outputs, Results, Waiting, identity_of, interval_lines, keep, record_of, summarise,
};
use super::schedule::Schedule;
use super::state::{self, MatchState, Program, Progress as Kept, StateError};
use super::stats::{Sprt, SprtDecision, SprtStop};
use super::summary::{MatchSummary, fmt_elo, fmt_err};
use crate::core::Position;
use crate::record::today;
use crate::tb::{Loaded, Tablebases};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::thread;
use std::time::Duration;

/// Plays the match and returns its summary (also printed as a table).
pub fn run_match(cfg: MatchConfig) -> Result<MatchSummary, ArenaError> {
    run_match_until(cfg, &AtomicBool::new(false))
}

/// Plays the match, keeping its state file, until it ends or `interrupt` is
/// set (by SIGINT or SIGTERM): then the engines are stopped, games in
/// progress dropped, and the error [`ArenaError::Interrupted`] says how to resume.
pub fn run_match_until(mut cfg: MatchConfig, interrupt: &AtomicBool) -> Result<MatchSummary, ArenaError> {
    cfg.validate()?;
    cfg.unique_names();
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
        config: cfg.with_absolute_paths(),
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
    cfg.validate().map_err(|e| bad(e.to_string()))?;
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
        StatusBar::new(0).say(format!("the match of '{file}' is complete: nothing is left to play"));
        return Ok(summary);
    }
    let outputs = Outputs::reopen(&cfg, p.records_bytes)?;
    play(cfg, book, schedule, outputs, Keeping { path: Some(path.to_path_buf()), state }, interrupt)
}

/// Refuses a `--resume` whose command line describes another match than the state's, or other output files.
fn check_expected(state: &MatchState<MatchConfig, Results>, expected: Expected) -> Result<(), ArenaError> {
    let mut given = expected.config;
    given.validate()?;
    given.unique_names();
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
    let given = given.with_absolute_paths();
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

/// Plays what is left of the schedule, keeping the state after every finished block.
fn play(
    cfg: MatchConfig,
    book: OpeningBook,
    schedule: Schedule,
    outputs: Outputs,
    keeping: Keeping,
    interrupt: &AtomicBool,
) -> Result<MatchSummary, ArenaError> {
    let tables = adjudication_tables(&cfg)?;
    check_engines(&cfg)?;
    let mut keeper = Keeper::new(&cfg, &schedule, outputs, keeping);
    keeper.checkpoint()?;
    let status = StatusBar::for_match(&cfg, &schedule, keeper.keeping.state.progress.games);
    let mut collector = Collector::new(&cfg, &schedule, &keeper.keeping.state.progress, &status);
    let stop = AtomicBool::new(collector.sprt_stop.is_some());
    let progress = &keeper.keeping.state.progress;
    let (done, next) = (progress.blocks_above.clone(), progress.blocks_below * u64::from(schedule.games_per_round));
    for refused in &tables.refused {
        status.say(format!("warning: --tb: left out {refused}"));
    }
    let tables = &tables.tablebases;
    let lanes = Lanes { schedule: &schedule, book: &book, tables, cfg: &cfg, done: &done, next: AtomicU64::new(next) };
    let started = lanes.run(&stop, &status, |rx| collector.collect(rx, &mut keeper, &stop, interrupt));
    status.bar.finish_and_clear();
    if started == 0 && schedule.len() > 0 && !stop.load(Ordering::Relaxed) {
        return Err(ConfigError::Conflict("no worker thread could start: the system refused them".into()).into());
    }
    collector.finish(keeper)
}

/// The endgame tables `--tb` names (none without it): a folder that cannot
/// be listed stops the match before it starts.
fn adjudication_tables(cfg: &MatchConfig) -> Result<Loaded, ArenaError> {
    Tablebases::load_dir(cfg.adjudication.tb.as_deref()).map_err(|e| ConfigError::Conflict(format!("--tb: {e}")).into())
}

/// Every engine must start, answer `uci` and take its options before games are scheduled.
fn check_engines(cfg: &MatchConfig) -> Result<(), ArenaError> {
    for spec in &cfg.engines {
        match EngineProcess::start(spec) {
            Ok(engine) => engine.quit(),
            Err(ProcessError::Option(why)) => return Err(ArenaError::EngineOption { name: spec.name.clone(), why }),
            Err(source) => return Err(ArenaError::Engine { name: spec.name.clone(), source }),
        }
    }
    Ok(())
}

/// What a match keeps on disk as it goes: the output files, the state, and
/// the engines' error lines counted from where the match (or its resume) began.
struct Keeper<'a> {
    cfg: &'a MatchConfig,
    schedule: &'a Schedule,
    outputs: Outputs,
    keeping: Keeping,
    /// Each engine's error lines in this process before the match (other matches' are not this one's).
    errors_before: Vec<u64>,
    /// Each engine's error lines kept by the state (a resumed match's earlier runs).
    errors_kept: Vec<u64>,
    identity: MatchIdentity,
}

impl<'a> Keeper<'a> {
    fn new(cfg: &'a MatchConfig, schedule: &'a Schedule, outputs: Outputs, keeping: Keeping) -> Keeper<'a> {
        let errors_before = cfg.engines.iter().map(|e| process::error_lines(&e.name)).collect();
        let errors_kept = keeping.state.progress.error_lines.clone();
        let identity = keeping.state.identity.clone();
        Keeper { cfg, schedule, outputs, keeping, errors_before, errors_kept, identity }
    }

    /// Each engine's error lines in this match so far.
    fn error_lines(&self) -> Vec<u64> {
        let counts = self.cfg.engines.iter().zip(&self.errors_before).zip(&self.errors_kept);
        counts.map(|((e, before), kept)| kept + process::error_lines(&e.name) - before).collect()
    }

    /// Saves the state and the results JSON of the finished blocks.
    fn checkpoint(&mut self) -> Result<(), ArenaError> {
        let errors = self.error_lines();
        let p = &mut self.keeping.state.progress;
        p.records_bytes = self.outputs.records_bytes;
        p.error_lines = errors;
        self.outputs.summary(&summarise(self.cfg, self.schedule, p, self.identity.clone()))?;
        match &self.keeping.path {
            Some(path) => Ok(self.keeping.state.save(path)?),
            None => Ok(()),
        }
    }

    /// Keeps a block's games (see [`keep`]) and saves.
    fn keep(&mut self, block: u64, games: Vec<Waiting>) -> Result<(), ArenaError> {
        keep(&mut self.keeping, &mut self.outputs, self.schedule, self.cfg.repeat, block, games)?;
        self.checkpoint()
    }
}

/// The worker threads' shared view of the schedule: what to play and what is done.
struct Lanes<'a> {
    schedule: &'a Schedule,
    book: &'a OpeningBook,
    /// The endgame tables of `--tb` (none without it).
    tables: &'a Tablebases,
    cfg: &'a MatchConfig,
    /// Blocks a resumed match has finished beyond its first unfinished one.
    done: &'a BTreeSet<u64>,
    /// The next game index to hand out.
    next: AtomicU64,
}

impl Lanes<'_> {
    /// Starts the workers (none when `stop` is already set) and runs
    /// `collect` on the games they hand over until they have all ended;
    /// returns how many started (a refusal is said on `status`).
    fn run(&self, stop: &AtomicBool, status: &StatusBar, collect: impl FnOnce(Receiver<FinishedGame>)) -> u64 {
        // A worker hands its game over only when the collector takes it, so that no worker runs ahead of
        // the statistics: when the SPRT decides, each worker finishes at most the game it has begun.
        let (tx, rx) = sync_channel::<FinishedGame>(0);
        let mut started = 0u64;
        thread::scope(|scope| {
            let wanted =
                if stop.load(Ordering::Relaxed) { 0 } else { (self.cfg.concurrency as u64).min(self.schedule.len()) };
            for i in 0..wanted {
                let tx = tx.clone();
                let spawned = thread::Builder::new()
                    .name(format!("match-worker-{i}"))
                    .spawn_scoped(scope, move || self.worker(stop, tx));
                // A worker the system refuses: the match goes on with the ones it has.
                match spawned {
                    Ok(_) => started += 1,
                    Err(e) => {
                        status.say(format!(
                            "warning: --concurrency {}: only {i} workers started ({e})",
                            self.cfg.concurrency
                        ));
                        break;
                    }
                }
            }
            drop(tx);
            collect(rx);
        });
        started
    }

    /// A worker: takes the next game of the schedule (skipping the blocks a
    /// resumed match has finished), plays it with its own engine processes (kept
    /// between games, restarted after a fault) and hands the result over, until
    /// the schedule ends or the match is stopped.
    fn worker(&self, stop: &AtomicBool, tx: SyncSender<FinishedGame>) {
        let (specs, rules, wait) = (&self.cfg.engines, &self.cfg.adjudication, self.cfg.wait);
        let per_block = u64::from(self.schedule.games_per_round);
        let mut slots: Vec<Option<EngineProcess>> = specs.iter().map(|_| None).collect();
        let mut first = true;
        while !stop.load(Ordering::Relaxed) {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(job) = self.schedule.job(index) else { break };
            if self.done.contains(&(index / per_block)) {
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
            let opening = self.book.opening(job.round as usize);
            // The book only hands out FENs it has parsed; a refusal here ends the match.
            let Ok(start) = Position::from_fen(&opening.fen, opening.variant) else {
                stop.store(true, Ordering::Relaxed);
                break;
            };
            let mut pair = [slots[job.white].take(), slots[job.black].take()];
            let played = play_game(&start, [&specs[job.white], &specs[job.black]], &mut pair, rules, self.tables);
            let [w, b] = pair;
            slots[job.white] = w;
            slots[job.black] = b;
            let finished = FinishedGame { index, job, variant: opening.variant, start_fen: start.fen(), played };
            if tx.send(finished).is_err() {
                break;
            }
        }
        for engine in slots.into_iter().flatten() {
            engine.quit();
        }
    }
}

/// The calling thread's side of a match: takes each finished game, counts
/// it, shows it, keeps its block once complete and stops the match when the
/// SPRT decides, an output cannot be written or the match is interrupted.
struct Collector<'a> {
    cfg: &'a MatchConfig,
    schedule: &'a Schedule,
    status: &'a StatusBar,
    /// The results of every game taken (also those of unfinished blocks).
    results: Results,
    /// Games waiting for the rest of their block, by block.
    waiting: HashMap<u64, Vec<Waiting>>,
    /// Where the SPRT stopped the match, once it has.
    sprt_stop: Option<SprtStop>,
    write_error: Option<ArenaError>,
    interrupted: bool,
    date: String,
}

impl<'a> Collector<'a> {
    /// The collector of a match whose kept `progress` it goes on from.
    fn new(
        cfg: &'a MatchConfig,
        schedule: &'a Schedule,
        progress: &Kept<Results>,
        status: &'a StatusBar,
    ) -> Collector<'a> {
        let results = progress.results.clone();
        let mut sprt_stop = progress.sprt_stop;
        // A resumed match whose SPRT had decided with its last finished block plays no more.
        if let Some(sprt) = &cfg.sprt
            && cfg.shard.count() <= 1
            && sprt_stop.is_none()
        {
            let llr = sprt.llr(&results.tallies[0]);
            let decision = sprt.decision_after(llr, results.pairs(cfg.repeat));
            if decision != SprtDecision::Continue {
                sprt_stop = Some(SprtStop { decision, llr, games: results.tallies[0].games() });
            }
        }
        Collector {
            cfg,
            schedule,
            status,
            results,
            waiting: HashMap::new(),
            sprt_stop,
            write_error: None,
            interrupted: false,
            date: today(),
        }
    }

    /// Takes the workers' games until they have all ended, watching `interrupt`.
    fn collect(
        &mut self,
        rx: Receiver<FinishedGame>,
        keeper: &mut Keeper<'_>,
        stop: &AtomicBool,
        interrupt: &AtomicBool,
    ) {
        loop {
            if interrupt.load(Ordering::SeqCst) {
                if !self.interrupted {
                    self.interrupted = true;
                    stop.store(true, Ordering::Relaxed);
                    self.status.say("interrupted: stopping the engines; games in progress are dropped".into());
                }
                // Again while workers remain: an engine started meanwhile is stopped too.
                process::kill_all();
            }
            match rx.recv_timeout(Duration::from_millis(50)) {
                // Cut off by the interrupt (or finishing with it): its block is replayed on resume.
                Ok(_) if self.interrupted => {}
                Ok(finished) => self.take(finished, keeper, stop),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
    }

    /// Counts and shows a finished game, keeps its block once complete, and
    /// stops the match when the SPRT decides or the block cannot be kept.
    fn take(&mut self, finished: FinishedGame, keeper: &mut Keeper<'_>, stop: &AtomicBool) {
        let (cfg, schedule) = (self.cfg, self.schedule);
        let (job, index) = (finished.job, finished.index);
        let first = schedule.pairings[job.pairing].0;
        self.results.add(job, first, finished.played.result, finished.played.termination, cfg.repeat);
        let record = record_of(cfg, &self.date, finished);
        if !cfg.quiet {
            self.status.say(format!(
                "Finished game {} ({} vs {}): {} {{{}}}",
                self.results.finished,
                record.white,
                record.black,
                record.result.as_str(),
                record.termination
            ));
        }
        let per_block = u64::from(schedule.games_per_round);
        let block = index / per_block;
        let games = self.waiting.entry(block).or_default();
        games.push((job, record));
        if games.len() as u64 == per_block && self.write_error.is_none() {
            let games = self.waiting.remove(&block).unwrap_or_default();
            if let Err(e) = keeper.keep(block, games) {
                self.write_error = Some(e);
                stop.store(true, Ordering::Relaxed);
            }
        }
        self.show_and_judge(stop);
    }

    /// Updates the status line of the first pairing, prints the interval
    /// lines due, and stops the match when its SPRT has decided (a shard
    /// plays all its games: the test decides on the merged shards).
    fn show_and_judge(&mut self, stop: &AtomicBool) {
        let cfg = self.cfg;
        let (a, b) = self.schedule.pairings[0];
        let t = &self.results.tallies[0];
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
            let decision = sprt.decision_after(llr, self.results.pairs(cfg.repeat));
            if decision != SprtDecision::Continue && self.sprt_stop.is_none() && cfg.shard.count() <= 1 {
                self.sprt_stop = Some(SprtStop { decision, llr, games: t.games() });
                stop.store(true, Ordering::Relaxed);
                self.status.say(format!("SPRT: {decision}, stopping"));
            }
        }
        self.status.bar.set_message(msg);
        self.status.bar.inc(1);
        for line in interval_lines(cfg, self.results.finished, &cfg.engines[a].name, &cfg.engines[b].name, t) {
            self.status.say(line);
        }
    }

    /// Ends the match: an output error or the interrupt as errors, else the
    /// blocks the SPRT cut short kept as they are (in schedule order), the
    /// state marked finished and the summary.
    fn finish(self, mut keeper: Keeper<'_>) -> Result<MatchSummary, ArenaError> {
        if let Some(e) = self.write_error {
            return Err(e);
        }
        if self.interrupted {
            keeper.checkpoint()?;
            return Err(ArenaError::Interrupted {
                games: keeper.keeping.state.progress.games,
                scheduled: self.schedule.len(),
                state: keeper.keeping.path,
            });
        }
        let mut rest: Vec<(u64, Vec<Waiting>)> = self.waiting.into_iter().collect();
        rest.sort_by_key(|(block, _)| *block);
        for (block, games) in rest {
            keep(&mut keeper.keeping, &mut keeper.outputs, self.schedule, self.cfg.repeat, block, games)?;
        }
        let p = &mut keeper.keeping.state.progress;
        p.finished = true;
        p.stopped_early = self.sprt_stop.is_some();
        p.sprt_stop = self.sprt_stop;
        keeper.checkpoint()?;
        Ok(summarise(self.cfg, self.schedule, &keeper.keeping.state.progress, keeper.identity.clone()))
    }
}

/// The progress bar and its one-line status.
struct StatusBar {
    bar: ProgressBar,
}

impl StatusBar {
    /// A bar for `games` games.
    fn new(games: u64) -> StatusBar {
        let bar = ProgressBar::new(games);
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        StatusBar { bar }
    }

    /// The bar of a match (hidden when quiet), at the `played` games kept;
    /// says so when this shard holds no games.
    fn for_match(cfg: &MatchConfig, schedule: &Schedule, played: u64) -> StatusBar {
        let status = if cfg.quiet { StatusBar { bar: ProgressBar::hidden() } } else { StatusBar::new(schedule.len()) };
        status.bar.set_position(played);
        if schedule.len() == 0 {
            // More shards than blocks: this one plays nothing, and its (empty) results still merge.
            status.say(format!(
                "shard {} holds no games: the match has only {} blocks (rounds × pairings)",
                cfg.shard,
                schedule.blocks()
            ));
        }
        status
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
