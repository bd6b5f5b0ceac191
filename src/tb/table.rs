//! A solved ending: one byte a position of the compact index ([`Layout`]),
//! probed by position, summed up, checked against the rules, and kept in a
//! file (protocol.md, "Endgame tables").

use super::generate::{GenerateError, Outside, solve};
use super::layout::{Layout, Squares};
use super::material::{Material, MaterialError};
use super::value::Value;
use crate::core::{Color, Move, Position, Variant, VariantKind};
use crate::files::{fnv1a, write_atomically};
use rayon::prelude::*;
use std::fmt;
use std::path::Path;
use thiserror::Error;

/// A table file's first bytes.
const MAGIC: &[u8; 8] = b"CUBISTTB";
/// The file format's version.
const VERSION: u16 = 1;

/// Why a table file could not be read or written.
#[derive(Debug, Error)]
pub enum TableFileError {
    /// The file could not be read or written.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// Not a table file of this format, or one cut short or damaged.
    #[error("{0}: not a Cubist table file ({1})")]
    Format(String, String),
    /// The bytes do not add up to the checksum: a damaged or half-written file.
    #[error("{0}: the checksum does not match (a damaged or half-written file)")]
    Checksum(String),
}

/// What a table says about its ending, over every legal position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Legal positions with each side to move (White, Black).
    pub positions: [u64; 2],
    /// Of those, won for the side to move.
    pub wins: [u64; 2],
    /// Of those, lost for the side to move.
    pub losses: [u64; 2],
    /// The longest distance to mate in plies, and one position of that length.
    pub longest: Option<(u8, String)>,
    /// Wins longer than 100 plies: ones the fifty-move rule may cut.
    pub cursed: u64,
}

/// A solved ending of one game on one board.
#[derive(Clone)]
pub struct Table {
    /// What it indexes.
    layout: Layout,
    /// One byte a position of the compact index.
    values: Vec<u8>,
}

impl Table {
    /// Solves `material` in game `kind` on `layers` layers (hdc: 8), with
    /// rayon's threads for the setup and the compact copy; the endings its
    /// promotions and captures lead to (other than a king against a king)
    /// are read from `outside` (a pawn's ending needs each piece's).
    pub fn generate(
        kind: VariantKind,
        layers: u8,
        material: &Material,
        outside: Outside,
    ) -> Result<Table, GenerateError> {
        let layout = Layout::new(kind, layers, material).ok_or(GenerateError::Layers(layers))?;
        let values = solve(&layout, outside)?;
        Ok(Table { layout, values })
    }

    /// The file name of a table: `hdc-KQvK.cbtb`, `haberkorn5-KRvK.cbtb`.
    pub fn file_name(kind: VariantKind, layers: u8, material: &Material) -> String {
        match kind {
            VariantKind::Hdc => format!("hdc-{material}.cbtb"),
            VariantKind::Haberkorn => format!("haberkorn{layers}-{material}.cbtb"),
        }
    }

    /// This table's file name ([`Table::file_name`]).
    pub fn name(&self) -> String {
        Table::file_name(self.layout.variant.kind, self.layout.variant.layers, &self.layout.material)
    }

