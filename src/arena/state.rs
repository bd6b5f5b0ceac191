//! The state file of a resumable match (`cubist match --state FILE`,
//! `--resume FILE`): the match's settings, its fingerprint, a digest of each
//! engine's program, which blocks of the schedule (one round of one pairing:
//! its game pair) are finished, their counts and how long the records file
//! is with them. It is written whole or not at all ([`crate::files::write_atomically`]:
//! write, fsync, rename) after every finished block and when the match is
//! interrupted or ends, so a kill at any moment leaves the state of the last
//! finished block.
//!
//! The file is JSON; the settings and the counts are kept as the match runner
//! hands them over (`C` and `R`), so that this module depends on nothing above it.

use super::fingerprint::MatchIdentity;
use super::stats::SprtStop;
use crate::files::{fnv1a, write_atomically};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The `format` field of a state file of this layout.
pub const FORMAT: &str = "cubist match state 1";

/// Why a state file could not be read, trusted or written.
#[derive(Debug, Error)]
pub enum StateError {
    /// A file that cannot be read.
    #[error("cannot read the match state '{0}': {1}")]
    Read(String, std::io::Error),
    /// A file that cannot be written.
    #[error("cannot write '{0}': {1}")]
    Write(String, std::io::Error),
    /// A file that is not a state file of this layout.
    #[error("'{0}' is not a match state of this cubist ({1})")]
    NotState(String, String),
    /// A state whose parts do not agree: edited, or of another match.
    #[error("the match state '{0}' does not hold together: {1}")]
    Inconsistent(String, String),
    /// A fresh match would overwrite the state of an unfinished one.
    #[error(
        "'{0}' holds the state of an unfinished match: resume it with `cubist match --resume {0}`, or remove it \
         to start afresh"
    )]
    Unfinished(String),
    /// A resume under different settings or programs.
    #[error("{0}: the match cannot be resumed with it (the state is left as it was)")]
    Changed(String),
}

/// An engine's program as the state remembers it: where it was found and what it held.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// The file run (`cmd=` as given, looked up on the PATH when it has no `/`), if found.
    pub path: Option<PathBuf>,
    /// Its size in bytes.
    pub bytes: u64,
    /// FNV-1a (64 bits) of its contents, as 16 hex digits.
    pub digest: String,
}

impl Program {
    /// The program `cmd` names: a path with `/` as it stands, else the first match on the PATH.
    pub fn of(cmd: &str) -> Program {
        let found = if cmd.contains('/') {
            Some(PathBuf::from(cmd))
        } else {
            std::env::var_os("PATH")
                .and_then(|paths| std::env::split_paths(&paths).map(|d| d.join(cmd)).find(|p| p.is_file()))
        };
        let contents = found.as_ref().and_then(|p| std::fs::read(p).ok()).unwrap_or_default();
        Program {
            path: found.map(|p| std::path::absolute(&p).unwrap_or(p)),
            bytes: contents.len() as u64,
            digest: format!("{:016x}", fnv1a(&contents)),
        }
    }
}

/// How far the match has got.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress<R> {
    /// The match has ended (played out, or stopped by its SPRT): nothing is left to play.
    pub finished: bool,
    /// The SPRT stopped it.
    pub stopped_early: bool,
    /// Where the SPRT stopped it (absent in states written before it was kept).
    #[serde(default)]
    pub sprt_stop: Option<SprtStop>,
    /// Every block of the schedule (counted from 0 in this shard) before this one is finished.
    pub blocks_below: u64,
    /// The finished blocks from `blocks_below` on (games played at once finish out of order).
    pub blocks_above: BTreeSet<u64>,
    /// Finished games, those of the finished blocks.
    pub games: u64,
    /// The length of the records file holding exactly those games.
    pub records_bytes: u64,
    /// Lines `info string error…` per engine so far.
    pub error_lines: Vec<u64>,
    /// The counts of the finished games.
    pub results: R,
}

impl<R> Progress<R> {
    /// Nothing played yet.
    pub fn new(results: R, engines: usize) -> Progress<R> {
        Progress {
            finished: false,
            stopped_early: false,
            sprt_stop: None,
            blocks_below: 0,
            blocks_above: BTreeSet::new(),
            games: 0,
            records_bytes: 0,
            error_lines: vec![0; engines],
            results,
        }
    }

    /// Whether block `block` is finished.
    pub fn is_done(&self, block: u64) -> bool {
        block < self.blocks_below || self.blocks_above.contains(&block)
    }

    /// Marks block `block` finished.
    pub fn mark_done(&mut self, block: u64) {
        if !self.is_done(block) {
            self.blocks_above.insert(block);
        }
        while self.blocks_above.remove(&self.blocks_below) {
            self.blocks_below += 1;
        }
    }

    /// Finished blocks.
    pub fn blocks_done(&self) -> u64 {
        self.blocks_below + self.blocks_above.len() as u64
    }
}

