//! The symmetries of the board that keep a game's rules for positions
//! without castling rights, as maps of the squares.
//!
//! Without pawns nothing tells the ranks' direction, so a rank may be
//! reversed or exchanged with another axis wherever every piece moves alike
//! along the axes (core's [`crate::core::Symmetry`] keeps the ranks, since
//! pawns and castling are on its boards):
//!
//! - **hdc** (8 layers): every piece moves alike along files, ranks and
//!   layers and both ways along each (the rook's 6 directions, the bishop's
//!   and the Duke's 12 planar diagonals, the queen's and the king's 26, the
//!   knight's 24 leaps), so all 48 maps of the cube keep the rules: the 6
//!   orders of the three axes, each axis reversed or not.
//! - **haberkorn**: the layer axis is not like the others (the rook's stairs
//!   (±1,0,±1) and (0,±1,±1) climb layers, its classical directions stay in
//!   one; the bishop's (±1,±1,0) stay in a layer), but files and ranks are
//!   alike: 16 maps, files and ranks exchanged or not, each of the three
//!   axes reversed or not (layers over the board's own count).
//!
//! A pawn fixes the ranks: it moves and promotes along them, one way. The
//! maps that keep a position with pawns keep the rank axis as it is:
//!
//! - **hdc**: a pawn steps (0,+1,0) and captures (±1,+1,0) and (0,+1,±1),
//!   so files and layers are alike for it too: 8 maps, files and layers
//!   exchanged or not, each reversed or not.
//! - **haberkorn**: a pawn steps (0,+1,0) and (0,+1,±1) and captures
//!   (±1,+1,0) and (±1,+1,±1): 4 maps, files and layers each reversed or
//!   not.

use crate::core::{Square, VariantKind};

/// One map of the board: new coordinate `i` is old coordinate `axes[i]`,
/// reversed if `flip[i]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubeMap {
    /// Which old axis (0 file, 1 rank, 2 layer) each new axis reads.
    axes: [u8; 3],
    /// Whether each new axis is reversed.
    flip: [bool; 3],
}

/// The orders of the three axes.
const ORDERS: [[u8; 3]; 6] = [[0, 1, 2], [1, 0, 2], [0, 2, 1], [2, 1, 0], [1, 2, 0], [2, 0, 1]];

impl CubeMap {
    /// The map that changes nothing.
    pub const IDENTITY: CubeMap = CubeMap { axes: [0, 1, 2], flip: [false; 3] };

    /// Every map that `kind`'s rules keep for pawnless positions on `layers`
    /// layers, the identity first (see the module docs).
    pub fn pawnless(kind: VariantKind, layers: u8) -> Vec<CubeMap> {
        let orders: &[[u8; 3]] = match kind {
            VariantKind::Hdc if layers == 8 => &ORDERS,
            _ => &ORDERS[..2],
        };
        let mut maps = Vec::new();
        for &axes in orders {
            for f in 0..8u8 {
                maps.push(CubeMap { axes, flip: [f & 1 != 0, f & 2 != 0, f & 4 != 0] });
            }
        }
        maps
    }

    /// Every map that `kind`'s rules keep for positions with pawns on
    /// `layers` layers, the identity first (see the module docs).
    pub fn with_pawns(kind: VariantKind, layers: u8) -> Vec<CubeMap> {
        let orders: &[[u8; 3]] = match kind {
            VariantKind::Hdc if layers == 8 => &[[0, 1, 2], [2, 1, 0]],
            _ => &[[0, 1, 2]],
        };
        let mut maps = Vec::new();
        for &axes in orders {
            for f in 0..4u8 {
                maps.push(CubeMap { axes, flip: [f & 1 != 0, false, f & 2 != 0] });
            }
        }
        maps
    }

    /// [`CubeMap::pawnless`] or [`CubeMap::with_pawns`].
    pub fn keeping(kind: VariantKind, layers: u8, pawns: bool) -> Vec<CubeMap> {
        if pawns { CubeMap::with_pawns(kind, layers) } else { CubeMap::pawnless(kind, layers) }
    }

    /// The image of `sq` on a board of `layers` layers.
    pub fn square(self, sq: Square, layers: u8) -> Square {
        let old = [sq.file(), sq.rank(), sq.layer()];
        let size = [8, 8, layers];
        let mut new = [0u8; 3];
        for i in 0..3 {
            let v = old[self.axes[i] as usize];
            new[i] = if self.flip[i] { size[i] - 1 - v } else { v };
        }
        Square::new(new[0], new[1], new[2])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_map_permutes_the_board_and_the_identity_comes_first() {
        for (kind, layers, pawns, count) in [
            (VariantKind::Hdc, 8, false, 48),
            (VariantKind::Haberkorn, 8, false, 16),
            (VariantKind::Haberkorn, 3, false, 16),
            (VariantKind::Hdc, 8, true, 8),
            (VariantKind::Haberkorn, 8, true, 4),
            (VariantKind::Haberkorn, 5, true, 4),
        ] {
            let maps = CubeMap::keeping(kind, layers, pawns);
            assert_eq!(maps.len(), count);
            assert_eq!(maps[0], CubeMap::IDENTITY);
            let n = 64 * layers as usize;
            let mut images = HashSet::new();
            for m in &maps {
                let image: Vec<Square> = (0..n).map(|i| m.square(Square::from_index(i).unwrap(), layers)).collect();
                assert_eq!(image.iter().collect::<HashSet<_>>().len(), n, "a permutation");
                assert!(image.iter().all(|s| s.layer() < layers));
                assert!(images.insert(image.clone()), "the maps differ");
                if pawns {
                    assert!((0..n).all(|i| image[i].rank() == Square::from_index(i).unwrap().rank()), "ranks kept");
                }
            }
        }
    }
}
