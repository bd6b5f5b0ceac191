//! The match summary: per pairing statistics, standings, SPRT state, the
//! final table and the `--results-json` document.

use super::fingerprint::MatchIdentity;
use super::stats::{Sprt, SprtDecision, SprtModel, SprtStop, Tally, Verdict};
use crate::arena::shard::ShardSet;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The statistics of one pairing, from the first engine's point of view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairingSummary {
    /// The first engine.
    pub first: String,
    /// The second engine.
    pub second: String,
    /// Counts.
    #[serde(flatten)]
    pub tally: Tally,
    /// Games played.
    pub games: u32,
    /// Points of the first engine.
    pub points: f64,
    /// Mean score of the first engine.
    pub score: f64,
    /// Elo difference (first minus second); `null` in JSON when infinite.
    pub elo: f64,
    /// Half width of the 95% interval.
    pub elo_error: f64,
    /// Likelihood of superiority of the first engine.
    pub los: f64,
    /// Share of draws.
    pub draw_ratio: f64,
}

impl PairingSummary {
    /// Summarises a tally.
    pub fn new(first: &str, second: &str, tally: Tally) -> PairingSummary {
        PairingSummary {
            first: first.to_string(),
            second: second.to_string(),
            tally,
            games: tally.games(),
            points: tally.points(),
            score: tally.score(),
            elo: tally.elo(),
            elo_error: tally.elo_error(),
            los: tally.los(),
            draw_ratio: tally.draw_ratio(),
        }
    }
}

/// The SPRT state.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SprtSummary {
    /// Elo of H0.
    pub elo0: f64,
    /// Elo of H1.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
    /// Elo model.
    pub model: SprtModel,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// Game pairs played before the test may decide.
    pub min_pairs: u32,
    /// The decision so far.
    pub decision: SprtDecision,
    /// The test's verdict: the bound crossed, or the budget rule once every
    /// scheduled game is played ([`Sprt::verdict`]).
    pub verdict: Verdict,
    /// Why, in words.
    pub verdict_reason: String,
}

impl SprtSummary {
    /// The SPRT state of a tally after `pairs` game pairs; `budget_spent`
    /// when every scheduled game was played; `stop` where the SPRT stopped the match.
    pub fn new(sprt: &Sprt, tally: &Tally, pairs: u32, budget_spent: bool, stop: Option<SprtStop>) -> SprtSummary {
        let llr = sprt.llr(tally);
        let (lower, upper) = sprt.bounds();
        let (verdict, verdict_reason) = sprt.verdict(tally, pairs, budget_spent, stop);
        SprtSummary {
            elo0: sprt.elo0,
            elo1: sprt.elo1,
            alpha: sprt.alpha,
            beta: sprt.beta,
            model: sprt.model,
            llr,
            lower,
            upper,
            min_pairs: sprt.min_pairs,
            decision: stop.map_or_else(|| sprt.decision_after(llr, pairs), |s| s.decision),
            verdict,
            verdict_reason,
        }
    }
}

/// One engine's total over all its pairings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    /// The engine.
    pub name: String,
    /// Games played.
    pub games: u32,
    /// Points scored.
    pub points: f64,
    /// Lines `info string error…` the engine wrote during the match.
    #[serde(default)]
    pub error_lines: u64,
}

/// Everything a script needs after a match.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchSummary {
    /// Engine names in command-line order.
    pub engines: Vec<String>,
    /// Games finished.
    pub games: u64,
    /// Games scheduled.
    pub scheduled: u64,
    /// Whether the SPRT stopped the match early.
    pub stopped_early: bool,
    /// Per pairing.
    pub pairings: Vec<PairingSummary>,
    /// Per engine, best first.
    pub standings: Vec<Standing>,
    /// Games per termination.
    pub terminations: BTreeMap<String, u32>,
    /// The SPRT, if one ran (two engines only).
    pub sprt: Option<SprtSummary>,
    /// The shards these results hold (`1/1` for an unsharded match).
    pub shards: ShardSet,
    /// The fingerprint of `identity`: shards merge only with the same one.
    pub fingerprint: String,
    /// What makes results files shards of one match (the JSON's `match`).
    #[serde(rename = "match")]
    pub identity: MatchIdentity,
}

/// A signed Elo value, `±inf` when the score is 0 or 1.
pub fn fmt_elo(e: f64) -> String {
    if e.is_infinite() { if e > 0.0 { "+inf".into() } else { "-inf".into() } } else { format!("{e:+.1}") }
}

/// An Elo error, `inf` when unknown.
pub fn fmt_err(e: f64) -> String {
    if e.is_finite() { format!("{e:.1}") } else { "inf".into() }
}

impl MatchSummary {
    /// The final summary as a text table.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<20} {:<20} {:>5} {:>5} {:>5} {:>5} {:>7} {:>7} {:>9} {:>7} {:>6}  pentanomial [0,½,1,1½,2]",
            "engine", "opponent", "games", "W", "D", "L", "score", "Elo", "±95%", "LOS", "draws"
        );
        for p in &self.pairings {
            let t = &p.tally;
            let _ = writeln!(
                s,
                "{:<20} {:<20} {:>5} {:>5} {:>5} {:>5} {:>6.1}% {:>7} {:>9} {:>6.1}% {:>5.1}%  [{}]",
                p.first,
                p.second,
                p.games,
                t.wins,
                t.draws,
                t.losses,
                100.0 * p.score,
                fmt_elo(p.elo),
                fmt_err(p.elo_error),
                100.0 * p.los,
                100.0 * p.draw_ratio,
                t.penta.map(|c| c.to_string()).join(", ")
            );
        }
        if self.standings.len() > 2 {
            let _ = writeln!(s, "\nstandings:");
            for (i, st) in self.standings.iter().enumerate() {
                let _ = writeln!(s, "{:>3}. {:<20} {:>6.1} / {}", i + 1, st.name, st.points, st.games);
            }
        }
        if let Some(sp) = &self.sprt {
            let _ = writeln!(
                s,
                "\nSPRT ({}) elo0={} elo1={} alpha={} beta={} minpairs={}: LLR {:.2} in [{:.2}, {:.2}]: {}",
                sp.model, sp.elo0, sp.elo1, sp.alpha, sp.beta, sp.min_pairs, sp.llr, sp.lower, sp.upper, sp.decision
            );
            let _ = writeln!(s, "Decision: {} ({})", sp.verdict, sp.verdict_reason);
        }
        let ends: Vec<String> = self.terminations.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(s, "\n{} of {} games; ends: {}", self.games, self.scheduled, ends.join(", "));
        if self.shards.count > 1 {
            let _ = writeln!(s, "shards: {} (match {})", self.shards, self.fingerprint);
        }
        if self.stopped_early {
            let _ = writeln!(s, "stopped early by the SPRT");
        }
        s
    }
}
