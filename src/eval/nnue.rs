//! The learned evaluation: an efficiently updatable network (NNUE) per game.
//!
//! Architecture `(768·… inputs → H) × 2 → 1`, here `(7168 → H) × 2 → 1`:
//! an input per (piece colour relative to the perspective, kind, square as
//! the perspective sees it). Black sees the board mirrored by its game's
//! colour symmetry: the ranks flipped in hdc (both armies stand on the same
//! layers), ranks and layers flipped in haberkorn (White's layer IV and
//! Black's V of the standard setup map onto each other). Two
//! perspectives share the first layer's weights; their accumulators (the
//! first layer's sums, 32-bit) are kept incrementally: a move adds and
//! subtracts the rows of the pieces it moves, captures and promotes
//! ([`crate::core::Undo::changes`], recorded by `make`). The side to move's accumulator comes first,
//! then the other's, through a squared clipped ReLU into one output.
//!
//! Quantisation: first-layer weights and biases × [`QA`], output weights ×
//! [`QB`], output bias × `QA·QB`; the score in centipawns is
//! `(Σ clamp(a, 0, QA)² · w / QA + b) · SCALE / (QA · QB)`. The AVX2 path
//! (x86-64-v3 builds) and the portable path compute exactly the same
//! integers (wrapping 32-bit sums), tested against each other. The
//! accumulators are 32-bit because an hdc position holds up to 158 pieces:
//! 158 rows of 16-bit weights can leave 16 bits, never 32, so every net
//! file of valid size is safe to run.
//!
//! A residual network ([`ARCH_RESIDUAL`]) is the same layout whose output
//! is added to the linear evaluation's score: it learns what the linear
//! evaluation misses, starting from it, which needs far fewer positions than
//! learning the whole evaluation. Its search evaluation keeps the linear
//! evaluation's cache beside the accumulators.
//!
//! The net file (little-endian): the magic `CUBNNUE1`, u8 game (0 hdc,
//! 1 haberkorn), u8 architecture ([`ARCH`] or [`ARCH_RESIDUAL`]), u16 0
//! (a residual network: the [`fingerprint`](crate::eval::weights::Weights::fingerprint) of the linear weights
//! it was trained on, which must be this build's), u32 inputs, u32 hidden
//! size H, i32 scale, then i16 first-layer weights (input-major, H a row),
//! i16 first-layer biases (H), i16 output weights (2H), i32 output bias,
//! and a u64 FNV-1a checksum of every byte before it.

use super::evaluator::Evaluator;
use super::linear::{self, Linear};
use super::weights::{Weights, weights};
use crate::core::{Color, Piece, PieceChanges, PieceKind, Position, Square, VariantKind};
use crate::files::fnv1a;
use std::path::Path;
use std::sync::Arc;
use thiserror::Error;

/// Inputs per perspective: 2 relative colours × 7 kinds × 512 squares.
pub const INPUTS: usize = 2 * PieceKind::COUNT * 512;
/// The first layer's quantisation factor (activations clipped to 0..=QA).
pub const QA: i32 = 255;
/// The output layer's quantisation factor.
pub const QB: i32 = 64;
/// The architecture number written in net files (this layout, SCReLU).
pub const ARCH: u8 = 1;
/// The architecture number of a residual network: [`ARCH`]'s layout, its output added to the linear evaluation.
pub const ARCH_RESIDUAL: u8 = 2;
/// The first eight bytes of a net file.
pub const MAGIC: [u8; 8] = *b"CUBNNUE1";
/// The largest hidden layer a net file may declare.
pub const MAX_HIDDEN: usize = 4096;
/// The largest score a network gives, in centipawns: far from the search's mate scores.
pub const MAX_SCORE: i32 = 20_000;
/// The largest `scale` a net file may declare.
pub const MAX_SCALE: i32 = 10_000;

/// How Black sees the board of a variant: the square index Black reads for a square index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mirror {
    /// The highest layer index when layers flip too (haberkorn), else none.
    top_layer: Option<u8>,
}

impl Mirror {
    /// The colour symmetry of `variant`'s game.
    pub fn of(variant: &crate::core::Variant) -> Mirror {
        Mirror {
            top_layer: match variant.kind {
                VariantKind::Hdc => None,
                VariantKind::Haberkorn => Some(variant.layers.saturating_sub(1)),
            },
        }
    }

