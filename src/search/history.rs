//! Per-thread move-ordering memory: killer moves per ply, countermoves (the
//! reply that refuted a move last time), the butterfly history of quiet
//! moves (by side, from-square and to-square), the continuation history
//! (a quiet move's piece kind and to-square after the piece kind and
//! to-square of the move one or two plies back) and the capture history
//! (by side, the capturing piece's kind and to-square, and the captured
//! kind), all updated with "gravity" so that values stay within
//! ±`HISTORY_MAX`.
//!
//! The tables live as long as the search threads: [`Histories`] keeps one
//! per thread from one `go` to the next, as Stockfish does, so what a move's
//! search learnt orders the next move's search; `ucinewgame` (and `Clear
//! Hash`) forget them. Killers, which are tied to plies, start empty at each
//! search. A thread's tables are allocated at its first search, the
//! continuation history only for a game that reads it (`cont_history_weight`
//! above 0), so idle threads and a game without it pay no memory for them.

use super::score::MAX_PLY;
use super::see::captured;
use crate::core::{Color, Move, PieceKind, Position};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// History values stay within ±this.
pub const HISTORY_MAX: i32 = 16_384;

/// The number of piece-to keys: a piece kind and a to-square, `kind * 512 + to`.
pub const PIECE_TO: usize = PieceKind::COUNT * 512;

/// A move's piece-to key (see [`PIECE_TO`]), or [`PieceTo::NONE`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PieceTo(u16);

impl Default for PieceTo {
    fn default() -> PieceTo {
        PieceTo::NONE
    }
}

impl PieceTo {
    /// No move (a null move, or a ply before the root).
    pub const NONE: PieceTo = PieceTo(u16::MAX);

    /// The key of `m` in `pos` before it is made: the moving piece's kind and the to-square.
    #[inline]
    pub fn of(pos: &Position, m: Move) -> PieceTo {
        match pos.piece_at(m.from()) {
            Some(p) if !m.is_none() => PieceTo((p.kind.index() * 512 + m.to().index()) as u16),
            _ => PieceTo::NONE,
        }
    }

    /// Whether this is [`PieceTo::NONE`].
    #[inline]
    pub fn is_none(self) -> bool {
        self == PieceTo::NONE
    }
}

/// A capture's or promotion's key in the capture history: the side, the
/// moving piece's piece-to key and the captured kind (a promotion without
/// capture counts as capturing a king, which no move captures).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CaptureKey {
    side: Color,
    pt: PieceTo,
    victim: Option<PieceKind>,
}

impl CaptureKey {
    /// The key of `m` in `pos` before it is made.
    #[inline]
    pub fn of(pos: &Position, m: Move) -> CaptureKey {
        CaptureKey { side: pos.side_to_move(), pt: PieceTo::of(pos, m), victim: captured(pos, m) }
    }

    /// The table slot (`None` for no move).
    #[inline]
    fn index(self) -> Option<usize> {
        let v = self.victim.unwrap_or(PieceKind::King).index();
        (!self.pt.is_none()).then(|| (self.side.index() * PIECE_TO + self.pt.0 as usize) * PieceKind::COUNT + v)
    }
}

/// The move-ordering memory of one search thread (about 29 MiB, allocated
/// at the thread's first search and touched sparsely: 1 MiB of butterfly history, 2 MiB
/// of countermoves, 98 KiB of capture history and 25.7 MiB of continuation
/// history, 3,584 × 3,584 piece-to pairs of `i16`, shared by both colours,
/// made only for a game that reads it).
pub struct History {
    butterfly: Vec<i16>,
    piece_to: Vec<i16>,
    counter: Vec<Move>,
    capture: Vec<i16>,
    continuation: Vec<i16>,
    killers: [[Move; 2]; MAX_PLY + 1],
}

/// The continuation row of no move: all zero.
static ZERO_ROW: [i16; PIECE_TO] = [0; PIECE_TO];

/// The weights of the tables beside the butterfly history in a quiet
/// move's score, in hundredths (0: the table is not read).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct QuietWeights {
    /// The continuation history's.
    pub cont: i32,
    /// The piece-to history's.
    pub piece_to: i32,
}

/// Scores quiet moves of one node (see [`History::quiet_scorer`]).
pub struct QuietScorer<'a> {
    butterfly: &'a [i16],
    piece_to: &'a [i16],
    rows: [&'a [i16]; 2],
    weights: QuietWeights,
}

impl QuietScorer<'_> {
    /// Twice the butterfly history of `m` plus its weighted continuation
    /// and piece-to histories.
    #[inline(always)]
    pub fn score(&self, pos: &Position, m: Move) -> i32 {
        let bf = self.butterfly[(m.bits() & 0x3_ffff) as usize] as i32;
        let more = match pos.piece_at(m.from()) {
            Some(p) => {
                let pt = p.kind.index() * 512 + m.to().index();
                let cont = (self.rows[0][pt] as i32 + self.rows[1][pt] as i32) * self.weights.cont / 100;
                cont + self.piece_to[pt] as i32 * self.weights.piece_to / 100
            }
            None => 0,
        };
        2 * bf + more
    }
}

