//! Static evaluation for both variants, tapered between middle game and end
//! game: material, 3D piece-square terms, mobility, king safety (the 3×3×3
//! king zone and open lines) and pawn structure (passed pawns under each
//! variant's capture pattern, doubled and isolated pawns).
//!
//! The evaluation is a sum of weight × feature: every weight lives in the
//! game's [`Weights`] (fitted by `cubist tune`), and every term is counted
//! into a [`Sink`] that either multiplies by the weights ([`evaluate`]),
//! groups the terms per colour ([`trace`]) or records the feature counts
//! for the tuner ([`features`]). Material and placement come from [`Sums`],
//! which a search thread's [`Linear`] keeps move by move from each move's
//! piece changes (see [`super::psq`]) and counts from scratch elsewhere; the pawn
//! terms depend on the pawns alone and are kept in a per-thread
//! [`EvalCache`] by the search, beside whole evaluations by position key;
//! mobility, king-zone attacks and open lines are read off the line
//! occupancy the position keeps (one byte per line of the board).

use super::cache::{EvalCache, EvalEntry, PawnEntry};
use super::evaluator::Evaluator;
use super::pair::{PHASE, Pair};
use super::psq::{PsqTable, mirror};
use super::weights::{Weights, at, placement_indices, weights};
use crate::core::geometry::{Geometry, LineRef, axis_of, line_attacks, runs_up};
use crate::core::variant::TABLE_COUNT;
use crate::core::{Bitboard, Color, Piece, PieceChanges, PieceKind, Position, Square, Variant, VariantKind};
use std::fmt::Write;
use std::sync::OnceLock;

/// The game phase of a position and its maximum (the start position's):
/// the evaluation weighs middle game by `phase / max` and end game by the rest.
pub fn phase(pos: &Position) -> (i32, i32) {
    let variant = pos.variant();
    let max = tables(variant.kind, variant.layers).max_phase;
    (Sums::of(pos).phase.min(max), max)
}

/// The part of the linear evaluation that moves keep up to date: each
/// colour's material plus placement (from the variant's [`PsqTable`]) and
/// the game phase (the sum of [`PHASE`] over every piece).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sums {
    /// Each colour's material plus placement, White's then Black's.
    pub psq: [Pair; 2],
    /// The game phase.
    pub phase: i32,
}

impl Sums {
    /// The sums of `pos` counted from its pieces.
    pub fn of(pos: &Position) -> Sums {
        let table = PsqTable::get(pos.variant().kind, pos.variant().layers);
        let mut sums = Sums::default();
        for sq in pos.occupied() {
            if let Some(p) = pos.piece_at(sq) {
                sums.add(table, p, sq);
            }
        }
        sums
    }

    /// These sums after a move that made `changes`.
    #[inline(always)]
    fn after(mut self, table: &PsqTable, changes: &PieceChanges) -> Sums {
        for &(p, sq) in changes.removed() {
            self.psq[p.color.index()] -= table.value(p.color, p.kind, sq);
            self.phase -= PHASE[p.kind.index()];
        }
        for &(p, sq) in changes.added() {
            self.add(table, p, sq);
        }
        self
    }

    #[inline(always)]
    fn add(&mut self, table: &PsqTable, p: Piece, sq: Square) {
        self.psq[p.color.index()] += table.value(p.color, p.kind, sq);
        self.phase += PHASE[p.kind.index()];
    }
}

/// Attacking pieces counted at most in the king-attack feature.
const MAX_ZONE_ATTACKERS: i32 = 6;

/// Per-variant tables: passed-pawn spans, neighbouring pawn columns, the full phase.
struct Tables {
    /// Which of the variant tables this is ([`Variant::table_index`] + 1; 0 marks an empty [`EvalCache`] slot).
    id: u8,
    /// `passed[color][sq]`: enemy pawns there stop a pawn on `sq` from being passed.
    passed: [Vec<Bitboard>; 2],
    /// `neighbours[column]`: the columns (bit z*8+x) whose pawns support a pawn on that column.
    neighbours: [u64; 64],
    /// The phase of the start position (both sides).
    max_phase: i32,
}

