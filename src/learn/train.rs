//! `cubist train`: fits an evaluation network ([`crate::eval::nnue`]) of
//! one game to self-play data.
//!
//! The model is the network in floating point: a sparse first layer (each
//! position activates one row per piece and perspective), a squared clipped
//! ReLU, one output. The output times [`SCALE`] is a score in centipawns;
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

use super::data::Sample;
use super::driver::{LearnError, Log, check_out_folder, checkpoint_path, read_data_in_pieces};
use crate::core::{Color, Position, Symmetry, VariantKind};
use crate::eval::nnue::{INPUTS, Network, QA, QB, features};
use crate::files::{fnv1a, write_atomically};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::Instant;

/// Centipawns per unit of the network's output.
pub const SCALE: i32 = 400;
/// Factoriser rows: per relative colour and kind, one row for each file, rank and layer.
pub const FACTORS: usize = 2 * 7 * 3 * 8;
/// The rows the trainer fits: the network's inputs, then the factoriser's.
pub const ROWS: usize = INPUTS + FACTORS;

/// The factoriser rows of input `f` (file, rank and layer of its square as
/// the perspective sees it, for its relative colour and kind). A piece's
/// weights are its own row plus these three, which every square of the same
/// file, rank or layer shares: what one square learns, its neighbours along
/// the board's axes learn too, so fewer positions teach the same. Merged into
/// the input rows when the network is quantised.
#[inline]
pub fn factor_rows(f: usize) -> [usize; 3] {
    let (piece, sq) = (f / 512, f % 512);
    let base = INPUTS + piece * 24;
    [base + (sq & 7), base + 8 + (sq >> 3 & 7), base + 16 + (sq >> 6)]
}

/// The network inputs of a position, side to move's perspective first (what
/// a [`Dataset`] keeps of it: two bytes an input). The rows an input trains
/// are its own and its factoriser rows ([`for_each_trained_row`]), expanded where
/// they are used, so that the set holds a quarter of what the expanded rows
/// would take.
fn perspectives(pos: &Position) -> (Vec<u16>, Vec<u16>) {
    let [white, black] = features(pos);
    if pos.side_to_move() == Color::White { (white, black) } else { (black, white) }
}

/// Calls `row` with every trained row of the inputs `list`: each input's
/// own row first, then the factoriser rows of each input in turn (the order
/// the sums and gradients are taken in, the same as when the set held the rows).
#[inline(always)]
fn for_each_trained_row(list: &[u16], mut row: impl FnMut(usize)) {
    for &f in list {
        row(usize::from(f));
    }
    for &f in list {
        factor_rows(usize::from(f)).into_iter().for_each(&mut row);
    }
}

/// Chunks a mini-batch is cut into (fixed, for results independent of the thread count).
const CHUNKS: usize = 8;
/// Games read into positions at a time while a data set is built: a
/// position takes kilobytes while its inputs take a few hundred bytes, so
/// the data are turned into inputs piece by piece (some 15,000 positions).
const GAMES_A_PIECE: usize = 256;
/// The largest first-layer weight or bias of the network file (× `QA` stays in 16 bits).
const FT_CLIP: f32 = 1.98;
/// The largest weight of one trained row: an input's own row and its three
/// factoriser rows add up to at most [`FT_CLIP`], so quantising clips nothing.
const ROW_CLIP: f32 = FT_CLIP / 4.0;
/// The largest output weight: `QB` times it fits the 16-bit product of the output layer.
const OUT_CLIP: f32 = 127.0 / QB as f32;

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

/// The training positions of one game, as the network's inputs.
#[derive(Default)]
pub struct Dataset {
    /// Every entry's inputs, side to move's perspective first.
    inputs: Vec<u16>,
    /// The entries.
    entries: Vec<Entry>,
}

