//! 3D-FEN: read and write positions in the text format of docs/rules.md, with a
//! typed error for every way the text can be wrong.

use super::bitboard::Bitboard;
use super::piece::{Color, Piece, PieceKind};
use super::position::{EnPassant, Position};
use super::square::{ROMAN, Square, SquareError};
use super::variant::{CASTLE_LETTERS, HABERKORN_LAYERS, Variant, VariantKind, castle_bit};
use thiserror::Error;

/// Why a 3D-FEN was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FenError {
    /// Not 4 to 6 space-separated fields.
    #[error("expected 6 fields (placement side castling en-passant halfmove fullmove), found {0}")]
    FieldCount(usize),
    /// The number of `|`-separated layers does not fit the variant.
    #[error("{variant} needs {expected} layers, the placement has {found}")]
    LayerCount {
        /// The variant's name.
        variant: &'static str,
        /// What the variant accepts.
        expected: &'static str,
        /// How many layers the FEN has.
        found: usize,
    },
    /// A layer without exactly 8 ranks.
    #[error("layer {layer} has {found} ranks, expected 8")]
    RankCount {
        /// The layer (Roman).
        layer: &'static str,
        /// How many ranks it has.
        found: usize,
    },
    /// A rank that does not describe exactly 8 squares.
    #[error("rank {rank} of layer {layer} ('{text}') describes {found} squares, expected 8")]
    RankLength {
        /// The layer (Roman).
        layer: &'static str,
        /// The rank, 1..8.
        rank: u8,
        /// The rank's text.
        text: String,
        /// How many squares it describes.
        found: usize,
    },
    /// A character that is no piece letter or digit 1–8.
    #[error("unknown piece letter '{0}'")]
    UnknownPiece(char),
    /// A piece the variant does not have (the Duke outside hdc).
    #[error("piece '{0}' does not exist in {1}")]
    PieceNotInVariant(char, &'static str),
    /// Not exactly one king of a colour.
    #[error("{color} has {count} kings, expected exactly 1")]
    KingCount {
        /// "White" or "Black".
        color: &'static str,
        /// How many kings it has.
        count: u32,
    },
    /// A pawn on rank 1 or 8.
    #[error("pawn on {0}: pawns cannot stand on rank 1 or 8")]
    PawnOnLastRank(Square),
    /// The side-to-move field is not `w` or `b`.
    #[error("side to move must be 'w' or 'b', not '{0}'")]
    Side(String),
    /// A bad castling field.
    #[error("bad castling field '{field}': {why}")]
    Castling {
        /// The field's text.
        field: String,
        /// What is wrong.
        why: String,
    },
    /// A bad en-passant field.
    #[error("bad en-passant field '{field}': {why}")]
    EnPassant {
        /// The field's text.
        field: String,
        /// What is wrong.
        why: String,
    },
    /// A clock that is not a number in range.
    #[error("bad {which} '{text}': expected a whole number from 0 to {max}")]
    Clock {
        /// "half-move clock" or "full-move number".
        which: &'static str,
        /// The field's text.
        text: String,
        /// The largest value accepted.
        max: u32,
    },
    /// The side that just moved left its king attacked.
    #[error("the side not to move is in check")]
    OpponentInCheck,
}

/// The largest full-move number a 3D-FEN may give: far enough below `u32::MAX`
/// that no game can count past it, so the counter never saturates or wraps.
pub const MAX_FULLMOVE: u32 = 1 << 30;