fn tables(kind: VariantKind, layers: u8) -> &'static Tables {
    static TABLES: [OnceLock<Tables>; TABLE_COUNT] = [const { OnceLock::new() }; TABLE_COUNT];
    let i = Variant::table_index(kind, layers);
    TABLES[i].get_or_init(|| Tables::build(kind, layers, i as u8 + 1))
}

impl Tables {
    fn build(kind: VariantKind, layers: u8, id: u8) -> Tables {
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
        // Every layer count starts with the same army.
        let max_phase = Sums::of(&Position::start(Variant::standard(kind))).phase;
        Tables { id, passed, neighbours, max_phase }
    }
}

/// The evaluation terms, each per colour (for [`trace`]).
const TERMS: [&str; 6] = ["Material", "Placement", "Mobility", "King safety", "Pawns", "Passed"];

/// The [`TERMS`] entry a weight belongs to.
fn term_of(index: usize) -> usize {
    match index {
        i if i < at::FILE => 0,
        i if i < at::MOBILITY => 1,
        i if i < at::KING_ATTACK => 2,
        i if i < at::PASSED => 3,
        i if i < at::DOUBLED => 5,
        _ => 4,
    }
}

/// Where the evaluation's feature counts go.
trait Sink {
    /// Counts weight `index` `n` times for colour `c`.
    fn add(&mut self, c: Color, index: usize, n: i32);
}

/// Sums weight × count per colour.
struct Weighted<'a> {
    w: &'a Weights,
    total: [Pair; 2],
}

impl<'a> Weighted<'a> {
    fn new(w: &'a Weights) -> Weighted<'a> {
        Weighted { w, total: [Pair::default(); 2] }
    }

    /// White's sum less Black's.
    fn balance(&self) -> Pair {
        let mut p = self.total[0];
        p -= self.total[1];
        p
    }
}

impl Sink for Weighted<'_> {
    #[inline(always)]
    fn add(&mut self, c: Color, index: usize, n: i32) {
        self.total[c.index()] += self.w.w[index] * n;
    }
}

/// Sums weight × count per colour and term.
struct Traced<'a> {
    w: &'a Weights,
    by: [[Pair; 2]; 6],
}

impl Sink for Traced<'_> {
    fn add(&mut self, c: Color, index: usize, n: i32) {
        self.by[term_of(index)][c.index()] += self.w.w[index] * n;
    }
}

/// Counts each weight's feature, White's less Black's.
struct Counts([i32; at::COUNT]);

impl Sink for Counts {
    fn add(&mut self, c: Color, index: usize, n: i32) {
        self.0[index] += if c == Color::White { n } else { -n };
    }
}

/// Material and placement of every piece, counted from scratch.
fn piece_square_terms(pos: &Position, sink: &mut impl Sink) {
    let layers = pos.variant().layers;
    for c in Color::ALL {
        for kind in PieceKind::ALL {
            let k = kind.index();
            for sq in pos.pieces(c, kind) {
                let rel = Square::from_index_unchecked(mirror(c, sq));
                sink.add(c, at::MATERIAL + k, 1);
                for i in placement_indices(k, rel, layers) {
                    sink.add(c, i, 1);
                }
            }
        }
    }
}

/// Doubled, isolated and passed pawns.
fn pawn_terms(pos: &Position, t: &Tables, sink: &mut impl Sink) {
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
        let enemy_pawns = pos.pieces(!c, PieceKind::Pawn);
        for sq in pos.pieces(c, PieceKind::Pawn) {
            let rel = if c == Color::White { sq.rank() } else { 7 - sq.rank() } as usize;
            if (t.passed[ci][sq.index()] & enemy_pawns).is_empty() {
                sink.add(c, at::PASSED + rel, 1);
            }
            let col = sq.layer() as usize * 8 + sq.file() as usize;
            if pawn_cols[ci] & t.neighbours[col] == 0 {
                sink.add(c, at::ISOLATED, 1);
            }
        }
        let doubled: i32 = col_count[ci].iter().map(|&n| (n as i32 - 1).max(0)).sum();
        if doubled > 0 {
            sink.add(c, at::DOUBLED, doubled);
        }
    }
}

