//! Engines as UCI child processes, each driven by a worker thread: the GUI
//! is a UCI client (through `crate::arena::process::EngineProcess`), never
//! a shortcut into the search.
//!
//! A worker owns at most one process. It starts it on the first search,
//! sends the variant and options whenever they change, forwards every `info`
//! line as it arrives, and reports `bestmove` or the failure. A crashed or
//! hung engine is killed and reported; the next search starts a fresh one.
//! A worker left idle for [`IDLE_TIMEOUT`] quits its engine and ends.

use crate::arena::config::{DEFAULT_TIMEMARGIN, EngineSpec, Limit};
use crate::arena::process::{EngineProcess, InfoLine, ProcessError};
use crate::core::Color;
use serde::Serialize;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, TryRecvError, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How long an engine may stay idle before its process is shut down.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(120);
/// Extra time an engine gets beyond its own limit before it counts as hung.
pub const HANG_GRACE: Duration = Duration::from_secs(5);
/// How often a searching worker looks at its job queue.
const POLL: Duration = Duration::from_millis(50);

/// An engine program named on the command line (`--engine "CMD [ARGS…]"`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EngineCmd {
    /// The name shown on the page and written to records.
    pub name: String,
    /// The program.
    pub cmd: String,
    /// Its arguments.
    pub args: Vec<String>,
}

impl EngineCmd {
    /// Reads `CMD [ARGS…]` (split at whitespace); the name is the program's file name.
    pub fn parse(text: &str) -> Option<EngineCmd> {
        let mut words = text.split_whitespace().map(str::to_string);
        let cmd = words.next()?;
        let name = std::path::Path::new(&cmd).file_name().map_or(cmd.clone(), |n| n.to_string_lossy().into_owned());
        Some(EngineCmd { name, cmd, args: words.collect() })
    }
}

/// One search for a worker.
#[derive(Clone, Debug)]
pub struct SearchJob {
    /// Lines that configure the engine (variant and options); sent, with
    /// `ucinewgame` and `isready`, only when they differ from the last search's.
    pub setup: Vec<String>,
    /// The `position …` line.
    pub position: String,
    /// The `go …` line.
    pub go: String,
    /// How long to wait for `bestmove` before the engine counts as hung (`None`: until stopped).
    pub wait: Option<Duration>,
    /// The side to move, to give scores from White's view.
    pub side: Color,
    /// Identifies the search; echoed in every event.
    pub tag: u64,
    /// The `Hash` the engine is set to, MiB (counted against the cap while its process runs).
    pub hash: u64,
}

/// What a worker is asked to do.
#[derive(Debug)]
pub enum Job {
    /// Search (stopping any search in progress first).
    Search(SearchJob),
    /// Stop the search in progress; its `bestmove` is still reported.
    Stop,
}

/// What a worker reports.
#[derive(Clone, Debug)]
pub enum EngineEvent {
    /// An `info` line with a score or a PV.
    Info(u64, InfoLine),
    /// The search ended with this move text.
    BestMove(u64, String),
    /// The engine failed (could not start, crashed, hung); it was shut down.
    Failed(u64, String),
    /// The search waits for a place under the cap on engine processes (why).
    Queued(u64, String),
}

/// Counts live engine processes, and the `Hash` they hold, against the
/// server's caps; a search that finds them full waits for a place.
#[derive(Debug)]
pub struct ProcessCap {
    held: Mutex<(usize, u64)>,
    max: usize,
    max_hash: u64,
}

impl ProcessCap {
    /// A cap of `max` processes holding at most `max_hash` MiB of `Hash` together.
    pub fn new(max: usize, max_hash: u64) -> Arc<ProcessCap> {
        Arc::new(ProcessCap { held: Mutex::new((0, 0)), max, max_hash })
    }

