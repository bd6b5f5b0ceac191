//! The weights of the static evaluation, one set per game type: the
//! evaluation is a sum of weight × feature (each weight a middle game, end
//! game pair), blended by the game phase, plus a tempo for the side to move.
//! The sets live in `weights_hdc.rs` and `weights_haberkorn.rs`, written by
//! `cubist tune --out`; this module names each weight's place.
//!
//! Placement is parametrised compactly: per kind, a value by the distance
//! from the nearest edge along the file (0..=3), one by the distance from the
//! nearest outer layer (0..=3), and one by the rank as the owner sees it
//! (0..=7); a piece's placement is the sum of the three.

use super::pair::Pair;
use crate::core::square::Square;
use crate::core::variant::{PerGame, VariantKind};

/// Kinds, in [`PieceKind`](crate::core::PieceKind) index order.
const K: usize = 7;

/// Where each group of weights starts in [`Weights::w`].
pub mod at {
    use super::K;
    /// Material by kind.
    pub const MATERIAL: usize = 0;
    /// Placement by distance from the nearest file edge, `FILE + kind * 4 + distance`.
    pub const FILE: usize = MATERIAL + K;
    /// Placement by distance from the nearest outer layer, `LAYER + kind * 4 + distance`.
    pub const LAYER: usize = FILE + 4 * K;
    /// Placement by relative rank, `RANK + kind * 8 + rank`.
    pub const RANK: usize = LAYER + 4 * K;
    /// Per square a piece of the kind reaches (not one of ours).
    pub const MOBILITY: usize = RANK + 8 * K;
    /// Per king-zone square a piece of the kind attacks, times the number of
    /// attacking pieces (at most 6), once at least two attack; counted for the defender.
    pub const KING_ATTACK: usize = MOBILITY + K;
    /// Per open line to the king along which the enemy has a slider.
    pub const OPEN_LINE: usize = KING_ATTACK + K;
    /// Per passed pawn by relative rank.
    pub const PASSED: usize = OPEN_LINE + 1;
    /// Per pawn beyond the first on a column (file and layer).
    pub const DOUBLED: usize = PASSED + 8;
    /// Per pawn without a friendly pawn on a neighbouring column.
    pub const ISOLATED: usize = DOUBLED + 1;
    /// How many weights a set holds.
    pub const COUNT: usize = ISOLATED + 1;
}

/// The groups of weights: name, start in [`Weights::w`], length, and the
/// size of one row (a kind's table) for printing.
pub const GROUPS: [(&str, usize, usize, usize); 10] = [
    ("material", at::MATERIAL, K, K),
    ("file", at::FILE, 4 * K, 4),
    ("layer", at::LAYER, 4 * K, 4),
    ("rank", at::RANK, 8 * K, 8),
    ("mobility", at::MOBILITY, K, K),
    ("king attack", at::KING_ATTACK, K, K),
    ("open line", at::OPEN_LINE, 1, 1),
    ("passed", at::PASSED, 8, 8),
    ("doubled", at::DOUBLED, 1, 1),
    ("isolated", at::ISOLATED, 1, 1),
];

/// Every weight of the evaluation of one game type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// The weights, grouped as [`at`] says.
    pub w: [Pair; at::COUNT],
    /// Added for the side to move after the phase blend.
    pub tempo: i32,
}

// The weight sets, one file per game, in the form `cubist tune --out` writes
// them (the data and command that fitted them are recorded at the top).
include!("weights_hdc.rs");
include!("weights_haberkorn.rs");

/// Each game's weights (`weights_<game>.rs` holds `<GAME>_WEIGHTS`).
const WEIGHTS: PerGame<&Weights> = PerGame::new([&HDC_WEIGHTS, &HABERKORN_WEIGHTS]);

/// The weights of a game type.
pub const fn weights(kind: VariantKind) -> &'static Weights {
    WEIGHTS.at(kind)
}

/// The name of the constant that holds `kind`'s weights in `weights_<game>.rs`: `<GAME>_WEIGHTS`.
pub fn weights_name(kind: VariantKind) -> String {
    format!("{}_WEIGHTS", kind.name().to_uppercase())
}

impl Weights {
    /// The material value (mg, eg) of a kind.
    #[inline]
    pub fn material(&self, kind: usize) -> Pair {
        self.w[at::MATERIAL + kind]
    }

    /// A 16-bit digest of the set: what a residual network's file records of
    /// the linear evaluation it was trained on top of.
    pub fn fingerprint(&self) -> u16 {
        crate::files::fnv1a(self.to_source("W").as_bytes()) as u16
    }

    /// Source text of the set as a Rust constant named `name` (what `cubist tune --out` writes), one group per line.
    pub fn to_source(&self, name: &str) -> String {
        let mut s = format!("pub const {name}: Weights = Weights {{\n    tempo: {},\n    w: [\n", self.tempo);
        for (group, start, len, row) in GROUPS {
            s.push_str(&format!("        // {group}\n"));
            for chunk in self.w[start..start + len].chunks(row) {
                let items: Vec<String> = chunk.iter().map(|p| format!("Pair({}, {})", p.0, p.1)).collect();
                s.push_str(&format!("        {},\n", items.join(", ")));
            }
        }
        s.push_str("    ],\n};\n");
        s
    }
}

/// The indices in [`Weights::w`] of the three placement weights (file, layer,
/// rank) of a piece of kind index `k` on `sq` as its owner sees it (Black's
/// rank mirrored), on a board of `layers` layers.
#[inline]
pub fn placement_indices(k: usize, sq: Square, layers: u8) -> [usize; 3] {
    [
        at::FILE + 4 * k + edge_distance(sq.file(), 8),
        at::LAYER + 4 * k + edge_distance(sq.layer(), layers),
        at::RANK + 8 * k + sq.rank() as usize,
    ]
}

/// The distance of a coordinate from the nearer end of `0..size`, capped at 3.
#[inline]
pub fn edge_distance(v: u8, size: u8) -> usize {
    (v.min(size.saturating_sub(1).saturating_sub(v))).min(3) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_tile_the_set() {
        let mut next = 0;
        for (_, start, len, row) in GROUPS {
            assert_eq!(start, next);
            assert_eq!(len % row, 0);
            next += len;
        }
        assert_eq!(next, at::COUNT);
    }

    #[test]
    fn kings_have_no_material_and_no_mobility_weight() {
        for kind in [VariantKind::Hdc, VariantKind::Haberkorn] {
            let w = weights(kind);
            assert_eq!(w.material(6), Pair(0, 0));
            assert_eq!(w.w[at::MOBILITY + 6], Pair(0, 0));
            assert_eq!(w.w[at::KING_ATTACK + 6], Pair(0, 0));
        }
    }

    #[test]
    fn edge_distance_is_symmetric() {
        assert_eq!((0..8).map(|v| edge_distance(v, 8)).collect::<Vec<_>>(), [0, 1, 2, 3, 3, 2, 1, 0]);
        assert_eq!((0..3).map(|v| edge_distance(v, 3)).collect::<Vec<_>>(), [0, 1, 0]);
        assert_eq!((0..5).map(|v| edge_distance(v, 5)).collect::<Vec<_>>(), [0, 1, 2, 1, 0]);
    }
}
