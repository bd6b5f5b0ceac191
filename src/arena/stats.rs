//! Match statistics: W/D/L, score, Elo with a 95% interval, LOS, draw ratio,
//! pentanomial counts of paired games, the SPRT log-likelihood ratio and a
//! test's verdict, by its bounds or at its game budget ([`Verdict`]).
//!
//! The SPRT is the generalised SPRT (GSPRT) in the normal approximation of
//! Michel Van den Bergh, as fishtest and fastchess compute it: with `n`
//! observations (games, or game pairs in the pentanomial model) of mean
//! score `x̄` and variance `σ²`, and the hypotheses' expected scores `s0`,
//! `s1`,
//!
//! `LLR = n · (s1 − s0) · (2·x̄ − s0 − s1) / (2·σ²)`.
//!
//! The `logistic` model reads `elo0`/`elo1` as logistic Elo
//! (`s = 1 / (1 + 10^(−elo/400))`); the `normalized` model (the default, as in
//! fastchess) reads them as normalised Elo, `s = 0.5 + nelo · σ_g / (800 / ln 10)`
//! where `σ_g` is the per-game standard deviation (`σ` for W/D/L,
//! `√2·σ_pair` for pairs).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The 97.5% quantile of the standard normal distribution (two-sided 95%).
const Z95: f64 = 1.959_963_984_540_054;

/// `800 / ln 10`: normalised Elo per unit of t-value.
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// Results counted from one engine's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Finished game pairs by points scored in the pair: `[0, ½, 1, 1½, 2]`
    /// (LL, LD, WL+DD, WD, WW).
    pub penta: [u32; 5],
}

impl Tally {
    /// Counts one game with this many points (0, 0.5 or 1) for our engine.
    pub fn add_game(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Counts one finished pair of games with `half_points` (0..=4) for our engine.
    pub fn add_pair(&mut self, half_points: usize) {
        self.penta[half_points.min(4)] += 1;
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u32 {
        self.penta.iter().sum()
    }

    /// Points scored.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Mean score per game (0..1), 0.5 with no games.
    pub fn score(&self) -> f64 {
        match self.games() {
            0 => 0.5,
            n => self.points() / n as f64,
        }
    }

    /// Share of drawn games.
    pub fn draw_ratio(&self) -> f64 {
        match self.games() {
            0 => 0.0,
            n => self.draws as f64 / n as f64,
        }
    }

    /// Logistic Elo difference of the score.
    pub fn elo(&self) -> f64 {
        elo_from_score(self.score())
    }

    /// Half the width of the 95% confidence interval of the Elo difference,
    /// from the pentanomial variance where pairs exist, else the trinomial.
    pub fn elo_error(&self) -> f64 {
        let Some(m) = self.moments() else { return f64::INFINITY };
        // A score of 0% or 100% has no finite Elo, so no finite interval either
        // (shown as `±inf` in the table and `null` in the JSON, like the Elo itself).
        if !self.elo().is_finite() {
            return f64::INFINITY;
        }
        if m.variance <= 0.0 {
            return 0.0;
        }
        let sd = (m.variance / m.count).sqrt();
        let lo = elo_from_score(m.mean - Z95 * sd);
        let hi = elo_from_score(m.mean + Z95 * sd);
        (hi - lo) / 2.0
    }

    /// Likelihood of superiority: the probability that our engine is the stronger.
    pub fn los(&self) -> f64 {
        los(self.wins, self.losses)
    }

    /// Mean, variance and count of the per-unit score: per finished pair
    /// (scaled to 0..1) once there are pairs, else per game. `floor` replaces
    /// empty outcome counts (the SPRT's regularisation, as in fastchess).
    fn moments_with(&self, floor: f64) -> Option<Moments> {
        let n = |c: u32| if c == 0 { floor } else { c as f64 };
        if self.pairs() > 0 {
            let outcomes: Vec<(f64, f64)> =
                self.penta.iter().enumerate().map(|(i, &c)| (i as f64 / 4.0, n(c))).collect();
            Moments::of(&outcomes, true)
        } else if self.games() > 0 {
            Moments::of(&[(0.0, n(self.losses)), (0.5, n(self.draws)), (1.0, n(self.wins))], false)
        } else {
            None
        }
    }

    /// The sample's own moments.
    fn moments(&self) -> Option<Moments> {
        self.moments_with(0.0)
    }
}

/// Mean and variance of a discrete sample.
#[derive(Clone, Copy, Debug)]
struct Moments {
    /// Observations.
    count: f64,
    /// Mean score per observation.
    mean: f64,
    /// Variance of one observation.
    variance: f64,
    /// Whether the observations are game pairs.
    paired: bool,
}

impl Moments {
    fn of(outcomes: &[(f64, f64)], paired: bool) -> Option<Moments> {
        let count: f64 = outcomes.iter().map(|&(_, n)| n).sum();
        if count == 0.0 {
            return None;
        }
        let mean = outcomes.iter().map(|&(x, n)| x * n).sum::<f64>() / count;
        let variance = outcomes.iter().map(|&(x, n)| n * (x - mean).powi(2)).sum::<f64>() / count;
        Some(Moments { count, mean, variance, paired })
    }
}

/// The logistic Elo difference that gives this expected score.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        // `+ 0.0` turns −0 into 0 for display.
        -400.0 * (1.0 / score - 1.0).log10() + 0.0
    }
}

