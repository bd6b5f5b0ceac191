//! `Position`: the pieces, the side to move and the state the rules need, with
//! make/unmake, attack tests and the game state (mate, stalemate, draws).
//! `make` keeps the Zobrist keys (of the position and of its pawns), the
//! key history for repetitions, the checkers and one byte of occupancy per
//! line of the board and colour, and returns an [`Undo`] that records the
//! pieces the move took off and put on ([`Undo::changes`]) for the
//! evaluations' incremental state.

use super::bitboard::Bitboard;
use super::geometry::{Geometry, LineRef, MAX_LINES, NUM_DIRS};
use super::moves::{Move, MoveFlag};
use super::piece::{Color, Piece, PieceKind};
use super::square::Square;
use super::variant::{CastleRule, Rules, Variant, VariantKind};
use super::zobrist::Zobrist;

/// The en-passant state after a double step: the squares it passed over (one
/// or two) and the pawn that may be taken.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct EnPassant {
    targets: [Square; 2],
    count: u8,
    victim: Square,
}

impl EnPassant {
    /// The state for `targets` (one or two squares, ascending) and the pawn on `victim`.
    pub fn new(targets: &[Square], victim: Square) -> EnPassant {
        debug_assert!(!targets.is_empty() && targets.len() <= 2);
        let mut t = [targets[0]; 2];
        t[..targets.len()].copy_from_slice(targets);
        if targets.len() == 2 && t[1] < t[0] {
            t.swap(0, 1);
        }
        EnPassant { targets: t, count: targets.len() as u8, victim }
    }

    /// The passed-over squares a pawn may capture onto, ascending.
    pub fn targets(&self) -> &[Square] {
        &self.targets[..self.count as usize]
    }

    /// The pawn removed by an en-passant capture.
    pub fn victim(&self) -> Square {
        self.victim
    }
}

/// How a game stands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GameState {
    /// The side to move has a legal move and no draw rule applies.
    Ongoing,
    /// The side to move is checkmated; the other side wins.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// 50 moves by each side without capture or pawn move.
    FiftyMoves,
    /// The same position for the third time.
    Repetition,
    /// Only K v K, K+N v K or K+B v K remain.
    DeadMaterial,
}

impl GameState {
    /// Whether the game has ended.
    pub fn is_over(self) -> bool {
        self != GameState::Ongoing
    }

    /// Whether the game ended drawn.
    pub fn is_draw(self) -> bool {
        !matches!(self, GameState::Ongoing | GameState::Checkmate)
    }
}

/// What [`Position::make`] saves so that [`Position::unmake`] restores exactly.
#[derive(Clone, Copy, Debug)]
pub struct Undo {
    /// The pieces the move took off the board and put on it.
    changes: PieceChanges,
    captured: u8,
    castling: u8,
    en_passant: Option<EnPassant>,
    ep_hash: u64,
    halfmove: u16,
    key: u64,
    checkers: Bitboard,
}

/// The pieces a move took off the board and put on it, as [`Position::make`]
/// records them ([`Undo::changes`]): what an incrementally kept evaluation updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceChanges {
    /// The pieces with their squares: `removed` taken off first, then the ones put on.
    list: [(Piece, Square); 5],
    removed: u8,
    added: u8,
}

impl Default for PieceChanges {
    fn default() -> PieceChanges {
        let none = (Piece::new(Color::White, PieceKind::Pawn), Square::from_index_unchecked(0));
        PieceChanges { list: [none; 5], removed: 0, added: 0 }
    }
}

impl PieceChanges {
    /// Pieces taken off, with the squares they leave (the mover, a victim or a castling rook).
    #[inline(always)]
    pub fn removed(&self) -> &[(Piece, Square)] {
        &self.list[..usize::from(self.removed)]
    }

    /// Pieces put on, with their squares (the mover or its promotion, and a castling rook).
    #[inline(always)]
    pub fn added(&self) -> &[(Piece, Square)] {
        &self.list[3..3 + usize::from(self.added)]
    }