    /// The square index `perspective` reads for `sq`.
    #[inline]
    fn apply(self, perspective: Color, sq: Square) -> usize {
        match (perspective, self.top_layer) {
            (Color::White, _) => sq.index(),
            (Color::Black, None) => sq.index() ^ 0b111_000,
            (Color::Black, Some(top)) => {
                let layer = usize::from(top.saturating_sub(sq.layer()));
                (sq.index() & 0b111) | (7 - (sq.index() >> 3 & 7)) << 3 | layer << 6
            }
        }
    }
}

/// The input of a piece on a square, seen from `perspective` under `mirror`.
#[inline]
pub fn feature(perspective: Color, piece: Piece, sq: Square, mirror: Mirror) -> usize {
    let relative = usize::from(piece.color != perspective);
    (relative * PieceKind::COUNT + piece.kind.index()) * 512 + mirror.apply(perspective, sq)
}

/// The active inputs of a position from each perspective (White's, Black's).
pub fn features(pos: &Position) -> [Vec<u16>; 2] {
    let mirror = Mirror::of(pos.variant());
    let mut out = [Vec::new(), Vec::new()];
    for c in Color::ALL {
        for kind in PieceKind::ALL {
            for sq in pos.pieces(c, kind) {
                let piece = Piece::new(c, kind);
                for (i, p) in Color::ALL.into_iter().enumerate() {
                    out[i].push(feature(p, piece, sq, mirror) as u16);
                }
            }
        }
    }
    out
}

/// Why a net file was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum NetError {
    /// The file could not be read.
    #[error("{0}")]
    Io(String),
    /// Not a Cubist net file.
    #[error("not a Cubist network file (no CUBNNUE1 magic)")]
    Magic,
    /// A layout this build does not know.
    #[error(
        "network architecture {found} (this build reads {ARCH} and {ARCH_RESIDUAL}) or {inputs} inputs (expected {INPUTS})"
    )]
    Architecture {
        /// The file's architecture number.
        found: u8,
        /// The file's input count.
        inputs: u32,
    },
    /// A game byte other than hdc's or haberkorn's.
    #[error("unknown game {0} in the network file")]
    Game(u8),
    /// A hidden size out of range.
    #[error("hidden layer of {0} neurons (1 to {MAX_HIDDEN})")]
    Hidden(u32),
    /// A scale out of range or a reserved field that is not zero.
    #[error("network scale {0} (1 to {MAX_SCALE}) or a reserved field not zero")]
    Header(i32),
    /// A residual network trained on top of other linear weights than this build's.
    #[error(
        "a residual network trained on other linear weights (fingerprint {found:04x}, this build's {expected:04x}): \
         retrain it with this build"
    )]
    Linear {
        /// The fingerprint in the file.
        found: u16,
        /// This build's.
        expected: u16,
    },
    /// The file is longer or shorter than its header says.
    #[error("the network file has {found} bytes where its header needs {expected}")]
    Size {
        /// Bytes in the file.
        found: usize,
        /// Bytes the header implies.
        expected: usize,
    },
    /// The checksum does not match (a damaged file).
    #[error("the network file's checksum does not match (damaged)")]
    Checksum,
}

/// A quantised network of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    /// The game it evaluates.
    pub game: VariantKind,
    /// Neurons of the hidden layer (per perspective).
    pub hidden: usize,
    /// Centipawns per unit of output.
    pub scale: i32,
    /// Whether the output is added to the linear evaluation ([`ARCH_RESIDUAL`]).
    pub residual: bool,
    /// First-layer weights, `INPUTS × hidden`, input-major.
    pub ft_weights: Vec<i16>,
    /// First-layer biases.
    pub ft_biases: Vec<i16>,
    /// Output weights: the side to move's `hidden`, then the other side's.
    pub out_weights: Vec<i16>,
    /// Output bias (× `QA·QB`).
    pub out_bias: i32,
}

