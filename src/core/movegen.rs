//! Legal move generation for every variant, through one code path that reads
//! the variant's tables. Moves go to a [`MoveSink`]: a list for play and
//! search, a counter for perft's bulk counting at the leaves.
//!
//! Method: the checkers come from the position (make/unmake keep them), and
//! the pinned pieces (with the line each must keep to) from the enemy sliders
//! in line with the king; then every piece's targets are masked by the check
//! path and its pin line, so only king moves and en passant need an attack
//! test of their own.

use super::bitboard::Bitboard;
use super::geometry::{NUM_DIRS, line_attacks};
use super::moves::{Move, MoveFlag, MoveList};
use super::piece::PieceKind;
use super::position::Position;
use super::square::Square;
use super::variant::VariantKind;
use arrayvec::ArrayVec;

/// Receives generated moves.
pub trait MoveSink {
    /// Moves of the piece on `from` to each square of `targets` (no promotion).
    fn targets(&mut self, from: Square, targets: Bitboard);
    /// Pawn moves onto `targets`, each from `to - offset`; those landing on
    /// `promo_squares` promote to each of `promotions`.
    fn pawn_targets(&mut self, targets: Bitboard, offset: i32, promo_squares: Bitboard, promotions: &[PieceKind]);
    /// One move.
    fn one(&mut self, m: Move);
    /// The only squares non-pawn moves may land on (e.g. the enemy pieces for
    /// a captures-only sink). The generator applies it before its attack
    /// tests, so a narrow filter saves work; it must contain every square the
    /// sink keeps. Castling is generated only with the full board.
    #[inline]
    fn target_filter(&self) -> Bitboard {
        Bitboard::FULL
    }
}

impl MoveSink for MoveList {
    #[inline]
    fn targets(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.push(Move::new(from, to));
        }
    }

    #[inline]
    fn pawn_targets(&mut self, targets: Bitboard, offset: i32, promo_squares: Bitboard, promotions: &[PieceKind]) {
        for to in targets {
            let from = Square::from_index_unchecked((to.index() as i32 - offset) as usize);
            if promo_squares.has(to) {
                for &k in promotions {
                    self.push(Move::promotion(from, to, k));
                }
            } else {
                self.push(Move::new(from, to));
            }
        }
    }

    #[inline]
    fn one(&mut self, m: Move) {
        self.push(m);
    }
}

/// Counts moves without listing them (perft's bulk counting).
#[derive(Default)]
pub struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline]
    fn targets(&mut self, _from: Square, targets: Bitboard) {
        self.0 += targets.count() as u64;
    }

    #[inline]
    fn pawn_targets(&mut self, targets: Bitboard, _offset: i32, promo_squares: Bitboard, promotions: &[PieceKind]) {
        self.0 += (targets - promo_squares).count() as u64
            + (targets & promo_squares).count() as u64 * promotions.len() as u64;
    }

    #[inline]
    fn one(&mut self, _m: Move) {
        self.0 += 1;
    }
}

/// Checkers and pins seen from the king of the side to move.
struct KingView {
    checkers: u32,
    /// Squares a non-king move must land on: the checker and the squares
    /// between it and the king (everything when not in check).
    check_mask: Bitboard,
    pinned: Bitboard,
    /// Each pinned piece and its pinner: it may move along the line up to
    /// and including the pinner.
    pins: ArrayVec<(Square, Square), NUM_DIRS>,
}

