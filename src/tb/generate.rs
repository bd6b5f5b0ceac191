//! Retrograde analysis of one ending: every legal position's distance to
//! mate, from the mated positions backwards, on the dense index of
//! [`Layout`].
//!
//! Only one position of each class of symmetric positions (the canonical
//! one: the least of its images, square by square) is analysed:
//!
//! 1. Every canonical position is set up and its legal moves counted. A
//!    position without moves is mated (distance 0) or stalemated (a draw).
//!    A capture leaves an ending of fewer pieces, with at most three pieces
//!    always a king against a king, a draw: a position with a capture can
//!    never be lost.
//! 2. Distance by distance: the predecessors of a position lost in `d`
//!    (the other side's moves taken back, never a capture) win in `d + 1`.
//!    Each predecessor of a position won in `d` loses one of its counted
//!    moves; when none is left, every move leads to a position won for the
//!    opponent and it is lost in `d + 1`. A move to a symmetric image counts
//!    once: moves are taken back from every distinct image of the won
//!    position, and only canonical predecessors are counted.
//! 3. Whatever has no distance then is a draw (the side to move can always
//!    keep away from positions lost for it). The positions of the compact
//!    index copy their canonical position's value.

use super::layout::{Layout, Squares};
use rayon::prelude::*;
use thiserror::Error;

/// The byte of a draw.
pub(super) const DRAW: u8 = 0;
/// The byte of an illegal position.
pub(super) const ILLEGAL: u8 = 255;
/// The longest distance a byte holds (plies).
pub(super) const MAX_DISTANCE: u8 = 253;

/// Why a table could not be generated.
#[derive(Debug, Error, PartialEq, Eq)]
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

/// A move counter that never runs out: the position has a move to a draw.
const NEVER_LOST: u8 = 255;

/// Solves `lay`'s ending: the compact index's bytes (see [`super::Value`]).
pub(super) fn solve(lay: &Layout) -> Result<Vec<u8>, GenerateError> {
    let size = 2 * lay.half;
    let mut values = vec![ILLEGAL; size];
    let mut counters = vec![0u8; size];
    let mated = set_up(lay, &mut values, &mut counters)?;
    retrograde(lay, mated, &mut values, &mut counters)?;
    drop(counters);
    Ok(compact(lay, &values))
}

/// Step 1: values and move counters of the canonical positions; returns the mated ones.
fn set_up(lay: &Layout, values: &mut [u8], counters: &mut [u8]) -> Result<Vec<u32>, GenerateError> {
    let (n, k, block) = (lay.n, lay.k(), lay.block());
    let parts: Vec<Result<Vec<u32>, GenerateError>> = values
        .par_chunks_mut(block)
        .zip(counters.par_chunks_mut(block))
        .enumerate()
        .map(|(b, (values, counts))| {
            let mut mated = Vec::new();
            if lay.maps.least(b % n) != b % n {
                return Ok(mated);
            }
            for rest in 0..block {
                let (side, squares) = lay.decode(b * block + rest);
                if lay.maps.canonical(&squares, k) != squares {
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
    let mut mated = Vec::new();
    for part in parts {
        mated.extend(part?);
    }
    Ok(mated)
}

/// Step 2: distances grown from the mated positions.
fn retrograde(lay: &Layout, mated: Vec<u32>, values: &mut [u8], counters: &mut [u8]) -> Result<(), GenerateError> {
    let k = lay.k();
    let mut frontier = mated;
    let mut d: u8 = 0;
    let mut preds: Vec<Squares> = Vec::new();
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
                    let i = lay.index(1 - side, &lay.maps.canonical(q, k));
                    if values[i] == DRAW && counters[i] != 0 {
                        values[i] = d + 2;
                        next.push(i as u32);
                    }
                }
            } else {
                for image in lay.maps.images(&squares, k) {
                    lay.predecessors(side, &image, |q| lay.maps.canonical(q, k) == *q, &mut preds);
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
    Ok(())
}

/// Step 3: the compact index, each entry its canonical position's value.
fn compact(lay: &Layout, values: &[u8]) -> Vec<u8> {
    let (k, block) = (lay.k(), lay.block());
    let mut out = vec![0u8; lay.compact_len()];
    out.par_chunks_mut(block).enumerate().for_each(|(b, chunk)| {
        for (rest, v) in chunk.iter_mut().enumerate() {
            // A placement with two pieces on one square has an image of the
            // same kind, which the setup left illegal.
            let (side, squares) = lay.decode_compact(b * block + rest);
            *v = values[lay.index(side, &lay.maps.canonical(&squares, k))];
        }
    });
    out
}
