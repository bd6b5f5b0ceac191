//! Checks and attackers without replaying the board: the checkers after a
//! move (kept in [`Position`] by `make`), whether a move gives check before it
//! is made, and the attackers of a square under any occupancy (for the
//! search's static exchange evaluation).
//!
//! A move changes who attacks the enemy king in two ways only: a piece lands
//! on a square from which it attacks the king (direct check), or a square on a
//! line from the king is vacated and uncovers one of our sliders behind it
//! (discovered check). Both are found from the king's side with one walk per
//! vacated square, instead of a walk along all 26 directions. Where many
//! moves of one position are asked about (the search's pruning), the
//! [`CheckSquares`] of that position answer a plain move with two bit tests.

use super::bitboard::Bitboard;
use super::geometry::Geometry;
use super::moves::{Move, MoveFlag};
use super::piece::{Color, PieceKind};
use super::position::{Position, first_occupied, slides_code};
use super::square::Square;

/// What a move changes on the board, as far as checks are concerned.
struct Change {
    /// Squares the move empties (the mover's from-square, a castling rook's
    /// from-square, an en-passant victim).
    vacated: [Square; 2],
    vacated_len: usize,
    /// Pieces of the mover and where they land.
    arrived: [(Square, PieceKind); 2],
    arrived_len: usize,
}

impl Change {
    fn vacated(&self) -> &[Square] {
        &self.vacated[..self.vacated_len]
    }

    fn arrived(&self) -> &[(Square, PieceKind)] {
        &self.arrived[..self.arrived_len]
    }
}

/// Where the side to move's pieces would check the enemy king from, on the
/// board as it stands: what deciding many moves' checks at one node shares
/// (Stockfish's check squares and king blockers).
pub struct CheckSquares {
    /// By kind: the squares from which such a piece of ours attacks the
    /// enemy king (a slider's along the lines from the king, up to and
    /// including the first piece on each; none for the king).
    squares: [Bitboard; PieceKind::COUNT],
    /// Our pieces that stand alone between the enemy king and one of our
    /// sliders that slides along their line: moving one off the line checks.
    blockers: Bitboard,
    /// The enemy king's square.
    king: Square,
    /// The key of the position they belong to (checked in debug builds).
    key: u64,
}

impl Position {
    /// What `m` (a legal move of the side to move, or the move just made when
    /// `made` is set) vacates and where the mover's pieces land.
    #[inline(always)]
    fn change(&self, m: Move, made: bool) -> Change {
        let (from, to) = (m.from(), m.to());
        let mover_kind = if made {
            self.piece_at(to).map_or(PieceKind::Pawn, |p| p.kind)
        } else {
            m.promotion_kind().or_else(|| self.piece_at(from).map(|p| p.kind)).unwrap_or(PieceKind::Pawn)
        };
        let mut c = Change { vacated: [from; 2], vacated_len: 1, arrived: [(to, mover_kind); 2], arrived_len: 1 };
        match m.flag() {
            MoveFlag::Castle => {
                if let Some(rule) = self.castle_move_rule(from, to) {
                    c.vacated[1] = rule.rook_from;
                    c.vacated_len = 2;
                    c.arrived[1] = (rule.rook_to, PieceKind::Rook);
                    c.arrived_len = 2;
                }
            }
            MoveFlag::EnPassant => {
                // After the move the en-passant state is gone: `checkers_after`
                // covers the victim's square with a full walk instead.
                if let (false, Some(ep)) = (made, self.en_passant) {
                    c.vacated[1] = ep.victim();
                    c.vacated_len = 2;
                }
            }
            MoveFlag::Normal => {}
        }
        c
    }

