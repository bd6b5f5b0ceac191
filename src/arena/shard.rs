//! Shards: one of N slices of independent work (the game pairs of a match,
//! the games of `cubist datagen`), so that an existing batch system —
//! GNU parallel, a Slurm job array, a Kubernetes indexed Job — runs the
//! slices on many machines and their results merge exactly.
//!
//! A shard is written `K/N` with K counted from 1 (`1/4` … `4/4`), as GNU
//! parallel's `{#}` and Slurm's `--array=1-N` count; Kubernetes' 0-based
//! `JOB_COMPLETION_INDEX` needs a `+ 1`. Work unit `u` (counted from 0)
//! belongs to shard `u mod N + 1`: the units are dealt out in turn, so every
//! shard samples the whole range (every part of an opening book) and the
//! shards differ in size by at most one unit.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// Why a shard or a set of shards was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ShardError {
    /// Text that is not `K/N`.
    #[error("bad shard '{0}': expected K/N with 1 <= K <= N, e.g. 2/8 for the second of eight shards")]
    Syntax(String),
    /// K or N out of range.
    #[error("bad shard '{0}': K counts from 1 and must not exceed N (1/{1} … {1}/{1})")]
    OutOfRange(String, u32),
    /// Shards of splits into different numbers of shards.
    #[error("shards of a {0}-way split and of a {1}-way split do not merge")]
    CountMismatch(u32, u32),
    /// The same shard twice.
    #[error("shard {0}/{1} is given twice")]
    Duplicate(u32, u32),
    /// A recorded set of shards that does not hold together.
    #[error("bad shard list {indices:?} of {count}: indices must lie in 1..={count}, each once")]
    BadSet {
        /// The number of shards.
        count: u32,
        /// The indices found.
        indices: Vec<u32>,
    },
}

/// Shard `index` of `count` (`index` from 1); in JSON its text `K/N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Shard {
    index: u32,
    count: u32,
}

impl Shard {
    /// Shard `index` (from 1) of `count`; refused unless `1 <= index <= count`.
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        if index == 0 || count == 0 || index > count {
            return Err(ShardError::OutOfRange(format!("{index}/{count}"), count.max(1)));
        }
        Ok(Shard { index, count })
    }

    /// All the work in one shard: `1/1`.
    pub const fn whole() -> Shard {
        Shard { index: 1, count: 1 }
    }

    /// K, counted from 1.
    pub fn index(self) -> u32 {
        self.index
    }

    /// N, the number of shards.
    pub fn count(self) -> u32 {
        self.count
    }

    /// Whether work unit `unit` (from 0) is this shard's.
    pub fn contains(self, unit: u64) -> bool {
        unit % u64::from(self.count) == u64::from(self.index - 1)
    }

    /// How many of the units `0..total` are this shard's.
    pub fn len_of(self, total: u64) -> u64 {
        let (n, k) = (u64::from(self.count), u64::from(self.index - 1));
        total / n + u64::from(k < total % n)
    }

    /// The unit of `0..total` that is this shard's `local`-th (from 0), if there is one.
    pub fn unit(self, local: u64, total: u64) -> Option<u64> {
        (local < self.len_of(total)).then(|| local * u64::from(self.count) + u64::from(self.index - 1))
    }
}

impl fmt::Display for Shard {
    /// `K/N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    /// Reads `K/N` (surrounding blanks allowed).
    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let syntax = || ShardError::Syntax(text.to_string());
        let (k, n) = text.trim().split_once('/').ok_or_else(syntax)?;
        let number = |s: &str| {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(syntax());
            }
            s.parse::<u32>().map_err(|_| syntax())
        };
        let (k, n) = (number(k)?, number(n)?);
        Shard::new(k, n).map_err(|_| ShardError::OutOfRange(text.trim().to_string(), n.max(1)))
    }
}

impl From<Shard> for String {
    fn from(shard: Shard) -> String {
        shard.to_string()
    }
}

impl TryFrom<String> for Shard {
    type Error = ShardError;

    fn try_from(text: String) -> Result<Shard, ShardError> {
        text.parse()
    }
}

/// Some shards of one split: what a results file (or a data set) holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardSet {
    /// N, the number of shards of the split.
    pub count: u32,
    /// The shards held, by K (from 1), ascending.
    pub indices: Vec<u32>,
}

impl From<Shard> for ShardSet {
    fn from(shard: Shard) -> ShardSet {
        ShardSet { count: shard.count, indices: vec![shard.index] }
    }
}

impl ShardSet {
    /// Checks a set read from a file: N at least 1, indices in `1..=N`, ascending, each once.
    pub fn check(&self) -> Result<(), ShardError> {
        let ordered = self.indices.windows(2).all(|w| w[0] < w[1]);
        let in_range = self.indices.iter().all(|&k| k >= 1 && k <= self.count);
        if self.count == 0 || self.indices.is_empty() || !ordered || !in_range {
            return Err(ShardError::BadSet { count: self.count, indices: self.indices.clone() });
        }
        Ok(())
    }