/// A state file: what a match is and how far it has got.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchState<C, R> {
    /// [`FORMAT`].
    pub format: String,
    /// The fingerprint of `identity`, as in the results JSON.
    pub fingerprint: String,
    /// What decides the games (the results JSON's `match`).
    #[serde(rename = "match")]
    pub identity: MatchIdentity,
    /// Each engine's program when the match started.
    pub programs: Vec<Program>,
    /// The settings, paths made absolute.
    pub config: C,
    /// How far it has got.
    pub progress: Progress<R>,
}

impl<C: Serialize + for<'de> Deserialize<'de>, R: Serialize + for<'de> Deserialize<'de>> MatchState<C, R> {
    /// Writes the state atomically.
    pub fn save(&self, path: &Path) -> Result<(), StateError> {
        let io = |e| StateError::Write(path.display().to_string(), e);
        let text = serde_json::to_string_pretty(self).map_err(|e| io(e.into()))?;
        write_atomically(path, format!("{text}\n").as_bytes()).map_err(io)
    }

    /// Reads a state and checks its own parts: its layout, and its fingerprint against its match.
    pub fn load(path: &Path) -> Result<MatchState<C, R>, StateError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| StateError::Read(file.clone(), e))?;
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| StateError::NotState(file.clone(), e.to_string()))?;
        match value.get("format").and_then(|f| f.as_str()) {
            Some(FORMAT) => {}
            Some(other) => return Err(StateError::NotState(file, format!("its format is '{other}', not '{FORMAT}'"))),
            None => return Err(StateError::NotState(file, "it has no format field".into())),
        }
        let state: MatchState<C, R> =
            serde_json::from_value(value).map_err(|e| StateError::NotState(file.clone(), e.to_string()))?;
        if state.fingerprint != state.identity.fingerprint() {
            return Err(StateError::Inconsistent(
                file,
                format!(
                    "its fingerprint {} is not that of its match ({}): was it edited?",
                    state.fingerprint,
                    state.identity.fingerprint()
                ),
            ));
        }
        Ok(state)
    }
}

/// Refuses to start a fresh match over the state of an unfinished one at `path`, or over a file that is no state.
pub fn check_fresh(path: &Path) -> Result<(), StateError> {
    let file = path.display().to_string();
    let Ok(text) = std::fs::read_to_string(path) else { return Ok(()) };
    #[derive(Deserialize)]
    struct Head {
        format: String,
        progress: Finished,
    }
    #[derive(Deserialize)]
    struct Finished {
        finished: bool,
    }
    match serde_json::from_str::<Head>(&text) {
        Ok(head) if head.format == FORMAT && head.progress.finished => Ok(()),
        Ok(head) if head.format == FORMAT => Err(StateError::Unfinished(file)),
        _ => Err(StateError::NotState(file, "a fresh match does not overwrite it".into())),
    }
}

/// Where the state goes when `--state` is not given: beside the results JSON,
/// else beside the records (`r.json` → `r.state`, not a `.json` name that a
/// glob of results files such as `shard-*.json` would take in); `None` without either.
pub fn default_path(results_json: Option<&Path>, records: Option<&Path>) -> Option<PathBuf> {
    results_json.or(records).map(|p| p.with_extension("state"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_finished_out_of_order_close_up() {
        let mut p = Progress::new((), 2);
        for b in [1, 3, 0] {
            p.mark_done(b);
        }
        assert_eq!((p.blocks_below, p.blocks_above.iter().copied().collect::<Vec<_>>()), (2, vec![3]));
        assert!(p.is_done(0) && p.is_done(3) && !p.is_done(2) && !p.is_done(4));
        p.mark_done(2);
        p.mark_done(1);
        assert_eq!((p.blocks_below, p.blocks_above.len(), p.blocks_done()), (4, 0, 4));
    }

    #[test]
    fn a_fresh_match_overwrites_only_a_finished_state() {
        // The atomic write itself is tested in `crate::files`.
        let scratch = tempfile::Builder::new().prefix("cubist-state-").tempdir().unwrap();
        let dir = scratch.path();
        let path = dir.join("s.json");
        write_atomically(&path, b"two, longer").unwrap();
        assert!(check_fresh(&dir.join("absent.json")).is_ok());
        assert!(matches!(check_fresh(&path), Err(StateError::NotState(..))));
        write_atomically(&path, format!(r#"{{"format": "{FORMAT}", "progress": {{"finished": false}}}}"#).as_bytes())
            .unwrap();
        assert!(matches!(check_fresh(&path), Err(StateError::Unfinished(_))));
        write_atomically(&path, format!(r#"{{"format": "{FORMAT}", "progress": {{"finished": true}}}}"#).as_bytes())
            .unwrap();
        assert!(check_fresh(&path).is_ok());
    }

    #[test]
    fn default_paths_sit_beside_the_results() {
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(default_path(Some(Path::new("out/r.json")), Some(Path::new("g.pgn"))), p("out/r.state"));
        assert_eq!(default_path(None, Some(Path::new("g.pgn"))), p("g.state"));
        assert_eq!(default_path(None, None), None);
    }
}
