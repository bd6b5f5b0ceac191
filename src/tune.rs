//! Texel tuning of the evaluation's material values from self-play data
//! (`cubist tune`): the evaluation with today's weights plus a correction
//! per piece kind and phase is mapped to an expected score by a logistic
//! curve whose scale `K` is fitted first, and the corrections minimise the
//! mean squared error against a blend of the game result and the search's
//! score (Adam, full-batch gradients summed in parallel with rayon).
//!
//! Material is the first weight group fitted: the other terms enter with
//! their hand-set weights (they are part of the base evaluation), so the
//! fitted values are the material values that best explain the games given
//! the rest of the evaluation.

use crate::core::{Color, PieceKind, VariantKind};
use crate::datagen::Sample;
use crate::search::eval::{evaluate, material_values, phase};
use rayon::prelude::*;

/// Kinds with a material value to fit (the king has none).
pub const KINDS: [PieceKind; 6] =
    [PieceKind::Pawn, PieceKind::Knight, PieceKind::Bishop, PieceKind::Rook, PieceKind::Duke, PieceKind::Queen];
/// Weights fitted: a (middle game, end game) value per kind.
pub const WEIGHTS: usize = 2 * KINDS.len();

/// One position prepared for the fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The evaluation with today's weights, White's view.
    pub base: f64,
    /// Per weight: White's count minus Black's of the kind, times the phase share of the weight.
    pub features: [f64; WEIGHTS],
    /// The game result for White (1, 0.5, 0).
    pub result: f64,
    /// The search's score, White's view, in centipawns.
    pub score: f64,
}

/// Turns samples of game `kind` into entries (others are left out).
pub fn prepare(samples: &[Sample], kind: VariantKind) -> Vec<Entry> {
    samples
        .par_iter()
        .filter(|s| s.position.variant().kind == kind)
        .map(|s| {
            let pos = &s.position;
            let stm = evaluate(pos) as f64;
            let base = if pos.side_to_move() == Color::White { stm } else { -stm };
            let (ph, max) = phase(pos);
            let mg = ph as f64 / max.max(1) as f64;
            let mut features = [0.0; WEIGHTS];
            for (i, &k) in KINDS.iter().enumerate() {
                let diff = pos.pieces(Color::White, k).count() as f64 - pos.pieces(Color::Black, k).count() as f64;
                features[2 * i] = diff * mg;
                features[2 * i + 1] = diff * (1.0 - mg);
            }
            Entry { base, features, result: s.result as f64, score: s.score as f64 }
        })
        .collect()
}

/// The expected score of an evaluation `e` (centipawns) under scale `k`.
pub fn sigmoid(k: f64, e: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * e / 400.0))
}

impl Entry {
    /// The evaluation with corrections `delta`.
    fn eval(&self, delta: &[f64; WEIGHTS]) -> f64 {
        self.base + self.features.iter().zip(delta).map(|(f, d)| f * d).sum::<f64>()
    }

    /// The target: `lambda` of the result, the rest the search score's expectation.
    fn target(&self, k: f64, lambda: f64) -> f64 {
        lambda * self.result + (1.0 - lambda) * sigmoid(k, self.score)
    }
}

/// Mean squared error of the entries' expected scores against their targets.
pub fn loss(entries: &[Entry], k: f64, lambda: f64, delta: &[f64; WEIGHTS]) -> f64 {
    let sum: f64 = entries
        .par_iter()
        .map(|e| {
            let d = sigmoid(k, e.eval(delta)) - e.target(k, lambda);
            d * d
        })
        .sum();
    sum / entries.len().max(1) as f64
}

