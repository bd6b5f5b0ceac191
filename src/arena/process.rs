//! A UCI engine as a child process: spawn, handshake, options, `isready`
//! with a timeout, `go` with the referee's own clock, and kill; and the one
//! parser of engines' `info` lines ([`InfoLine`]), which the GUI uses too.
//!
//! A reader thread per engine timestamps every line the engine writes and
//! feeds it to a channel, so that every wait has a deadline and a crash
//! (end of output) is noticed at once.
//!
//! Each engine runs in a process group of its own, so that a Ctrl-C at the
//! terminal reaches only the runner, which stops the engines itself
//! ([`kill_all`]): an interrupted game is then never mistaken for an engine
//! crash. An engine whose runner dies sees the end of its input and quits.

use super::config::EngineSpec;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use thiserror::Error;

/// The `--log` file: every line between the runner and the engines, timestamped.
static LOG: OnceLock<Mutex<File>> = OnceLock::new();

/// Sends every later line between the runner and any engine to `file` (the
/// first call wins; `--log` is one file per match run).
pub fn log_to(file: File) {
    let _ = LOG.set(Mutex::new(file));
}

/// Every engine process this program started, for [`kill_all`] (dead entries are pruned as new ones come).
static RUNNING: Mutex<Vec<Weak<Mutex<Child>>>> = Mutex::new(Vec::new());

/// Kills every engine process still running (an interrupted match stops its
/// games this way); their games end as crashes, which the caller drops.
pub fn kill_all() {
    let running: Vec<Arc<Mutex<Child>>> =
        RUNNING.lock().map(|list| list.iter().filter_map(Weak::upgrade).collect()).unwrap_or_default();
    for child in running {
        if let Ok(mut child) = child.lock()
            && let Ok(None) = child.try_wait()
        {
            let _ = child.kill();
        }
    }
}

/// Keeps a new engine process where [`kill_all`] finds it.
fn register(child: &Arc<Mutex<Child>>) {
    if let Ok(mut list) = RUNNING.lock() {
        list.retain(|w| w.strong_count() > 0);
        list.push(Arc::downgrade(child));
    }
}

/// Lines `info string error…` each engine (by name) has written, counted by the reader threads.
static ERROR_LINES: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());

/// How many `info string error…` lines the engine called `name` has written so far in this process.
pub fn error_lines(name: &str) -> u64 {
    ERROR_LINES.lock().map_or(0, |m| m.get(name).copied().unwrap_or(0))
}

/// Whether a line is an engine's error report: `info string error…` (any case).
fn is_error_report(line: &str) -> bool {
    line.strip_prefix("info string ")
        .is_some_and(|rest| rest.trim_start().get(..5).is_some_and(|w| w.eq_ignore_ascii_case("error")))
}

/// Shows an error report on stderr, prefixed with the engine's name, and counts it.
fn report_error_line(engine: &str, line: &str) {
    let _ = writeln!(std::io::stderr(), "{engine}: {line}");
    if let Ok(mut m) = ERROR_LINES.lock() {
        *m.entry(engine.to_string()).or_default() += 1;
    }
}

/// The time of day (UTC) as `HH:MM:SS.mmm`.
fn timestamp() -> String {
    let ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis()) % 86_400_000;
    format!("{:02}:{:02}:{:02}.{:03}", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
}

/// Records one line of the conversation with `engine`: `>` sent to it, `<` received from it.
fn log_line(engine: &str, direction: char, line: &str) {
    log::trace!("{engine} {direction} {line}");
    if let Some(file) = LOG.get()
        && let Ok(mut f) = file.lock()
    {
        let _ = writeln!(f, "[{}] {engine} {direction} {line}", timestamp());
    }
}

/// What went wrong talking to an engine.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProcessError {
    /// The program could not be started.
    #[error("cannot start '{cmd}': {why}")]
    Spawn {
        /// The program.
        cmd: String,
        /// The system's reason.
        why: String,
    },
    /// The engine closed its output or its input (it exited or crashed).
    #[error("the engine exited")]
    Crashed,
    /// No expected answer before the deadline.
    #[error("no {what} within {} ms", after.as_millis())]
    Timeout {
        /// What was awaited (`uciok`, `readyok`, `bestmove`).
        what: &'static str,
        /// How long the referee waited.
        after: Duration,
    },
    /// An `option.X=V` the engine refuses: not announced, or a value outside its type.
    #[error("{0}")]
    Option(String),
}

