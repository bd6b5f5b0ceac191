//! Material and piece-square values: the part of the static evaluation that
//! moves keep up to date. Per variant, one table of (middle game, end game)
//! pairs by colour, kind and square (material plus placement, Black reading
//! the rank-mirrored square), built once; a search thread's linear
//! evaluation ([`super::linear::Linear`]) keeps each colour's running sum
//! and the game phase, updated from each move's piece changes.

use super::pair::Pair;
use super::weights::{Weights, placement_indices, weights};
use crate::core::piece::{Color, PieceKind};
use crate::core::square::{NUM_SQUARES, Square};
use crate::core::variant::{TABLE_COUNT, Variant, VariantKind};
use std::sync::OnceLock;

/// The piece-square tables of one variant and board size.
pub struct PsqTable {
    /// `both[(color * 7 + kind) * 512 + sq]`: material plus placement of that piece there.
    both: Vec<Pair>,
}

impl PsqTable {
    /// The table of a variant kind on `layers` layers, built on first use.
    pub fn get(kind: VariantKind, layers: u8) -> &'static PsqTable {
        static TABLES: [OnceLock<PsqTable>; TABLE_COUNT] = [const { OnceLock::new() }; TABLE_COUNT];
        TABLES[Variant::table_index(kind, layers)].get_or_init(|| PsqTable::build(kind, layers))
    }

    fn build(kind: VariantKind, layers: u8) -> PsqTable {
        let w = weights(kind);
        let pst: [Vec<Pair>; PieceKind::COUNT] = std::array::from_fn(|k| {
            (0..NUM_SQUARES).map(|i| placement(w, k, Square::from_index_unchecked(i), layers)).collect()
        });
        let mut both = Vec::with_capacity(2 * PieceKind::COUNT * NUM_SQUARES);
        for c in Color::ALL {
            for k in PieceKind::ALL {
                for i in 0..NUM_SQUARES {
                    let sq = Square::from_index_unchecked(i);
                    let mut p = w.material(k.index());
                    p += pst[k.index()][mirror(c, sq)];
                    both.push(p);
                }
            }
        }
        PsqTable { both }
    }

    /// Material plus placement of a piece of `color` and `kind` on `sq`.
    #[inline(always)]
    pub fn value(&self, color: Color, kind: PieceKind, sq: Square) -> Pair {
        self.both[(color.index() * PieceKind::COUNT + kind.index()) * NUM_SQUARES + sq.index()]
    }
}

/// The placement pair of a White piece of kind index `k` on `sq` on a board of `layers` layers.
pub fn placement(w: &Weights, k: usize, sq: Square, layers: u8) -> Pair {
    let mut p = Pair::default();
    for i in placement_indices(k, sq, layers) {
        p += w.w[i];
    }
    p
}

/// The square index `color` reads the White piece-square tables at (Black's is rank-mirrored).
#[inline]
pub fn mirror(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq.index(),
        Color::Black => Square::new(sq.file(), 7 - sq.rank(), sq.layer()).index(),
    }
}
