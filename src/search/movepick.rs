//! Move generation into a per-thread buffer and move ordering.
//!
//! Each search thread owns one [`MoveBuffer`]: a node appends its moves at
//! the end, picks them best-first by selection, and truncates the buffer back
//! when it returns, so the buffer works as a stack of move lists without a
//! heap allocation per node (and without 57 KB `MoveList`s on the stack).
//!
//! Selection swaps the best move of the rest into place, so the order of
//! equally scored moves depends on earlier swaps. Long lists that get past
//! their first move are picked through keys (score, then position) kept in
//! blocks of 16 with each block's largest key, instead of a scan of the rest:
//! the same move each time (the best score, the lowest position on ties),
//! found among the block maxima, and two blocks recomputed per pick (a few
//! vector instructions each).
//!
//! Order: the TT move, then winning or even captures and queen promotions by
//! MVV-LVA, then killers, the countermove and quiet moves by history, then
//! captures that lose material in exchange (SEE) and underpromotions.

use super::history::{CaptureKey, History, PieceTo, QuietWeights};
use super::see::{captured, see_ge};
use crate::core::movegen::MoveSink;
use crate::core::{Bitboard, Move, MoveFlag, PieceKind, Position, Square};
use crate::eval::piece_value;

/// Order score of the TT move.
const TT_MOVE: i32 = 10_000_000;
/// Base of winning and even captures and queen promotions.
const GOOD_CAPTURE: i32 = 2_000_000;
const KILLER_1: i32 = 1_000_000;
const KILLER_2: i32 = 990_000;
const COUNTER: i32 = 980_000;
/// Base of losing captures (below every quiet move).
pub const BAD_CAPTURE: i32 = -1_000_000;
const UNDERPROMOTION: i32 = -2_000_000;

/// Lists at least this long are picked through block maxima from their second pick on.
const BLOCKS_MIN: usize = 24;
/// Keys per block.
const BLOCK: usize = 16;
/// The key of a position picked already (below every real key).
const PICKED: i64 = i64::MIN;

/// The key of the score `score` at position `p` of a list: the larger
/// key is the higher score, on equal scores the lower position.
#[inline(always)]
fn block_key(score: i32, p: usize) -> i64 {
    (score as i64) << 16 | (0xffff - p) as i64
}

/// The list position of a [`block_key`].
#[inline(always)]
fn key_position(key: i64) -> usize {
    0xffff - (key & 0xffff) as usize
}

/// What a node's ordering reads besides the tables: its ply (for the
/// killers), the move before it (for the countermove) and the piece-to keys
/// of the moves one and two plies back (for the continuation history).
#[derive(Clone, Copy, Debug)]
pub struct NodeContext {
    /// The node's ply.
    pub ply: usize,
    /// The move that led to the node (`Move::NONE` after a null move or at the root).
    pub prev: Move,
    /// The piece-to keys of the moves one and two plies back (none when the continuation history is off).
    pub conts: [PieceTo; 2],
    /// The weights of the continuation and piece-to histories in quiet-move order.
    pub quiet: QuietWeights,
    /// The capture history's weight in capture order, in hundredths.
    pub capture_weight: i32,
}

impl NodeContext {
    /// The context of a root (no move before it).
    #[cfg(test)]
    pub const ROOT: NodeContext = NodeContext {
        ply: 0,
        prev: Move::NONE,
        conts: [PieceTo::NONE; 2],
        quiet: QuietWeights { cont: 0, piece_to: 0 },
        capture_weight: 0,
    };
}

/// The moves of every node on the current path, as one stack.
pub struct MoveBuffer {
    moves: Vec<Move>,
    scores: Vec<i32>,
    /// The pick keys of the lists on the stack: the list of `n` at
    /// `start..end` keeps, from `keys[2 * start]`, the [`block_key`] of each
    /// position `p` (relative to `start`; [`PICKED`] once picked, and as
    /// padding to whole blocks of [`BLOCK`]), then the largest key of each
    /// block (at most `2n` slots in all for `n >= BLOCKS_MIN`).
    keys: Vec<i64>,
}

