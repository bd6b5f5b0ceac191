//! Texel tuning of every evaluation weight from self-play data (`cubist
//! tune`). The evaluation is linear in its [`Weights`] (see
//! [`eval::features`](crate::eval::features)), so each position is
//! turned once into coefficients per parameter (a weight's middle game or
//! end game half, or the tempo); the evaluation under parameters `p` is then
//! `Σ coefficient × p`. It is mapped to an expected score by a logistic
//! curve whose scale `K` is fitted first, and the parameters minimise the
//! mean squared error against a blend of the game result and the search's
//! score, plus a small pull towards the starting weights (Adam, full-batch
//! gradients summed in parallel with rayon).
//!
//! The placement tables have one free constant each (adding `c` to every
//! entry of a kind's file table and taking `c` from its material changes
//! no evaluation); [`Params::to_weights`] moves those constants into the
//! material so that each table averages zero over the board, which keeps
//! the material values comparable between fits.

use crate::core::{Color, PieceKind, VariantKind};
use crate::eval::features;
use crate::eval::nnue::Network;
use crate::eval::pair::Pair;
use crate::eval::weights::{GROUPS, Weights, at, weights, weights_name};
use crate::files::write_atomically;
use crate::learn::data::Sample;
use crate::learn::driver::{LearnError, Log, check_out_folder, checkpoint_path, read_data};
use rayon::prelude::*;
use std::path::PathBuf;

/// Parameters fitted: the middle game and end game half of every weight, then the tempo.
pub const PARAMS: usize = 2 * at::COUNT + 1;
/// The tempo's parameter index.
const TEMPO: usize = 2 * at::COUNT;

/// The fitted quantities, in the order [`PARAMS`] describes.
#[derive(Clone, Debug, PartialEq)]
pub struct Params(pub Vec<f64>);

impl Params {
    /// The parameters of a weight set.
    pub fn from_weights(w: &Weights) -> Params {
        let mut p = Vec::with_capacity(PARAMS);
        for pair in &w.w {
            p.push(pair.0 as f64);
            p.push(pair.1 as f64);
        }
        p.push(w.tempo as f64);
        Params(p)
    }

    /// The weight set these parameters describe, rounded, each placement table shifted to average zero
    /// over the board (its constant moved into the material; the king's dropped, as both sides have one).
    pub fn to_weights(&self) -> Weights {
        let mut p = self.0.clone();
        for k in 0..PieceKind::COUNT {
            // (start, entries, how often each entry occurs over a board's eight files/layers/ranks).
            let pawn_ranks = [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0];
            let ranks = if k == PieceKind::Pawn.index() { pawn_ranks } else { [1.0; 8] };
            let tables: [(usize, &[f64]); 3] =
                [(at::FILE + 4 * k, &[2.0; 4]), (at::LAYER + 4 * k, &[2.0; 4]), (at::RANK + 8 * k, &ranks)];
            for (start, occurs) in tables {
                for half in 0..2 {
                    let total: f64 = occurs.iter().sum();
                    let mean =
                        occurs.iter().enumerate().map(|(i, n)| n * p[2 * (start + i) + half]).sum::<f64>() / total;
                    for i in 0..occurs.len() {
                        p[2 * (start + i) + half] -= mean;
                    }
                    if k != PieceKind::King.index() {
                        p[2 * (at::MATERIAL + k) + half] += mean;
                    }
                }
            }
        }
        let mut w = [Pair::default(); at::COUNT];
        for (i, pair) in w.iter_mut().enumerate() {
            *pair = Pair(p[2 * i].round() as i32, p[2 * i + 1].round() as i32);
        }
        Weights { w, tempo: p[TEMPO].round() as i32 }
    }
}

