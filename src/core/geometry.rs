//! Geometry of the cube, computed once per layer count: the 26 directions, the
//! ray from every square in every direction (as a square list for stepping and
//! as a bitboard), the squares between two aligned squares, and the board's
//! lines: every maximal run of squares along one of the 13 axes (a direction
//! and its opposite), numbered so that a position can keep each line's
//! occupancy as one byte (see [`line_attacks`]).

use super::bitboard::Bitboard;
use super::square::{MAX_LAYERS, NUM_SQUARES, Square};
use std::sync::OnceLock;

/// The number of directions: every (dx, dy, dz) in {−1, 0, 1}³ but (0, 0, 0).
pub const NUM_DIRS: usize = 26;

/// The 26 unit directions (dx, dy, dz), in a fixed order.
pub const DIRS: [(i8, i8, i8); NUM_DIRS] = directions();

const fn directions() -> [(i8, i8, i8); NUM_DIRS] {
    let mut out = [(0, 0, 0); NUM_DIRS];
    let mut n = 0;
    let mut i = 0;
    while i < 27 {
        let d = ((i % 3) as i8 - 1, ((i / 3) % 3) as i8 - 1, (i / 9) as i8 - 1);
        if !(d.0 == 0 && d.1 == 0 && d.2 == 0) {
            out[n] = d;
            n += 1;
        }
        i += 1;
    }
    out
}

/// How many of a direction's components are non-zero: 1 orthogonal, 2 planar
/// diagonal, 3 space diagonal.
pub const fn dir_order(d: usize) -> u8 {
    let (x, y, z) = DIRS[d];
    (x != 0) as u8 + (y != 0) as u8 + (z != 0) as u8
}

/// The index of the direction opposite to `d`.
pub const fn opposite(d: usize) -> usize {
    NUM_DIRS - 1 - d
}

/// The index of direction (dx, dy, dz), if it is one of the 26 (computed
/// from the order of [`DIRS`]: x fastest, then y, then z, skipping (0, 0, 0)).
#[cfg(test)]
#[inline]
pub fn dir_index(dx: i8, dy: i8, dz: i8) -> Option<usize> {
    if [dx, dy, dz].iter().any(|c| !(-1..=1).contains(c)) || (dx, dy, dz) == (0, 0, 0) {
        return None;
    }
    let i = (dx + 1) as usize + 3 * (dy + 1) as usize + 9 * (dz + 1) as usize;
    Some(if i > 13 { i - 1 } else { i })
}

/// The index of `b - a` in [`ALIGNMENT`]: each coordinate's difference plus 7, in base 15.
#[inline(always)]
fn delta_index(a: Square, b: Square) -> usize {
    let d = |x: u8, y: u8| x as usize + 7 - y as usize;
    d(b.file(), a.file()) + 15 * d(b.rank(), a.rank()) + 225 * d(b.layer(), a.layer())
}

/// An [`ALIGNMENT`] entry for two squares on no common line (or equal).
const NOT_ALIGNED: u8 = u8::MAX;

/// `ALIGNMENT[delta]`: for a difference between two squares (see
/// [`delta_index`]) along one of the 26 directions, the direction in the
/// low five bits and the number of steps in the high three; else [`NOT_ALIGNED`].
static ALIGNMENT: [u8; 15 * 15 * 15] = alignment_table();

const fn alignment_table() -> [u8; 15 * 15 * 15] {
    let mut t = [NOT_ALIGNED; 15 * 15 * 15];
    let mut d = 0;
    while d < NUM_DIRS {
        let (x, y, z) = DIRS[d];
        let mut n = 1;
        while n <= 7 {
            let i = (x * n + 7) as usize + 15 * (y * n + 7) as usize + 225 * (z * n + 7) as usize;
            t[i] = (n as u8) << 5 | d as u8;
            n += 1;
        }
        d += 1;
    }
    t
}

/// The longest ray: 7 squares.
pub const MAX_RAY: usize = 7;

/// The number of line axes: the 26 directions paired with their opposites.
pub const NUM_AXES: usize = NUM_DIRS / 2;