impl Default for MoveBuffer {
    /// An empty buffer without room reserved (it grows as moves come).
    fn default() -> MoveBuffer {
        MoveBuffer { moves: Vec::new(), scores: Vec::new(), keys: Vec::new() }
    }
}

/// Pushes generated moves onto the buffer; with `targets_mask` set to the
/// enemy pieces it keeps captures only (plus promotions and en passant).
struct BufferSink<'a> {
    moves: &'a mut Vec<Move>,
    targets_mask: Bitboard,
    captures_only: bool,
}

impl MoveSink for BufferSink<'_> {
    #[inline]
    fn targets(&mut self, from: Square, targets: Bitboard) {
        (targets & self.targets_mask).into_iter().for_each(|to| self.moves.push(Move::new(from, to)));
    }

    #[inline(always)]
    fn pawn_targets(&mut self, targets: Bitboard, offset: i32, promo_squares: Bitboard, promotions: &[PieceKind]) {
        let keep = if self.captures_only { self.targets_mask | promo_squares } else { Bitboard::FULL };
        for to in targets & keep {
            let from = Square::from_index_unchecked((to.index() as i32 - offset) as usize);
            if promo_squares.has(to) {
                for &k in promotions {
                    self.moves.push(Move::promotion(from, to, k));
                }
            } else {
                self.moves.push(Move::new(from, to));
            }
        }
    }

    #[inline]
    fn one(&mut self, m: Move) {
        if !self.captures_only || m.flag() == MoveFlag::EnPassant {
            self.moves.push(m);
        }
    }

    #[inline]
    fn target_filter(&self) -> Bitboard {
        self.targets_mask
    }
}

impl MoveBuffer {
    /// An empty buffer with room for a few full hdc move lists.
    pub fn new() -> MoveBuffer {
        MoveBuffer {
            moves: Vec::with_capacity(1 << 15),
            scores: Vec::with_capacity(1 << 15),
            keys: Vec::with_capacity(1 << 16),
        }
    }

    /// Whether no moves are stored.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// Drops everything from `start` on.
    #[inline]
    pub fn truncate(&mut self, start: usize) {
        self.moves.truncate(start);
        self.scores.truncate(start);
    }

    /// Appends every legal move (or captures and promotions only) of `pos`; returns their range.
    pub fn generate(&mut self, pos: &Position, captures_only: bool) -> (usize, usize) {
        let start = self.moves.len();
        let mask = if captures_only { pos.color_pieces(!pos.side_to_move()) } else { Bitboard::FULL };
        pos.generate(&mut BufferSink { moves: &mut self.moves, targets_mask: mask, captures_only });
        self.scores.resize(self.moves.len(), 0);
        (start, self.moves.len())
    }

    /// The move at `i`.
    #[cfg(test)]
    #[inline]
    pub fn get(&self, i: usize) -> Move {
        self.moves[i]
    }

    /// The order score of the move at `i` (after [`MoveBuffer::score`] and [`MoveBuffer::pick`]).
    #[inline]
    pub fn score_at(&self, i: usize) -> i32 {
        self.scores[i]
    }

    /// Gives every move in `range` its order score and, when `tt_move` is
    /// among them, moves it to the front as the first pick would (it holds
    /// the one highest score), so that the first pick needs no scan.
    pub fn score(
        &mut self,
        pos: &Position,
        range: std::ops::Range<usize>,
        tt_move: Move,
        hist: &History,
        node: NodeContext,
    ) {
        let side = pos.side_to_move();
        let killers = hist.killers(node.ply);
        let counter = hist.countermove(side, node.prev);
        let quiet = hist.quiet_scorer(side, node.conts, node.quiet);
        let (start, end) = (range.start, range.end);
        for (&m, score) in self.moves[range.clone()].iter().zip(&mut self.scores[range]) {
            *score = if m == tt_move {
                TT_MOVE
            } else if let Some(s) = capture_score(pos, m) {
                if node.capture_weight == 0 {
                    s
                } else {
                    s + hist.capture_score(CaptureKey::of(pos, m)) * node.capture_weight / 100
                }
            } else if m == killers[0] {
                KILLER_1
            } else if m == killers[1] {
                KILLER_2
            } else if m == counter {
                COUNTER
            } else {
                quiet.score(pos, m)
            };
        }
        if tt_move.is_none() {
            return;
        }
        if let Some(at) = self.moves[start..end].iter().position(|&m| m == tt_move) {
            debug_assert_eq!(self.scan(start, end), start + at, "the TT move is the one best score");
            self.moves.swap(start, start + at);
            self.scores.swap(start, start + at);
        }
    }

