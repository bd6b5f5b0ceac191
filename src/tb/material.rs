//! A material signature: which pieces besides the two kings stand on the
//! board, written as Syzygy writes it (`KQvK`, `KRvKN`: White's pieces, `v`,
//! Black's, strongest first).

use crate::core::{Color, Piece, PieceKind, Position, VariantKind};
use std::fmt;
use thiserror::Error;

/// The most pieces, kings included, an ending may have here.
pub const MAX_PIECES: usize = 4;

/// Why a material signature was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum MaterialError {
    /// Not of the form `K…vK…`.
    #[error("material '{0}' is not of the form K…vK… (for example KQvK)")]
    Form(String),
    /// A letter that is no piece.
    #[error("'{0}' in material '{1}' is not a piece letter (K, Q, D, R, B, N, P)")]
    Letter(char, String),
    /// A piece the game does not have.
    #[error("{0} has no {1}")]
    NotInGame(&'static str, &'static str),
    /// More pieces than the generator handles.
    #[error("material '{0}' has {1} pieces: endings of up to {MAX_PIECES} pieces, kings included, are generated")]
    TooMany(String, usize),
}

/// The pieces of an ending besides the kings: White's, then Black's, each
/// strongest first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Material {
    /// Every piece but the kings, White's first, strongest first within a colour.
    pieces: Vec<Piece>,
}

/// Strongest first: the order pieces are written and indexed in.
const ORDER: [PieceKind; 6] =
    [PieceKind::Queen, PieceKind::Duke, PieceKind::Rook, PieceKind::Bishop, PieceKind::Knight, PieceKind::Pawn];

impl Material {
    /// Parses `KQvK`-style text for game `kind` (case-insensitive).
    pub fn parse(text: &str, kind: VariantKind) -> Result<Material, MaterialError> {
        let upper = text.trim().to_ascii_uppercase();
        let (white, black) = upper.split_once('V').ok_or_else(|| MaterialError::Form(text.to_string()))?;
        if !white.starts_with('K') || !black.starts_with('K') {
            return Err(MaterialError::Form(text.to_string()));
        }
        let mut pieces = Vec::new();
        for (color, side) in [(Color::White, &white[1..]), (Color::Black, &black[1..])] {
            let mut kinds = Vec::new();
            for c in side.chars() {
                let k = PieceKind::from_letter(c)
                    .filter(|&k| k != PieceKind::King)
                    .ok_or_else(|| MaterialError::Letter(c, text.to_string()))?;
                if k == PieceKind::Duke && kind != VariantKind::Hdc {
                    return Err(MaterialError::NotInGame(kind.name(), "Duke"));
                }
                kinds.push(k);
            }
            kinds.sort_by_key(|k| ORDER.iter().position(|o| o == k));
            pieces.extend(kinds.into_iter().map(|k| Piece::new(color, k)));
        }
        let m = Material { pieces };
        if m.piece_count() > MAX_PIECES {
            return Err(MaterialError::TooMany(m.to_string(), m.piece_count()));
        }
        Ok(m)
    }

    /// The material of `pos`: its pieces besides the kings, as a table
    /// would hold them (refused past [`MAX_PIECES`], as [`Material::parse`] is).
    pub fn of_position(pos: &Position) -> Result<Material, MaterialError> {
        // Counted straight into index order (White's first, strongest
        // first): no text is built, since the generator and the search ask
        // this for every capture they look up.
        let mut pieces = Vec::new();
        for color in [Color::White, Color::Black] {
            for &k in &ORDER {
                let n = pos.pieces(color, k).count() as usize;
                pieces.extend(std::iter::repeat_n(Piece::new(color, k), n));
            }
        }
        let m = Material { pieces };
        if m.piece_count() > MAX_PIECES {
            return Err(MaterialError::TooMany(m.to_string(), m.piece_count()));
        }
        Ok(m)
    }

    /// The same ending with the colours swapped (`KvKQ` for `KQvK`).
    pub fn swapped(&self) -> Material {
        let mut pieces: Vec<Piece> = self.pieces.iter().map(|p| Piece::new(!p.color, p.kind)).collect();
        pieces.sort_by_key(|p| (p.color != Color::White, ORDER.iter().position(|&o| o == p.kind)));
        Material { pieces }
    }

    /// Every piece besides the kings, in index order.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The pieces on the board, kings included.
    pub fn piece_count(&self) -> usize {
        self.pieces.len() + 2
    }

