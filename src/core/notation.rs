//! Move text: `e2-IVe4-IV`, `e7-IIe8-IIq`, castling as the king's move; the
//! en dash is accepted in place of the hyphen.

use super::moves::Move;
use super::piece::PieceKind;
use super::position::Position;
use super::square::{Square, SquareError};
use thiserror::Error;

/// Why a move text was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoveError {
    /// The text is not `<square><square>[promotion]`.
    #[error("malformed move '{text}': {why}")]
    Malformed {
        /// The text given.
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// Well-formed, but not a legal move in the position.
    #[error("illegal move '{0}'")]
    Illegal(String),
}

/// The parts of a move text: from, to, promotion letter.
pub fn parse_move_text(text: &str, layers: u8) -> Result<(Square, Square, Option<PieceKind>), MoveError> {
    let bad = |e: SquareError| MoveError::Malformed { text: text.to_string(), why: e.to_string() };
    let (from, rest) = Square::parse_prefix(text, layers).map_err(bad)?;
    let (to, rest) = Square::parse_prefix(rest, layers).map_err(bad)?;
    let promo = match rest {
        "" => None,
        r => {
            let mut cs = r.chars();
            let kind = cs.next().and_then(PieceKind::from_letter);
            match (kind, cs.next()) {
                (Some(k), None) if !matches!(k, PieceKind::Pawn | PieceKind::King) => Some(k),
                _ => {
                    return Err(MoveError::Malformed {
                        text: text.to_string(),
                        why: format!("'{r}' is not a promotion letter (q d r b n)"),
                    });
                }
            }
        }
    };
    Ok((from, to, promo))
}

impl Position {
    /// Reads a move in protocol text and checks it is legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let (from, to, promo) = parse_move_text(text, self.variant.layers)?;
        self.legal_moves()
            .into_iter()
            .find(|m| m.from() == from && m.to() == to && m.promotion_kind() == promo)
            .ok_or_else(|| MoveError::Illegal(text.to_string()))
    }

    /// Reads and plays a move from outside (the checked path); on error the
    /// position is unchanged.
    pub fn play(&mut self, text: &str) -> Result<Move, MoveError> {
        let m = self.parse_move(text)?;
        self.make(m);
        Ok(m)
    }
}
