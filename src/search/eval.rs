//! Static evaluation for both variants, tapered between middle game and end
//! game: material, 3D piece-square terms, mobility, king safety (the 3×3×3
//! king zone and open lines) and pawn structure (passed pawns under each
//! variant's capture pattern, doubled and isolated pawns).
//!
//! Every term is computed per colour as a (middle game, end game) pair so that
//! [`trace`] can list them; [`evaluate`] only sums them.

use crate::core::geometry::NUM_DIRS;
use crate::core::{Bitboard, Color, PieceKind, Position, Square, VariantKind};
use std::fmt::Write;
use std::sync::OnceLock;

/// A (middle game, end game) pair of centipawns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pair(pub i32, pub i32);

impl std::ops::AddAssign for Pair {
    fn add_assign(&mut self, o: Pair) {
        self.0 += o.0;
        self.1 += o.1;
    }
}

// The material values (mg, eg) by kind, one file per game, in the form
// `cubist tune --out` writes them (the data and command that fitted them are
// recorded at the top of each file).
include!("material_hdc.rs");
include!("material_haberkorn.rs");

/// The material value of a kind in a variant (middle game), for move ordering and pruning.
pub fn piece_value(kind: VariantKind, piece: PieceKind) -> i32 {
    match kind {
        VariantKind::Hdc => HDC_VALUES[piece.index()].0,
        VariantKind::Haberkorn => HABERKORN_VALUES[piece.index()].0,
    }
}

/// The material values (middle game, end game) by kind of a game, as the evaluation uses them.
pub fn material_values(kind: VariantKind) -> [(i32, i32); 7] {
    let values = match kind {
        VariantKind::Hdc => &HDC_VALUES,
        VariantKind::Haberkorn => &HABERKORN_VALUES,
    };
    values.map(|p| (p.0, p.1))
}

/// The game phase of a position and its maximum (the start position's):
/// the evaluation weighs middle game by `phase / max` and end game by the rest.
pub fn phase(pos: &Position) -> (i32, i32) {
    let variant = pos.variant();
    let max = tables(variant.kind, variant.layers).max_phase;
    let phase: i32 = PieceKind::ALL.iter().map(|&k| PHASE[k.index()] * pos.kind_pieces(k).count() as i32).sum();
    (phase.min(max), max)
}

/// Game-phase weight of each kind (pawns and kings count nothing).
const PHASE: [i32; 7] = [0, 1, 1, 2, 3, 4, 0];
/// Mobility per reachable square (mg, eg) by kind.
const MOBILITY: [Pair; 7] = [Pair(0, 0), Pair(4, 4), Pair(3, 3), Pair(2, 4), Pair(2, 3), Pair(1, 2), Pair(0, 0)];
/// King-zone attack weight by attacking kind.
const ZONE_WEIGHT: [i32; 7] = [1, 2, 2, 3, 4, 5, 0];
/// Passed pawn bonus by relative rank (mg, eg).
const PASSED: [Pair; 8] =
    [Pair(0, 0), Pair(5, 10), Pair(8, 15), Pair(15, 30), Pair(30, 55), Pair(50, 95), Pair(80, 150), Pair(0, 0)];
const DOUBLED: Pair = Pair(-10, -20);
const ISOLATED: Pair = Pair(-8, -12);
const OPEN_LINE: i32 = -6;
const TEMPO: i32 = 10;

/// Per-variant tables: piece-square pairs, passed-pawn spans, neighbouring pawn columns.
struct Tables {
    /// `pst[kind][sq]`, for White; Black reads the rank-mirrored square.
    pst: [Vec<Pair>; 7],
    /// `passed[color][sq]`: enemy pawns there stop a pawn on `sq` from being passed.
    passed: [Vec<Bitboard>; 2],
    /// `neighbours[column]`: the columns (bit z*8+x) whose pawns support a pawn on that column.
    neighbours: [u64; 64],
    /// The phase of the start position (both sides).
    max_phase: i32,
}

