//! Everything that scores a position, behind one interface: the search
//! holds an [`Evaluator`] per thread and asks it for static scores; `eval`
//! asks it for a trace. Two implementations: [`Linear`], a sum of weight ×
//! feature over hand-chosen features (material, placement, mobility, king
//! safety, pawn structure), one fitted weight set per game; and the
//! networks of [`nnue`]. Each game's default is its built-in network
//! (under `nets/`, embedded in the binary): a residual network whose output
//! is added to the linear evaluation's. This module holds [`Networks`], at
//! most one network per game (the built-in ones, or what `EvalFile` loaded),
//! and [`SearchEval`], a search thread's evaluation: its game's network, or
//! the linear evaluation when there is none.
//!
//! Inside, data flows one way: `pair` (the mg/eg unit) → `weights` (the
//! fitted sets) → `psq` (the material and placement tables) → `linear`
//! (the terms, with its per-thread `cache` and the sums `Linear` keeps from
//! move to move) → this module's interface.

pub(crate) mod cache;
pub(crate) mod evaluator;
pub(crate) mod linear;
pub mod nnue;
pub(crate) mod pair;
pub(crate) mod psq;
pub mod values;
pub mod weights;

pub use evaluator::Evaluator;
pub use linear::{Features, Linear, evaluate, features, trace};
pub use pair::Pair;
pub use values::piece_value;

use crate::core::{PerGame, PieceChanges, Position, VariantKind};
use nnue::{Network, Nnue};
use std::sync::Arc;

/// Each game's built-in network (`nets/<game>.nnue`, see `nets/README.md`).
static BUILTIN_NETS: PerGame<&[u8]> =
    PerGame::new([include_bytes!("../../nets/hdc.nnue"), include_bytes!("../../nets/haberkorn.nnue")]);

/// The networks for each game (none: that game uses [`Linear`]). The
/// default holds none; [`Networks::builtin`] the ones the engine plays with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Networks(PerGame<Option<Arc<Network>>>);

impl Default for Networks {
    fn default() -> Networks {
        Networks(PerGame::from_fn(|_| None))
    }
}

impl Networks {
    /// The built-in networks, one per game: residual networks on top of the
    /// linear evaluation, each of which passed an SPRT against it (docs/strength.md).
    pub fn builtin() -> Networks {
        static BUILTIN: std::sync::OnceLock<Networks> = std::sync::OnceLock::new();
        BUILTIN
            .get_or_init(|| {
                let mut nets = Networks::default();
                // The embedded files are checked by a test; a damaged one leaves the linear evaluation.
                for (_, bytes) in BUILTIN_NETS.iter() {
                    if let Ok(net) = Network::from_bytes(bytes) {
                        nets.set(Arc::new(net));
                    }
                }
                nets
            })
            .clone()
    }

    /// The network of `game`, if one is loaded.
    pub fn get(&self, game: VariantKind) -> Option<&Arc<Network>> {
        self.0[game].as_ref()
    }

    /// Puts `net` in place for its game.
    pub fn set(&mut self, net: Arc<Network>) {
        let game = net.game;
        self.0[game] = Some(net);
    }
}

/// A search thread's evaluation: the position's game's network when one is
/// loaded, the linear evaluation otherwise.
pub enum SearchEval {
    /// The linear evaluation.
    Linear(Linear),
    /// A network with its accumulator stack.
    Network(Box<Nnue>),
}

impl SearchEval {
    /// The evaluation for a search of `pos`: its game's network in `nets`, or the linear one.
    pub fn new(nets: &Networks, pos: &Position) -> SearchEval {
        match nets.get(pos.variant().kind) {
            Some(net) => SearchEval::Network(Box::new(Nnue::new(Arc::clone(net), pos))),
            None => SearchEval::Linear(Linear::new(pos)),
        }
    }
}

impl Evaluator for SearchEval {
    #[inline]
    fn evaluate(&mut self, pos: &Position) -> i32 {
        match self {
            SearchEval::Linear(e) => e.evaluate(pos),
            SearchEval::Network(e) => e.evaluate(pos),
        }
    }

    #[inline(always)]
    fn make(&mut self, pos: &Position, changes: &PieceChanges) {
        match self {
            SearchEval::Linear(e) => e.make(pos, changes),
            SearchEval::Network(e) => e.make(pos, changes),
        }
    }

    #[inline(always)]
    fn unmake(&mut self) {
        match self {
            SearchEval::Linear(e) => e.unmake(),
            SearchEval::Network(e) => e.unmake(),
        }
    }

    #[inline(always)]
    fn prefetch(&self, key: u64) {
        match self {
            SearchEval::Linear(e) => e.prefetch(key),
            SearchEval::Network(e) => e.prefetch(key),
        }
    }

    fn trace(&self, pos: &Position) -> String {
        match self {
            SearchEval::Linear(e) => e.trace(pos),
            SearchEval::Network(e) => e.trace(pos),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_networks_load_for_their_games() {
        let nets = Networks::builtin();
        for (game, bytes) in BUILTIN_NETS.iter() {
            // A failure here after `cubist tune` changed the linear weights: retrain the residual networks.
            let net =
                Network::from_bytes(bytes).expect("the built-in network is valid for this build's linear weights");
            assert_eq!(net.game, game);
            assert!(net.residual);
            assert_eq!(nets.get(game).map(|n| n.as_ref()), Some(&net));
        }
    }
}