    /// The pieces of `us` that attack the king of `!us` once `change` is on
    /// the board, given the occupancy `occ`, our pieces `ours` and the kind on
    /// each square (`kind_at`).
    fn check_set(
        &self,
        us: Color,
        change: &Change,
        occ: Bitboard,
        ours: Bitboard,
        kind_at: impl Fn(Square) -> Option<PieceKind>,
    ) -> Bitboard {
        let r = self.rules;
        let king = self.king(!us);
        let mut out = Bitboard::EMPTY;
        for &(sq, kind) in change.arrived() {
            let hit = match kind {
                PieceKind::Knight => r.knight[sq.index()].has(king),
                PieceKind::King => r.king[sq.index()].has(king),
                PieceKind::Pawn => r.pawn_captures[us.index()][sq.index()].has(king),
                _ => Geometry::direction(king, sq).is_some_and(|d| {
                    r.slides_along[d] >> kind.index() & 1 != 0 && (r.geometry.between(king, sq) & occ).is_empty()
                }),
            };
            if hit {
                out.set(sq);
            }
        }
        // A vacated square can only uncover sliders.
        for &v in change.vacated() {
            let Some(d) = Geometry::direction(king, v) else { continue };
            for &s in r.geometry.ray_squares(king, d) {
                if occ.has(s) {
                    if ours.has(s) && kind_at(s).is_some_and(|k| r.slides_along[d] >> k.index() & 1 != 0) {
                        out.set(s);
                    }
                    break;
                }
            }
        }
        out
    }

    /// The checkers after `m` was just made (called by `make`): the pieces of
    /// the side that moved attacking the king of the side now to move.
    pub(crate) fn checkers_after(&self, m: Move) -> Bitboard {
        let us = !self.side;
        let change = self.change(m, true);
        let mut out = self
            .check_set(us, &change, self.occupied(), self.by_color[us.index()], |s| self.piece_at(s).map(|p| p.kind));
        if m.flag() == MoveFlag::EnPassant {
            // The victim's square is no longer known here: look for sliders
            // uncovered through it by a full walk (en passant is rare).
            out |= self.attackers(self.king(self.side), us);
        }
        out
    }

