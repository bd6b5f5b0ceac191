//! A variant described as data: how each kind moves, the pawn patterns, the
//! castling table, the promotion set and the board size. One move generator
//! reads these tables for `hdc` and for `haberkorn` on 3 to 8 layers.
//!
//! Also the games' names: [`VariantKind`], the one spelling of a game, and
//! [`PerGame`], one value per game (the tables that differ by game); and
//! [`Variant`], a game with its options, its standard setup and its start
//! position.

use super::bitboard::Bitboard;
use super::geometry::{DIRS, Geometry, NUM_DIRS, axis_of, dir_order, opposite, runs_up};
use super::piece::{Color, PieceKind};
use super::square::{NUM_SQUARES, ROMAN, Square};
use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::sync::OnceLock;
use thiserror::Error;

/// Which game is played.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum VariantKind {
    /// HyperDimension Chess: 8 layers, 79 pieces a side, the Duke.
    Hdc,
    /// Haberkorn's 3D space chess: 16 pieces a side on a chosen layer, 3 to 8 layers.
    Haberkorn,
}

/// The layer counts a haberkorn board may have (hdc always has 8).
pub const HABERKORN_LAYERS: RangeInclusive<u8> = 3..=8;

/// How many board sizes the per-variant tables are built for: hdc, then
/// haberkorn on each of [`HABERKORN_LAYERS`] (see [`Variant::table_index`]).
pub const TABLE_COUNT: usize = 1 + (*HABERKORN_LAYERS.end() - *HABERKORN_LAYERS.start()) as usize + 1;

impl VariantKind {
    /// How many games there are.
    pub const COUNT: usize = 2;
    /// Both games.
    pub const ALL: [VariantKind; VariantKind::COUNT] = [VariantKind::Hdc, VariantKind::Haberkorn];
    /// The protocol names of [`VariantKind::ALL`], in that order.
    pub const NAMES: [&'static str; VariantKind::COUNT] = ["hdc", "haberkorn"];

    /// The position in [`VariantKind::ALL`] (the index of a [`PerGame`]).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The protocol name: `hdc` or `haberkorn`.
    pub const fn name(self) -> &'static str {
        match self {
            VariantKind::Hdc => "hdc",
            VariantKind::Haberkorn => "haberkorn",
        }
    }

    /// The game's byte in data and network files: 0 hdc, 1 haberkorn.
    pub const fn byte(self) -> u8 {
        match self {
            VariantKind::Hdc => 0,
            VariantKind::Haberkorn => 1,
        }
    }

    /// The game of a file's game byte ([`VariantKind::byte`]); `None` for another byte.
    pub const fn from_byte(byte: u8) -> Option<VariantKind> {
        match byte {
            0 => Some(VariantKind::Hdc),
            1 => Some(VariantKind::Haberkorn),
            _ => None,
        }
    }
}

/// The setup layers (1-based) of a haberkorn board of `layers` layers when a
/// user names none (docs/rules.md, "Start position and constellations"):
/// IV and V from 5 layers up, as on the full board; on 3 or 4 layers White
/// on the middle layer, ceil(L/2), and Black on the one above (II and III).
pub const fn default_setup_layers(layers: u8) -> (u8, u8) {
    if layers >= 5 {
        (4, 5)
    } else {
        let white = layers.div_ceil(2);
        (white, if white < layers { white + 1 } else { layers })
    }
}

/// One value per game, indexed by [`VariantKind`]: the tables that differ
/// by game (tunables, networks, weights) hold one of these, so that a new
/// game extends the enum and the tables, not the code that reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PerGame<T>([T; VariantKind::COUNT]);

impl<T> PerGame<T> {
    /// The values in the order of [`VariantKind::ALL`].
    pub const fn new(values: [T; VariantKind::COUNT]) -> PerGame<T> {
        PerGame(values)
    }

    /// Each game's value made by `f`.
    pub fn from_fn(mut f: impl FnMut(VariantKind) -> T) -> PerGame<T> {
        PerGame(VariantKind::ALL.map(&mut f))
    }

    /// Each game with its value.
    pub fn iter(&self) -> impl Iterator<Item = (VariantKind, &T)> {
        VariantKind::ALL.into_iter().zip(&self.0)
    }

    /// Each game with its value, to change.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (VariantKind, &mut T)> {
        VariantKind::ALL.into_iter().zip(&mut self.0)
    }
}

