//! `cubist train`: fits an evaluation network ([`crate::eval::nnue`]) of
//! one game to self-play data.
//!
//! The model is the network in floating point: a sparse first layer (each
//! position activates one row per piece and perspective), a squared clipped
//! ReLU, one output. The output times [`SCALE`](super::model::SCALE) is a score in centipawns;
//! the loss is the squared distance between `sigmoid(score / K)` and a
//! target that blends the game's result (weight λ) with the search's score
//! through the same sigmoid. `K` is fitted once to the data (the scale at
//! which search scores best predict results), so that the result and the
//! score share one scale, and the linear evaluation's loss under the same
//! `K` and λ is reported beside the network's for comparison.
//!
//! Mini-batches are cut into a fixed number of chunks whose gradients are
//! computed in parallel (rayon) and added in a fixed order, so a run is a
//! function of its data, settings and seed whatever the thread count.
//! With `residual` the network's output is added to the linear
//! evaluation's score before the sigmoid: it starts as the linear
//! evaluation (output weights zero) and learns only what that misses.
//!
//! AdamW; the learning rate falls along a cosine to a twentieth. After each
//! epoch the quantised network and a checkpoint (model and optimiser state)
//! are written, each atomically (a temporary file renamed over the old one);
//! `--resume` carries on from a checkpoint.

use super::dataset::{Augment, Dataset, ROWS};
use super::driver::{LearnError, Log, check_out_folder, checkpoint_path};
use super::model::{Blend, CHUNKS, Grads, Model, fit_k, linear_loss, loss, mean_with_linear_loss, step};
use super::optimiser::Optimiser;
use crate::core::VariantKind;
use crate::eval::nnue::Network;
use crate::files::{fnv1a, write_atomically};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::Instant;

/// What `cubist train` runs.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// Neurons of the hidden layer.
    pub hidden: usize,
    /// Passes over the training positions.
    pub epochs: usize,
    /// Positions per optimiser step.
    pub batch: usize,
    /// AdamW's step size at the start.
    pub lr: f32,
    /// AdamW's weight decay.
    pub weight_decay: f32,
    /// Weight of the game result in the target (the rest: the search score).
    pub lambda: f32,
    /// Share of the training target taken from the linear evaluation (the
    /// teacher), 0 to 1; the held-out loss always measures the plain target.
    pub teacher: f32,
    /// The seed of the initial weights and the shuffles.
    pub seed: u64,
    /// Whether the network's output is added to the linear evaluation (a residual network).
    pub residual: bool,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            hidden: 64,
            epochs: 20,
            batch: 16384,
            lr: 0.001,
            weight_decay: 0.01,
            lambda: 0.5,
            teacher: 0.0,
            seed: 1,
            residual: false,
        }
    }
}

/// A training run's state between epochs: what a checkpoint holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Trainer {
    /// The model.
    pub model: Model,
    /// The optimiser's state.
    pub opt: Optimiser,
    /// Epochs done.
    pub epoch: usize,
    /// The sigmoid scale in centipawns.
    pub k: f32,
}

/// The first eight bytes of a checkpoint file (then hidden size, epoch,
/// optimiser steps and flags, bit 0 residual, each a u64).
const CHECKPOINT_MAGIC: [u8; 8] = *b"CUBCKPT2";
/// The magic of the checkpoints before residual networks (no flags word).
const CHECKPOINT_MAGIC_1: [u8; 8] = *b"CUBCKPT1";

impl Trainer {
    /// A fresh run.
    pub fn new(cfg: &TrainConfig, k: f32) -> Trainer {
        let model = Model::new(cfg.hidden, cfg.seed, cfg.residual);
        let opt = Optimiser::new(&model);
        Trainer { model, opt, epoch: 0, k }
    }

    /// A fresh run that starts from `net`'s weights (fine-tuning), widened
    /// to `hidden` neurons where the network has fewer ([`Model::widen`]).
    pub fn from_network(net: &Network, k: f32, hidden: usize, seed: u64) -> Trainer {
        let mut model = Model::from_network(net);
        if hidden > model.hidden {
            model = model.widen(hidden, seed);
        }
        let opt = Optimiser::new(&model);
        Trainer { model, opt, epoch: 0, k }
    }

