//! Openings: the start positions of the rounds, from a FEN/EPD file or the
//! built-in book of the game (see [`crate::book::builtin`]), from the
//! variant's start, or (haberkorn) from every white/black setup-layer pair,
//! optionally followed by random plies.

use super::config::{OpeningFormat, OpeningOrder, OpeningsSpec};
use super::fingerprint::describe_book;
use crate::book::{builtin, play_random_plies};
use crate::core::{Position, Variant, VariantKind};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use thiserror::Error;

/// Why the openings could not be prepared.
#[derive(Debug, Error)]
pub enum OpeningError {
    /// The file could not be read.
    #[error("cannot read opening file '{0}': {1}")]
    Io(String, std::io::Error),
    /// A line is not a position of the variant.
    #[error("opening file '{file}' line {line}: {why}")]
    BadLine {
        /// The file.
        file: String,
        /// The line number.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// The file holds no position.
    #[error("opening file '{0}' holds no position")]
    Empty(String),
    /// Constellations asked for outside haberkorn or together with a file.
    #[error("{0}")]
    Conflict(String),
}

/// The start of one round: the variant (setup layers may vary) and the 3D-FEN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The variant of the games of this opening.
    pub variant: Variant,
    /// The 3D-FEN they start from.
    pub fen: String,
}

/// Where the openings come from and how they are varied.
#[derive(Clone, Debug)]
pub struct OpeningBook {
    base: Variant,
    fens: Vec<String>,
    constellations: bool,
    random_plies: u32,
    seed: u64,
}

/// Reads the positions of an opening file: one 3D-FEN (or 3D-EPD: four
/// fields, then operations) per line; blank lines and `#` comments skipped.
pub fn parse_openings(
    text: &str,
    format: OpeningFormat,
    variant: Variant,
    file: &str,
) -> Result<Vec<String>, OpeningError> {
    let mut fens = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fen = match format {
            OpeningFormat::Fen => line.to_string(),
            OpeningFormat::Epd => {
                let fields: Vec<&str> = line.split_whitespace().take(4).collect();
                format!("{} 0 1", fields.join(" "))
            }
        };
        let bad = |why: String| OpeningError::BadLine { file: file.to_string(), line: i + 1, why };
        let pos = Position::from_fen(&fen, variant).map_err(|e| bad(e.to_string()))?;
        if pos.game_state().is_over() {
            return Err(bad("the game is already over in this position".into()));
        }
        fens.push(pos.fen());
    }
    if fens.is_empty() {
        return Err(OpeningError::Empty(file.to_string()));
    }
    Ok(fens)
}

impl OpeningBook {
    /// Prepares the openings: reads and checks the file (shuffling it once with
    /// the seed when the order is random).
    pub fn new(
        base: Variant,
        spec: Option<&OpeningsSpec>,
        constellations: bool,
        random_plies: u32,
        seed: u64,
    ) -> Result<OpeningBook, OpeningError> {
        if constellations && base.kind != VariantKind::Haberkorn {
            return Err(OpeningError::Conflict("--constellations needs --variant haberkorn".into()));
        }
        if constellations && spec.is_some() {
            return Err(OpeningError::Conflict("--constellations and --openings exclude each other".into()));
        }
        let mut fens = Vec::new();
        if let Some(spec) = spec {
            let name = spec.file.display().to_string();
            let text = if spec.is_builtin() {
                builtin(base.kind, base.layers)
                    .ok_or_else(|| {
                        OpeningError::Conflict(format!(
                            "no built-in book for {} on {} layers (hdc and 8-layer haberkorn have one)",
                            base.kind, base.layers
                        ))
                    })?
                    .to_string()
            } else {
                std::fs::read_to_string(&spec.file).map_err(|e| OpeningError::Io(name.clone(), e))?
            };
            fens = parse_openings(&text, spec.format, base, &name)?;
            if spec.order == OpeningOrder::Random {
                fens.shuffle(&mut StdRng::seed_from_u64(seed));
            }
            let len = fens.len();
            fens.rotate_left((spec.start - 1) % len);
        }
        Ok(OpeningBook { base, fens, constellations, random_plies, seed })
    }

    /// Where the openings come from, for the match's fingerprint: `start
    /// position`, `constellations` or the book's size and a digest of its
    /// positions in the order used (so the file's path does not matter).
    pub fn describe(&self) -> String {
        if !self.fens.is_empty() {
            describe_book(&self.fens)
        } else if self.constellations {
            "constellations".into()
        } else {
            "start position".into()
        }
    }