    /// Moves the best-scored move of `i..end` to `i` and returns it (the
    /// first of equal scores); `start..end` is the node's list, picked in
    /// order from `start`.
    #[inline(always)]
    pub fn pick(&mut self, start: usize, i: usize, end: usize) -> Move {
        let n = end - start;
        let blocks = n >= BLOCKS_MIN && i > start;
        if blocks && i == start + 1 {
            self.build_blocks(start, i, end);
        }
        let best = if blocks {
            start + self.best_in_blocks(start, n)
        } else if self.scores[i] == TT_MOVE {
            // The one highest score, put first by `score`.
            i
        } else {
            self.scan(i, end)
        };
        debug_assert_eq!(best, self.scan(i, end));
        self.moves.swap(i, best);
        self.scores.swap(i, best);
        if blocks {
            // Position `i` leaves; `best` now holds the score that was at `i`.
            self.update_blocks(start, n, i - start, best - start, block_key(self.scores[best], best - start));
        }
        self.moves[i]
    }

    /// The position of the best score in `i..end`, the lowest on ties.
    #[inline]
    fn scan(&self, i: usize, end: usize) -> usize {
        let scores = &self.scores[i..end];
        let max = scores.iter().copied().max().unwrap_or(0);
        i + scores.iter().position(|&s| s == max).unwrap_or(0)
    }

    /// Builds the keys and block maxima of `start..end` with the positions before `i` picked.
    fn build_blocks(&mut self, start: usize, i: usize, end: usize) {
        let n = end - start;
        if self.keys.len() < 2 * end {
            self.keys.resize(2 * end, PICKED);
        }
        let (keys, maxima) = blocks(&mut self.keys, start, n);
        for (p, k) in keys.iter_mut().enumerate() {
            *k = if p >= n || start + p < i { PICKED } else { block_key(self.scores[start + p], p) };
        }
        for (b, m) in maxima.iter_mut().enumerate() {
            *m = block_max(&keys[b * BLOCK..(b + 1) * BLOCK]);
        }
    }

    /// The list position (from `start`) of the largest key of the list of `n` at `start`.
    #[inline]
    fn best_in_blocks(&mut self, start: usize, n: usize) -> usize {
        let (_, maxima) = blocks(&mut self.keys, start, n);
        key_position(maxima.iter().copied().max().unwrap_or(PICKED))
    }

    /// Marks position `picked` (from `start`, of a list of `n`) picked, gives
    /// position `moved` the key `key` (unless it is the same), and recomputes
    /// the maxima of their blocks.
    #[inline(always)]
    fn update_blocks(&mut self, start: usize, n: usize, picked: usize, moved: usize, key: i64) {
        let (keys, maxima) = blocks(&mut self.keys, start, n);
        keys[moved] = key;
        keys[picked] = PICKED;
        let (bp, bm) = (picked / BLOCK, moved / BLOCK);
        maxima[bp] = block_max(&keys[bp * BLOCK..(bp + 1) * BLOCK]);
        if bm != bp {
            maxima[bm] = block_max(&keys[bm * BLOCK..(bm + 1) * BLOCK]);
        }
    }
}

/// The keys (whole blocks) and the block maxima of the list of `n` at
/// `start` within a [`MoveBuffer`]'s `keys`.
#[inline(always)]
fn blocks(keys: &mut [i64], start: usize, n: usize) -> (&mut [i64], &mut [i64]) {
    let nb = n.div_ceil(BLOCK);
    keys[2 * start..2 * start + nb * (BLOCK + 1)].split_at_mut(nb * BLOCK)
}