/// `UNBLOCKED[ends][pos]`: bit 0 set when no square of `ends` lies above
/// position `pos` of a line, bit 1 when none lies below.
static UNBLOCKED: [[u8; 8]; 256] = unblocked_table();

const fn unblocked_table() -> [[u8; 8]; 256] {
    let mut t = [[0u8; 8]; 256];
    let mut ends = 0;
    while ends < 256 {
        let mut pos = 0;
        while pos < 8 {
            let up = (ends >> (pos + 1) == 0) as u8;
            let down = (ends & ((1 << pos) - 1) == 0) as u8;
            t[ends][pos] = up | down << 1;
            pos += 1;
        }
        ends += 1;
    }
    t
}

/// The squares a slider reaches along the lines `refs` (its lines along
/// the axes it slides on): up to the first piece both ways, that piece
/// included unless it is ours (our pieces at `own_shift` in a line's
/// occupancy). Kept out of line: inlined into the evaluation's loop, the
/// walk had its invariants spilled to the stack (callgrind: 0.5% more
/// instructions in all).
#[inline(never)]
fn line_mobility(pos: &Position, refs: &[LineRef], own_shift: u32) -> i32 {
    refs.iter().fold(0, |m, lr| {
        let occ = pos.line_occupancy(*lr);
        let reach = line_attacks((occ | occ >> 8) as u8, lr.pos) & lr.mask;
        m + (reach & !(occ >> own_shift) as u8).count_ones() as i32
    })
}

/// Mobility and king safety: the pieces' attacks on the enemy king zone
/// count against the enemy, open lines to a king against its side.
fn piece_terms(pos: &Position, sink: &mut impl Sink) {
    let r = pos.rules();
    let g = r.geometry;
    let kings = Color::ALL.map(|c| pos.king(c));
    // The sliding kinds each side has (bit `1 << kind`, as
    // `Position::slider_kinds` gives), gathered on the way.
    let mut slider_kinds = [0u8; 2];
    for c in Color::ALL {
        let ci = c.index();
        // Where our pieces lie in a line's occupancy.
        let own_shift = 8 * ci as u32;
        let own = pos.color_pieces(c);
        let ek = kings[(!c).index()];
        let enemy_zone = r.king[ek.index()] | Bitboard::from(ek);
        let mut zone_attackers = 0;
        let mut zone_hits = [0i32; PieceKind::COUNT];
        let knight = PieceKind::Knight.index();
        pos.pieces(c, PieceKind::Knight).into_iter().for_each(|sq| {
            let att = r.knight[sq.index()];
            sink.add(c, at::MOBILITY + knight, (att - own).count() as i32);
            let hits = (att & enemy_zone).count() as i32;
            if hits > 0 {
                zone_attackers += 1;
                zone_hits[knight] += hits;
            }
        });
        for kind in PieceKind::SLIDERS {
            let pieces = pos.pieces(c, kind);
            if pieces.is_empty() {
                continue;
            }
            slider_kinds[ci] |= 1 << kind.index();
            let (axes, lines) = (r.slider_axes[kind.index()].clone(), &r.slider_lines[kind.index()]);
            for sq in pieces {
                // Along each of its lines the slider reaches every square up
                // to the first piece both ways, that piece included unless
                // it is ours.
                let refs = g.line_refs(sq);
                let m = line_mobility(pos, &refs[axes.clone()], own_shift);
                sink.add(c, at::MOBILITY + kind.index(), m);
                // Zone squares on its lines that it reaches.
                let mut hits = 0;
                for z in lines[sq.index()] & enemy_zone {
                    let Some((d, n)) = Geometry::direction_and_distance(sq, z) else { continue };
                    let lr = refs[axis_of(d)];
                    let occ = pos.line_occupancy(lr);
                    let at = if runs_up(d) { lr.pos as u32 + n } else { (lr.pos as u32).wrapping_sub(n) };
                    hits += (line_attacks((occ | occ >> 8) as u8, lr.pos) as u32 >> (at & 7) & 1) as i32;
                }
                if hits > 0 {
                    zone_attackers += 1;
                    zone_hits[kind.index()] += hits;
                }
            }
        }
        // Our attacks on their king count against them.
        if zone_attackers >= 2 {
            let attackers = zone_attackers.min(MAX_ZONE_ATTACKERS);
            for (k, &hits) in zone_hits.iter().enumerate() {
                if hits > 0 {
                    sink.add(!c, at::KING_ATTACK + k, hits * attackers);
                }
            }
        }
    }
    for c in Color::ALL {
        let ci = c.index();
        let own_shift = 8 * ci as u32;
        // Open lines to our king along which the enemy has a slider kind:
        // rays of two squares or more whose first piece is not ours (or
        // that hold no piece).
        let mut axes = r.axes_of(slider_kinds[(!c).index()]);
        let mut free = 0u32;
        let king_refs = g.line_refs(kings[ci]);
        while axes != 0 {
            let axis = axes.trailing_zeros() as usize;
            let Some(lr) = king_refs.get(axis) else { break };
            axes &= axes - 1;
            let occ = pos.line_occupancy(*lr);
            // Our pieces that end one of the two rays.
            let ours = line_attacks((occ | occ >> 8) as u8, lr.pos) & (occ >> own_shift) as u8;
            free |= (UNBLOCKED[ours as usize][lr.pos as usize & 7] as u32) << (2 * axis);
        }
        let open = (free & g.long_rays(kings[ci])).count_ones() as i32;
        if open > 0 {
            sink.add(c, at::OPEN_LINE, open);
        }
    }
}

