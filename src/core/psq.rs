//! Material and piece-square values: the part of the static evaluation that
//! make/unmake keep up to date. Per variant, one table of (middle game, end
//! game) pairs by colour, kind and square (material plus placement, Black
//! reading the rank-mirrored square), built once; a [`Position`] holds each
//! colour's running sum and the game phase.
//!
//! [`Position`]: super::Position

use super::piece::{Color, PieceKind};
use super::square::{NUM_SQUARES, Square};
use super::variant::VariantKind;
use std::sync::OnceLock;

/// A (middle game, end game) pair of centipawns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pair(pub i32, pub i32);

impl std::ops::AddAssign for Pair {
    #[inline]
    fn add_assign(&mut self, o: Pair) {
        self.0 += o.0;
        self.1 += o.1;
    }
}

impl std::ops::SubAssign for Pair {
    #[inline]
    fn sub_assign(&mut self, o: Pair) {
        self.0 -= o.0;
        self.1 -= o.1;
    }
}

// The material values (mg, eg) by kind, one file per game, in the form
// `cubist tune --out` writes them (the data and command that fitted them are
// recorded at the top of each file).
include!("material_hdc.rs");
include!("material_haberkorn.rs");

/// Game-phase weight of each kind (pawns and kings count nothing).
pub const PHASE: [i32; 7] = [0, 1, 1, 2, 3, 4, 0];

/// The material values of a variant kind.
pub const fn values(kind: VariantKind) -> &'static [Pair; 7] {
    match kind {
        VariantKind::Hdc => &HDC_VALUES,
        VariantKind::Haberkorn => &HABERKORN_VALUES,
    }
}

/// The piece-square tables of one variant and board size.
pub struct PsqTable {
    /// `pst[kind][sq]`: the placement pair for White; Black reads the rank-mirrored square.
    pub pst: [Vec<Pair>; PieceKind::COUNT],
    /// `both[(color * 7 + kind) * 512 + sq]`: material plus placement of that piece there.
    both: Vec<Pair>,
}

impl PsqTable {
    /// The table of a variant kind on `layers` layers, built on first use.
    pub fn get(kind: VariantKind, layers: u8) -> &'static PsqTable {
        static TABLES: [OnceLock<PsqTable>; 7] = [const { OnceLock::new() }; 7];
        let i = match kind {
            VariantKind::Hdc => 0,
            VariantKind::Haberkorn => layers.clamp(3, 8) as usize - 2,
        };
        TABLES[i].get_or_init(|| PsqTable::build(kind, layers))
    }

    fn build(kind: VariantKind, layers: u8) -> PsqTable {
        let mid_z = (layers as f32 - 1.0) / 2.0;
        let centre = |v: u8, mid: f32| mid - (v as f32 - mid).abs();
        let pst: [Vec<Pair>; PieceKind::COUNT] = std::array::from_fn(|k| {
            (0..NUM_SQUARES)
                .map(|i| {
                    let sq = Square::from_index(i).unwrap_or(Square::new(0, 0, 0));
                    let (cx, cy, cz) = (centre(sq.file(), 3.5), centre(sq.rank(), 3.5), centre(sq.layer(), mid_z));
                    let c = cx + cy + cz;
                    let y = sq.rank() as f32;
                    let p = match PieceKind::from_index(k).unwrap_or(PieceKind::King) {
                        PieceKind::Pawn => (y * 4.0 + (cx + cz) * 2.0, y * 10.0),
                        PieceKind::Knight => (c * 6.0 - 10.0, c * 4.0 - 6.0),
                        PieceKind::Bishop => (c * 3.0, c * 3.0),
                        PieceKind::Rook => (cz * 2.0 + cx, c * 1.0),
                        PieceKind::Duke | PieceKind::Queen => (c * 2.0, c * 3.0),
                        PieceKind::King => (-y * 10.0 - (cx + cz) * 2.0, c * 6.0 - 10.0),
                    };
                    Pair(p.0.round() as i32, p.1.round() as i32)
                })
                .collect()
        });
        let material = values(kind);
        let mut both = Vec::with_capacity(2 * PieceKind::COUNT * NUM_SQUARES);
        for c in Color::ALL {
            for k in PieceKind::ALL {
                for i in 0..NUM_SQUARES {
                    let sq = Square::from_index_unchecked(i);
                    let mut p = material[k.index()];
                    p += pst[k.index()][mirror(c, sq)];
                    both.push(p);
                }
            }
        }
        PsqTable { pst, both }
    }

    /// Material plus placement of a piece of `color` and `kind` on `sq`.
    #[inline(always)]
    pub fn value(&self, color: Color, kind: PieceKind, sq: Square) -> Pair {
        self.both[(color.index() * PieceKind::COUNT + kind.index()) * NUM_SQUARES + sq.index()]
    }
}

/// The square index `color` reads the White piece-square tables at (Black's is rank-mirrored).
#[inline]
pub fn mirror(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq.index(),
        Color::Black => Square::new(sq.file(), 7 - sq.rank(), sq.layer()).index(),
    }
}
