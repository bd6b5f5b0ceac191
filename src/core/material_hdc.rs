// Hand-set values (issue 4). The Duke (18 directions) sits between rook and
// queen; bishops (12 planar diagonals) outrank rooks (6 orthogonals) in hdc's
// geometry. `cubist tune --game hdc --out src/core/material_hdc.rs`
// replaces this file with fitted values.
/// Material values (mg, eg) by kind for hdc.
pub const HDC_VALUES: [Pair; 7] =
    [Pair(90, 120), Pair(310, 300), Pair(380, 400), Pair(430, 520), Pair(800, 880), Pair(1000, 1100), Pair(0, 0)];