fn blend(p: Pair, phase: i32, max_phase: i32) -> i32 {
    (p.0 * phase + p.1 * (max_phase - phase)) / max_phase.max(1)
}

/// The side to move's view of White's blended score, plus the tempo.
fn from_side_to_move(white_to_move: bool, white: i32, w: &Weights) -> i32 {
    let us = if white_to_move { white } else { -white };
    us + w.tempo
}

/// The evaluation from the pawn terms' balance (White's less Black's) and the kept `sums`.
#[inline]
fn finish(pos: &Position, t: &Tables, w: &Weights, pawns: Pair, sums: &Sums) -> i32 {
    let mut sink = Weighted::new(w);
    piece_terms(pos, &mut sink);
    let mut total = sink.balance();
    total += pawns;
    total += sums.psq[0];
    total -= sums.psq[1];
    let white = blend(total, sums.phase.min(t.max_phase), t.max_phase);
    from_side_to_move(pos.side_to_move() == Color::White, white, w)
}

/// The pawn terms' balance under weights `w`.
fn pawn_balance(pos: &Position, t: &Tables, w: &Weights) -> Pair {
    let mut sink = Weighted::new(w);
    pawn_terms(pos, t, &mut sink);
    sink.balance()
}

/// The static evaluation in centipawns from the side to move's point of view.
pub fn evaluate(pos: &Position) -> i32 {
    let variant = pos.variant();
    let (t, w) = (tables(variant.kind, variant.layers), weights(variant.kind));
    finish(pos, t, w, pawn_balance(pos, t, w), &Sums::of(pos))
}

/// [`evaluate`] with `pos`'s kept `sums`, looked up in (or added to) `cache`
/// by position key, with the pawn terms looked up by pawn key when it must
/// be computed.
#[inline]
pub fn evaluate_cached(pos: &Position, cache: &mut EvalCache, sums: &Sums) -> i32 {
    let variant = pos.variant();
    let t = tables(variant.kind, variant.layers);
    let key = pos.key();
    let e = *cache.eval_slot(key);
    if e.key == key && e.tables == t.id {
        return e.score;
    }
    let w = weights(variant.kind);
    let pawn_key = pos.pawn_key();
    let p = cache.pawn_slot(pawn_key);
    let pawns = if p.key == pawn_key && p.tables == t.id {
        p.balance
    } else {
        let balance = pawn_balance(pos, t, w);
        *p = PawnEntry { key: pawn_key, tables: t.id, balance };
        balance
    };
    let score = finish(pos, t, w, pawns, sums);
    *cache.eval_slot(key) = EvalEntry { key, tables: t.id, score };
    score
}

