//! Colours, piece kinds and coloured pieces.

use std::ops::Not;

/// The side a piece belongs to.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    /// Moves up the ranks (+y), first to move.
    White = 0,
    /// Moves down the ranks (−y).
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// 0 for White, 1 for Black.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// +1 for White (up the ranks), −1 for Black.
    #[inline]
    pub const fn forward(self) -> i32 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }

    /// The rank (0..8) its pawns start on.
    #[inline]
    pub const fn pawn_rank(self) -> u8 {
        match self {
            Color::White => 1,
            Color::Black => 6,
        }
    }

    /// The rank (0..8) its pawns promote on.
    #[inline]
    pub const fn promotion_rank(self) -> u8 {
        match self {
            Color::White => 7,
            Color::Black => 0,
        }
    }

    /// The rank (0..8) its pieces start on (rank 1 or 8).
    #[inline]
    pub const fn back_rank(self) -> u8 {
        match self {
            Color::White => 0,
            Color::Black => 7,
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

/// The kinds of piece across both variants (the Duke only in `hdc`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum PieceKind {
    /// Pawn.
    Pawn = 0,
    /// Knight.
    Knight = 1,
    /// Bishop.
    Bishop = 2,
    /// Rook.
    Rook = 3,
    /// Duke: the 18-direction "queen light" of hdc.
    Duke = 4,
    /// Queen.
    Queen = 5,
    /// King.
    King = 6,
}

impl PieceKind {
    /// Every kind, in index order.
    pub const ALL: [PieceKind; 7] = [
        PieceKind::Pawn,
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Duke,
        PieceKind::Queen,
        PieceKind::King,
    ];
    /// The number of kinds.
    pub const COUNT: usize = 7;
    /// The sliding kinds (the Duke exists in hdc only).
    pub const SLIDERS: [PieceKind; 4] = [PieceKind::Bishop, PieceKind::Rook, PieceKind::Duke, PieceKind::Queen];

    /// The index 0..7.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kind with this index, if below 7.
    #[inline]
    pub const fn from_index(i: usize) -> Option<PieceKind> {
        if i < 7 { Some(PieceKind::ALL[i]) } else { None }
    }

    /// The lowercase letter (`p n b r d q k`).
    pub const fn letter(self) -> char {
        match self {
            PieceKind::Pawn => 'p',
            PieceKind::Knight => 'n',
            PieceKind::Bishop => 'b',
            PieceKind::Rook => 'r',
            PieceKind::Duke => 'd',
            PieceKind::Queen => 'q',
            PieceKind::King => 'k',
        }
    }

    /// The kind of a letter, either case.
    pub fn from_letter(c: char) -> Option<PieceKind> {
        PieceKind::ALL.into_iter().find(|k| k.letter() == c.to_ascii_lowercase())
    }
}

/// A piece of a colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// Its colour.
    pub color: Color,
    /// Its kind.
    pub kind: PieceKind,
}

impl Piece {
    /// A piece of `color` and `kind`.
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece { color, kind }
    }

    /// Its FEN letter: uppercase White, lowercase Black.
    pub fn letter(self) -> char {
        match self.color {
            Color::White => self.kind.letter().to_ascii_uppercase(),
            Color::Black => self.kind.letter(),
        }
    }

    /// The piece of a FEN letter.
    pub fn from_letter(c: char) -> Option<Piece> {
        let kind = PieceKind::from_letter(c)?;
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        Some(Piece { color, kind })
    }
}