    /// Records a piece taken off `sq` (at most three a move).
    #[inline(always)]
    fn remove(&mut self, p: Piece, sq: Square) {
        self.list[usize::from(self.removed)] = (p, sq);
        self.removed += 1;
    }

    /// Records a piece put on `sq` (at most two a move).
    #[inline(always)]
    fn add(&mut self, p: Piece, sq: Square) {
        self.list[3 + usize::from(self.added)] = (p, sq);
        self.added += 1;
    }
}

impl Undo {
    /// The pieces the move took off the board and put on it.
    #[inline(always)]
    pub fn changes(&self) -> &PieceChanges {
        &self.changes
    }
}

/// A position of either variant.
#[derive(Clone)]
pub struct Position {
    pub(crate) variant: Variant,
    pub(crate) rules: &'static Rules,
    pub(crate) by_color: [Bitboard; 2],
    pub(crate) by_kind: [Bitboard; PieceKind::COUNT],
    /// 0 empty, else `color << 3 | (kind + 1)`.
    pub(crate) board: [u8; 512],
    pub(crate) side: Color,
    pub(crate) castling: u8,
    /// The castling rules whose rights this position can hold, by right bit.
    pub(crate) castles: [Option<CastleRule>; 8],
    pub(crate) en_passant: Option<EnPassant>,
    /// The part of `key` that the en-passant state contributes.
    pub(crate) ep_hash: u64,
    pub(crate) halfmove: u16,
    pub(crate) fullmove: u32,
    pub(crate) key: u64,
    /// Keys of the earlier positions of the game, oldest first.
    pub(crate) history: Vec<u64>,
    /// The enemy pieces giving check to the side to move (kept by make/unmake).
    pub(crate) checkers: Bitboard,
    /// The Zobrist key of the pawns alone (kept by make/unmake).
    pub(crate) pawn_key: u64,
    /// `lines[line]`: the squares of each line of the board (see
    /// [`Geometry::line_ref`]) that hold a piece, bit i for position i,
    /// White's in the low byte, Black's in the high byte (kept by
    /// make/unmake; [`LINE_SLOTS`] entries so that a masked line number
    /// needs no bounds check).
    pub(crate) lines: [u16; LINE_SLOTS],
}

/// Entries of [`Position::lines`]: the power of two above [`MAX_LINES`].
const LINE_SLOTS: usize = MAX_LINES.next_power_of_two();

impl PartialEq for Position {
    /// Equal when every piece, the side to move, the rights, the en-passant
    /// state, the clocks, the key and the history agree (the variant too).
    /// The castling rule of a right no longer held is left out: `make` keeps
    /// it when the right is lost, a FEN without the right never had it.
    fn eq(&self, other: &Position) -> bool {
        let held = |i: usize| self.castling & (1 << i) != 0;
        self.variant == other.variant
            && self.by_color == other.by_color
            && self.by_kind == other.by_kind
            && self.board == other.board
            && self.side == other.side
            && self.castling == other.castling
            && (0..self.castles.len()).all(|i| !held(i) || self.castles[i] == other.castles[i])
            && self.en_passant == other.en_passant
            && self.ep_hash == other.ep_hash
            && self.halfmove == other.halfmove
            && self.fullmove == other.fullmove
            && self.key == other.key
            && self.history == other.history
            && self.checkers == other.checkers
            && self.lines == other.lines
    }
}

impl Eq for Position {}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({} [{}])", self.fen(), self.variant)
    }
}

/// The nearest occupied square from `sq` along direction `d`: the step the
/// 26-direction attack walks share.
#[inline(always)]
pub(crate) fn first_occupied(r: &Rules, occ: Bitboard, sq: Square, d: usize) -> Option<Square> {
    r.geometry.ray_squares(sq, d).iter().copied().find(|&s| occ.has(s))
}

