//! The symmetries of the cube that a game's rules keep: maps of the board
//! onto itself under which every legal move goes to a legal move, so that a
//! position and its image have the same game tree (the same perft, the same
//! result with best play). Ranks are never touched (pawns move up the ranks
//! for White and down for Black); files and layers are:
//!
//! - **hdc**: every piece moves alike along files and layers and both ways
//!   along each (the rook's 6 directions, the bishop's and the Duke's
//!   planar diagonals, the 24 knight leaps, the pawn's captures (±1,+1,0)
//!   and (0,+1,±1)), so all 8 maps of the file–layer square keep the rules:
//!   files reversed, layers reversed, files and layers exchanged, and their
//!   combinations. Castling does not survive any of them (the king starts on
//!   file e of layer IV, and a mirror puts it on d or V), so a position with
//!   castling rights has only the identity.
//! - **haberkorn**: files reversed and layers reversed (4 maps). Files and
//!   layers are not exchangeable: the rook's stairs (0,±1,±1) would become
//!   bishop moves (±1,±1,0). Reversing the layers keeps castling (it
//!   happens within a layer, on every layer); reversing the files needs a
//!   position without castling rights.
//!
//! [`Symmetry::apply`] maps a whole position (pieces, side to move,
//! castling rights, en passant, clocks); the tests in `tests/suite` check
//! that the image has the same legal moves, mapped, and the same perft.

use super::fen::FenParts;
use super::piece::Piece;
use super::position::Position;
use super::square::Square;
use super::variant::{Variant, VariantKind};

/// One map of the file–layer square: files and layers exchanged first (if
/// `swap`), then files reversed (if `flip_file`) and layers reversed (if
/// `flip_layer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Symmetry {
    /// Files and layers exchanged (file x goes to layer x, layer z to file z).
    pub swap: bool,
    /// Files reversed (a ↔ h).
    pub flip_file: bool,
    /// Layers reversed (I ↔ the top layer).
    pub flip_layer: bool,
}

/// All 8 maps, the identity first: those of hdc's rules.
const ALL: [Symmetry; 8] = {
    let mut all = [Symmetry::IDENTITY; 8];
    let mut i = 0;
    while i < 8 {
        all[i] = Symmetry { swap: i & 4 != 0, flip_file: i & 1 != 0, flip_layer: i & 2 != 0 };
        i += 1;
    }
    all
};

impl Symmetry {
    /// The map that changes nothing.
    pub const IDENTITY: Symmetry = Symmetry { swap: false, flip_file: false, flip_layer: false };