    /// Engine processes running now.
    pub fn live(&self) -> usize {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).0
    }

    /// MiB of `Hash` all engine processes may hold together.
    pub fn max_hash(&self) -> u64 {
        self.max_hash
    }

    /// Takes a place for a process with `hash` MiB, or says why there is none now.
    fn acquire(&self, hash: u64) -> Result<(), String> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if held.0 >= self.max {
            return Err(format!("{} engine processes are running (at most {})", held.0, self.max));
        }
        if held.1 + hash > self.max_hash {
            return Err(format!(
                "the engines hold {} MiB of Hash and this one needs {hash} (at most {} together)",
                held.1, self.max_hash
            ));
        }
        *held = (held.0 + 1, held.1 + hash);
        Ok(())
    }

    fn release(&self, hash: u64) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        *held = (held.0.saturating_sub(1), held.1.saturating_sub(hash));
    }
}

/// A handle to a worker thread; dropping it ends the worker and its engine.
pub struct Worker {
    jobs: Sender<Job>,
}

impl Worker {
    /// Starts a worker for `engine` that reports through `sink`.
    pub fn spawn(engine: EngineCmd, cap: Arc<ProcessCap>, sink: impl Fn(EngineEvent) + Send + 'static) -> Worker {
        let (tx, rx) = channel();
        thread::spawn(move || {
            Runner { engine, cap, sink: Box::new(sink), process: None, hash: 0, setup: Vec::new() }.run(rx)
        });
        Worker { jobs: tx }
    }

    /// Queues a job; `false` when the worker has ended (idle) and a new one is needed.
    pub fn send(&self, job: Job) -> bool {
        self.jobs.send(job).is_ok()
    }
}

/// The worker thread's state.
struct Runner {
    engine: EngineCmd,
    cap: Arc<ProcessCap>,
    sink: Box<dyn Fn(EngineEvent) + Send>,
    process: Option<EngineProcess>,
    /// The `Hash` the running process holds under the cap.
    hash: u64,
    setup: Vec<String>,
}

/// How a search ended.
enum Outcome {
    /// `bestmove` with this text.
    Move(String),
    /// Stopped or replaced while waiting for a place: nothing to report.
    Dropped,
    /// The game went away.
    Gone,
}

impl Runner {
    fn run(mut self, jobs: Receiver<Job>) {
        let mut next: Option<SearchJob> = None;
        loop {
            let job = match next.take() {
                Some(job) => job,
                None => match jobs.recv_timeout(IDLE_TIMEOUT) {
                    Ok(Job::Search(job)) => job,
                    Ok(Job::Stop) => continue,
                    Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => break,
                },
            };
            let tag = job.tag;
            match self.search(&job, &jobs, &mut next) {
                Ok(Outcome::Move(mv)) => (self.sink)(EngineEvent::BestMove(tag, mv)),
                Ok(Outcome::Dropped) => {}
                Ok(Outcome::Gone) => break,
                Err(e) => {
                    self.shut_down();
                    (self.sink)(EngineEvent::Failed(tag, format!("{}: {e}", self.engine.name)));
                }
            }
        }
        self.shut_down();
    }

    fn shut_down(&mut self) {
        if let Some(p) = self.process.take() {
            p.quit();
            self.cap.release(self.hash);
        }
        self.setup.clear();
    }