/// The largest key of one block.
#[inline(always)]
fn block_max(keys: &[i64]) -> i64 {
    let block: &[i64; BLOCK] = keys.try_into().unwrap_or(&[PICKED; BLOCK]);
    block.iter().copied().fold(PICKED, i64::max)
}

/// Whether a move is quiet: no capture, no promotion (a plain move is
/// answered from the mailbox alone).
#[inline]
pub fn is_quiet(pos: &Position, m: Move) -> bool {
    if m.is_plain() {
        return pos.board[m.to().index()] == 0;
    }
    m.promotion_kind().is_none() && captured(pos, m).is_none()
}

/// The order score of a capture or promotion (`None` for quiet moves): MVV-LVA
/// for captures that do not lose material in exchange (3D SEE),
/// [`BAD_CAPTURE`] and below for those that do.
#[inline(always)]
pub fn capture_score(pos: &Position, m: Move) -> Option<i32> {
    if is_quiet(pos, m) {
        return None;
    }
    let kind = pos.variant().kind;
    let promo = m.promotion_kind();
    let victim = captured(pos, m);
    if let Some(p) = promo
        && p != PieceKind::Queen
    {
        return Some(UNDERPROMOTION + victim.map_or(0, |v| piece_value(kind, v)));
    }
    let victim_value = victim.map_or(0, |v| piece_value(kind, v)) + promo.map_or(0, |p| piece_value(kind, p));
    let attacker = pos.piece_at(m.from()).map_or(PieceKind::Pawn, |p| p.kind);
    let attacker_value = piece_value(kind, attacker);
    let mvv_lva = victim_value * 16 - attacker_value / 8;
    if promo.is_some() || see_ge(pos, m, 0) { Some(GOOD_CAPTURE + mvv_lva) } else { Some(BAD_CAPTURE + mvv_lva) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;

    #[test]
    fn captures_only_generation_matches_the_filtered_full_list() {
        let mut pos = Position::start(Variant::haberkorn());
        for t in ["e2-IVe4-IV", "d7-Vd5-V", "e4-IVd5-V"] {
            pos.play(t).unwrap();
        }
        let mut buf = MoveBuffer::new();
        let (s, e) = buf.generate(&pos, false);
        assert_eq!(e - s, pos.legal_moves().len());
        let expect: Vec<Move> = (s..e).map(|i| buf.get(i)).filter(|&m| !is_quiet(&pos, m)).collect();
        let (cs, ce) = buf.generate(&pos, true);
        let got: Vec<Move> = (cs..ce).map(|i| buf.get(i)).collect();
        assert_eq!(got, expect);
        buf.truncate(s);
        assert!(buf.is_empty());
    }

    /// Plays random games and checks, at every node, that captures-only
    /// generation lists exactly the full list's captures and promotions, in
    /// the same order; returns how many of them were promotion pushes.
    fn captures_only_walk(variant: Variant, seed: u64) -> usize {
        use rand::rngs::StdRng;
        use rand::seq::IndexedRandom;
        use rand::{RngExt, SeedableRng};
        let mut rng = StdRng::seed_from_u64(seed);
        let mut buf = MoveBuffer::new();
        let mut promotion_pushes = 0;
        for _ in 0..8 {
            let mut pos = Position::start(variant);
            for _ in 0..300 {
                let (s, e) = buf.generate(&pos, false);
                if s == e {
                    break;
                }
                let full: Vec<Move> = (s..e).map(|i| buf.get(i)).collect();
                buf.truncate(s);
                let expect: Vec<Move> = full.iter().copied().filter(|&m| !is_quiet(&pos, m)).collect();
                let (cs, ce) = buf.generate(&pos, true);
                let got: Vec<Move> = (cs..ce).map(|i| buf.get(i)).collect();
                buf.truncate(cs);
                assert_eq!(got, expect, "captures-only list in {}", pos.fen());
                promotion_pushes +=
                    got.iter().filter(|&&m| m.promotion_kind().is_some() && captured(&pos, m).is_none()).count();
                // Captures half the time, so that the armies thin out and pawns run.
                let captures: Vec<Move> = expect.iter().copied().filter(|&m| captured(&pos, m).is_some()).collect();
                let m = if !captures.is_empty() && rng.random_range(0..2) == 0 {
                    *captures.choose(&mut rng).unwrap()
                } else {
                    *full.choose(&mut rng).unwrap()
                };
                pos.make(m);
            }
        }
        promotion_pushes
    }

    #[test]
    fn captures_only_generation_matches_the_full_list_in_random_games() {
        let mut pushes = captures_only_walk(Variant::hdc(), 11);
        pushes += captures_only_walk(Variant::haberkorn(), 12);
        pushes += captures_only_walk(Variant::haberkorn().with_layers(3).unwrap(), 13);
        pushes += captures_only_walk(Variant::haberkorn_with(8, 4, 5, true, true).unwrap(), 14);
        assert!(pushes > 0, "the walks never met a promotion push");
    }

    #[test]
    fn tt_move_first_then_captures() {
        let mut pos = Position::start(Variant::hdc());
        pos.play("e2-IVe4-IV").unwrap();
        pos.play("d7-IVd5-IV").unwrap();
        let mut buf = MoveBuffer::new();
        let (s, e) = buf.generate(&pos, false);
        let tt = buf.get(s + 3);
        let (moves, scores) = (buf.moves.clone(), buf.scores.clone());
        buf.score(&pos, s..e, tt, &History::new(), NodeContext::ROOT);
        assert_eq!(buf.get(s), tt);
        // What the first pick would have made of the list.
        let mut picked = MoveBuffer { moves, scores, keys: Vec::new() };
        picked.score(&pos, s..e, Move::NONE, &History::new(), NodeContext::ROOT);
        picked.scores[s + 3] = TT_MOVE;
        assert_eq!(picked.pick(s, s, e), tt);
        assert_eq!((picked.moves, picked.scores), (buf.moves.clone(), buf.scores.clone()));
        assert_eq!(buf.pick(s, s, e), tt, "picking it again changes nothing");
        let second = buf.pick(s, s + 1, e);
        assert_eq!(second.to().to_string(), "d5-IV", "the pawn capture comes next: {second}");
    }

    #[test]
    fn the_tt_move_holds_the_one_highest_score() {
        use crate::core::VariantKind;
        use crate::search::history::HISTORY_MAX;
        for kind in [VariantKind::Hdc, VariantKind::Haberkorn] {
            let top = (0..PieceKind::COUNT).filter_map(PieceKind::from_index).map(|k| piece_value(kind, k)).max();
            // The best capture: the dearest victim plus a promotion, by the cheapest attacker.
            let best_capture = GOOD_CAPTURE + 2 * 16 * top.unwrap_or(0);
            assert!(best_capture < TT_MOVE && KILLER_1 < TT_MOVE && HISTORY_MAX < TT_MOVE, "{kind:?}");
        }
    }

    #[test]
    fn tree_picks_equal_selection_with_ties() {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        let mut rng = StdRng::seed_from_u64(7);
        for round in 0..200 {
            let n = rng.random_range(1..300);
            let spread = [2, 5, 50, 100_000][round % 4];
            let mut buf = MoveBuffer::new();
            // Something below, as a parent node's list would be.
            let below = rng.random_range(0..40);
            for j in 0..below + n {
                buf.moves.push(Move::new(Square::from_index_unchecked(j % 512), Square::from_index_unchecked(j / 512)));
                buf.scores.push(rng.random_range(0..spread) - spread / 2);
            }
            let (start, end) = (below, below + n);
            let (mut moves, mut scores) = (buf.moves.clone(), buf.scores.clone());
            for i in start..end {
                // Plain selection with swaps.
                let mut best = i;
                for j in i + 1..end {
                    if scores[j] > scores[best] {
                        best = j;
                    }
                }
                moves.swap(i, best);
                scores.swap(i, best);
                assert_eq!(buf.pick(start, i, end), moves[i], "round {round}, pick {i}");
                assert_eq!(buf.score_at(i), scores[i]);
            }
            assert_eq!(buf.moves, moves);
        }
    }
}