/// Echoed FEN text, cut to 40 characters (the explanation around it is never cut).
fn shown(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

impl Position {
    /// Reads a 3D-FEN for `variant`; for haberkorn the layer count comes from
    /// the FEN (the variant's options are kept), hdc needs 8 layers.
    pub fn from_fen(fen: &str, variant: Variant) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenError::FieldCount(fields.len()));
        }
        let layers: Vec<&str> = fields[0].split('|').collect();
        let variant = match variant.kind {
            VariantKind::Hdc if layers.len() == 8 => variant,
            VariantKind::Haberkorn if u8::try_from(layers.len()).is_ok_and(|n| HABERKORN_LAYERS.contains(&n)) => {
                variant.with_layers(layers.len() as u8).map_err(|_| FenError::FieldCount(fields.len()))?
            }
            kind => {
                return Err(FenError::LayerCount {
                    variant: kind.name(),
                    expected: if kind == VariantKind::Hdc { "8" } else { "3 to 8" },
                    found: layers.len(),
                });
            }
        };
        let mut pos = Position::empty(variant);
        for (z, layer) in layers.iter().enumerate() {
            let ranks: Vec<&str> = layer.split('/').collect();
            if ranks.len() != 8 {
                return Err(FenError::RankCount { layer: ROMAN[z], found: ranks.len() });
            }
            for (i, rank_text) in ranks.iter().enumerate() {
                let y = 7 - i as u8;
                let mut x = 0usize;
                for c in rank_text.chars() {
                    if let Some(n) = c.to_digit(10).filter(|n| (1..=8).contains(n)) {
                        x += n as usize;
                        continue;
                    }
                    let p = Piece::from_letter(c).ok_or(FenError::UnknownPiece(c))?;
                    if !pos.rules.has_kind(p.kind) {
                        return Err(FenError::PieceNotInVariant(c, variant.kind.name()));
                    }
                    if x < 8 {
                        pos.put(Square::new(x as u8, y, z as u8), p);
                    }
                    x += 1;
                }
                if x != 8 {
                    return Err(FenError::RankLength {
                        layer: ROMAN[z],
                        rank: y + 1,
                        text: rank_text.to_string(),
                        found: x,
                    });
                }
            }
        }
        for c in Color::ALL {
            let count = pos.pieces(c, PieceKind::King).count();
            if count != 1 {
                return Err(FenError::KingCount { color: color_name(c), count });
            }
        }
        let last_ranks = Bitboard::rank(0) | Bitboard::rank(7);
        if let Some(sq) = (pos.by_kind[PieceKind::Pawn.index()] & last_ranks).first() {
            return Err(FenError::PawnOnLastRank(sq));
        }
        pos.side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            s => return Err(FenError::Side(s.to_string())),
        };
        pos.parse_castling(fields[2])?;
        pos.parse_en_passant(fields[3])?;
        let clock = |i: usize, which: &'static str, default: u32, max: u32| -> Result<u32, FenError> {
            match fields.get(i) {
                None => Ok(default),
                Some(t) => t.parse::<u32>().ok().filter(|&n| n <= max).ok_or_else(|| FenError::Clock {
                    which,
                    text: shown(t),
                    max,
                }),
            }
        };
        // In range by the check above.
        pos.halfmove = clock(4, "half-move clock", 0, u16::MAX as u32)? as u16;
        pos.fullmove = clock(5, "full-move number", 1, MAX_FULLMOVE)?.max(1);
        if pos.is_attacked(pos.king(!pos.side), pos.side) {
            return Err(FenError::OpponentInCheck);
        }
        pos.ep_hash = pos.compute_ep_hash();
        pos.key = pos.compute_key();
        pos.refresh_checkers();
        Ok(pos)
    }

    fn parse_castling(&mut self, field: &str) -> Result<(), FenError> {
        let err = |why: String| FenError::Castling { field: field.to_string(), why };
        if field == "-" {
            return Ok(());
        }
        if !self.variant.castling {
            return Err(err(format!("castling is not in force in {}", self.variant.kind.name())));
        }
        let letters = self.rules.castle_letters();
        for c in field.chars() {
            let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
            let kind = letters.iter().position(|&l| l == c.to_ascii_uppercase()).ok_or_else(|| {
                err(format!("'{c}' is not a castling letter here ({})", letters.iter().collect::<String>()))
            })?;
            let bit = castle_bit(color, kind);
            if self.castling & bit != 0 {
                return Err(err(format!("'{c}' appears twice")));
            }
            let king = self.king(color);
            let rule = self
                .rules
                .castles
                .iter()
                .find(|r| r.right == bit && r.king_from == king)
                .copied()
                .ok_or_else(|| err(format!("'{c}' needs the {} king on its castling square", color_name(color))))?;
            if self.piece_at(rule.rook_from) != Some(Piece::new(color, PieceKind::Rook)) {
                return Err(err(format!("'{c}' needs a {} rook on {}", color_name(color), rule.rook_from)));
            }
            self.castling |= bit;
            self.castles[bit.trailing_zeros() as usize] = Some(rule);
        }
        Ok(())
    }

    fn parse_en_passant(&mut self, field: &str) -> Result<(), FenError> {
        if field == "-" {
            return Ok(());
        }
        let err = |why: String| FenError::EnPassant { field: field.to_string(), why };
        if !self.variant.en_passant {
            return Err(err(format!("en passant is not in force in {}", self.variant.kind.name())));
        }
        let layers = self.variant.layers;
        let (list, victim_text) = match field.split_once(':') {
            Some((l, v)) => (l, Some(v)),
            None => (field, None),
        };
        let mut targets = Vec::new();
        for t in list.split(',') {
            targets.push(Square::parse(t, layers).map_err(|e: SquareError| err(e.to_string()))?);
        }
        if targets.len() > 2 {
            return Err(err("at most two passed-over squares".into()));
        }
        let mover = !self.side;
        let f = mover.forward() as i8;
        let victim = match victim_text {
            Some(v) => Square::parse(v, layers).map_err(|e| err(e.to_string()))?,
            None if targets.len() == 1 => {
                targets[0].offset(0, f, 0, layers).ok_or_else(|| err("no square beyond the target".into()))?
            }
            None => return Err(err("two squares need the pawn's square after ':'".into())),
        };
        let target_rank = if mover == Color::White { 2 } else { 5 };
        for (i, t) in targets.iter().enumerate() {
            if t.rank() != target_rank {
                return Err(err(format!(
                    "{t} is not on rank {} (the side to move is {})",
                    target_rank + 1,
                    color_name(self.side)
                )));
            }
            if self.piece_at(*t).is_some() {
                return Err(err(format!("{t} is occupied")));
            }
            if t.file() != victim.file()
                || victim.rank() as i8 != t.rank() as i8 + f
                || t.layer().abs_diff(victim.layer()) > 1
            {
                return Err(err(format!("{t} is not passed over by a double step to {victim}")));
            }
            if i == 1 && targets[0] == *t {
                return Err(err(format!("{t} appears twice")));
            }
        }
        if self.piece_at(victim) != Some(Piece::new(mover, PieceKind::Pawn)) {
            return Err(err(format!("no {} pawn on {victim} to capture", color_name(mover))));
        }
        // The field must be exactly what some double step to the victim's square leaves behind: its
        // start square (two ranks back, same file, a layer step the game allows) is empty now and its
        // free intermediate squares are the listed ones.
        let claimed = EnPassant::new(&targets, victim);
        let layer_steps: &[i8] = match self.variant.kind {
            VariantKind::Hdc => &[0],
            VariantKind::Haberkorn => &[0, 1, -1, 2, -2],
        };
        let produced_by = |dz: i8| {
            victim.offset(0, -2 * f, -dz, layers).is_some_and(|from| {
                self.piece_at(from).is_none() && self.double_step_state(from, victim) == Some(claimed)
            })
        };
        if !layer_steps.iter().any(|&dz| produced_by(dz)) {
            return Err(err(format!(
                "no double step to {victim} passes over exactly {}",
                targets.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" and ")
            )));
        }
        self.en_passant = Some(claimed);
        Ok(())
    }

    /// The 3D-FEN of this position.
    pub fn fen(&self) -> String {
        FenParts {
            layers: self.variant.layers,
            side: self.side,
            castling: self.castling,
            en_passant: self.en_passant.as_ref().map(|ep| (ep.targets(), ep.victim())),
            halfmove: self.halfmove,
            fullmove: self.fullmove,
        }
        .write(|sq| self.piece_at(sq))
    }
}