/// Whether the piece with mailbox code `v` (not empty) slides along
/// direction `d`: the raw direction decoding of the ray walks in one place.
#[inline(always)]
pub(crate) fn slides_code(r: &Rules, d: usize, v: u8) -> bool {
    r.slides_along[d] >> ((v & 7) - 1) & 1 != 0
}

#[inline]
const fn encode(p: Piece) -> u8 {
    (p.color as u8) << 3 | (p.kind as u8 + 1)
}

#[inline]
fn decode(v: u8) -> Option<Piece> {
    if v == 0 {
        return None;
    }
    let kind = PieceKind::from_index((v & 7) as usize - 1)?;
    let color = if v >> 3 == 0 { Color::White } else { Color::Black };
    Some(Piece::new(color, kind))
}

impl Position {
    /// An empty board of `variant` with White to move and no rights.
    pub(crate) fn empty(variant: Variant) -> Position {
        Position {
            variant,
            rules: variant.rules(),
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; PieceKind::COUNT],
            board: [0; 512],
            side: Color::White,
            castling: 0,
            castles: [None; 8],
            en_passant: None,
            ep_hash: 0,
            halfmove: 0,
            fullmove: 1,
            key: 0,
            history: Vec::new(),
            checkers: Bitboard::EMPTY,
            pawn_key: 0,
            lines: [0; LINE_SLOTS],
        }
    }

    /// `pieces` on an empty board of `variant`, `side` to move, no castling
    /// rights, no en passant, the clocks at zero; `None` unless the
    /// placement is a legal position: every square taken once, one king a
    /// side, no pawn on a last rank, the side not to move not in check (the
    /// tablebase generator's positions, built without a FEN).
    pub(crate) fn from_pieces(variant: Variant, side: Color, pieces: &[(Square, Piece)]) -> Option<Position> {
        let mut pos = Position::empty(variant);
        let last_ranks = Bitboard::rank(0) | Bitboard::rank(7);
        for &(sq, p) in pieces {
            if pos.board[sq.index()] != 0
                || sq.layer() >= variant.layers
                || !pos.rules.has_kind(p.kind)
                || (p.kind == PieceKind::Pawn && last_ranks.has(sq))
            {
                return None;
            }
            pos.put(sq, p);
        }
        if Color::ALL.iter().any(|&c| pos.pieces(c, PieceKind::King).count() != 1) {
            return None;
        }
        pos.side = side;
        if pos.is_attacked(pos.king(!side), side) {
            return None;
        }
        pos.ep_hash = pos.compute_ep_hash();
        pos.key = pos.compute_key();
        pos.refresh_checkers();
        Some(pos)
    }

    /// The start position of `variant`.
    pub fn start(variant: Variant) -> Position {
        Position::from_fen(&variant.start_fen(), variant).expect("every variant's start FEN is valid")
    }

    /// The variant being played.
    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// The variant's move tables.
    pub fn rules(&self) -> &'static Rules {
        self.rules
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        decode(self.board[sq.index()])
    }

    /// All pieces of a colour.
    #[inline]
    pub fn color_pieces(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    /// All pieces of a kind, both colours.
    #[inline]
    pub fn kind_pieces(&self, k: PieceKind) -> Bitboard {
        self.by_kind[k.index()]
    }

    /// The pieces of a colour and kind.
    #[inline]
    pub fn pieces(&self, c: Color, k: PieceKind) -> Bitboard {
        self.by_color[c.index()] & self.by_kind[k.index()]
    }

    /// Every occupied square.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The king of a colour (every valid position has exactly one).
    #[inline]
    pub fn king(&self, c: Color) -> Square {
        self.pieces(c, PieceKind::King).first().unwrap_or(Square::new(0, 0, 0))
    }

    /// The castling rights as bits (see [`crate::core::variant::castle_bit`]).
    pub fn castling_rights(&self) -> u8 {
        self.castling
    }

    /// The en-passant state, if the last move was a double step and en passant is in force.
    pub fn en_passant(&self) -> Option<&EnPassant> {
        self.en_passant.as_ref()
    }

    /// Half-moves since the last capture or pawn move.
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove
    }

    /// The move number, starting at 1 and increased after Black's move.
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    /// The Zobrist key (pieces, side, castling rights and usable en-passant squares).
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The castling rule a right bit stands for in this position, if any.
    pub fn castle_rule(&self, bit: usize) -> Option<&CastleRule> {
        self.castles.get(bit).and_then(|r| r.as_ref())
    }

    /// Places a piece on an empty square (setup only; the key is recomputed later).
    pub(crate) fn put(&mut self, sq: Square, p: Piece) {
        self.board[sq.index()] = encode(p);
        self.by_color[p.color.index()].set(sq);
        self.by_kind[p.kind.index()].set(sq);
        self.toggle_lines(sq, p.color);
        self.toggle_pawn_key(p, Zobrist::get().piece(p.color, p.kind, sq));
    }

    /// Flips `sq` in the line occupancy of colour `c` on all of its lines.
    #[inline(always)]
    fn toggle_lines(&mut self, sq: Square, c: Color) {
        for b in self.rules.geometry.line_bits(sq, c.index()) {
            self.lines[b.line as usize & (LINE_SLOTS - 1)] ^= b.bit;
        }
    }

    /// The occupancy of the line `r` points into: White's pieces in the low
    /// byte, Black's in the high byte.
    #[inline(always)]
    pub(crate) fn line_occupancy(&self, r: LineRef) -> u16 {
        self.lines[r.line as usize & (LINE_SLOTS - 1)]
    }

    /// Toggles a pawn arriving on or leaving its square (Zobrist key `z`) in the pawn key.
    #[inline(always)]
    fn toggle_pawn_key(&mut self, p: Piece, z: u64) {
        if p.kind == PieceKind::Pawn {
            self.pawn_key ^= z;
        }
    }

    #[inline(always)]
    fn add_piece(&mut self, sq: Square, p: Piece) {
        self.board[sq.index()] = encode(p);
        self.by_color[p.color.index()].toggle(sq);
        self.by_kind[p.kind.index()].toggle(sq);
        self.toggle_lines(sq, p.color);
        let z = Zobrist::get().piece(p.color, p.kind, sq);
        self.key ^= z;
        self.toggle_pawn_key(p, z);
    }

    #[inline(always)]
    fn remove_piece(&mut self, sq: Square, p: Piece) {
        self.board[sq.index()] = 0;
        self.by_color[p.color.index()].toggle(sq);
        self.by_kind[p.kind.index()].toggle(sq);
        self.toggle_lines(sq, p.color);
        let z = Zobrist::get().piece(p.color, p.kind, sq);
        self.key ^= z;
        self.toggle_pawn_key(p, z);
    }

    /// The Zobrist key of the pawns alone, kept by make/unmake.
    #[inline]
    pub fn pawn_key(&self) -> u64 {
        self.pawn_key
    }

    /// The pawn key counted from the board (it must always equal [`Position::pawn_key`]).
    pub fn compute_pawn_key(&self) -> u64 {
        let z = Zobrist::get();
        let pawns = self.occupied().into_iter().filter_map(|sq| self.piece_at(sq).map(|p| (p, sq)));
        pawns.filter(|(p, _)| p.kind == PieceKind::Pawn).fold(0, |k, (p, sq)| k ^ z.piece(p.color, p.kind, sq))
    }

    /// Whether the incremental line occupancy equals the one counted from
    /// the board (it must always).
    pub fn lines_agree(&self) -> bool {
        let g = self.rules.geometry;
        let mut lines = [0u16; LINE_SLOTS];
        for c in Color::ALL {
            for sq in self.by_color[c.index()] {
                for r in g.line_refs(sq) {
                    lines[r.line as usize] |= 1 << (r.pos as usize + 8 * c.index());
                }
            }
        }
        lines == self.lines
    }

    #[inline]
    fn move_piece(&mut self, from: Square, to: Square, p: Piece) {
        self.remove_piece(from, p);
        self.add_piece(to, p);
    }

    /// The key after the legal move `m`, as far as the moving piece and the
    /// piece it captures on its target decide it: the key [`Position::make`]
    /// gives for every move that changes no castling right, creates no
    /// en-passant state and is no castling or en passant. A hint for loading
    /// the child's table entry while the move is still being made.
    #[inline]
    pub fn key_after(&self, m: Move) -> u64 {
        let z = Zobrist::get();
        let (from, to) = (m.from(), m.to());
        let mut k = self.key ^ self.ep_hash ^ z.side();
        if let Some(p) = decode(self.board[from.index()]) {
            k ^= z.piece(p.color, p.kind, from) ^ z.piece(p.color, m.promotion_kind().unwrap_or(p.kind), to);
        }
        if m.flag() == MoveFlag::Normal
            && let Some(c) = decode(self.board[to.index()])
        {
            k ^= z.piece(c.color, c.kind, to);
        }
        k
    }

    /// The key computed from scratch (the incremental key must always equal it).
    pub fn compute_key(&self) -> u64 {
        let z = Zobrist::get();
        let mut k = 0;
        for sq in self.occupied() {
            if let Some(p) = self.piece_at(sq) {
                k ^= z.piece(p.color, p.kind, sq);
            }
        }
        if self.side == Color::Black {
            k ^= z.side();
        }
        k ^ z.castling(self.castling) ^ self.compute_ep_hash()
    }

    /// The key part of the en-passant squares the side to move can legally use;
    /// a recorded square no pawn can use does not make positions different.
    pub(crate) fn compute_ep_hash(&self) -> u64 {
        let Some(ep) = self.en_passant else { return 0 };
        let us = self.side;
        let mut h = 0;
        for &t in ep.targets() {
            let capturers = self.rules.pawn_captures[(!us).index()][t.index()] & self.pieces(us, PieceKind::Pawn);
            if capturers.into_iter().any(|p| self.ep_is_legal(p, t, ep.victim)) {
                h ^= Zobrist::get().en_passant(t);
            }
        }
        h
    }

    /// Whether our pawn on `from` may capture en passant onto `to`, taking the
    /// pawn on `victim`, without leaving our king attacked.
    pub(crate) fn ep_is_legal(&self, from: Square, to: Square, victim: Square) -> bool {
        let us = self.side;
        let mut occ = self.occupied();
        occ.clear(from);
        occ.clear(victim);
        occ.set(to);
        let gone = Bitboard::from(victim);
        !self.is_attacked_with(self.king(us), !us, occ, gone)
    }

    /// Whether `sq` is attacked by a piece of `by` with the current occupancy.
    #[inline]
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        self.is_attacked_with(sq, by, self.occupied(), Bitboard::EMPTY)
    }

    /// Whether `sq` is attacked by `by` if the board were occupied as `occ`,
    /// ignoring attackers on `gone` (for king moves and en passant).
    #[inline(always)]
    pub(crate) fn is_attacked_with(&self, sq: Square, by: Color, occ: Bitboard, gone: Bitboard) -> bool {
        let r = self.rules;
        let theirs = self.by_color[by.index()] - gone;
        let i = sq.index();
        if (r.knight[i] & theirs & self.by_kind[PieceKind::Knight.index()]).any()
            || (r.king[i] & theirs & self.by_kind[PieceKind::King.index()]).any()
            || (r.pawn_captures[(!by).index()][i] & theirs & self.by_kind[PieceKind::Pawn.index()]).any()
        {
            return true;
        }
        // From each of their sliders on a line through `sq` (few, where the
        // 26 rays from `sq` are many squares), whether it is the first piece
        // on that line and slides along it.
        for s in self.sliders() & theirs & occ & r.lines(sq) {
            if let Some(d) = Geometry::direction(sq, s)
                && slides_code(r, d, self.board[s.index()])
                && first_occupied(r, occ, sq, d) == Some(s)
            {
                return true;
            }
        }
        false
    }

    /// The sliding kinds `c` has on the board (bit `1 << kind`), the mask
    /// that [`crate::core::variant::Rules::slides_along`] is read against.
    #[inline]
    pub fn slider_kinds(&self, c: Color) -> u8 {
        PieceKind::SLIDERS.iter().filter(|&&k| self.pieces(c, k).any()).fold(0u8, |acc, &k| acc | 1 << k.index())
    }

    /// Every piece of a sliding kind, both colours.
    #[inline]
    pub(crate) fn sliders(&self) -> Bitboard {
        self.by_kind[PieceKind::Bishop.index()]
            | self.by_kind[PieceKind::Rook.index()]
            | self.by_kind[PieceKind::Duke.index()]
            | self.by_kind[PieceKind::Queen.index()]
    }

    /// The pieces of `by` that attack `sq` (occupancy as it stands).
    pub fn attackers(&self, sq: Square, by: Color) -> Bitboard {
        let r = self.rules;
        let theirs = self.by_color[by.index()];
        let i = sq.index();
        let mut out = (r.knight[i] & self.by_kind[PieceKind::Knight.index()])
            | (r.king[i] & self.by_kind[PieceKind::King.index()])
            | (r.pawn_captures[(!by).index()][i] & self.by_kind[PieceKind::Pawn.index()]);
        out &= theirs;
        let occ = self.occupied();
        for d in 0..NUM_DIRS {
            if let Some(s) = first_occupied(r, occ, sq, d)
                && theirs.has(s)
                && slides_code(r, d, self.board[s.index()])
            {
                out.set(s);
            }
        }
        out
    }

    /// The enemy pieces giving check to the side to move (computed once per move).
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.checkers.any()
    }

    /// Recomputes the checkers from scratch (after setting up a position).
    pub(crate) fn refresh_checkers(&mut self) {
        self.checkers = self.attackers(self.king(self.side), !self.side);
    }

    /// The castling rule of this position whose king moves `from` → `to`.
    #[inline]
    pub(crate) fn castle_move_rule(&self, from: Square, to: Square) -> Option<CastleRule> {
        self.castles.iter().flatten().find(|r| r.king_from == from && r.king_to == to).copied()
    }

    /// The state that make/unmake must restore, before a move changes it.
    #[inline]
    fn snapshot(&self) -> Undo {
        Undo {
            changes: PieceChanges::default(),
            captured: 0,
            castling: self.castling,
            en_passant: self.en_passant,
            ep_hash: self.ep_hash,
            halfmove: self.halfmove,
            key: self.key,
            checkers: self.checkers,
        }
    }

    /// Plays a legal move (trusted: from the move generator). Returns what
    /// [`Position::unmake`] needs to take it back.
    pub fn make(&mut self, m: Move) -> Undo {
        let z = Zobrist::get();
        let mut undo = self.snapshot();
        self.history.push(self.key);
        self.key ^= self.ep_hash ^ z.side();
        self.ep_hash = 0;
        self.en_passant = None;
        let us = self.side;
        let (from, to) = (m.from(), m.to());
        let Some(piece) = self.piece_at(from) else {
            // Not reachable from generated moves; keep the position consistent anyway.
            self.side = !us;
            self.refresh_checkers();
            return undo;
        };
        // Saturating: a clock at its ceiling still says "fifty moves are over".
        self.halfmove = self.halfmove.saturating_add(1);
        match m.flag() {
            MoveFlag::Castle => {
                if let Some(rule) = self.castle_move_rule(from, to) {
                    let rook = Piece::new(us, PieceKind::Rook);
                    self.remove_piece(rule.rook_from, rook);
                    self.move_piece(from, to, piece);
                    self.add_piece(rule.rook_to, rook);
                    undo.changes.remove(piece, from);
                    undo.changes.remove(rook, rule.rook_from);
                    undo.changes.add(piece, to);
                    undo.changes.add(rook, rule.rook_to);
                }
            }
            MoveFlag::EnPassant => {
                if let Some(ep) = undo.en_passant {
                    let victim = Piece::new(!us, PieceKind::Pawn);
                    undo.captured = encode(victim);
                    self.remove_piece(ep.victim, victim);
                    undo.changes.remove(victim, ep.victim);
                }
                self.move_piece(from, to, piece);
                undo.changes.remove(piece, from);
                undo.changes.add(piece, to);
                self.halfmove = 0;
            }
            MoveFlag::Normal => {
                if let Some(cap) = self.piece_at(to) {
                    undo.captured = encode(cap);
                    self.remove_piece(to, cap);
                    undo.changes.remove(cap, to);
                    self.halfmove = 0;
                }
                let placed = m.promotion_kind().map_or(piece, |k| Piece::new(us, k));
                self.remove_piece(from, piece);
                self.add_piece(to, placed);
                undo.changes.remove(piece, from);
                undo.changes.add(placed, to);
                if piece.kind == PieceKind::Pawn {
                    self.halfmove = 0;
                    if from.rank().abs_diff(to.rank()) == 2 && self.variant.en_passant {
                        self.en_passant = self.double_step_state(from, to);
                    }
                }
            }
        }
        if self.castling != 0 {
            let mut lost = 0;
            for rule in self.castles.iter().flatten() {
                if self.castling & rule.right != 0
                    && [rule.king_from, rule.rook_from].iter().any(|&s| s == from || s == to)
                {
                    lost |= rule.right;
                }
            }
            if lost != 0 {
                self.key ^= z.castling(self.castling) ^ z.castling(self.castling & !lost);
                self.castling &= !lost;
            }
        }
        if us == Color::Black {
            // The FEN caps the number at MAX_FULLMOVE, far below u32::MAX, so unmake's decrement stays exact.
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.side = !us;
        if self.en_passant.is_some() {
            self.ep_hash = self.compute_ep_hash();
            self.key ^= self.ep_hash;
        }
        self.checkers = self.checkers_after(m);
        undo
    }

    /// The en-passant state after a pawn's double step `from` → `to`: the
    /// passed-over squares (every free intermediate square of a two-path step).
    pub(super) fn double_step_state(&self, from: Square, to: Square) -> Option<EnPassant> {
        let f = (to.rank() as i8 - from.rank() as i8).signum();
        let dz = to.layer() as i8 - from.layer() as i8;
        let layers = self.variant.layers;
        let occ = self.occupied();
        let mut targets = arrayvec::ArrayVec::<Square, 2>::new();
        // Intermediate squares one rank on: straight, then the layer step halved or whole.
        let steps: &[i8] = match dz {
            0 => &[0],
            2 | -2 => &[dz / 2],
            _ => &[0, dz],
        };
        for &s in steps {
            if let Some(mid) = from.offset(0, f, s, layers)
                && !occ.has(mid)
            {
                targets.push(mid);
            }
        }
        if targets.is_empty() {
            return None;
        }
        targets.sort();
        Some(EnPassant::new(&targets, to))
    }

    /// Takes back `m`, restoring everything [`Position::make`] changed.
    pub fn unmake(&mut self, m: Move, undo: &Undo) {
        let them = self.side;
        let us = !them;
        self.side = us;
        if us == Color::Black {
            self.fullmove -= 1;
        }
        let (from, to) = (m.from(), m.to());
        if let Some(moved) = self.piece_at(to) {
            match m.flag() {
                MoveFlag::Castle => {
                    if let Some(rule) = self.castle_move_rule(from, to) {
                        let rook = Piece::new(us, PieceKind::Rook);
                        self.remove_piece(rule.rook_to, rook);
                        self.move_piece(to, from, moved);
                        self.add_piece(rule.rook_from, rook);
                    }
                }
                MoveFlag::EnPassant => {
                    self.move_piece(to, from, moved);
                    if let (Some(ep), Some(victim)) = (undo.en_passant, decode(undo.captured)) {
                        self.add_piece(ep.victim, victim);
                    }
                }
                MoveFlag::Normal => {
                    if m.promotion_kind().is_some() {
                        self.remove_piece(to, moved);
                        self.add_piece(from, Piece::new(us, PieceKind::Pawn));
                    } else {
                        self.move_piece(to, from, moved);
                    }
                    if let Some(cap) = decode(undo.captured) {
                        self.add_piece(to, cap);
                    }
                }
            }
        }
        self.castling = undo.castling;
        self.en_passant = undo.en_passant;
        self.ep_hash = undo.ep_hash;
        self.halfmove = undo.halfmove;
        self.key = undo.key;
        self.checkers = undo.checkers;
        self.history.pop();
    }

    /// Passes the move (for null-move search): no piece moves, the
    /// en-passant state lapses. Not legal when in check.
    pub fn make_null(&mut self) -> Undo {
        let undo = self.snapshot();
        self.history.push(self.key);
        self.key ^= self.ep_hash ^ Zobrist::get().side();
        self.ep_hash = 0;
        self.en_passant = None;
        self.halfmove = self.halfmove.saturating_add(1);
        self.side = !self.side;
        self.refresh_checkers();
        undo
    }

    /// Takes back [`Position::make_null`].
    pub fn unmake_null(&mut self, undo: &Undo) {
        self.side = !self.side;
        self.en_passant = undo.en_passant;
        self.ep_hash = undo.ep_hash;
        self.halfmove = undo.halfmove;
        self.key = undo.key;
        self.checkers = undo.checkers;
        self.history.pop();
    }

    /// Whether the current position occurred before since the last
    /// irreversible move, at least `times` times.
    pub fn repetitions(&self, times: usize) -> bool {
        let n = self.history.len();
        let reach = (self.halfmove as usize).min(n);
        let mut count = 0;
        let mut i = 2;
        while i <= reach {
            if self.history[n - i] == self.key {
                count += 1;
                if count >= times {
                    return true;
                }
            }
            i += 2;
        }
        false
    }

    /// Whether the position is drawn by threefold repetition.
    pub fn is_threefold(&self) -> bool {
        self.repetitions(2)
    }

    /// Whether no sequence of moves can end in mate any more: the kings
    /// alone, or a king and one piece against a king where the endgame
    /// tables prove that no position of that ending is mate (docs/rules.md,
    /// "Dead material"; docs/endgames.md): a knight or a bishop in both
    /// games, a rook in both games (haberkorn on every board from 3 to 8
    /// layers), a Duke in hdc.
    pub fn is_dead_material(&self) -> bool {
        let occ = self.occupied();
        match occ.count() {
            2 => true,
            3 => {
                let has = |k: PieceKind| self.by_kind[k.index()].any();
                has(PieceKind::Knight) || has(PieceKind::Bishop) || has(PieceKind::Rook) || has(PieceKind::Duke)
            }
            _ => false,
        }
    }

    /// The state of the game: mate and stalemate first (a mate given by the
    /// move that reaches the 50-move limit stands), then the automatic draws.
    pub fn game_state(&self) -> GameState {
        let no_moves = self.legal_moves().is_empty();
        if no_moves {
            return if self.in_check() { GameState::Checkmate } else { GameState::Stalemate };
        }
        if self.halfmove >= 100 {
            GameState::FiftyMoves
        } else if self.is_threefold() {
            GameState::Repetition
        } else if self.is_dead_material() {
            GameState::DeadMaterial
        } else {
            GameState::Ongoing
        }
    }

    /// Forgets the earlier positions (after setting up a position from outside).
    pub fn clear_history(&mut self) {
        self.history.clear();
    }

    /// Whether the variant is hdc.
    pub fn is_hdc(&self) -> bool {
        self.variant.kind == VariantKind::Hdc
    }
}
