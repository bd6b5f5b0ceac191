//! Playing levels for people (`Skill Level`, `UCI_LimitStrength`,
//! `UCI_Elo`), done as Stockfish does it and outside the search itself: a
//! weakened search looks only `1 + level` plies deep with at least
//! [`MIN_LINES`] principal variations, and afterwards a move is picked among
//! those lines with random noise that grows as the level falls, so a weak
//! level mostly plays a reasonable move and sometimes a clearly worse one.
//!
//! The levels' strength was measured with `cubist match` against the
//! `greedy` and `random` baselines (docs/performance.md, "Playing levels"); `UCI_Elo` maps
//! onto the levels through those measurements ([`level_for_elo`]).

use super::score::Score;
use crate::core::Move;
use rand::RngExt;

/// The full-strength level: no weakening.
pub const MAX_LEVEL: u8 = 20;

/// Lines a weakened search considers at least (Stockfish's 4).
pub const MIN_LINES: usize = 4;

/// The lowest `UCI_Elo` accepted: level 0.
pub const MIN_ELO: i64 = 640;
/// The highest `UCI_Elo` accepted: level 19, just below full strength.
pub const MAX_ELO: i64 = 1320;

/// The Elo of the levels on Cubist's own scale, where the uniformly `random`
/// mover is 0: `(level, elo)`, ascending, levels in between interpolated.
/// Measured with `cubist match` in haberkorn at 0.1 s per move (docs/performance.md,
/// "Playing levels"): level 0 scored 19½/20 against `random` (+636), level 5
/// 19/20 against level 0 (+512), level 10 11½/20 against level 5 (+52), full
/// strength 13½/20 against level 10 (+127, so about 1330). Level 19 is put
/// just below full strength; the steps carry ±160 Elo or more.
pub const LEVEL_ELO: [(u8, i64); 4] = [(0, 640), (5, 1150), (10, 1200), (19, 1320)];

/// The level whose measured Elo is closest to `elo` (clamped to
/// [`MIN_ELO`]..=[`MAX_ELO`]), interpolating linearly between the measured
/// levels of [`LEVEL_ELO`].
pub fn level_for_elo(elo: i64) -> u8 {
    let elo = elo.clamp(MIN_ELO, MAX_ELO);
    for pair in LEVEL_ELO.windows(2) {
        let ((l0, e0), (l1, e1)) = (pair[0], pair[1]);
        if elo <= e1 {
            let t = (elo - e0) as f64 / (e1 - e0) as f64;
            return (f64::from(l0) + t * f64::from(l1 - l0)).round() as u8;
        }
    }
    LEVEL_ELO[LEVEL_ELO.len() - 1].0
}

/// The depth a search at `level` looks ahead (Stockfish: it picks at depth `1 + level`).
pub fn depth_limit(level: u8) -> u32 {
    1 + u32::from(level)
}

/// A line's score in centipawns for the pick (mates as large values).
fn centipawns(score: Score) -> i32 {
    match score {
        Score::Cp(cp) => cp,
        Score::Mate(n) if n > 0 => 30_000 - n,
        Score::Mate(n) => -30_000 - n,
    }
}

/// Picks the move to play at `level` among `lines` (first move and score of
/// each principal variation, best first), Stockfish's way: every line's
/// score gets a push that is the larger the weaker the level and the worse
/// the line, plus a random part up to the spread of the lines (at most a
/// pawn); the line with the highest pushed score is played. `None` without lines.
pub fn pick(level: u8, lines: &[(Move, Score)], rng: &mut impl rand::Rng) -> Option<Move> {
    let top = centipawns(lines.first()?.1);
    let weakness = 120 - 2 * i32::from(level.min(MAX_LEVEL - 1));
    let last = centipawns(lines[lines.len() - 1].1);
    let delta = (top - last).clamp(0, 100);
    let mut best = (i32::MIN, lines[0].0);
    for &(m, score) in lines {
        let cp = centipawns(score);
        let push = (weakness * (top - cp) + delta * rng.random_range(0..weakness)) / 128;
        // `>=` as in Stockfish: of equal pushed scores the later (worse) line wins.
        if cp + push >= best.0 {
            best = (cp + push, m);
        }
    }
    Some(best.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Position, Variant};
    use rand::SeedableRng;

    #[test]
    fn elo_maps_onto_levels_monotonically() {
        assert_eq!(level_for_elo(0), 0);
        assert_eq!(level_for_elo(MIN_ELO), 0);
        assert_eq!(level_for_elo(MAX_ELO), 19);
        assert_eq!(level_for_elo(100_000), 19);
        let mut last = 0;
        for elo in MIN_ELO..=MAX_ELO {
            let l = level_for_elo(elo);
            assert!(l >= last && l < MAX_LEVEL, "{elo} -> {l}");
            last = l;
        }
    }

    #[test]
    fn weak_levels_sometimes_leave_the_best_line_and_strong_ones_rarely() {
        let pos = Position::start(Variant::hdc());
        let ms = pos.legal_moves();
        let lines = [(ms[0], Score::Cp(50)), (ms[1], Score::Cp(20)), (ms[2], Score::Cp(-30)), (ms[3], Score::Cp(-200))];
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut off_best = |level: u8| (0..2000).filter(|_| pick(level, &lines, &mut rng) != Some(ms[0])).count();
        let (weak, strong) = (off_best(0), off_best(19));
        assert!(weak > 400, "level 0 left the best line {weak} times in 2000");
        assert!(strong < weak, "level 19 left it {strong} times, level 0 {weak}");
        assert_eq!(pick(5, &[], &mut rng), None);
        // A single line is always played.
        assert_eq!(pick(0, &lines[..1], &mut rng), Some(ms[0]));
    }
}
