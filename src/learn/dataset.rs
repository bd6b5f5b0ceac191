//! The training positions of `cubist train`: each position as the
//! network's inputs (two bytes an input a perspective), its search score,
//! result and linear evaluation; the factoriser's rows each input trains
//! besides its own; and what a set adds to its positions (random children,
//! symmetric images).

use super::data::Sample;
use super::driver::{LearnError, Log, read_data_in_pieces};
use crate::core::{Color, Position, Symmetry, VariantKind};
use crate::eval::nnue::{INPUTS, features};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use std::path::PathBuf;

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
pub(super) fn perspectives(pos: &Position) -> (Vec<u16>, Vec<u16>) {
    let [white, black] = features(pos);
    if pos.side_to_move() == Color::White { (white, black) } else { (black, white) }
}

/// Calls `row` with every trained row of the inputs `list`: each input's
/// own row first, then the factoriser rows of each input in turn (the order
/// the sums and gradients are taken in, the same as when the set held the rows).
#[inline(always)]
pub(super) fn for_each_trained_row(list: &[u16], mut row: impl FnMut(usize)) {
    for &f in list {
        row(usize::from(f));
    }
    for &f in list {
        factor_rows(usize::from(f)).into_iter().for_each(&mut row);
    }
}

/// Games read into positions at a time while a data set is built: a
/// position takes kilobytes while its inputs take a few hundred bytes, so
/// the data are turned into inputs piece by piece (some 15,000 positions).
pub(super) const GAMES_A_PIECE: usize = 256;
/// The training positions of one game, as the network's inputs.
#[derive(Default)]
pub struct Dataset {
    /// Every entry's inputs, side to move's perspective first.
    pub(super) inputs: Vec<u16>,
    /// The entries.
    pub(super) entries: Vec<Entry>,
}

/// One position: where its inputs lie in [`Dataset::inputs`], and its targets.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    /// First input (side to move's perspective).
    pub(super) start: usize,
    /// Inputs per perspective (the two lists have the same length).
    pub(super) count: u16,
    /// The search's score, side to move's view.
    pub(super) score: f32,
    /// The game's result, side to move's view.
    pub(super) result: f32,
    /// The linear evaluation, side to move's view (for comparison, and the teacher).
    pub(super) linear: f32,
    /// A position made by random moves from a game's (see [`Dataset::augmented`]):
    /// its target is the linear evaluation alone.
    pub(super) taught: bool,
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
    pub(super) fn read(
        paths: &[PathBuf],
        game: VariantKind,
        augment: Augment,
        log: &mut dyn Log,
    ) -> Result<Dataset, LearnError> {
        let mut data = Dataset::default();
        let mut next = 0;
        read_data_in_pieces(paths, GAMES_A_PIECE, log, &mut |piece| {
            next = data.append(&piece, game, augment, next);
        })?;
        Ok(data)
    }

    /// The entries of game positions (not made by [`Dataset::augmented`]).
    pub(super) fn real(&self) -> impl ParallelIterator<Item = &Entry> {
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

    pub(super) fn lists(&self, e: &Entry) -> (&[u16], &[u16]) {
        let (s, n) = (e.start, e.count as usize);
        (&self.inputs[s..s + n], &self.inputs[s + n..s + 2 * n])
    }
}

/// A position one to three random legal moves from `pos` (captures
/// preferred half of the time), or none when the game ends first.
pub(super) fn random_child(pos: &Position, rng: &mut StdRng) -> Option<Position> {
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
