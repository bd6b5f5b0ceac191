//! Squares of the cube: `Square(u16) = layer * 64 + rank * 8 + file`, and their text `e2-IV`.

use std::fmt;
use thiserror::Error;

/// The Roman layer numerals I..VIII, index 0..7.
pub const ROMAN: [&str; 8] = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII"];

/// The most layers a board can have.
pub const MAX_LAYERS: u8 = 8;
/// The number of square indices (8 × 8 × 8).
pub const NUM_SQUARES: usize = 512;

/// One of the 512 squares: file x (a–h), rank y (1–8), layer z (I–VIII).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u16);

/// Why a square's text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SquareError {
    /// The text is not `<file><rank>-<layer>`.
    #[error("malformed square '{0}' (expected e.g. e2-IV)")]
    Malformed(String),
    /// The layer lies beyond the board's layers.
    #[error("square '{0}' lies beyond the board's {1} layers")]
    OffBoard(String, u8),
}

impl Square {
    /// The square at file x, rank y, layer z (each 0..8).
    #[inline]
    pub const fn new(x: u8, y: u8, z: u8) -> Square {
        debug_assert!(x < 8 && y < 8 && z < 8);
        Square((z as u16) << 6 | (y as u16) << 3 | x as u16)
    }

    /// The square with this index, if it is below 512.
    #[inline]
    pub const fn from_index(i: usize) -> Option<Square> {
        if i < NUM_SQUARES { Some(Square(i as u16)) } else { None }
    }

    /// The square with this index; the caller guarantees `i < 512`.
    #[inline]
    pub(crate) const fn from_index_unchecked(i: usize) -> Square {
        debug_assert!(i < NUM_SQUARES);
        Square(i as u16)
    }

    /// The index 0..512. Every square is built below 512, so the mask
    /// changes nothing; it tells the compiler so, and the bounds checks of
    /// every 512-entry table and of a bitboard's eight words go away.
    #[inline]
    pub const fn index(self) -> usize {
        (self.0 & 511) as usize
    }

    /// The file, 0 = a.
    #[inline]
    pub const fn file(self) -> u8 {
        (self.0 & 7) as u8
    }

    /// The rank, 0 = rank 1.
    #[inline]
    pub const fn rank(self) -> u8 {
        ((self.0 >> 3) & 7) as u8
    }

    /// The layer, 0 = layer I.
    #[inline]
    pub const fn layer(self) -> u8 {
        (self.0 >> 6) as u8
    }

    /// The square moved by (dx, dy, dz), if it stays on a board of `layers` layers.
    #[inline]
    pub fn offset(self, dx: i8, dy: i8, dz: i8, layers: u8) -> Option<Square> {
        let x = self.file() as i8 + dx;
        let y = self.rank() as i8 + dy;
        let z = self.layer() as i8 + dz;
        if (0..8).contains(&x) && (0..8).contains(&y) && (0..layers as i8).contains(&z) {
            Some(Square::new(x as u8, y as u8, z as u8))
        } else {
            None
        }
    }

    /// Reads `e2-IV` (hyphen or en dash) on a board of `layers` layers.
    pub fn parse(text: &str, layers: u8) -> Result<Square, SquareError> {
        let (sq, rest) = Square::parse_prefix(text, layers)?;
        if rest.is_empty() { Ok(sq) } else { Err(SquareError::Malformed(text.to_string())) }
    }

    /// Reads a square from the front of `text`, returning it and the rest.
    ///
    /// The Roman numeral is read greedily (`VIII` before `VII` before `VI` ...),
    /// so `e2-IVe4-IV` splits after the first `IV`.
    pub fn parse_prefix(text: &str, layers: u8) -> Result<(Square, &str), SquareError> {
        let bad = || SquareError::Malformed(text.chars().take(24).collect());
        let mut chars = text.char_indices();
        let file = match chars.next() {
            Some((_, c @ 'a'..='h')) => c as u8 - b'a',
            _ => return Err(bad()),
        };
        let rank = match chars.next() {
            Some((_, c @ '1'..='8')) => c as u8 - b'1',
            _ => return Err(bad()),
        };
        let rest = match chars.next() {
            Some((i, '-' | '–')) => &text[i + if text[i..].starts_with('-') { 1 } else { '–'.len_utf8() }..],
            _ => return Err(bad()),
        };
        // Longest numeral first so that "VIII" is not read as "V".
        let mut best: Option<(usize, usize)> = None;
        for (z, numeral) in ROMAN.iter().enumerate() {
            if rest.starts_with(numeral) && best.is_none_or(|(_, len)| numeral.len() > len) {
                best = Some((z, numeral.len()));
            }
        }
        let (z, len) = best.ok_or_else(bad)?;
        if z as u8 >= layers {
            return Err(SquareError::OffBoard(text[..text.len() - rest.len() + len].to_string(), layers));
        }
        Ok((Square::new(file, rank, z as u8), &rest[len..]))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}-{}", (b'a' + self.file()) as char, self.rank() + 1, ROMAN[self.layer() as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_for_every_square() {
        for i in 0..NUM_SQUARES {
            let sq = Square::from_index(i).unwrap();
            assert_eq!(Square::parse(&sq.to_string(), 8), Ok(sq));
        }
    }

    #[test]
    fn en_dash_and_greedy_numerals() {
        assert_eq!(Square::parse("e2–IV", 8), Ok(Square::new(4, 1, 3)));
        let (sq, rest) = Square::parse_prefix("e7-VIIIe8-II", 8).unwrap();
        assert_eq!(sq, Square::new(4, 6, 7));
        assert_eq!(rest, "e8-II");
        assert!(Square::parse("e2-IV", 3).is_err());
        assert!(Square::parse("i2-IV", 8).is_err());
        assert!(Square::parse("e9-IV", 8).is_err());
        assert!(Square::parse("e2IV", 8).is_err());
        assert!(Square::parse("e2-X", 8).is_err());
        assert!(Square::parse("", 8).is_err());
    }
}