impl Position {
    fn king_view(&self, king: Square) -> KingView {
        let r = self.rules;
        let us = self.side;
        let ours = self.by_color[us.index()];
        let theirs = self.by_color[(!us).index()];
        let occ = ours | theirs;
        let sliders = self.sliders();
        let mut view = KingView {
            checkers: self.checkers.count(),
            check_mask: Bitboard::EMPTY,
            pinned: Bitboard::EMPTY,
            pins: ArrayVec::new(),
        };
        // The checkers are kept by make/unmake; a sliding checker's line up to it may be blocked.
        for c in self.checkers {
            view.check_mask.set(c);
            if sliders.has(c) {
                view.check_mask |= r.geometry.between(king, c);
            }
        }
        // A pin: one of their sliders in line with the king, sliding along
        // the line, with exactly one piece between, ours.
        let their_lines = PieceKind::SLIDERS
            .iter()
            .fold(Bitboard::EMPTY, |acc, &k| acc | (self.by_kind[k.index()] & r.slider_lines[k.index()][king.index()]));
        for s in their_lines & theirs {
            let line = r.geometry.between(king, s);
            let between = line & occ;
            if between.count() == 1 && (between & ours).any() {
                view.pinned |= between;
                view.pins.push((between.first().unwrap_or(s), s));
            }
        }
        if view.checkers == 0 {
            view.check_mask = Bitboard::FULL;
        }
        view
    }

    /// Generates every legal move into `sink`.
    pub fn generate<S: MoveSink>(&self, sink: &mut S) {
        let r = self.rules;
        let us = self.side;
        let them = !us;
        let ours = self.by_color[us.index()];
        let theirs = self.by_color[them.index()];
        let occ = ours | theirs;
        let king = self.king(us);
        let view = self.king_view(king);

        // King steps: the only moves that need an attack test per target.
        let mut safe = Bitboard::EMPTY;
        let without_king = occ - Bitboard::from(king);
        let filter = sink.target_filter();
        for t in r.king[king.index()] & (filter - ours) {
            if !self.is_attacked_with(t, them, without_king, Bitboard::EMPTY) {
                safe.set(t);
            }
        }
        sink.targets(king, safe);
        if view.checkers > 1 {
            return;
        }
        let mask = view.check_mask & filter;
        let pin_line = |sq: Square| -> Bitboard {
            view.pins
                .iter()
                .find(|(p, _)| *p == sq)
                .map_or(Bitboard::FULL, |&(_, pinner)| r.geometry.between(king, pinner) | Bitboard::from(pinner))
        };

        // Knights: a pinned knight can never stay on its line.
        (self.pieces(us, PieceKind::Knight) - view.pinned)
            .into_iter()
            .for_each(|sq| sink.targets(sq, r.knight[sq.index()] & (mask - ours)));

        // Sliders, read off the line occupancy: along each of its lines a
        // slider reaches every square up to the first piece both ways. A
        // sink that keeps only captures (a filter within the enemy pieces)
        // needs only the enemy pieces among them.
        let blockers_only = (filter - theirs).is_empty();
        let g = r.geometry;
        let (own_shift, their_shift) = (8 * us.index() as u32, 8 * them.index() as u32);
        (self.sliders() & ours).into_iter().for_each(|sq| {
            let Some(p) = self.piece_at(sq) else { return };
            let mut attacks = Bitboard::EMPTY;
            let refs = g.line_refs(sq);
            for lr in &refs[r.slider_axes[p.kind.index()].clone()] {
                let occ = self.line_occupancy(*lr);
                let keep = if blockers_only { occ >> their_shift } else { !(occ >> own_shift) };
                let mut reach = (line_attacks((occ | occ >> 8) as u8, lr.pos) & lr.mask & keep as u8) as u32;
                while reach != 0 {
                    attacks.set(g.line_square(lr.line, reach.trailing_zeros()));
                    reach &= reach - 1;
                }
            }
            let mut m = mask;
            if view.pinned.has(sq) {
                m &= pin_line(sq);
            }
            sink.targets(sq, attacks & (m - ours));
        });

        // Pawns: unpinned ones as one set, pinned ones one by one.
        let pawns = self.pieces(us, PieceKind::Pawn);
        // Pawn pushes that promote are kept by captures-only sinks, so pawns
        // see the unfiltered mask; with a narrowed filter only the pawns one
        // step short of promotion push at all.
        let pawn_mask = view.check_mask;
        let pushers = if filter == Bitboard::FULL {
            pawns
        } else {
            pawns & Bitboard::rank((us.promotion_rank() as i32 - us.forward()) as u8)
        };
        let empty = !occ & r.geometry.board;
        self.pawn_moves(sink, pawns - view.pinned, pushers - view.pinned, pawn_mask, theirs, empty);
        for sq in pawns & view.pinned {
            let one = Bitboard::from(sq);
            self.pawn_moves(sink, one, pushers & one, pawn_mask & pin_line(sq), theirs, empty);
        }

        // En passant: rare, so each capture is tested by playing it on the occupancy.
        if let Some(ep) = self.en_passant {
            for &t in ep.targets() {
                for from in r.pawn_captures[them.index()][t.index()] & pawns {
                    if self.ep_is_legal(from, t, ep.victim()) {
                        sink.one(Move::with_flag(from, t, MoveFlag::EnPassant));
                    }
                }
            }
        }

        // Castling.
        if self.castling != 0 && view.checkers == 0 && filter == Bitboard::FULL {
            for rule in self.castles.iter().flatten() {
                if rule.color == us
                    && self.castling & rule.right != 0
                    && (rule.empty & occ).is_empty()
                    && rule.safe.into_iter().all(|s| !self.is_attacked_with(s, them, occ, Bitboard::EMPTY))
                {
                    sink.one(Move::with_flag(rule.king_from, rule.king_to, MoveFlag::Castle));
                }
            }
        }
    }