/// An option an engine announced after `uci`: `option name N type T [default D] [min A] [max B] [var V]…`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnnouncedOption {
    /// Its name as announced.
    pub name: String,
    /// `check`, `spin`, `combo`, `button` or `string`.
    pub kind: String,
    /// A spin's least value.
    pub min: Option<i64>,
    /// A spin's greatest value.
    pub max: Option<i64>,
    /// A combo's values.
    pub vars: Vec<String>,
}

impl AnnouncedOption {
    /// Reads an `option name … type …` line; `None` for any other line.
    pub fn parse(line: &str) -> Option<AnnouncedOption> {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() != Some(&"option") || words.get(1) != Some(&"name") {
            return None;
        }
        let type_at = words.iter().position(|w| *w == "type")?;
        let name = words.get(2..type_at)?.join(" ");
        let kind = words.get(type_at + 1)?.to_ascii_lowercase();
        let keywords = ["default", "min", "max", "var"];
        let (mut min, mut max, mut vars) = (None, None, Vec::new());
        let mut i = type_at + 2;
        while i < words.len() {
            let key = words[i];
            let end = (i + 1..words.len()).find(|&j| keywords.contains(&words[j])).unwrap_or(words.len());
            let text = words[i + 1..end].join(" ");
            match key {
                "min" => min = text.parse().ok(),
                "max" => max = text.parse().ok(),
                "var" => vars.push(text),
                _ => {}
            }
            i = end;
        }
        Some(AnnouncedOption { name, kind, min, max, vars })
    }
}

/// Checks `option.name=value` against the options an engine announced (names
/// case-insensitively): the reason of a refusal, e.g. `option Hash=0 is out of range 1..65536`.
pub fn check_option(announced: &[AnnouncedOption], name: &str, value: &str) -> Result<(), String> {
    let Some(o) = announced.iter().find(|o| o.name.eq_ignore_ascii_case(name)) else {
        let names: Vec<&str> = announced.iter().map(|o| o.name.as_str()).collect();
        let known = if names.is_empty() { "it announces none".to_string() } else { names.join(", ") };
        return Err(format!("option '{name}' is not one of its options ({known})"));
    };
    match o.kind.as_str() {
        "spin" => {
            let v: i64 = value.trim().parse().map_err(|_| format!("option {name}={value} is not a whole number"))?;
            let (lo, hi) = (o.min.unwrap_or(i64::MIN), o.max.unwrap_or(i64::MAX));
            if v < lo || v > hi {
                return Err(format!("option {name}={value} is out of range {lo}..{hi}"));
            }
        }
        "check" if !value.eq_ignore_ascii_case("true") && !value.eq_ignore_ascii_case("false") => {
            return Err(format!("option {name}={value} is not true or false"));
        }
        "combo" if !o.vars.iter().any(|v| v.eq_ignore_ascii_case(value)) => {
            return Err(format!("option {name}={value} is not one of its values ({})", o.vars.join(", ")));
        }
        _ => {}
    }
    Ok(())
}

/// A line the engine wrote and when the referee received it.
#[derive(Debug)]
struct Line {
    text: String,
    at: Instant,
}

/// A score reported in an `info` line, from the engine's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineScore {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: getting mated).
    Mate(i32),
}

impl EngineScore {
    /// Centipawns, with mates as ±100000.
    pub fn centipawns(self) -> i32 {
        match self {
            EngineScore::Cp(cp) => cp,
            EngineScore::Mate(m) if m > 0 => 100_000,
            EngineScore::Mate(_) => -100_000,
        }
    }
}

/// The answer to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchReply {
    /// The text after `bestmove` (empty when the line had none).
    pub bestmove: String,
    /// The last score the engine reported for this search.
    pub score: Option<EngineScore>,
    /// The last depth the engine reported for this search.
    pub depth: Option<u32>,
    /// Time from sending `go` to receiving `bestmove`, measured by the referee.
    pub elapsed: Duration,
}

/// A running engine.
pub struct EngineProcess {
    name: String,
    /// Shared with the registry of [`kill_all`]; reaped only by `Drop`.
    child: Arc<Mutex<Child>>,
    stdin: ChildStdin,
    lines: Receiver<Line>,
    ready_timeout: Duration,
}