/// Sums levels a search thread's stack starts with: the search's deepest
/// line (128 plies) and room for quiescence; a deeper line grows it.
const LEVELS_RESERVED: usize = 160;

/// The linear evaluation of a search thread: its cache of evaluations and
/// pawn terms, and a stack of `Sums` (material, placement and phase), one
/// level per move made on the way from the root, updated from each move's
/// [`PieceChanges`].
pub struct Linear {
    cache: EvalCache,
    table: &'static PsqTable,
    sums: Vec<Sums>,
}

impl Linear {
    /// A thread's linear evaluation, its sums counted from `pos`.
    pub fn new(pos: &Position) -> Linear {
        let mut sums = Vec::with_capacity(LEVELS_RESERVED);
        sums.push(Sums::of(pos));
        Linear { cache: EvalCache::take(), table: PsqTable::get(pos.variant().kind, pos.variant().layers), sums }
    }

    /// The sums of the position the search is at.
    #[inline(always)]
    fn current(&self) -> Sums {
        self.sums.last().copied().unwrap_or_default()
    }
}

impl Drop for Linear {
    /// Leaves the cache to the thread's next evaluation.
    fn drop(&mut self) {
        std::mem::replace(&mut self.cache, EvalCache::empty()).put_back();
    }
}

impl Evaluator for Linear {
    #[inline]
    fn evaluate(&mut self, pos: &Position) -> i32 {
        let sums = self.current();
        evaluate_cached(pos, &mut self.cache, &sums)
    }

    #[inline(always)]
    fn make(&mut self, _pos: &Position, changes: &PieceChanges) {
        let next = self.current().after(self.table, changes);
        self.sums.push(next);
    }

    #[inline(always)]
    fn unmake(&mut self) {
        if self.sums.len() > 1 {
            self.sums.pop();
        }
    }

    #[inline(always)]
    fn prefetch(&self, key: u64) {
        self.cache.prefetch(key);
    }

    fn trace(&self, pos: &Position) -> String {
        trace(pos)
    }
}

/// A position's evaluation features: for every weight of its game's
/// [`Weights`], how often it counts (White's count less Black's), with the
/// phase that blends them. The evaluation is
/// `blend(Σ weight × count) ± tempo` ([`Features::evaluate`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Features {
    /// (weight index, White's count less Black's), for the weights that count.
    pub counts: Vec<(u16, i32)>,
    /// The game phase (middle game weight) and its maximum.
    pub phase: (i32, i32),
    /// Whether White is to move.
    pub white_to_move: bool,
}

impl Features {
    /// The evaluation these features give under weights `w`, from the side to move's view.
    pub fn evaluate(&self, w: &Weights) -> i32 {
        let mut total = Pair::default();
        for &(i, n) in &self.counts {
            total += w.w[i as usize] * n;
        }
        from_side_to_move(self.white_to_move, blend(total, self.phase.0, self.phase.1), w)
    }
}

/// The evaluation features of a position, counted from scratch.
pub fn features(pos: &Position) -> Features {
    let variant = pos.variant();
    let t = tables(variant.kind, variant.layers);
    let mut counts = Counts([0; at::COUNT]);
    piece_square_terms(pos, &mut counts);
    piece_terms(pos, &mut counts);
    pawn_terms(pos, t, &mut counts);
    Features {
        counts: counts.0.iter().enumerate().filter(|(_, n)| **n != 0).map(|(i, &n)| (i as u16, n)).collect(),
        phase: phase(pos),
        white_to_move: pos.side_to_move() == Color::White,
    }
}

#[derive(Default)]
struct Terms {
    by: [[Pair; 2]; 6],
    phase: i32,
}

