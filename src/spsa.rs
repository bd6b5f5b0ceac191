//! `cubist spsa`: tunes an engine's numeric UCI options by simultaneous
//! perturbation stochastic approximation on the match runner, as OpenBench
//! and fishtest run it.
//!
//! Iteration `k` draws a sign `Δᵢ = ±1` for every parameter (from the seed
//! and `k` alone), plays game pairs between the engine with `θ + c_k Δ` and
//! with `θ − c_k Δ` (colours reversed within each pair, openings and random
//! plies of the iteration's own seed), and moves every parameter by
//! `a_k / c_k · (wins − losses) · Δᵢ`, where `c_k = c / k^γ` and
//! `a_k = a / (A + k)^α` with OpenBench's constants: `c = c_end · N^γ`,
//! `a = r_end · c_end² · (A + N)^α`, `A` a tenth of the `N` iterations,
//! `α = 0.602`, `γ = 0.101`. Integer options get `θ ± c_k Δ` rounded.
//!
//! The state (settings, `θ`, counts) is one JSON file written whole after
//! every iteration, under a lock file beside it, and every finished
//! iteration appends one row to a CSV log. Several `cubist spsa` processes
//! given the same state file (on one machine, or on several that share the
//! folder: a Slurm array, GNU parallel over SSH with a shared home) work on
//! one `θ` asynchronously, as OpenBench's workers do: each claims the next
//! iteration, plays it with the `θ` of that moment, and applies its result
//! to the `θ` of the moment it finishes. An interrupted process gives its
//! iteration back (the next claim takes it); a killed one loses it.

use crate::arena::config::Adjudication;
use crate::arena::config::MatchConfig;
use crate::arena::config::{EngineSpec, OpeningsSpec};
use crate::arena::error::ArenaError;
use crate::arena::run::run_match_until;
use crate::core::Variant;
use crate::files::write_atomically;
use crate::search::params::TUNABLES;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, SystemTime};
use thiserror::Error;

/// The `format` field of an SPSA state of this layout.
pub const FORMAT: &str = "cubist spsa state 1";

/// OpenBench's exponent of the step size `a_k`.
pub const ALPHA: f64 = 0.602;
/// OpenBench's exponent of the perturbation `c_k`.
pub const GAMMA: f64 = 0.101;
/// OpenBench's default `r_end` (the step at the end, relative to `c_end²`).
pub const R_END: f64 = 0.002;

/// A lock file older than this is left by a killed process and is removed.
const STALE_LOCK: Duration = Duration::from_secs(120);

/// Why an SPSA run could not go on.
#[derive(Debug, Error)]
pub enum SpsaError {
    /// A parameter line or setting that cannot be used.
    #[error("{0}")]
    Config(String),
    /// The state file cannot be read, trusted or written.
    #[error("SPSA state '{0}': {1}")]
    State(String, String),
    /// A state of another run: other settings or parameters.
    #[error("'{0}' holds an SPSA run with other settings ({1} differs): give its settings or another --state")]
    Changed(String, &'static str),
    /// A match of an iteration failed.
    #[error(transparent)]
    Match(#[from] ArenaError),
}

/// One tuned parameter: a UCI option of the engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaParam {
    /// The UCI option.
    pub name: String,
    /// Whether the option takes integers (`int`) rather than any number (`float`).
    pub integer: bool,
    /// The starting value.
    pub start: f64,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
    /// The perturbation at the last iteration.
    pub c_end: f64,
    /// The step at the last iteration, relative to `c_end²`.
    pub r_end: f64,
}

impl SpsaParam {
    /// Reads an OpenBench line: `name, int|float, start, min, max, c_end, r_end`.
    pub fn parse(line: &str) -> Result<SpsaParam, SpsaError> {
        let bad = |why: String| SpsaError::Config(format!("SPSA parameter line '{}': {why}", line.trim()));
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != 7 {
            return Err(bad(format!(
                "expected 7 fields (name, int|float, start, min, max, c_end, r_end), found {}",
                f.len()
            )));
        }
        let integer = match f[1] {
            "int" => true,
            "float" => false,
            other => return Err(bad(format!("the type must be int or float, not '{other}'"))),
        };
        let number = |i: usize, what: &str| -> Result<f64, SpsaError> {
            f[i].parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| bad(format!("{what} '{}' is not a number", f[i])))
        };
        let p = SpsaParam {
            name: f[0].to_string(),
            integer,
            start: number(2, "start")?,
            min: number(3, "min")?,
            max: number(4, "max")?,
            c_end: number(5, "c_end")?,
            r_end: number(6, "r_end")?,
        };
        if p.name.is_empty() {
            return Err(bad("the option name is empty".into()));
        }
        if !(p.min <= p.start && p.start <= p.max) {
            return Err(bad(format!("start {} is outside [{}, {}]", p.start, p.min, p.max)));
        }
        if p.c_end <= 0.0 || p.r_end <= 0.0 {
            return Err(bad("c_end and r_end must be positive".into()));
        }
        Ok(p)
    }

