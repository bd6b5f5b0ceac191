//! Forced mates proved by brute force, and the tactics file that holds them
//! (`tests/data/mates.txt`, written by `examples/mates.rs`).
//!
//! A proof is a plain AND-OR search over legal moves: the attacker needs one
//! move after which every reply still faces mate, the defender's every move
//! is tried. Only moves that give check can mate, so the attacker's last move
//! is chosen among checks (decided before making them). No pruning, no table:
//! what it says is true by the rules alone.
//!
//! A line of the file: `variant ; N ; proof nodes ; key moves ; 3D-FEN`, for
//! example `haberkorn ; 2 ; 5321 ; h7-IIIh1-III h7-IIIh3-III ; 8/8/…/8 w - - 0 1`.
//! The key moves are every first move that mates in N; the proof count is
//! the number of positions the proof of the key moves visited. Lines starting
//! with `#` are comments.

use crate::core::{Move, Position, Variant, VariantKind};
use thiserror::Error;

/// Whether the side to move can force mate within `n` moves; `nodes` counts
/// the positions visited.
pub fn mate_within(pos: &mut Position, n: u32, nodes: &mut u64) -> bool {
    if n == 0 {
        return false;
    }
    let moves = pos.legal_moves();
    // Checks first: they are the likeliest mates and the only mates in one.
    let (checks, quiet): (Vec<Move>, Vec<Move>) = moves.iter().partition(|&&m| pos.gives_check(m));
    checks.into_iter().chain(if n > 1 { quiet } else { Vec::new() }).any(|m| mate_after(pos, m, n, nodes))
}

/// Whether playing `m` mates at once or leaves every reply facing mate
/// within `n - 1` moves.
pub fn mate_after(pos: &mut Position, m: Move, n: u32, nodes: &mut u64) -> bool {
    if n == 1 && !pos.gives_check(m) {
        return false;
    }
    *nodes += 1;
    let undo = pos.make(m);
    let replies = pos.legal_moves();
    let result = if replies.is_empty() {
        pos.in_check()
    } else if n <= 1 || pos.halfmove_clock() >= 100 {
        false
    } else {
        replies.iter().all(|&r| {
            *nodes += 1;
            let ru = pos.make(r);
            let ok = !pos.is_dead_material() && mate_within(pos, n - 1, nodes);
            pos.unmake(r, &ru);
            ok
        })
    };
    pos.unmake(m, &undo);
    result
}

/// A forced mate: the position, its length, every key move, and the proof's size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MateCase {
    /// The position (its variant and layer count come from the FEN).
    pub position: Position,
    /// Mate in this many moves, and not fewer.
    pub moves: u32,
    /// Every first move that forces mate in `moves`.
    pub keys: Vec<Move>,
    /// Positions the proof of the key moves visited.
    pub proof_nodes: u64,
}

/// A tactics line that cannot be read.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum TacticsError {
    /// Not five `;`-separated fields.
    #[error("expected 5 fields separated by ';', found {0}")]
    Fields(usize),
    /// Neither `hdc` nor `haberkorn`.
    #[error("unknown variant '{0}'")]
    Variant(String),
    /// A number field is not a number.
    #[error("bad {0}: '{1}'")]
    Number(&'static str, String),
    /// The FEN does not parse.
    #[error("bad FEN: {0}")]
    Fen(String),
    /// A key move is not legal in the position.
    #[error("key move '{0}' is not legal here")]
    Key(String),
}

impl MateCase {
    /// Proves the mate of `position` in exactly `moves`: `None` unless a mate
    /// in `moves` exists and none shorter does.
    pub fn prove(position: &Position, moves: u32) -> Option<MateCase> {
        let mut pos = position.clone();
        let mut scratch = 0;
        if moves > 1 && mate_within(&mut pos, moves - 1, &mut scratch) {
            return None;
        }
        let mut nodes = 0;
        let keys: Vec<Move> =
            pos.legal_moves().iter().copied().filter(|&m| mate_after(&mut pos, m, moves, &mut nodes)).collect();
        (!keys.is_empty()).then(|| MateCase { position: position.clone(), moves, keys, proof_nodes: nodes })
    }

    /// Reads one line of the tactics file.
    pub fn parse(line: &str) -> Result<MateCase, TacticsError> {
        let fields: Vec<&str> = line.split(';').map(str::trim).collect();
        if fields.len() != 5 {
            return Err(TacticsError::Fields(fields.len()));
        }
        let variant = match fields[0].parse::<VariantKind>() {
            Ok(VariantKind::Hdc) => Variant::hdc(),
            Ok(VariantKind::Haberkorn) => Variant::haberkorn(),
            Err(_) => return Err(TacticsError::Variant(fields[0].to_string())),
        };
        let moves = fields[1].parse().map_err(|_| TacticsError::Number("mate length", fields[1].to_string()))?;
        let proof_nodes = fields[2].parse().map_err(|_| TacticsError::Number("proof count", fields[2].to_string()))?;
        let position = Position::from_fen(fields[4], variant).map_err(|e| TacticsError::Fen(e.to_string()))?;
        let keys = fields[3]
            .split_whitespace()
            .map(|t| position.parse_move(t).map_err(|_| TacticsError::Key(t.to_string())))
            .collect::<Result<Vec<Move>, TacticsError>>()?;
        Ok(MateCase { position, moves, keys, proof_nodes })
    }

    /// The line of the tactics file for this case.
    pub fn line(&self) -> String {
        let variant = self.position.variant().kind;
        let keys: Vec<String> = self.keys.iter().map(|m| m.to_string()).collect();
        format!("{variant} ; {} ; {} ; {} ; {}", self.moves, self.proof_nodes, keys.join(" "), self.position.fen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MATE_IN_2: &str = "8/8/8/8/8/8/8/7k|8/8/8/8/8/8/8/8|8/7Q/8/8/8/8/8/5K2|8/2n5/8/8/8/8/8/8|8/5r2/8/8/8/8/8/8|8/8/8/8/8/8/8/8|8/8/8/2p5/8/8/8/8|8/8/8/8/8/8/3r4/8 w - - 0 1";

    #[test]
    fn the_published_haberkorn_mate_in_two_is_proved_with_both_keys() {
        let pos = Position::from_fen(MATE_IN_2, Variant::haberkorn()).unwrap();
        let case = MateCase::prove(&pos, 2).expect("a mate in 2");
        let keys: Vec<String> = case.keys.iter().map(|m| m.to_string()).collect();
        assert!(keys.contains(&"h7-IIIh1-III".to_string()) && keys.contains(&"h7-IIIh3-III".to_string()), "{keys:?}");
        assert!(MateCase::prove(&pos, 1).is_none());
        let back = MateCase::parse(&case.line()).unwrap();
        assert_eq!(back, case);
    }

    #[test]
    fn bad_lines_are_refused_with_the_reason() {
        assert_eq!(MateCase::parse("hdc ; 2"), Err(TacticsError::Fields(2)));
        assert!(matches!(MateCase::parse(&format!("chess ; 2 ; 1 ; a ; {MATE_IN_2}")), Err(TacticsError::Variant(_))));
        assert!(matches!(
            MateCase::parse(&format!("haberkorn ; x ; 1 ; a ; {MATE_IN_2}")),
            Err(TacticsError::Number(..))
        ));
        assert!(matches!(
            MateCase::parse(&format!("haberkorn ; 2 ; 1 ; a1-Ia2-I ; {MATE_IN_2}")),
            Err(TacticsError::Key(_))
        ));
    }
}
