//! `cubist gui`: a local web server with one page (assets embedded in the
//! binary) to play Cubist, watch engines, analyse and replay match records.
//!
//! The server is a UCI client: engines run as child processes named on the
//! command line only ([`engine`]); every human move is checked with the rules
//! library ([`game`]); every game is written to the games folder as a match
//! record after each move, so unfinished games can be resumed ([`server`]).

pub mod engine;
pub(crate) mod game;
pub mod server;

use crate::arena::record::RecordError;
use crate::core::{FenError, MoveError};
use clap::Args;
use engine::EngineCmd;
use std::net::SocketAddr;
use std::path::PathBuf;
use thiserror::Error;

/// `cubist gui`: serve the browser GUI.
#[derive(Args, Clone, Debug)]
pub struct GuiArgs {
    /// Address to listen on (only this machine by default).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Another engine: "CMD [ARGS…]" (repeatable); the cubist binary itself is always the first.
    #[arg(long, value_name = "CMD")]
    pub engine: Vec<String>,
    /// Folder for the game records (created when missing).
    #[arg(long, value_name = "DIR", default_value = "cubist-games")]
    pub games_dir: PathBuf,
    /// Games in progress at the same time.
    #[arg(long, default_value_t = 8)]
    pub max_games: usize,
    /// Engine processes running at the same time.
    #[arg(long, default_value_t = 8)]
    pub max_engines: usize,
}

/// Why a request or the server failed.
#[derive(Debug, Error)]
pub enum GuiError {
    /// The request is malformed or not allowed now.
    #[error("{0}")]
    BadRequest(String),
    /// No such game or record.
    #[error("not found: {0}")]
    NotFound(String),
    /// A request from another site's page.
    #[error("{0}")]
    Forbidden(String),
    /// A limit (games, engines) is reached.
    #[error("{0}")]
    Limit(String),
    /// An illegal or malformed move.
    #[error(transparent)]
    Move(#[from] MoveError),
    /// A malformed 3D-FEN.
    #[error("bad FEN: {0}")]
    Fen(#[from] FenError),
    /// A record that does not parse or replay.
    #[error("bad record: {0}")]
    Record(#[from] RecordError),
    /// Reading or writing files, binding the address.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// The server's configuration.
#[derive(Clone, Debug)]
pub struct GuiConfig {
    /// Where to listen.
    pub addr: SocketAddr,
    /// The engines, the default one first.
    pub engines: Vec<EngineCmd>,
    /// Where records are written and read.
    pub games_dir: PathBuf,
    /// Games in progress at the same time.
    pub max_games: usize,
    /// Engine processes at the same time.
    pub max_engines: usize,
}

impl GuiArgs {
    /// The configuration: the running `cubist` binary (`cubist uci`) first, then `--engine`s.
    pub fn config(&self) -> Result<GuiConfig, GuiError> {
        let ip: std::net::IpAddr = self
            .host
            .parse()
            .map_err(|_| GuiError::BadRequest(format!("--host '{}' is not an IP address", self.host)))?;
        let me = std::env::current_exe()?;
        let mut engines =
            vec![EngineCmd { name: "cubist".into(), cmd: me.to_string_lossy().into_owned(), args: vec!["uci".into()] }];
        for text in &self.engine {
            let mut e =
                EngineCmd::parse(text).ok_or_else(|| GuiError::BadRequest("--engine needs a command".into()))?;
            let base = e.name.clone();
            let mut n = 2;
            while engines.iter().any(|o| o.name == e.name) {
                e.name = format!("{base}-{n}");
                n += 1;
            }
            engines.push(e);
        }
        if self.max_games == 0 || self.max_engines == 0 {
            return Err(GuiError::BadRequest("--max-games and --max-engines must be at least 1".into()));
        }
        Ok(GuiConfig {
            addr: SocketAddr::new(ip, self.port),
            engines,
            games_dir: self.games_dir.clone(),
            max_games: self.max_games,
            max_engines: self.max_engines,
        })
    }
}

/// `cubist gui`: serves until the process is stopped.
pub fn run(args: &GuiArgs) -> Result<(), GuiError> {
    let config = args.config()?;
    let server = server::start(config)?;
    println!("Cubist GUI: open http://{}/ in a browser (Ctrl-C stops the server)", server.addr());
    server.wait();
    Ok(())
}