impl<T: Copy> PerGame<T> {
    /// The value of `kind`, in a constant.
    pub const fn at(&self, kind: VariantKind) -> T {
        self.0[kind.index()]
    }
}

impl<T> std::ops::Index<VariantKind> for PerGame<T> {
    type Output = T;

    #[inline]
    fn index(&self, kind: VariantKind) -> &T {
        &self.0[kind.index()]
    }
}

impl<T> std::ops::IndexMut<VariantKind> for PerGame<T> {
    #[inline]
    fn index_mut(&mut self, kind: VariantKind) -> &mut T {
        &mut self.0[kind.index()]
    }
}

impl fmt::Display for VariantKind {
    /// The protocol name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for VariantKind {
    type Err = VariantError;

    /// Reads a protocol name (`hdc` or `haberkorn`), exactly.
    fn from_str(s: &str) -> Result<VariantKind, VariantError> {
        VariantKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| VariantError::UnknownName(s.to_string()))
    }
}

/// Why a variant could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VariantError {
    /// Unknown variant name.
    #[error("unknown variant '{0}' (expected hdc or haberkorn, optionally haberkorn+ep, +castling)")]
    UnknownName(String),
    /// Haberkorn layer count outside 3..=8.
    #[error("haberkorn needs 3 to 8 layers, not {0}")]
    Layers(u8),
    /// A setup layer that is not on the board.
    #[error("setup layer {0} is not on a board of {1} layers")]
    SetupLayer(u8, u8),
}

/// A game and its options: everything that decides the legal moves.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Variant {
    /// The game.
    pub kind: VariantKind,
    /// Layers of the board (always 8 in hdc).
    pub layers: u8,
    /// Haberkorn: the layer (0-based) White sets up on.
    pub white_layer: u8,
    /// Haberkorn: the layer (0-based) Black sets up on.
    pub black_layer: u8,
    /// Whether en passant is in force (always in hdc).
    pub en_passant: bool,
    /// Whether castling is in force (always in hdc).
    pub castling: bool,
}

impl Default for Variant {
    fn default() -> Variant {
        Variant::hdc()
    }
}

impl Variant {
    /// HyperDimension Chess.
    pub const fn hdc() -> Variant {
        Variant { kind: VariantKind::Hdc, layers: 8, white_layer: 3, black_layer: 3, en_passant: true, castling: true }
    }

    /// Haberkorn with the defaults: 8 layers, White on IV, Black on V, no en passant, no castling.
    pub const fn haberkorn() -> Variant {
        Variant {
            kind: VariantKind::Haberkorn,
            layers: 8,
            white_layer: 3,
            black_layer: 4,
            en_passant: false,
            castling: false,
        }
    }

    /// Each game as it is played by default (haberkorn: [`Variant::haberkorn`]).
    pub const fn standard(kind: VariantKind) -> Variant {
        const STANDARD: PerGame<Variant> = PerGame::new([Variant::hdc(), Variant::haberkorn()]);
        STANDARD.at(kind)
    }

    /// Haberkorn on `layers` layers with setup layers (1-based, as players count them) and options.
    pub fn haberkorn_with(
        layers: u8,
        white_layer: u8,
        black_layer: u8,
        en_passant: bool,
        castling: bool,
    ) -> Result<Variant, VariantError> {
        if !HABERKORN_LAYERS.contains(&layers) {
            return Err(VariantError::Layers(layers));
        }
        for l in [white_layer, black_layer] {
            if !(1..=layers).contains(&l) {
                return Err(VariantError::SetupLayer(l, layers));
            }
        }
        Ok(Variant {
            kind: VariantKind::Haberkorn,
            layers,
            white_layer: white_layer - 1,
            black_layer: black_layer - 1,
            en_passant,
            castling,
        })
    }

    /// Haberkorn from what a user gave: the layer count, the setup layers
    /// (1-based; each one not given is [`default_setup_layers`]'s) and the two
    /// optional rules. The command line, UCI, the GUI, the Python package and
    /// the data reader all build a haberkorn variant through this.
    pub fn haberkorn_from(
        layers: u8,
        white_layer: Option<u8>,
        black_layer: Option<u8>,
        en_passant: bool,
        castling: bool,
    ) -> Result<Variant, VariantError> {
        if !HABERKORN_LAYERS.contains(&layers) {
            return Err(VariantError::Layers(layers));
        }
        let (white, black) = default_setup_layers(layers);
        Variant::haberkorn_with(
            layers,
            white_layer.unwrap_or(white),
            black_layer.unwrap_or(black),
            en_passant,
            castling,
        )
    }