impl Network {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_bytes_over(weights(self.game))
    }

    /// The file's bytes for a build whose linear weights are `linear` (a
    /// residual network records their fingerprint; `cubist tune --under`).
    pub fn to_bytes_over(&self, linear: &Weights) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.push(self.game.byte());
        out.push(if self.residual { ARCH_RESIDUAL } else { ARCH });
        let linear = if self.residual { linear.fingerprint() } else { 0 };
        out.extend_from_slice(&linear.to_le_bytes());
        out.extend_from_slice(&(INPUTS as u32).to_le_bytes());
        out.extend_from_slice(&(self.hidden as u32).to_le_bytes());
        out.extend_from_slice(&self.scale.to_le_bytes());
        for v in self.ft_weights.iter().chain(&self.ft_biases).chain(&self.out_weights) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.out_bias.to_le_bytes());
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a net file's bytes, checking magic, architecture, game, size and checksum.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        const HEADER: usize = 8 + 4 + 4 + 4 + 4;
        if bytes.len() < HEADER || bytes[..8] != MAGIC {
            return Err(NetError::Magic);
        }
        let u32_at = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let (arch, inputs) = (bytes[9], u32_at(12));
        if !(arch == ARCH || arch == ARCH_RESIDUAL) || inputs as usize != INPUTS {
            return Err(NetError::Architecture { found: arch, inputs });
        }
        let game = VariantKind::from_byte(bytes[8]).ok_or(NetError::Game(bytes[8]))?;
        let hidden = u32_at(16);
        if hidden == 0 || hidden as usize > MAX_HIDDEN {
            return Err(NetError::Hidden(hidden));
        }
        let hidden = hidden as usize;
        let scale = u32_at(20) as i32;
        let linear = u16::from_le_bytes([bytes[10], bytes[11]]);
        if !(1..=MAX_SCALE).contains(&scale) || (arch == ARCH && linear != 0) {
            return Err(NetError::Header(scale));
        }
        let shorts = INPUTS * hidden + hidden + 2 * hidden;
        let expected = HEADER + 2 * shorts + 4 + 8;
        if bytes.len() != expected {
            return Err(NetError::Size { found: bytes.len(), expected });
        }
        if fnv1a(&bytes[..expected - 8]) != u64::from_le_bytes(bytes[expected - 8..].try_into().unwrap_or_default()) {
            return Err(NetError::Checksum);
        }
        let own = weights(game).fingerprint();
        if arch == ARCH_RESIDUAL && linear != own {
            return Err(NetError::Linear { found: linear, expected: own });
        }
        let mut values = bytes[HEADER..HEADER + 2 * shorts].chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]]));
        let ft_weights: Vec<i16> = values.by_ref().take(INPUTS * hidden).collect();
        let ft_biases: Vec<i16> = values.by_ref().take(hidden).collect();
        let out_weights: Vec<i16> = values.take(2 * hidden).collect();
        let out_bias = u32_at(HEADER + 2 * shorts) as i32;
        Ok(Network {
            game,
            hidden,
            scale,
            residual: arch == ARCH_RESIDUAL,
            ft_weights,
            ft_biases,
            out_weights,
            out_bias,
        })
    }

    /// Reads a net file.
    pub fn load(path: &Path) -> Result<Network, NetError> {
        let bytes = std::fs::read(path).map_err(|e| NetError::Io(format!("{}: {e}", path.display())))?;
        Network::from_bytes(&bytes)
    }

    /// The first-layer row of input `f`.
    #[inline(always)]
    fn row(&self, f: usize) -> &[i16] {
        &self.ft_weights[f * self.hidden..(f + 1) * self.hidden]
    }

    /// Both perspectives' accumulators of `pos` from scratch (White's, then Black's).
    pub fn refresh(&self, pos: &Position, acc: &mut [i32]) {
        let h = self.hidden;
        for half in acc[..2 * h].chunks_exact_mut(h) {
            for (a, &b) in half.iter_mut().zip(&self.ft_biases) {
                *a = i32::from(b);
            }
        }
        let [white, black] = features(pos);
        for (half, list) in acc.chunks_exact_mut(h).zip([white, black]) {
            for f in list {
                add(half, self.row(usize::from(f)));
            }
        }
    }

    /// Applies a move's piece `changes` (made in `pos`'s variant) to a copy of `from` written to `to`.
    pub fn update(&self, from: &[i32], to: &mut [i32], pos: &Position, changes: &PieceChanges) {
        let h = self.hidden;
        to.copy_from_slice(from);
        let mirror = Mirror::of(pos.variant());
        for (i, p) in Color::ALL.into_iter().enumerate() {
            let half = &mut to[i * h..(i + 1) * h];
            for &(piece, sq) in changes.removed() {
                sub(half, self.row(feature(p, piece, sq, mirror)));
            }
            for &(piece, sq) in changes.added() {
                add(half, self.row(feature(p, piece, sq, mirror)));
            }
        }
    }

    /// The network's own output in centipawns, side to move's view, from both
    /// accumulators (for a residual network: what it adds to the linear evaluation).
    pub fn output(&self, acc: &[i32], side: Color) -> i32 {
        let h = self.hidden;
        let (us, them) = match side {
            Color::White => (&acc[..h], &acc[h..2 * h]),
            Color::Black => (&acc[h..2 * h], &acc[..h]),
        };
        let sum = screlu_dot(us, &self.out_weights[..h]).wrapping_add(screlu_dot(them, &self.out_weights[h..]));
        let cp =
            (i64::from(sum) / i64::from(QA) + i64::from(self.out_bias)) * i64::from(self.scale) / i64::from(QA * QB);
        cp.clamp(-i64::from(MAX_SCORE), i64::from(MAX_SCORE)) as i32
    }

    /// One line for the UCI `eval` command: the architecture and the score
    /// of `pos` (for a residual network, its own part too).
    pub fn trace(&self, pos: &Position) -> String {
        let white = |cp: i32| if pos.side_to_move() == Color::White { cp } else { -cp } as f64 / 100.0;
        let own = self.own_output(pos);
        let cp = self.score(own, || linear::evaluate(pos));
        let part = if self.residual {
            format!(" (the network adds {:+.2} to the linear evaluation)", white(own))
        } else {
            String::new()
        };
        format!(
            "Network ({} inputs -> {}) x 2 -> 1{}, {}: {:+.2} (White side), {:+.2} (side to move){part}\n",
            INPUTS,
            self.hidden,
            if self.residual { " residual" } else { "" },
            self.game,
            white(cp),
            cp as f64 / 100.0
        )
    }

    /// The network's own output for `pos` from scratch (no accumulator kept).
    pub(crate) fn own_output(&self, pos: &Position) -> i32 {
        let mut acc = vec![0i32; 2 * self.hidden];
        self.refresh(pos, &mut acc);
        self.output(&acc, pos.side_to_move())
    }

    /// The evaluation of `pos` from scratch (no accumulator kept), the
    /// linear evaluation added for a residual network.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.score(self.own_output(pos), || linear::evaluate(pos))
    }

    /// The score from the network's own output `own`, the one way every
    /// caller builds it: a residual network adds the linear evaluation
    /// (asked for only then), within the networks' range.
    #[inline]
    pub fn score(&self, own: i32, linear: impl FnOnce() -> i32) -> i32 {
        if self.residual { (own + linear()).clamp(-MAX_SCORE, MAX_SCORE) } else { own }
    }
}