    /// The bytes of this table's file (protocol.md, "Endgame tables").
    pub fn to_bytes(&self) -> Vec<u8> {
        let lay = &self.layout;
        let material = lay.material.to_string();
        let mut out = Vec::with_capacity(self.values.len() + 64);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(lay.variant.kind.byte());
        out.push(lay.variant.layers);
        out.push(material.len() as u8);
        out.extend_from_slice(material.as_bytes());
        out.extend_from_slice(&(lay.least.len() as u16).to_le_bytes());
        out.extend_from_slice(&(lay.block() as u32).to_le_bytes());
        out.extend_from_slice(&self.values);
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Writes this table into `dir` under its [`Table::name`] (whole or not at all).
    pub fn save(&self, dir: &Path) -> Result<std::path::PathBuf, TableFileError> {
        let path = dir.join(self.name());
        write_atomically(&path, &self.to_bytes()).map_err(|e| TableFileError::Io(path.display().to_string(), e))?;
        Ok(path)
    }

    /// Reads a table file; every field is checked against the layout it
    /// names and the checksum against the bytes.
    pub fn load(path: &Path) -> Result<Table, TableFileError> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| TableFileError::Io(name.clone(), e))?;
        Table::from_bytes(&bytes).map_err(|why| match why {
            None => TableFileError::Checksum(name),
            Some(why) => TableFileError::Format(name, why),
        })
    }

    /// A table from its file's bytes: `Err(None)` for a checksum that does
    /// not match, `Err(Some(why))` for anything else wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<Table, Option<String>> {
        let bad = |why: &str| Some(why.to_string());
        let body_len = bytes.len().checked_sub(8).ok_or_else(|| bad("too short"))?;
        let (body, sum) = bytes.split_at(body_len);
        if body.len() < 17 || &body[..8] != MAGIC {
            return Err(bad("no CUBISTTB header"));
        }
        let version = u16::from_le_bytes([body[8], body[9]]);
        if version != VERSION {
            return Err(Some(format!("format version {version}, this build reads {VERSION}")));
        }
        if u64::from_le_bytes(sum.try_into().expect("eight bytes")) != fnv1a(body) {
            return Err(None);
        }
        let kind = VariantKind::from_byte(body[10]).ok_or_else(|| bad("unknown game"))?;
        let layers = body[11];
        let mlen = body[12] as usize;
        let text = body.get(13..13 + mlen).ok_or_else(|| bad("cut short"))?;
        let text = std::str::from_utf8(text).map_err(|_| bad("a material that is not text"))?;
        let material = Material::parse(text, kind).map_err(|e: MaterialError| Some(e.to_string()))?;
        let layout = Layout::new(kind, layers, &material).ok_or_else(|| bad("a layer count the game does not have"))?;
        let rest = &body[13 + mlen..];
        if rest.len() < 6 {
            return Err(bad("cut short"));
        }
        let least = u16::from_le_bytes([rest[0], rest[1]]) as usize;
        let block = u32::from_le_bytes([rest[2], rest[3], rest[4], rest[5]]) as usize;
        if least != layout.least.len() || block != layout.block() {
            return Err(bad("an index that does not fit its game and material"));
        }
        let values = rest[6..].to_vec();
        if values.len() != layout.compact_len() {
            return Err(bad("the wrong number of positions"));
        }
        Ok(Table { layout, values })
    }

    /// The value of `pos`, if it is a position of this table's game, layers
    /// and material (White's pieces as the material's, not colour-swapped).
    pub fn probe(&self, pos: &Position) -> Option<Value> {
        self.probe_as(pos, false)
    }

    /// [`Table::probe`], or with `swap` the position with the colours
    /// swapped (Black holding the material's White pieces, `KvKQ` in a
    /// `KQvK` table).
    pub(super) fn probe_as(&self, pos: &Position, swap: bool) -> Option<Value> {
        let lay = &self.layout;
        if pos.variant().kind != lay.variant.kind || pos.variant().layers != lay.variant.layers {
            return None;
        }
        let squares = lay.squares_of(pos, swap)?;
        let side = usize::from((pos.side_to_move() == Color::White) == swap);
        Some(self.value(side, &squares))
    }

    /// The value of (`side`, `squares`).
    fn value(&self, side: usize, squares: &Squares) -> Value {
        Value::from_byte(self.values[self.layout.compact(side, squares)])
    }

    /// Checks every `step`-th position of the compact index (1: all of them;
    /// every position of the ending is a symmetric image of one of these)
    /// against its moves: a legal position exactly where the table has
    /// one; a mated position at 0, a stalemate a draw; a position with a
    /// move to a loss in `e` won in the least such `e + 1`; otherwise a draw
    /// if a move leads to a draw (a king against a king is a draw; a
    /// capture's or a promotion's value is read from `outside`); otherwise lost in
    /// the greatest child's distance plus one. Tables that pass are right
    /// (by induction on the distance, given `outside`'s). Returns the
    /// positions checked, or the first position that fails.
    pub fn verify(&self, step: usize, outside: Outside) -> Result<u64, String> {
        let lay = &self.layout;
        let (step, block) = (step.max(1), lay.block());
        let results: Vec<Result<u64, String>> = self
            .values
            .par_chunks(block)
            .enumerate()
            .map(|(b, values)| {
                let mut checked = 0;
                for rest in (0..block).filter(|r| (b * block + r).is_multiple_of(step)) {
                    let (side, squares) = lay.decode_compact(b * block + rest);
                    let held = Value::from_byte(values[rest]);
                    let Some(pos) = lay.position(side, &squares) else {
                        if held != Value::Illegal {
                            return Err(format!("compact index {}: {held:?} for no legal position", b * block + rest));
                        }
                        continue;
                    };
                    let expected = self.expected(&pos, outside);
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

    /// Each legal move of `pos` (a position of this table) with the value of
    /// the position it leads to, for the side to move there: a king against
    /// a king is a draw, a position of another ending (after a promotion)
    /// is read from `outside` ([`Value::Illegal`] where it holds none).
    pub fn move_values(&self, pos: &Position, outside: Outside) -> Vec<(Move, Value)> {
        self.move_values_as(pos, false, outside)
    }

    /// [`Table::move_values`] of a position that [`Table::probe_as`] reads with `swap`.
    pub(super) fn move_values_as(&self, pos: &Position, swap: bool, outside: Outside) -> Vec<(Move, Value)> {
        let mut child = pos.clone();
        pos.legal_moves()
            .iter()
            .map(|&m| {
                let undo = child.make(m);
                let value = if child.occupied().count() == 2 {
                    Value::Draw
                } else {
                    self.probe_as(&child, swap).or_else(|| outside(&child)).unwrap_or(Value::Illegal)
                };
                child.unmake(m, &undo);
                (m, value)
            })
            .collect()
    }

    /// What `pos`'s moves make of it by this table (see [`Table::verify`]).
    fn expected(&self, pos: &Position, outside: Outside) -> Value {
        let children = self.move_values(pos, outside);
        if children.is_empty() {
            return if pos.in_check() { Value::Mate(0) } else { Value::Draw };
        }
        let (mut best_loss, mut draw, mut worst_win) = (None::<u8>, false, 0u8);
        for (_, child) in children {
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

    /// Counts wins, losses and draws for each side to move over every legal
    /// position (each compact entry stands for its White king's orbit), the
    /// longest mate and the cursed wins.
    pub fn stats(&self) -> Stats {
        let lay = &self.layout;
        let mut s = Stats { positions: [0; 2], wins: [0; 2], losses: [0; 2], longest: None, cursed: 0 };
        let mut longest: Option<(u8, usize)> = None;
        for (c, &b) in self.values.iter().enumerate() {
            let block = c / lay.block();
            let (side, weight) = (block / lay.least.len(), lay.orbit[block % lay.least.len()]);
            match Value::from_byte(b) {
                Value::Illegal => continue,
                Value::Draw => {}
                Value::Mate(d) => {
                    if d % 2 == 1 {
                        s.wins[side] += weight;
                        if d > 100 {
                            s.cursed += weight;
                        }
                    } else {
                        s.losses[side] += weight;
                    }
                    if longest.is_none_or(|(l, _)| d > l) {
                        longest = Some((d, c));
                    }
                }
            }
            s.positions[side] += weight;
        }
        s.longest = longest.and_then(|(d, c)| {
            let (side, squares) = lay.decode_compact(c);
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