    /// Whether the legal move `m` of the side to move gives check, decided
    /// without making it.
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.side;
        if m.flag() == MoveFlag::Normal
            && m.promotion_kind().is_none()
            && let Some(p) = self.piece_at(m.from())
        {
            // A plain move checks only from a square its piece could check
            // from on an empty board, or by leaving a line of the king.
            let r = self.rules;
            let (king, to) = (self.king(!us), m.to());
            let direct = match p.kind {
                PieceKind::Knight => r.knight[to.index()].has(king),
                PieceKind::Pawn => r.pawn_captures[us.index()][to.index()].has(king),
                PieceKind::King => false,
                kind => r.slider_lines[kind.index()][king.index()].has(to),
            };
            if !direct && !r.lines(king).has(m.from()) {
                return false;
            }
        }
        let change = self.change(m, false);
        let mut occ = self.occupied();
        let mut ours = self.by_color[us.index()];
        for &v in change.vacated() {
            occ.clear(v);
            ours.clear(v);
        }
        for &(s, _) in change.arrived() {
            occ.set(s);
            ours.set(s);
        }
        let arrived = change.arrived();
        self.check_set(us, &change, occ, ours, |s| {
            arrived.iter().find(|a| a.0 == s).map(|a| a.1).or_else(|| self.piece_at(s).map(|p| p.kind))
        })
        .any()
    }

    /// The side to move's `CheckSquares`: one walk along the enemy king's
    /// lines, for the kinds of sliders the side to move has.
    pub fn check_squares(&self) -> CheckSquares {
        let r = self.rules;
        let us = self.side;
        let king = self.king(!us);
        let code = (us.index() as u8) << 3;
        // Our sliding kinds, the only ones that check along a line.
        let ours = self.slider_kinds(us);
        let mut out = CheckSquares {
            squares: [Bitboard::EMPTY; PieceKind::COUNT],
            blockers: Bitboard::EMPTY,
            king,
            key: self.key(),
        };
        // Leapers and pawns attack symmetrically: ours attack the king from
        // where the king's own kind would attack them.
        out.squares[PieceKind::Knight.index()] = r.knight[king.index()];
        out.squares[PieceKind::Pawn.index()] = r.pawn_captures[(!us).index()][king.index()];
        let (rays, dirs) = r.slider_rays_and_dirs(PieceKind::Queen, king);
        for (ray, &d) in rays.iter().zip(dirs) {
            let kinds = r.slides_along[d as usize] & ours;
            if kinds == 0 {
                continue;
            }
            // The squares up to and including the first piece; a piece of
            // ours there with one of our sliders along the line behind it
            // (nothing between) is a blocker.
            let mut line = Bitboard::EMPTY;
            for (i, &s) in ray.iter().enumerate() {
                line.set(s);
                let v = self.board[s.index()];
                if v != 0 {
                    if v & 8 == code {
                        let behind = ray[i + 1..].iter().map(|b| self.board[b.index()]).find(|&b| b != 0);
                        if behind.is_some_and(|b| b & 8 == code && slides_code(r, d as usize, b)) {
                            out.blockers.set(s);
                        }
                    }
                    break;
                }
            }
            for k in PieceKind::SLIDERS {
                if kinds >> k.index() & 1 != 0 {
                    out.squares[k.index()] |= line;
                }
            }
        }
        out
    }

    /// `Position::gives_check` with the side to move's `CheckSquares`
    /// (from [`Position::check_squares`] on this position): a plain move is
    /// decided by two bit tests, any other by `gives_check`.
    #[inline(always)]
    pub fn gives_check_with(&self, checks: &CheckSquares, m: Move) -> bool {
        debug_assert_eq!(checks.key, self.key(), "check squares of another position");
        if m.flag() == MoveFlag::Normal
            && m.promotion_kind().is_none()
            && let Some(p) = self.piece_at(m.from())
        {
            let (king, from, to) = (checks.king, m.from(), m.to());
            // A blocker checks by leaving its line (a move along the line keeps it shut).
            return checks.squares[p.kind.index()].has(to)
                || (checks.blockers.has(from) && Geometry::direction(king, to) != Geometry::direction(king, from));
        }
        self.gives_check(m)
    }

    /// Whether the piece on `sq` attacks a square next to the enemy king
    /// (its 3×3×3 zone): the cheap sign of a mate threat that the search
    /// uses to keep a quiet attacking move from being cut off unsearched.
    /// A king never counts (it cannot give mate) and an empty square is no
    /// threat.
    pub fn attacks_king_zone(&self, sq: Square) -> bool {
        let Some(p) = self.piece_at(sq) else { return false };
        let r = self.rules;
        let zone = r.king[self.king(!p.color).index()];
        let i = sq.index();
        match p.kind {
            PieceKind::King => false,
            PieceKind::Knight => (r.knight[i] & zone).any(),
            PieceKind::Pawn => (r.pawn_captures[p.color.index()][i] & zone).any(),
            // Zone squares on the slider's own lines, with nothing between.
            kind => {
                let occ = self.occupied();
                (r.slider_lines[kind.index()][i] & zone)
                    .into_iter()
                    .any(|z| (r.geometry.between(z, sq) & occ).is_empty())
            }
        }
    }

    /// How many squares next to `c`'s king it could step to: not held by its
    /// own pieces and not attacked by the enemy (with the king itself off
    /// the board, so that it cannot hide behind itself on a line).
    pub fn king_flights(&self, c: Color) -> u32 {
        let k = self.king(c);
        let mut occ = self.occupied();
        occ.clear(k);
        (self.rules.king[k.index()] - self.by_color[c.index()])
            .into_iter()
            .filter(|&s| !self.is_attacked_with(s, !c, occ, Bitboard::EMPTY))
            .count() as u32
    }

    /// Every piece of either colour attacking `sq` when the board is occupied
    /// as `occ` (pieces off `occ` neither attack nor block): the x-ray view of
    /// a static exchange evaluation.
    pub fn attackers_to(&self, sq: Square, occ: Bitboard) -> Bitboard {
        let r = self.rules;
        let i = sq.index();
        let pawns = self.by_kind[PieceKind::Pawn.index()];
        let mut out = (r.knight[i] & self.by_kind[PieceKind::Knight.index()])
            | (r.king[i] & self.by_kind[PieceKind::King.index()])
            | (r.pawn_captures[Color::Black.index()][i] & pawns & self.by_color[Color::White.index()])
            | (r.pawn_captures[Color::White.index()][i] & pawns & self.by_color[Color::Black.index()]);
        // Sliders: those in line with `sq`, sliding along the line, with nothing between.
        for s in self.sliders() & occ & r.lines(sq) {
            if let Some(d) = Geometry::direction(sq, s)
                && slides_code(r, d, self.board[s.index()])
                && first_occupied(r, occ, sq, d) == Some(s)
            {
                out.set(s);
            }
        }
        out & occ
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;
    use rand::rngs::StdRng;
    use rand::seq::IndexedRandom;
    use rand::{RngExt, SeedableRng};

    /// The attackers of `sq` under `occ` by a walk along all 26 rays (the
    /// method `attackers_to` replaced).
    fn walk_attackers(pos: &Position, sq: Square, occ: Bitboard) -> Bitboard {
        let r = pos.rules;
        let i = sq.index();
        let pawns = pos.by_kind[PieceKind::Pawn.index()];
        let mut out = (r.knight[i] & pos.by_kind[PieceKind::Knight.index()])
            | (r.king[i] & pos.by_kind[PieceKind::King.index()])
            | (r.pawn_captures[Color::Black.index()][i] & pawns & pos.by_color[Color::White.index()])
            | (r.pawn_captures[Color::White.index()][i] & pawns & pos.by_color[Color::Black.index()]);
        for d in 0..crate::core::geometry::NUM_DIRS {
            if let Some(s) = first_occupied(r, occ, sq, d)
                && slides_code(r, d, pos.board[s.index()])
            {
                out.set(s);
            }
        }
        out & occ
    }

    /// Attack tests from the sliders' side agree with walks along the rays,
    /// on every square, with pieces taken off the occupancy at random.
    fn attacks(pos: &Position, rng: &mut StdRng) {
        let mut occ = pos.occupied();
        for s in pos.occupied() {
            if rng.random_range(0..4) == 0 && pos.piece_at(s).is_some_and(|p| p.kind != PieceKind::King) {
                occ.clear(s);
            }
        }
        for i in 0..512 {
            let sq = Square::from_index_unchecked(i);
            if !pos.rules.geometry.board.has(sq) {
                continue;
            }
            let walk = walk_attackers(pos, sq, occ);
            assert_eq!(pos.attackers_to(sq, occ), walk, "{sq} in {}", pos.fen());
            if let Some(p) = pos.piece_at(sq) {
                let zone = pos.rules.king[pos.king(!p.color).index()];
                let expect = p.kind != PieceKind::King
                    && zone.into_iter().any(|z| walk_attackers(pos, z, pos.occupied()).has(sq));
                assert_eq!(pos.attacks_king_zone(sq), expect, "king zone from {sq} in {}", pos.fen());
            }
            for c in Color::ALL {
                let expect = (walk_attackers(pos, sq, pos.occupied()) & pos.color_pieces(c)).any();
                assert_eq!(pos.is_attacked(sq, c), expect, "{sq} by {c:?} in {}", pos.fen());
            }
        }
    }

    /// Plays random games and checks, at every node, that `gives_check`
    /// agrees with making the move, and that the cached checkers after `make`
    /// equal a full walk.
    fn walk(variant: Variant, seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        for _ in 0..6 {
            let mut pos = Position::start(variant);
            for _ in 0..120 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let us = pos.side_to_move();
                let steps = moves.iter().filter(|m| m.from() == pos.king(us) && m.flag() != MoveFlag::Castle).count();
                assert_eq!(pos.king_flights(us), steps as u32, "king flights in {}", pos.fen());
                let checks = pos.check_squares();
                for &m in moves.iter() {
                    let predicted = pos.gives_check(m);
                    assert_eq!(pos.gives_check_with(&checks, m), predicted, "gives_check_with of {m} in {}", pos.fen());
                    let undo = pos.make(m);
                    let full = pos.attackers(pos.king(pos.side_to_move()), !pos.side_to_move());
                    assert_eq!(pos.checkers(), full, "cached checkers after {m} in {}", pos.fen());
                    assert_eq!(predicted, full.any(), "gives_check of {m}");
                    pos.unmake(m, &undo);
                }
                if rng.random_range(0..8) == 0 {
                    attacks(&pos, &mut rng);
                }
                let m = *moves.choose(&mut rng).unwrap();
                pos.make(m);
            }
        }
    }

    #[test]
    fn checks_agree_with_a_full_walk_in_hdc() {
        walk(Variant::hdc(), 1);
    }

    #[test]
    fn checks_agree_with_a_full_walk_in_haberkorn() {
        walk(Variant::haberkorn(), 2);
        let three = Variant::haberkorn().with_layers(3).unwrap();
        walk(three, 3);
    }

    #[test]
    fn checks_agree_with_en_passant_and_castling_on() {
        let v = Variant::haberkorn_with(8, 4, 5, true, true).unwrap();
        walk(v, 4);
    }
}