impl EngineProcess {
    /// Starts the engine, sends `uci`, waits for `uciok` and sends its options.
    pub fn start(spec: &EngineSpec) -> Result<EngineProcess, ProcessError> {
        let stderr = match &spec.stderr {
            None => Stdio::null(),
            Some(path) => {
                Stdio::from(std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(|e| {
                    ProcessError::Spawn {
                        cmd: spec.cmd.clone(),
                        why: format!("cannot open stderr file '{}': {e}", path.display()),
                    }
                })?)
            }
        };
        let mut command = match &spec.dir {
            Some(dir) => {
                // A relative path to the program stays relative to the runner's directory.
                let cmd = std::path::Path::new(&spec.cmd);
                let program = match std::env::current_dir() {
                    Ok(here) if cmd.is_relative() && spec.cmd.contains('/') => here.join(cmd),
                    _ => cmd.to_path_buf(),
                };
                let mut command = Command::new(program);
                command.current_dir(dir);
                command
            }
            None => Command::new(&spec.cmd),
        };
        let mut child = command
            .args(&spec.args)
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(|e| ProcessError::Spawn { cmd: spec.cmd.clone(), why: e.to_string() })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ProcessError::Spawn { cmd: spec.cmd.clone(), why: "no pipes".into() });
        };
        let (tx, rx) = channel();
        let name = spec.name.clone();
        let reader = thread::Builder::new().name(format!("read-{}", spec.name)).spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&buf).trim().to_string();
                        log_line(&name, '<', &text);
                        if is_error_report(&text) {
                            report_error_line(&name, &text);
                        }
                        if tx.send(Line { text, at: Instant::now() }).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        if let Err(e) = reader {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ProcessError::Spawn { cmd: spec.cmd.clone(), why: format!("no thread to read it: {e}") });
        }
        let child = Arc::new(Mutex::new(child));
        register(&child);
        let mut engine =
            EngineProcess { name: spec.name.clone(), child, stdin, lines: rx, ready_timeout: spec.ready_timeout };
        engine.send("uci")?;
        let mut announced = Vec::new();
        engine.wait_for("uciok", Instant::now() + spec.ready_timeout, |l| {
            announced.extend(AnnouncedOption::parse(l));
            l == "uciok"
        })?;
        for (name, value) in &spec.options {
            check_option(&announced, name, value).map_err(ProcessError::Option)?;
        }
        for (name, value) in &spec.options {
            engine.send(&format!("setoption name {name} value {value}"))?;
        }
        Ok(engine)
    }

    /// Writes one line to the engine.
    pub fn send(&mut self, line: &str) -> Result<(), ProcessError> {
        log_line(&self.name, '>', line);
        writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush()).map_err(|_| ProcessError::Crashed)
    }

    /// Sends `isready` and waits for `readyok` within the ready timeout.
    pub fn is_ready(&mut self) -> Result<(), ProcessError> {
        self.send("isready")?;
        self.wait_for("readyok", Instant::now() + self.ready_timeout, |l| l == "readyok").map(|_| ())
    }

    /// Sends a `go …` line and waits for `bestmove` until `deadline`,
    /// collecting the last reported score.
    pub fn go(&mut self, command: &str, deadline: Instant) -> Result<SearchReply, ProcessError> {
        self.send(command)?;
        let sent = Instant::now();
        let (mut score, mut depth) = (None, None);
        let line = self.wait_for("bestmove", deadline, |l| {
            if let Some(info) = InfoLine::parse(l) {
                score = info.score().or(score);
                depth = info.depth.or(depth);
            }
            l == "bestmove" || l.starts_with("bestmove ")
        })?;
        let bestmove = line.text.split_whitespace().nth(1).unwrap_or("").to_string();
        Ok(SearchReply { bestmove, score, depth, elapsed: line.at.saturating_duration_since(sent) })
    }

    /// The next line the engine writes, waiting at most `timeout` (`None` when
    /// nothing came): for clients that follow a search line by line.
    #[cfg_attr(not(feature = "gui"), allow(dead_code))] // the GUI's engine driver reads this way
    pub fn read_line(&mut self, timeout: Duration) -> Result<Option<String>, ProcessError> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                log::trace!("< {}", line.text);
                Ok(Some(line.text))
            }
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(ProcessError::Crashed),
        }
    }

    /// Waits for the first line that `done` accepts, passing every line to it.
    fn wait_for(
        &mut self,
        what: &'static str,
        deadline: Instant,
        mut done: impl FnMut(&str) -> bool,
    ) -> Result<Line, ProcessError> {
        let start = Instant::now();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if done(&line.text) {
                        return Ok(line);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(ProcessError::Timeout { what, after: start.elapsed() }),
                Err(RecvTimeoutError::Disconnected) => return Err(ProcessError::Crashed),
            }
        }
    }

    /// Asks the engine to quit, and kills it if it has not after a short wait.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        let until = Instant::now() + Duration::from_millis(500);
        while Instant::now() < until {
            if self.child.lock().is_ok_and(|mut c| matches!(c.try_wait(), Ok(Some(_)))) {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        // Drop kills it.
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Ok(mut child) = self.child.lock() {
            if let Ok(None) = child.try_wait() {
                let _ = child.kill();
            }
            let _ = child.wait();
        }
    }
}

