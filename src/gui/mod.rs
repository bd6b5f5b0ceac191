//! `cubist gui`: a local web server with one page (assets embedded in the
//! binary) to play Cubist, watch engines, analyse and replay match records.
//!
//! The server is a UCI client: engines run as child processes named on the
//! command line only ([`engine`]); every human move is checked with the rules
//! library (`game`); every game is written to the games folder as a match
//! record after each move, so unfinished games can be resumed ([`server`]).
//! Only the analysis of a record searches in the server's own process
//! (`cubist analyse`'s [`crate::analysis`]).
//!
//! This module turns `cubist gui`'s options into the server's
//! configuration ([`GuiOptions`], [`GuiConfig`]), checks each `--engine`
//! and runs the server ([`run`]).

pub mod engine;
pub(crate) mod files;
pub(crate) mod game;
pub mod listen;
pub mod server;

use crate::core::{FenError, MoveError};
use crate::record::RecordError;
use crate::tb::Tablebases;
use engine::EngineCmd;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use thiserror::Error;

/// What `cubist gui` is asked for, as its options give it (checked by [`GuiOptions::config`]).
#[derive(Clone, Debug)]
pub struct GuiOptions {
    /// Address to listen on: an IP address or a host name such as localhost (only this machine by default).
    pub host: String,
    /// Port to listen on (0: any free port).
    pub port: u16,
    /// Another engine: "CMD [ARGS…]" (repeatable); the cubist binary itself is always the first.
    pub engine: Vec<String>,
    /// Folder for the game records (created when missing).
    pub games_dir: PathBuf,
    /// Games in progress at the same time.
    pub max_games: usize,
    /// Engine processes running at the same time.
    pub max_engines: usize,
    /// `Hash` of all engine processes together, MiB (one game's Hash is at most this).
    pub max_hash: u64,
    /// GUI records (`gui-*.pgn`) the games folder may hold; new games are refused beyond.
    pub max_records: usize,
    /// Seconds a client has to send a request's head, and its body.
    pub request_timeout: u64,
    /// Endgame tables the game analysis searches with and judges by.
    pub tb: Option<PathBuf>,
}

/// `--max-hash`'s default: MiB of `Hash` over all engine processes.
pub const DEFAULT_MAX_HASH: u64 = 4096;
/// `--max-records`'s default.
pub const DEFAULT_MAX_RECORDS: usize = 1000;

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
    /// A request body over the limit.
    #[error("{0}")]
    TooLarge(String),
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
    /// `--host` as written: answered in the `Host` header besides the loopback names.
    pub host: String,
    /// The engines, the default one first.
    pub engines: Vec<EngineCmd>,
    /// Where records are written and read.
    pub games_dir: PathBuf,
    /// Games in progress at the same time.
    pub max_games: usize,
    /// Engine processes at the same time.
    pub max_engines: usize,
    /// MiB of `Hash` over all engine processes.
    pub max_hash: u64,
    /// GUI records the games folder may hold.
    pub max_records: usize,
    /// Connections open at once (WebSockets included).
    pub max_connections: usize,
    /// How long a client has to send a request's head, and its body.
    pub request_timeout: std::time::Duration,
    /// The endgame tables of the game analysis (none by default).
    pub tablebases: Tablebases,
}

impl GuiConfig {
    /// A server on `addr` with every limit at its default.
    pub fn new(addr: SocketAddr, engines: Vec<EngineCmd>, games_dir: PathBuf) -> GuiConfig {
        GuiConfig {
            addr,
            host: addr.ip().to_string(),
            engines,
            games_dir,
            max_games: 8,
            max_engines: 8,
            max_hash: DEFAULT_MAX_HASH,
            max_records: DEFAULT_MAX_RECORDS,
            max_connections: listen::connection_cap(8),
            request_timeout: listen::REQUEST_TIMEOUT,
            tablebases: Tablebases::default(),
        }
    }
}