    /// Whether a pawn is among the pieces (the ranks' direction then matters).
    pub fn has_pawns(&self) -> bool {
        self.pieces.iter().any(|p| p.kind == PieceKind::Pawn)
    }

    /// Every signature of `kind` with exactly `count` pieces (kings
    /// included), the stronger side White, in an order that makes each
    /// ending's promotions before it (the pawn's ending last): the set
    /// `cubist tb generate` makes without `--material`.
    pub fn all(kind: VariantKind, count: usize) -> Vec<Material> {
        let kinds: Vec<PieceKind> =
            ORDER.iter().copied().filter(|&k| k != PieceKind::Duke || kind == VariantKind::Hdc).collect();
        match count {
            2 => vec![Material { pieces: Vec::new() }],
            3 => kinds.iter().map(|&k| Material { pieces: vec![Piece::new(Color::White, k)] }).collect(),
            _ => Vec::new(),
        }
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |c: Color| -> String {
            std::iter::once('K')
                .chain(self.pieces.iter().filter(|p| p.color == c).map(|p| p.kind.letter().to_ascii_uppercase()))
                .collect()
        };
        write!(f, "{}v{}", side(Color::White), side(Color::Black))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_parse_and_print_strongest_first() {
        let m = Material::parse("kqvk", VariantKind::Hdc).unwrap();
        assert_eq!(m.to_string(), "KQvK");
        assert_eq!(m.piece_count(), 3);
        assert_eq!(
            Material::parse("KvKR", VariantKind::Haberkorn).unwrap().pieces(),
            &[Piece::new(Color::Black, PieceKind::Rook)]
        );
        assert_eq!(Material::parse("KvK", VariantKind::Hdc).unwrap().to_string(), "KvK");
        assert_eq!(Material::parse("KvKQ", VariantKind::Hdc).unwrap().swapped().to_string(), "KQvK");
        assert_eq!(Material::parse("KvKN", VariantKind::Haberkorn).unwrap().swapped().to_string(), "KNvK");
        assert_eq!(m.swapped().swapped(), m);
        assert_eq!(Material::parse("KDvK", VariantKind::Haberkorn), Err(MaterialError::NotInGame("haberkorn", "Duke")));
        assert!(matches!(Material::parse("KQK", VariantKind::Hdc), Err(MaterialError::Form(_))));
        assert!(matches!(Material::parse("QvK", VariantKind::Hdc), Err(MaterialError::Form(_))));
        assert!(matches!(Material::parse("KXvK", VariantKind::Hdc), Err(MaterialError::Letter('X', _))));
        assert!(matches!(Material::parse("KKvK", VariantKind::Hdc), Err(MaterialError::Letter('K', _))));
        assert!(matches!(Material::parse("KQRBvK", VariantKind::Hdc), Err(MaterialError::TooMany(_, 5))));
        assert_eq!(Material::parse("KrvKq", VariantKind::Haberkorn).unwrap().to_string(), "KRvKQ");
        let pawn = Material::parse("KvKP", VariantKind::Hdc).unwrap();
        assert!(pawn.has_pawns() && !m.has_pawns());
        assert_eq!(pawn.swapped().to_string(), "KPvK");
        let names: Vec<String> = Material::all(VariantKind::Hdc, 3).iter().map(|m| m.to_string()).collect();
        assert_eq!(names, ["KQvK", "KDvK", "KRvK", "KBvK", "KNvK", "KPvK"]);
        assert_eq!(Material::all(VariantKind::Haberkorn, 3).len(), 5);
    }

    #[test]
    fn a_positions_material_is_counted_in_index_order() {
        use crate::core::Variant;
        let variant = Variant::haberkorn_from(3, None, None, false, false).unwrap();
        let fen = "8/8/8/8/8/8/8/KN5R|8/8/8/8/8/8/8/8|8/8/8/4k3/8/8/8/8 w - - 0 1";
        let pos = Position::from_fen(fen, variant).unwrap();
        let m = Material::of_position(&pos).unwrap();
        assert_eq!(m, Material::parse("KNRvK", VariantKind::Haberkorn).unwrap());
        assert_eq!(m.to_string(), "KRNvK");
        let start = Position::start(Variant::haberkorn());
        assert_eq!(
            Material::of_position(&start),
            Err(MaterialError::TooMany("KQRRBBNNPPPPPPPPvKQRRBBNNPPPPPPPP".into(), 32))
        );
    }
}