    /// The OpenBench line of this parameter (what [`SpsaParam::parse`] reads).
    pub fn line(&self) -> String {
        let kind = if self.integer { "int" } else { "float" };
        format!("{}, {kind}, {}, {}, {}, {}, {}", self.name, self.start, self.min, self.max, self.c_end, self.r_end)
    }
}

/// Reads a parameter file: OpenBench lines, `#` comments and blank lines.
pub fn parse_params(text: &str) -> Result<Vec<SpsaParam>, SpsaError> {
    let params: Vec<SpsaParam> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(SpsaParam::parse)
        .collect::<Result<_, _>>()?;
    if params.is_empty() {
        return Err(SpsaError::Config("the SPSA parameter file names no parameter".into()));
    }
    for (i, p) in params.iter().enumerate() {
        if params[..i].iter().any(|q| q.name.eq_ignore_ascii_case(&p.name)) {
            return Err(SpsaError::Config(format!("SPSA parameter '{}' is named twice", p.name)));
        }
    }
    Ok(params)
}

/// Every search and time tunable of Cubist in `variant`'s game, as the
/// options of a `tune` build (`<name>_<game>`), starting at the defaults:
/// `c_end` a tenth of the default (at least 1, at least a hundredth of the
/// range), `r_end` OpenBench's 0.002.
pub fn cubist_params(variant: &Variant) -> Vec<SpsaParam> {
    TUNABLES
        .iter()
        .map(|t| {
            let start = t.default_for(variant.kind) as f64;
            let (min, max) = (t.min as f64, t.max as f64);
            SpsaParam {
                name: t.option_name(variant.kind),
                integer: true,
                start,
                min,
                max,
                c_end: (start.abs() / 10.0).max((max - min) / 100.0).max(1.0).round(),
                r_end: R_END,
            }
        })
        .collect()
}

/// Everything that defines an SPSA run (what the state must agree with).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaConfig {
    /// The engine, its limits and fixed options; both sides run it.
    pub engine: EngineSpec,
    /// The game (setup layers vary with constellations).
    #[serde(
        serialize_with = "crate::arena::variant_json::serialize_variant",
        deserialize_with = "crate::arena::variant_json::deserialize_variant"
    )]
    pub variant: Variant,
    /// The tuned options.
    pub params: Vec<SpsaParam>,
    /// Iterations of the run (`N`).
    pub iterations: u64,
    /// Game pairs per iteration.
    pub pairs: u32,
    /// The opening book (`file=builtin`: the game's built-in balanced book),
    /// or none: the start position (or constellations) and random plies.
    #[serde(default)]
    pub openings: Option<OpeningsSpec>,
    /// Random plies after the start position (or the book's opening).
    pub random_plies: u32,
    /// Haberkorn: the setup-layer pair of each game pair drawn from all 64.
    pub constellations: bool,
    /// Resign, draw and max-moves adjudication.
    pub adjudication: Adjudication,
    /// Seed of the perturbations, openings and random plies.
    pub seed: u64,
}

impl SpsaConfig {
    /// `A`: a tenth of the iterations (OpenBench's stability constant).
    fn big_a(&self) -> f64 {
        self.iterations as f64 / 10.0
    }

    /// `(c_k, a_k / c_k)` of parameter `p` at iteration `k` (from 1).
    pub fn gains(&self, p: &SpsaParam, k: u64) -> (f64, f64) {
        let n = self.iterations as f64;
        let c = p.c_end * n.powf(GAMMA);
        let a = p.r_end * p.c_end * p.c_end * (self.big_a() + n).powf(ALPHA);
        let c_k = c / (k as f64).powf(GAMMA);
        let a_k = a / (self.big_a() + k as f64).powf(ALPHA);
        (c_k, a_k / c_k)
    }