/// `acc += row` (the portable loop; it vectorises on its own). No sum
/// leaves 32 bits: at most 158 rows of 16-bit weights and a 16-bit bias.
#[inline(always)]
fn add(acc: &mut [i32], row: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(i32::from(w));
    }
}

/// `acc -= row`.
#[inline(always)]
fn sub(acc: &mut [i32], row: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_sub(i32::from(w));
    }
}

/// `Σ clamp(a, 0, QA)² · w` with wrapping 32-bit sums: the portable path.
pub fn screlu_dot_portable(acc: &[i32], weights: &[i16]) -> i32 {
    let mut sum = 0i32;
    for (&a, &w) in acc.iter().zip(weights) {
        let v = a.clamp(0, QA);
        // v · w taken in 16 bits as the SIMD path's `mullo` does (exact
        // while |w| <= 128, which the trainer keeps), then times v.
        let vw = i32::from((v * i32::from(w)) as i16);
        sum = sum.wrapping_add(vw * v);
    }
    sum
}

/// `Σ clamp(a, 0, QA)² · w` with AVX2: 16 lanes at a time, the same integers
/// as [`screlu_dot_portable`] (two vectors of clamped 32-bit sums packed to
/// 16 bits in order, the product `v · w` taken in 16 bits, which the
/// trainer's weight clipping keeps exact, then `madd` with `v`).
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
pub fn screlu_dot_avx2(acc: &[i32], weights: &[i16]) -> i32 {
    use std::arch::x86_64::*;
    let n = acc.len().min(weights.len());
    let chunks = n / 16;
    // SAFETY: AVX2 is enabled for this build (the cfg above), and every
    // chunk reads 16 i32 and 16 i16 starting at `16 * i`, where
    // `16 * i + 16 <= chunks * 16 <= n`, inside both slices; unaligned
    // loads are used, so no alignment is assumed.
    let mut sum = unsafe {
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi32(QA);
        let mut total = _mm256_setzero_si256();
        for i in 0..chunks {
            let lo = _mm256_loadu_si256(acc.as_ptr().add(16 * i).cast());
            let hi = _mm256_loadu_si256(acc.as_ptr().add(16 * i + 8).cast());
            let lo = _mm256_min_epi32(_mm256_max_epi32(lo, zero), qa);
            let hi = _mm256_min_epi32(_mm256_max_epi32(hi, zero), qa);
            // `packs` interleaves the 128-bit halves (lo 0-3, hi 0-3, lo
            // 4-7, hi 4-7); the permutation puts the 16 values back in order.
            let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi32(lo, hi));
            let w = _mm256_loadu_si256(weights.as_ptr().add(16 * i).cast());
            let vw = _mm256_mullo_epi16(v, w);
            total = _mm256_add_epi32(total, _mm256_madd_epi16(vw, v));
        }
        let mut lanes = [0i32; 8];
        _mm256_storeu_si256(lanes.as_mut_ptr().cast(), total);
        lanes.iter().fold(0i32, |s, &x| s.wrapping_add(x))
    };
    sum = sum.wrapping_add(screlu_dot_portable(&acc[chunks * 16..n], &weights[chunks * 16..n]));
    sum
}