    /// Reads `hdc`, `haberkorn`, `haberkorn+ep`, `haberkorn+castling` or
    /// `haberkorn+ep+castling` (the perft-vector names), haberkorn on `layers` layers.
    pub fn from_spec(spec: &str, layers: u8) -> Result<Variant, VariantError> {
        let mut parts = spec.trim().split('+');
        let base = parts.next().unwrap_or("").parse::<VariantKind>();
        match base {
            Ok(VariantKind::Hdc) if spec.trim() == "hdc" => Ok(Variant::hdc()),
            Ok(VariantKind::Haberkorn) => {
                let mut v = Variant::haberkorn_from(layers, None, None, false, false)?;
                for p in parts {
                    match p {
                        "ep" => v.en_passant = true,
                        "castling" => v.castling = true,
                        _ => return Err(VariantError::UnknownName(spec.to_string())),
                    }
                }
                Ok(v)
            }
            _ => Err(VariantError::UnknownName(spec.to_string())),
        }
    }

    /// The same variant on another layer count (haberkorn only; hdc stays 8).
    pub fn with_layers(self, layers: u8) -> Result<Variant, VariantError> {
        match self.kind {
            VariantKind::Hdc if layers == 8 => Ok(self),
            VariantKind::Hdc => Err(VariantError::Layers(layers)),
            VariantKind::Haberkorn if HABERKORN_LAYERS.contains(&layers) => Ok(Variant {
                layers,
                white_layer: self.white_layer.min(layers - 1),
                black_layer: self.black_layer.min(layers - 1),
                ..self
            }),
            VariantKind::Haberkorn => Err(VariantError::Layers(layers)),
        }
    }

    /// Which of the [`TABLE_COUNT`] per-variant tables serves a game on a
    /// board of `layers` layers: 0 for hdc, then haberkorn by layer count.
    pub fn table_index(kind: VariantKind, layers: u8) -> usize {
        match kind {
            VariantKind::Hdc => 0,
            VariantKind::Haberkorn => {
                let (first, last) = (*HABERKORN_LAYERS.start(), *HABERKORN_LAYERS.end());
                1 + (layers.clamp(first, last) - first) as usize
            }
        }
    }