/// Everything of a 3D-FEN but the pieces: what [`FenParts::write`] writes
/// beside a board (a position's own, or a mapped one, see `symmetry.rs`).
pub(crate) struct FenParts<'a> {
    /// The board's layer count.
    pub(crate) layers: u8,
    /// The side to move.
    pub(crate) side: Color,
    /// The castling rights (bits of [`castle_bit`]).
    pub(crate) castling: u8,
    /// The en passant squares (ascending layers) and the pawn they take.
    pub(crate) en_passant: Option<(&'a [Square], Square)>,
    /// The half-move clock.
    pub(crate) halfmove: u16,
    /// The full-move number.
    pub(crate) fullmove: u32,
}

impl FenParts<'_> {
    /// The 3D-FEN of a board holding `piece_at` with these parts.
    pub(crate) fn write(&self, piece_at: impl Fn(Square) -> Option<Piece>) -> String {
        let mut out = placement(self.layers, piece_at);
        out.push_str(if self.side == Color::White { " w " } else { " b " });
        if self.castling == 0 {
            out.push('-');
        }
        for color in Color::ALL {
            for (kind, letter) in CASTLE_LETTERS.iter().enumerate() {
                if self.castling & castle_bit(color, kind) != 0 {
                    out.push(if color == Color::White { *letter } else { letter.to_ascii_lowercase() });
                }
            }
        }
        out.push(' ');
        match self.en_passant {
            None => out.push('-'),
            Some((targets, victim)) => {
                let list: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
                out.push_str(&list.join(","));
                let f = (!self.side).forward() as i8;
                let implied = targets.len() == 1 && targets[0].offset(0, f, 0, 8) == Some(victim);
                if !implied {
                    out.push(':');
                    out.push_str(&victim.to_string());
                }
            }
        }
        out.push_str(&format!(" {} {}", self.halfmove, self.fullmove));
        out
    }
}

/// The placement field of a 3D-FEN (layers from I upward, each rank 8
/// first) of a board of `layers` layers holding `piece_at`.
fn placement(layers: u8, piece_at: impl Fn(Square) -> Option<Piece>) -> String {
    let mut out = String::new();
    for z in 0..layers {
        if z > 0 {
            out.push('|');
        }
        for y in (0..8).rev() {
            let mut empty = 0;
            for x in 0..8 {
                match piece_at(Square::new(x, y, z)) {
                    Some(p) => {
                        if empty > 0 {
                            out.push_str(&empty.to_string());
                            empty = 0;
                        }
                        out.push(p.letter());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            if y > 0 {
                out.push('/');
            }
        }
    }
    out
}