impl GuiOptions {
    /// The configuration: the running `cubist` binary (`cubist uci`) first, then `--engine`s.
    pub fn config(&self) -> Result<GuiConfig, GuiError> {
        let addr = resolve(&self.host, self.port)?;
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
        if self.max_games == 0 || self.max_engines == 0 || self.max_hash == 0 || self.max_records == 0 {
            return Err(GuiError::BadRequest(
                "--max-games, --max-engines, --max-hash and --max-records must be at least 1".into(),
            ));
        }
        if self.request_timeout == 0 {
            return Err(GuiError::BadRequest("--request-timeout must be at least 1 second".into()));
        }
        let loaded =
            Tablebases::load_dir(self.tb.as_deref()).map_err(|e| GuiError::BadRequest(format!("--tb: {e}")))?;
        for refused in &loaded.refused {
            eprintln!("warning: --tb: left out {refused}");
        }
        Ok(GuiConfig {
            host: self.host.clone(),
            tablebases: loaded.tablebases,
            max_games: self.max_games,
            max_engines: self.max_engines,
            max_hash: self.max_hash,
            max_records: self.max_records,
            max_connections: listen::connection_cap(self.max_engines),
            request_timeout: std::time::Duration::from_secs(self.request_timeout),
            ..GuiConfig::new(addr, engines, self.games_dir.clone())
        })
    }
}

/// `--host` and `--port` as an address: an IP address as written, a name
/// (`localhost`) by the system's resolver, its first IPv4 address preferred.
pub fn resolve(host: &str, port: u16) -> Result<SocketAddr, GuiError> {
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        return Ok(SocketAddr::new(ip, port));
    }
    let bad =
        |why: String| GuiError::BadRequest(format!("--host '{host}' is not an IP address or a known host name{why}"));
    let addrs: Vec<SocketAddr> = (host, port).to_socket_addrs().map_err(|e| bad(format!(": {e}")))?.collect();
    addrs.iter().find(|a| a.is_ipv4()).or(addrs.first()).copied().ok_or_else(|| bad(String::new()))
}

/// How long an `--engine` has at start to answer `uci` with `uciok`.
pub const ENGINE_CHECK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Starts `engine`, sends `uci` and waits up to `timeout` for `uciok`; an
/// error names the command (`--engine "CMD"`) and why it was refused.
pub fn check_engine(engine: &EngineCmd, timeout: std::time::Duration) -> Result<(), GuiError> {
    use std::io::{BufRead, Write};
    let text = std::iter::once(engine.cmd.as_str()).chain(engine.args.iter().map(String::as_str)).collect::<Vec<_>>();
    let refuse = |why: String| GuiError::BadRequest(format!("--engine \"{}\": {why}", text.join(" ")));
    let mut child = std::process::Command::new(&engine.cmd)
        .args(&engine.args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| refuse(format!("cannot start it: {e}")))?;
    let stdout = child.stdout.take();
    let sent = child.stdin.as_mut().map(|i| i.write_all(b"uci\n").and_then(|()| i.flush()));
    let (tx, rx) = std::sync::mpsc::channel();
    if let Some(stdout) = stdout {
        std::thread::spawn(move || {
            let ok = std::io::BufReader::new(stdout).lines().map_while(Result::ok).any(|l| l.trim() == "uciok");
            let _ = tx.send(ok);
        });
    }
    let answer = rx.recv_timeout(timeout);
    let _ = child.kill();
    let _ = child.wait();
    match (sent, answer) {
        (_, Ok(true)) => Ok(()),
        (_, Ok(false)) => Err(refuse("it ended without answering `uci` with `uciok`".into())),
        (Some(Err(e)), _) => Err(refuse(format!("cannot send it `uci`: {e}"))),
        (_, Err(_)) => Err(refuse(format!("no `uciok` within {} s of `uci`", timeout.as_secs()))),
    }
}

/// `cubist gui`: checks each `--engine` (it must answer `uci` with `uciok`),
/// then serves until the process is stopped.
pub fn run(options: &GuiOptions) -> Result<(), GuiError> {
    let config = options.config()?;
    for engine in config.engines.iter().skip(1) {
        check_engine(engine, ENGINE_CHECK_TIMEOUT)?;
    }
    let server = server::start(config)?;
    println!("Cubist GUI: open http://{}/ in a browser (Ctrl-C stops the server)", server.addr());
    server.wait();
    Ok(())
}