    /// The signs `Δ` of iteration `k` (the same in every process).
    pub fn signs(&self, k: u64) -> Vec<f64> {
        let mut rng = StdRng::seed_from_u64(self.seed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        self.params.iter().map(|_| if rng.random_bool(0.5) { 1.0 } else { -1.0 }).collect()
    }

    /// The option values of the two sides of iteration `k` at `theta`: `θ + c_k Δ` and `θ − c_k Δ`.
    pub fn sides(&self, theta: &[f64], k: u64) -> [Vec<f64>; 2] {
        let signs = self.signs(k);
        [1.0, -1.0].map(|s| {
            self.params
                .iter()
                .zip(theta)
                .zip(&signs)
                .map(|((p, &t), &d)| {
                    let v = (t + s * self.gains(p, k).0 * d).clamp(p.min, p.max);
                    if p.integer { v.round() } else { v }
                })
                .collect()
        })
    }

    /// `theta` after iteration `k` scored `result` (wins − losses of the `+` side).
    pub fn update(&self, theta: &mut [f64], k: u64, result: f64) {
        for ((t, p), d) in theta.iter_mut().zip(&self.params).zip(self.signs(k)) {
            *t = (*t + self.gains(p, k).1 * result * d).clamp(p.min, p.max);
        }
    }

    /// The first setting that differs from `other`'s, if any.
    fn differs(&self, other: &SpsaConfig) -> Option<&'static str> {
        [
            ("the engine", self.engine != other.engine),
            ("the game", self.variant != other.variant),
            ("the parameters", self.params != other.params),
            ("--iterations", self.iterations != other.iterations),
            ("--pairs", self.pairs != other.pairs),
            ("--openings", self.openings != other.openings),
            ("--random-plies", self.random_plies != other.random_plies),
            ("--constellations", self.constellations != other.constellations),
            ("adjudication", self.adjudication != other.adjudication),
            ("--seed", self.seed != other.seed),
        ]
        .into_iter()
        .find_map(|(what, differs)| differs.then_some(what))
    }
}

/// Where an SPSA run stands: written whole after every claim and iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaState {
    /// [`FORMAT`].
    pub format: String,
    /// The run's settings.
    pub config: SpsaConfig,
    /// The current values, in the order of `config.params`.
    pub theta: Vec<f64>,
    /// Iterations handed out (the next claim is this plus one, unless one was given back).
    pub claimed: u64,
    /// Iterations given back by interrupted processes, claimed again first.
    pub returned: Vec<u64>,
    /// Iterations finished and applied.
    pub done: u64,
    /// Games won, drawn and lost by the `+` side over the run.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl SpsaState {
    /// A fresh run at the parameters' starting values.
    pub fn new(config: SpsaConfig) -> SpsaState {
        let theta = config.params.iter().map(|p| p.start).collect();
        SpsaState {
            format: FORMAT.into(),
            config,
            theta,
            claimed: 0,
            returned: Vec::new(),
            done: 0,
            wins: 0,
            draws: 0,
            losses: 0,
        }
    }

    /// Reads a state file (`None` if there is none).
    pub fn load(path: &Path) -> Result<Option<SpsaState>, SpsaError> {
        let err = |why: String| SpsaError::State(path.display().to_string(), why);
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(err(e.to_string())),
        };
        let state: SpsaState = serde_json::from_str(&text).map_err(|e| err(format!("not an SPSA state: {e}")))?;
        if state.format != FORMAT {
            return Err(err(format!("format '{}', this cubist reads '{FORMAT}'", state.format)));
        }
        if state.theta.len() != state.config.params.len() {
            return Err(err("θ and the parameters differ in length".into()));
        }
        Ok(Some(state))
    }

    /// Writes the state whole (write, sync, rename).
    pub fn save(&self, path: &Path) -> Result<(), SpsaError> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| SpsaError::State(path.display().to_string(), e.to_string()))?;
        write_atomically(path, text.as_bytes()).map_err(|e| SpsaError::State(path.display().to_string(), e.to_string()))
    }

    /// Whether every iteration is claimed and none was given back.
    pub fn all_claimed(&self) -> bool {
        self.claimed >= self.config.iterations && self.returned.is_empty()
    }

    /// The current values as OpenBench lines (the parameter file of a continued run).
    pub fn params_now(&self) -> Vec<SpsaParam> {
        self.config
            .params
            .iter()
            .zip(&self.theta)
            .map(|(p, &t)| SpsaParam { start: if p.integer { t.round() } else { t }, ..p.clone() })
            .collect()
    }
}

