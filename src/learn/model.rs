//! The network of `cubist train` in floating point ([`Model`]): a sparse
//! first layer (each position activates one row per piece and perspective,
//! and its factoriser rows), a squared clipped ReLU, one output, times
//! [`SCALE`] in centipawns; its loss against a target that blends the game's
//! result (weight λ) with the search's score through `sigmoid(score / K)`,
//! and the gradients of a mini-batch, cut into a fixed number of chunks
//! added in a fixed order (so a run does not depend on the thread count).

use super::dataset::{Dataset, Entry, ROWS, factor_rows, for_each_trained_row, perspectives};
use crate::core::{Position, VariantKind};
use crate::eval::nnue::{INPUTS, Network, QA, QB};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

/// Centipawns per unit of the network's output.
pub const SCALE: i32 = 400;
/// Chunks a mini-batch is cut into (fixed, for results independent of the thread count).
pub(super) const CHUNKS: usize = 8;
/// The largest first-layer weight or bias of the network file (× `QA` stays in 16 bits).
pub(super) const FT_CLIP: f32 = 1.98;
/// The largest weight of one trained row: an input's own row and its three
/// factoriser rows add up to at most [`FT_CLIP`], so quantising clips nothing.
pub(super) const ROW_CLIP: f32 = FT_CLIP / 4.0;
/// The largest output weight: `QB` times it fits the 16-bit product of the output layer.
pub(super) const OUT_CLIP: f32 = 127.0 / QB as f32;