/// One `info` line an engine wrote, parsed: what the match runner keeps with
/// a move and what the GUI shows while an engine thinks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct InfoLine {
    /// Depth in plies.
    pub depth: Option<u32>,
    /// Selective depth.
    pub seldepth: Option<u32>,
    /// Which principal variation (1 = best).
    pub multipv: u32,
    /// Centipawns from the side to move's view.
    pub cp: Option<i32>,
    /// Mate in moves from the side to move's view.
    pub mate: Option<i32>,
    /// Centipawns from White's view (set by [`InfoLine::seen_from`]).
    pub white_cp: Option<i32>,
    /// Mate in moves from White's view, positive when White mates (set by [`InfoLine::seen_from`]).
    pub white_mate: Option<i32>,
    /// `lowerbound` or `upperbound` when the score is a bound.
    pub bound: Option<String>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Nodes per second.
    pub nps: Option<u64>,
    /// Hash fill in permille.
    pub hashfull: Option<u32>,
    /// Milliseconds searched.
    pub time: Option<u64>,
    /// The principal variation in protocol move text.
    pub pv: Vec<String>,
}

impl InfoLine {
    /// Parses an `info` line; `None` for lines without a score or PV
    /// (`info string`, `currmove`) and for a malformed score.
    pub fn parse(line: &str) -> Option<InfoLine> {
        let mut words = line.split_whitespace();
        if words.next() != Some("info") {
            return None;
        }
        let mut info = InfoLine { multipv: 1, ..InfoLine::default() };
        while let Some(word) = words.next() {
            match word {
                "depth" => info.depth = words.next().and_then(|w| w.parse().ok()),
                "seldepth" => info.seldepth = words.next().and_then(|w| w.parse().ok()),
                "multipv" => info.multipv = words.next().and_then(|w| w.parse().ok()).unwrap_or(1),
                "nodes" => info.nodes = words.next().and_then(|w| w.parse().ok()),
                "nps" => info.nps = words.next().and_then(|w| w.parse().ok()),
                "hashfull" => info.hashfull = words.next().and_then(|w| w.parse().ok()),
                "time" => info.time = words.next().and_then(|w| w.parse().ok()),
                "lowerbound" | "upperbound" => info.bound = Some(word.to_string()),
                "score" => match (words.next(), words.next().and_then(|w| w.parse::<i32>().ok())) {
                    (Some("cp"), Some(v)) => info.cp = Some(v),
                    (Some("mate"), Some(v)) => info.mate = Some(v),
                    _ => return None,
                },
                "pv" => info.pv = words.by_ref().map(str::to_string).collect(),
                "string" => return None,
                _ => {}
            }
        }
        if info.cp.is_none() && info.mate.is_none() && info.pv.is_empty() {
            return None;
        }
        Some(info)
    }

    /// This line with its scores also from White's view, `side` being to move
    /// (for the GUI's page).
    #[cfg(feature = "gui")]
    pub fn seen_from(mut self, side: crate::core::Color) -> InfoLine {
        let sign = if side == crate::core::Color::White { 1 } else { -1 };
        self.white_cp = self.cp.map(|v| v * sign);
        self.white_mate = self.mate.map(|v| v * sign);
        self
    }