fn tables(kind: VariantKind, layers: u8) -> &'static Tables {
    static TABLES: [OnceLock<Tables>; 7] = [const { OnceLock::new() }; 7];
    let i = match kind {
        VariantKind::Hdc => 0,
        VariantKind::Haberkorn => layers.clamp(3, 8) as usize - 2,
    };
    TABLES[i].get_or_init(|| Tables::build(kind, layers))
}

impl Tables {
    fn build(kind: VariantKind, layers: u8) -> Tables {
        let mid_z = (layers as f32 - 1.0) / 2.0;
        let centre = |v: u8, mid: f32| mid - (v as f32 - mid).abs();
        let pst = std::array::from_fn(|k| {
            (0..512)
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
        // Squares ahead on the pawn's own column and every column it captures onto or steps to.
        let cols: Vec<(i32, i32)> = match kind {
            VariantKind::Hdc => vec![(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)],
            VariantKind::Haberkorn => (-1..=1).flat_map(|x| (-1..=1).map(move |z| (x, z))).collect(),
        };
        let passed = Color::ALL.map(|c| {
            (0..512)
                .map(|i| {
                    let sq = Square::from_index(i).unwrap_or(Square::new(0, 0, 0));
                    let mut bb = Bitboard::EMPTY;
                    for y in 0..8i32 {
                        let ahead = (y - sq.rank() as i32) * c.forward() > 0;
                        for &(dx, dz) in &cols {
                            let (x, z) = (sq.file() as i32 + dx, sq.layer() as i32 + dz);
                            if ahead && (0..8).contains(&x) && (0..layers as i32).contains(&z) {
                                bb.set(Square::new(x as u8, y as u8, z as u8));
                            }
                        }
                    }
                    bb
                })
                .collect()
        });
        let mut neighbours = [0u64; 64];
        for (col, n) in neighbours.iter_mut().enumerate() {
            let (x, z) = ((col % 8) as i32, (col / 8) as i32);
            for &(dx, dz) in &cols {
                let (nx, nz) = (x + dx, z + dz);
                if (dx, dz) != (0, 0) && (0..8).contains(&nx) && (0..8).contains(&nz) {
                    *n |= 1 << (nz * 8 + nx);
                }
            }
        }
        let max_phase = match kind {
            VariantKind::Hdc => 2 * (4 * PHASE[1] + 4 * PHASE[2] + 4 * PHASE[3] + PHASE[4] + PHASE[5]),
            VariantKind::Haberkorn => 2 * (2 * PHASE[1] + 2 * PHASE[2] + 2 * PHASE[3] + PHASE[5]),
        };
        Tables { pst, passed, neighbours, max_phase }
    }
}

/// The evaluation terms, each per colour.
const TERMS: [&str; 6] = ["Material", "Placement", "Mobility", "King safety", "Pawns", "Passed"];

#[derive(Default)]
struct Terms {
    by: [[Pair; 2]; 6],
    phase: i32,
}

/// The squares a non-pawn piece on `sq` attacks.
#[inline]
fn attacks(pos: &Position, kind: PieceKind, sq: Square, occ: Bitboard) -> Bitboard {
    let r = pos.rules();
    match kind {
        PieceKind::Knight => r.knight[sq.index()],
        PieceKind::King => r.king[sq.index()],
        _ => {
            let mut bb = Bitboard::EMPTY;
            for &d in &r.slider_dirs[kind.index()] {
                bb |= r.geometry.slide(sq, d, occ);
            }
            bb
        }
    }
}

fn compute(pos: &Position) -> Terms {
    let variant = pos.variant();
    let t = tables(variant.kind, variant.layers);
    let values = match variant.kind {
        VariantKind::Hdc => &HDC_VALUES,
        VariantKind::Haberkorn => &HABERKORN_VALUES,
    };
    let occ = pos.occupied();
    let r = pos.rules();
    let mut terms = Terms::default();
    let kings = Color::ALL.map(|c| pos.king(c));
    let zones = kings.map(|k| r.king[k.index()] | Bitboard::from(k));
    let mut pawn_cols = [0u64; 2];
    let mut col_count = [[0u8; 64]; 2];
    for c in Color::ALL {
        for sq in pos.pieces(c, PieceKind::Pawn) {
            let col = sq.layer() as usize * 8 + sq.file() as usize;
            pawn_cols[c.index()] |= 1 << col;
            col_count[c.index()][col] += 1;
        }
    }
    for c in Color::ALL {
        let ci = c.index();
        let own = pos.color_pieces(c);
        let enemy_zone = zones[(!c).index()];
        let mirror = |sq: Square| match c {
            Color::White => sq.index(),
            Color::Black => Square::new(sq.file(), 7 - sq.rank(), sq.layer()).index(),
        };
        let (mut zone_attackers, mut zone_weight) = (0, 0);
        for kind in PieceKind::ALL {
            let pieces = pos.pieces(c, kind);
            if pieces.is_empty() {
                continue;
            }
            let n = pieces.count() as i32;
            terms.by[0][ci] += Pair(values[kind.index()].0 * n, values[kind.index()].1 * n);
            terms.phase += PHASE[kind.index()] * n;
            let pst = &t.pst[kind.index()];
            for sq in pieces {
                terms.by[1][ci] += pst[mirror(sq)];
                if kind == PieceKind::Pawn {
                    let rel = if c == Color::White { sq.rank() } else { 7 - sq.rank() } as usize;
                    if (t.passed[ci][sq.index()] & pos.pieces(!c, PieceKind::Pawn)).is_empty() {
                        terms.by[5][ci] += PASSED[rel];
                    }
                    let col = sq.layer() as usize * 8 + sq.file() as usize;
                    if pawn_cols[ci] & t.neighbours[col] == 0 {
                        terms.by[4][ci] += ISOLATED;
                    }
                    continue;
                }
                let att = attacks(pos, kind, sq, occ);
                if kind != PieceKind::King {
                    let m = (att - own).count() as i32;
                    let w = MOBILITY[kind.index()];
                    terms.by[2][ci] += Pair(w.0 * m, w.1 * m);
                }
                let hits = (att & enemy_zone).count() as i32;
                if hits > 0 && kind != PieceKind::King {
                    zone_attackers += 1;
                    zone_weight += ZONE_WEIGHT[kind.index()] * hits;
                }
            }
        }
        for &n in &col_count[ci] {
            if n > 1 {
                terms.by[4][ci] += Pair(DOUBLED.0 * (n as i32 - 1), DOUBLED.1 * (n as i32 - 1));
            }
        }
        // Our attacks on their king count against them.
        if zone_attackers >= 2 {
            let danger = zone_weight * zone_attackers.min(6) / 2;
            terms.by[3][(!c).index()] += Pair(-danger, -danger / 4);
        }
        // Open lines to our king along which the enemy has a slider kind.
        let enemy_kinds =
            PieceKind::ALL.iter().filter(|&&k| pos.pieces(!c, k).any()).fold(0u8, |acc, &k| acc | 1 << k.index());
        let mut open = 0;
        for d in 0..NUM_DIRS {
            if r.slides_along[d] & enemy_kinds == 0 {
                continue;
            }
            let ray = r.geometry.ray_squares(kings[ci], d);
            if ray.len() < 2 {
                continue;
            }
            match ray.iter().find(|s| occ.has(**s)) {
                Some(s) if own.has(*s) => {}
                _ => open += 1,
            }
        }
        terms.by[3][ci] += Pair(OPEN_LINE * open, 0);
    }
    terms.phase = terms.phase.min(t.max_phase);
    terms
}

fn blend(p: Pair, phase: i32, max_phase: i32) -> i32 {
    (p.0 * phase + p.1 * (max_phase - phase)) / max_phase.max(1)
}

/// The static evaluation in centipawns from the side to move's point of view.
pub fn evaluate(pos: &Position) -> i32 {
    let terms = compute(pos);
    let variant = pos.variant();
    let max = tables(variant.kind, variant.layers).max_phase;
    let mut total = Pair::default();
    for term in &terms.by {
        total += Pair(term[0].0 - term[1].0, term[0].1 - term[1].1);
    }
    let white = blend(total, terms.phase, max);
    let us = if pos.side_to_move() == Color::White { white } else { -white };
    us + TEMPO
}

/// A table of the evaluation terms (White, Black, difference; mg and eg) and
/// the final score, for the UCI `eval` command.
pub fn trace(pos: &Position) -> String {
    let terms = compute(pos);
    let variant = pos.variant();
    let max = tables(variant.kind, variant.layers).max_phase;
    let mut out = String::new();
    let _ = writeln!(out, "     Term    |    White    |    Black    |    Total");
    let _ = writeln!(out, "             |   MG    EG  |   MG    EG  |   MG    EG");
    let _ = writeln!(out, " ------------+-------------+-------------+------------");
    let mut total = Pair::default();
    for (name, term) in TERMS.iter().zip(terms.by.iter()) {
        let d = Pair(term[0].0 - term[1].0, term[0].1 - term[1].1);
        total += d;
        let _ = writeln!(
            out,
            " {name:>11} | {:5} {:5} | {:5} {:5} | {:5} {:5}",
            term[0].0, term[0].1, term[1].0, term[1].1, d.0, d.1
        );
    }
    let _ = writeln!(out, " ------------+-------------+-------------+------------");
    let _ = writeln!(out, " {:>11} |             |             | {:5} {:5}", "Total", total.0, total.1);
    let white = blend(total, terms.phase, max);
    let _ = writeln!(out, "Phase {} of {} (middle game weight)", terms.phase, max);
    let _ = writeln!(out, "Tempo {TEMPO} for the side to move");
    let stm = if pos.side_to_move() == Color::White { white } else { -white } + TEMPO;
    let _ = writeln!(
        out,
        "Final evaluation: {:+.2} (White side), {:+.2} (side to move)",
        white as f64 / 100.0,
        stm as f64 / 100.0
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;

    #[test]
    fn start_positions_are_level_and_symmetric() {
        for v in [Variant::hdc(), Variant::haberkorn(), Variant::haberkorn_with(4, 2, 3, false, false).unwrap()] {
            let pos = Position::start(v);
            let e = evaluate(&pos);
            assert!(e.abs() <= 40, "{v}: {e}");
        }
        // hdc is symmetric under the rank mirror: the start scores exactly the tempo.
        assert_eq!(evaluate(&Position::start(Variant::hdc())), TEMPO);
    }

    #[test]
    fn an_extra_queen_is_worth_about_a_queen() {
        let fen = "8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|4k3/8/8/8/8/8/8/3QK3|\
8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8 w - - 0 1";
        let pos = Position::from_fen(fen, Variant::haberkorn()).unwrap();
        let e = evaluate(&pos);
        assert!(e > 900 && e < 2000, "{e}");
        let black = Position::from_fen(&fen.replace(" w ", " b "), Variant::haberkorn()).unwrap();
        assert!(evaluate(&black) < -900);
        assert!(trace(&pos).contains("Material"));
    }

    #[test]
    fn passed_pawns_follow_the_capture_pattern() {
        let t = tables(VariantKind::Hdc, 8);
        let sq = Square::new(4, 3, 3);
        // hdc pawns capture along layers, not along space diagonals.
        assert!(t.passed[0][sq.index()].has(Square::new(4, 5, 4)));
        assert!(!t.passed[0][sq.index()].has(Square::new(5, 5, 4)));
        let h = tables(VariantKind::Haberkorn, 8);
        assert!(h.passed[0][sq.index()].has(Square::new(5, 5, 4)));
        assert!(!h.passed[0][sq.index()].has(Square::new(4, 2, 3)));
    }
}
