//! Why a match could not run: one error type for the match runner.

use super::config::ConfigError;
use super::openings::OpeningError;
use super::process::ProcessError;
use super::state::StateError;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a match could not run.
#[derive(Debug, Error)]
pub enum ArenaError {
    /// A bad setting.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Bad openings.
    #[error(transparent)]
    Openings(#[from] OpeningError),
    /// An engine that does not start or does not speak UCI.
    #[error("engine '{name}' does not start: {source}")]
    Engine {
        /// The engine.
        name: String,
        /// Why.
        source: ProcessError,
    },
    /// An `option.X=V` the engine refuses (unknown name, wrong type, out of range).
    #[error("engine '{name}': {why}")]
    EngineOption {
        /// The engine.
        name: String,
        /// The refusal, naming the option.
        why: String,
    },
    /// An output file that cannot be written.
    #[error("cannot write '{0}': {1}")]
    Io(String, std::io::Error),
    /// A state file that cannot be read, trusted or written, or a resume it refuses.
    #[error(transparent)]
    State(#[from] StateError),
    /// SIGINT or SIGTERM stopped the match; the finished game pairs are kept.
    #[error("{}", interrupted(*games, *scheduled, state.as_deref()))]
    Interrupted {
        /// Games kept: those of the finished blocks.
        games: u64,
        /// Games of the schedule.
        scheduled: u64,
        /// The state file to resume from, if one is kept.
        state: Option<PathBuf>,
    },
}

/// The message of an interrupted match: what is kept and how to go on.
fn interrupted(games: u64, scheduled: u64, state: Option<&Path>) -> String {
    let kept = format!(
        "interrupted: {games} of {scheduled} games kept (those of finished game pairs; games in progress are dropped)"
    );
    match state {
        Some(p) => format!("{kept}; resume with: cubist match --resume {}", p.display()),
        None => format!("{kept}; no state was kept (--state FILE, --results-json or --pgnout keep one)"),
    }
}
