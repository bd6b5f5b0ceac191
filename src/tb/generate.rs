//! Retrograde analysis of one ending: every legal position's distance to
//! mate, from the mated positions backwards, on the dense index of
//! [`Layout`].
//!
//! Only one position of each class of symmetric positions (the canonical
//! one: the least of its images, square by square) is analysed:
//!
//! 1. Every canonical position is set up and its legal moves counted. A
//!    position without moves is mated (distance 0) or stalemated (a draw).
//!    A capture or a promotion leaves the ending: its value comes from the
//!    table of the ending it leads to ([`Outside`]; a king against a king
//!    is a draw). A move to a draw there means the position can never be
//!    lost; a move to a position lost in `e` there is kept as an event at
//!    distance `e` (a win in `e + 1`), one won in `e` there as an event
//!    that takes one move off the counter at distance `e`.
//! 2. Distance by distance: the predecessors of a position lost in `d`
//!    (the other side's moves taken back, never a capture or a promotion)
//!    win in `d + 1`. Each predecessor of a position won in `d` loses one
//!    of its counted moves; when none is left, every move leads to a
//!    position won for the opponent and it is lost in `d + 1`. A move to a
//!    symmetric image counts once: moves are taken back from every distinct
//!    image of the won position, and only canonical predecessors are
//!    counted. The events of distance `d` count alongside.
//! 3. Whatever has no distance then is a draw (the side to move can always
//!    keep away from positions lost for it). The positions of the compact
//!    index copy their canonical position's value.

use super::layout::{Layout, Squares};
use super::material::Material;
use super::value::{DRAW, ILLEGAL, MAX_DISTANCE, Value};
use crate::core::Position;
use rayon::prelude::*;
use thiserror::Error;

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
    /// More positions than the generator's index and memory hold.
    #[error(
        "{0} positions: the generator holds two bytes each in memory and numbers them in 32 bits, \
         so it makes endings of at most {MAX_DENSE} (four pieces on haberkorn's 3 layers, three on any board)"
    )]
    TooLarge(u64),
    /// A promotion or capture leads to an ending without a table.
    #[error(
        "no table for {0}, which a promotion or a capture leads to: generate it first (into the same --out folder)"
    )]
    Missing(String),
}

/// Where the values of positions outside the ending come from (the endings
/// that a promotion or a capture leads to, for the side to move there);
/// `None` where no table holds the position.
pub type Outside<'a> = &'a (dyn Fn(&Position) -> Option<Value> + Sync);

/// A move out of the ending whose value waits for its distance: the
/// position's dense index, and whether it wins (the move leads to a loss)
/// or takes one move off its counter (the move leads to a win).
type Event = (u32, bool);

/// A move counter that never runs out: the position has a move to a draw.
const NEVER_LOST: u8 = 255;

/// The most positions (both sides to move) the generator's dense index
/// holds: each is numbered in 32 bits, and held in two bytes (5.4 GB for
/// four pieces on haberkorn's 3 layers, the largest board that fits).
pub const MAX_DENSE: u64 = u32::MAX as u64;

/// Solves `lay`'s ending: the compact index's bytes (see [`Value`]), with
/// the values of the endings its moves leave it for from `outside`.
pub(super) fn solve(lay: &Layout, outside: Outside) -> Result<Vec<u8>, GenerateError> {
    let size = 2 * lay.half;
    if size as u64 > MAX_DENSE {
        return Err(GenerateError::TooLarge(size as u64));
    }
    let mut values = vec![ILLEGAL; size];
    let mut counters = vec![0u8; size];
    let (mated, events) = set_up(lay, outside, &mut values, &mut counters)?;
    retrograde(lay, mated, events, &mut values, &mut counters)?;
    drop(counters);
    Ok(compact(lay, &values))
}

/// The value of `child`, a position a capture or a promotion of the ending leads to.
fn outside_value(child: &Position, outside: Outside) -> Result<Value, GenerateError> {
    if child.occupied().count() == 2 {
        return Ok(Value::Draw);
    }
    match outside(child) {
        Some(v) if v != Value::Illegal => Ok(v),
        _ => {
            Err(GenerateError::Missing(Material::of_position(child).map_or_else(|e| e.to_string(), |m| m.to_string())))
        }
    }
}

/// What step 1 hands on: the mated positions, and the events of each distance.
type SetUp = (Vec<u32>, Vec<Vec<Event>>);