/// The up direction of each axis (one of `13..26`; its opposite runs down).
/// The axes come in four groups: space diagonals, diagonals within a layer,
/// diagonals across layers, orthogonals. Each sliding kind of both games
/// slides along one run of this order (see `Rules::slider_axes`).
pub const AXIS_DIRS: [usize; NUM_AXES] = axis_dirs();

/// The group of a direction in the axis order of [`AXIS_DIRS`].
const fn axis_group(d: usize) -> u8 {
    match dir_order(d) {
        3 => 0,
        2 if DIRS[d].2 == 0 => 1,
        2 => 2,
        _ => 3,
    }
}

const fn axis_dirs() -> [usize; NUM_AXES] {
    let mut out = [0; NUM_AXES];
    let mut n = 0;
    let mut group = 0;
    while group < 4 {
        let mut d = NUM_AXES;
        while d < NUM_DIRS {
            if axis_group(d) == group {
                out[n] = d;
                n += 1;
            }
            d += 1;
        }
        group += 1;
    }
    out
}

/// `AXIS_OF[d]`: the axis direction `d` runs along.
const AXIS_OF: [u8; NUM_DIRS] = axis_table();

const fn axis_table() -> [u8; NUM_DIRS] {
    let mut out = [0; NUM_DIRS];
    let mut a = 0;
    while a < NUM_AXES {
        out[AXIS_DIRS[a]] = a as u8;
        out[opposite(AXIS_DIRS[a])] = a as u8;
        a += 1;
    }
    out
}

/// The axis of direction `d` (see [`AXIS_DIRS`]).
#[inline(always)]
pub const fn axis_of(d: usize) -> usize {
    AXIS_OF[d] as usize
}

/// Whether direction `d` runs up its axis's lines (towards higher positions).
#[inline(always)]
pub const fn runs_up(d: usize) -> bool {
    d >= NUM_AXES
}

/// The number of lines of the 8-layer board (the most any layer count has):
/// 3 × 64 along the edges' axes, 6 × 120 along the face diagonals, 4 × 169
/// along the space diagonals, each counted by the squares a line starts on.
pub const MAX_LINES: usize = 3 * 64 + 6 * 120 + 4 * 169;

/// Where a square lies on its line along one axis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineRef {
    /// The line's number (below [`MAX_LINES`]).
    pub line: u16,
    /// The square's position on the line (0 at the line's lower end).
    pub pos: u8,
    /// One bit for each position the line has (its length's mask).
    pub mask: u8,
}

/// A square's bit in the occupancy word of one of its lines (see
/// `Position::lines`: White's pieces in the low byte, Black's in the high).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineBit {
    /// The line's number (below [`MAX_LINES`]).
    pub line: u16,
    /// The square's bit for one colour.
    pub bit: u16,
}

/// The squares reachable from position `pos` of a line occupied as `occ`
/// (bit i: position i), in both directions up to and including the first
/// occupied position, `pos`'s own bit ignored; positions past the line's end
/// are not masked off (see [`LineRef::mask`]).
#[inline(always)]
pub fn line_attacks(occ: u8, pos: u8) -> u8 {
    LINE_ATTACKS[occ as usize][pos as usize & 7]
}

/// `LINE_ATTACKS[occ][pos]`: see [`line_attacks`].
static LINE_ATTACKS: [[u8; 8]; 256] = line_attack_table();

const fn line_attack_table() -> [[u8; 8]; 256] {
    let mut t = [[0u8; 8]; 256];
    let mut occ = 0;
    while occ < 256 {
        let mut pos = 0;
        while pos < 8 {
            let mut out = 0u8;
            let mut i = pos + 1;
            while i < 8 {
                out |= 1 << i;
                if occ >> i & 1 != 0 {
                    break;
                }
                i += 1;
            }
            let mut i = pos;
            while i > 0 {
                i -= 1;
                out |= 1 << i;
                if occ >> i & 1 != 0 {
                    break;
                }
            }
            t[occ][pos] = out;
            pos += 1;
        }
        occ += 1;
    }
    t
}