/// One position: where its inputs lie in [`Dataset::inputs`], and its targets.
#[derive(Clone, Copy)]
struct Entry {
    /// First input (side to move's perspective).
    start: usize,
    /// Inputs per perspective (the two lists have the same length).
    count: u16,
    /// The search's score, side to move's view.
    score: f32,
    /// The game's result, side to move's view.
    result: f32,
    /// The linear evaluation, side to move's view (for comparison, and the teacher).
    linear: f32,
    /// A position made by random moves from a game's (see [`Dataset::augmented`]):
    /// its target is the linear evaluation alone.
    taught: bool,
}

/// What [`Dataset::augmented`] adds to each of a game's positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Augment {
    /// Positions made from it by one to three random legal moves, taught by the linear evaluation alone.
    pub children: usize,
    /// Its images under the board's symmetries (see [`Symmetry`]), at most
    /// this many of its game's (7 in hdc, 3 in haberkorn), chosen at random,
    /// with its score and result.
    pub symmetries: usize,
    /// The seed of the random choices.
    pub seed: u64,
}

impl Dataset {
    /// The positions of `game` among `samples`, in their order.
    pub fn new(samples: &[Sample], game: VariantKind) -> Dataset {
        Dataset::augmented(samples, game, Augment::default())
    }

    /// The positions of `game` among `samples`, each followed by its
    /// images under `augment.symmetries` of the board's symmetries (the
    /// same pieces mirrored or turned, so the same score and result; their
    /// castling rights, which the network does not read, are dropped where
    /// the map does not keep them) and by `augment.children` positions made
    /// from it by one to three random legal moves (a capture when there is
    /// one, half of the time), whose target is the linear evaluation alone:
    /// the positions a search visits hold more hanging and traded material
    /// than a game's, and there the network learns from the teacher.
    /// Deterministic for the seed, whatever the thread count.
    pub fn augmented(samples: &[Sample], game: VariantKind, augment: Augment) -> Dataset {
        let mut data = Dataset::default();
        data.append(samples, game, augment, 0);
        data
    }