/// One position prepared for the fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// (parameter index, coefficient): the evaluation, White's view, is `Σ coefficient × parameter`.
    pub coefficients: Vec<(u32, f32)>,
    /// The game result for White (1, 0.5, 0).
    pub result: f64,
    /// The search's score, White's view, in centipawns.
    pub score: f64,
    /// Added to the evaluation, White's view: a residual network's output,
    /// held fixed while the linear weights beneath it are fitted (else 0).
    pub offset: f64,
}

/// Turns samples of game `kind` into entries (others are left out); with a
/// residual network, each entry's offset is its output.
pub fn prepare(samples: &[Sample], kind: VariantKind, under: Option<&Network>) -> Vec<Entry> {
    samples
        .par_iter()
        .filter(|s| s.position.variant().kind == kind)
        .map(|s| {
            let f = features(&s.position);
            let mg = f.phase.0 as f64 / f.phase.1.max(1) as f64;
            let mut coefficients = Vec::with_capacity(2 * f.counts.len() + 1);
            for &(i, n) in &f.counts {
                coefficients.push((2 * i as u32, (n as f64 * mg) as f32));
                coefficients.push((2 * i as u32 + 1, (n as f64 * (1.0 - mg)) as f32));
            }
            let stm = if s.position.side_to_move() == Color::White { 1.0 } else { -1.0 };
            coefficients.push((TEMPO as u32, stm));
            let residual = under.map_or(0, |net| net.own_output(&s.position));
            Entry {
                coefficients,
                result: s.result as f64,
                score: s.score as f64,
                offset: f64::from(stm) * f64::from(residual),
            }
        })
        .collect()
}

/// The expected score of an evaluation `e` (centipawns) under scale `k`.
pub fn sigmoid(k: f64, e: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * e / 400.0))
}

impl Entry {
    /// The evaluation, White's view, under parameters `p`.
    pub fn eval(&self, p: &[f64]) -> f64 {
        self.offset + self.coefficients.iter().map(|&(i, c)| c as f64 * p[i as usize]).sum::<f64>()
    }

    /// The target: `lambda` of the result, the rest the search score's expectation.
    fn target(&self, k: f64, lambda: f64) -> f64 {
        lambda * self.result + (1.0 - lambda) * sigmoid(k, self.score)
    }
}

/// Mean squared error of the entries' expected scores against their targets.
pub fn loss(entries: &[Entry], k: f64, lambda: f64, p: &Params) -> f64 {
    let sum: f64 = entries
        .par_iter()
        .map(|e| {
            let d = sigmoid(k, e.eval(&p.0)) - e.target(k, lambda);
            d * d
        })
        .sum();
    sum / entries.len().max(1) as f64
}

/// The scale `K` at which the search's scores best predict the game
/// results (as `cubist train` fits its K): what the fit uses, since with
/// the scores in the target a K fitted to the evaluation would shrink
/// towards 0, where every expected score is ½ and the loss vanishes.
pub fn fit_k_to_results(entries: &[Entry]) -> f64 {
    golden_k(|k| {
        let sum: f64 = entries.par_iter().map(|e| (sigmoid(k, e.score) - e.result).powi(2)).sum();
        sum / entries.len().max(1) as f64
    })
}