/// Rays and lines of a board of a given layer count (3..=8).
pub struct Geometry {
    /// The layer count these tables are for.
    pub layers: u8,
    /// Every square of the board.
    pub board: Bitboard,
    /// `ray_squares[sq * 26 + d]`: the squares from `sq` in direction `d`, nearest first.
    ray_squares: Vec<[Square; MAX_RAY]>,
    /// `ray_len[sq * 26 + d]`: how many of `ray_squares` are on the board.
    ray_len: Vec<u8>,
    /// `rays[d * 512 + sq]`: the same ray as a set.
    rays: Vec<Bitboard>,
    /// `line_refs[sq][axis]`: the line through `sq` along `axis` and where `sq` lies on it.
    line_refs: Vec<[LineRef; NUM_AXES]>,
    /// `line_squares[line]`: the line's squares by position.
    line_squares: Vec<[Square; 8]>,
    /// `line_bits[sq * 2 + colour]`: a piece's bits in the occupancy of its lines.
    line_bits: Vec<[LineBit; NUM_AXES]>,
    /// `long_rays[sq]`: see [`Geometry::long_rays`].
    long_rays: Vec<u32>,
}

impl Geometry {
    /// The tables for `layers` layers (3..=8), built on first use.
    pub fn get(layers: u8) -> &'static Geometry {
        static TABLES: [OnceLock<Geometry>; MAX_LAYERS as usize] = [const { OnceLock::new() }; 8];
        assert!((1..=MAX_LAYERS).contains(&layers), "layer count {layers} out of range");
        TABLES[layers as usize - 1].get_or_init(|| Geometry::build(layers))
    }

    fn build(layers: u8) -> Geometry {
        let mut ray_squares = vec![[Square::new(0, 0, 0); MAX_RAY]; NUM_SQUARES * NUM_DIRS];
        let mut ray_len = vec![0u8; NUM_SQUARES * NUM_DIRS];
        let mut rays = vec![Bitboard::EMPTY; NUM_SQUARES * NUM_DIRS];
        for i in 0..NUM_SQUARES {
            let from = Square::from_index_unchecked(i);
            for (d, &(dx, dy, dz)) in DIRS.iter().enumerate() {
                let mut n = 0;
                let mut cur = from;
                while let Some(next) = cur.offset(dx, dy, dz, layers) {
                    ray_squares[i * NUM_DIRS + d][n] = next;
                    rays[d * NUM_SQUARES + i].set(next);
                    n += 1;
                    cur = next;
                }
                ray_len[i * NUM_DIRS + d] = n as u8;
            }
        }
        let (line_refs, line_squares) = Geometry::lines(layers);
        let line_bits = (0..NUM_SQUARES * 2)
            .map(|i| line_refs[i / 2].map(|r| LineBit { line: r.line, bit: 1 << (r.pos as usize + 8 * (i % 2)) }))
            .collect();
        let long_rays = line_refs
            .iter()
            .map(|refs| {
                refs.iter().enumerate().fold(0, |acc, (axis, r)| {
                    let up = (r.mask as u32) >> (r.pos + 2) & 1;
                    let down = (r.pos >= 2) as u32;
                    acc | (up | down << 1) << (2 * axis)
                })
            })
            .collect();
        Geometry {
            layers,
            board: Bitboard::layers(layers),
            ray_squares,
            ray_len,
            rays,
            line_refs,
            line_squares,
            line_bits,
            long_rays,
        }
    }

    /// Numbers the lines: axis by axis, each line from its lower end (the
    /// square that has no neighbour down the axis), in square order.
    fn lines(layers: u8) -> (Vec<[LineRef; NUM_AXES]>, Vec<[Square; 8]>) {
        let mut refs = vec![[LineRef::default(); NUM_AXES]; NUM_SQUARES];
        let mut squares = Vec::new();
        for axis in 0..NUM_AXES {
            let (dx, dy, dz) = DIRS[AXIS_DIRS[axis]];
            for i in 0..NUM_SQUARES {
                let start = Square::from_index_unchecked(i);
                if start.layer() >= layers || start.offset(-dx, -dy, -dz, layers).is_some() {
                    continue;
                }
                let mut run = vec![start];
                while let Some(next) = run[run.len() - 1].offset(dx, dy, dz, layers) {
                    run.push(next);
                }
                let mask = (0xFFu16 >> (8 - run.len())) as u8;
                let mut line = [start; 8];
                for (pos, &s) in run.iter().enumerate() {
                    line[pos] = s;
                    refs[s.index()][axis] = LineRef { line: squares.len() as u16, pos: pos as u8, mask };
                }
                squares.push(line);
            }
        }
        debug_assert!(squares.len() <= MAX_LINES);
        (refs, squares)
    }

    /// The squares from `sq` in direction `d`, nearest first (empty off the board).
    #[inline(always)]
    pub fn ray_squares(&self, sq: Square, d: usize) -> &[Square] {
        let i = sq.index() * NUM_DIRS + d;
        &self.ray_squares[i][..self.ray_len[i] as usize]
    }

    /// The squares from `sq` in direction `d` as a set.
    #[inline]
    pub fn ray(&self, d: usize, sq: Square) -> Bitboard {
        self.rays[d * NUM_SQUARES + sq.index()]
    }

    /// Where `sq` lies on its line along `axis`.
    #[inline(always)]
    pub fn line_ref(&self, sq: Square, axis: usize) -> LineRef {
        self.line_refs[sq.index()][axis]
    }

    /// Where `sq` lies on its lines along every axis.
    #[inline(always)]
    pub fn line_refs(&self, sq: Square) -> &[LineRef; NUM_AXES] {
        &self.line_refs[sq.index()]
    }

    /// Which rays from `sq` along the lines through it hold two squares or
    /// more: bit `2 * axis` the ray up the axis (towards higher positions),
    /// bit `2 * axis + 1` the ray down.
    #[inline(always)]
    pub fn long_rays(&self, sq: Square) -> u32 {
        self.long_rays[sq.index()]
    }

    /// The bits of a piece of colour index `c` (0 White, 1 Black) on `sq` in
    /// the occupancy of each of its lines.
    #[inline(always)]
    pub fn line_bits(&self, sq: Square, c: usize) -> &[LineBit; NUM_AXES] {
        &self.line_bits[(sq.index() * 2 + c) & (NUM_SQUARES * 2 - 1)]
    }

    /// The square at position `pos` of `line`.
    #[inline(always)]
    pub fn line_square(&self, line: u16, pos: u32) -> Square {
        self.line_squares[line as usize][pos as usize & 7]
    }

    /// The number of lines of this board.
    pub fn line_count(&self) -> usize {
        self.line_squares.len()
    }

    /// The direction from `a` towards `b`, if they share a line of the 26 directions.
    #[inline(always)]
    pub fn direction(a: Square, b: Square) -> Option<usize> {
        let v = ALIGNMENT[delta_index(a, b)];
        if v == NOT_ALIGNED { None } else { Some((v & 31) as usize) }
    }

    /// The direction from `a` towards `b` and the number of steps between
    /// them, if they share a line of the 26 directions.
    #[inline(always)]
    pub fn direction_and_distance(a: Square, b: Square) -> Option<(usize, u32)> {
        let v = ALIGNMENT[delta_index(a, b)];
        if v == NOT_ALIGNED { None } else { Some(((v & 31) as usize, (v >> 5) as u32)) }
    }

    /// The squares strictly between two aligned squares (empty if not aligned).
    pub fn between(&self, a: Square, b: Square) -> Bitboard {
        match Geometry::direction(a, b) {
            Some(d) => self.ray(d, a) - self.ray(d, b) - Bitboard::from(b),
            None => Bitboard::EMPTY,
        }
    }

    /// The squares attacked by a slider on `sq` along direction `d` when
    /// `occupied` blocks: up to and including the first occupied square.
    #[inline(always)]
    pub fn slide(&self, sq: Square, d: usize, occupied: Bitboard) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for &s in self.ray_squares(sq, d) {
            out.set(s);
            if occupied.has(s) {
                break;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twenty_six_directions_with_opposites() {
        assert_eq!((0..NUM_DIRS).filter(|&d| dir_order(d) == 1).count(), 6);
        assert_eq!((0..NUM_DIRS).filter(|&d| dir_order(d) == 2).count(), 12);
        assert_eq!((0..NUM_DIRS).filter(|&d| dir_order(d) == 3).count(), 8);
        for d in 0..NUM_DIRS {
            let (x, y, z) = DIRS[d];
            assert_eq!(DIRS[opposite(d)], (-x, -y, -z));
        }
    }

    #[test]
    fn dir_index_follows_dirs() {
        for dx in -2..=2 {
            for dy in -2..=2 {
                for dz in -2..=2 {
                    assert_eq!(dir_index(dx, dy, dz), DIRS.iter().position(|&d| d == (dx, dy, dz)));
                }
            }
        }
    }

    #[test]
    fn rays_stop_at_the_last_layer() {
        let g = Geometry::get(3);
        let up = dir_index(0, 0, 1).unwrap();
        let a1 = Square::new(0, 0, 0);
        assert_eq!(g.ray_squares(a1, up).len(), 2);
        assert_eq!(g.ray(up, a1).count(), 2);
        let g8 = Geometry::get(8);
        assert_eq!(g8.ray(up, a1).count(), 7);
        let space = dir_index(1, 1, 1).unwrap();
        assert_eq!(g8.ray(space, a1).count(), 7);
    }

    #[test]
    fn between_aligned_and_unaligned() {
        let g = Geometry::get(8);
        let a = Square::new(0, 0, 0);
        let b = Square::new(3, 3, 3);
        assert_eq!(g.between(a, b).count(), 2);
        assert_eq!(g.between(a, Square::new(1, 2, 0)), Bitboard::EMPTY);
        assert_eq!(g.between(a, Square::new(1, 1, 0)), Bitboard::EMPTY);
        assert_eq!(g.between(Square::new(4, 0, 3), Square::new(4, 0, 7)).count(), 3);
    }

    #[test]
    fn direction_and_distance_agree_with_the_rays() {
        let g = Geometry::get(8);
        for i in 0..NUM_SQUARES {
            let a = Square::from_index_unchecked(i);
            let mut aligned = 0;
            for d in 0..NUM_DIRS {
                for (k, &b) in g.ray_squares(a, d).iter().enumerate() {
                    assert_eq!(Geometry::direction_and_distance(a, b), Some((d, k as u32 + 1)));
                    assert_eq!(Geometry::direction(a, b), Some(d));
                    aligned += 1;
                }
            }
            let others =
                (0..NUM_SQUARES).filter(|&j| Geometry::direction(a, Square::from_index_unchecked(j)).is_some());
            assert_eq!(others.count(), aligned);
        }
    }

    #[test]
    fn lines_cover_every_ray_and_know_the_long_rays() {
        for layers in crate::core::HABERKORN_LAYERS {
            let g = Geometry::get(layers);
            if layers == 8 {
                assert_eq!(g.line_count(), MAX_LINES);
            }
            for i in 0..NUM_SQUARES {
                let sq = Square::from_index_unchecked(i);
                if sq.layer() >= layers {
                    continue;
                }
                for d in 0..NUM_DIRS {
                    let r = g.line_ref(sq, axis_of(d));
                    assert_eq!(g.line_square(r.line, r.pos as u32), sq);
                    // The ray is the line's squares beyond `pos`, nearest first.
                    let ray = g.ray_squares(sq, d);
                    for (k, &s) in ray.iter().enumerate() {
                        let pos = if runs_up(d) { r.pos as i32 + 1 + k as i32 } else { r.pos as i32 - 1 - k as i32 };
                        assert!((0..8).contains(&pos) && r.mask >> pos & 1 == 1);
                        assert_eq!(g.line_square(r.line, pos as u32), s);
                    }
                    let beyond = if runs_up(d) {
                        r.pos as i32 + 1 + ray.len() as i32
                    } else {
                        r.pos as i32 - 1 - ray.len() as i32
                    };
                    assert!(!(0..8).contains(&beyond) || r.mask >> beyond & 1 == 0);
                    let bit = 2 * axis_of(d) + !runs_up(d) as usize;
                    assert_eq!(g.long_rays(sq) >> bit & 1 == 1, ray.len() >= 2, "{sq:?} {d}");
                }
            }
        }
    }

    #[test]
    fn line_attacks_stop_at_the_first_piece() {
        // Position 3 on 0b1000_0010: up to 7 (the piece on 7), down to 1.
        assert_eq!(line_attacks(0b1000_0010, 3), 0b1111_0110);
        // Empty line: everything but the piece's own position.
        assert_eq!(line_attacks(0b0000_1000, 3), 0b1111_0111);
        assert_eq!(line_attacks(0, 0), 0b1111_1110);
        assert_eq!(line_attacks(0b0000_0011, 0), 0b0000_0010);
    }
}