    /// Appends the positions of `game` among `samples` as
    /// [`Dataset::augmented`] makes them, numbering them (for the random
    /// children's seeds) from `first`; returns the number after the last,
    /// so that data appended piece by piece is the data made at once.
    pub fn append(&mut self, samples: &[Sample], game: VariantKind, augment: Augment, first: usize) -> usize {
        let Augment { children, symmetries, seed } = augment;
        let maps = &Symmetry::of_game(game)[1..];
        let mine: Vec<&Sample> = samples.iter().filter(|s| s.position.variant().kind == game).collect();
        let row = |pos: &Position, score: f32, result: f32, taught: bool| {
            let (us, them) = perspectives(pos);
            let entry = Entry {
                start: 0,
                count: us.len() as u16,
                score,
                result,
                linear: crate::eval::evaluate(pos) as f32,
                taught,
            };
            (us.into_iter().chain(them).collect::<Vec<u16>>(), entry)
        };
        let rows: Vec<(Vec<u16>, Entry)> = mine
            .par_iter()
            .enumerate()
            .flat_map_iter(|(i, s)| {
                let pos: &Position = &s.position;
                let white_to_move = pos.side_to_move() == Color::White;
                let flip = |x: f32| if white_to_move { x } else { -x };
                let result = if white_to_move { s.result } else { 1.0 - s.result };
                let mut out = vec![row(pos, flip(s.score as f32), result, false)];
                let index = (first + i) as u64;
                let mut rng = StdRng::seed_from_u64(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                if symmetries > 0 {
                    let mut order = maps.to_vec();
                    order.shuffle(&mut rng);
                    for map in order.into_iter().take(symmetries) {
                        if let Some(image) = map.apply_to_pieces(pos) {
                            out.push(row(&image, flip(s.score as f32), result, false));
                        }
                    }
                }
                for _ in 0..children {
                    if let Some(child) = random_child(pos, &mut rng) {
                        out.push(row(&child, 0.0, 0.0, true));
                    }
                }
                out
            })
            .collect();
        self.inputs.reserve(rows.iter().map(|r| r.0.len()).sum());
        self.entries.reserve(rows.len());
        for (list, mut e) in rows {
            e.start = self.inputs.len();
            self.inputs.extend_from_slice(&list);
            self.entries.push(e);
        }
        first + mine.len()
    }

    /// The positions of `game` in the data files `paths`, as
    /// [`Dataset::augmented`] makes them, read [`GAMES_A_PIECE`] games at a
    /// time so that only a piece's positions are held at once.
    fn read(paths: &[PathBuf], game: VariantKind, augment: Augment, log: &mut dyn Log) -> Result<Dataset, LearnError> {
        let mut data = Dataset::default();
        let mut next = 0;
        read_data_in_pieces(paths, GAMES_A_PIECE, log, &mut |piece| {
            next = data.append(&piece, game, augment, next);
        })?;
        Ok(data)
    }

    /// The entries of game positions (not made by [`Dataset::augmented`]).
    fn real(&self) -> impl ParallelIterator<Item = &Entry> {
        self.entries.par_iter().filter(|e| !e.taught)
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no position is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Splits off the last `share` of the positions as a held-out set (data
    /// is written game by game, so these are whole games but for the first,
    /// which may straddle the cut).
    pub fn split_off(&mut self, share: f64) -> Dataset {
        let held = (self.entries.len() as f64 * share.clamp(0.0, 1.0)) as usize;
        let tail = self.entries.split_off(self.entries.len() - held);
        let base = tail.first().map_or(self.inputs.len(), |e| e.start);
        let inputs = self.inputs.split_off(base);
        let entries = tail.into_iter().map(|e| Entry { start: e.start - base, ..e }).collect();
        Dataset { inputs, entries }
    }

    fn lists(&self, e: &Entry) -> (&[u16], &[u16]) {
        let (s, n) = (e.start, e.count as usize);
        (&self.inputs[s..s + n], &self.inputs[s + n..s + 2 * n])
    }
}

/// The logistic function.
#[inline]
fn sigmoid(x: f32) -> f32 {
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

/// A position one to three random legal moves from `pos` (captures
/// preferred half of the time), or none when the game ends first.
fn random_child(pos: &Position, rng: &mut StdRng) -> Option<Position> {
    let mut child = pos.clone();
    for _ in 0..rng.random_range(1..=3) {
        let moves = child.legal_moves();
        let captures: Vec<_> = moves.iter().copied().filter(|m| child.piece_at(m.to()).is_some()).collect();
        let m = if !captures.is_empty() && rng.random_bool(0.5) {
            captures[rng.random_range(0..captures.len())]
        } else if moves.is_empty() {
            return None;
        } else {
            moves[rng.random_range(0..moves.len())]
        };
        child.make(m);
    }
    Some(child)
}

/// The training target of an entry.
#[inline]
fn target(e: &Entry, k: f32, blend: Blend) -> f32 {
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

    fn params(&mut self) -> [&mut [f32]; 3] {
        [&mut self.w1, &mut self.b1, &mut self.w2]
    }

    /// The first layer's sums of one perspective's inputs.
    fn accumulate(&self, list: &[u16], acc: &mut [f32]) {
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
    fn output(&self, acc: &[f32]) -> f32 {
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
    fn centipawns(&self, out: f32, e: &Entry) -> f32 {
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
struct Grads {
    w1: Vec<f32>,
    b1: Vec<f32>,
    w2: Vec<f32>,
    b2: f32,
    loss: f64,
}

impl Grads {
    fn new(hidden: usize) -> Grads {
        Grads { w1: vec![0.0; ROWS * hidden], b1: vec![0.0; hidden], w2: vec![0.0; 2 * hidden], b2: 0.0, loss: 0.0 }
    }

    fn clear(&mut self) {
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
    fn forward(&self, data: &Dataset, e: &Entry, acc: &mut [f32]) -> f32 {
        let h = self.hidden;
        let (us, them) = data.lists(e);
        self.accumulate(us, &mut acc[..h]);
        self.accumulate(them, &mut acc[h..]);
        self.output(acc)
    }
}

/// The loss of one entry under `model`, and (with `grads`) its gradient added in.
fn step(
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
fn mean_over_games(model: &Model, data: &Dataset, per_entry: impl Fn(&Entry, &mut [f32]) -> f64 + Sync) -> f64 {
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

/// AdamW's moments and step count.
#[derive(Clone, Debug, PartialEq)]
pub struct Optimiser {
    m: Vec<Vec<f32>>,
    v: Vec<Vec<f32>>,
    m_b2: f32,
    v_b2: f32,
    t: u32,
}

impl Optimiser {
    /// Zero moments for `model`.
    pub fn new(model: &Model) -> Optimiser {
        let sizes = [model.w1.len(), model.b1.len(), model.w2.len()];
        Optimiser {
            m: sizes.iter().map(|&n| vec![0.0; n]).collect(),
            v: sizes.iter().map(|&n| vec![0.0; n]).collect(),
            m_b2: 0.0,
            v_b2: 0.0,
            t: 0,
        }
    }

    /// One AdamW step with gradient `g` (a sum over `n` positions).
    fn apply(&mut self, model: &mut Model, g: &Grads, n: usize, lr: f32, decay: f32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.t += 1;
        let (c1, c2) = (1.0 - B1.powi(self.t as i32), 1.0 - B2.powi(self.t as i32));
        let scale = 1.0 / n.max(1) as f32;
        let clips = [ROW_CLIP, FT_CLIP, OUT_CLIP];
        let grads: [&[f32]; 3] = [&g.w1, &g.b1, &g.w2];
        for (i, p) in model.params().into_iter().enumerate() {
            let (m, v, clip) = (&mut self.m[i], &mut self.v[i], clips[i]);
            p.par_chunks_mut(4096)
                .zip(m.par_chunks_mut(4096))
                .zip(v.par_chunks_mut(4096))
                .zip(grads[i].par_chunks(4096))
                .for_each(|(((p, m), v), g)| {
                    for j in 0..p.len() {
                        let gj = g[j] * scale;
                        m[j] = B1 * m[j] + (1.0 - B1) * gj;
                        v[j] = B2 * v[j] + (1.0 - B2) * gj * gj;
                        let update = (m[j] / c1) / ((v[j] / c2).sqrt() + 1e-8);
                        p[j] = (p[j] - lr * (update + decay * p[j])).clamp(-clip, clip);
                    }
                });
        }
        let gb = g.b2 * scale;
        self.m_b2 = B1 * self.m_b2 + (1.0 - B1) * gb;
        self.v_b2 = B2 * self.v_b2 + (1.0 - B2) * gb * gb;
        model.b2 -= lr * (self.m_b2 / c1) / ((self.v_b2 / c2).sqrt() + 1e-8);
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

    /// A fresh run that starts from `net`'s weights (fine-tuning).
    pub fn from_network(net: &Network, k: f32) -> Trainer {
        let model = Model::from_network(net);
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
                (path, Trainer::from_network(&net, fit_k(train)))
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
    use crate::core::Variant;
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

    #[test]
    fn a_network_read_back_as_a_model_quantises_to_itself() {
        let data = Dataset::new(&samples(300, 5), VariantKind::Haberkorn);
        let mut cfg = config();
        cfg.residual = true;
        let mut t = Trainer::new(&cfg, fit_k(&data));
        t.epoch(&cfg, &data);
        let net = t.model.quantise(VariantKind::Haberkorn);
        let back = Model::from_network(&net);
        assert_eq!(back.quantise(VariantKind::Haberkorn), net);
        // It scores as the network does (its integer sums round a little),
        // and training goes on from there.
        for s in samples(50, 6) {
            let (float, int) = (back.evaluate(&s.position), net.evaluate(&s.position) as f32);
            assert!((float - int).abs() <= 3.0, "{float} against {int}");
        }
        let mut fine = Trainer::from_network(&net, t.k);
        let before = loss(&fine.model, &data, fine.k, cfg.lambda);
        fine.epoch(&cfg, &data);
        assert!(loss(&fine.model, &data, fine.k, cfg.lambda) < before);
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