/// The SCReLU dot product by the fastest path this build has.
#[inline]
fn screlu_dot(acc: &[i32], weights: &[i16]) -> i32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        screlu_dot_avx2(acc, weights)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        screlu_dot_portable(acc, weights)
    }
}

/// Accumulator levels a search thread's stack starts with: the search's
/// deepest line (128 plies) and room for quiescence; a deeper line grows it.
const LEVELS_RESERVED: usize = 160;

/// The network as a search thread's evaluation: a stack of accumulators,
/// one per move made on the way from the root, and the linear evaluation
/// (with its cache) that a residual network adds to.
pub struct Nnue {
    net: Arc<Network>,
    /// `2 × hidden` values per level: White's accumulator, then Black's.
    stack: Vec<i32>,
    /// The current level.
    level: usize,
    /// The linear evaluation, asked only by a residual network.
    linear: Linear,
}

impl Nnue {
    /// A thread's evaluation with `net`, its accumulator set from `pos`.
    pub fn new(net: Arc<Network>, pos: &Position) -> Nnue {
        let width = 2 * net.hidden;
        let mut e = Nnue { stack: vec![0; LEVELS_RESERVED * width], net, level: 0, linear: Linear::new(pos) };
        e.net.refresh(pos, &mut e.stack[..width]);
        e
    }

    /// The network in use.
    pub fn network(&self) -> &Network {
        &self.net
    }
}

impl Evaluator for Nnue {
    #[inline]
    fn evaluate(&mut self, pos: &Position) -> i32 {
        let width = 2 * self.net.hidden;
        let at = self.level * width;
        let own = self.net.output(&self.stack[at..at + width], pos.side_to_move());
        self.net.score(own, || self.linear.evaluate(pos))
    }

    #[inline(always)]
    fn prefetch(&self, key: u64) {
        if self.net.residual {
            self.linear.prefetch(key);
        }
    }

    #[inline]
    fn make(&mut self, pos: &Position, changes: &PieceChanges) {
        let width = 2 * self.net.hidden;
        let at = self.level * width;
        if self.stack.len() < at + 2 * width {
            self.stack.resize(at + 2 * width, 0);
        }
        let (done, next) = self.stack.split_at_mut(at + width);
        self.net.update(&done[at..], &mut next[..width], pos, changes);
        self.level += 1;
        if self.net.residual {
            self.linear.make(pos, changes);
        }
    }