/// Every term from scratch (for [`trace`]).
fn compute(pos: &Position) -> Terms {
    let variant = pos.variant();
    let t = tables(variant.kind, variant.layers);
    let mut sink = Traced { w: weights(variant.kind), by: Default::default() };
    piece_square_terms(pos, &mut sink);
    piece_terms(pos, &mut sink);
    pawn_terms(pos, t, &mut sink);
    Terms { by: sink.by, phase: phase(pos).0 }
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
    let w = weights(variant.kind);
    let _ = writeln!(out, "Tempo {} for the side to move", w.tempo);
    let stm = from_side_to_move(pos.side_to_move() == Color::White, white, w);
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
    use crate::core::geometry::NUM_DIRS;
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use rand::seq::IndexedRandom;

    /// The squares a non-pawn piece on `sq` attacks (the evaluation as first written).
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

    fn reference_terms(pos: &Position) -> Terms {
        let variant = pos.variant();
        let t = tables(variant.kind, variant.layers);
        let w = weights(variant.kind);
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
            let (mut zone_attackers, mut zone_hits) = (0, [0i32; 7]);
            for kind in PieceKind::ALL {
                let pieces = pos.pieces(c, kind);
                if pieces.is_empty() {
                    continue;
                }
                let n = pieces.count() as i32;
                terms.by[0][ci] += w.material(kind.index()) * n;
                terms.phase += crate::eval::pair::PHASE[kind.index()] * n;
                for sq in pieces {
                    let seen = Square::from_index_unchecked(mirror(sq));
                    terms.by[1][ci] += crate::eval::psq::placement(w, kind.index(), seen, variant.layers);
                    if kind == PieceKind::Pawn {
                        let rel = if c == Color::White { sq.rank() } else { 7 - sq.rank() } as usize;
                        if (t.passed[ci][sq.index()] & pos.pieces(!c, PieceKind::Pawn)).is_empty() {
                            terms.by[5][ci] += w.w[at::PASSED + rel];
                        }
                        let col = sq.layer() as usize * 8 + sq.file() as usize;
                        if pawn_cols[ci] & t.neighbours[col] == 0 {
                            terms.by[4][ci] += w.w[at::ISOLATED];
                        }
                        continue;
                    }
                    let att = attacks(pos, kind, sq, occ);
                    if kind != PieceKind::King {
                        let m = (att - own).count() as i32;
                        let p = w.w[at::MOBILITY + kind.index()];
                        terms.by[2][ci] += Pair(p.0 * m, p.1 * m);
                    }
                    let hits = (att & enemy_zone).count() as i32;
                    if hits > 0 && kind != PieceKind::King {
                        zone_attackers += 1;
                        zone_hits[kind.index()] += hits;
                    }
                }
            }
            for &n in &col_count[ci] {
                if n > 1 {
                    let p = w.w[at::DOUBLED];
                    terms.by[4][ci] += Pair(p.0 * (n as i32 - 1), p.1 * (n as i32 - 1));
                }
            }
            // Our attacks on their king count against them.
            if zone_attackers >= 2 {
                for (k, hits) in zone_hits.iter().enumerate() {
                    let p = w.w[at::KING_ATTACK + k];
                    let n = hits * zone_attackers.min(6);
                    terms.by[3][(!c).index()] += Pair(p.0 * n, p.1 * n);
                }
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
            let p = w.w[at::OPEN_LINE];
            terms.by[3][ci] += Pair(p.0 * open, p.1 * open);
        }
        terms.phase = terms.phase.min(t.max_phase);
        terms
    }

    /// The evaluation as first written: every term from scratch.
    fn reference_evaluate(pos: &Position) -> i32 {
        let terms = reference_terms(pos);
        let variant = pos.variant();
        let max = tables(variant.kind, variant.layers).max_phase;
        let mut total = Pair::default();
        for term in &terms.by {
            total += Pair(term[0].0 - term[1].0, term[0].1 - term[1].1);
        }
        let white = blend(total, terms.phase, max);
        let us = if pos.side_to_move() == Color::White { white } else { -white };
        us + weights(variant.kind).tempo
    }

    /// Random games: at every node the incremental sums equal a count from
    /// scratch, and the evaluation (plain, cached, traced, and Σ weight ×
    /// feature from the weight set) equals the evaluation as first written;
    /// haberkorn's layer counts share one cache, so its slots are reused
    /// across variants; slots are prefetched on the way.
    fn playouts(variant: Variant, seed: u64, games: usize, cache: &mut EvalCache) {
        let mut rng = StdRng::seed_from_u64(seed);
        for _ in 0..games {
            let mut pos = Position::start(variant);
            let mut linear = Linear::new(&pos);
            for _ in 0..150 {
                let expect = reference_evaluate(&pos);
                // A prefetch of any slot is only a hint (the search issues
                // one for the child's key before each move).
                cache.prefetch(pos.key());
                cache.prefetch(pos.key().rotate_left(17));
                assert_eq!(linear.current(), Sums::of(&pos), "{}", pos.fen());
                assert_eq!(pos.compute_pawn_key(), pos.pawn_key(), "{}", pos.fen());
                let sums = linear.current();
                assert_eq!(evaluate(&pos), expect, "{}", pos.fen());
                assert_eq!(evaluate_cached(&pos, cache, &sums), expect, "{}", pos.fen());
                // Again: now a hit in the cache of whole evaluations.
                assert_eq!(evaluate_cached(&pos, cache, &sums), expect, "{}", pos.fen());
                assert_eq!(linear.evaluate(&pos), expect, "{}", pos.fen());
                assert_eq!(features(&pos).evaluate(weights(variant.kind)), expect, "{}", pos.fen());
                let terms = compute(&pos);
                let reference = reference_terms(&pos);
                assert_eq!((terms.by, terms.phase), (reference.by, reference.phase), "{}", pos.fen());
                let moves = pos.legal_moves();
                let Some(&m) = moves.choose(&mut rng) else { break };
                // Make and unmake every move first: unmake must restore the sums.
                for &other in moves.iter().take(20) {
                    let undo = pos.make(other);
                    linear.make(&pos, undo.changes());
                    assert_eq!(linear.current(), Sums::of(&pos), "{}", pos.fen());
                    assert_eq!(pos.compute_pawn_key(), pos.pawn_key());
                    pos.unmake(other, &undo);
                    linear.unmake();
                }
                let undo = pos.make(m);
                linear.make(&pos, undo.changes());
            }
        }
    }

    #[test]
    fn incremental_and_cached_evaluation_equal_the_reference_in_hdc() {
        playouts(Variant::hdc(), 11, 4, &mut EvalCache::new());
    }

    #[test]
    fn incremental_and_cached_evaluation_equal_the_reference_in_haberkorn() {
        let mut cache = EvalCache::new();
        playouts(Variant::haberkorn(), 12, 6, &mut cache);
        playouts(Variant::haberkorn_with(6, 3, 4, true, true).unwrap(), 13, 6, &mut cache);
        playouts(Variant::haberkorn_with(3, 1, 3, false, false).unwrap(), 14, 6, &mut cache);
    }

    #[test]
    fn null_moves_keep_the_sums() {
        let mut pos = Position::start(Variant::hdc());
        pos.play("e2-IVe4-IV").unwrap();
        let before = (Sums::of(&pos), pos.pawn_key());
        let undo = pos.make_null();
        assert_eq!((Sums::of(&pos), pos.pawn_key()), before);
        assert_eq!(evaluate(&pos), reference_evaluate(&pos));
        pos.unmake_null(&undo);
        assert_eq!((Sums::of(&pos), pos.compute_pawn_key()), before);
    }

    #[test]
    fn start_positions_are_level_and_symmetric() {
        for v in [Variant::hdc(), Variant::haberkorn(), Variant::haberkorn_with(4, 2, 3, false, false).unwrap()] {
            let pos = Position::start(v);
            let e = evaluate(&pos);
            assert!(e.abs() <= 40, "{v}: {e}");
        }
        // hdc is symmetric under the rank mirror: the start scores exactly the tempo.
        assert_eq!(evaluate(&Position::start(Variant::hdc())), weights(VariantKind::Hdc).tempo);
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