    /// Captures of the pawns in `pawns` and steps and double steps of those
    /// in `pushers` (a subset), landing in `mask`.
    #[inline]
    fn pawn_moves<S: MoveSink>(
        &self,
        sink: &mut S,
        pawns: Bitboard,
        pushers: Bitboard,
        mask: Bitboard,
        theirs: Bitboard,
        empty: Bitboard,
    ) {
        if pawns.is_empty() {
            return;
        }
        let r = self.rules;
        let us = self.side;
        let f = us.forward();
        let promo = Bitboard::rank(us.promotion_rank());
        let off = |dx: i32, dy: i32, dz: i32| dx + 8 * dy + 64 * dz;
        for &(dx, dz) in r.pawn_capture_vectors {
            let t = pawns.shift(dx, f, dz) & theirs & mask;
            sink.pawn_targets(t, off(dx, f, dz), promo, r.promotions);
        }
        if pushers.is_empty() {
            return;
        }
        let pawns = pushers;
        let start = pawns & Bitboard::rank(us.pawn_rank());
        match r.kind {
            VariantKind::Hdc => {
                let single = pawns.shift(0, f, 0) & empty;
                sink.pawn_targets(single & mask, off(0, f, 0), promo, r.promotions);
                let double = (single & start.shift(0, f, 0)).shift(0, f, 0) & empty;
                sink.pawn_targets(double & mask, off(0, 2 * f, 0), Bitboard::EMPTY, &[]);
            }
            VariantKind::Haberkorn => {
                let step = |b: Bitboard, dz: i32| b.shift(0, f, dz) & empty;
                for &dz in r.pawn_push_layers {
                    sink.pawn_targets(step(pawns, dz) & mask, off(0, f, dz), promo, r.promotions);
                }
                // Double steps: the target empty and one free path to it.
                let (s0, up, down) = (step(start, 0), step(start, 1), step(start, -1));
                let doubles = [
                    (step(s0, 0), 0),
                    (step(up, 1), 2),
                    (step(down, -1), -2),
                    (step(up, 0) | step(s0, 1), 1),
                    (step(down, 0) | step(s0, -1), -1),
                ];
                for (t, dz) in doubles {
                    sink.pawn_targets(t & mask, off(0, 2 * f, dz), Bitboard::EMPTY, &[]);
                }
            }
        }
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list
    }

    /// The number of legal moves.
    pub fn count_legal(&self) -> u64 {
        let mut c = MoveCounter(0);
        self.generate(&mut c);
        c.0
    }

    /// Whether `m` is a legal move here (for moves from outside or a hash table).
    pub fn is_legal(&self, m: Move) -> bool {
        self.legal_moves().contains(&m)
    }
}