/// Moves a history entry by `bonus` with gravity (a large entry moves less towards its bound).
#[inline]
fn apply(e: &mut i16, bonus: i32) {
    let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let v = *e as i32 + b - *e as i32 * b.abs() / HISTORY_MAX;
    *e = v.clamp(-HISTORY_MAX, HISTORY_MAX) as i16;
}

impl Default for History {
    fn default() -> History {
        History::new()
    }
}

impl History {
    /// Empty tables.
    pub fn new() -> History {
        let mut h = History::unallocated();
        h.allocate(true);
        h
    }

    /// Allocates the tables not allocated yet: the butterfly history and the
    /// countermoves, and the continuation history if `continuation`.
    fn allocate(&mut self, continuation: bool) {
        if self.butterfly.is_empty() {
            self.butterfly = vec![0; 2 * 512 * 512];
            self.piece_to = vec![0; 2 * PIECE_TO];
            self.counter = vec![Move::NONE; 2 * 512 * 512];
            self.capture = vec![0; 2 * PIECE_TO * PieceKind::COUNT];
        }
        if continuation && self.continuation.is_empty() {
            self.continuation = vec![0; PIECE_TO * PIECE_TO];
        }
    }

    /// Tables not allocated yet (a pool thread that has not searched);
    /// [`Histories::lease`] allocates them.
    fn unallocated() -> History {
        History {
            butterfly: Vec::new(),
            piece_to: Vec::new(),
            counter: Vec::new(),
            capture: Vec::new(),
            continuation: Vec::new(),
            killers: [[Move::NONE; 2]; MAX_PLY + 1],
        }
    }

    /// Forgets everything.
    #[cfg(test)]
    pub fn clear(&mut self) {
        self.butterfly.fill(0);
        self.piece_to.fill(0);
        self.counter.fill(Move::NONE);
        self.capture.fill(0);
        self.continuation.fill(0);
        self.killers = [[Move::NONE; 2]; MAX_PLY + 1];
    }

    /// The table slot of `m` for `side`: the side, then the move's from and
    /// to squares as they lie in its low 18 bits.
    #[inline]
    fn index(side: Color, m: Move) -> usize {
        side.index() << 18 | (m.bits() & 0x3_ffff) as usize
    }

    /// The butterfly history of a quiet move.
    #[cfg(test)]
    pub fn score(&self, side: Color, m: Move) -> i32 {
        self.butterfly[History::index(side, m)] as i32
    }

    /// Moves a quiet move's butterfly and piece-to histories (its key `pt`)
    /// by `bonus` (positive: it cut off; negative: it failed).
    #[inline]
    pub fn update(&mut self, side: Color, m: Move, pt: PieceTo, bonus: i32) {
        apply(&mut self.butterfly[History::index(side, m)], bonus);
        if !pt.is_none() {
            apply(&mut self.piece_to[side.index() * PIECE_TO + pt.0 as usize], bonus);
        }
    }

    /// The capture history of a capture or promotion.
    #[inline]
    pub fn capture_score(&self, key: CaptureKey) -> i32 {
        key.index().map_or(0, |i| self.capture[i] as i32)
    }

    /// Moves a capture's history by `bonus` (positive: it cut off; negative:
    /// it was tried before the move that did).
    #[inline]
    pub fn update_capture(&mut self, key: CaptureKey, bonus: i32) {
        if let Some(i) = key.index() {
            apply(&mut self.capture[i], bonus);
        }
    }

    /// The continuation history of the quiet move `m` (piece-to key `pt`)
    /// after the moves one and two plies back (keys `conts`), summed.
    #[cfg(test)]
    pub fn continuation(&self, conts: [PieceTo; 2], pt: PieceTo) -> i32 {
        conts
            .iter()
            .filter(|c| !c.is_none())
            .map(|c| self.continuation[c.0 as usize * PIECE_TO + pt.0 as usize] as i32)
            .sum()
    }

    /// Moves the continuation history of `pt` after each of `conts` by `bonus`.
    #[inline]
    pub fn update_continuation(&mut self, conts: [PieceTo; 2], pt: PieceTo, bonus: i32) {
        if pt.is_none() {
            return;
        }
        for c in conts.iter().filter(|c| !c.is_none()) {
            apply(&mut self.continuation[c.0 as usize * PIECE_TO + pt.0 as usize], bonus);
        }
    }