    /// The score from the engine's view, a mate before centipawns.
    pub fn score(&self) -> Option<EngineScore> {
        self.mate.map(EngineScore::Mate).or(self.cp.map(EngineScore::Cp))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_from_info_lines() {
        let score = |line| InfoLine::parse(line).and_then(|i| i.score());
        assert_eq!(score("info depth 3 score cp -25 nodes 100 pv a"), Some(EngineScore::Cp(-25)));
        assert_eq!(score("info depth 9 score mate 3 pv x"), Some(EngineScore::Mate(3)));
        assert_eq!(score("info string hello"), None);
        assert_eq!(score("info score cp"), None);
        assert_eq!(EngineScore::Mate(-2).centipawns(), -100_000);
        let depth = |line| InfoLine::parse(line).and_then(|i| i.depth);
        assert_eq!(depth("info depth 12 seldepth 20 score cp 3"), Some(12));
        assert_eq!(depth("info string depth x"), None);
    }

    #[test]
    #[cfg(feature = "gui")]
    fn info_lines_parse_with_white_view() {
        use crate::core::Color;
        let line = "info depth 5 seldepth 10 multipv 2 score cp -119 upperbound nodes 12186 nps 248693 hashfull 2 time 49 pv d1-IVf3-IV d8-IVd6-IV";
        let info = InfoLine::parse(line).unwrap().seen_from(Color::Black);
        assert_eq!(info.depth, Some(5));
        assert_eq!(info.seldepth, Some(10));
        assert_eq!(info.multipv, 2);
        assert_eq!(info.cp, Some(-119));
        assert_eq!(info.white_cp, Some(119));
        assert_eq!(info.bound.as_deref(), Some("upperbound"));
        assert_eq!(info.nodes, Some(12186));
        assert_eq!(info.nps, Some(248693));
        assert_eq!(info.hashfull, Some(2));
        assert_eq!(info.time, Some(49));
        assert_eq!(info.pv, vec!["d1-IVf3-IV", "d8-IVd6-IV"]);
        let mate = InfoLine::parse("info depth 3 score mate 2 pv a").unwrap().seen_from(Color::White);
        assert_eq!((mate.mate, mate.white_mate, mate.score()), (Some(2), Some(2), Some(EngineScore::Mate(2))));
        assert_eq!(InfoLine::parse("info currmove e2-IVe4-IV currmovenumber 1"), None);
        assert_eq!(InfoLine::parse("bestmove a"), None);
        assert_eq!(InfoLine::parse("info score banana 3"), None);
    }

    #[test]
    fn options_are_checked_against_the_announced_ones() {
        let announced: Vec<AnnouncedOption> = [
            "option name Hash type spin default 16 min 1 max 65536",
            "option name Clear Hash type button",
            "option name Ponder type check default false",
            "option name UCI_Variant type combo default hdc var hdc var haberkorn",
            "option name Book File type string default <empty>",
            "id name x",
        ]
        .iter()
        .filter_map(|l| AnnouncedOption::parse(l))
        .collect();
        assert_eq!(announced.len(), 5);
        assert_eq!(announced[1].name, "Clear Hash");
        assert_eq!(announced[3].vars, ["hdc", "haberkorn"]);
        assert_eq!(check_option(&announced, "hash", "8"), Ok(()));
        assert_eq!(check_option(&announced, "Hash", "0").unwrap_err(), "option Hash=0 is out of range 1..65536");
        assert!(check_option(&announced, "Hash", "big").unwrap_err().contains("whole number"));
        assert!(check_option(&announced, "Nonsense", "1").unwrap_err().starts_with(
            "option 'Nonsense' is not one of its options (Hash, Clear Hash, Ponder, UCI_Variant, Book File)"
        ));
        assert!(check_option(&announced, "Ponder", "yes").is_err());
        assert!(check_option(&announced, "Ponder", "TRUE").is_ok());
        assert!(check_option(&announced, "UCI_Variant", "haberkorn").is_ok());
        assert!(check_option(&announced, "UCI_Variant", "chess").is_err());
        assert!(check_option(&announced, "Book File", "a b").is_ok());
        assert!(is_error_report("info string error: no net") && is_error_report("info string ERROR x"));
        assert!(!is_error_report("info string errands"));
        assert!(!is_error_report("info string all fine"));
    }

    #[test]
    fn a_missing_program_is_a_spawn_error() {
        let spec = EngineSpec::parse(&[], &["cmd=/nonexistent/engine".into(), "depth=1".into()]).unwrap();
        assert!(matches!(EngineProcess::start(&spec), Err(ProcessError::Spawn { .. })));
    }
}
