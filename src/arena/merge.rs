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
use super::schedule::pairings;
use super::stats::{Sprt, Tally};
use super::summary::{MatchSummary, PairingSummary, SprtSummary, Standing};
use crate::arena::shard::{Shard, ShardError, ShardSet};
use crate::record::{GameRecord, parse_records};
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
            // The budget is spent once every shard of the match played all its games.
            let whole = shards.indices.len() as u64 == u64::from(shards.count);
            Some(SprtSummary::new(&checked, &t, pairs, whole && games >= scheduled, None))
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

    /// Property tests of the results-JSON reader: what `write_summary` writes
    /// reads back as the same results, and arbitrary, cut or edited files are
    /// refused, never a panic. Case counts keep this to a second or two.
    mod props {
        use super::super::*;
        use crate::arena::fingerprint::EngineIdentity;
        use crate::arena::stats::SprtModel;
        use proptest::prelude::*;
        use tempfile::NamedTempFile;

        /// A fresh file under the system's temporary folder holding `bytes`, removed when dropped.
        fn temp_file(bytes: &[u8]) -> NamedTempFile {
            let file = tempfile::Builder::new()
                .prefix("cubist-merge-prop-")
                .suffix(".json")
                .tempfile()
                .expect("the temporary folder is writable");
            std::fs::write(file.path(), bytes).expect("the temporary folder is writable");
            file
        }

        /// The drawn parts of a complete results file: engines, the match, its shard, counts.
        #[derive(Clone, Debug)]
        struct Drawn {
            names: Vec<String>,
            gauntlet: bool,
            repeat: bool,
            rounds: u32,
            games_per_round: u32,
            seed: u64,
            shard: (u32, u32),
            sprt: Option<(f64, f64, f64, f64, bool, u32)>,
            splits: Vec<u32>,
            terminations: BTreeMap<String, u32>,
        }

        fn drawn() -> impl Strategy<Value = Drawn> {
            (
                prop::collection::btree_set("[a-zA-Z0-9 \"\\\\é._-]{1,12}", 2..5),
                (any::<bool>(), any::<bool>(), 1u32..40, 1u32..4, any::<u64>()),
                (1u32..5, any::<u32>()),
                prop::option::of((-50.0f64..50.0, 0.1f64..30.0, 0.001f64..0.3, 0.001f64..0.3, any::<bool>(), 0u32..20)),
                prop::collection::vec(any::<u32>(), 20),
                prop::collection::btree_map("[a-z: ]{1,20}", 0u32..1000, 0..5),
            )
                .prop_map(
                    |(names, (gauntlet, repeat, rounds, games_per_round, seed), (n, k), sprt, splits, terminations)| {
                        let names: Vec<String> = names.into_iter().collect();
                        // The SPRT is for two engines only.
                        let sprt = if names.len() == 2 { sprt } else { None };
                        Drawn {
                            names,
                            gauntlet,
                            repeat,
                            rounds,
                            games_per_round,
                            seed,
                            shard: (k % n + 1, n),
                            sprt,
                            splits,
                            terminations,
                        }
                    },
                )
        }

        /// The results file a shard with these parts writes: its games spread
        /// over the pairings, each pairing's counts over wins, draws, losses and pairs.
        fn summary_of(d: &Drawn) -> MatchSummary {
            let sprt = d.sprt.map(|(elo0, width, alpha, beta, logistic, min_pairs)| {
                let model = if logistic { SprtModel::Logistic } else { SprtModel::Normalized };
                let mut s = Sprt::new(elo0, elo0 + width, alpha, beta, model).expect("valid SPRT parameters");
                s.min_pairs = min_pairs;
                s
            });
            let identity = MatchIdentity {
                engines: d
                    .names
                    .iter()
                    .map(|name| EngineIdentity {
                        name: name.clone(),
                        args: vec![],
                        options: vec![("Hash".into(), "16".into())],
                        limit: "depth=1".into(),
                        timemargin_ms: 0,
                    })
                    .collect(),
                gauntlet: d.gauntlet,
                variant: "hdc".into(),
                openings: "start position".into(),
                random_plies: 0,
                repeat: d.repeat,
                rounds: d.rounds,
                games_per_round: d.games_per_round,
                seed: d.seed,
                adjudication: "-".into(),
                sprt,
                shards: d.shard.1,
            };
            let pairs = pairings(d.names.len(), d.gauntlet);
            let shard = Shard::new(d.shard.0, d.shard.1).expect("a valid shard");
            let blocks = u64::from(d.rounds) * pairs.len() as u64;
            let scheduled = shard.len_of(blocks) * u64::from(d.games_per_round);
            // Cut `scheduled` games into one count per pairing, and each into wins, draws, losses.
            let mut left = scheduled as u32;
            let mut split = d.splits.iter().copied().cycle();
            let mut take = |from: &mut u32| {
                let n = split.next().unwrap_or(0) % (*from + 1);
                *from -= n;
                n
            };
            let mut tallies = Vec::new();
            for i in 0..pairs.len() {
                let mut games = if i + 1 == pairs.len() { left } else { take(&mut left) };
                left -= if i + 1 == pairs.len() { left } else { 0 };
                let total = games;
                let (wins, draws) = (take(&mut games), take(&mut games));
                let mut pairs_left = total / 2;
                let penta = [0; 5].map(|_| take(&mut pairs_left));
                tallies.push(Tally { wins, draws, losses: games, penta });
            }
            let mut standings: Vec<Standing> = d
                .names
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    let mut games = 0;
                    let mut points = 0.0;
                    for (&(a, b), t) in pairs.iter().zip(&tallies) {
                        if a == i || b == i {
                            games += t.games();
                            points += if a == i { t.points() } else { f64::from(t.games()) - t.points() };
                        }
                    }
                    Standing { name: name.clone(), games, points, error_lines: u64::from(d.splits[i] % 3) }
                })
                .collect();
            standings.sort_by(|x, y| y.points.total_cmp(&x.points));
            let sprt = identity.sprt.map(|s| {
                let t = tallies[0];
                // A file of one shard of several has not spent the match's budget.
                let whole = shard.count() <= 1;
                SprtSummary::new(&s, &t, if d.repeat { t.pairs() } else { t.games() / 2 }, whole, None)
            });
            MatchSummary {
                engines: d.names.clone(),
                games: scheduled,
                scheduled,
                stopped_early: false,
                pairings: pairs
                    .iter()
                    .zip(&tallies)
                    .map(|(&(a, b), &t)| PairingSummary::new(&d.names[a], &d.names[b], t))
                    .collect(),
                standings,
                terminations: d.terminations.clone(),
                sprt,
                shards: ShardSet::from(shard),
                fingerprint: identity.fingerprint(),
                identity,
            }
        }

        /// The JSON text `write_summary` gives.
        fn written(summary: &MatchSummary) -> String {
            let file = temp_file(b"");
            write_summary(file.path(), summary).expect("the temporary folder is writable");
            std::fs::read_to_string(file.path()).expect("just written")
        }

        /// Merges files with these contents.
        fn merge_texts(texts: &[&[u8]]) -> Result<MatchSummary, MergeError> {
            let files: Vec<NamedTempFile> = texts.iter().map(|t| temp_file(t)).collect();
            let paths: Vec<PathBuf> = files.iter().map(|f| f.path().to_path_buf()).collect();
            merge_results(&paths)
        }

        /// A JSON value to put in place of another.
        fn stranger() -> impl Strategy<Value = Value> {
            prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::from),
                any::<u64>().prop_map(Value::from),
                any::<i64>().prop_map(Value::from),
                Just(Value::from(u64::from(u32::MAX))),
                Just(Value::from(u64::MAX)),
                Just(Value::from(0)),
                any::<f64>().prop_filter("JSON numbers are finite", |f| f.is_finite()).prop_map(Value::from),
                ".{0,8}".prop_map(Value::from),
                Just(serde_json::json!([])),
                Just(serde_json::json!({})),
                Just(serde_json::json!([0, 0, 0, 0, u32::MAX])),
            ]
        }

        /// `v` with the place that `path` picks (each step an index into the keys or items there) set to `new`.
        fn replace_at(v: &mut Value, path: &[usize], new: Value) {
            match (v, path.split_first()) {
                (Value::Object(m), Some((&i, rest))) if !m.is_empty() => {
                    let key = m.keys().nth(i % m.len()).cloned().unwrap_or_default();
                    if let Some(child) = m.get_mut(&key) {
                        replace_at(child, rest, new);
                    }
                }
                (Value::Array(a), Some((&i, rest))) if !a.is_empty() => {
                    let n = a.len();
                    replace_at(&mut a[i % n], rest, new);
                }
                (v, _) => *v = new,
            }
        }

        /// After an edit, the fingerprint of the edited `match` (when it still reads as one),
        /// so that the edit reaches the checks behind the fingerprint's.
        fn refingerprint(v: &mut Value) {
            let fingerprint = v.get("match").and_then(|m| serde_json::from_value::<MatchIdentity>(m.clone()).ok());
            if let (Some(id), Some(f)) = (fingerprint, v.get_mut("fingerprint")) {
                *f = Value::from(id.fingerprint());
            }
        }

        /// Found by `results_round_trip`: an SPRT parameter of 17 significant
        /// digits read back one unit in the last place off (serde_json's fast
        /// float parsing), so the shard's own fingerprint no longer fitted and
        /// `cubist merge` refused it; serde_json's `float_roundtrip` reads floats exactly.
        #[test]
        fn full_precision_sprt_parameters_merge() {
            let d = Drawn {
                names: vec!["a".into(), "b".into()],
                gauntlet: false,
                repeat: false,
                rounds: 1,
                games_per_round: 1,
                seed: 0,
                shard: (1, 1),
                sprt: Some((0.0, 0.1, 0.09880413248930191, 0.001, false, 0)),
                splits: vec![0; 20],
                terminations: BTreeMap::new(),
            };
            let summary = summary_of(&d);
            let back = merge_texts(&[written(&summary).as_bytes()]).expect("its own results merge");
            assert_eq!(back.identity, summary.identity);
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

            /// A results file reads back as the results written (Elo, LOS and SPRT recomputed alike).
            #[test]
            fn results_round_trip(d in drawn()) {
                let summary = summary_of(&d);
                let text = written(&summary);
                let back = merge_texts(&[text.as_bytes()]);
                prop_assert!(back.is_ok(), "{:?}\n{}", back.err(), text);
                let back = serde_json::to_value(back.unwrap()).unwrap();
                prop_assert_eq!(back, serde_json::to_value(&summary).unwrap());
            }

            /// A results file cut short is refused, never a panic.
            #[test]
            fn cut_results_are_refused(d in drawn(), at in any::<prop::sample::Index>()) {
                let text = written(&summary_of(&d));
                let end = text.trim_end().len();
                let cut = at.index(end);
                prop_assert!(merge_texts(&[&text.as_bytes()[..cut]]).is_err());
            }

            /// Edited values anywhere in a results file (the fingerprint made to
            /// fit) are refused or merged, alone or after a good shard; never a panic.
            #[test]
            fn edited_results_never_panic(
                d in drawn(),
                edits in prop::collection::vec((prop::collection::vec(any::<usize>(), 0..5), stranger()), 1..4),
            ) {
                let text = written(&summary_of(&d));
                let mut v: Value = serde_json::from_str(&text).unwrap();
                for (path, new) in edits {
                    replace_at(&mut v, &path, new);
                }
                refingerprint(&mut v);
                let edited = serde_json::to_vec(&v).unwrap();
                let _ = merge_texts(&[&edited]);
                let _ = merge_texts(&[text.as_bytes(), &edited]);
                let _ = merge_texts(&[&edited, text.as_bytes()]);
            }

            /// Arbitrary bytes, and a results file with bytes changed, are refused or read; never a panic.
            #[test]
            fn arbitrary_bytes_never_panic(
                bytes in prop::collection::vec(any::<u8>(), 0..400),
                d in drawn(),
                flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
            ) {
                let _ = merge_texts(&[&bytes]);
                let mut text = written(&summary_of(&d)).into_bytes();
                for (at, b) in flips {
                    let i = at.index(text.len());
                    text[i] = b;
                }
                let _ = merge_texts(&[&text]);
            }
        }
    }
}