/// The minimum of `f` over 0.05..4 by golden-section search.
fn golden_k(f: impl Fn(f64) -> f64) -> f64 {
    let (mut a, mut b) = (0.05f64, 4.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let (c, d) = (b - g * (b - a), a + g * (b - a));
        if f(c) < f(d) {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

/// The gradient of [`loss`] with respect to the parameters.
fn gradient(entries: &[Entry], k: f64, lambda: f64, p: &Params) -> Vec<f64> {
    let scale = k * std::f64::consts::LN_10 / 400.0;
    let sum = entries
        .par_iter()
        .fold(
            || vec![0.0; PARAMS],
            |mut acc, e| {
                let s = sigmoid(k, e.eval(&p.0));
                let g = 2.0 * (s - e.target(k, lambda)) * s * (1.0 - s) * scale;
                for &(i, c) in &e.coefficients {
                    acc[i as usize] += g * c as f64;
                }
                acc
            },
        )
        .reduce(
            || vec![0.0; PARAMS],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        );
    let n = entries.len().max(1) as f64;
    sum.into_iter().map(|g| g / n).collect()
}

/// How the fit runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TuneConfig {
    /// Full-batch steps.
    pub epochs: usize,
    /// Adam's step size, in centipawns.
    pub learning_rate: f64,
    /// Weight of the game result in the target (the rest: the search score).
    pub lambda: f64,
    /// The pull towards the starting weights: this times the squared distance (centipawns²) is added to the loss.
    pub l2: f64,
}

impl Default for TuneConfig {
    fn default() -> TuneConfig {
        TuneConfig { epochs: 2000, learning_rate: 2.0, lambda: 0.5, l2: 1e-8 }
    }
}

/// Which parameters the named weight groups (see [`GROUPS`]; `tempo` for the tempo) cover,
/// or an error naming the first unknown group.
pub fn select(groups: &[String]) -> Result<Vec<bool>, String> {
    let names = group_names();
    let mut free = vec![false; PARAMS];
    for name in groups {
        if name == "tempo" {
            free[TEMPO] = true;
            continue;
        }
        let g = names
            .iter()
            .position(|g| g == name)
            .ok_or_else(|| format!("unknown weight group {name:?} (groups: {}, tempo)", names.join(", ")))?;
        let (_, start, len, _) = GROUPS[g];
        free[2 * start..2 * (start + len)].iter_mut().for_each(|f| *f = true);
    }
    Ok(free)
}

/// The names [`select`] knows (spaces written as dashes), tempo aside.
pub fn group_names() -> Vec<String> {
    GROUPS.iter().map(|g| g.0.replace(' ', "-")).collect()
}

/// Fits the parameters marked in `free` with Adam at scale `k`, starting from (and pulled
/// towards) `start`, calling `report(epoch, params)` every 100 epochs and at the end.
pub fn fit(
    entries: &[Entry],
    k: f64,
    start: &Params,
    free: &[bool],
    cfg: TuneConfig,
    mut report: impl FnMut(usize, &Params),
) -> Params {
    fit_from(entries, start, free, cfg, FitState::new(start, k), |s| report(s.epoch, &s.params)).params
}

/// [`fit`] carried on from `state` (a new one or a checkpoint's) up to
/// `cfg.epochs`; `report` sees the state every 100 epochs and at the end
/// (to print it, or to save it as a checkpoint). The same data and settings
/// give the same parameters, interrupted or not (to the last bits, which
/// the parallel gradient's summing order moves in any run).
pub fn fit_from(
    entries: &[Entry],
    start: &Params,
    free: &[bool],
    cfg: TuneConfig,
    mut state: FitState,
    mut report: impl FnMut(&FitState),
) -> FitState {
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-12);
    let k = state.k;
    for epoch in state.epoch + 1..=cfg.epochs {
        let g = gradient(entries, k, cfg.lambda, &state.params);
        let FitState { params: p, m, v, .. } = &mut state;
        for i in 0..PARAMS {
            let gi = g[i] + 2.0 * cfg.l2 * (p.0[i] - start.0[i]);
            if !free[i] || (gi == 0.0 && m[i] == 0.0) {
                // A parameter no position uses (a king's material, say) stays where it is.
                continue;
            }
            m[i] = b1 * m[i] + (1.0 - b1) * gi;
            v[i] = b2 * v[i] + (1.0 - b2) * gi * gi;
            let mh = m[i] / (1.0 - b1.powi(epoch as i32));
            let vh = v[i] / (1.0 - b2.powi(epoch as i32));
            p.0[i] -= cfg.learning_rate * mh / (vh.sqrt() + eps);
        }
        state.epoch = epoch;
        if epoch % 100 == 0 || epoch == cfg.epochs {
            report(&state);
        }
    }
    state
}

/// Where a fit stands: the epochs done, the parameters and Adam's moments
/// (what a checkpoint holds), and the `K` of its data.
#[derive(Clone, Debug, PartialEq)]
pub struct FitState {
    /// Epochs done.
    pub epoch: usize,
    /// The logistic scale the fit uses.
    pub k: f64,
    /// The parameters after `epoch` epochs.
    pub params: Params,
    /// Adam's first moments.
    m: Vec<f64>,
    /// Adam's second moments.
    v: Vec<f64>,
}

/// The first eight bytes of a `cubist tune` checkpoint.
const CHECKPOINT_MAGIC: [u8; 8] = *b"CUBTUNE1";

impl FitState {
    /// A fit that has not started, from `start` under `k`.
    pub fn new(start: &Params, k: f64) -> FitState {
        FitState { epoch: 0, k, params: start.clone(), m: vec![0.0; PARAMS], v: vec![0.0; PARAMS] }
    }

    /// The checkpoint's bytes: magic, u64 epoch, f64 K, u32 parameter
    /// count, the parameters and both moments as f64, a u64 FNV-1a checksum
    /// of all that (little-endian).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = CHECKPOINT_MAGIC.to_vec();
        out.extend_from_slice(&(self.epoch as u64).to_le_bytes());
        out.extend_from_slice(&self.k.to_le_bytes());
        out.extend_from_slice(&(PARAMS as u32).to_le_bytes());
        for x in self.params.0.iter().chain(&self.m).chain(&self.v) {
            out.extend_from_slice(&x.to_le_bytes());
        }
        let sum = crate::files::fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a checkpoint, checking magic, size, parameter count and checksum.
    pub fn from_bytes(bytes: &[u8]) -> Result<FitState, String> {
        const HEAD: usize = 8 + 8 + 8 + 4;
        let expected = HEAD + 3 * PARAMS * 8 + 8;
        if bytes.len() < HEAD || bytes[..8] != CHECKPOINT_MAGIC {
            return Err("not a cubist tune checkpoint (no CUBTUNE1 magic)".into());
        }
        let count = u32::from_le_bytes([bytes[24], bytes[25], bytes[26], bytes[27]]) as usize;
        if count != PARAMS || bytes.len() != expected {
            return Err(format!(
                "a checkpoint of {count} parameters and {} bytes, where this build has {PARAMS} and {expected}",
                bytes.len()
            ));
        }
        let word = |i: usize| -> [u8; 8] { bytes[i..i + 8].try_into().unwrap_or_default() };
        if crate::files::fnv1a(&bytes[..expected - 8]) != u64::from_le_bytes(word(expected - 8)) {
            return Err("the checkpoint's checksum does not match (damaged)".into());
        }
        let floats: Vec<f64> = (0..3 * PARAMS).map(|j| f64::from_le_bytes(word(HEAD + 8 * j))).collect();
        Ok(FitState {
            epoch: u64::from_le_bytes(word(8)) as usize,
            k: f64::from_le_bytes(word(16)),
            params: Params(floats[..PARAMS].to_vec()),
            m: floats[PARAMS..2 * PARAMS].to_vec(),
            v: floats[2 * PARAMS..].to_vec(),
        })
    }
}

/// What `cubist tune` is asked for: the data and the game, the share held
/// out, the weight groups to fit, where the fitted weights go, a checkpoint
/// to carry on from, and the fit's settings.
#[derive(Clone, Debug)]
pub struct TuneJob {
    /// The data files to fit to.
    pub data: Vec<PathBuf>,
    /// The game whose weights are fitted.
    pub variant: VariantKind,
    /// The share of the positions held out (the last games), 0 to 0.9.
    pub validation: f64,
    /// The weight groups fitted (see [`select`]; `None`: all).
    pub fit: Option<Vec<String>>,
    /// The Rust source file written with the fitted weights (the checkpoint goes beside it).
    pub out: Option<PathBuf>,
    /// A checkpoint to carry on from.
    pub resume: Option<PathBuf>,
    /// A residual network to fit beneath (its output held fixed), and where
    /// to write it marked as trained on the fitted weights.
    pub under: Option<(PathBuf, PathBuf)>,
    /// The command line, recorded in the written source.
    pub command: Vec<String>,
    /// The fit's settings.
    pub config: TuneConfig,
}

impl TuneJob {
    /// Refuses settings out of range and an output folder that does not exist.
    fn check(&self) -> Result<(), LearnError> {
        let c = &self.config;
        let valid = (0.0..=1.0).contains(&c.lambda)
            && c.learning_rate > 0.0
            && c.learning_rate.is_finite()
            && c.l2 >= 0.0
            && c.l2.is_finite()
            && (0.0..0.9).contains(&self.validation);
        if !valid {
            return Err(LearnError::Settings(
                "--lambda must lie within 0..=1, --lr be positive, --l2 at least 0 and --validation within 0..0.9"
                    .into(),
            ));
        }
        match &self.out {
            Some(out) => check_out_folder(out),
            None => Ok(()),
        }
    }

    /// A new fit from `start`, or the checkpoint's when its `K` is this data's.
    fn state(&self, start: &Params, k: f64, log: &mut dyn Log) -> Result<FitState, LearnError> {
        let Some(path) = &self.resume else {
            return Ok(FitState::new(start, k));
        };
        let bytes = std::fs::read(path).map_err(|e| LearnError::file(path, e))?;
        let state = FitState::from_bytes(&bytes).map_err(|e| LearnError::file(path, e))?;
        if state.k != k {
            let message =
                format!("a checkpoint of K = {} where this data gives {k}: not the same data and settings", state.k);
            return Err(LearnError::file(path, message));
        }
        log.note(&format!("resuming after epoch {} of {}", state.epoch, path.display()));
        Ok(state)
    }
}

/// The table of material (placement tables averaged into it) and tempo, by hand and fitted.
fn material_table(kind: VariantKind, hand: &Weights, tuned: &Weights) -> String {
    let mut text =
        String::from("material (placement tables averaged into it)\nkind    hand mg  hand eg   tuned mg tuned eg\n");
    for k in PieceKind::ALL.iter().take(6) {
        if kind == VariantKind::Haberkorn && *k == PieceKind::Duke {
            continue;
        }
        let (h, t) = (hand.w[at::MATERIAL + k.index()], tuned.w[at::MATERIAL + k.index()]);
        text += &format!("{:<7} {:>7} {:>8}   {:>8} {:>8}\n", format!("{k:?}"), h.0, h.1, t.0, t.1);
    }
    text + &format!("tempo   {:>7}            {:>8}", hand.tempo, tuned.tempo)
}

/// `cubist tune`: fits the chosen weight groups of the game's linear
/// evaluation to the data (the last games held out), reporting the losses
/// every 100 epochs and the material before and after; with `out`, writes a
/// checkpoint beside it as it goes and the fitted weights as Rust source.
pub fn run(job: &TuneJob, log: &mut dyn Log) -> Result<(), LearnError> {
    job.check()?;
    let free = match &job.fit {
        Some(groups) => select(groups).map_err(LearnError::Settings)?,
        None => vec![true; PARAMS],
    };
    let kind = job.variant;
    let under = match &job.under {
        Some((path, net_out)) => {
            let net = Network::load(path).map_err(|e| LearnError::file(path, e))?;
            if net.game != kind || !net.residual {
                return Err(LearnError::file(path, format!("not a residual network of {kind}")));
            }
            log.note(&format!("fitting beneath the network {} (its output held fixed)", path.display()));
            Some((net, net_out))
        }
        None => None,
    };
    let samples = read_data(&job.data, log)?;
    let mut entries = prepare(&samples, kind, under.as_ref().map(|(net, _)| net));
    drop(samples);
    if entries.is_empty() {
        return Err(LearnError::NoPositions(kind));
    }
    // The last positions (whole games, as data sets are written game by game) are held out.
    let held = (entries.len() as f64 * job.validation) as usize;
    let valid = entries.split_off(entries.len() - held);
    let cfg = job.config;
    let start = Params::from_weights(weights(kind));
    let k = fit_k_to_results(&entries);
    let losses = |p: &Params| {
        let v =
            if valid.is_empty() { String::new() } else { format!("  held out {:.6}", loss(&valid, k, cfg.lambda, p)) };
        format!("loss {:.6}{v}", loss(&entries, k, cfg.lambda, p))
    };
    let before = losses(&start);
    let (fitted, held_n) = (entries.len(), valid.len());
    log.line(&format!(
        "{} positions of {kind} ({fitted} fitted, {held_n} held out), K = {k:.4}, {before}",
        fitted + held_n
    ));
    let ckpt = job.out.as_deref().map(checkpoint_path);
    let state = job.state(&start, k, log)?;
    let mut saving = Ok(());
    let params = fit_from(&entries, &start, &free, cfg, state, |s| {
        log.line(&format!("epoch {:>6}  {}", s.epoch, losses(&s.params)));
        if let (Some(path), Ok(())) = (&ckpt, &saving) {
            saving = write_atomically(path, &s.to_bytes()).map_err(|e| LearnError::file(path, e));
        }
    })
    .params;
    saving?;
    let after = losses(&params);
    let (hand, tuned) = (start.to_weights(), params.to_weights());
    log.line(&material_table(kind, &hand, &tuned));
    if let Some(out) = &job.out {
        let name = weights_name(kind);
        let files: Vec<String> = job.data.iter().map(|p| p.display().to_string()).collect();
        let text = format!(
            "// Generated by `cubist tune`: {} positions of {kind}, K = {k:.4}; {before} -> {after}.\n\
             // Data: {}\n// Command: {}\n\
             /// The evaluation weights of {kind}, fitted by `cubist tune`.\n{}",
            fitted + held_n,
            files.join(" "),
            job.command.join(" "),
            tuned.to_source(&name)
        );
        write_atomically(out, text.as_bytes()).map_err(|e| LearnError::file(out, e))?;
        log.note(&format!("wrote {}", out.display()));
    }
    if let Some((net, net_out)) = &under {
        write_atomically(net_out, &net.to_bytes_over(&tuned)).map_err(|e| LearnError::file(net_out, e))?;
        log.note(&format!("wrote {} (the network, marked as trained on the fitted weights)", net_out.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::weights::weights;

    /// Entries with random coefficients on a few parameters whose targets are exactly what `truth` predicts.
    fn synthetic(truth: &Params, used: &[usize], k: f64) -> Vec<Entry> {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..4000)
            .map(|_| {
                let coefficients = used
                    .iter()
                    .map(|&i| (i as u32, ((next() % 7) as f32 - 3.0) * (next() % 101) as f32 / 100.0))
                    .collect();
                let mut e = Entry { coefficients, result: 0.0, score: 0.0, offset: 0.0 };
                e.result = sigmoid(k, e.eval(&truth.0));
                e
            })
            .collect()
    }

    #[test]
    fn the_fit_recovers_known_weights() {
        let used = [2, 3, 10, 11, 40, TEMPO];
        let start = Params(vec![0.0; PARAMS]);
        let mut truth = start.clone();
        for (&i, v) in used.iter().zip([130.0, -40.0, 60.0, 85.0, -25.0, 12.0]) {
            truth.0[i] = v;
        }
        let entries = synthetic(&truth, &used, 1.0);
        let cfg = TuneConfig { epochs: 3000, learning_rate: 2.0, lambda: 1.0, l2: 0.0 };
        let before = loss(&entries, 1.0, 1.0, &start);
        let fitted = fit(&entries, 1.0, &start, &[true; PARAMS], cfg, |_, _| {});
        // Parameters left out stay where they were.
        let mut free = vec![true; PARAMS];
        free[10] = false;
        assert_eq!(fit(&entries, 1.0, &start, &free, cfg, |_, _| {}).0[10], 0.0);
        assert!(loss(&entries, 1.0, 1.0, &fitted) < before / 100.0);
        for &i in &used {
            assert!((fitted.0[i] - truth.0[i]).abs() < 3.0, "{i}: fitted {}, true {}", fitted.0[i], truth.0[i]);
        }
        // Parameters no entry uses do not move.
        assert_eq!(fitted.0[5], 0.0);
    }

    #[test]
    fn a_fit_resumed_from_its_checkpoint_ends_where_an_uninterrupted_one_does() {
        let used = [2, 3, 40, TEMPO];
        let start = Params(vec![0.0; PARAMS]);
        let mut truth = start.clone();
        for (&i, v) in used.iter().zip([130.0, -40.0, -25.0, 12.0]) {
            truth.0[i] = v;
        }
        let entries = synthetic(&truth, &used, 1.0);
        let cfg = TuneConfig { epochs: 500, learning_rate: 2.0, lambda: 1.0, l2: 1e-4 };
        let free = [true; PARAMS];
        let whole = fit_from(&entries, &start, &free, cfg, FitState::new(&start, 1.0), |_| {});
        assert_eq!(whole.epoch, 500);
        // Stopped after 200 epochs, its checkpoint saved, read back and carried on.
        let mut saved = Vec::new();
        let first = TuneConfig { epochs: 200, ..cfg };
        fit_from(&entries, &start, &free, first, FitState::new(&start, 1.0), |s| saved = s.to_bytes());
        let state = FitState::from_bytes(&saved).unwrap();
        assert_eq!(state.epoch, 200);
        let resumed = fit_from(&entries, &start, &free, cfg, state, |_| {});
        assert_eq!(resumed.epoch, whole.epoch);
        // The parallel gradient sums in any order, so the last bits may differ between any two runs.
        for (a, b) in resumed.params.0.iter().zip(&whole.params.0) {
            assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} against {b}");
        }
        // Damaged or foreign files are refused.
        let mut bad = saved.clone();
        bad[40] ^= 1;
        assert!(FitState::from_bytes(&bad).unwrap_err().contains("checksum"));
        assert!(FitState::from_bytes(&saved[..saved.len() - 1]).is_err());
        assert!(FitState::from_bytes(b"CUBNNUE1 and more").unwrap_err().contains("magic"));
    }

    #[test]
    fn groups_select_their_parameters() {
        let free = select(&["mobility".into(), "king-attack".into(), "tempo".into()]).unwrap();
        assert!(free[2 * at::MOBILITY] && free[2 * at::KING_ATTACK + 13] && free[TEMPO]);
        assert!(!free[2 * at::MATERIAL] && !free[2 * at::OPEN_LINE]);
        assert_eq!(free.iter().filter(|&&f| f).count(), 4 * 7 + 1);
        assert!(select(&["placement".into()]).unwrap_err().contains("unknown weight group \"placement\""));
    }

    #[test]
    fn k_is_found_where_the_targets_were_made() {
        let used = [2, 3, 10];
        let mut truth = Params(vec![0.0; PARAMS]);
        truth.0[2] = 100.0;
        truth.0[3] = 50.0;
        truth.0[10] = -70.0;
        let entries = synthetic(&truth, &used, 1.3);
        let k = golden_k(|k| loss(&entries, k, 1.0, &truth));
        assert!((k - 1.3).abs() < 0.02, "{k}");
        // Scores whose expected results are the results: K is where they were made,
        // whatever the evaluation (here all zero: fitted to it, K would run to its floor).
        let scored: Vec<Entry> =
            entries.iter().map(|e| Entry { score: e.eval(&truth.0), coefficients: Vec::new(), ..e.clone() }).collect();
        let k = fit_k_to_results(&scored);
        assert!((k - 1.3).abs() < 0.02, "{k}");
    }

    #[test]
    fn weights_survive_the_round_trip_and_tables_average_zero() {
        for kind in [VariantKind::Hdc, VariantKind::Haberkorn] {
            let w = weights(kind);
            let back = Params::from_weights(w).to_weights();
            // Only the placement constants move, into the material: every evaluation stays (up to rounding).
            assert_eq!(back.tempo, w.tempo);
            assert_eq!(back.w[at::MOBILITY..], w.w[at::MOBILITY..]);
            let knight = PieceKind::Knight.index();
            let files: i32 = (0..4).map(|d| back.w[at::FILE + 4 * knight + d].0).sum();
            assert!(files.abs() <= 2, "{files}");
            // Once averaged, the tables stay put; a material value may still
            // move by the rounding of an average (a centipawn).
            let again = Params::from_weights(&back).to_weights();
            assert_eq!(again.w[at::FILE..], back.w[at::FILE..]);
            for (a, b) in again.w.iter().zip(&back.w) {
                assert!((a.0 - b.0).abs() <= 1 && (a.1 - b.1).abs() <= 1, "{a:?} against {b:?}");
            }
        }
    }

    #[test]
    fn prepared_entries_evaluate_as_the_engine_does() {
        use crate::core::{Position, Variant};
        use crate::eval::evaluate;
        let mut pos = Position::start(Variant::haberkorn());
        for mv in ["e2-IVe4-IV", "e7-Ve5-V"] {
            pos.play(mv).unwrap();
        }
        let p = Params::from_weights(weights(VariantKind::Haberkorn));
        for pos in [pos.clone(), {
            let mut b = pos.clone();
            let m = b.legal_moves().into_iter().next().unwrap();
            b.make(m);
            b
        }] {
            let e = prepare(&[Sample { position: pos.clone(), score: 20, result: 1.0 }], VariantKind::Haberkorn, None);
            assert_eq!(e.len(), 1);
            let stm = evaluate(&pos) as f64;
            let white = if pos.side_to_move() == Color::White { stm } else { -stm };
            // The engine rounds the phase blend down; the fit does not.
            assert!((e[0].eval(&p.0) - white).abs() <= 1.0, "{} vs {white}", e[0].eval(&p.0));
        }
        assert!(prepare(&[Sample { position: pos, score: 0, result: 0.5 }], VariantKind::Hdc, None).is_empty());
    }

    #[test]
    fn entries_beneath_a_network_evaluate_as_the_network_does() {
        use crate::core::{Position, Variant};
        use crate::eval::Networks;
        use crate::eval::nnue::NetError;
        let nets = Networks::builtin();
        let net = nets.get(VariantKind::Hdc).expect("a built-in hdc network");
        assert!(net.residual);
        let mut pos = Position::start(Variant::hdc());
        let p = Params::from_weights(weights(VariantKind::Hdc));
        for _ in 0..6 {
            let e = prepare(&[Sample { position: pos.clone(), score: 0, result: 0.5 }], VariantKind::Hdc, Some(net));
            let stm = net.evaluate(&pos) as f64;
            let white = if pos.side_to_move() == Color::White { stm } else { -stm };
            assert!((e[0].eval(&p.0) - white).abs() <= 1.0, "{} vs {white}", e[0].eval(&p.0));
            let m = pos.legal_moves().into_iter().nth(7).unwrap();
            pos.make(m);
        }
        // Marked for other linear weights, the file is refused by this build;
        // marked for this build's, it is the network's own file.
        let mut other = weights(VariantKind::Hdc).clone();
        other.tempo += 1;
        assert!(matches!(Network::from_bytes(&net.to_bytes_over(&other)), Err(NetError::Linear { .. })));
        assert_eq!(net.to_bytes_over(weights(VariantKind::Hdc)), net.to_bytes());
    }
}
