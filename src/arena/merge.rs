//! `cubist merge`: adds up the results JSONs of a match's shards (`cubist
//! match --shard K/N`) and recomputes Elo, LOS, draw ratio and the SPRT state
//! from the merged counts, and gathers their game records in schedule order.
//!
//! Every file is checked before anything is added: it must be a complete
//! results JSON (a shard killed before its end leaves an empty or cut file),
//! hold all the games of its shards, carry the fingerprint of its `match`
//! description, and that description must be the same in every file; no
//! shard may come twice. Any subset of the shards merges: with an SPRT the
//! merged state says whether the shards so far settle the test.

use super::fingerprint::{MatchIdentity, first_difference};
use super::pairings;
use super::record::{GameRecord, parse_records};
use super::stats::{Sprt, Tally};
use super::summary::{MatchSummary, PairingSummary, SprtSummary, Standing};
use crate::arena::shard::{Shard, ShardError, ShardSet};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why results could not be merged.
#[derive(Debug, Error)]
pub enum MergeError {
    /// Nothing to merge.
    #[error("merge needs at least one results JSON")]
    NoInput,
    /// A file that cannot be read.
    #[error("cannot read '{0}': {1}")]
    Read(String, std::io::Error),
    /// A file that cannot be written.
    #[error("cannot write '{0}': {1}")]
    Write(String, std::io::Error),
    /// An empty results file.
    #[error("'{0}' is empty: its match did not finish (the results JSON is written when the match ends)")]
    Empty(String),
    /// A results file cut short.
    #[error("'{0}' is truncated ({1}): its match did not finish writing it")]
    Truncated(String, String),
    /// A file that is not a results JSON.
    #[error("'{0}' is not a results JSON of `cubist match`: {1}")]
    NotResults(String, String),
    /// A results JSON without the fields merging needs.
    #[error(
        "'{0}' has no match fingerprint (fields shards, fingerprint and match): it was written by a `cubist match` \
         without sharding"
    )]
    NoFingerprint(String),
    /// A results JSON whose contents do not hold together.
    #[error("'{0}': {1}")]
    Inconsistent(String, String),
    /// Shards of different matches.
    #[error("'{file}' is not a shard of the same match as '{other}': its match.{field} is {here}, not {there}")]
    Mismatch {
        /// The file refused.
        file: String,
        /// The first file.
        other: String,
        /// Where the descriptions differ.
        field: String,
        /// The value in the refused file.
        here: String,
        /// The value in the first file.
        there: String,
    },
    /// The same shard twice.
    #[error("'{file}' and '{other}' both hold shard {shard}: each shard is merged once")]
    Duplicate {
        /// The file refused.
        file: String,
        /// The file that holds it already.
        other: String,
        /// `K/N`.
        shard: String,
    },
    /// Merged counts beyond what a results JSON holds.
    #[error("the merged results count {} games or more in one pairing, more than a results JSON holds", u32::MAX)]
    TooMany,
    /// Game records that do not belong to the merged results.
    #[error("records: {0}")]
    Records(String),
}

/// One pairing's counts as a results JSON holds them.
#[derive(Deserialize)]
struct PairingCounts {
    first: String,
    second: String,
    #[serde(flatten)]
    tally: Tally,
}

/// What merging reads of a results JSON; the derived numbers (Elo, LOS, …) are recomputed.
#[derive(Deserialize)]
struct ResultsFile {
    engines: Vec<String>,
    games: u64,
    scheduled: u64,
    pairings: Vec<PairingCounts>,
    standings: Vec<Standing>,
    terminations: BTreeMap<String, u32>,
    shards: Option<ShardSet>,
    fingerprint: Option<String>,
    #[serde(rename = "match")]
    identity: Option<MatchIdentity>,
}

/// A checked results file.
struct Part {
    file: String,
    identity: MatchIdentity,
    shards: ShardSet,
    results: ResultsFile,
}