/// The expected score of a logistic Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Likelihood of superiority from wins and losses: `½·(1 + erf((W − L) / √(2·(W + L))))`.
pub fn los(wins: u32, losses: u32) -> f64 {
    if wins + losses == 0 {
        return 0.5;
    }
    0.5 * (1.0 + erf((wins as f64 - losses as f64) / (2.0 * (wins + losses) as f64).sqrt()))
}

/// The error function (Abramowitz & Stegun 7.1.26, absolute error below 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly =
        t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x < 0.0 { -y } else { y }
}

/// How the SPRT reads its Elo bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtModel {
    /// Normalised Elo (fastchess's default).
    Normalized,
    /// Logistic Elo.
    Logistic,
}

impl std::fmt::Display for SprtModel {
    /// `normalized` or `logistic`, as `--sprt model=` takes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SprtModel::Normalized => "normalized",
            SprtModel::Logistic => "logistic",
        })
    }
}

/// What an SPRT concluded so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SprtDecision {
    /// Keep playing.
    Continue,
    /// The lower bound was crossed: H0 (elo ≤ elo0) accepted.
    H0,
    /// The upper bound was crossed: H1 (elo ≥ elo1) accepted.
    H1,
}

impl fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtDecision::Continue => "continue",
            SprtDecision::H0 => "H0 accepted",
            SprtDecision::H1 => "H1 accepted",
        })
    }
}

/// Where an SPRT stopped its match: the bound it crossed, its LLR and the
/// games counted then. Games in play at that moment still finish and are
/// counted after it; they can move the LLR back inside the bounds, but the
/// test was decided when it stopped.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtStop {
    /// The bound crossed (H0 or H1).
    pub decision: SprtDecision,
    /// The LLR that crossed it.
    pub llr: f64,
    /// The games counted when it crossed.
    pub games: u32,
}

/// What a test concluded: its SPRT's bound, or at its game budget the
/// budget rule (see [`Sprt::verdict`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// H1, or at the budget the 95% interval lies above `elo0`: the change is kept.
    Accepted,
    /// H0, or at the budget the 95% interval reaches `elo0`: the change is not kept.
    Rejected,
    /// Neither bound crossed and the budget not spent: the test goes on.
    Undecided,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Accepted => "accepted",
            Verdict::Rejected => "rejected",
            Verdict::Undecided => "undecided",
        })
    }
}

/// A sequential probability ratio test `elo0 elo1 alpha beta`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// Elo of the null hypothesis.
    pub elo0: f64,
    /// Elo of the alternative hypothesis.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
    /// How the Elo bounds are read.
    pub model: SprtModel,
    /// Game pairs (games without `--repeat`'s pairs, halved) before the test may decide.
    pub min_pairs: u32,
}

/// Game pairs an SPRT plays at least before it may decide (`--sprt minpairs=` changes it).
pub const DEFAULT_SPRT_MIN_PAIRS: u32 = 10;