    /// Waits for a place under the cap, polling the job queue; `None` once it has one.
    fn wait_for_place(&self, job: &SearchJob, jobs: &Receiver<Job>, next: &mut Option<SearchJob>) -> Option<Outcome> {
        let mut told = false;
        loop {
            let why = match self.cap.acquire(job.hash) {
                Ok(()) => return None,
                Err(why) => why,
            };
            if !told {
                (self.sink)(EngineEvent::Queued(job.tag, why));
                told = true;
            }
            match jobs.recv_timeout(POLL) {
                Ok(Job::Stop) => return Some(Outcome::Dropped),
                Ok(Job::Search(newer)) => {
                    *next = Some(newer);
                    return Some(Outcome::Dropped);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Some(Outcome::Gone),
            }
        }
    }

    /// Runs one search (after waiting for a place under the cap when it needs a process).
    fn search(
        &mut self,
        job: &SearchJob,
        jobs: &Receiver<Job>,
        next: &mut Option<SearchJob>,
    ) -> Result<Outcome, String> {
        if self.process.is_none() {
            if let Some(outcome) = self.wait_for_place(job, jobs, next) {
                return Ok(outcome);
            }
            self.hash = job.hash;
            let spec = EngineSpec {
                name: self.engine.name.clone(),
                cmd: self.engine.cmd.clone(),
                args: self.engine.args.clone(),
                options: Vec::new(),
                limit: Limit::default(),
                timemargin: DEFAULT_TIMEMARGIN,
                ready_timeout: Duration::from_secs(10),
                stderr: None,
                dir: None,
                restart: false,
            };
            match EngineProcess::start(&spec) {
                Ok(p) => self.process = Some(p),
                Err(e) => {
                    self.cap.release(job.hash);
                    return Err(e.to_string());
                }
            }
        }
        let Some(process) = self.process.as_mut() else { return Err("no engine process".into()) };
        let err = |e: ProcessError| e.to_string();
        if self.setup != job.setup {
            for line in &job.setup {
                process.send(line).map_err(err)?;
            }
            process.send("ucinewgame").map_err(err)?;
            self.setup = job.setup.clone();
        }
        process.is_ready().map_err(err)?;
        process.send(&job.position).map_err(err)?;
        process.send(&job.go).map_err(err)?;
        // However long the limit, the deadline never overflows: past what an instant holds there is none.
        let mut deadline = job.wait.and_then(|w| Instant::now().checked_add(w.saturating_add(HANG_GRACE)));
        let mut stopped = false;
        loop {
            match process.read_line(POLL).map_err(err)? {
                Some(line) if line == "bestmove" || line.starts_with("bestmove ") => {
                    let mv = line.split_whitespace().nth(1).unwrap_or("").to_string();
                    return Ok(Outcome::Move(mv));
                }
                Some(line) => {
                    if let Some(info) = InfoLine::parse(&line).map(|i| i.seen_from(job.side)) {
                        (self.sink)(EngineEvent::Info(job.tag, info));
                    }
                }
                None => {}
            }
            let stop = match jobs.try_recv() {
                Ok(Job::Stop) => true,
                Ok(Job::Search(newer)) => {
                    *next = Some(newer);
                    true
                }
                Err(TryRecvError::Empty) => false,
                Err(TryRecvError::Disconnected) => return Ok(Outcome::Gone),
            };
            if stop && !stopped {
                stopped = true;
                process.send("stop").map_err(err)?;
                deadline = Some(Instant::now() + HANG_GRACE);
            }
            if deadline.is_some_and(|d| Instant::now() > d) {
                return Err(format!(
                    "no bestmove within the time allowed (+{} s): the engine hangs",
                    HANG_GRACE.as_secs()
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_commands_split_at_whitespace() {
        let e = EngineCmd::parse(" /usr/bin/cubist  uci ").unwrap();
        assert_eq!(
            (e.name.as_str(), e.cmd.as_str(), e.args.clone()),
            ("cubist", "/usr/bin/cubist", vec!["uci".to_string()])
        );
        assert_eq!(EngineCmd::parse("   "), None);
    }

    #[test]
    fn a_missing_program_is_reported_and_releases_the_cap() {
        let cap = ProcessCap::new(1, 16);
        let (tx, rx) = channel();
        let engine = EngineCmd::parse("/nonexistent/engine").unwrap();
        let worker = Worker::spawn(engine, cap.clone(), move |e| {
            let _ = tx.send(e);
        });
        let job = SearchJob {
            setup: vec![],
            position: "position startpos".into(),
            go: "go depth 1".into(),
            wait: Some(Duration::from_secs(1)),
            side: Color::White,
            tag: 7,
            hash: 16,
        };
        assert!(worker.send(Job::Search(job)));
        match rx.recv_timeout(Duration::from_secs(10)).unwrap() {
            EngineEvent::Failed(7, why) => assert!(why.contains("cannot start"), "{why}"),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(cap.live(), 0);
    }
}
