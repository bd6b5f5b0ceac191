// Hand-set values (issue 4): the rook has 14 directions, the bishop 12, the
// knight 32 targets. `cubist tune --game haberkorn --out
// src/core/material_haberkorn.rs` replaces this file with fitted values.
/// Material values (mg, eg) by kind for haberkorn.
pub const HABERKORN_VALUES: [Pair; 7] =
    [Pair(90, 120), Pair(360, 340), Pair(400, 420), Pair(560, 640), Pair(800, 880), Pair(1150, 1250), Pair(0, 0)];
