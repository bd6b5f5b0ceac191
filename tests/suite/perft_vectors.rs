//! Every line of the perft vectors, at every depth given, must match.
//!
//! The vectors are read from `tests/data/*.vec` (a copy of the shared file)
//! and from `../shared/perft/*.vec` when that folder exists beside the
//! checkout, so that new shared vectors are checked without a copy.

use cubist::core::{Position, Variant};
use cubist::perft::perft;
use std::path::{Path, PathBuf};

struct Vector {
    source: String,
    variant: String,
    fen: String,
    counts: Vec<(u32, u64)>,
}

fn vector_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [root.join("tests/data"), root.join("../shared/perft")] {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            let mut found: Vec<PathBuf> =
                entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "vec")).collect();
            found.sort();
            files.extend(found);
        }
    }
    files
}

fn parse(path: &Path) -> Vec<Vector> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, line)| {
            let parts: Vec<&str> = line.split(';').map(str::trim).collect();
            let counts = parts[2..]
                .iter()
                .map(|p| {
                    let (d, n) = p.split_once(' ').unwrap();
                    (d.trim_start_matches('D').parse().unwrap(), n.trim().parse().unwrap())
                })
                .collect();
            Vector {
                source: format!("{}:{}", path.display(), i + 1),
                variant: parts[0].to_string(),
                fen: parts[1].to_string(),
                counts,
            }
        })
        .collect()
}

fn run(max_depth: u32) {
    let files = vector_files();
    assert!(!files.is_empty(), "no perft vector files found");
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in files {
        for v in parse(&file) {
            let layers = v.fen.split_whitespace().next().unwrap().split('|').count() as u8;
            let variant = Variant::from_spec(&v.variant, layers).unwrap();
            let mut pos = Position::from_fen(&v.fen, variant).unwrap_or_else(|e| panic!("{}: {e}", v.source));
            assert_eq!(pos.fen(), v.fen, "{}: FEN round trip", v.source);
            for &(depth, expected) in &v.counts {
                if depth > max_depth || (depth == max_depth && cfg!(debug_assertions) && expected > 2_000_000) {
                    continue;
                }
                let got = perft(&mut pos, depth);
                checked += 1;
                if got != expected {
                    failures.push(format!("{} ({}) D{depth}: got {got}, expected {expected}", v.source, v.variant));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {checked} perft counts wrong:\n{}", failures.len(), failures.join("\n"));
    assert!(checked > 0);
}

#[test]
fn perft_vectors_depth_1_and_2() {
    run(2);
}

/// Depth 3 of every line; the big ones are skipped in debug builds
/// (`cargo test --release`, the README's command, runs them all).
#[test]
fn perft_vectors_depth_3() {
    run(3);
}