    #[inline]
    fn unmake(&mut self) {
        self.level = self.level.saturating_sub(1);
        if self.net.residual {
            self.linear.unmake();
        }
    }

    fn trace(&self, pos: &Position) -> String {
        self.net.trace(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;
    use rand::rngs::StdRng;
    use rand::seq::IndexedRandom;
    use rand::{RngExt, SeedableRng};

    /// A network of random weights (small enough that nothing overflows).
    fn random_net(game: VariantKind, hidden: usize, seed: u64) -> Network {
        let mut rng = StdRng::seed_from_u64(seed);
        Network {
            game,
            hidden,
            scale: 400,
            residual: false,
            ft_weights: (0..INPUTS * hidden).map(|_| rng.random_range(-40..=40)).collect(),
            ft_biases: (0..hidden).map(|_| rng.random_range(-100..=200)).collect(),
            out_weights: (0..2 * hidden).map(|_| rng.random_range(-128..=127)).collect(),
            out_bias: rng.random_range(-5000..5000),
        }
    }

    /// Plays random games, checking at every node that the kept accumulator
    /// gives what a refresh from scratch gives, also after unmaking.
    fn playouts(variant: Variant, seed: u64, residual: bool) {
        let net = Arc::new(Network { residual, ..random_net(variant.kind, 48, seed) });
        let mut rng = StdRng::seed_from_u64(seed);
        for _ in 0..3 {
            let mut pos = Position::start(variant);
            let mut e = Nnue::new(Arc::clone(&net), &pos);
            let mut made = Vec::new();
            for _ in 0..60 {
                let moves = pos.legal_moves();
                let Some(&m) = moves.choose(&mut rng) else { break };
                let undo = pos.make(m);
                e.make(&pos, undo.changes());
                made.push((m, undo));
                assert_eq!(e.evaluate(&pos), net.evaluate(&pos), "{}", pos.fen());
            }
            while let Some((m, undo)) = made.pop() {
                pos.unmake(m, &undo);
                e.unmake();
                assert_eq!(e.evaluate(&pos), net.evaluate(&pos), "{}", pos.fen());
            }
        }
    }

    #[test]
    fn the_kept_accumulator_equals_a_refresh_in_hdc() {
        playouts(Variant::hdc(), 1, false);
    }

    #[test]
    fn a_residual_network_adds_the_linear_evaluation_at_every_node() {
        playouts(Variant::hdc(), 2, true);
        playouts(Variant::haberkorn(), 3, true);
        let plain = random_net(VariantKind::Hdc, 16, 4);
        let residual = Network { residual: true, ..plain.clone() };
        let pos = Position::start(Variant::hdc());
        assert_eq!(residual.evaluate(&pos), plain.evaluate(&pos) + linear::evaluate(&pos));
        assert_eq!(Network::from_bytes(&residual.to_bytes()), Ok(residual.clone()));
        assert!(residual.trace(&pos).contains("residual"));
        // One trained on other linear weights is refused (its checksum made right).
        let mut other = residual.to_bytes();
        other[10] ^= 1;
        let n = other.len() - 8;
        let sum = fnv1a(&other[..n]);
        other[n..].copy_from_slice(&sum.to_le_bytes());
        assert!(matches!(Network::from_bytes(&other), Err(NetError::Linear { .. })));
    }

    #[test]
    fn the_kept_accumulator_equals_a_refresh_in_haberkorn_on_3_to_8_layers() {
        for layers in crate::core::HABERKORN_LAYERS {
            let v = Variant::haberkorn_with(layers, 1, layers, true, true).unwrap();
            playouts(v, u64::from(layers), false);
        }
    }

    #[test]
    fn the_simd_and_portable_paths_agree() {
        let mut rng = StdRng::seed_from_u64(5);
        for n in [1usize, 15, 16, 17, 64, 100, 256] {
            let acc: Vec<i32> = (0..n).map(|_| rng.random_range(-400..=400)).collect();
            let w: Vec<i16> = (0..n).map(|_| rng.random_range(-128..=128)).collect();
            let portable = screlu_dot_portable(&acc, &w);
            assert_eq!(screlu_dot(&acc, &w), portable);
            #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
            assert_eq!(screlu_dot_avx2(&acc, &w), portable);
            let exact: i64 = acc.iter().zip(&w).map(|(&a, &w)| i64::from(a.clamp(0, 255)).pow(2) * i64::from(w)).sum();
            assert_eq!(i64::from(portable), exact);
            // Any 32-bit sums and 16-bit weights at all: both paths still compute the same integers.
            let acc: Vec<i32> = (0..n).map(|_| rng.random()).collect();
            let w: Vec<i16> = (0..n).map(|_| rng.random()).collect();
            assert_eq!(screlu_dot(&acc, &w), screlu_dot_portable(&acc, &w));
        }
    }

    #[test]
    fn black_sees_the_mirrored_board() {
        // The start position is symmetric under the rank mirror in hdc: both
        // perspectives hold the same inputs, so the score is the same for either side to move.
        let net = random_net(VariantKind::Hdc, 16, 3);
        let pos = Position::start(Variant::hdc());
        let [white, black] = features(&pos);
        let (mut w, mut b) = (white.clone(), black.clone());
        w.sort_unstable();
        b.sort_unstable();
        assert_eq!(w, b);
        let mut acc = vec![0; 32];
        net.refresh(&pos, &mut acc);
        assert_eq!(net.output(&acc, Color::White), net.output(&acc, Color::Black));
        // Haberkorn's standard setup (White on IV, Black on V) is symmetric
        // under its mirror, ranks and layers flipped.
        let [white, black] = features(&Position::start(Variant::haberkorn()));
        let (mut w, mut b) = (white, black);
        w.sort_unstable();
        b.sort_unstable();
        assert_eq!(w, b);
    }

    #[test]
    fn a_net_file_round_trips_and_bad_files_are_refused() {
        let net = random_net(VariantKind::Haberkorn, 8, 9);
        let bytes = net.to_bytes();
        assert_eq!(Network::from_bytes(&bytes), Ok(net.clone()));
        assert_eq!(Network::from_bytes(b"nonsense"), Err(NetError::Magic));
        let mut bad = bytes.clone();
        bad[9] = 7;
        assert!(matches!(Network::from_bytes(&bad), Err(NetError::Architecture { found: 7, .. })));
        let mut bad = bytes.clone();
        bad[8] = 5;
        assert_eq!(Network::from_bytes(&bad), Err(NetError::Game(5)));
        assert!(matches!(Network::from_bytes(&bytes[..bytes.len() - 1]), Err(NetError::Size { .. })));
        let mut bad = bytes.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 1;
        assert_eq!(Network::from_bytes(&bad), Err(NetError::Checksum));
        let mut bad = bytes.clone();
        bad[16..20].copy_from_slice(&0u32.to_le_bytes());
        assert_eq!(Network::from_bytes(&bad), Err(NetError::Hidden(0)));
        let mut big = net.clone();
        big.scale = 0;
        assert_eq!(Network::from_bytes(&big.to_bytes()), Err(NetError::Header(0)));
        // Weights as large as 16 bits allow on every piece of the fullest
        // hdc position: the 32-bit accumulators hold the sums exactly.
        let mut big = net.clone();
        big.ft_weights.iter_mut().for_each(|w| *w = i16::MAX);
        big.ft_biases.iter_mut().for_each(|b| *b = i16::MAX);
        let pos = Position::start(Variant::hdc());
        let mut acc = vec![0; 2 * big.hidden];
        big.refresh(&pos, &mut acc);
        let pieces = features(&pos)[0].len() as i32;
        assert_eq!(pieces, 158);
        assert!(acc.iter().all(|&a| a == i32::from(i16::MAX) * (pieces + 1)));
        // Scores stay far from mate scores whatever the weights.
        let mut big = net;
        big.out_bias = i32::MAX / 2;
        assert_eq!(big.evaluate(&Position::start(Variant::hdc())), MAX_SCORE);
        assert!(matches!(Network::load(Path::new("/nonexistent/x.nnue")), Err(NetError::Io(_))));
    }
}
