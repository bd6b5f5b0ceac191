//! Retrograde analysis of one ending: every legal position's distance to
//! mate, from the mated positions backwards.
//!
//! A position is its side to move and the squares of its pieces in the
//! material's order (White's king, Black's king, then [`Material::pieces`]).
//! The table is dense over that: index `((side · n + s₀) · n + s₁) · n + …`
//! on a board of `n` squares, one byte a position ([`Value`]).
//!
//! Only one position of each class of symmetric positions (the canonical
//! one, the least index among its images under [`CubeMap::pawnless`]) is
//! analysed; the others copy its value at the end.
//!
//! 1. Every canonical position is set up and its legal moves counted. A
//!    position without moves is mated (distance 0) or stalemated (a draw).
//!    A capture leaves an ending of fewer pieces, here always a king
//!    against a king (with at most three pieces), a draw: a position with a
//!    capture can never be lost.
//! 2. Distance by distance: the predecessors of a position lost in `d`
//!    (the other side's moves taken back, never a capture) win in `d + 1`.
//!    Each predecessor of a position won in `d` loses one of its
//!    counted moves; when none is left, every move leads to a won position
//!    for the opponent and it is lost in `d + 1`. A move to a symmetric
//!    image counts once: moves are taken back from every distinct image of
//!    the won position, and only canonical predecessors are counted.
//! 3. Whatever has no distance then is a draw (the side to move can always
//!    keep away from positions lost for it).
//!
//! Distances are in plies and ignore the fifty-move rule; a win longer than
//! 100 plies is one the rule may cut (Syzygy's "cursed win"), counted in
//! [`Stats`].

use super::cube::CubeMap;
use super::material::{MAX_PIECES, Material};
use crate::core::{Bitboard, Color, Piece, PieceKind, Position, Square, Variant, VariantKind};
use rayon::prelude::*;
use std::fmt;

/// One position's value in a table: a draw, a distance to mate in plies
/// (even: the side to move is mated; odd: it mates), or no legal position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// Neither side can force mate.
    Draw,
    /// Mate after this many plies with best play: the side to move mates
    /// if odd, is mated if even (0: mated now).
    Mate(u8),
    /// No legal position (two pieces on one square, the side not to move in check).
    Illegal,
}

/// The byte of a draw.
const DRAW: u8 = 0;
/// The byte of an illegal position.
const ILLEGAL: u8 = 255;
/// The longest distance a byte holds (plies).
const MAX_DISTANCE: u8 = 253;
/// A move counter that never runs out: the position has a move to a draw.
const NEVER_LOST: u8 = 255;

impl Value {
    fn from_byte(b: u8) -> Value {
        match b {
            DRAW => Value::Draw,
            ILLEGAL => Value::Illegal,
            b => Value::Mate(b - 1),
        }
    }

    /// Whether the side to move wins.
    pub fn is_win(self) -> bool {
        matches!(self, Value::Mate(d) if d % 2 == 1)
    }

    /// Whether the side to move loses.
    pub fn is_loss(self) -> bool {
        matches!(self, Value::Mate(d) if d % 2 == 0)
    }
}

/// What a table says about its ending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Legal positions with each side to move (White, Black).
    pub positions: [u64; 2],
    /// Of those, won for the side to move.
    pub wins: [u64; 2],
    /// Of those, lost for the side to move.
    pub losses: [u64; 2],
    /// The longest distance to mate in plies (0 if none), and one position of that length.
    pub longest: Option<(u8, String)>,
    /// Wins longer than 100 plies: ones the fifty-move rule may cut.
    pub cursed: u64,
}

/// Why a table could not be generated.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GenerateError {
    /// A mate longer than a byte holds.
    #[error("a mate longer than {MAX_DISTANCE} plies: the table's bytes cannot hold it")]
    TooLong,
    /// More legal moves than a counter holds.
    #[error("a position with more than 254 legal moves")]
    TooManyMoves,
    /// A layer count the game does not have.
    #[error("haberkorn is played on 3 to 8 layers, not {0}")]
    Layers(u8),
}

/// The board's maps as square tables: `image[m][s]` is map `m`'s image of square `s`.
struct Maps {
    image: Vec<Vec<u16>>,
    /// For each square, the maps that take it to the least square of its orbit.
    to_least: Vec<Vec<u8>>,
}