/// Step 1: values and move counters of the canonical positions; returns the
/// mated ones and the events of the moves out of the ending.
fn set_up(lay: &Layout, outside: Outside, values: &mut [u8], counters: &mut [u8]) -> Result<SetUp, GenerateError> {
    let (n, k, block) = (lay.n, lay.k(), lay.block());
    // Each block's mated positions and its events with their distances.
    type Part = (Vec<u32>, Vec<(u8, Event)>);
    let parts: Vec<Result<Part, GenerateError>> = values
        .par_chunks_mut(block)
        .zip(counters.par_chunks_mut(block))
        .enumerate()
        .map(|(b, (values, counts))| {
            let (mut mated, mut events) = (Vec::new(), Vec::new());
            if lay.maps.least(b % n) != b % n {
                return Ok((mated, events));
            }
            for rest in 0..block {
                let (side, squares) = lay.decode(b * block + rest);
                if lay.maps.canonical(&squares, k) != squares {
                    continue;
                }
                let Some(pos) = lay.position(side, &squares) else { continue };
                let index = (b * block + rest) as u32;
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    values[rest] = if pos.in_check() { 1 } else { DRAW };
                    if pos.in_check() {
                        mated.push(index);
                    }
                    continue;
                }
                values[rest] = DRAW;
                let mut never_lost = false;
                let mut child = pos.clone();
                for &m in moves.iter() {
                    if pos.piece_at(m.to()).is_none() && m.promotion_kind().is_none() {
                        continue;
                    }
                    let undo = child.make(m);
                    let value = outside_value(&child, outside);
                    child.unmake(m, &undo);
                    match value? {
                        Value::Mate(e) => events.push((e, (index, e.is_multiple_of(2)))),
                        _ => never_lost = true,
                    }
                }
                counts[rest] = if never_lost {
                    NEVER_LOST
                } else {
                    u8::try_from(moves.len()).ok().filter(|&c| c < NEVER_LOST).ok_or(GenerateError::TooManyMoves)?
                };
            }
            Ok((mated, events))
        })
        .collect();
    let mut mated = Vec::new();
    let mut events: Vec<Vec<Event>> = Vec::new();
    for part in parts {
        let (m, e) = part?;
        mated.extend(m);
        for (d, event) in e {
            if events.len() <= d as usize {
                events.resize(d as usize + 1, Vec::new());
            }
            events[d as usize].push(event);
        }
    }
    Ok((mated, events))
}

/// Step 2: distances grown from the mated positions and the events.
fn retrograde(
    lay: &Layout,
    mated: Vec<u32>,
    mut events: Vec<Vec<Event>>,
    values: &mut [u8],
    counters: &mut [u8],
) -> Result<(), GenerateError> {
    let k = lay.k();
    let mut frontier = mated;
    let mut d: u8 = 0;
    let mut preds: Vec<Squares> = Vec::new();
    while !frontier.is_empty() || (d as usize) < events.len() {
        if d >= MAX_DISTANCE {
            return Err(GenerateError::TooLong);
        }
        let mut next = Vec::new();
        // A position of this distance for the opponent: a win in one more
        // (lost there), or one move fewer that does not lose (won there).
        let mut settle = |i: usize, lost_there: bool, next: &mut Vec<u32>| {
            if values[i] != DRAW || counters[i] == 0 {
                return;
            }
            if lost_there {
                values[i] = d + 2;
                next.push(i as u32);
            } else if counters[i] != NEVER_LOST {
                counters[i] -= 1;
                if counters[i] == 0 {
                    values[i] = d + 2;
                    next.push(i as u32);
                }
            }
        };
        for &c in &frontier {
            let (side, squares) = lay.decode(c as usize);
            if d.is_multiple_of(2) {
                lay.predecessors(side, &squares, |_| true, &mut preds);
                for q in &preds {
                    settle(lay.index(1 - side, &lay.maps.canonical(q, k)), true, &mut next);
                }
            } else {
                for image in lay.maps.images(&squares, k) {
                    lay.predecessors(side, &image, |q| lay.maps.canonical(q, k) == *q, &mut preds);
                    for q in &preds {
                        settle(lay.index(1 - side, q), false, &mut next);
                    }
                }
            }
        }
        if let Some(due) = events.get_mut(d as usize) {
            for (i, lost_there) in std::mem::take(due) {
                settle(i as usize, lost_there, &mut next);
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
