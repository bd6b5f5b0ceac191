//! What a table indexes: a position as its side to move and the squares of
//! its pieces in the material's order (White's king, Black's king, then
//! [`Material::pieces`]), the board's symmetries as square tables, and the
//! two index spaces:
//!
//! - **dense**, over every placement: `((side · n + s₀) · n + s₁) · n + …`
//!   on a board of `n` squares (the generator's working space);
//! - **compact**, what a table keeps and a file holds: only the placements
//!   whose White king stands on the least square of its orbit under the
//!   symmetries (20 of hdc's 512 squares, 40 of haberkorn's on 8 layers),
//!   block by block: `(side · L + l) · n^(k−1) + rest`, where `l` numbers
//!   the least squares and `rest` is the dense index of the other pieces.
//!   Every position maps onto one of these by a symmetry that takes its
//!   White king to the least square.

use super::cube::CubeMap;
use super::material::{MAX_PIECES, Material};
use crate::core::{Bitboard, Color, Piece, PieceKind, Position, Square, Variant, VariantKind};

/// Squares of a position's pieces in index order (unused slots 0).
pub(super) type Squares = [u16; MAX_PIECES];

/// The square of index `i`.
pub(super) fn sq(i: usize) -> Square {
    Square::from_index(i).expect("a square of the board")
}

/// The board's maps as square tables.
#[derive(Clone)]
pub(super) struct Maps {
    /// `image[m][s]`: map `m`'s image of square `s`.
    image: Vec<Vec<u16>>,
    /// For each square, the maps that take it to the least square of its orbit.
    to_least: Vec<Vec<u8>>,
}

impl Maps {
    fn new(kind: VariantKind, layers: u8, pawns: bool) -> Maps {
        let n = 64 * layers as usize;
        let image: Vec<Vec<u16>> = CubeMap::keeping(kind, layers, pawns)
            .iter()
            .map(|m| (0..n).map(|i| m.square(sq(i), layers).index() as u16).collect())
            .collect();
        let to_least = (0..n)
            .map(|s| {
                let least = image.iter().map(|im| im[s]).min().unwrap_or(s as u16);
                (0..image.len()).filter(|&m| image[m][s] == least).map(|m| m as u8).collect()
            })
            .collect();
        Maps { image, to_least }
    }

    /// The least square of `s`'s orbit.
    pub(super) fn least(&self, s: usize) -> usize {
        self.image[self.to_least[s][0] as usize][s] as usize
    }

    /// The first `k` of `squares` under map `m`.
    fn apply(&self, m: usize, squares: &Squares, k: usize) -> Squares {
        let im = &self.image[m];
        let mut out = [0u16; MAX_PIECES];
        for j in 0..k {
            out[j] = im[squares[j] as usize];
        }
        out
    }

    /// The canonical form of the first `k` of `squares`: the least of their
    /// images, compared square by square in index order.
    pub(super) fn canonical(&self, squares: &Squares, k: usize) -> Squares {
        self.to_least[squares[0] as usize]
            .iter()
            .map(|&m| self.apply(m as usize, squares, k))
            .min()
            .expect("every square has a least image")
    }