    /// The ordering score of a quiet move that is no killer or countermove:
    /// twice its butterfly history plus its continuation and piece-to
    /// histories times their `weights` (the reduction of LMR reads half of it).
    #[inline]
    pub fn quiet_score(&self, pos: &Position, m: Move, conts: [PieceTo; 2], weights: QuietWeights) -> i32 {
        self.quiet_scorer(pos.side_to_move(), conts, weights).score(pos, m)
    }

    /// [`History::quiet_score`] for many moves of one node: the side's
    /// butterfly table and the two continuation rows looked up once.
    #[inline]
    pub fn quiet_scorer(&self, side: Color, conts: [PieceTo; 2], weights: QuietWeights) -> QuietScorer<'_> {
        let row = |c: PieceTo| {
            if c.is_none() {
                &ZERO_ROW[..]
            } else {
                &self.continuation[c.0 as usize * PIECE_TO..(c.0 as usize + 1) * PIECE_TO]
            }
        };
        let side_start = side.index() << 18;
        QuietScorer {
            butterfly: &self.butterfly[side_start..side_start + (1 << 18)],
            piece_to: &self.piece_to[side.index() * PIECE_TO..(side.index() + 1) * PIECE_TO],
            rows: [row(conts[0]), row(conts[1])],
            weights,
        }
    }

    /// The killer moves at `ply`.
    #[inline]
    pub fn killers(&self, ply: usize) -> [Move; 2] {
        self.killers[ply.min(MAX_PLY)]
    }

    /// Records a quiet move that cut off at `ply`.
    pub fn add_killer(&mut self, ply: usize, m: Move) {
        let k = &mut self.killers[ply.min(MAX_PLY)];
        if k[0] != m {
            k[1] = k[0];
            k[0] = m;
        }
    }

    /// Clears the killers of `ply` (done when a node at `ply - 1` starts, so siblings share them).
    pub fn clear_killers(&mut self, ply: usize) {
        self.killers[ply.min(MAX_PLY)] = [Move::NONE; 2];
    }

    /// The stored reply to the opponent's `prev` move (by `side` to move now).
    #[inline]
    pub fn countermove(&self, side: Color, prev: Move) -> Move {
        if prev.is_none() { Move::NONE } else { self.counter[History::index(side, prev)] }
    }

    /// Starts loading the slot of [`History::countermove`]`(side, prev)`
    /// into the cache (the table is 2 MiB; its first load, when the node's
    /// moves are scored, waited for memory).
    #[inline]
    pub fn prefetch_countermove(&self, side: Color, prev: Move) {
        if !prev.is_none() {
            crate::core::prefetch::prefetch(&self.counter[History::index(side, prev)]);
        }
    }

    /// Records `m` as the reply that refuted `prev`.
    pub fn set_countermove(&mut self, side: Color, prev: Move, m: Move) {
        if !prev.is_none() {
            self.counter[History::index(side, prev)] = m;
        }
    }
}

/// The histories of a pool's search threads, one per thread, kept between
/// searches. A thread's tables are allocated when it first searches, so a
/// pool of many threads costs nothing until they run.
pub struct Histories {
    slots: Vec<Mutex<History>>,
}

impl Histories {
    /// Empty histories for `threads` search threads.
    pub fn new(threads: usize) -> Histories {
        Histories { slots: (0..threads.max(1)).map(|_| Mutex::new(History::unallocated())).collect() }
    }

    /// The histories of search thread `id` for one search (the last thread's
    /// for an `id` beyond the pool), allocated if need be, killers cleared.
    /// The continuation table (25.7 MiB) is allocated only for a search that
    /// reads it (`continuation`: its game's weight is not 0), so that a
    /// game without it does not pay its memory. A search holds its thread's
    /// lock to the end; nothing else contends.
    pub fn lease(&self, id: usize, continuation: bool) -> MutexGuard<'_, History> {
        let slot = &self.slots[id.min(self.slots.len() - 1)];
        let mut h = slot.lock().unwrap_or_else(PoisonError::into_inner);
        h.allocate(continuation);
        h.killers = [[Move::NONE; 2]; MAX_PLY + 1];
        h
    }

    /// Whether thread `id`'s continuation table is allocated.
    #[cfg(test)]
    fn has_continuation(&self, id: usize) -> bool {
        !self.slots[id].lock().unwrap_or_else(PoisonError::into_inner).continuation.is_empty()
    }

    /// Forgets what every thread learnt (`ucinewgame`), releasing the memory.
    pub fn clear(&self) {
        for slot in &self.slots {
            *slot.lock().unwrap_or_else(PoisonError::into_inner) = History::unallocated();
        }
    }
}