/// Reads and checks one results JSON.
fn read_part(path: &Path) -> Result<Part, MergeError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| MergeError::Read(file.clone(), e))?;
    if text.trim().is_empty() {
        return Err(MergeError::Empty(file));
    }
    let results: ResultsFile = serde_json::from_str(&text).map_err(|e| match e.classify() {
        serde_json::error::Category::Eof => MergeError::Truncated(file.clone(), e.to_string()),
        _ => MergeError::NotResults(file.clone(), e.to_string()),
    })?;
    let (Some(shards), Some(fingerprint), Some(identity)) =
        (results.shards.clone(), results.fingerprint.clone(), results.identity.clone())
    else {
        return Err(MergeError::NoFingerprint(file));
    };
    let bad = |why: String| MergeError::Inconsistent(file.clone(), why);
    shards.check().map_err(|e| bad(e.to_string()))?;
    if fingerprint != identity.fingerprint() {
        return Err(bad(format!(
            "its fingerprint {fingerprint} is not that of its match description ({}): was it edited?",
            identity.fingerprint()
        )));
    }
    if identity.shards != shards.count {
        return Err(bad(format!("match.shards is {} but its shards are of {}", identity.shards, shards.count)));
    }
    let names: Vec<&str> = identity.engines.iter().map(|e| e.name.as_str()).collect();
    if results.engines != names {
        return Err(bad(format!("engines {:?} differ from match.engines {names:?}", results.engines)));
    }
    let expected = pairings(names.len(), identity.gauntlet);
    let listed: Vec<(&str, &str)> = results.pairings.iter().map(|p| (p.first.as_str(), p.second.as_str())).collect();
    let wanted: Vec<(&str, &str)> = expected.iter().map(|&(a, b)| (names[a], names[b])).collect();
    if listed != wanted {
        return Err(bad(format!("pairings {listed:?}, but the match pairs {wanted:?}")));
    }
    for p in &results.pairings {
        let (games, pairs) = (games_of(&p.tally), p.tally.penta.iter().map(|&c| u64::from(c)).sum::<u64>());
        if games > u64::from(u32::MAX) || 2 * pairs > games {
            return Err(bad(format!("{} vs {}: {pairs} game pairs in {games} games", p.first, p.second)));
        }
    }
    let counted: u64 = results.pairings.iter().map(|p| games_of(&p.tally)).sum();
    if counted != results.games {
        return Err(bad(format!("its pairings count {counted} games but it says {}", results.games)));
    }
    if results.standings.iter().any(|s| !names.contains(&s.name.as_str())) {
        return Err(bad("its standings name an engine that is not in the match".into()));
    }
    let blocks = u64::from(identity.rounds).saturating_mul(expected.len() as u64);
    let per_block = u64::from(identity.games_per_round);
    let due = shards.indices.iter().fold(0u64, |sum, &k| {
        let games = Shard::new(k, shards.count).map_or(0, |s| s.len_of(blocks).saturating_mul(per_block));
        sum.saturating_add(games)
    });
    if results.scheduled != due {
        return Err(bad(format!("it schedules {} games but its shards {shards} hold {due}", results.scheduled)));
    }
    if results.games != results.scheduled {
        return Err(bad(format!(
            "it holds {} of its {} games: its match stopped early (a shard never stops on its SPRT; an unsharded \
             match that did is complete as it is)",
            results.games, results.scheduled
        )));
    }
    Ok(Part { file, identity, shards, results })
}

/// The games a tally counts, without overflow.
fn games_of(t: &Tally) -> u64 {
    u64::from(t.wins) + u64::from(t.draws) + u64::from(t.losses)
}

/// Adds `b`'s counts to `a` (saturating: merged totals are checked afterwards).
fn add_tally(a: &mut Tally, b: &Tally) {
    a.wins = a.wins.saturating_add(b.wins);
    a.draws = a.draws.saturating_add(b.draws);
    a.losses = a.losses.saturating_add(b.losses);
    for (x, y) in a.penta.iter_mut().zip(b.penta) {
        *x = x.saturating_add(y);
    }
}