    /// The move tables of this variant, built once.
    pub fn rules(&self) -> &'static Rules {
        static TABLES: [OnceLock<Rules>; TABLE_COUNT] = [const { OnceLock::new() }; TABLE_COUNT];
        let layers = match self.kind {
            VariantKind::Hdc => 8,
            VariantKind::Haberkorn => self.layers.clamp(*HABERKORN_LAYERS.start(), *HABERKORN_LAYERS.end()),
        };
        TABLES[Variant::table_index(self.kind, layers)].get_or_init(|| Rules::build(self.kind, layers))
    }

    /// The 3D-FEN of the start position.
    pub fn start_fen(&self) -> String {
        match self.kind {
            VariantKind::Hdc => HDC_START_FEN.to_string(),
            VariantKind::Haberkorn => {
                let layers: Vec<String> = (0..self.layers)
                    .map(|z| {
                        let black = z == self.black_layer;
                        let white = z == self.white_layer;
                        let top = if black { "rnbqkbnr/pppppppp" } else { "8/8" };
                        let bottom = if white { "PPPPPPPP/RNBQKBNR" } else { "8/8" };
                        format!("{top}/8/8/8/8/{bottom}")
                    })
                    .collect();
                let castling = if self.castling { "KQkq" } else { "-" };
                format!("{} w {castling} - 0 1", layers.join("|"))
            }
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            VariantKind::Hdc => write!(f, "hdc"),
            VariantKind::Haberkorn => {
                write!(
                    f,
                    "haberkorn ({} layers, White on {}, Black on {}",
                    self.layers, ROMAN[self.white_layer as usize], ROMAN[self.black_layer as usize]
                )?;
                if self.en_passant {
                    write!(f, ", en passant")?;
                }
                if self.castling {
                    write!(f, ", castling")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// The start position of HyperDimension Chess.
pub const HDC_START_FEN: &str = "4r3/pppppppp/8/8/8/8/PPPPPPPP/4R3|4n3/pppppppp/8/8/8/8/PPPPPPPP/4N3|\
4b3/pppppppp/8/8/8/8/PPPPPPPP/4B3|rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR|\
4d3/pppppppp/8/8/8/8/PPPPPPPP/4D3|4b3/pppppppp/8/8/8/8/PPPPPPPP/4B3|\
4n3/pppppppp/8/8/8/8/PPPPPPPP/4N3|4r3/pppppppp/8/8/8/8/PPPPPPPP/4R3 w KQLUkqlu - 0 1";

/// One castling move: which right it uses and which squares it needs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CastleRule {
    /// The castling-right bit (see [`castle_bit`]).
    pub right: u8,
    /// The side that castles.
    pub color: Color,
    /// Where the king starts.
    pub king_from: Square,
    /// Where the king lands.
    pub king_to: Square,
    /// Where the rook starts.
    pub rook_from: Square,
    /// Where the rook lands.
    pub rook_to: Square,
    /// Squares that must be empty.
    pub empty: Bitboard,
    /// Squares the king crosses or lands on, which must not be attacked.
    pub safe: Bitboard,
}

/// The castling kinds in FEN-letter order: `K` O-O, `Q` O-O-O, `L` O-Oz, `U` O-O-Oz.
pub const CASTLE_LETTERS: [char; 4] = ['K', 'Q', 'L', 'U'];

/// The castling-right bit of `color` and kind index (0 K, 1 Q, 2 L, 3 U).
pub const fn castle_bit(color: Color, kind: usize) -> u8 {
    1 << (color as usize * 4 + kind)
}

/// The move tables of one variant on one layer count.
pub struct Rules {
    /// The game.
    pub kind: VariantKind,
    /// Rays and lines of the board.
    pub geometry: &'static Geometry,
    /// `slider_dirs[kind]`: the directions that kind slides in (empty for leapers).
    pub slider_dirs: [Vec<usize>; PieceKind::COUNT],
    /// `slides_along[d]`: the kinds (bit `1 << kind`) that slide along direction `d`.
    pub slides_along: [u8; NUM_DIRS],
    /// `slider_axes[kind]`: the line axes that kind slides along, both ways
    /// (every sliding kind of both games slides along a direction and its
    /// opposite), one run in the order of `crate::core::geometry::AXIS_DIRS`;
    /// empty for leapers.
    pub slider_axes: [std::ops::Range<usize>; PieceKind::COUNT],
    /// `axes_by_kinds[kinds]`: see [`Rules::axes_of`].
    axes_by_kinds: [u16; 1 << PieceKind::COUNT],
    /// `slider_lines[kind][sq]`: every square on a ray from `sq` along a
    /// direction `kind` slides in (empty sets for leapers), so that a slider that
    /// could attack `sq` on an empty board is found with one mask.
    pub slider_lines: [Vec<Bitboard>; PieceKind::COUNT],
    /// `slider_rays[kind][ray_starts[kind][sq]..ray_starts[kind][sq + 1]]`:
    /// the rays `kind` slides along from `sq`, in direction order, nearest
    /// square first, the empty ones (off the board's edge) left out; read
    /// through [`Rules::slider_rays`].
    slider_rays: [Vec<&'static [Square]>; PieceKind::COUNT],
    /// Where each square's rays start in `slider_rays` (one entry more than squares).
    ray_starts: [Vec<u32>; PieceKind::COUNT],
    /// `ray_dirs[kind][j]`: the direction of `slider_rays[kind][j]`.
    ray_dirs: [Vec<u8>; PieceKind::COUNT],
    /// Knight targets from each square.
    pub knight: Vec<Bitboard>,
    /// King targets from each square.
    pub king: Vec<Bitboard>,
    /// `pawn_captures[color][sq]`: squares a pawn of `color` on `sq` captures onto.
    pub pawn_captures: [Vec<Bitboard>; 2],
    /// Pawn capture vectors (dx, dz), rank step being the colour's forward.
    pub pawn_capture_vectors: &'static [(i32, i32)],
    /// Pawn single-step layer changes dz (rank step forward, file fixed).
    pub pawn_push_layers: &'static [i32],
    /// What a pawn may promote to, best first.
    pub promotions: &'static [PieceKind],
    /// Every castling move this variant knows, for both colours.
    pub castles: Vec<CastleRule>,
}

const HDC_PAWN_CAPTURES: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];
const HABERKORN_PAWN_CAPTURES: [(i32, i32); 6] = [(-1, 0), (1, 0), (-1, -1), (1, -1), (-1, 1), (1, 1)];

impl Rules {
    fn build(kind: VariantKind, layers: u8) -> Rules {
        let geometry = Geometry::get(layers);
        let mut slider_dirs: [Vec<usize>; PieceKind::COUNT] = Default::default();
        for (d, &(_, _, dz)) in DIRS.iter().enumerate() {
            let order = dir_order(d);
            let stair = order == 2 && dz != 0;
            let flat_diag = order == 2 && dz == 0;
            let (rook, bishop) = match kind {
                VariantKind::Hdc => (order == 1, order == 2),
                VariantKind::Haberkorn => (order == 1 || stair, flat_diag || order == 3),
            };
            if rook {
                slider_dirs[PieceKind::Rook.index()].push(d);
            }
            if bishop {
                slider_dirs[PieceKind::Bishop.index()].push(d);
            }
            if kind == VariantKind::Hdc && order <= 2 {
                slider_dirs[PieceKind::Duke.index()].push(d);
            }
            slider_dirs[PieceKind::Queen.index()].push(d);
        }
        let mut slides_along = [0u8; NUM_DIRS];
        for (k, dirs) in slider_dirs.iter().enumerate() {
            for &d in dirs {
                slides_along[d] |= 1 << k;
            }
        }
        debug_assert!((0..NUM_DIRS).all(|d| slides_along[d] == slides_along[opposite(d)]));
        let slider_axes = std::array::from_fn(|k| {
            let axes: Vec<usize> = slider_dirs[k].iter().filter(|&&d| runs_up(d)).map(|&d| axis_of(d)).collect();
            let (lo, hi) = (axes.iter().min().copied().unwrap_or(0), axes.iter().max().map_or(0, |&a| a + 1));
            debug_assert_eq!(hi - lo, axes.len(), "kind {k}: its axes are not one run");
            lo..hi
        });
        let axes_by_kinds = std::array::from_fn(|kinds| {
            PieceKind::SLIDERS.iter().filter(|k| kinds >> k.index() & 1 != 0).fold(0u16, |acc, k| {
                let axes: &std::ops::Range<usize> = &slider_axes[k.index()];
                acc | ((1u32 << axes.end) - (1u32 << axes.start)) as u16
            })
        });
        let slider_lines = std::array::from_fn(|k| {
            let dirs: &[usize] = &slider_dirs[k];
            (0..NUM_SQUARES)
                .map(|i| {
                    let s = Square::from_index_unchecked(i);
                    dirs.iter().fold(Bitboard::EMPTY, |acc, &d| acc | geometry.ray(d, s))
                })
                .collect()
        });
        let mut ray_starts: [Vec<u32>; PieceKind::COUNT] = Default::default();
        let mut ray_dirs: [Vec<u8>; PieceKind::COUNT] = Default::default();
        let slider_rays = std::array::from_fn(|k| {
            let mut rays: Vec<&'static [Square]> = Vec::new();
            for i in 0..NUM_SQUARES {
                ray_starts[k].push(rays.len() as u32);
                let s = Square::from_index_unchecked(i);
                for &d in &slider_dirs[k] {
                    let ray = geometry.ray_squares(s, d);
                    if !ray.is_empty() {
                        rays.push(ray);
                        ray_dirs[k].push(d as u8);
                    }
                }
            }
            ray_starts[k].push(rays.len() as u32);
            rays
        });
        let knight_vectors: Vec<(i8, i8, i8)> = knight_vectors(kind);
        let leaper = |vectors: &[(i8, i8, i8)]| -> Vec<Bitboard> {
            (0..NUM_SQUARES)
                .map(|i| {
                    let s = Square::from_index_unchecked(i);
                    if !geometry.board.has(s) {
                        return Bitboard::EMPTY;
                    }
                    vectors.iter().filter_map(|&(x, y, z)| s.offset(x, y, z, layers)).collect()
                })
                .collect()
        };
        let pawn_capture_vectors: &'static [(i32, i32)] = match kind {
            VariantKind::Hdc => &HDC_PAWN_CAPTURES,
            VariantKind::Haberkorn => &HABERKORN_PAWN_CAPTURES,
        };
        let pawn_captures = Color::ALL.map(|c| {
            let f = c.forward() as i8;
            let v: Vec<(i8, i8, i8)> = pawn_capture_vectors.iter().map(|&(x, z)| (x as i8, f, z as i8)).collect();
            leaper(&v)
        });
        Rules {
            kind,
            geometry,
            slider_dirs,
            slides_along,
            slider_axes,
            axes_by_kinds,
            slider_lines,
            slider_rays,
            ray_starts,
            ray_dirs,
            knight: leaper(&knight_vectors),
            king: leaper(&DIRS),
            pawn_captures,
            pawn_capture_vectors,
            pawn_push_layers: match kind {
                VariantKind::Hdc => &[0],
                VariantKind::Haberkorn => &[0, 1, -1],
            },
            promotions: match kind {
                VariantKind::Hdc => {
                    &[PieceKind::Queen, PieceKind::Duke, PieceKind::Rook, PieceKind::Bishop, PieceKind::Knight]
                }
                VariantKind::Haberkorn => &[PieceKind::Queen, PieceKind::Rook, PieceKind::Bishop, PieceKind::Knight],
            },
            castles: castle_rules(kind, layers),
        }
    }

    /// The board's layer count.
    pub fn layers(&self) -> u8 {
        self.geometry.layers
    }

    /// Every square on one of the 26 lines through `sq` (the queen slides
    /// along all of them in both games): where any slider that could reach
    /// `sq` on an empty board stands.
    #[inline]
    pub fn lines(&self, sq: Square) -> Bitboard {
        self.slider_lines[PieceKind::Queen.index()][sq.index()]
    }

    /// The rays a `kind` on `sq` slides along that hold at least one square
    /// (in direction order, nearest square first; none for leapers): the
    /// walks of move generation and mobility skip the edge's empty rays.
    #[inline]
    pub fn slider_rays(&self, kind: PieceKind, sq: Square) -> &[&'static [Square]] {
        &self.slider_rays[kind.index()][self.ray_range(kind, sq)]
    }

    /// [`Rules::slider_rays`] and, beside them, the direction of each ray.
    #[inline]
    pub fn slider_rays_and_dirs(&self, kind: PieceKind, sq: Square) -> (&[&'static [Square]], &[u8]) {
        let range = self.ray_range(kind, sq);
        let k = kind.index();
        (&self.slider_rays[k][range.clone()], &self.ray_dirs[k][range])
    }

    /// Where the rays of a `kind` on `sq` lie in `slider_rays` and `ray_dirs`.
    #[inline]
    fn ray_range(&self, kind: PieceKind, sq: Square) -> std::ops::Range<usize> {
        let (starts, i) = (&self.ray_starts[kind.index()], sq.index());
        starts[i] as usize..starts[i + 1] as usize
    }

    /// The axes (bit `1 << axis`) along which some kind in `kinds` (bit
    /// `1 << kind`, as `Position::slider_kinds` gives) slides.
    #[inline]
    pub fn axes_of(&self, kinds: u8) -> u16 {
        self.axes_by_kinds[kinds as usize & ((1 << PieceKind::COUNT) - 1)]
    }

    /// Whether a piece of `kind` slides along direction `d`.
    #[inline]
    pub fn slides(&self, kind: PieceKind, d: usize) -> bool {
        self.slides_along[d] >> kind.index() & 1 != 0
    }

    /// Whether pieces of `kind` may stand in this variant.
    pub fn has_kind(&self, kind: PieceKind) -> bool {
        kind != PieceKind::Duke || self.kind == VariantKind::Hdc
    }

    /// The castling letters this variant accepts in a FEN (`KQLU` or `KQ`).
    pub fn castle_letters(&self) -> &'static [char] {
        match self.kind {
            VariantKind::Hdc => &CASTLE_LETTERS,
            VariantKind::Haberkorn => &CASTLE_LETTERS[..2],
        }
    }
}

fn knight_vectors(kind: VariantKind) -> Vec<(i8, i8, i8)> {
    let mut out = Vec::new();
    for x in -2i8..=2 {
        for y in -2i8..=2 {
            for z in -2i8..=2 {
                let mut a = [x.abs(), y.abs(), z.abs()];
                a.sort();
                let ok = match kind {
                    // Every permutation of (±1, ±2, 0).
                    VariantKind::Hdc => a == [0, 1, 2],
                    // Classical L on a layer, the same one layer up or down, and
                    // two layers with one step sideways along a file or rank.
                    VariantKind::Haberkorn => {
                        (z == 0 && a == [0, 1, 2])
                            || (z.abs() == 1 && a == [1, 1, 2] && x.abs() + y.abs() == 3)
                            || (z.abs() == 2 && x.abs() + y.abs() == 1)
                    }
                };
                if ok {
                    out.push((x, y, z));
                }
            }
        }
    }
    out
}

fn castle_rules(kind: VariantKind, layers: u8) -> Vec<CastleRule> {
    let mut out = Vec::new();
    for color in Color::ALL {
        let r = color.back_rank();
        let sq = |x: u8, z: u8| Square::new(x, r, z);
        let set = |v: &[Square]| -> Bitboard { v.iter().copied().collect() };
        let horizontal = |z: u8, out: &mut Vec<CastleRule>| {
            out.push(CastleRule {
                right: castle_bit(color, 0),
                color,
                king_from: sq(4, z),
                king_to: sq(6, z),
                rook_from: sq(7, z),
                rook_to: sq(5, z),
                empty: set(&[sq(5, z), sq(6, z)]),
                safe: set(&[sq(5, z), sq(6, z)]),
            });
            out.push(CastleRule {
                right: castle_bit(color, 1),
                color,
                king_from: sq(4, z),
                king_to: sq(2, z),
                rook_from: sq(0, z),
                rook_to: sq(3, z),
                empty: set(&[sq(1, z), sq(2, z), sq(3, z)]),
                safe: set(&[sq(3, z), sq(2, z)]),
            });
        };
        match kind {
            VariantKind::Hdc => {
                horizontal(3, &mut out);
                out.push(CastleRule {
                    right: castle_bit(color, 2),
                    color,
                    king_from: sq(4, 3),
                    king_to: sq(4, 1),
                    rook_from: sq(4, 0),
                    rook_to: sq(4, 2),
                    empty: set(&[sq(4, 2), sq(4, 1)]),
                    safe: set(&[sq(4, 2), sq(4, 1)]),
                });
                out.push(CastleRule {
                    right: castle_bit(color, 3),
                    color,
                    king_from: sq(4, 3),
                    king_to: sq(4, 5),
                    rook_from: sq(4, 7),
                    rook_to: sq(4, 4),
                    empty: set(&[sq(4, 4), sq(4, 5), sq(4, 6)]),
                    safe: set(&[sq(4, 4), sq(4, 5)]),
                });
            }
            VariantKind::Haberkorn => {
                for z in 0..layers {
                    horizontal(z, &mut out);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sliders_slide_both_ways_along_their_axes() {
        for variant in [Variant::hdc(), Variant::haberkorn()] {
            let r = variant.rules();
            for d in 0..NUM_DIRS {
                assert_eq!(r.slides_along[d], r.slides_along[opposite(d)]);
            }
            for kind in PieceKind::SLIDERS {
                let k = kind.index();
                // One run: as many axes as direction pairs, each of them slid along.
                assert_eq!(r.slider_axes[k].len() * 2, r.slider_dirs[k].len(), "{kind:?}");
                for &d in &r.slider_dirs[k] {
                    assert!(r.slider_axes[k].contains(&axis_of(d)));
                }
            }
            // Every set of kinds: the axes some kind of it slides along.
            for kinds in 0..1u8 << PieceKind::COUNT {
                let expect = (0..NUM_DIRS)
                    .filter(|&d| r.slides_along[d] & kinds != 0)
                    .fold(0u16, |acc, d| acc | 1 << axis_of(d));
                assert_eq!(r.axes_of(kinds), expect, "kinds {kinds:#b}");
            }
        }
    }

    #[test]
    fn direction_and_target_counts_match_the_rules() {
        let hdc = Variant::hdc().rules();
        let hab = Variant::haberkorn().rules();
        let n = |r: &Rules, k: PieceKind| r.slider_dirs[k.index()].len();
        assert_eq!(
            (n(hdc, PieceKind::Rook), n(hdc, PieceKind::Bishop), n(hdc, PieceKind::Duke), n(hdc, PieceKind::Queen)),
            (6, 12, 18, 26)
        );
        assert_eq!(
            (n(hab, PieceKind::Rook), n(hab, PieceKind::Bishop), n(hab, PieceKind::Duke), n(hab, PieceKind::Queen)),
            (14, 12, 0, 26)
        );
        assert_eq!(knight_vectors(VariantKind::Hdc).len(), 24);
        assert_eq!(knight_vectors(VariantKind::Haberkorn).len(), 32);
        let centre = Square::new(3, 3, 3);
        assert_eq!(hdc.knight[centre.index()].count(), 24);
        assert_eq!(hab.knight[centre.index()].count(), 32);
        assert_eq!(hdc.king[centre.index()].count(), 26);
        assert_eq!(hdc.pawn_captures[0][centre.index()].count(), 4);
        assert_eq!(hab.pawn_captures[1][centre.index()].count(), 6);
    }

    #[test]
    fn slider_rays_are_the_non_empty_rays_of_the_kinds_directions_in_order() {
        for variant in [Variant::hdc(), Variant::haberkorn(), Variant::haberkorn_with(3, 1, 3, false, false).unwrap()] {
            let r = variant.rules();
            for kind in PieceKind::ALL {
                for i in 0..NUM_SQUARES {
                    let sq = Square::from_index_unchecked(i);
                    let expected_dirs: Vec<(usize, &[Square])> = r.slider_dirs[kind.index()]
                        .iter()
                        .map(|&d| (d, r.geometry.ray_squares(sq, d)))
                        .filter(|(_, ray)| !ray.is_empty())
                        .collect();
                    let expected: Vec<&[Square]> = expected_dirs.iter().map(|&(_, ray)| ray).collect();
                    assert_eq!(r.slider_rays(kind, sq), expected.as_slice(), "{kind:?} on {i}");
                    let (rays, dirs) = r.slider_rays_and_dirs(kind, sq);
                    let with_dirs: Vec<(usize, &[Square])> =
                        dirs.iter().map(|&d| d as usize).zip(rays.iter().copied()).collect();
                    assert_eq!(with_dirs, expected_dirs, "{kind:?} on {i}");
                    let union =
                        r.slider_rays(kind, sq).iter().flat_map(|ray| ray.iter().copied()).collect::<Bitboard>();
                    assert_eq!(union, r.slider_lines[kind.index()][i], "{kind:?} on {i}");
                }
            }
        }
        // A rook in the corner of hdc's cube has three rays, in the centre six.
        let hdc = Variant::hdc();
        assert_eq!(hdc.rules().slider_rays(PieceKind::Rook, Square::new(0, 0, 0)).len(), 3);
        assert_eq!(hdc.rules().slider_rays(PieceKind::Rook, Square::new(3, 3, 3)).len(), 6);
    }

    #[test]
    fn knights_always_change_colour() {
        for (kind, parity) in [(VariantKind::Hdc, 3), (VariantKind::Haberkorn, 2)] {
            for (x, y, z) in knight_vectors(kind) {
                let sum = if parity == 3 { x + y + z } else { x + y };
                assert_eq!(sum.rem_euclid(2), 1, "{kind:?} ({x},{y},{z})");
            }
        }
    }

    #[test]
    fn the_default_setup_layers_are_the_middle_ones_on_small_boards() {
        assert_eq!([3, 4, 5, 6, 7, 8].map(default_setup_layers), [(2, 3), (2, 3), (4, 5), (4, 5), (4, 5), (4, 5)]);
        for layers in HABERKORN_LAYERS {
            let v = Variant::haberkorn_from(layers, None, Some(1), true, false).unwrap();
            let (white, _) = default_setup_layers(layers);
            assert_eq!((v.white_layer + 1, v.black_layer + 1, v.en_passant), (white, 1, true));
        }
        assert_eq!(Variant::haberkorn_from(8, None, None, false, false), Ok(Variant::haberkorn()));
        assert_eq!(Variant::haberkorn_from(9, None, None, false, false), Err(VariantError::Layers(9)));
        assert_eq!(Variant::haberkorn_from(4, Some(5), None, false, false), Err(VariantError::SetupLayer(5, 4)));
        for kind in VariantKind::ALL {
            assert_eq!(VariantKind::from_byte(kind.byte()), Some(kind));
        }
        assert_eq!(VariantKind::from_byte(2), None);
    }

    #[test]
    fn haberkorn_start_fen_places_each_army_on_its_layer() {
        let v = Variant::haberkorn_with(3, 1, 3, false, true).unwrap();
        assert_eq!(
            v.start_fen(),
            "8/8/8/8/8/8/PPPPPPPP/RNBQKBNR|8/8/8/8/8/8/8/8|rnbqkbnr/pppppppp/8/8/8/8/8/8 w KQkq - 0 1"
        );
        assert!(Variant::haberkorn_with(2, 1, 1, false, false).is_err());
        assert!(Variant::haberkorn_with(5, 6, 1, false, false).is_err());
        assert!(Variant::from_spec("haberkorn+ep+castling", 5).unwrap().castling);
        assert!(Variant::from_spec("chess", 8).is_err());
    }
}
