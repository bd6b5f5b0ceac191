//! Time management: a soft limit (do not start another iteration after it)
//! and a hard limit (stop the search wherever it is) from the `go` limits.
//!
//! With a clock, the soft limit is the remaining time shared over the moves
//! to go (`movestogo`, else 50) plus three quarters of the increment, at most
//! 40% of the clock; the hard limit is three times the soft one, at most 60%
//! of the clock. A new iteration starts only before 55% of the (scaled) soft
//! limit, since it usually takes longer than all earlier ones together
//! (every one of these numbers is a tunable of `params.rs`). The search may
//! stretch the soft limit while its best move is unstable and shrink it
//! when the best move holds. `Move Overhead` is kept back from
//! every figure. `movetime` is a hard limit only: the search uses all of it,
//! as Stockfish does.

use super::limits::Limits;
use super::params::Tunables;
use crate::core::Color;
#[cfg(test)]
use crate::core::VariantKind;
use std::time::{Duration, Instant};

/// The time budget of one search.
#[derive(Clone, Debug)]
pub struct TimeManager {
    start: Instant,
    soft: Option<Duration>,
    hard: Option<Duration>,
    /// A new iteration starts only before this share of the (scaled) soft limit.
    iteration: f64,
}

impl TimeManager {
    /// The budget for `limits` with `side` to move, started now.
    #[cfg(test)]
    pub fn new(limits: &Limits, side: Color, move_overhead: Duration) -> TimeManager {
        TimeManager::starting_at(limits, side, move_overhead, Instant::now())
    }

    /// The budget for `limits`, counted from `start`, with the default tunables
    /// (those of hdc; the time numbers start equal in both games).
    #[cfg(test)]
    pub fn starting_at(limits: &Limits, side: Color, move_overhead: Duration, start: Instant) -> TimeManager {
        TimeManager::with_tunables(limits, side, move_overhead, start, &Tunables::defaults(VariantKind::Hdc))
    }

    /// The budget for `limits`, counted from `start`, with the time numbers of `t`.
    pub fn with_tunables(
        limits: &Limits,
        side: Color,
        move_overhead: Duration,
        start: Instant,
        t: &Tunables,
    ) -> TimeManager {
        let floor = Duration::from_millis(1);
        if limits.infinite {
            return TimeManager { start, soft: None, hard: None, iteration: 0.55 };
        }
        if let Some(mt) = limits.movetime {
            let t = mt.saturating_sub(move_overhead).max(floor);
            // Stockfish's behaviour: a fixed move time is used up, so no soft limit ends it early.
            return TimeManager { start, soft: None, hard: Some(t), iteration: 0.55 };
        }
        let (time, inc) = match side {
            Color::White => (limits.wtime, limits.winc),
            Color::Black => (limits.btime, limits.binc),
        };
        let Some(time) = time else {
            return TimeManager { start, soft: None, hard: None, iteration: 0.55 };
        };
        let inc = inc.unwrap_or_default();
        let left = time.saturating_sub(move_overhead).max(floor);
        let pct = |p: i32| p as f64 / 100.0;
        let mtg = limits.movestogo.unwrap_or(t.tm_moves_to_go as u32).clamp(1, 60);
        let soft =
            (left / mtg + inc.mul_f64(pct(t.tm_increment_pct))).min(left.mul_f64(pct(t.tm_soft_max_pct))).max(floor);
        let hard = (soft * t.tm_hard_factor as u32).min(left.mul_f64(pct(t.tm_hard_max_pct))).max(soft);
        TimeManager { start, soft: Some(soft), hard: Some(hard), iteration: pct(t.tm_iteration_pct) }
    }

    /// Time since the search started.
    #[inline]
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The soft limit, if any.
    #[cfg(test)]
    pub fn soft(&self) -> Option<Duration> {
        self.soft
    }

    /// The hard limit, if any.
    #[cfg(test)]
    pub fn hard(&self) -> Option<Duration> {
        self.hard
    }

    /// Whether the hard limit has passed.
    #[inline]
    pub fn hard_exceeded(&self) -> bool {
        self.hard.is_some_and(|h| self.elapsed() >= h)
    }

    /// Whether a new iteration should not start: past the soft limit scaled by
    /// `factor` (above 1 while the best move changes, below 1 while it holds).
    pub fn soft_exceeded(&self, factor: f64) -> bool {
        self.soft.is_some_and(|s| self.elapsed() >= s.mul_f64(factor * self.iteration).min(self.hard.unwrap_or(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Option<Duration> {
        Some(Duration::from_millis(v))
    }

    #[test]
    fn clock_budget_stays_inside_the_clock() {
        let limits = Limits { wtime: ms(60_000), btime: ms(1_000), winc: ms(1_000), ..Limits::default() };
        let overhead = Duration::from_millis(10);
        let w = TimeManager::new(&limits, Color::White, overhead);
        assert_eq!(w.soft(), Some(Duration::from_millis(59_990) / 50 + Duration::from_millis(750)));
        assert!(w.hard().unwrap() <= Duration::from_millis(59_990).mul_f64(0.6));
        let b = TimeManager::new(&limits, Color::Black, overhead);
        assert!(b.hard().unwrap() < Duration::from_millis(1_000));
        let last = Limits { wtime: ms(500), movestogo: Some(1), ..Limits::default() };
        let l = TimeManager::new(&last, Color::White, overhead);
        assert!(l.soft().unwrap() <= Duration::from_millis(200) && l.hard().unwrap() < Duration::from_millis(300));
    }

    #[test]
    fn movetime_and_no_clock() {
        let limits = Limits { movetime: ms(100), ..Limits::default() };
        let t = TimeManager::new(&limits, Color::Black, Duration::from_millis(10));
        assert_eq!((t.soft(), t.hard()), (None, ms(90)));
        let none = TimeManager::new(&Limits { depth: Some(5), ..Limits::default() }, Color::White, Duration::ZERO);
        assert!(none.hard().is_none() && !none.soft_exceeded(1.0) && !none.hard_exceeded());
    }
}
