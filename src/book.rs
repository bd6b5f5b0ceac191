//! Balanced opening books (`cubist book`): random plies from the start
//! position ([`play_random_plies`], also the matches' and datagen's random
//! plies), each candidate kept when a fixed-depth search scores it within
//! a small window of equality, duplicates dropped.
//!
//! Candidate `i` is a pure function of the seed and `i` (its haberkorn
//! constellation, its random plies) and so is its search (one thread, the
//! hash table cleared, a depth limit), so a book is reproducible from its
//! recipe whatever the thread count: the first `count` distinct kept
//! candidates in index order.
//!
//! The books that `scripts/sprt.sh` and `cubist spsa` play by default are
//! built in ([`builtin`]): `books/hdc.fen` and `books/haberkorn.fen` (8
//! layers, every constellation), each headed by the command that made it.

use crate::core::{GameState, Position, Variant, VariantKind};
use crate::search::{Engine, Limits, Score, Settings};
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use std::collections::HashSet;

/// The built-in hdc book.
const HDC_BOOK: &str = include_str!("../books/hdc.fen");
/// The built-in haberkorn book (8 layers).
const HABERKORN_BOOK: &str = include_str!("../books/haberkorn.fen");

/// The text of the built-in book of a game on `layers` layers, if there is
/// one (haberkorn's is for 8 layers).
pub fn builtin(kind: VariantKind, layers: u8) -> Option<&'static str> {
    match kind {
        VariantKind::Hdc => Some(HDC_BOOK),
        VariantKind::Haberkorn if layers == 8 => Some(HABERKORN_BOOK),
        VariantKind::Haberkorn => None,
    }
}

/// What `cubist book` makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookConfig {
    /// The game.
    pub kind: VariantKind,
    /// Haberkorn: layers of the board (8 in hdc).
    pub layers: u8,
    /// Positions wanted.
    pub count: usize,
    /// Random plies from the start position.
    pub plies: u32,
    /// Depth of the search that judges a candidate.
    pub depth: u32,
    /// A candidate is kept when the search scores it within ± this (centipawns).
    pub window: i32,
    /// The seed every candidate derives from.
    pub seed: u64,
    /// Candidates searched at once.
    pub threads: usize,
    /// Candidates tried at most (the book may come out short).
    pub max_tries: u64,
}

/// What a finished book holds, and what it cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    /// The positions, as 3D-FENs.
    pub fens: Vec<String>,
    /// Candidates searched.
    pub tried: u64,
    /// Candidates outside the window (or decided: a mate score).
    pub unbalanced: u64,
    /// Candidates dropped as repeats of a kept position.
    pub duplicates: u64,
}

impl BookConfig {
    /// The command line that makes this book (for its header).
    pub fn command(&self) -> String {
        let layers =
            if self.kind == VariantKind::Haberkorn { format!(" --layers {}", self.layers) } else { String::new() };
        format!(
            "cubist book --variant {}{layers} --count {} --plies {} --depth {} --window {} --seed {}",
            self.kind, self.count, self.plies, self.depth, self.window, self.seed
        )
    }

