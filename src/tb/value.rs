//! One position's value in a table, and the byte a table keeps it in.

use std::fmt;

/// The byte of a draw.
pub(super) const DRAW: u8 = 0;
/// The byte of an illegal position.
pub(super) const ILLEGAL: u8 = 255;
/// The longest distance a byte holds (plies).
pub(super) const MAX_DISTANCE: u8 = 253;

/// One position's value in a table: a draw, a distance to mate in plies
/// (even: the side to move is mated; odd: it mates), or no legal position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// Neither side can force mate.
    Draw,
    /// Mate after this many plies with best play: the side to move mates
    /// if odd, is mated if even (0: mated now).
    Mate(u8),
    /// No legal position (two pieces on one square, the side not to move in check).
    Illegal,
}

impl Value {
    /// The value a table's byte holds.
    pub(super) fn from_byte(b: u8) -> Value {
        match b {
            DRAW => Value::Draw,
            ILLEGAL => Value::Illegal,
            b => Value::Mate(b - 1),
        }
    }

    /// Whether the side to move wins.
    pub fn is_win(self) -> bool {
        matches!(self, Value::Mate(d) if d % 2 == 1)
    }

    /// The value under the fifty-move rule, `halfmove` plies after the last
    /// capture or pawn move: a mate that would come after the rule has
    /// drawn the game is a draw, whoever it favours. Exact for endings whose
    /// mates need no capture or pawn move on the way (every pawnless
    /// three-piece ending: the only capture there leaves a lone king
    /// against a lone king), since the clock then never restarts and the
    /// winner can force mate within `n` plies exactly when the distance is
    /// at most `n`.
    pub fn under_fifty_moves(self, halfmove: u16) -> Value {
        match self {
            Value::Mate(d) if u16::from(d) + halfmove > 100 => Value::Draw,
            v => v,
        }
    }

    /// How good a move to a position of this value is for the mover, lower
    /// better: a win (the position lost for its side to move), the quickest
    /// first; then a draw; then a loss, the longest first; no legal position last.
    pub fn mover_rank(self) -> u16 {
        match self {
            Value::Mate(d) if d % 2 == 0 => u16::from(d),
            Value::Draw => 256,
            Value::Mate(d) => 512 - u16::from(d),
            Value::Illegal => 1024,
        }
    }

    /// Whether the side to move loses.
    pub fn is_loss(self) -> bool {
        matches!(self, Value::Mate(d) if d.is_multiple_of(2))
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Value::Draw => write!(f, "draw"),
            Value::Mate(0) => write!(f, "mated"),
            Value::Mate(d) if d % 2 == 1 => write!(f, "win: mate in {} ({d} plies)", d.div_ceil(2)),
            Value::Mate(d) => write!(f, "loss: mated in {} ({d} plies)", d / 2),
            Value::Illegal => write!(f, "illegal"),
        }
    }
}
