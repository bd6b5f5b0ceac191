//! Perft: the number of leaf nodes of the legal move tree, the move
//! generator's correctness check and speed benchmark.

use crate::core::{Move, MoveList, Position};
use std::sync::atomic::{AtomicBool, Ordering};

/// Leaf nodes at `depth`, counting the last ply in bulk (no make at the leaves).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal(),
        _ => {
            let mut list = MoveList::new();
            pos.generate(&mut list);
            let mut nodes = 0;
            for &m in &list {
                let undo = pos.make(m);
                nodes += perft(pos, depth - 1);
                pos.unmake(m, &undo);
            }
            nodes
        }
    }
}

/// [`perft`] that gives up, returning `None`, once `stop` is set (checked
/// at every node two or more plies above the leaves, so it reacts within a
/// perft(2) of work).
pub fn perft_stoppable(pos: &mut Position, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    if depth <= 2 {
        return Some(perft(pos, depth));
    }
    let mut list = MoveList::new();
    pos.generate(&mut list);
    let mut nodes = 0;
    for &m in &list {
        let undo = pos.make(m);
        let n = perft_stoppable(pos, depth - 1, stop);
        pos.unmake(m, &undo);
        nodes += n?;
    }
    Some(nodes)
}

/// Leaf nodes at `depth`, making every move including the last ply (no bulk counting).
pub fn perft_full(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    pos.generate(&mut list);
    let mut nodes = 0;
    for &m in &list {
        let undo = pos.make(m);
        nodes += perft_full(pos, depth - 1);
        pos.unmake(m, &undo);
    }
    nodes
}

/// Perft split by root move, in generation order (empty at depth 0).
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let list = pos.legal_moves();
    list.into_iter()
        .map(|m| {
            let undo = pos.make(m);
            let n = if depth <= 1 { 1 } else { perft(pos, depth - 1) };
            pos.unmake(m, &undo);
            (m, n)
        })
        .collect()
}
