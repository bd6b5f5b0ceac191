//! The fingerprint of a match: everything that decides which games its
//! shards play and how they are judged — engines (name, arguments, options,
//! limits), variant, openings, seed, rounds, adjudication, SPRT and the number
//! of shards — written into every results JSON, so that `cubist merge`
//! refuses to add up shards of different matches.
//!
//! Left out on purpose: an engine's program path (the binary lies elsewhere
//! on each machine), `--concurrency`, output paths and timeouts for `uciok`
//! and `readyok`. An opening file enters by its positions (after the seeded
//! shuffle), not by its path.

use super::config::Adjudication;
use super::config::EngineSpec;
use super::stats::Sprt;
use crate::files::fnv1a;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One engine as far as it decides the games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineIdentity {
    /// Its name in records and tables.
    pub name: String,
    /// Its command-line arguments.
    pub args: Vec<String>,
    /// Its UCI options, in the order sent.
    pub options: Vec<(String, String)>,
    /// Its limit as the `TimeControl` tag writes it (`10+0.1`, `depth=3`, …).
    pub limit: String,
    /// The referee's grace beyond the clock, in milliseconds.
    pub timemargin_ms: u64,
}

impl From<&EngineSpec> for EngineIdentity {
    fn from(spec: &EngineSpec) -> EngineIdentity {
        EngineIdentity {
            name: spec.name.clone(),
            args: spec.args.clone(),
            options: spec.options.clone(),
            limit: spec.limit.describe(),
            timemargin_ms: spec.timemargin.as_millis() as u64,
        }
    }
}

/// What makes two results files shards of the same match (the `match` object of the results JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchIdentity {
    /// The engines, in command-line order.
    pub engines: Vec<EngineIdentity>,
    /// Gauntlet rather than round robin.
    pub gauntlet: bool,
    /// The variant with its haberkorn options.
    pub variant: String,
    /// Where the openings come from: `start position`, `constellations` or the book's size and digest.
    pub openings: String,
    /// Random plies after each opening.
    pub random_plies: u32,
    /// Colour-reversed game pairs on each opening.
    pub repeat: bool,
    /// Rounds of the whole match.
    pub rounds: u32,
    /// Games per pairing and round.
    pub games_per_round: u32,
    /// The seed of the opening order and random plies.
    pub seed: u64,
    /// Resign, draw and max-moves adjudication as the command line spells it (`-` for none).
    pub adjudication: String,
    /// The SPRT, if any.
    pub sprt: Option<Sprt>,
    /// N, the number of shards the match is split into (1 when unsharded).
    pub shards: u32,
}

impl MatchIdentity {
    /// The first field (a dotted path) where `other` differs from this one: the path, this value, the other's.
    pub fn difference(&self, other: &MatchIdentity) -> Option<(String, String, String)> {
        let value = |m: &MatchIdentity| serde_json::to_value(m).unwrap_or(Value::Null);
        first_difference(&value(self), &value(other), "")
    }

    /// The fingerprint: FNV-1a (64 bits) of the identity's JSON text, as 16 hex digits.
    pub fn fingerprint(&self) -> String {
        // Serialising plain data (strings, numbers, finite floats) cannot fail.
        let text = serde_json::to_string(self).unwrap_or_default();
        format!("{:016x}", fnv1a(text.as_bytes()))
    }
}

/// The first place (a dotted path) where two JSON values differ, with both values.
pub fn first_difference(a: &Value, b: &Value, path: &str) -> Option<(String, String, String)> {
    let join = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                first_difference(x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null), &join(k))
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (u, v))| first_difference(u, v, &format!("{path}[{i}]")))
        }
        _ if a == b => None,
        _ => Some((path.to_string(), a.to_string(), b.to_string())),
    }
}

/// The adjudication settings as the command line spells them, `-` for none.
pub fn describe_adjudication(a: &Adjudication) -> String {
    let mut parts = Vec::new();
    if let Some(r) = a.resign {
        parts.push(format!("resign movecount={} score={}", r.movecount, r.score));
    }
    if let Some(d) = a.draw {
        parts.push(format!("draw movenumber={} movecount={} score={}", d.movenumber, d.movecount, d.score));
    }
    if let Some(m) = a.maxmoves {
        parts.push(format!("maxmoves {m}"));
    }
    if let Some(dir) = &a.tb {
        parts.push(format!("tb {}", dir.display()));
    }
    if parts.is_empty() { "-".into() } else { parts.join(", ") }
}

/// An opening book as its size and a digest of its positions in the order used.
pub fn describe_book(fens: &[String]) -> String {
    format!("book of {} positions, digest {:016x}", fens.len(), fnv1a(fens.join("\n").as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::config::{DrawRule, ResignRule};

    fn identity() -> MatchIdentity {
        let spec = EngineSpec::parse(&[], &["cmd=/a/cubist".into(), "name=a".into(), "depth=2".into()]).unwrap();
        MatchIdentity {
            engines: vec![EngineIdentity::from(&spec)],
            gauntlet: false,
            variant: "hdc".into(),
            openings: "start position".into(),
            random_plies: 2,
            repeat: true,
            rounds: 8,
            games_per_round: 2,
            seed: 7,
            adjudication: "-".into(),
            sprt: None,
            shards: 4,
        }
    }

    #[test]
    fn the_fingerprint_follows_every_field_but_the_program_path() {
        let a = identity();
        assert_eq!(a.fingerprint().len(), 16);
        assert_eq!(a.fingerprint(), identity().fingerprint());
        let other_path = EngineSpec::parse(&[], &["cmd=/b/cubist".into(), "name=a".into(), "depth=2".into()]).unwrap();
        assert_eq!(EngineIdentity::from(&other_path), a.engines[0]);
        for change in [
            |m: &mut MatchIdentity| m.seed = 8,
            |m: &mut MatchIdentity| m.shards = 5,
            |m: &mut MatchIdentity| m.engines[0].limit = "depth=3".into(),
            |m: &mut MatchIdentity| m.engines[0].options.push(("Hash".into(), "1".into())),
        ] {
            let mut b = identity();
            change(&mut b);
            assert_ne!(a.fingerprint(), b.fingerprint());
        }
        let back: MatchIdentity = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        assert_eq!(back, a);
    }

    #[test]
    fn adjudication_and_book_descriptions() {
        assert_eq!(describe_adjudication(&Adjudication::default()), "-");
        let a = Adjudication {
            resign: Some(ResignRule { movecount: 3, score: 600 }),
            draw: Some(DrawRule { movenumber: 40, movecount: 8, score: 10 }),
            maxmoves: Some(100),
            tb: Some("/tables".into()),
        };
        assert_eq!(
            describe_adjudication(&a),
            "resign movecount=3 score=600, draw movenumber=40 movecount=8 score=10, maxmoves 100, tb /tables"
        );
        let fens = vec!["x".to_string(), "y".to_string()];
        let mut swapped = fens.clone();
        swapped.swap(0, 1);
        assert!(describe_book(&fens).starts_with("book of 2 positions, digest "));
        assert_ne!(describe_book(&fens), describe_book(&swapped));
    }
}