    /// The variant and position of candidate `index`.
    pub fn candidate(&self, index: u64) -> Position {
        let mut rng = StdRng::seed_from_u64(self.seed ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let variant = match self.kind {
            VariantKind::Hdc => Variant::hdc(),
            VariantKind::Haberkorn => random_constellation(self.layers, &mut rng),
        };
        let mut pos = Position::start(variant);
        play_random_plies(&mut pos, self.plies, &mut rng);
        pos
    }
}

/// Haberkorn on `layers` layers with both setup layers drawn at random
/// (White's, then Black's; the default game if `layers` is out of range).
pub fn random_constellation(layers: u8, rng: &mut StdRng) -> Variant {
    let (white, black) = (rng.random_range(1..=layers), rng.random_range(1..=layers));
    Variant::haberkorn_with(layers, white, black, false, false).unwrap_or_else(|_| Variant::haberkorn())
}

/// Plays up to `plies` random legal moves on `pos`, stopping before a move
/// that would end the game (or when there is no legal move).
pub fn play_random_plies(pos: &mut Position, plies: u32, rng: &mut StdRng) {
    for _ in 0..plies {
        let moves: Vec<_> = pos.legal_moves().into_iter().collect();
        let Some(&m) = moves.choose(rng) else { break };
        let undo = pos.make(m);
        if pos.game_state() != GameState::Ongoing {
            pos.unmake(m, &undo);
            break;
        }
    }
}

/// The score of a depth-limited search of `pos` from the side to move's
/// view, the hash table cleared first.
fn judge(engine: &mut Engine, pos: &Position, depth: u32) -> Option<Score> {
    engine.clear();
    engine.search_to_end(pos, Limits { depth: Some(depth), ..Limits::default() }).0
}

/// The position part of a 3D-FEN (pieces, side, castling, en passant): two
/// candidates that differ only in their move counters are the same opening.
fn identity(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

/// Makes the book: candidates in batches on `threads` threads, each judged
/// by its own engine, until `count` distinct balanced positions are kept or
/// `max_tries` candidates are spent.
pub fn make(cfg: &BookConfig, progress: bool) -> Result<Book, String> {
    if cfg.count == 0 || cfg.threads == 0 || cfg.depth == 0 {
        return Err("--count, --threads and --depth must be at least 1".into());
    }
    if cfg.kind == VariantKind::Haberkorn {
        Variant::haberkorn_with(cfg.layers, 1, 1, false, false).map_err(|e| e.to_string())?;
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(cfg.threads).build().map_err(|e| e.to_string())?;
    let bar = if progress { ProgressBar::new(cfg.count as u64) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} positions, {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let settings = Settings { hash_mb: 16, threads: 1, ..Settings::default() };
    let batch = (cfg.threads * 8) as u64;
    let mut book = Book { fens: Vec::new(), tried: 0, unbalanced: 0, duplicates: 0 };
    let mut seen = HashSet::new();
    while book.fens.len() < cfg.count && book.tried < cfg.max_tries {
        let indices: Vec<u64> = (book.tried..(book.tried + batch).min(cfg.max_tries)).collect();
        let judged: Vec<Option<String>> = pool.install(|| {
            indices
                .par_iter()
                .map_init(
                    || Engine::new(settings.clone()),
                    |engine, &i| {
                        let pos = cfg.candidate(i);
                        if pos.game_state() != GameState::Ongoing {
                            return None;
                        }
                        match judge(engine, &pos, cfg.depth) {
                            Some(Score::Cp(cp)) if cp.abs() <= cfg.window => Some(pos.fen()),
                            _ => None,
                        }
                    },
                )
                .collect()
        });
        for fen in judged {
            if book.fens.len() == cfg.count {
                break;
            }
            book.tried += 1;
            match fen {
                None => book.unbalanced += 1,
                Some(fen) if !seen.insert(identity(&fen)) => book.duplicates += 1,
                Some(fen) => {
                    book.fens.push(fen);
                    bar.inc(1);
                }
            }
        }
        bar.set_message(format!("{} tried, {} unbalanced, {} repeats", book.tried, book.unbalanced, book.duplicates));
    }
    bar.finish_and_clear();
    Ok(book)
}

/// The book as a file: `#` lines with its recipe and counts, then one 3D-FEN a line.
pub fn render(cfg: &BookConfig, book: &Book) -> String {
    let mut s = format!(
        "# {}\n# {} positions kept of {} candidates ({} outside ±{} cp at depth {}, {} repeats)\n",
        cfg.command(),
        book.fens.len(),
        book.tried,
        book.unbalanced,
        cfg.window,
        cfg.depth,
        book.duplicates
    );
    for fen in &book.fens {
        s.push_str(fen);
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::config::OpeningFormat;
    use crate::arena::openings::parse_openings;

    fn tiny(kind: VariantKind, layers: u8) -> BookConfig {
        BookConfig { kind, layers, count: 6, plies: 4, depth: 2, window: 80, seed: 5, threads: 2, max_tries: 400 }
    }

    #[test]
    fn a_book_is_reproducible_balanced_and_readable_as_openings() {
        let cfg = tiny(VariantKind::Haberkorn, 4);
        let book = make(&cfg, false).unwrap();
        assert_eq!(book.fens.len(), 6);
        assert_eq!(book.tried, 6 + book.unbalanced + book.duplicates);
        let again = make(&BookConfig { threads: 1, ..cfg.clone() }, false).unwrap();
        assert_eq!(book, again, "the thread count changes nothing");
        let text = render(&cfg, &book);
        assert!(text.starts_with("# cubist book --variant haberkorn --layers 4 --count 6"), "{text}");
        let variant = Variant::haberkorn_with(4, 2, 3, false, false).unwrap();
        let fens = parse_openings(&text, OpeningFormat::Fen, variant, "book").unwrap();
        assert_eq!(fens, book.fens);
        let distinct: HashSet<String> = fens.iter().map(|f| identity(f)).collect();
        assert_eq!(distinct.len(), fens.len());
        let mut engine = Engine::new(Settings { hash_mb: 4, threads: 1, ..Settings::default() });
        for fen in &fens {
            let pos = Position::from_fen(fen, variant).unwrap();
            assert_eq!(pos.fullmove_number(), 3, "four random plies: {fen}");
            assert!(matches!(judge(&mut engine, &pos, 2), Some(Score::Cp(cp)) if cp.abs() <= 80), "{fen}");
        }
        let other = make(&BookConfig { seed: 6, ..cfg }, false).unwrap();
        assert_ne!(other.fens, book.fens);
    }

    #[test]
    fn a_window_nothing_fits_leaves_the_book_short_and_bad_settings_are_refused() {
        let cfg = BookConfig { window: -1, max_tries: 20, ..tiny(VariantKind::Hdc, 8) };
        let book = make(&cfg, false).unwrap();
        assert!(book.fens.is_empty());
        assert_eq!((book.tried, book.unbalanced), (20, 20));
        assert!(make(&BookConfig { count: 0, ..tiny(VariantKind::Hdc, 8) }, false).is_err());
        assert!(make(&tiny(VariantKind::Haberkorn, 9), false).is_err());
    }

    #[test]
    fn the_builtin_books_are_balanced_openings_of_their_games() {
        for (kind, variant) in [(VariantKind::Hdc, Variant::hdc()), (VariantKind::Haberkorn, Variant::haberkorn())] {
            let text = builtin(kind, 8).expect("a built-in book");
            assert!(text.starts_with(&format!("# cubist book --variant {kind}")), "its recipe heads it");
            let fens = parse_openings(text, OpeningFormat::Fen, variant, "builtin").unwrap();
            assert!(fens.len() >= 1000, "{kind}: {} positions", fens.len());
            let distinct: HashSet<String> = fens.iter().map(|f| identity(f)).collect();
            assert_eq!(distinct.len(), fens.len(), "{kind}: no repeats");
        }
        assert!(builtin(VariantKind::Haberkorn, 5).is_none());
    }
}