    /// One pass over `data`; returns the mean training loss.
    pub fn epoch(&mut self, cfg: &TrainConfig, data: &Dataset) -> f64 {
        let mut order: Vec<u32> = (0..data.len() as u32).collect();
        order.shuffle(&mut StdRng::seed_from_u64(cfg.seed ^ (self.epoch as u64 + 1).wrapping_mul(0x9E37_79B9)));
        let progress = self.epoch as f32 / cfg.epochs.max(1) as f32;
        let lr = cfg.lr * (0.05 + 0.95 * 0.5 * (1.0 + (std::f32::consts::PI * progress).cos()));
        let h = self.model.hidden;
        let mut chunks: Vec<Grads> = (0..CHUNKS).map(|_| Grads::new(h)).collect();
        let mut total = 0.0;
        let blend = Blend { lambda: cfg.lambda, teacher: cfg.teacher };
        for batch in order.chunks(cfg.batch.max(1)) {
            let per = batch.len().div_ceil(CHUNKS);
            let model = &self.model;
            chunks.par_iter_mut().enumerate().for_each(|(c, g)| {
                g.clear();
                let mut acc = vec![0.0; 2 * h];
                for &i in batch.iter().skip(c * per).take(per) {
                    let e = &data.entries[i as usize];
                    g.loss += step(model, data, e, self.k, blend, &mut acc, Some(g));
                }
            });
            let (first, rest) = chunks.split_at_mut(1);
            let sum = &mut first[0];
            for g in rest.iter() {
                sum.w1.par_chunks_mut(4096).zip(g.w1.par_chunks(4096)).for_each(|(a, b)| {
                    for (x, y) in a.iter_mut().zip(b) {
                        *x += y;
                    }
                });
                for (x, y) in sum.b1.iter_mut().zip(&g.b1) {
                    *x += y;
                }
                for (x, y) in sum.w2.iter_mut().zip(&g.w2) {
                    *x += y;
                }
                sum.b2 += g.b2;
                sum.loss += g.loss;
            }
            total += sum.loss;
            self.opt.apply(&mut self.model, sum, batch.len(), lr, cfg.weight_decay);
        }
        self.epoch += 1;
        total / data.len().max(1) as f64
    }