/// The scale `K` that best fits today's evaluation to the targets (golden-section search over 0.05..4).
pub fn fit_k(entries: &[Entry], lambda: f64) -> f64 {
    let zero = [0.0; WEIGHTS];
    let (mut a, mut b) = (0.05f64, 4.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let (c, d) = (b - g * (b - a), a + g * (b - a));
        if loss(entries, c, lambda, &zero) < loss(entries, d, lambda, &zero) {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

/// The gradient of [`loss`] with respect to the corrections.
fn gradient(entries: &[Entry], k: f64, lambda: f64, delta: &[f64; WEIGHTS]) -> [f64; WEIGHTS] {
    let scale = k * std::f64::consts::LN_10 / 400.0;
    let sum = entries
        .par_iter()
        .fold(
            || [0.0; WEIGHTS],
            |mut acc, e| {
                let s = sigmoid(k, e.eval(delta));
                let g = 2.0 * (s - e.target(k, lambda)) * s * (1.0 - s) * scale;
                for (a, f) in acc.iter_mut().zip(&e.features) {
                    *a += g * f;
                }
                acc
            },
        )
        .reduce(
            || [0.0; WEIGHTS],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        );
    sum.map(|g| g / entries.len().max(1) as f64)
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
}

impl Default for TuneConfig {
    fn default() -> TuneConfig {
        TuneConfig { epochs: 2000, learning_rate: 2.0, lambda: 0.5 }
    }
}

/// Fits the corrections with Adam at scale `k`, calling `report(epoch, loss)` every 100 epochs.
pub fn fit(entries: &[Entry], k: f64, cfg: TuneConfig, mut report: impl FnMut(usize, f64)) -> [f64; WEIGHTS] {
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-12);
    let (mut delta, mut m, mut v) = ([0.0; WEIGHTS], [0.0; WEIGHTS], [0.0; WEIGHTS]);
    for epoch in 1..=cfg.epochs {
        let g = gradient(entries, k, cfg.lambda, &delta);
        for i in 0..WEIGHTS {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            let mh = m[i] / (1.0 - b1.powi(epoch as i32));
            let vh = v[i] / (1.0 - b2.powi(epoch as i32));
            delta[i] -= cfg.learning_rate * mh / (vh.sqrt() + eps);
        }
        if epoch % 100 == 0 || epoch == cfg.epochs {
            report(epoch, loss(entries, k, cfg.lambda, &delta));
        }
    }
    delta
}

/// Today's material values of game `kind` plus the corrections, rounded: (mg, eg) per kind of [`KINDS`].
pub fn tuned_values(kind: VariantKind, delta: &[f64; WEIGHTS]) -> [(i32, i32); 6] {
    let values = material_values(kind);
    std::array::from_fn(|i| {
        let (mg, eg) = values[KINDS[i].index()];
        (mg + delta[2 * i].round() as i32, eg + delta[2 * i + 1].round() as i32)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries with varied material whose targets are exactly what known corrections predict.
    fn synthetic(truth: &[f64; WEIGHTS], k: f64) -> Vec<Entry> {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..3000)
            .map(|_| {
                let mg = (next() % 101) as f64 / 100.0;
                let mut features = [0.0; WEIGHTS];
                for i in 0..KINDS.len() {
                    let diff = (next() % 5) as f64 - 2.0;
                    features[2 * i] = diff * mg;
                    features[2 * i + 1] = diff * (1.0 - mg);
                }
                let base = (next() % 401) as f64 - 200.0;
                let mut e = Entry { base, features, result: 0.0, score: 0.0 };
                e.result = sigmoid(k, e.eval(truth));
                e
            })
            .collect()
    }

    #[test]
    fn the_fit_recovers_known_corrections() {
        let truth = [30.0, -20.0, 0.0, 50.0, -40.0, 10.0, 25.0, 25.0, -60.0, 80.0, 15.0, -35.0];
        let entries = synthetic(&truth, 1.0);
        let cfg = TuneConfig { epochs: 3000, learning_rate: 2.0, lambda: 1.0 };
        let before = loss(&entries, 1.0, 1.0, &[0.0; WEIGHTS]);
        let delta = fit(&entries, 1.0, cfg, |_, _| {});
        assert!(loss(&entries, 1.0, 1.0, &delta) < before / 100.0);
        for (d, t) in delta.iter().zip(&truth) {
            assert!((d - t).abs() < 3.0, "fitted {delta:?}, true {truth:?}");
        }
    }

    #[test]
    fn k_is_found_where_the_targets_were_made() {
        let entries = synthetic(&[0.0; WEIGHTS], 1.3);
        let k = fit_k(&entries, 1.0);
        assert!((k - 1.3).abs() < 0.02, "{k}");
    }

    #[test]
    fn prepared_entries_keep_white_s_view() {
        use crate::core::{Position, Variant};
        let mut pos = Position::start(Variant::haberkorn());
        let white = prepare(&[Sample { position: pos.clone(), score: 20, result: 1.0 }], VariantKind::Haberkorn);
        assert_eq!(white.len(), 1);
        assert!(white[0].features.iter().all(|&f| f == 0.0));
        let m = pos.legal_moves().into_iter().next().unwrap();
        pos.make(m);
        let black = prepare(&[Sample { position: pos.clone(), score: 20, result: 1.0 }], VariantKind::Haberkorn);
        assert_eq!(black[0].base, -(evaluate(&pos) as f64));
        assert!(prepare(&[Sample { position: pos, score: 0, result: 0.5 }], VariantKind::Hdc).is_empty());
    }
}