/// Merges the results JSONs of shards of one match into the summary the
/// match would have given on those shards' games.
pub fn merge_results(paths: &[PathBuf]) -> Result<MatchSummary, MergeError> {
    let mut parts = paths.iter().map(|p| read_part(p));
    let first = parts.next().ok_or(MergeError::NoInput)??;
    let reference = serde_json::to_value(&first.identity).unwrap_or(Value::Null);
    let names: Vec<String> = first.identity.engines.iter().map(|e| e.name.clone()).collect();
    let mut owners: BTreeMap<u32, String> = first.shards.indices.iter().map(|&k| (k, first.file.clone())).collect();
    let mut shards = first.shards.clone();
    let mut tallies = vec![Tally::default(); first.results.pairings.len()];
    let mut standings: Vec<(u32, f64, u64)> = vec![(0, 0.0, 0); names.len()];
    let mut terminations: BTreeMap<String, u32> = BTreeMap::new();
    let (mut games, mut scheduled) = (0u64, 0u64);
    let mut add = |part: &Part, tallies: &mut Vec<Tally>| {
        for (t, p) in tallies.iter_mut().zip(&part.results.pairings) {
            add_tally(t, &p.tally);
        }
        for s in &part.results.standings {
            if let Some(i) = names.iter().position(|n| *n == s.name) {
                standings[i].0 = standings[i].0.saturating_add(s.games);
                standings[i].1 += s.points;
                standings[i].2 = standings[i].2.saturating_add(s.error_lines);
            }
        }
        for (k, v) in &part.results.terminations {
            let n = terminations.entry(k.clone()).or_default();
            *n = n.saturating_add(*v);
        }
        games = games.saturating_add(part.results.games);
        scheduled = scheduled.saturating_add(part.results.scheduled);
    };
    add(&first, &mut tallies);
    for part in parts {
        let part = part?;
        let here = serde_json::to_value(&part.identity).unwrap_or(Value::Null);
        if let Some((field, there, here)) = first_difference(&reference, &here, "") {
            return Err(MergeError::Mismatch { file: part.file, other: first.file, field, here, there });
        }
        shards = shards.join(&part.shards).map_err(|e| match e {
            ShardError::Duplicate(k, n) => MergeError::Duplicate {
                file: part.file.clone(),
                other: owners.get(&k).cloned().unwrap_or_default(),
                shard: format!("{k}/{n}"),
            },
            other => MergeError::Inconsistent(part.file.clone(), other.to_string()),
        })?;
        owners.extend(part.shards.indices.iter().map(|&k| (k, part.file.clone())));
        add(&part, &mut tallies);
    }
    // Each file keeps its pairs within its games, so the pairs cannot saturate before the games do.
    if tallies.iter().any(|t| games_of(t) >= u64::from(u32::MAX)) {
        return Err(MergeError::TooMany);
    }
    let identity = first.identity;
    let pairing_names = pairings(names.len(), identity.gauntlet);
    let mut standings: Vec<Standing> = names
        .iter()
        .zip(standings)
        .map(|(name, (games, points, error_lines))| Standing { name: name.clone(), games, points, error_lines })
        .collect();
    standings.sort_by(|x, y| y.points.total_cmp(&x.points));
    let sprt = match identity.sprt {
        Some(s) => {
            let mut checked = Sprt::new(s.elo0, s.elo1, s.alpha, s.beta, s.model)
                .map_err(|e| MergeError::Inconsistent(first.file.clone(), format!("match.sprt: {e}")))?;
            checked.min_pairs = s.min_pairs;
            let t = tallies.first().copied().unwrap_or_default();
            let pairs = if identity.repeat { t.pairs() } else { t.games() / 2 };
            Some(SprtSummary::new(&checked, &t, pairs))
        }
        None => None,
    };
    Ok(MatchSummary {
        engines: names.clone(),
        games,
        scheduled,
        stopped_early: false,
        pairings: pairing_names
            .iter()
            .zip(&tallies)
            .map(|(&(a, b), &t)| PairingSummary::new(&names[a], &names[b], t))
            .collect(),
        standings,
        terminations,
        sprt,
        shards,
        fingerprint: identity.fingerprint(),
        identity,
    })
}

/// Where a record stands in the schedule: (round, pairing, game), all from 0.
type Slot = (u64, usize, u64);

