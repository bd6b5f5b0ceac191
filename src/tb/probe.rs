//! The tables an engine plays with ([`Tablebases`]): every table file of
//! the folders that `TablebasePath` or `--tb-path` names, looked up by a
//! position's game, board and material, either colour holding it.

use super::material::Material;
use super::table::{Table, TableFileError};
use super::value::Value;
use crate::core::{Color, Move, PieceKind, Position, VariantKind};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;

/// The file name ending of a table file.
const EXTENSION: &str = "cbtb";

/// Why a tablebase folder could not be used at all.
#[derive(Debug, Error)]
pub enum TablebaseError {
    /// A named folder does not exist or cannot be listed.
    #[error("{0}: {1}")]
    Folder(String, std::io::Error),
}

/// Which table a position is looked up in.
type Key = (VariantKind, u8, Material);

/// The loaded tables by game, board and material; cheap to clone (the
/// tables are shared). The default holds none.
#[derive(Clone, Default)]
pub struct Tablebases {
    /// Each table under its game, layer count and material (White's pieces as written).
    tables: HashMap<Key, Arc<Table>>,
    /// The most pieces, kings included, of any loaded table (0: none loaded).
    max_pieces: usize,
}

/// What loading the tables of a path found (the default: no tables, nothing refused).
#[derive(Default)]
pub struct Loaded {
    /// The tables that loaded.
    pub tablebases: Tablebases,
    /// Each file that was refused, with why (the others load without it).
    pub refused: Vec<TableFileError>,
}

impl Tablebases {
    /// Loads every `.cbtb` file of the folders in `paths` (separated as the
    /// system separates `PATH`: `:` on Unix, `;` on Windows; an empty path
    /// loads none). A folder that cannot be listed is an error and loads
    /// nothing; a damaged or unreadable file is refused, and the rest load.
    pub fn load(paths: &str) -> Result<Loaded, TablebaseError> {
        Tablebases::load_dirs(std::env::split_paths(paths.trim()).filter(|d| !d.as_os_str().is_empty()))
    }

    /// [`Tablebases::load`] of the folders `dirs`.
    fn load_dirs(dirs: impl IntoIterator<Item = PathBuf>) -> Result<Loaded, TablebaseError> {
        let mut files: Vec<PathBuf> = Vec::new();
        for dir in dirs {
            let entries = std::fs::read_dir(&dir).map_err(|e| TablebaseError::Folder(dir.display().to_string(), e))?;
            files.extend(
                entries
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == EXTENSION) && p.is_file()),
            );
        }
        files.sort();
        let mut loaded = Loaded { tablebases: Tablebases::default(), refused: Vec::new() };
        for file in files {
            match Table::load(&file) {
                Ok(table) => loaded.tablebases.insert(table),
                Err(e) => loaded.refused.push(e),
            }
        }
        Ok(loaded)
    }

    /// Adds a table (replacing one of the same game, board and material).
    pub fn insert(&mut self, table: Table) {
        let v = table.variant();
        self.max_pieces = self.max_pieces.max(table.material().piece_count());
        self.tables.insert((v.kind, v.layers, table.material().clone()), Arc::new(table));
    }

    /// The loaded table of `material` (as written, not colour-swapped) in
    /// game `kind` on `layers` layers, if any.
    pub fn table(&self, kind: VariantKind, layers: u8, material: &Material) -> Option<&Table> {
        self.tables.get(&(kind, layers, material.clone())).map(Arc::as_ref)
    }

    /// How many tables are loaded.
    pub fn len(&self) -> usize {
        self.tables.len()
    }

    /// Whether no table is loaded.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// The most pieces, kings included, of any loaded table (0: none).
    pub fn max_pieces(&self) -> usize {
        self.max_pieces
    }

    /// The table that holds `pos` and whether it reads it with the colours
    /// swapped; `None` where no loaded table does (too many pieces,
    /// castling rights, an ending not loaded).
    fn table_of(&self, pos: &Position) -> Option<(&Table, bool)> {
        if pos.occupied().count() as usize > self.max_pieces || pos.castling_rights() != 0 {
            return None;
        }
        let v = pos.variant();
        let key = (v.kind, v.layers, Material::of_position(pos).ok()?);
        if let Some(t) = self.tables.get(&key) {
            return Some((t, false));
        }
        self.tables.get(&(v.kind, v.layers, key.2.swapped())).map(|t| (t.as_ref(), true))
    }

    /// The value of `pos` for its side to move, if a loaded table holds it
    /// (a king against a king: a draw, no table needed). The fifty-move
    /// rule is not applied: see [`Value::under_fifty_moves`].
    pub fn probe(&self, pos: &Position) -> Option<Value> {
        if self.max_pieces == 0 {
            return None;
        }
        if pos.occupied().count() == 2 {
            return Some(Value::Draw);
        }
        let (table, swap) = self.table_of(pos)?;
        table.probe_as(pos, swap).filter(|&v| v != Value::Illegal)
    }

    /// Each legal move of `pos` with the value of the position it leads to
    /// (for the side to move there), if a loaded table holds `pos`.
    pub fn move_values(&self, pos: &Position) -> Option<Vec<(Move, Value)>> {
        let (table, swap) = self.table_of(pos)?;
        table.probe_as(pos, swap).filter(|&v| v != Value::Illegal)?;
        Some(table.move_values_as(pos, swap, &|child| self.probe(child)))
    }

    /// [`Tablebases::probe`] with the fifty-move rule applied at `pos`'s
    /// clock where that is exact ([`Value::under_fifty_moves`]): in the
    /// pawnless endings of three pieces. With a pawn, or a capture on the
    /// way (four pieces), the distance runs across moves that restart the
    /// clock, so the value is left as it is.
    pub fn probe_at_clock(&self, pos: &Position) -> Option<Value> {
        let value = self.probe(pos)?;
        let pawns = pos.pieces(Color::White, PieceKind::Pawn) | pos.pieces(Color::Black, PieceKind::Pawn);
        if pawns.is_empty() && pos.occupied().count() <= 3 {
            Some(value.under_fifty_moves(pos.halfmove_clock()))
        } else {
            Some(value)
        }
    }

    /// The names of the loaded tables, sorted (`hdc-KQvK`, …).
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.tables.values().map(|t| t.name()).collect();
        names.sort();
        names
    }

    /// [`Tablebases::load`] of the one folder `dir`, if one is given (a
    /// tool's `--tb DIR`); none without it.
    pub fn load_dir(dir: Option<&Path>) -> Result<Loaded, TablebaseError> {
        Tablebases::load_dirs(dir.map(Path::to_path_buf))
    }
}

impl fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tablebases").field("tables", &self.names()).finish()
    }
}

impl PartialEq for Tablebases {
    /// The same tables, loaded once (a reload compares unequal).
    fn eq(&self, other: &Tablebases) -> bool {
        self.tables.len() == other.tables.len()
            && self.tables.iter().all(|(k, t)| other.tables.get(k).is_some_and(|o| Arc::ptr_eq(t, o)))
    }
}

impl Eq for Tablebases {}