impl Maps {
    fn new(kind: VariantKind, layers: u8) -> Maps {
        let n = 64 * layers as usize;
        let image: Vec<Vec<u16>> = CubeMap::pawnless(kind, layers)
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
    fn least(&self, s: usize) -> usize {
        self.image[self.to_least[s][0] as usize][s] as usize
    }

    /// The canonical form of the first `k` of `squares`: the least of their
    /// images, compared square by square in index order.
    fn canonical(&self, squares: &Squares, k: usize) -> Squares {
        let mut best = [u16::MAX; MAX_PIECES];
        for &m in &self.to_least[squares[0] as usize] {
            let im = &self.image[m as usize];
            let mut cand = [0u16; MAX_PIECES];
            for j in 0..k {
                cand[j] = im[squares[j] as usize];
            }
            if cand < best {
                best = cand;
            }
        }
        best
    }

    /// Every distinct image of the first `k` of `squares` (itself included).
    fn images(&self, squares: &Squares, k: usize) -> Vec<Squares> {
        let mut out: Vec<Squares> = self
            .image
            .iter()
            .map(|im| {
                let mut q = [0u16; MAX_PIECES];
                for j in 0..k {
                    q[j] = im[squares[j] as usize];
                }
                q
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

fn sq(i: usize) -> Square {
    Square::from_index(i).expect("a square of the board")
}

/// Squares of a position's pieces in index order (unused slots 0).
type Squares = [u16; MAX_PIECES];

/// What a table indexes: its game, board and ending.
struct Layout {
    /// The game, with no castling and no en passant (no table position has either).
    variant: Variant,
    /// The ending.
    material: Material,
    /// The pieces in index order: the two kings, then the material's.
    pieces: Vec<Piece>,
    /// Squares on the board.
    n: usize,
    /// Positions with one side to move.
    half: usize,
}

impl Layout {
    fn new(variant: Variant, material: &Material) -> Layout {
        let n = 64 * variant.layers as usize;
        let pieces: Vec<Piece> = [Piece::new(Color::White, PieceKind::King), Piece::new(Color::Black, PieceKind::King)]
            .into_iter()
            .chain(material.pieces().iter().copied())
            .collect();
        let half = n.pow(pieces.len() as u32);
        Layout { variant, material: material.clone(), pieces, n, half }
    }

    /// The side to move (0 White) and squares of index `i`.
    fn decode(&self, i: usize) -> (usize, Squares) {
        let mut squares = [0u16; MAX_PIECES];
        let mut rest = i % self.half;
        for s in squares[..self.pieces.len()].iter_mut().rev() {
            *s = (rest % self.n) as u16;
            rest /= self.n;
        }
        (i / self.half, squares)
    }

    /// The index of `squares` with `side` to move.
    fn index(&self, side: usize, squares: &Squares) -> usize {
        squares[..self.pieces.len()].iter().fold(side, |acc, &s| acc * self.n + s as usize)
    }

    /// The position of `squares` with `side` (0 White) to move, if legal.
    fn position(&self, side: usize, squares: &Squares) -> Option<Position> {
        let placed: Vec<(Square, Piece)> =
            squares.iter().map(|&s| sq(s as usize)).zip(self.pieces.iter().copied()).collect();
        Position::from_pieces(self.variant, if side == 0 { Color::White } else { Color::Black }, &placed)
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
        let k = self.pieces.len();
        let occ: Bitboard = squares[..k].iter().map(|&s| sq(s as usize)).collect();
        let (mover, king) =
            if side == 0 { (Color::White, sq(squares[1] as usize)) } else { (Color::Black, sq(squares[0] as usize)) };
        !self.pieces.iter().zip(squares).any(|(&p, &s)| p.color == mover && self.attacks(p, sq(s as usize), king, occ))
    }

    /// The legal positions from which the side not to move in (`side`,
    /// `squares`) reaches it with one move that captures nothing, those that
    /// `keep` accepts: its pieces' moves taken back (every pawnless piece
    /// moves alike both ways along its lines, so a move taken back is a move
    /// to an empty square).
    fn predecessors(&self, side: usize, squares: &Squares, keep: impl Fn(&Squares) -> bool, out: &mut Vec<Squares>) {
        out.clear();
        let mover = if side == 0 { Color::Black } else { Color::White };
        let rules = self.variant.rules();
        let k = self.pieces.len();
        let occ: Bitboard = squares[..k].iter().map(|&s| sq(s as usize)).collect();
        for (slot, piece) in self.pieces.iter().enumerate() {
            if piece.color != mover {
                continue;
            }
            let from = sq(squares[slot] as usize);
            let mut targets = Vec::new();
            match piece.kind {
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

/// A generated table: every position of one ending of one game.
pub struct Table {
    /// What it indexes.
    layout: Layout,
    /// One byte a position, dense (see the module docs).
    values: Vec<u8>,
}

impl Table {
    /// Generates `material`'s table in game `kind` on `layers` layers
    /// (hdc: 8), with rayon's threads for the setup and the final copy.
    pub fn generate(kind: VariantKind, layers: u8, material: &Material) -> Result<Table, GenerateError> {
        let variant = match kind {
            VariantKind::Hdc => Variant::hdc(),
            VariantKind::Haberkorn => {
                Variant::haberkorn_from(layers, None, None, false, false).map_err(|_| GenerateError::Layers(layers))?
            }
        };
        let variant = Variant { castling: false, en_passant: false, ..variant };
        let lay = Layout::new(variant, material);
        let maps = Maps::new(kind, variant.layers);
        let (n, k, size) = (lay.n, lay.pieces.len(), 2 * lay.half);
        let block = lay.half / n;
        let mut values = vec![ILLEGAL; size];
        let mut counters = vec![0u8; size];

        // 1. The canonical positions: set up, moves counted, mates found.
        let setup: Vec<Result<Vec<u32>, GenerateError>> = values
            .par_chunks_mut(block)
            .zip(counters.par_chunks_mut(block))
            .enumerate()
            .map(|(b, (values, counts))| {
                let mut mated = Vec::new();
                if maps.least(b % n) != b % n {
                    return Ok(mated);
                }
                for rest in 0..block {
                    let (side, squares) = lay.decode(b * block + rest);
                    if maps.canonical(&squares, k) != squares {
                        continue;
                    }
                    let Some(pos) = lay.position(side, &squares) else { continue };
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        values[rest] = if pos.in_check() { 1 } else { DRAW };
                        if pos.in_check() {
                            mated.push((b * block + rest) as u32);
                        }
                        continue;
                    }
                    values[rest] = DRAW;
                    let captures = moves.iter().any(|m| pos.piece_at(m.to()).is_some());
                    counts[rest] = if captures {
                        NEVER_LOST
                    } else {
                        u8::try_from(moves.len()).ok().filter(|&c| c < NEVER_LOST).ok_or(GenerateError::TooManyMoves)?
                    };
                }
                Ok(mated)
            })
            .collect();
        let mut frontier = Vec::new();
        for part in setup {
            frontier.extend(part?);
        }

        // 2. Distance by distance.
        let mut d: u8 = 0;
        let mut preds = Vec::new();
        while !frontier.is_empty() {
            if d >= MAX_DISTANCE {
                return Err(GenerateError::TooLong);
            }
            let mut next = Vec::new();
            for &c in &frontier {
                let (side, squares) = lay.decode(c as usize);
                if d.is_multiple_of(2) {
                    lay.predecessors(side, &squares, |_| true, &mut preds);
                    for q in &preds {
                        let i = lay.index(1 - side, &maps.canonical(q, k));
                        if values[i] == DRAW && counters[i] != 0 {
                            values[i] = d + 2;
                            next.push(i as u32);
                        }
                    }
                } else {
                    for image in maps.images(&squares, k) {
                        lay.predecessors(side, &image, |q| maps.canonical(q, k) == *q, &mut preds);
                        for q in &preds {
                            let i = lay.index(1 - side, q);
                            if values[i] == DRAW && counters[i] != NEVER_LOST && counters[i] != 0 {
                                counters[i] -= 1;
                                if counters[i] == 0 {
                                    values[i] = d + 2;
                                    next.push(i as u32);
                                }
                            }
                        }
                    }
                }
            }
            frontier = next;
            d += 1;
        }
        drop(counters);

        // 3. Every other position copies its canonical one's value.
        let canonical_values = values.clone();
        values.par_chunks_mut(block).enumerate().for_each(|(b, values)| {
            for (rest, v) in values.iter_mut().enumerate() {
                let (side, squares) = lay.decode(b * block + rest);
                let canon = maps.canonical(&squares, k);
                if canon != squares {
                    *v = canonical_values[lay.index(side, &canon)];
                }
            }
        });
        Ok(Table { layout: lay, values })
    }

    /// The value of `pos`, if it is a position of this table's game, layers
    /// and material (White's pieces as the material's, not colour-swapped).
    pub fn probe(&self, pos: &Position) -> Option<Value> {
        let lay = &self.layout;
        if pos.variant().kind != lay.variant.kind || pos.variant().layers != lay.variant.layers {
            return None;
        }
        let mut squares = [0u16; MAX_PIECES];
        let mut taken = Bitboard::EMPTY;
        for (slot, p) in lay.pieces.iter().enumerate() {
            let s = (pos.pieces(p.color, p.kind) - taken).first()?;
            taken.set(s);
            squares[slot] = s.index() as u16;
        }
        if taken != pos.occupied() {
            return None;
        }
        let side = if pos.side_to_move() == Color::White { 0 } else { 1 };
        Some(Value::from_byte(self.values[lay.index(side, &squares)]))
    }

    /// Checks every `step`-th position (1: all of them) against its moves:
    /// a legal position exactly where the table has one; a mated position
    /// at 0, a stalemate a draw; a position with a move to a loss in `e` won
    /// in the least such `e + 1`; otherwise a draw if a move leads to a
    /// draw (a capture leaves a king against a king: a draw); otherwise lost
    /// in the greatest child's distance plus one. Tables that pass are right
    /// (by induction on the distance). Returns the positions checked, or the
    /// first position that fails, as a 3D-FEN with what it holds and what
    /// its moves say.
    pub fn verify(&self, step: usize) -> Result<u64, String> {
        let lay = &self.layout;
        let step = step.max(1);
        let block = lay.half / lay.n;
        let results: Vec<Result<u64, String>> = self
            .values
            .par_chunks(block)
            .enumerate()
            .map(|(b, values)| {
                let mut checked = 0;
                for rest in (0..block).filter(|r| (b * block + r).is_multiple_of(step)) {
                    let (side, squares) = lay.decode(b * block + rest);
                    let distinct = (0..lay.pieces.len()).all(|j| !squares[..j].contains(&squares[j]));
                    let pos = if distinct { lay.position(side, &squares) } else { None };
                    let held = Value::from_byte(values[rest]);
                    let Some(mut pos) = pos else {
                        if held != Value::Illegal {
                            return Err(format!("index {}: {held:?} for no legal position", b * block + rest));
                        }
                        continue;
                    };
                    let expected = self.expected(&mut pos);
                    if held != expected {
                        return Err(format!("{}: the table holds {held:?}, its moves say {expected:?}", pos.fen()));
                    }
                    checked += 1;
                }
                Ok(checked)
            })
            .collect();
        results.into_iter().sum()
    }

    /// What `pos`'s moves make of it by this table (see [`Table::verify`]).
    fn expected(&self, pos: &mut Position) -> Value {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.in_check() { Value::Mate(0) } else { Value::Draw };
        }
        let (mut best_loss, mut draw, mut worst_win) = (None::<u8>, false, 0u8);
        for &m in moves.iter() {
            let capture = pos.piece_at(m.to()).is_some();
            let undo = pos.make(m);
            let child = if capture { Value::Draw } else { self.probe(pos).unwrap_or(Value::Illegal) };
            pos.unmake(m, &undo);
            match child {
                Value::Mate(e) if e.is_multiple_of(2) => best_loss = Some(best_loss.map_or(e, |b| b.min(e))),
                Value::Mate(e) => worst_win = worst_win.max(e),
                Value::Draw => draw = true,
                Value::Illegal => return Value::Illegal,
            }
        }
        match best_loss {
            Some(e) => Value::Mate(e + 1),
            None if draw => Value::Draw,
            None => Value::Mate(worst_win + 1),
        }
    }

    /// Counts wins, losses and draws for each side to move, the longest
    /// mate and the cursed wins.
    pub fn stats(&self) -> Stats {
        let lay = &self.layout;
        let mut s = Stats { positions: [0; 2], wins: [0; 2], losses: [0; 2], longest: None, cursed: 0 };
        let mut longest: Option<(u8, usize)> = None;
        for (i, &b) in self.values.iter().enumerate() {
            let side = i / lay.half;
            match Value::from_byte(b) {
                Value::Illegal => continue,
                Value::Draw => {}
                Value::Mate(d) => {
                    if d % 2 == 1 {
                        s.wins[side] += 1;
                        if d > 100 {
                            s.cursed += 1;
                        }
                    } else {
                        s.losses[side] += 1;
                    }
                    if longest.is_none_or(|(l, _)| d > l) {
                        longest = Some((d, i));
                    }
                }
            }
            s.positions[side] += 1;
        }
        s.longest = longest.and_then(|(d, i)| {
            let (side, squares) = lay.decode(i);
            Some((d, lay.position(side, &squares)?.fen()))
        });
        s
    }

    /// The table's ending.
    pub fn material(&self) -> &Material {
        &self.layout.material
    }

    /// The table's game (no castling, no en passant) and board.
    pub fn variant(&self) -> Variant {
        self.layout.variant
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (side, name) in ["White", "Black"].iter().enumerate() {
            let n = self.positions[side].max(1) as f64;
            writeln!(
                f,
                "{name} to move: {} positions, won {:.2}%, drawn {:.2}%, lost {:.2}%",
                self.positions[side],
                100.0 * self.wins[side] as f64 / n,
                100.0 * (self.positions[side] - self.wins[side] - self.losses[side]) as f64 / n,
                100.0 * self.losses[side] as f64 / n
            )?;
        }
        match &self.longest {
            Some((d, fen)) => writeln!(f, "longest mate: {d} plies, for example {fen}")?,
            None => writeln!(f, "no mate")?,
        }
        write!(f, "wins longer than 100 plies (the fifty-move rule may cut them): {}", self.cursed)
    }
}