    /// The checkpoint's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = CHECKPOINT_MAGIC.to_vec();
        for n in [self.model.hidden as u64, self.epoch as u64, u64::from(self.opt.t), u64::from(self.model.residual)] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        let floats = [self.k, self.model.b2, self.opt.m_b2, self.opt.v_b2];
        let slices: Vec<&[f32]> = [&floats[..], &self.model.w1, &self.model.b1, &self.model.w2]
            .into_iter()
            .chain(self.opt.m.iter().map(Vec::as_slice))
            .chain(self.opt.v.iter().map(Vec::as_slice))
            .collect();
        for s in slices {
            for x in s {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a checkpoint written by [`Trainer::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Trainer, String> {
        let words = if bytes.starts_with(&CHECKPOINT_MAGIC) {
            4
        } else if bytes.starts_with(&CHECKPOINT_MAGIC_1) {
            3
        } else {
            return Err("not a Cubist training checkpoint".into());
        };
        if bytes.len() < CHECKPOINT_MAGIC.len() + 8 * words + 8 {
            return Err("the checkpoint is cut short".into());
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if fnv1a(body) != u64::from_le_bytes(sum.try_into().unwrap_or_default()) {
            return Err("the checkpoint's checksum does not match (damaged or cut short)".into());
        }
        let rest = &body[CHECKPOINT_MAGIC.len()..];
        let word = |i: usize| u64::from_le_bytes(rest[8 * i..8 * i + 8].try_into().unwrap_or_default());
        let (hidden, epoch, t) = (word(0) as usize, word(1) as usize, word(2));
        let residual = match if words == 4 { word(3) } else { 0 } {
            0 => false,
            1 => true,
            flags => return Err(format!("unknown checkpoint flags {flags}")),
        };
        if hidden == 0 || hidden > crate::eval::nnue::MAX_HIDDEN {
            return Err(format!("a hidden layer of {hidden}"));
        }
        // Adam's step count feeds powi: far below i32's range in any real run.
        let t = u32::try_from(t).ok().filter(|&t| t < 1 << 30).ok_or(format!("an optimiser step count of {t}"))?;
        let sizes = [ROWS * hidden, hidden, 2 * hidden];
        let count = 4 + 3 * sizes.iter().sum::<usize>();
        let floats = &rest[8 * words..];
        if floats.len() != 4 * count {
            return Err(format!("the checkpoint holds {} bytes where {} are needed", floats.len(), 4 * count));
        }
        let mut values = floats.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        let mut take = |n: usize| values.by_ref().take(n).collect::<Vec<f32>>();
        let head = take(4);
        if !(head[0].is_finite() && head[0] > 0.0) {
            return Err(format!("a sigmoid scale K of {}", head[0]));
        }
        let (w1, b1, w2) = (take(sizes[0]), take(sizes[1]), take(sizes[2]));
        let m = sizes.iter().map(|&n| take(n)).collect();
        let v = sizes.iter().map(|&n| take(n)).collect();
        if !head.iter().chain(&w1).chain(&b1).chain(&w2).all(|x| x.is_finite()) {
            return Err("the checkpoint holds a weight that is not a number".into());
        }
        Ok(Trainer {
            model: Model { hidden, w1, b1, w2, b2: head[1], residual },
            opt: Optimiser { m, v, m_b2: head[2], v_b2: head[3], t },
            epoch,
            k: head[0],
        })
    }
}

/// What `cubist train` is asked for: the data and the game, the held-out
/// positions, the output, a checkpoint to carry on from, and the run's settings.
#[derive(Clone, Debug)]
pub struct TrainJob {
    /// The data files to learn from.
    pub data: Vec<PathBuf>,
    /// Data files held out to measure the loss (empty: a share of `data`).
    pub held_out: Vec<PathBuf>,
    /// The game whose positions are learnt.
    pub variant: VariantKind,
    /// What is added to each training position: random children, symmetric images (its seed is
    /// not read: the run's, `config.seed`, chooses).
    pub augment: Augment,
    /// The share of the training positions held out when `held_out` is empty (0 to 0.9).
    pub validation: f64,
    /// The network written (the checkpoint goes beside it).
    pub out: PathBuf,
    /// A checkpoint to carry on from.
    pub resume: Option<PathBuf>,
    /// A network file to start from instead of random weights (not with `resume`).
    pub init: Option<PathBuf>,
    /// The model and optimiser settings.
    pub config: TrainConfig,
}

/// What a finished `cubist train` wrote.
#[derive(Clone, Debug)]
pub struct TrainOutcome {
    /// The loss of the epoch written (held out, or training without a held-out set).
    pub best_loss: f64,
    /// The checkpoint of the last epoch.
    pub checkpoint: PathBuf,
}

impl TrainJob {
    /// Refuses settings out of range and an output folder that does not exist.
    fn check(&self) -> Result<(), LearnError> {
        let c = &self.config;
        let valid = (0.0..=1.0).contains(&c.lambda)
            && (0.0..=1.0).contains(&c.teacher)
            && c.lr > 0.0
            && c.lr.is_finite()
            && c.weight_decay >= 0.0
            && c.weight_decay.is_finite()
            && (0.0..0.9).contains(&self.validation);
        if !valid {
            return Err(LearnError::Settings(
                "--lambda and --teacher must lie within 0..=1, --lr be positive, --weight-decay at least 0 and \
                 --validation within 0..0.9"
                    .into(),
            ));
        }
        check_out_folder(&self.out)
    }

    /// The training and held-out positions.
    fn datasets(&self, log: &mut dyn Log) -> Result<(Dataset, Dataset), LearnError> {
        let augment = Augment { seed: self.config.seed, ..self.augment };
        let mut train = Dataset::read(&self.data, self.variant, augment, log)?;
        if train.is_empty() {
            return Err(LearnError::NoPositions(self.variant));
        }
        let valid = if self.held_out.is_empty() {
            train.split_off(self.validation)
        } else {
            Dataset::read(&self.held_out, self.variant, Augment::default(), log)?
        };
        Ok((train, valid))
    }

    /// A new trainer (from random weights or the `init` network), or the
    /// checkpoint's, when it fits the settings.
    fn trainer(&self, train: &Dataset) -> Result<Trainer, LearnError> {
        let (path, t) = match (&self.resume, &self.init) {
            (Some(_), Some(_)) => {
                return Err(LearnError::Settings("--resume and --init exclude each other".into()));
            }
            (Some(path), None) => {
                let bytes = std::fs::read(path).map_err(|e| LearnError::file(path, e))?;
                (path, Trainer::from_bytes(&bytes).map_err(|e| LearnError::file(path, e))?)
            }
            (None, Some(path)) => {
                let net = Network::load(path).map_err(|e| LearnError::file(path, e))?;
                if net.game != self.variant {
                    return Err(LearnError::file(path, format!("a network of {}, not {}", net.game, self.variant)));
                }
                // A wider network than --hidden is not narrowed: the size check below refuses it.
                (path, Trainer::from_network(&net, fit_k(train), self.config.hidden, self.config.seed))
            }
            (None, None) => return Ok(Trainer::new(&self.config, fit_k(train))),
        };
        let what = if self.resume.is_some() { "checkpoint" } else { "file" };
        if t.model.residual != self.config.residual {
            let kind = if t.model.residual { "residual" } else { "plain" };
            let not = if t.model.residual { "" } else { "not " };
            return Err(LearnError::file(path, format!("a {kind} network's {what}; --residual must {not}be given")));
        }
        if t.model.hidden != self.config.hidden {
            let message = format!("a hidden layer of {}, not --hidden {}", t.model.hidden, self.config.hidden);
            return Err(LearnError::file(path, message));
        }
        Ok(t)
    }
}

/// `cubist train`: trains up to the configured epochs (from the checkpoint
/// when resuming), writes the network of the epoch with the lowest held-out
/// loss (the last one without a held-out set) to `out` and a checkpoint of
/// each epoch beside it, each atomically; one line per epoch to `log`, and
/// a progress bar on a terminal.
pub fn run(job: &TrainJob, log: &mut dyn Log) -> Result<TrainOutcome, LearnError> {
    job.check()?;
    let cfg = &job.config;
    let (train, valid) = job.datasets(log)?;
    let mut trainer = job.trainer(&train)?;
    let k = trainer.k;
    // Held out, the loss is also shown against the search's scores alone and the results alone (λ = 0 and 1),
    // so that runs of different λ compare.
    let held_linear = if valid.is_empty() {
        String::new()
    } else {
        let (scores, results) = (linear_loss(&valid, k, 0.0), linear_loss(&valid, k, 1.0));
        format!("  held out {:.6} (scores {scores:.6}, results {results:.6})", linear_loss(&valid, k, cfg.lambda))
    };
    log.line(&format!(
        "{} positions of {} ({} held out), K = {k:.1}; linear evaluation: loss {:.6}{held_linear}",
        train.len() + valid.len(),
        job.variant,
        valid.len(),
        linear_loss(&train, k, cfg.lambda),
    ));
    if let Some(init) = job.init.as_ref().filter(|_| !valid.is_empty()) {
        let m = &trainer.model;
        let (scores, results) = (loss(m, &valid, k, 0.0), loss(m, &valid, k, 1.0));
        log.line(&format!(
            "starting network {}: held out {:.6} (scores {scores:.6}, results {results:.6})",
            init.display(),
            loss(m, &valid, k, cfg.lambda)
        ));
    }
    let bar = indicatif::ProgressBar::new(cfg.epochs as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] epoch {pos}/{len} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_position(trainer.epoch as u64);
    let checkpoint = checkpoint_path(&job.out);
    let mut best = f64::INFINITY;
    while trainer.epoch < cfg.epochs {
        let start = Instant::now();
        let train_loss = trainer.epoch(cfg, &train);
        let held = (!valid.is_empty()).then(|| loss(&trainer.model, &valid, k, cfg.lambda));
        let rate = train.len() as f64 / start.elapsed().as_secs_f64().max(1e-9);
        let shown = held.map_or(String::new(), |h| {
            let mean = mean_with_linear_loss(&trainer.model, &valid, k, cfg.lambda);
            let (scores, results) = (loss(&trainer.model, &valid, k, 0.0), loss(&trainer.model, &valid, k, 1.0));
            format!("  held out {h:.6} (scores {scores:.6}, results {results:.6}; mean with linear {mean:.6})")
        });
        let epoch = trainer.epoch;
        bar.suspend(|| log.line(&format!("epoch {epoch:4}  loss {train_loss:.6}{shown}  ({rate:.0} positions/s)")));
        bar.set_position(trainer.epoch as u64);
        let score = held.unwrap_or(train_loss);
        if score <= best || held.is_none() {
            best = score;
            let net = trainer.model.quantise(job.variant);
            write_atomically(&job.out, &net.to_bytes()).map_err(|e| LearnError::file(&job.out, e))?;
        }
        write_atomically(&checkpoint, &trainer.to_bytes()).map_err(|e| LearnError::file(&checkpoint, e))?;
    }
    bar.finish_and_clear();
    log.note(&format!(
        "network of the best epoch (loss {best:.6}) written to {}; checkpoint of the last epoch: {}",
        job.out.display(),
        checkpoint.display()
    ));
    Ok(TrainOutcome { best_loss: best, checkpoint })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Color, Position, Variant};
    use crate::learn::data::Sample;
    use crate::learn::dataset::Entry;
    use crate::learn::model::{sigmoid, target};
    use rand::seq::IndexedRandom;

    /// Positions of random haberkorn games on 5 layers, scored by the linear
    /// evaluation (a target the network can learn) with a result that agrees.
    fn samples(n: usize, seed: u64) -> Vec<Sample> {
        let v = Variant::haberkorn_with(5, 2, 4, false, false).unwrap();
        let mut rng = StdRng::seed_from_u64(seed);
        let mut out = Vec::new();
        while out.len() < n {
            let mut pos = Position::start(v);
            for _ in 0..40 {
                let moves = pos.legal_moves();
                let Some(&m) = moves.choose(&mut rng) else { break };
                pos.make(m);
                let stm = crate::eval::evaluate(&pos);
                let white = if pos.side_to_move() == Color::White { stm } else { -stm };
                out.push(Sample { position: pos.clone(), score: white, result: sigmoid(white as f32 / 300.0).round() });
            }
        }
        out.truncate(n);
        out
    }

    fn config() -> TrainConfig {
        TrainConfig { hidden: 8, epochs: 6, batch: 64, lr: 0.01, ..TrainConfig::default() }
    }

    #[test]
    fn a_set_appended_piece_by_piece_is_the_set_made_at_once() {
        let games = samples(300, 5);
        let whole =
            Dataset::augmented(&games, VariantKind::Haberkorn, Augment { children: 2, seed: 9, ..Augment::default() });
        let mut pieces = Dataset::default();
        let mut next = 0;
        for piece in games.chunks(37) {
            next = pieces.append(
                piece,
                VariantKind::Haberkorn,
                Augment { children: 2, seed: 9, ..Augment::default() },
                next,
            );
        }
        assert_eq!(next, 300);
        assert!(whole.len() > 300, "the children are there: {}", whole.len());
        assert_eq!(pieces.inputs, whole.inputs);
        let fields =
            |e: &Entry| (e.start, e.count, e.score.to_bits(), e.result.to_bits(), e.linear.to_bits(), e.taught);
        let a: Vec<_> = pieces.entries.iter().map(fields).collect();
        let b: Vec<_> = whole.entries.iter().map(fields).collect();
        assert_eq!(a, b);
    }

    #[test]
    fn training_lowers_the_loss_and_repeats_for_a_seed() {
        let data = Dataset::new(&samples(600, 1), VariantKind::Haberkorn);
        assert_eq!(data.len(), 600);
        let cfg = config();
        let k = fit_k(&data);
        assert!((50.0..=3000.0).contains(&k));
        let mut a = Trainer::new(&cfg, k);
        let before = loss(&a.model, &data, k, cfg.lambda);
        for _ in 0..cfg.epochs {
            a.epoch(&cfg, &data);
        }
        let after = loss(&a.model, &data, k, cfg.lambda);
        assert!(after < before * 0.7, "{before} -> {after}");
        let mut b = Trainer::new(&cfg, k);
        for _ in 0..cfg.epochs {
            b.epoch(&cfg, &data);
        }
        assert_eq!(a, b);
        // Another thread count gives the same model: the batch's chunks are fixed.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let c = pool.install(|| {
            let mut c = Trainer::new(&cfg, k);
            for _ in 0..cfg.epochs {
                c.epoch(&cfg, &data);
            }
            c
        });
        assert_eq!(a, c);
        // A checkpoint brings the run back exactly.
        assert_eq!(Trainer::from_bytes(&a.to_bytes()), Ok(a.clone()));
        assert!(Trainer::from_bytes(b"CUBCKPT1 short").is_err());
    }

    #[test]
    fn symmetric_images_keep_their_position_s_targets() {
        let games = samples(150, 4);
        let plain = Dataset::new(&games, VariantKind::Haberkorn);
        let augment = Augment { symmetries: 3, seed: 5, ..Augment::default() };
        let more = Dataset::augmented(&games, VariantKind::Haberkorn, augment);
        // Haberkorn has 3 maps besides the identity, each applied to every position.
        assert_eq!(more.len(), 4 * plain.len());
        for (i, e) in plain.entries.iter().enumerate() {
            let images = &more.entries[4 * i..4 * i + 4];
            assert!(images.iter().all(|m| (m.score, m.result, m.taught) == (e.score, e.result, false)));
            // The same pieces: as many inputs, and the first is the position itself.
            assert!(images.iter().all(|m| m.count == e.count));
            assert_eq!(more.lists(&images[0]), plain.lists(e));
        }
        // An image is another position (the inputs move), except for a symmetric one.
        let moved =
            (0..plain.len()).filter(|&i| more.lists(&more.entries[4 * i + 1]) != plain.lists(&plain.entries[i]));
        assert!(moved.count() > plain.len() / 2);
        // One of them, chosen by the seed.
        let one = Dataset::augmented(&games, VariantKind::Haberkorn, Augment { symmetries: 1, ..augment });
        assert_eq!(one.len(), 2 * plain.len());
        assert_eq!(one.real().count(), one.len());
    }

    #[test]
    fn augmented_positions_are_taught_by_the_linear_evaluation_alone() {
        let games = samples(200, 3);
        let plain = Dataset::new(&games, VariantKind::Haberkorn);
        let more =
            Dataset::augmented(&games, VariantKind::Haberkorn, Augment { children: 2, seed: 7, ..Augment::default() });
        // Each game position is followed by its children (none only when the game ends first).
        assert!(more.len() > 2 * plain.len() && more.len() <= 3 * plain.len(), "{}", more.len());
        assert_eq!(more.real().count(), plain.len());
        // The same seed makes the same children, another seed others.
        let again =
            Dataset::augmented(&games, VariantKind::Haberkorn, Augment { children: 2, seed: 7, ..Augment::default() });
        assert_eq!(again.inputs, more.inputs);
        assert_ne!(
            Dataset::augmented(&games, VariantKind::Haberkorn, Augment { children: 2, seed: 8, ..Augment::default() })
                .inputs,
            more.inputs
        );
        // K, the linear loss and the model's loss see the game positions only.
        let k = fit_k(&plain);
        assert_eq!(fit_k(&more), k);
        assert_eq!(linear_loss(&more, k, 0.5), linear_loss(&plain, k, 0.5));
        let model = Trainer::new(&config(), k).model;
        assert_eq!(loss(&model, &more, k, 0.5), loss(&model, &plain, k, 0.5));
        // A taught entry's target is the linear evaluation's prediction, whatever the blend.
        let e = more.entries.iter().find(|e| e.taught).unwrap();
        for blend in [Blend::plain(0.0), Blend::plain(1.0), Blend { lambda: 0.3, teacher: 0.4 }] {
            assert_eq!(target(e, k, blend), sigmoid(e.linear / k));
        }
        // A game entry's target moves toward the teacher by the teacher's share.
        let g = more.entries.iter().find(|e| !e.taught).unwrap();
        let t = Blend { lambda: 0.5, teacher: 0.25 };
        let expected = 0.75 * target(g, k, Blend::plain(0.5)) + 0.25 * sigmoid(g.linear / k);
        assert!((target(g, k, t) - expected).abs() < 1e-6);
    }

    #[test]
    fn a_network_taught_by_the_linear_evaluation_nears_it() {
        // Targets from the teacher alone: training brings the model's
        // predictions nearer the linear evaluation's, though the games'
        // scores and results here say the opposite of it.
        let mut games = samples(400, 4);
        for s in &mut games {
            s.score = -s.score;
            s.result = 1.0 - s.result;
        }
        let data =
            Dataset::augmented(&games, VariantKind::Haberkorn, Augment { children: 1, seed: 1, ..Augment::default() });
        let cfg = TrainConfig { teacher: 1.0, ..config() };
        let k = fit_k(&data);
        let mut t = Trainer::new(&cfg, k);
        let gap = |m: &Model| -> f64 {
            // Both in the side to move's view.
            games
                .iter()
                .map(|s| {
                    let linear = crate::eval::evaluate(&s.position) as f32;
                    f64::from((sigmoid(m.evaluate(&s.position) / k) - sigmoid(linear / k)).abs())
                })
                .sum::<f64>()
                / games.len() as f64
        };
        let before = gap(&t.model);
        for _ in 0..cfg.epochs {
            t.epoch(&cfg, &data);
        }
        let after = gap(&t.model);
        assert!(after < before * 0.7, "{before} -> {after}");
    }

    /// A residual haberkorn network trained one epoch on `samples(300, seed)`:
    /// the data, the settings, the trainer and the network it quantises to.
    fn one_epoch_network(seed: u64) -> (Dataset, TrainConfig, Trainer, Network) {
        let data = Dataset::new(&samples(300, seed), VariantKind::Haberkorn);
        let mut cfg = config();
        cfg.residual = true;
        let mut t = Trainer::new(&cfg, fit_k(&data));
        t.epoch(&cfg, &data);
        let net = t.model.quantise(VariantKind::Haberkorn);
        (data, cfg, t, net)
    }

    #[test]
    fn a_network_read_back_as_a_model_quantises_to_itself() {
        let (data, cfg, t, net) = one_epoch_network(5);
        let back = Model::from_network(&net);
        assert_eq!(back.quantise(VariantKind::Haberkorn), net);
        // It scores as the network does (its integer sums round a little),
        // and training goes on from there.
        for s in samples(50, 6) {
            let (float, int) = (back.evaluate(&s.position), net.evaluate(&s.position) as f32);
            assert!((float - int).abs() <= 3.0, "{float} against {int}");
        }
        let mut fine = Trainer::from_network(&net, t.k, cfg.hidden, cfg.seed);
        let before = loss(&fine.model, &data, fine.k, cfg.lambda);
        fine.epoch(&cfg, &data);
        assert!(loss(&fine.model, &data, fine.k, cfg.lambda) < before);
    }

    #[test]
    fn a_widened_network_scores_as_before_and_trains_on() {
        let (data, cfg, t, net) = one_epoch_network(7);
        let narrow = Model::from_network(&net);
        let mut wide = Trainer::from_network(&net, t.k, 2 * cfg.hidden, cfg.seed);
        assert_eq!(wide.model.hidden, 2 * cfg.hidden);
        assert_ne!(wide.model.w1, Model::from_network(&net).widen(2 * cfg.hidden, cfg.seed + 1).w1, "seeded");
        for s in samples(50, 8) {
            let (a, b) = (narrow.evaluate(&s.position), wide.model.evaluate(&s.position));
            assert!((a - b).abs() < 1e-3, "{a} against {b}");
        }
        let mut wide_cfg = cfg.clone();
        wide_cfg.hidden *= 2;
        let before = loss(&wide.model, &data, wide.k, cfg.lambda);
        wide.epoch(&wide_cfg, &data);
        assert!(loss(&wide.model, &data, wide.k, cfg.lambda) < before);
        // The new neurons learnt something: their output weights left zero.
        let h = wide.model.hidden;
        assert!(wide.model.w2[cfg.hidden..h].iter().any(|&w| w != 0.0));
    }

    #[test]
    fn the_quantised_network_follows_the_float_model() {
        let data = samples(300, 2);
        let cfg = config();
        let mut t = Trainer::new(&cfg, 400.0);
        let set = Dataset::new(&data, VariantKind::Haberkorn);
        for _ in 0..3 {
            t.epoch(&cfg, &set);
        }
        let net = t.model.quantise(VariantKind::Haberkorn);
        let errors: Vec<f32> = data
            .iter()
            .take(100)
            .map(|s| (t.model.evaluate(&s.position) - net.evaluate(&s.position) as f32).abs())
            .collect();
        let mean = errors.iter().sum::<f32>() / errors.len() as f32;
        let max = errors.iter().copied().fold(0.0, f32::max);
        // First-layer weights rounded to 1/255, output weights to 1/64 (each
        // step worth up to 400/64 centipawns at a saturated neuron): within 8 on
        // average and 20 at most, at a hidden size of 8.
        assert!(mean <= 8.0 && max <= 20.0, "mean {mean}, max {max}");
    }

    #[test]
    fn a_residual_network_starts_as_the_linear_evaluation_and_improves_on_it() {
        // Scores the linear evaluation gets wrong by a piece-square pattern
        // (a bonus for the side to move per own piece on an odd file):
        // the residual network learns the difference.
        let mut games = samples(800, 6);
        for s in &mut games {
            let pos = &s.position;
            let mine = pos.color_pieces(pos.side_to_move()).into_iter().filter(|sq| sq.index() & 1 == 1).count() as i32;
            let stm = crate::eval::evaluate(pos) + 40 * mine;
            let white = if pos.side_to_move() == Color::White { stm } else { -stm };
            s.score = white;
        }
        let data = Dataset::new(&games, VariantKind::Haberkorn);
        let cfg = TrainConfig { residual: true, lambda: 0.0, ..config() };
        let k = fit_k(&data);
        let mut t = Trainer::new(&cfg, k);
        let start = loss(&t.model, &data, k, 0.0);
        assert!((start - linear_loss(&data, k, 0.0)).abs() < 1e-12, "{start}");
        let pos = &games[0].position;
        assert_eq!(t.model.evaluate(pos), crate::eval::evaluate(pos) as f32);
        for _ in 0..cfg.epochs {
            t.epoch(&cfg, &data);
        }
        let after = loss(&t.model, &data, k, 0.0);
        assert!(after < start * 0.7, "{start} -> {after}");
        // The quantised network is residual too and follows the model.
        let net = t.model.quantise(VariantKind::Haberkorn);
        assert!(net.residual);
        let mean = games
            .iter()
            .take(100)
            .map(|s| (t.model.evaluate(&s.position) - net.evaluate(&s.position) as f32).abs())
            .sum::<f32>()
            / 100.0;
        assert!(mean <= 8.0, "{mean}");
        // Its checkpoint keeps the flag; one of the format before the flag still reads, as plain.
        let bytes = t.to_bytes();
        assert_eq!(Trainer::from_bytes(&bytes), Ok(t.clone()));
        let mut old = CHECKPOINT_MAGIC_1.to_vec();
        old.extend_from_slice(&bytes[8..32]);
        old.extend_from_slice(&bytes[40..bytes.len() - 8]);
        let sum = fnv1a(&old);
        old.extend_from_slice(&sum.to_le_bytes());
        let read = Trainer::from_bytes(&old).unwrap();
        assert!(!read.model.residual);
        assert_eq!(read.model.w1, t.model.w1);
    }

    #[test]
    fn a_held_out_share_is_whole_positions_from_the_end() {
        let mut data = Dataset::new(&samples(100, 3), VariantKind::Haberkorn);
        let held = data.split_off(0.2);
        assert_eq!((data.len(), held.len()), (80, 20));
        let (us, them) = held.lists(&held.entries[0]);
        assert_eq!(us.len(), them.len());
        assert!(Dataset::new(&samples(10, 4), VariantKind::Hdc).is_empty());
    }
}