impl Sprt {
    /// Checks the parameters: `elo0 < elo1`, `0 < alpha, beta` and `alpha + beta < 1`.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64, model: SprtModel) -> Result<Sprt, String> {
        if elo0.partial_cmp(&elo1) != Some(std::cmp::Ordering::Less) {
            return Err(format!("SPRT needs elo0 < elo1 (got {elo0} and {elo1})"));
        }
        if !(alpha > 0.0 && beta > 0.0 && alpha + beta < 1.0) {
            return Err(format!("SPRT needs alpha > 0, beta > 0 and alpha + beta < 1 (got {alpha} and {beta})"));
        }
        Ok(Sprt { elo0, elo1, alpha, beta, model, min_pairs: DEFAULT_SPRT_MIN_PAIRS })
    }

    /// The LLR bounds `(ln(β/(1−α)), ln((1−β)/α))`.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of the results (pentanomial once there are
    /// pairs). Empty outcome counts are taken as 0.001, as fastchess does, so
    /// that a one-sided result (all wins) still moves the LLR.
    pub fn llr(&self, tally: &Tally) -> f64 {
        let Some(m) = tally.moments_with(1e-3) else { return 0.0 };
        if m.variance <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = match self.model {
            SprtModel::Logistic => (score_from_elo(self.elo0), score_from_elo(self.elo1)),
            SprtModel::Normalized => {
                let per_game_sd = if m.paired { (2.0 * m.variance).sqrt() } else { m.variance.sqrt() };
                (0.5 + self.elo0 * per_game_sd / NELO_PER_T, 0.5 + self.elo1 * per_game_sd / NELO_PER_T)
            }
        };
        m.count * (s1 - s0) * (2.0 * m.mean - s0 - s1) / (2.0 * m.variance) + 0.0
    }

    /// Whether the LLR crossed a bound.
    /// The decision after `pairs` game pairs: [`SprtDecision::Continue`] before `min_pairs`.
    pub fn decision_after(&self, llr: f64, pairs: u32) -> SprtDecision {
        if pairs < self.min_pairs { SprtDecision::Continue } else { self.decision(llr) }
    }

    /// The test's verdict and its reason in words. A crossed bound decides
    /// (H1 accepts, H0 rejects); once the game budget is spent
    /// (`budget_spent`: every scheduled game played) with neither bound
    /// crossed, the budget rule decides: accepted when the lower end of the
    /// 95% Elo interval lies above `elo0` (for a gainer, `elo0` = 0, that
    /// is a likelihood of superiority of at least 97.5%; for a
    /// non-regression, `elo0` < 0, no loss of `|elo0|` or more is
    /// plausible), else rejected. Before that the test is undecided. A
    /// match the SPRT stopped (`stop`) keeps the decision it stopped on,
    /// whatever the games then in play did to the LLR afterwards.
    pub fn verdict(&self, tally: &Tally, pairs: u32, budget_spent: bool, stop: Option<SprtStop>) -> (Verdict, String) {
        let llr = self.llr(tally);
        let (lower, upper) = self.bounds();
        if let Some(stop) = stop.filter(|s| s.decision != SprtDecision::Continue) {
            let later = if tally.games() > stop.games {
                format!(" after {} games; {llr:.2} with the {} then in play", stop.games, tally.games() - stop.games)
            } else {
                String::new()
            };
            return match stop.decision {
                SprtDecision::H0 => (Verdict::Rejected, format!("H0, LLR {:.2} ≤ {lower:.2}{later}", stop.llr)),
                _ => (Verdict::Accepted, format!("H1, LLR {:.2} ≥ {upper:.2}{later}", stop.llr)),
            };
        }
        match self.decision_after(llr, pairs) {
            SprtDecision::H1 => (Verdict::Accepted, format!("H1, LLR {llr:.2} ≥ {upper:.2}")),
            SprtDecision::H0 => (Verdict::Rejected, format!("H0, LLR {llr:.2} ≤ {lower:.2}")),
            SprtDecision::Continue if budget_spent => {
                let low = tally.elo() - tally.elo_error();
                let (verdict, relation) =
                    if low > self.elo0 { (Verdict::Accepted, "above") } else { (Verdict::Rejected, "not above") };
                let low = if low.is_finite() { format!("{low:+.1}") } else { "unknown".into() };
                (
                    verdict,
                    format!(
                        "budget of {} games spent with LLR {llr:.2}: the 95% interval's lower end {low} is {relation} elo0 {}",
                        tally.games(),
                        self.elo0
                    ),
                )
            }
            SprtDecision::Continue => {
                (Verdict::Undecided, format!("LLR {llr:.2} in ({lower:.2}, {upper:.2}), budget not spent"))
            }
        }
    }

    /// The decision the LLR alone gives (no minimum of pairs).
    pub fn decision(&self, llr: f64) -> SprtDecision {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::H1
        } else if llr <= lower {
            SprtDecision::H0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    fn tally(wins: u32, draws: u32, losses: u32) -> Tally {
        Tally { wins, draws, losses, penta: [0; 5] }
    }

    #[test]
    fn three_quarters_is_plus_190_8_elo() {
        assert!(close(elo_from_score(0.75), 190.848, 1e-3));
        assert!(close(tally(3, 0, 1).elo(), 190.848, 1e-3));
        assert!(close(score_from_elo(190.848), 0.75, 1e-6));
        assert_eq!(elo_from_score(0.5), 0.0);
    }

    // Reference values computed independently in Python 3 from the formulas
    // in the module documentation (see protocol.md, "Statistics"):
    //   W,D,L = 60,100,40: n=200, mean=0.55, var=0.1225
    //   error: (elo(0.55+1.96*sqrt(var/n)) - elo(0.55-1.96*sqrt(var/n)))/2
    #[test]
    fn trinomial_elo_interval_los_and_draw_ratio() {
        let t = tally(60, 100, 40);
        assert!(close(t.elo(), 34.860, 1e-3));
        assert!(close(t.elo_error(), 34.159, 1e-3));
        assert!(close(t.los(), 0.977_250, 1e-5));
        assert!(close(t.draw_ratio(), 0.5, 1e-12));
    }

    #[test]
    fn sprt_bounds_and_trinomial_llr() {
        let s = Sprt::new(0.0, 5.0, 0.05, 0.05, SprtModel::Logistic).unwrap();
        let (lo, hi) = s.bounds();
        assert!(close(lo, -2.944_439, 1e-6) && close(hi, 2.944_439, 1e-6));
        // s0 = 0.5, s1 = 1/(1+10^(-5/400)) = 0.507195; n=200, mean 0.55, var 0.1225
        assert!(close(s.llr(&tally(60, 100, 40)), 0.545_093, 1e-5));
        let n = Sprt::new(0.0, 5.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        // s1 = 0.5 + 5*0.35/(800/ln 10) = 0.505037
        assert!(close(n.llr(&tally(60, 100, 40)), 0.390_465, 1e-5));
        assert_eq!(n.decision(0.76), SprtDecision::Continue);
        assert_eq!(n.decision(3.0), SprtDecision::H1);
        assert_eq!(n.decision(-3.0), SprtDecision::H0);
    }

    #[test]
    fn sprt_pentanomial_llr() {
        // pairs [LL, LD, WL+DD, WD, WW] = [5, 20, 50, 15, 10]: 100 pairs, 200 games,
        // mean pair score 0.5125, variance 0.05921875
        let t = Tally { wins: 55, draws: 95, losses: 50, penta: [5, 20, 50, 15, 10] };
        let s = Sprt::new(0.0, 5.0, 0.05, 0.05, SprtModel::Logistic).unwrap();
        assert!(close(s.llr(&t), 0.108_165, 1e-5));
        let n = Sprt::new(0.0, 5.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        assert!(close(n.llr(&t), 0.083_832, 1e-5));
        assert!(close(t.elo_error(), 33.264, 1e-3));
    }

    #[test]
    fn a_test_at_its_budget_is_decided_by_the_interval() {
        let non_regression = Sprt::new(-10.0, 0.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        let gainer = Sprt::new(0.0, 10.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        // 100 pairs, +8.7 ± 23.3 Elo: no bound crossed.
        let t = Tally { wins: 55, draws: 95, losses: 50, penta: [5, 20, 50, 15, 10] };
        for s in [&non_regression, &gainer] {
            assert_eq!(s.decision_after(s.llr(&t), 100), SprtDecision::Continue);
            assert_eq!(s.verdict(&t, 100, false, None).0, Verdict::Undecided);
        }
        // Lower end −14.6: below −10 and below 0, both rejected at the budget.
        let (v, why) = non_regression.verdict(&t, 100, true, None);
        assert_eq!(v, Verdict::Rejected, "{why}");
        assert!(why.contains("budget of 200 games spent") && why.contains("not above elo0 -10"), "{why}");
        assert_eq!(gainer.verdict(&t, 100, true, None).0, Verdict::Rejected);
        // Twenty times the pairs: +8.7 ± 7.4, lower end +1.3: above both.
        let big = Tally { wins: 1100, draws: 1900, losses: 1000, penta: [100, 400, 1000, 300, 200] };
        assert!((big.elo() - big.elo_error() - 1.3).abs() < 0.1, "{} ± {}", big.elo(), big.elo_error());
        for s in [&non_regression, &gainer] {
            let (v, why) = s.verdict(&big, 2000, true, None);
            if s.decision_after(s.llr(&big), 2000) == SprtDecision::Continue {
                assert_eq!(v, Verdict::Accepted, "{why}");
                assert!(why.contains("is above elo0"), "{why}");
            } else {
                assert_eq!(v, Verdict::Accepted, "a crossed bound decides: {why}");
            }
        }
        // A crossed bound decides whatever the budget.
        let ww = Tally { wins: 200, draws: 0, losses: 0, penta: [0, 0, 0, 0, 100] };
        assert_eq!(gainer.verdict(&ww, 100, false, None).0, Verdict::Accepted);
        let ll = Tally { wins: 0, draws: 0, losses: 200, penta: [100, 0, 0, 0, 0] };
        let (v, why) = non_regression.verdict(&ll, 100, true, None);
        assert_eq!(v, Verdict::Rejected);
        assert!(why.starts_with("H0"), "{why}");
    }

    #[test]
    fn a_match_stopped_by_its_sprt_keeps_that_decision() {
        let gainer = Sprt::new(0.0, 10.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        // No bound crossed on these counts alone (+8.7 ± 23.3)...
        let t = Tally { wins: 55, draws: 95, losses: 50, penta: [5, 20, 50, 15, 10] };
        assert_eq!(gainer.verdict(&t, 100, false, None).0, Verdict::Undecided);
        // ...but the match stopped when the LLR crossed the upper bound two games earlier.
        let stop = SprtStop { decision: SprtDecision::H1, llr: 2.95, games: 198 };
        let (v, why) = gainer.verdict(&t, 100, false, Some(stop));
        assert_eq!(v, Verdict::Accepted, "{why}");
        assert!(
            why.starts_with("H1, LLR 2.95 ≥ 2.94 after 198 games; ") && why.ends_with("with the 2 then in play"),
            "{why}"
        );
        let stop = SprtStop { decision: SprtDecision::H0, llr: -2.96, games: 200 };
        assert_eq!(gainer.verdict(&t, 100, true, Some(stop)), (Verdict::Rejected, "H0, LLR -2.96 ≤ -2.94".to_string()));
        // A record of no decision decides nothing.
        let stop = SprtStop { decision: SprtDecision::Continue, llr: 0.0, games: 200 };
        assert_eq!(gainer.verdict(&t, 100, false, Some(stop)).0, Verdict::Undecided);
    }

    #[test]
    fn bad_sprt_parameters_are_refused() {
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05, SprtModel::Logistic).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.6, 0.5, SprtModel::Logistic).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.0, 0.05, SprtModel::Logistic).is_err());
    }

    #[test]
    fn empty_and_one_sided_tallies_do_not_panic() {
        let t = Tally::default();
        assert_eq!(t.score(), 0.5);
        assert_eq!(t.los(), 0.5);
        assert!(t.elo_error().is_infinite());
        let w = tally(4, 0, 0);
        assert!(w.elo().is_infinite());
        let s = Sprt::new(0.0, 5.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        assert_eq!(s.llr(&t), 0.0);
        assert!(s.llr(&w) > 0.0, "all wins count for H1");
        assert!(s.llr(&tally(0, 0, 4)) < 0.0);
    }
}
