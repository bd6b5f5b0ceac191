//! AdamW for [`Model`]: the moments of every weight, bias-corrected steps,
//! weight decay on the weights (not the biases), and the clips that keep
//! the quantised network in its integer ranges.

use super::model::{FT_CLIP, Grads, Model, OUT_CLIP, ROW_CLIP};
use rayon::prelude::*;

/// AdamW's moments and step count.
#[derive(Clone, Debug, PartialEq)]
pub struct Optimiser {
    pub(super) m: Vec<Vec<f32>>,
    pub(super) v: Vec<Vec<f32>>,
    pub(super) m_b2: f32,
    pub(super) v_b2: f32,
    pub(super) t: u32,
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
    pub(super) fn apply(&mut self, model: &mut Model, g: &Grads, n: usize, lr: f32, decay: f32) {
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
