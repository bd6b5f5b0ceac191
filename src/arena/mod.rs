//! The match runner behind `cubist match`: engines as UCI child processes,
//! games refereed by the rules library, round robin or gauntlet pairings,
//! worker threads, statistics with SPRT, progress and game records
//! ([`crate::record`]); and `cubist merge` ([`merge`]), which adds up the
//! shards of a match. `cubist spsa` ([`crate::spsa`]) builds on it; the
//! opening books ([`crate::book`]) and game analysis ([`crate::analysis`])
//! search in-process and live beside it. The GUI shares its engine processes
//! and referee (`process`, `referee`).
//!
//! Each worker thread owns its engine processes and plays one game at a time;
//! the calling thread collects results, updates the statistics and the
//! progress bar and stops the match when the SPRT decides. When all the
//! games of a block (one round of one pairing: its game pair) are in, it
//! writes their records (synced), the state file and the results JSON
//! (`state`): a match interrupted by SIGINT or SIGTERM, or killed, is
//! resumed from there ([`resume_match`]), replaying only the blocks that
//! were in progress.
//!
//! `--shard K/N` plays one slice of the schedule: the schedule is cut into
//! blocks, one per round and pairing (all the games of a pairing on one
//! opening, so colour-reversed pairs stay together), and block `b` belongs to
//! shard `b mod N + 1` ([`crate::arena::shard`]). Openings, colours and random
//! plies depend only on the round, so the N shards together play exactly
//! the games of the unsharded match; `cubist merge` ([`merge`]) adds them up.

pub mod config;
pub(crate) mod error;
pub(crate) mod fingerprint;
pub(crate) mod game;
pub mod merge;
pub(crate) mod openings;
pub(crate) mod process;
pub(crate) mod referee;
pub(crate) mod results;
pub(crate) mod run;
pub(crate) mod schedule;
pub mod shard;
pub(crate) mod state;
pub mod stats;
pub mod summary;
pub(crate) mod variant_json;

pub use config::MatchConfig;
pub use error::ArenaError;
pub use run::{Expected, resume_match, run_match, run_match_until};
pub use schedule::pairings;