    /// The shards of both sets; refused when the splits differ or a shard is in both.
    pub fn join(&self, other: &ShardSet) -> Result<ShardSet, ShardError> {
        if self.count != other.count {
            return Err(ShardError::CountMismatch(self.count, other.count));
        }
        if let Some(&k) = self.indices.iter().find(|k| other.indices.contains(k)) {
            return Err(ShardError::Duplicate(k, self.count));
        }
        let mut indices: Vec<u32> = self.indices.iter().chain(&other.indices).copied().collect();
        indices.sort_unstable();
        Ok(ShardSet { count: self.count, indices })
    }

    /// Whether every shard of the split is held.
    pub fn is_complete(&self) -> bool {
        self.indices.len() as u64 == u64::from(self.count)
    }
}

impl fmt::Display for ShardSet {
    /// `3/8`, `1, 2, 5 of 8` or `all 8`; runs of three or more as `1-4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let [k] = self.indices.as_slice() {
            return write!(f, "{k}/{}", self.count);
        }
        if self.is_complete() {
            return write!(f, "all {}", self.count);
        }
        let mut parts = Vec::new();
        let mut i = 0;
        while i < self.indices.len() {
            let mut j = i;
            while j + 1 < self.indices.len() && self.indices[j + 1] == self.indices[j] + 1 {
                j += 1;
            }
            parts.push(match j - i {
                0 => self.indices[i].to_string(),
                1 => format!("{}, {}", self.indices[i], self.indices[j]),
                _ => format!("{}-{}", self.indices[i], self.indices[j]),
            });
            i = j + 1;
        }
        write!(f, "{} of {}", parts.join(", "), self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_of_n_parses_from_one() {
        let s: Shard = "2/8".parse().unwrap();
        assert_eq!((s.index(), s.count(), s.to_string()), (2, 8, "2/8".to_string()));
        assert_eq!(" 1/1 ".parse::<Shard>().unwrap(), Shard::whole());
        for bad in ["", "3", "1/", "/4", "a/4", "1/b", "1/4/2", "-1/4", "+1/4", "1.0/4", "99999999999/4"] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(matches!(e, ShardError::Syntax(_)), "{bad}: {e}");
            assert!(e.to_string().contains("expected K/N"), "{e}");
        }
        for bad in ["0/4", "5/4", "0/0", "1/0"] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.to_string().contains("K counts from 1"), "{bad}: {e}");
        }
    }

    #[test]
    fn shards_deal_out_every_unit_once() {
        for total in [0u64, 1, 5, 12, 13] {
            for n in 1..=5 {
                let mut seen = vec![0; total as usize];
                for k in 1..=n {
                    let s = Shard::new(k, n).unwrap();
                    let len = s.len_of(total);
                    assert!(len == total / u64::from(n) || len == total / u64::from(n) + 1);
                    for local in 0..len {
                        let u = s.unit(local, total).unwrap();
                        assert!(s.contains(u));
                        seen[u as usize] += 1;
                    }
                    assert_eq!(s.unit(len, total), None);
                }
                assert!(seen.iter().all(|&c| c == 1), "total {total}, {n} shards: {seen:?}");
            }
        }
        let last = Shard::new(3, 3).unwrap();
        assert_eq!(last.unit(0, u64::MAX), Some(2));
    }

    #[test]
    fn sets_join_and_refuse_duplicates() {
        let a = ShardSet::from(Shard::new(1, 4).unwrap());
        let b = ShardSet::from(Shard::new(3, 4).unwrap());
        let ab = a.join(&b).unwrap();
        assert_eq!(ab.indices, [1, 3]);
        assert_eq!(ab.to_string(), "1, 3 of 4");
        assert_eq!(ab.join(&a).unwrap_err(), ShardError::Duplicate(1, 4));
        let other = ShardSet::from(Shard::new(1, 8).unwrap());
        assert_eq!(a.join(&other).unwrap_err(), ShardError::CountMismatch(4, 8));
        let all = ab.join(&ShardSet { count: 4, indices: vec![2, 4] }).unwrap();
        assert!(all.is_complete() && all.check().is_ok());
        assert_eq!(all.to_string(), "all 4");
        assert_eq!(ShardSet { count: 9, indices: vec![1, 2, 3, 5, 7, 8] }.to_string(), "1-3, 5, 7, 8 of 9");
        assert_eq!(b.to_string(), "3/4");
        for (count, indices) in [(0, vec![]), (4, vec![]), (4, vec![5]), (4, vec![0]), (4, vec![2, 1]), (4, vec![2, 2])]
        {
            assert!(ShardSet { count, indices }.check().is_err());
        }
    }
}
