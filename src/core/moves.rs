//! `Move`: a from-square, a to-square, an optional promotion and a flag for
//! the two moves that do more than move one piece (en passant, castling);
//! and `MoveList`, room on the stack for every legal move of any position.

use super::piece::PieceKind;
use super::square::Square;
use arrayvec::ArrayVec;
use std::fmt;

/// What kind of move beyond "piece goes from A to B".
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MoveFlag {
    /// An ordinary move or capture, a pawn step or a promotion.
    Normal = 0,
    /// A pawn captures en passant: it lands on a passed-over square and the
    /// double-stepped pawn is removed.
    EnPassant = 1,
    /// The king castles; the move is written as the king's move.
    Castle = 2,
}

/// A move packed in 32 bits: from (9 bits), to (9), promotion (3), flag (2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u32);

/// Upper bound on legal moves in any position: 78 non-king pieces with at
/// most 182 slider targets each, plus 26 king moves and 4 castlings; a pawn
/// has at most 7 targets × 5 promotions = 35, far below a slider's bound.
pub const MAX_MOVES: usize = 78 * 182 + 26 + 4;

/// A list of moves on the stack, never allocated on the heap.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

impl Move {
    /// The "no move" value (never legal: from equals to).
    pub const NONE: Move = Move(0);

    /// An ordinary move (or pawn step, or capture).
    #[inline]
    pub const fn new(from: Square, to: Square) -> Move {
        Move(from.index() as u32 | (to.index() as u32) << 9)
    }

    /// A pawn move that promotes to `kind`.
    #[inline]
    pub const fn promotion(from: Square, to: Square, kind: PieceKind) -> Move {
        Move(Move::new(from, to).0 | (kind as u32) << 18)
    }

    /// A move with a special flag.
    #[inline]
    pub const fn with_flag(from: Square, to: Square, flag: MoveFlag) -> Move {
        Move(Move::new(from, to).0 | (flag as u32) << 21)
    }

    /// The square moved from.
    #[inline]
    pub const fn from(self) -> Square {
        Square::from_index_unchecked((self.0 & 511) as usize)
    }

    /// The square moved to (the king's square for castling).
    #[inline]
    pub const fn to(self) -> Square {
        Square::from_index_unchecked((self.0 >> 9 & 511) as usize)
    }

    /// The promotion piece, if any.
    #[inline]
    pub const fn promotion_kind(self) -> Option<PieceKind> {
        match self.0 >> 18 & 7 {
            0 => None,
            k => PieceKind::from_index(k as usize),
        }
    }

    /// The special flag.
    #[inline]
    pub const fn flag(self) -> MoveFlag {
        match self.0 >> 21 & 3 {
            1 => MoveFlag::EnPassant,
            2 => MoveFlag::Castle,
            _ => MoveFlag::Normal,
        }
    }

    /// Whether the move is plain: no promotion and no special flag.
    #[inline]
    pub const fn is_plain(self) -> bool {
        self.0 >> 18 & 31 == 0
    }

    /// Whether this is [`Move::NONE`].
    #[inline]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    /// The raw 32 bits (for hash tables).
    #[inline]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The move with these raw bits, as stored by [`Move::bits`].
    #[inline]
    pub const fn from_bits(bits: u32) -> Move {
        Move(bits & 0x7f_ffff)
    }
}

impl fmt::Display for Move {
    /// The protocol text: `e2-IVe4-IV`, `e7-IIe8-IIq`; castling as the king's move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            return write!(f, "(none)");
        }
        write!(f, "{}{}", self.from(), self.to())?;
        if let Some(k) = self.promotion_kind() {
            write!(f, "{}", k.letter())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")?;
        match self.flag() {
            MoveFlag::Normal => Ok(()),
            MoveFlag::EnPassant => write!(f, " e.p."),
            MoveFlag::Castle => write!(f, " (castle)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_moves_without_promotion_or_flag_are_plain() {
        let (a, b) = (Square::new(4, 6, 3), Square::new(4, 7, 3));
        assert!(Move::new(a, b).is_plain());
        assert!(Move::from_bits(Move::new(b, a).bits()).is_plain());
        for kind in [PieceKind::Knight, PieceKind::Bishop, PieceKind::Rook, PieceKind::Duke, PieceKind::Queen] {
            assert!(!Move::promotion(a, b, kind).is_plain(), "{kind:?}");
        }
        assert!(!Move::with_flag(a, b, MoveFlag::EnPassant).is_plain());
        assert!(!Move::with_flag(a, b, MoveFlag::Castle).is_plain());
    }
}