    /// The opening of round `round` (from 0): deterministic for a given seed.
    pub fn opening(&self, round: usize) -> Opening {
        let (variant, fen) = if !self.fens.is_empty() {
            (self.base, self.fens[round % self.fens.len()].clone())
        } else if self.constellations {
            let l = self.base.layers as usize;
            let pair = round % (l * l);
            let mut v = self.base;
            v.white_layer = (pair / l) as u8;
            v.black_layer = (pair % l) as u8;
            (v, v.start_fen())
        } else {
            (self.base, self.base.start_fen())
        };
        if self.random_plies == 0 {
            return Opening { variant, fen };
        }
        let mut rng = StdRng::seed_from_u64(self.seed ^ (round as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        // An opening already checked: the FEN parses.
        let Ok(mut pos) = Position::from_fen(&fen, variant) else { return Opening { variant, fen } };
        play_random_plies(&mut pos, self.random_plies, &mut rng);
        Opening { variant, fen: pos.fen() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fastchess's `start=`: the first round takes that line of the book.
    #[test]
    fn start_offsets_the_book() {
        let v = Variant::hdc();
        let mut p = Position::start(v);
        let first = p.fen();
        p.play("e2-IVe4-IV").unwrap();
        let second = p.fen();
        let guard = tempfile::Builder::new().prefix("cubist-openings-start-").suffix(".fen").tempfile().unwrap();
        let file = guard.path();
        std::fs::write(file, format!("{first}\n{second}\n")).unwrap();
        let toks = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let spec = OpeningsSpec::parse(&toks(&format!("file={} order=sequential start=2", file.display()))).unwrap();
        let book = OpeningBook::new(v, Some(&spec), false, 0, 1).unwrap();
        assert_eq!(book.opening(0).fen, second);
        assert_eq!(book.opening(1).fen, first);
        assert!(OpeningsSpec::parse(&toks("file=x start=0")).is_err());
    }

    #[test]
    fn fen_and_epd_lines() {
        let start = Variant::hdc().start_fen();
        let epd_line = format!("{} id \"start\";", start.split_whitespace().take(4).collect::<Vec<_>>().join(" "));
        let text = format!("# comment\n\n{start}\n{epd_line}\n");
        let fens =
            parse_openings(&format!("{start}\n\n# x\n{start}\n"), OpeningFormat::Fen, Variant::hdc(), "f").unwrap();
        assert_eq!(fens, vec![start.clone(), start.clone()]);
        let epd =
            parse_openings(&text.replace(&format!("{start}\n"), ""), OpeningFormat::Epd, Variant::hdc(), "f").unwrap();
        assert_eq!(epd, vec![start.clone()]);
        let err = parse_openings("not a fen\n", OpeningFormat::Fen, Variant::hdc(), "f.fen").unwrap_err();
        assert!(err.to_string().starts_with("opening file 'f.fen' line 1:"), "{err}");
        assert!(matches!(
            parse_openings("# nothing\n", OpeningFormat::Fen, Variant::hdc(), "f"),
            Err(OpeningError::Empty(_))
        ));
    }

    #[test]
    fn constellations_cycle_all_setup_pairs() {
        let base = Variant::haberkorn_with(3, 1, 1, false, false).unwrap();
        let book = OpeningBook::new(base, None, true, 0, 1).unwrap();
        let pairs: Vec<(u8, u8)> = (0..9)
            .map(|r| {
                let o = book.opening(r);
                assert_eq!(o.fen, o.variant.start_fen());
                (o.variant.white_layer, o.variant.black_layer)
            })
            .collect();
        assert_eq!(pairs, [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)]);
        assert_eq!(book.opening(9), book.opening(0));
        assert!(OpeningBook::new(Variant::hdc(), None, true, 0, 1).is_err());
    }

    #[test]
    fn random_plies_are_legal_and_reproducible() {
        let book = OpeningBook::new(Variant::haberkorn(), None, false, 6, 42).unwrap();
        let a = book.opening(3);
        assert_eq!(a, book.opening(3));
        assert_ne!(a.fen, Variant::haberkorn().start_fen());
        let pos = Position::from_fen(&a.fen, a.variant).unwrap();
        assert_eq!(pos.fullmove_number(), 4);
        let other = OpeningBook::new(Variant::haberkorn(), None, false, 6, 43).unwrap();
        assert!((0..4).any(|r| other.opening(r) != book.opening(r)));
    }
}