    /// Every distinct image of the first `k` of `squares` (itself included).
    pub(super) fn images(&self, squares: &Squares, k: usize) -> Vec<Squares> {
        let mut out: Vec<Squares> = (0..self.image.len()).map(|m| self.apply(m, squares, k)).collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A table's game, board, ending and index spaces.
#[derive(Clone)]
pub(super) struct Layout {
    /// The game, with no castling and no en passant (no table position has either).
    pub(super) variant: Variant,
    /// The ending.
    pub(super) material: Material,
    /// The pieces in index order: the two kings, then the material's.
    pub(super) pieces: Vec<Piece>,
    /// Squares on the board.
    pub(super) n: usize,
    /// Dense positions with one side to move (`n^k`).
    pub(super) half: usize,
    /// The board's symmetries.
    pub(super) maps: Maps,
    /// The least squares of their orbits, ascending: the White king's squares of the compact blocks.
    pub(super) least: Vec<u16>,
    /// For each least square, how many squares its orbit has.
    pub(super) orbit: Vec<u64>,
    /// For each square, its least square's number in `least`.
    block_of: Vec<u16>,
}

impl Layout {
    /// The layout of `material` in `kind` on `layers` layers (hdc: 8);
    /// `None` for a layer count the game does not have.
    pub(super) fn new(kind: VariantKind, layers: u8, material: &Material) -> Option<Layout> {
        let variant = match kind {
            VariantKind::Hdc => Variant::hdc(),
            VariantKind::Haberkorn => Variant::haberkorn_from(layers, None, None, false, false).ok()?,
        };
        let variant = Variant { castling: false, en_passant: false, ..variant };
        let n = 64 * variant.layers as usize;
        let pieces: Vec<Piece> = [Piece::new(Color::White, PieceKind::King), Piece::new(Color::Black, PieceKind::King)]
            .into_iter()
            .chain(material.pieces().iter().copied())
            .collect();
        let maps = Maps::new(kind, variant.layers, material.has_pawns());
        let least: Vec<u16> = (0..n).filter(|&s| maps.least(s) == s).map(|s| s as u16).collect();
        let block_of: Vec<u16> = (0..n)
            .map(|s| least.iter().position(|&l| l as usize == maps.least(s)).expect("a least square") as u16)
            .collect();
        let mut orbit = vec![0u64; least.len()];
        for &b in &block_of {
            orbit[b as usize] += 1;
        }
        let half = n.pow(pieces.len() as u32);
        Some(Layout { variant, material: material.clone(), pieces, n, half, maps, least, orbit, block_of })
    }

    /// Pieces on the board, kings included.
    pub(super) fn k(&self) -> usize {
        self.pieces.len()
    }

    /// Positions in one compact block (one side to move, one White-king square).
    pub(super) fn block(&self) -> usize {
        self.half / self.n
    }

    /// Entries of the compact index.
    pub(super) fn compact_len(&self) -> usize {
        2 * self.least.len() * self.block()
    }

    /// The side to move (0 White) and squares of dense index `i`.
    pub(super) fn decode(&self, i: usize) -> (usize, Squares) {
        let mut squares = [0u16; MAX_PIECES];
        let mut rest = i % self.half;
        for s in squares[..self.k()].iter_mut().rev() {
            *s = (rest % self.n) as u16;
            rest /= self.n;
        }
        (i / self.half, squares)
    }

    /// The dense index of `squares` with `side` to move.
    pub(super) fn index(&self, side: usize, squares: &Squares) -> usize {
        squares[..self.k()].iter().fold(side, |acc, &s| acc * self.n + s as usize)
    }

    /// The side to move and squares of compact index `c`.
    pub(super) fn decode_compact(&self, c: usize) -> (usize, Squares) {
        let (b, rest) = (c / self.block(), c % self.block());
        let (side, l) = (b / self.least.len(), b % self.least.len());
        let (_, mut squares) = self.decode(self.least[l] as usize * self.block() + rest);
        squares[0] = self.least[l];
        (side, squares)
    }

    /// The compact index of (`side`, `squares`): mapped so that the White
    /// king stands on its least square.
    pub(super) fn compact(&self, side: usize, squares: &Squares) -> usize {
        let m = self.maps.to_least[squares[0] as usize][0] as usize;
        let mapped = self.maps.apply(m, squares, self.k());
        let b = side * self.least.len() + self.block_of[squares[0] as usize] as usize;
        b * self.block() + self.index(0, &mapped) % self.block()
    }

    /// The position of `squares` with `side` (0 White) to move, if legal.
    pub(super) fn position(&self, side: usize, squares: &Squares) -> Option<Position> {
        let placed: Vec<(Square, Piece)> =
            squares.iter().map(|&s| sq(s as usize)).zip(self.pieces.iter().copied()).collect();
        Position::from_pieces(self.variant, if side == 0 { Color::White } else { Color::Black }, &placed)
    }

    /// The squares of `pos`'s pieces in index order, if it holds exactly
    /// this material, or with `swap` exactly this material with the colours
    /// swapped (Black holding White's pieces: the same ending seen from the
    /// other side, since no pawnless piece moves by its colour; with pawns,
    /// seen with the ranks reversed too, since pawns move by it).
    pub(super) fn squares_of(&self, pos: &Position, swap: bool) -> Option<Squares> {
        let mut squares = [0u16; MAX_PIECES];
        let mut taken = Bitboard::EMPTY;
        let mirror = swap && self.material.has_pawns();
        for (slot, p) in self.pieces.iter().enumerate() {
            let color = if swap { !p.color } else { p.color };
            let s = (pos.pieces(color, p.kind) - taken).first()?;
            taken.set(s);
            let s = if mirror { Square::new(s.file(), 7 - s.rank(), s.layer()) } else { s };
            squares[slot] = s.index() as u16;
        }
        (taken == pos.occupied()).then_some(squares)
    }

    /// Whether `piece` on `from` attacks `target` with the board occupied as `occ`.
    fn attacks(&self, piece: Piece, from: Square, target: Square, occ: Bitboard) -> bool {
        let rules = self.variant.rules();
        match piece.kind {
            PieceKind::King => rules.king[from.index()].has(target),
            PieceKind::Knight => rules.knight[from.index()].has(target),
            PieceKind::Pawn => rules.pawn_captures[piece.color.index()][from.index()].has(target),
            kind => {
                rules.slider_lines[kind.index()][from.index()].has(target)
                    && (rules.geometry.between(from, target) & occ).is_empty()
            }
        }
    }

    /// Whether (`side`, `squares`) is legal: the king of the side not to
    /// move is not attacked (the squares are distinct by construction).
    fn is_legal(&self, side: usize, squares: &Squares) -> bool {
        let occ: Bitboard = squares[..self.k()].iter().map(|&s| sq(s as usize)).collect();
        let (mover, king) =
            if side == 0 { (Color::White, sq(squares[1] as usize)) } else { (Color::Black, sq(squares[0] as usize)) };
        !self.pieces.iter().zip(squares).any(|(&p, &s)| p.color == mover && self.attacks(p, sq(s as usize), king, occ))
    }

    /// The squares a pawn of `color` on `to` may have stepped from without
    /// capturing, on the board occupied as `occ` (its own square included):
    /// a step one rank back (in haberkorn also one layer up or down), and
    /// onto the rank two on from its start rank, a double step (hdc: along
    /// the rank; haberkorn: to one of five targets with a free path). The
    /// mirror of movegen's pawn pushes; the tables' verification checks it
    /// against them.
    fn pawn_origins(&self, color: Color, to: Square, occ: Bitboard, out: &mut Vec<Square>) {
        let rules = self.variant.rules();
        let layers = self.variant.layers;
        let f = color.forward() as i8;
        let back = |s: Square, dz: i8| s.offset(0, -f, -dz, layers);
        let free = |s: Option<Square>| s.is_some_and(|s| !occ.has(s));
        for &dz in rules.pawn_push_layers {
            // No pawn stands on the first or last rank (from_pieces refuses it).
            if let Some(o) = back(to, dz as i8).filter(|&o| !occ.has(o) && (1..=6).contains(&o.rank())) {
                out.push(o);
            }
        }
        if i32::from(to.rank()) != i32::from(color.pawn_rank()) + 2 * i32::from(f) {
            return;
        }
        let step = |s: Square, dz: i8| s.offset(0, f, dz, layers);
        match self.variant.kind {
            VariantKind::Hdc => {
                let via = back(to, 0);
                if let Some(o) = via.and_then(|v| back(v, 0)).filter(|&o| free(via) && !occ.has(o)) {
                    out.push(o);
                }
            }
            VariantKind::Haberkorn => {
                // Each double step's layer change and the layer changes of its first step that may lead there.
                let doubles: [(i8, &[i8]); 5] = [(0, &[0]), (2, &[1]), (-2, &[-1]), (1, &[1, 0]), (-1, &[-1, 0])];
                for (dz, firsts) in doubles {
                    let Some(o) = to.offset(0, -2 * f, -dz, layers).filter(|&o| !occ.has(o)) else { continue };
                    if firsts.iter().any(|&d1| free(step(o, d1))) {
                        out.push(o);
                    }
                }
            }
        }
    }

    /// The legal positions from which the side not to move in (`side`,
    /// `squares`) reaches it with one move that captures nothing and
    /// promotes nothing, those that `keep` accepts: its pieces' moves taken
    /// back (every pawnless piece moves alike both ways along its lines, so
    /// a move taken back is a move to an empty square; a pawn's step or
    /// double step is taken back by [`Layout::pawn_origins`]).
    pub(super) fn predecessors(
        &self,
        side: usize,
        squares: &Squares,
        keep: impl Fn(&Squares) -> bool,
        out: &mut Vec<Squares>,
    ) {
        out.clear();
        let mover = if side == 0 { Color::Black } else { Color::White };
        let rules = self.variant.rules();
        let occ: Bitboard = squares[..self.k()].iter().map(|&s| sq(s as usize)).collect();
        for (slot, piece) in self.pieces.iter().enumerate() {
            if piece.color != mover {
                continue;
            }
            let from = sq(squares[slot] as usize);
            let mut targets = Vec::new();
            match piece.kind {
                PieceKind::Pawn => self.pawn_origins(piece.color, from, occ, &mut targets),
                PieceKind::King => targets.extend(rules.king[from.index()] - occ),
                PieceKind::Knight => targets.extend(rules.knight[from.index()] - occ),
                kind => {
                    for ray in rules.slider_rays(kind, from) {
                        targets.extend(ray.iter().copied().take_while(|&s| !occ.has(s)));
                    }
                }
            }
            for t in targets {
                let mut q = *squares;
                q[slot] = t.index() as u16;
                if keep(&q) && self.is_legal(1 - side, &q) {
                    out.push(q);
                }
            }
        }
    }
}