    /// Every map that `kind`'s rules keep (for positions without castling
    /// rights), the identity first: 8 in hdc, 4 in haberkorn (see the module docs).
    pub fn of_game(kind: VariantKind) -> &'static [Symmetry] {
        match kind {
            VariantKind::Hdc => &ALL,
            VariantKind::Haberkorn => &ALL[..4],
        }
    }

    /// The image of `sq` on a board of `layers` layers (exchanging files and
    /// layers needs 8 layers: [`Symmetry::keeps`] says where it applies).
    pub fn square(self, sq: Square, layers: u8) -> Square {
        let (mut x, y, mut z) = (sq.file(), sq.rank(), sq.layer());
        if self.swap {
            (x, z) = (z, x);
        }
        if self.flip_file {
            x = 7 - x;
        }
        if self.flip_layer {
            z = layers - 1 - z;
        }
        Square::new(x, y, z)
    }

    /// Whether the rules keep this map for `pos`: it is one of its game's
    /// ([`Symmetry::of_game`]), and it carries the castling rights over
    /// (none left, or in haberkorn a map that keeps the files).
    pub fn keeps(self, pos: &Position) -> bool {
        self.fits(pos.variant()) && (self.keeps_castling(pos.variant().kind) || pos.castling_rights() == 0)
    }

    /// Whether this is a map of `v`'s game on its board (exchanging files and layers needs 8 layers).
    fn fits(self, v: &Variant) -> bool {
        Symmetry::of_game(v.kind).contains(&self) && (!self.swap || v.layers == 8)
    }

    /// Whether this map carries castling rights of `kind` over.
    fn keeps_castling(self, kind: VariantKind) -> bool {
        match kind {
            VariantKind::Hdc => self == Symmetry::IDENTITY,
            VariantKind::Haberkorn => !self.swap && !self.flip_file,
        }
    }

    /// The variant of a mapped position: haberkorn's setup layers follow the layers.
    fn variant(self, v: &Variant) -> Variant {
        let mut out = *v;
        if self.flip_layer && v.kind == VariantKind::Haberkorn {
            out.white_layer = v.layers - 1 - v.white_layer;
            out.black_layer = v.layers - 1 - v.black_layer;
        }
        out
    }

    /// `pos` mapped by this symmetry (without its move history), or `None`
    /// where the rules do not keep the map for it ([`Symmetry::keeps`]).
    pub fn apply(self, pos: &Position) -> Option<Position> {
        if !self.keeps(pos) {
            return None;
        }
        self.image(pos, false)
    }

    /// `pos`'s pieces mapped by this symmetry, with the castling rights the
    /// map does not carry over dropped (`None` for a map of another game's):
    /// a position of the same game tree only where [`Symmetry::keeps`]
    /// says so, but always the same pieces for an evaluation, which reads
    /// no castling rights (the trainer's augmentation).
    pub fn apply_to_pieces(self, pos: &Position) -> Option<Position> {
        if self.fits(pos.variant()) { self.image(pos, !self.keeps(pos)) } else { None }
    }

    /// The image of `pos`, its castling rights dropped if `drop_castling`.
    fn image(self, pos: &Position, drop_castling: bool) -> Option<Position> {
        let layers = pos.variant().layers;
        let mut board: [Option<Piece>; 512] = [None; 512];
        for sq in pos.occupied() {
            board[self.square(sq, layers).index()] = pos.piece_at(sq);
        }
        let mut targets: Vec<Square> = Vec::new();
        let en_passant = pos.en_passant().map(|ep| {
            targets = ep.targets().iter().map(|&t| self.square(t, layers)).collect();
            targets.sort_by_key(|t| t.layer());
            self.square(ep.victim(), layers)
        });
        let text = FenParts {
            layers,
            side: pos.side_to_move(),
            castling: if drop_castling { 0 } else { pos.castling_rights() },
            en_passant: en_passant.map(|victim| (targets.as_slice(), victim)),
            halfmove: pos.halfmove_clock(),
            fullmove: pos.fullmove_number(),
        }
        .write(|sq| board[sq.index()]);
        Position::from_fen(&text, self.variant(pos.variant())).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_maps_are_permutations_of_the_board() {
        for (kind, layers) in [(VariantKind::Hdc, 8), (VariantKind::Haberkorn, 8), (VariantKind::Haberkorn, 3)] {
            for &s in Symmetry::of_game(kind) {
                let mut seen = std::collections::HashSet::new();
                for z in 0..layers {
                    for y in 0..8 {
                        for x in 0..8 {
                            let image = s.square(Square::new(x, y, z), layers);
                            assert!(image.layer() < layers && image.rank() == y);
                            assert!(seen.insert(image));
                        }
                    }
                }
            }
        }
        assert_eq!(Symmetry::of_game(VariantKind::Hdc).len(), 8);
        assert_eq!(Symmetry::of_game(VariantKind::Haberkorn).len(), 4);
        assert!(Symmetry::of_game(VariantKind::Haberkorn).iter().all(|s| !s.swap));
    }

    #[test]
    fn castling_rights_rule_maps_out() {
        let hdc = Position::start(Variant::hdc());
        assert!(Symmetry::IDENTITY.keeps(&hdc));
        assert!(Symmetry::of_game(VariantKind::Hdc)[1..].iter().all(|s| s.apply(&hdc).is_none()));
        let mut haberkorn = Variant::haberkorn();
        haberkorn.castling = true;
        let pos = Position::start(haberkorn);
        assert_ne!(pos.castling_rights(), 0);
        let layers = Symmetry { flip_layer: true, ..Symmetry::IDENTITY };
        let image = layers.apply(&pos).expect("reversing the layers keeps haberkorn's castling");
        assert_eq!(image.castling_rights(), pos.castling_rights());
        assert_eq!(image.legal_moves().len(), pos.legal_moves().len());
        assert!(Symmetry { flip_file: true, ..Symmetry::IDENTITY }.apply(&pos).is_none());
    }

    #[test]
    fn the_haberkorn_start_maps_onto_its_mirror_constellation() {
        // White on IV and Black on V of 8 layers: reversed, White on V and Black on IV.
        let pos = Position::start(Variant::haberkorn());
        let image = Symmetry { flip_layer: true, ..Symmetry::IDENTITY }.apply(&pos).expect("no castling rights");
        let v = image.variant();
        assert_eq!((v.white_layer, v.black_layer), (4, 3));
        assert_eq!(image.fen(), Position::start(*v).fen());
    }

    #[test]
    fn pieces_map_whatever_the_castling_rights() {
        let hdc = Position::start(Variant::hdc());
        for &s in Symmetry::of_game(VariantKind::Hdc) {
            let image = s.apply_to_pieces(&hdc).expect("every hdc map applies to the pieces");
            assert_eq!(image.occupied().count(), hdc.occupied().count());
            assert_eq!(image.castling_rights() == 0, s != Symmetry::IDENTITY);
        }
        let swap = Symmetry { swap: true, ..Symmetry::IDENTITY };
        assert!(swap.apply_to_pieces(&Position::start(Variant::haberkorn())).is_none());
    }
}
