//! The games of a match, computed from their index when asked for: the
//! pairings (round robin or gauntlet), rounds, colours and the shard that
//! plays each block.

use super::config::MatchConfig;
use super::shard::Shard;

/// One scheduled game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ScheduledGame {
    pub(super) pairing: usize,
    pub(super) round: u32,
    pub(super) game: u32,
    pub(super) white: usize,
    pub(super) black: usize,
}

/// The pairings of `engines` engines by index: round robin, or the first
/// against each other one (a gauntlet, or the one pairing of two engines).
pub fn pairings(engines: usize, gauntlet: bool) -> Vec<(usize, usize)> {
    if gauntlet || engines == 2 {
        (1..engines).map(|j| (0, j)).collect()
    } else {
        (0..engines).flat_map(|i| (i + 1..engines).map(move |j| (i, j))).collect()
    }
}

/// The games of a match (or of one shard of it), computed from their index
/// when asked for: a schedule of 2³² rounds costs no memory.
pub(super) struct Schedule {
    pub(super) pairings: Vec<(usize, usize)>,
    rounds: u32,
    pub(super) games_per_round: u32,
    repeat: bool,
    noswap: bool,
    shard: Shard,
}

impl Schedule {
    /// The schedule of `cfg`: round robin (or gauntlet, or the one pairing of two engines), then its shard.
    pub(super) fn new(cfg: &MatchConfig) -> Schedule {
        let games_per_round = cfg.games.unwrap_or(if cfg.repeat { 2 } else { 1 });
        Schedule {
            pairings: pairings(cfg.engines.len(), cfg.gauntlet),
            rounds: cfg.rounds,
            games_per_round,
            repeat: cfg.repeat,
            noswap: cfg.noswap,
            shard: cfg.shard,
        }
    }

    /// Blocks of the whole match: one per round and pairing.
    pub(super) fn blocks(&self) -> u64 {
        u64::from(self.rounds) * self.pairings.len() as u64
    }

    /// How many games this shard plays (all of them when unsharded).
    pub(super) fn len(&self) -> u64 {
        self.shard.len_of(self.blocks()) * u64::from(self.games_per_round)
    }

    /// This shard's game `index` (from 0): its blocks in order, the games of each block in order.
    pub(super) fn job(&self, index: u64) -> Option<ScheduledGame> {
        let per_block = u64::from(self.games_per_round);
        let block = self.shard.unit(index / per_block, self.blocks())?;
        self.match_job(block * per_block + index % per_block)
    }

    /// Game `index` (from 0) of the whole match: round by round, pairing by
    /// pairing; colours alternate within a round with `repeat`, else from
    /// round to round.
    fn match_job(&self, index: u64) -> Option<ScheduledGame> {
        if index >= self.blocks() * u64::from(self.games_per_round) {
            return None;
        }
        let per_round = self.pairings.len() as u64 * u64::from(self.games_per_round);
        let round = (index / per_round) as u32;
        let pairing = (index % per_round / u64::from(self.games_per_round)) as usize;
        let game = (index % u64::from(self.games_per_round)) as u32;
        let (a, b) = self.pairings[pairing];
        let colour_index = if self.repeat {
            u64::from(game)
        } else {
            u64::from(round) * u64::from(self.games_per_round) + u64::from(game)
        };
        let (white, black) = if colour_index % 2 == 1 && !self.noswap { (b, a) } else { (a, b) };
        Some(ScheduledGame { pairing, round, game, white, black })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::config::{Adjudication, EngineSpec};
    use crate::core::Variant;

    fn config(engines: usize, rounds: u32, repeat: bool) -> MatchConfig {
        let spec = EngineSpec::parse(&[], &["cmd=x".to_string(), "depth=1".to_string()]).unwrap();
        MatchConfig {
            engines: vec![spec; engines],
            gauntlet: false,
            variant: Variant::hdc(),
            openings: None,
            random_plies: 0,
            constellations: false,
            repeat,
            rounds,
            games: None,
            concurrency: 1,
            seed: 1,
            adjudication: Adjudication::default(),
            sprt: None,
            pgnout: None,
            results_json: None,
            log: None,
            shard: Shard::whole(),
            ..MatchConfig::default()
        }
    }

    /// Issue 12: `--rounds 4294967295` allocated the whole schedule and aborted.
    #[test]
    fn the_schedule_is_computed_lazily() {
        let s = Schedule::new(&config(2, u32::MAX, true));
        assert_eq!(s.len(), 2 * u64::from(u32::MAX));
        let last = s.job(s.len() - 1).unwrap();
        assert_eq!((last.round, last.game, last.white, last.black), (u32::MAX - 1, 1, 1, 0));
        assert_eq!(s.job(s.len()), None);
        // Round robin of three, colours alternating by round without repeat.
        let s = Schedule::new(&config(3, 2, false));
        let jobs: Vec<(u32, usize, usize)> =
            (0..s.len()).map(|i| s.job(i).unwrap()).map(|j| (j.round, j.white, j.black)).collect();
        assert_eq!(jobs, [(0, 0, 1), (0, 0, 2), (0, 1, 2), (1, 1, 0), (1, 2, 0), (1, 2, 1)]);
    }

    /// The shards of a schedule are disjoint, keep every block's games
    /// together and together are exactly the unsharded schedule.
    #[test]
    fn shards_partition_the_schedule() {
        for (engines, rounds, repeat, games) in [(2, 7, true, None), (3, 5, false, None), (4, 3, true, Some(3))] {
            let mut cfg = config(engines, rounds, repeat);
            cfg.games = games;
            let whole = Schedule::new(&cfg);
            let all: Vec<ScheduledGame> = (0..whole.len()).map(|i| whole.job(i).unwrap()).collect();
            for n in [1, 2, 4, 6, 40] {
                let mut union = Vec::new();
                for k in 1..=n {
                    cfg.shard = Shard::new(k, n).unwrap();
                    let s = Schedule::new(&cfg);
                    let jobs: Vec<ScheduledGame> = (0..s.len()).map(|i| s.job(i).unwrap()).collect();
                    assert_eq!(s.job(s.len()), None);
                    for block in jobs.chunks(s.games_per_round as usize) {
                        assert!(block.iter().all(|j| (j.round, j.pairing) == (block[0].round, block[0].pairing)));
                    }
                    union.extend(jobs);
                }
                union.sort_by_key(|j| (j.round, j.pairing, j.game));
                assert_eq!(union, all, "{engines} engines, {rounds} rounds, {n} shards");
            }
        }
        // A lazily scheduled huge match splits too.
        let mut cfg = config(2, u32::MAX, true);
        cfg.shard = Shard::new(3, 3).unwrap();
        let s = Schedule::new(&cfg);
        assert_eq!(s.len(), 2 * u64::from(u32::MAX / 3));
        assert_eq!(s.job(0).map(|j| j.round), Some(2));
        assert_eq!(s.job(s.len() - 1).map(|j| j.round), Some(u32::MAX - 1));
    }
}