/// The logistic function.
#[inline]
pub(super) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The `K` at which search scores best predict the results (golden-section
/// search of the squared error over 50..=3000 centipawns).
pub fn fit_k(data: &Dataset) -> f32 {
    let error = |k: f32| -> f64 { data.real().map(|e| f64::from((sigmoid(e.score / k) - e.result).powi(2))).sum() };
    let (mut lo, mut hi) = (50.0f32, 3000.0f32);
    let g = 0.618_034f32;
    for _ in 0..40 {
        let (a, b) = (hi - g * (hi - lo), lo + g * (hi - lo));
        if error(a) < error(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// What an entry's target is made of.
#[derive(Clone, Copy, Debug)]
pub struct Blend {
    /// Weight of the game result (the rest: the search score).
    pub lambda: f32,
    /// Share of the linear evaluation's prediction mixed in after that.
    pub teacher: f32,
}

impl Blend {
    /// The plain target: result and search score only.
    pub fn plain(lambda: f32) -> Blend {
        Blend { lambda, teacher: 0.0 }
    }
}

/// The training target of an entry.
#[inline]
pub(super) fn target(e: &Entry, k: f32, blend: Blend) -> f32 {
    if e.taught {
        return sigmoid(e.linear / k);
    }
    let plain = blend.lambda * e.result + (1.0 - blend.lambda) * sigmoid(e.score / k);
    if blend.teacher == 0.0 { plain } else { (1.0 - blend.teacher) * plain + blend.teacher * sigmoid(e.linear / k) }
}

/// The linear evaluation's mean loss on `data` under the same `k` and λ.
pub fn linear_loss(data: &Dataset, k: f32, lambda: f32) -> f64 {
    let sum: f64 =
        data.real().map(|e| f64::from((sigmoid(e.linear / k) - target(e, k, Blend::plain(lambda))).powi(2))).sum();
    sum / data.real().count().max(1) as f64
}

/// The network in floating point.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Neurons of the hidden layer.
    pub hidden: usize,
    /// First-layer weights, `ROWS × hidden`, row-major: the inputs, then the factoriser.
    pub w1: Vec<f32>,
    /// First-layer biases.
    pub b1: Vec<f32>,
    /// Output weights: side to move's `hidden`, then the other side's.
    pub w2: Vec<f32>,
    /// Output bias.
    pub b2: f32,
    /// Whether the output is added to the linear evaluation.
    pub residual: bool,
}

impl Model {
    /// Small random weights from `seed`; a residual model's output weights
    /// start at zero, so that it starts as the linear evaluation.
    pub fn new(hidden: usize, seed: u64, residual: bool) -> Model {
        let mut rng = StdRng::seed_from_u64(seed);
        let r1 = 0.5 / (32.0f32).sqrt();
        let r2 = 1.0 / (2.0 * hidden as f32).sqrt();
        Model {
            hidden,
            w1: (0..ROWS * hidden).map(|_| rng.random_range(-r1..r1)).collect(),
            b1: vec![0.0; hidden],
            w2: (0..2 * hidden).map(|_| if residual { 0.0 } else { rng.random_range(-r2..r2) }).collect(),
            b2: 0.0,
            residual,
        }
    }

    /// The model of a quantised network: its weights back in floats, the
    /// factoriser rows at zero (they are merged into the input rows). The
    /// model quantises back to the same network.
    pub fn from_network(net: &Network) -> Model {
        let h = net.hidden;
        let (qa, qb) = (QA as f32, QB as f32);
        let mut w1: Vec<f32> = net.ft_weights.iter().map(|&w| f32::from(w) / qa).collect();
        w1.resize(ROWS * h, 0.0);
        Model {
            hidden: h,
            w1,
            b1: net.ft_biases.iter().map(|&w| f32::from(w) / qa).collect(),
            w2: net.out_weights.iter().map(|&w| f32::from(w) / qb).collect(),
            b2: net.out_bias as f32 / (qa * qb),
            residual: net.residual,
        }
    }

    /// The same function with `hidden` neurons (more than today's): the new
    /// neurons get small random input weights from `seed` and zero output
    /// weights, so the wider model evaluates every position exactly as this
    /// one does and training grows the new neurons from there.
    pub fn widen(&self, hidden: usize, seed: u64) -> Model {
        let (old, fresh) = (self.hidden, Model::new(hidden, seed, true));
        assert!(hidden >= old, "a model only widens ({old} → {hidden})");
        let mut w1 = fresh.w1;
        for (row, new_row) in self.w1.chunks_exact(old).zip(w1.chunks_exact_mut(hidden)) {
            new_row[..old].copy_from_slice(row);
        }
        let mut b1 = vec![0.0; hidden];
        b1[..old].copy_from_slice(&self.b1);
        let mut w2 = vec![0.0; 2 * hidden];
        w2[..old].copy_from_slice(&self.w2[..old]);
        w2[hidden..hidden + old].copy_from_slice(&self.w2[old..]);
        Model { hidden, w1, b1, w2, b2: self.b2, residual: self.residual }
    }

    pub(super) fn params(&mut self) -> [&mut [f32]; 3] {
        [&mut self.w1, &mut self.b1, &mut self.w2]
    }

    /// The first layer's sums of one perspective's inputs.
    pub(super) fn accumulate(&self, list: &[u16], acc: &mut [f32]) {
        let h = self.hidden;
        acc.copy_from_slice(&self.b1);
        for_each_trained_row(list, |f| {
            let row = &self.w1[f * h..(f + 1) * h];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
        });
    }

    /// The output (side to move's view, in units of [`SCALE`] centipawns) from both accumulators.
    pub(super) fn output(&self, acc: &[f32]) -> f32 {
        acc.iter().zip(&self.w2).map(|(&a, w)| a.clamp(0.0, 1.0).powi(2) * w).sum::<f32>() + self.b2
    }

    /// The evaluation of a position in centipawns, side to move's view.
    pub fn evaluate(&self, pos: &Position) -> f32 {
        let (us, them) = perspectives(pos);
        let h = self.hidden;
        let mut acc = vec![0.0; 2 * h];
        self.accumulate(&us, &mut acc[..h]);
        self.accumulate(&them, &mut acc[h..]);
        let base = if self.residual { crate::eval::evaluate(pos) as f32 } else { 0.0 };
        self.output(&acc) * SCALE as f32 + base
    }

    /// The centipawns the model gives entry `e` whose output is `out`.
    #[inline]
    pub(super) fn centipawns(&self, out: f32, e: &Entry) -> f32 {
        out * SCALE as f32 + if self.residual { e.linear } else { 0.0 }
    }

    /// The quantised network of `game`.
    pub fn quantise(&self, game: VariantKind) -> Network {
        let q = |x: f32, f: i32, clip: f32| (x.clamp(-clip, clip) * f as f32).round() as i16;
        let h = self.hidden;
        let merged = (0..INPUTS * h).map(|i| {
            let (f, j) = (i / h, i % h);
            self.w1[i] + factor_rows(f).iter().map(|&r| self.w1[r * h + j]).sum::<f32>()
        });
        Network {
            game,
            hidden: self.hidden,
            scale: SCALE,
            residual: self.residual,
            ft_weights: merged.map(|w| q(w, QA, FT_CLIP)).collect(),
            ft_biases: self.b1.iter().map(|&w| q(w, QA, FT_CLIP)).collect(),
            out_weights: self.w2.iter().map(|&w| q(w, QB, OUT_CLIP)).collect(),
            out_bias: (self.b2 * (QA * QB) as f32).round() as i32,
        }
    }
}

/// Gradients (and the loss) of one chunk of a batch.
pub(super) struct Grads {
    pub(super) w1: Vec<f32>,
    pub(super) b1: Vec<f32>,
    pub(super) w2: Vec<f32>,
    pub(super) b2: f32,
    pub(super) loss: f64,
}

impl Grads {
    pub(super) fn new(hidden: usize) -> Grads {
        Grads { w1: vec![0.0; ROWS * hidden], b1: vec![0.0; hidden], w2: vec![0.0; 2 * hidden], b2: 0.0, loss: 0.0 }
    }

    pub(super) fn clear(&mut self) {
        self.w1.fill(0.0);
        self.b1.fill(0.0);
        self.w2.fill(0.0);
        self.b2 = 0.0;
        self.loss = 0.0;
    }
}

impl Model {
    /// The output of entry `e` of `data` (in units of `SCALE`), leaving both
    /// perspectives' accumulators in `acc` for the backward pass.
    pub(super) fn forward(&self, data: &Dataset, e: &Entry, acc: &mut [f32]) -> f32 {
        let h = self.hidden;
        let (us, them) = data.lists(e);
        self.accumulate(us, &mut acc[..h]);
        self.accumulate(them, &mut acc[h..]);
        self.output(acc)
    }
}

/// The loss of one entry under `model`, and (with `grads`) its gradient added in.
pub(super) fn step(
    model: &Model,
    data: &Dataset,
    e: &Entry,
    k: f32,
    blend: Blend,
    acc: &mut [f32],
    grads: Option<&mut Grads>,
) -> f64 {
    let h = model.hidden;
    let (us, them) = data.lists(e);
    let out = model.forward(data, e, acc);
    let p = sigmoid(model.centipawns(out, e) / k);
    let t = target(e, k, blend);
    let loss = f64::from((p - t).powi(2));
    if let Some(g) = grads {
        // d loss / d out.
        let d = 2.0 * (p - t) * p * (1.0 - p) * SCALE as f32 / k;
        g.b2 += d;
        for ((a, gw), w) in acc.iter_mut().zip(g.w2.iter_mut()).zip(&model.w2) {
            let c = a.clamp(0.0, 1.0);
            *gw += d * c * c;
            // The accumulator's slot now holds the gradient at the accumulator.
            *a = if *a > 0.0 && *a < 1.0 { d * w * 2.0 * *a } else { 0.0 };
        }
        for (list, grad) in [(us, &acc[..h]), (them, &acc[h..])] {
            for (b, x) in g.b1.iter_mut().zip(grad) {
                *b += x;
            }
            for_each_trained_row(list, |f| {
                let row = &mut g.w1[f * h..(f + 1) * h];
                for (w, x) in row.iter_mut().zip(grad) {
                    *w += x;
                }
            });
        }
    }
    loss
}

/// The mean over `data`'s game positions of `per_entry`, which gets each
/// entry and an accumulator of the model's width to work in.
pub(super) fn mean_over_games(
    model: &Model,
    data: &Dataset,
    per_entry: impl Fn(&Entry, &mut [f32]) -> f64 + Sync,
) -> f64 {
    let sum: f64 = data
        .entries
        .par_chunks(4096)
        .map(|chunk| {
            let mut acc = vec![0.0; 2 * model.hidden];
            chunk.iter().filter(|e| !e.taught).map(|e| per_entry(e, &mut acc)).sum::<f64>()
        })
        .sum();
    sum / data.real().count().max(1) as f64
}

/// The model's mean loss on `data`'s game positions.
pub fn loss(model: &Model, data: &Dataset, k: f32, lambda: f32) -> f64 {
    mean_over_games(model, data, |e, acc| step(model, data, e, k, Blend::plain(lambda), acc, None))
}

/// The mean loss on `data`'s game positions of the mean of the model's
/// and the linear evaluation's centipawns (how much the two together know).
pub fn mean_with_linear_loss(model: &Model, data: &Dataset, k: f32, lambda: f32) -> f64 {
    mean_over_games(model, data, |e, acc| {
        let cp = model.centipawns(model.forward(data, e, acc), e);
        let p = sigmoid((cp + e.linear) / 2.0 / k);
        f64::from((p - target(e, k, Blend::plain(lambda))).powi(2))
    })
}