/// The history bonus for a cutoff at `depth`.
#[inline]
pub fn bonus(depth: i32) -> i32 {
    (depth * depth * 16 + depth * 32).min(2_000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Position, Variant};

    #[test]
    fn history_stays_bounded_and_killers_shift() {
        let pos = Position::start(Variant::hdc());
        let moves = pos.legal_moves();
        let mut h = History::new();
        for _ in 0..1000 {
            h.update(Color::White, moves[0], PieceTo::of(&pos, moves[0]), bonus(20));
        }
        assert!(h.score(Color::White, moves[0]) <= HISTORY_MAX);
        let only_piece_to = QuietWeights { cont: 0, piece_to: 100 };
        let piece_to = |h: &History, side, m| h.quiet_scorer(side, [PieceTo::NONE; 2], only_piece_to).score(&pos, m);
        assert_eq!(
            piece_to(&h, Color::White, moves[0]),
            3 * h.score(Color::White, moves[0]),
            "updated with the butterfly"
        );
        assert_eq!(piece_to(&h, Color::Black, moves[0]), 0, "by side");
        assert!(h.score(Color::White, moves[0]) > HISTORY_MAX / 2);
        assert_eq!(h.score(Color::Black, moves[0]), 0);
        h.add_killer(3, moves[1]);
        h.add_killer(3, moves[2]);
        h.add_killer(3, moves[2]);
        assert_eq!(h.killers(3), [moves[2], moves[1]]);
        let (c, pt) = (PieceTo::of(&pos, moves[3]), PieceTo::of(&pos, moves[4]));
        assert_eq!(PieceTo::of(&pos, Move::NONE), PieceTo::NONE);
        for _ in 0..1000 {
            h.update_continuation([c, PieceTo::NONE], pt, -bonus(20));
        }
        assert!(h.continuation([c, PieceTo::NONE], pt) >= -HISTORY_MAX);
        assert!(h.continuation([c, c], pt) < -HISTORY_MAX);
        assert_eq!(h.continuation([PieceTo::NONE, c], pt), h.continuation([c, PieceTo::NONE], pt));
        let pawn = PieceTo::of(&pos, moves[0]);
        let key = |side, victim| CaptureKey { side, pt: pawn, victim };
        for _ in 0..1000 {
            h.update_capture(key(Color::White, Some(PieceKind::Queen)), bonus(20));
        }
        assert!((HISTORY_MAX / 2..=HISTORY_MAX).contains(&h.capture_score(key(Color::White, Some(PieceKind::Queen)))));
        assert_eq!(h.capture_score(key(Color::Black, Some(PieceKind::Queen))), 0, "by side");
        assert_eq!(h.capture_score(key(Color::White, Some(PieceKind::Rook))), 0, "by victim");
        assert_eq!(h.capture_score(key(Color::White, None)), 0, "a promotion is its own slot");
        assert_eq!(h.capture_score(CaptureKey { side: Color::White, pt: PieceTo::NONE, victim: None }), 0);
        h.set_countermove(Color::Black, moves[0], moves[5]);
        assert_eq!(h.countermove(Color::Black, moves[0]), moves[5]);
        h.clear();
        assert_eq!(h.killers(3), [Move::NONE; 2]);
        assert_eq!(h.continuation([c, c], pt), 0);
        assert_eq!(piece_to(&h, Color::White, moves[0]), 0);
        assert_eq!(h.capture_score(key(Color::White, Some(PieceKind::Queen))), 0);
    }

    #[test]
    fn the_continuation_table_is_made_only_for_a_search_that_reads_it() {
        let all = Histories::new(2);
        drop(all.lease(0, false));
        assert!(!all.has_continuation(0));
        drop(all.lease(0, true));
        assert!(all.has_continuation(0));
        assert!(!all.has_continuation(1));
        drop(all.lease(0, false));
        assert!(all.has_continuation(0), "kept once made, like the other tables");
        all.clear();
        assert!(!all.has_continuation(0));
    }

    #[test]
    fn histories_outlive_a_search_until_cleared() {
        let pos = Position::start(Variant::haberkorn());
        let m = pos.legal_moves()[3];
        let all = Histories::new(2);
        {
            let mut h = all.lease(1, true);
            h.update(Color::White, m, PieceTo::of(&pos, m), bonus(6));
            h.add_killer(2, m);
            h.set_countermove(Color::Black, m, m);
        }
        let h = all.lease(1, true);
        assert_eq!(h.score(Color::White, m), bonus(6), "the history is kept");
        assert_eq!(h.countermove(Color::Black, m), m, "the countermove is kept");
        assert_eq!(h.killers(2), [Move::NONE; 2], "killers start empty");
        drop(h);
        assert_eq!(all.lease(0, true).score(Color::White, m), 0, "each thread has its own");
        assert_eq!(all.lease(7, true).score(Color::White, m), bonus(6), "an id beyond the pool gets the last thread's");
        all.clear();
        assert_eq!(all.lease(1, true).score(Color::White, m), 0, "cleared");
        assert_eq!(all.lease(1, true).countermove(Color::Black, m), Move::NONE);
    }
}