/// Reads the record files of the merged shards and returns their games in
/// schedule order (the order of a `--concurrency 1` match). Refused: a record
/// of a pairing or round the match does not have, of a shard not among the
/// merged results, the same game twice, or a number of games other than
/// the merged results count.
pub fn merge_records(merged: &MatchSummary, paths: &[PathBuf]) -> Result<Vec<GameRecord>, MergeError> {
    let id = &merged.identity;
    let names: Vec<&str> = id.engines.iter().map(|e| e.name.as_str()).collect();
    let pairs = pairings(names.len(), id.gauntlet);
    let mut games: Vec<(Slot, String, GameRecord)> = Vec::new();
    for path in paths {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| MergeError::Read(file.clone(), e))?;
        let records = parse_records(&text).map_err(|e| MergeError::Records(format!("'{file}': {e}")))?;
        for r in records {
            let bad = |why: String| {
                MergeError::Records(format!("'{file}', Round {} ({} vs {}): {why}", r.round, r.white, r.black))
            };
            let numbers =
                r.round.split_once('.').and_then(|(a, b)| Some((a.parse::<u64>().ok()?, b.parse::<u64>().ok()?)));
            let (round, game) = match numbers {
                Some((a, b)) if a >= 1 && b >= 1 => (a - 1, b - 1),
                _ => return Err(bad("the Round tag is not <round>.<game>".into())),
            };
            let pairing = pairs
                .iter()
                .position(|&(a, b)| {
                    (names[a], names[b]) == (r.white.as_str(), r.black.as_str())
                        || (names[b], names[a]) == (r.white.as_str(), r.black.as_str())
                })
                .ok_or_else(|| bad("these engines do not meet in this match".into()))?;
            if round >= u64::from(id.rounds) || game >= u64::from(id.games_per_round) {
                return Err(bad(format!(
                    "the match has {} rounds of {} games a pairing",
                    id.rounds, id.games_per_round
                )));
            }
            let shard = (round * pairs.len() as u64 + pairing as u64) % u64::from(id.shards) + 1;
            if !merged.shards.indices.iter().any(|&k| u64::from(k) == shard) {
                return Err(bad(format!("this game is shard {shard}/{}'s, not among the merged results", id.shards)));
            }
            games.push(((round, pairing, game), file.clone(), r));
        }
    }
    games.sort_by_key(|(slot, _, _)| *slot);
    if let Some(w) = games.windows(2).find(|w| w[0].0 == w[1].0) {
        let r = &w[1].2;
        return Err(MergeError::Records(format!(
            "the game of Round {} ({} vs {}) is both in '{}' and in '{}'",
            r.round, r.white, r.black, w[0].1, w[1].1
        )));
    }
    if games.len() as u64 != merged.games {
        return Err(MergeError::Records(format!(
            "the record files hold {} games but the merged results count {}: give the records of exactly the merged \
             shards",
            games.len(),
            merged.games
        )));
    }
    Ok(games.into_iter().map(|(_, _, r)| r).collect())
}

/// Writes records to a file, one after another.
pub fn write_records(path: &Path, records: &[GameRecord]) -> Result<(), MergeError> {
    let file = path.display().to_string();
    let io = |e| MergeError::Write(file.clone(), e);
    let mut out = BufWriter::new(std::fs::File::create(path).map_err(io)?);
    for r in records {
        r.write(&mut out).map_err(io)?;
    }
    out.flush().map_err(io)
}

/// Writes the merged summary as a results JSON (itself mergeable with other shards of the match).
pub fn write_summary(path: &Path, summary: &MatchSummary) -> Result<(), MergeError> {
    let file = path.display().to_string();
    let text = serde_json::to_string_pretty(summary).map_err(|e| MergeError::Write(file.clone(), e.into()))?;
    std::fs::write(path, format!("{text}\n")).map_err(|e| MergeError::Write(file, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_difference_is_named_by_its_path() {
        let a = json!({"seed": 1, "engines": [{"name": "a", "options": [["Hash", "16"]]}]});
        let b = json!({"seed": 1, "engines": [{"name": "a", "options": [["Hash", "32"]]}]});
        assert_eq!(
            first_difference(&a, &b, ""),
            Some(("engines[0].options[0][1]".into(), "\"16\"".into(), "\"32\"".into()))
        );
        assert_eq!(first_difference(&a, &a, ""), None);
        let c = json!({"seed": 2, "engines": []});
        assert_eq!(first_difference(&a, &c, "").map(|d| d.0), Some("engines".into()));
    }

    #[test]
    fn tallies_add_field_by_field() {
        let mut a = Tally { wins: 1, draws: 2, losses: 3, penta: [1, 0, 2, 0, 0] };
        add_tally(&mut a, &Tally { wins: 4, draws: 0, losses: 1, penta: [0, 1, 0, 1, 1] });
        assert_eq!(a, Tally { wins: 5, draws: 2, losses: 4, penta: [1, 1, 2, 1, 1] });
    }
}
