//! The one way from `go` to a move: the search (or the full-width
//! alpha-beta baseline) on the engine's threads, or a test baseline
//! (`greedy`, `random`) chosen at once.

use super::limits::Strategy;
use super::params::{GameSwitches, SearchParams, Switches};
use super::report::{Info, Report};
use super::score::Score;
use super::threads::{self, SearchJob, ThreadPool};
use crate::core::Move;
use crate::eval::values::material_gain;
use rand::seq::IndexedRandom;

/// Chooses a move for the job's position as `settings.strategy` says;
/// returns the move (`None` when there is none) and the expected reply.
pub fn choose(pool: &ThreadPool, job: SearchJob, report: &mut dyn FnMut(Report)) -> (Option<Move>, Option<Move>) {
    match job.settings.strategy {
        Strategy::Search => threads::run_on(pool, job, report),
        Strategy::AlphaBeta => {
            let params = SearchParams { switches: GameSwitches::every_game(Switches::FULL_WIDTH), ..job.params };
            threads::run_on(pool, SearchJob { params, ..job }, report)
        }
        Strategy::Random => (job.limits.root_moves(job.pos).choose(&mut rand::rng()).copied(), None),
        Strategy::Greedy => greedy(job, report),
    }
}

/// The move that wins the most material at once, ties broken at random.
fn greedy(job: SearchJob, report: &mut dyn FnMut(Report)) -> (Option<Move>, Option<Move>) {
    let (pos, moves) = (job.pos, job.limits.root_moves(job.pos));
    if moves.is_empty() {
        return (None, None);
    }
    let best = moves.iter().map(|&m| material_gain(pos, m)).max().unwrap_or(0);
    let ties: Vec<Move> = moves.iter().copied().filter(|&m| material_gain(pos, m) == best).collect();
    let chosen = ties.choose(&mut rand::rng()).copied();
    report(Report::Info(Info {
        depth: 1,
        seldepth: 1,
        multipv: 1,
        score: Score::Cp(best),
        bound: Default::default(),
        nodes: moves.len() as u64,
        nps: 0,
        hashfull: 0,
        tbhits: 0,
        time_ms: 0,
        pv: chosen.into_iter().collect(),
    }));
    (chosen, None)
}