/// The lock file beside a state: held while a process reads and writes it.
struct Lock(PathBuf);

impl Lock {
    /// Takes the lock of `state`, waiting for other processes (a lock older
    /// than [`STALE_LOCK`] was left by a killed one and is removed).
    fn take(state: &Path) -> Result<Lock, SpsaError> {
        let path = with_suffix(state, ".lock");
        loop {
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut f) => {
                    let _ = writeln!(f, "{}", std::process::id());
                    return Ok(Lock(path));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let age = std::fs::metadata(&path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| SystemTime::now().duration_since(t).ok());
                    if age.is_some_and(|a| a > STALE_LOCK) {
                        log::warn!("removing the stale SPSA lock {}", path.display());
                        let _ = std::fs::remove_file(&path);
                    } else {
                        std::thread::sleep(Duration::from_millis(50));
                    }
                }
                Err(e) => return Err(SpsaError::State(path.display().to_string(), format!("cannot lock: {e}"))),
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `path` with `suffix` added to its file name.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

/// The CSV log beside a state: `STATE.csv`.
pub fn log_path(state: &Path) -> PathBuf {
    with_suffix(state, ".csv")
}

/// Appends the row of a finished iteration (the header first into a new log).
fn log_row(state: &Path, s: &SpsaState, k: u64, wdl: [u64; 3]) -> Result<(), SpsaError> {
    let path = log_path(state);
    let err = |e: std::io::Error| SpsaError::State(path.display().to_string(), e.to_string());
    let fresh = !path.exists();
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&path).map_err(err)?;
    let mut text = String::new();
    if fresh {
        let names: Vec<&str> = s.config.params.iter().map(|p| p.name.as_str()).collect();
        text.push_str(&format!("iteration,done,wins,draws,losses,{}\n", names.join(",")));
    }
    let theta: Vec<String> = s.theta.iter().map(|t| format!("{t:.3}")).collect();
    text.push_str(&format!("{k},{},{},{},{},{}\n", s.done, wdl[0], wdl[1], wdl[2], theta.join(",")));
    f.write_all(text.as_bytes()).map_err(err)
}

/// What one finished iteration reports.
#[derive(Clone, Debug)]
pub struct IterationReport {
    /// The iteration.
    pub k: u64,
    /// Wins, draws and losses of the `+` side.
    pub wdl: [u64; 3],
    /// The state after it.
    pub state: SpsaState,
}

/// Claims the next iteration of the run in `path` (creating the run from
/// `config` if there is none, refusing one of other settings); `None` when
/// every iteration is claimed.
fn claim(path: &Path, config: &SpsaConfig) -> Result<Option<(u64, Vec<f64>)>, SpsaError> {
    let _lock = Lock::take(path)?;
    let mut state = match SpsaState::load(path)? {
        Some(s) => {
            if let Some(what) = s.config.differs(config) {
                return Err(SpsaError::Changed(path.display().to_string(), what));
            }
            s
        }
        None => SpsaState::new(config.clone()),
    };
    let k = if let Some(k) = state.returned.pop() {
        k
    } else if state.claimed < config.iterations {
        state.claimed += 1;
        state.claimed
    } else {
        return Ok(None);
    };
    state.save(path)?;
    Ok(Some((k, state.theta.clone())))
}

/// Gives iteration `k` back (its process was interrupted).
fn give_back(path: &Path, k: u64) -> Result<(), SpsaError> {
    let _lock = Lock::take(path)?;
    if let Some(mut state) = SpsaState::load(path)? {
        state.returned.push(k);
        state.save(path)?;
    }
    Ok(())
}

/// Applies iteration `k`'s result to the `θ` of now, logs it and saves.
fn apply(path: &Path, k: u64, wdl: [u64; 3]) -> Result<SpsaState, SpsaError> {
    let _lock = Lock::take(path)?;
    let mut state = SpsaState::load(path)?
        .ok_or_else(|| SpsaError::State(path.display().to_string(), "the state file is gone".into()))?;
    let config = state.config.clone();
    config.update(&mut state.theta, k, wdl[0] as f64 - wdl[2] as f64);
    state.done += 1;
    state.wins += wdl[0];
    state.draws += wdl[1];
    state.losses += wdl[2];
    log_row(path, &state, k, wdl)?;
    state.save(path)?;
    Ok(state)
}

/// The match of iteration `k`: the engine with `plus` against itself with `minus`.
pub fn iteration_match(config: &SpsaConfig, k: u64, sides: &[Vec<f64>; 2], concurrency: usize) -> MatchConfig {
    let engines = ["plus", "minus"]
        .iter()
        .zip(sides)
        .map(|(name, values)| {
            let mut e = config.engine.clone();
            e.name = (*name).to_string();
            for (p, v) in config.params.iter().zip(values) {
                e.options.retain(|(n, _)| !n.eq_ignore_ascii_case(&p.name));
                e.options.push((p.name.clone(), if p.integer { format!("{v:.0}") } else { format!("{v}") }));
            }
            e
        })
        .collect();
    MatchConfig {
        engines,
        variant: config.variant,
        openings: config.openings.clone(),
        random_plies: config.random_plies,
        constellations: config.constellations,
        rounds: config.pairs,
        concurrency,
        seed: config.seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ k,
        adjudication: config.adjudication.clone(),
        event: format!("Cubist SPSA iteration {k}"),
        quiet: true,
        ..MatchConfig::default()
    }
}

/// Works on the run in `path` until every iteration is claimed or
/// `interrupt` is set, playing `concurrency` games at once; `progress` hears
/// of every finished iteration. Returns the state at the end.
pub fn run_spsa(
    path: &Path,
    config: &SpsaConfig,
    concurrency: usize,
    interrupt: &AtomicBool,
    progress: &mut dyn FnMut(&IterationReport),
) -> Result<Option<SpsaState>, SpsaError> {
    if config.params.is_empty() || config.iterations == 0 || config.pairs == 0 {
        return Err(SpsaError::Config("SPSA needs parameters, iterations and game pairs".into()));
    }
    while !interrupt.load(std::sync::atomic::Ordering::Relaxed) {
        let Some((k, theta)) = claim(path, config)? else { break };
        let sides = config.sides(&theta, k);
        let summary = match run_match_until(iteration_match(config, k, &sides, concurrency), interrupt) {
            Ok(s) if s.games == s.scheduled => s,
            Ok(s) => {
                give_back(path, k)?;
                return Err(ArenaError::Interrupted { games: s.games, scheduled: s.scheduled, state: None }.into());
            }
            Err(e) => {
                give_back(path, k)?;
                return Err(e.into());
            }
        };
        let t = summary.pairings.first().map(|p| p.tally).unwrap_or_default();
        let wdl = [t.wins as u64, t.draws as u64, t.losses as u64];
        let state = apply(path, k, wdl)?;
        progress(&IterationReport { k, wdl, state });
    }
    SpsaState::load(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(params: Vec<SpsaParam>) -> SpsaConfig {
        SpsaConfig {
            engine: EngineSpec::parse(&[], &["cmd=cubist".into(), "nodes=100".into()]).unwrap(),
            variant: Variant::hdc(),
            params,
            iterations: 1000,
            pairs: 1,
            openings: None,
            random_plies: 4,
            constellations: false,
            adjudication: Adjudication::default(),
            seed: 7,
        }
    }

    #[test]
    fn openbench_lines_round_trip_and_bad_lines_say_why() {
        let p = SpsaParam::parse("rfp_margin_hdc, int, 90, 20, 400, 9, 0.002").unwrap();
        assert_eq!((p.start, p.min, p.max, p.c_end, p.r_end, p.integer), (90.0, 20.0, 400.0, 9.0, 0.002, true));
        assert_eq!(SpsaParam::parse(&p.line()).unwrap(), p);
        for (line, why) in [
            ("a, int, 1, 0, 2, 1", "7 fields"),
            ("a, bool, 1, 0, 2, 1, 0.002", "int or float"),
            ("a, int, x, 0, 2, 1, 0.002", "not a number"),
            ("a, int, 5, 0, 2, 1, 0.002", "outside"),
            ("a, int, 1, 0, 2, 0, 0.002", "positive"),
        ] {
            let e = SpsaParam::parse(line).unwrap_err().to_string();
            assert!(e.contains(why), "{line}: {e}");
        }
        assert!(parse_params("# only a comment\n").is_err());
        assert!(parse_params("a, int, 1, 0, 2, 1, 0.002\nA, int, 1, 0, 2, 1, 0.002").is_err());
    }

    #[test]
    fn gains_follow_openbench_and_end_at_c_end_and_r_end() {
        let cfg = config(vec![SpsaParam::parse("x, float, 50, 0, 100, 4, 0.002").unwrap()]);
        let p = &cfg.params[0];
        let (c_n, step_n) = cfg.gains(p, cfg.iterations);
        assert!((c_n - 4.0).abs() < 1e-9, "{c_n}");
        // a_N / c_N = r_end * c_end^2 / c_end at the last iteration.
        assert!((step_n - 0.002 * 4.0).abs() < 1e-9, "{step_n}");
        let (c_1, step_1) = cfg.gains(p, 1);
        assert!(c_1 > c_n && step_1 > step_n);
    }

    #[test]
    fn sides_are_symmetric_rounded_and_clamped_and_updates_follow_the_result() {
        let cfg = config(vec![
            SpsaParam::parse("a, int, 10, 0, 100, 3, 0.002").unwrap(),
            SpsaParam::parse("b, int, 0, 0, 100, 3, 0.002").unwrap(),
        ]);
        let theta = vec![10.0, 0.0];
        let signs = cfg.signs(5);
        assert_eq!(signs, cfg.signs(5), "the signs depend on the seed and k alone");
        let [plus, minus] = cfg.sides(&theta, 5);
        for i in 0..2 {
            assert_eq!(plus[i], plus[i].round());
            assert!(plus[i] >= 0.0 && minus[i] >= 0.0, "clamped at min");
        }
        assert_eq!(plus[0] + minus[0], 20.0);
        let mut up = theta.clone();
        cfg.update(&mut up, 5, 2.0);
        assert_eq!((up[0] - theta[0]).signum(), signs[0], "plus won: θ moves towards plus");
        let mut down = theta.clone();
        cfg.update(&mut down, 5, -2.0);
        assert_eq!((down[0] - theta[0]).signum(), -signs[0]);
        let mut same = theta.clone();
        cfg.update(&mut same, 5, 0.0);
        assert_eq!(same, theta);
    }

    #[test]
    fn the_state_is_claimed_given_back_applied_and_refused_with_other_settings() {
        let scratch = tempfile::Builder::new().prefix("cubist-spsa-").tempdir().unwrap();
        let dir = scratch.path();
        let path = dir.join("run.json");
        let cfg = SpsaConfig { iterations: 2, ..config(cubist_params(&Variant::hdc())) };
        assert_eq!(claim(&path, &cfg).unwrap().map(|c| c.0), Some(1));
        give_back(&path, 1).unwrap();
        assert_eq!(claim(&path, &cfg).unwrap().map(|c| c.0), Some(1), "a returned iteration comes first");
        assert_eq!(claim(&path, &cfg).unwrap().map(|c| c.0), Some(2));
        assert_eq!(claim(&path, &cfg).unwrap(), None);
        let s = apply(&path, 2, [1, 0, 0]).unwrap();
        assert_eq!((s.done, s.wins), (1, 1));
        assert_ne!(s.theta, s.config.params.iter().map(|p| p.start).collect::<Vec<_>>());
        let log = std::fs::read_to_string(log_path(&path)).unwrap();
        assert_eq!(log.lines().count(), 2);
        assert!(log.starts_with("iteration,done,wins,draws,losses,aspiration_delta_hdc,"));
        let other = SpsaConfig { seed: 8, ..cfg.clone() };
        assert!(matches!(claim(&path, &other), Err(SpsaError::Changed(_, "--seed"))));
        assert_eq!(SpsaState::load(&path).unwrap().unwrap(), s, "a refused claim changes nothing");
        assert!(!with_suffix(&path, ".lock").exists(), "the lock is released");
        std::fs::write(&path, "{").unwrap();
        assert!(matches!(claim(&path, &cfg), Err(SpsaError::State(..))));
    }

    #[test]
    fn the_default_parameters_are_every_tunable_of_the_game() {
        let hab = cubist_params(&Variant::haberkorn());
        assert_eq!(hab.len(), TUNABLES.len());
        let lost = hab.iter().find(|p| p.name == "lost_margin_haberkorn").unwrap();
        assert_eq!(lost.start, 1000.0);
        assert!(hab.iter().all(|p| p.c_end >= 1.0 && p.min <= p.start && p.start <= p.max));
        let text: String = hab.iter().map(|p| p.line() + "\n").collect();
        assert_eq!(parse_params(&text).unwrap(), hab);
    }
}
