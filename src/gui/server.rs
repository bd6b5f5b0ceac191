//! The HTTP and WebSocket server: the embedded page, the game API, records
//! for replay and resuming.
//!
//! API (JSON; errors are `{"type":"error","error":"…"}` with a 4xx status):
//! `GET /api/config`; `GET /api/games` (live games and unfinished records);
//! `POST /api/games` (a new game); `POST /api/resume {"file"}`;
//! `GET /api/games/{id}`; `POST /api/games/{id}/action` (one [`Action`]);
//! `GET /api/games/{id}/ws` (the same actions as text messages, and every
//! change of the game pushed); `GET /api/records`; `GET /api/records/{file}?game=N`
//! and `POST /api/replay?game=N` (a record's text) for replay;
//! `POST /api/analyse {"text"|"file", "game", "nodes"}` (a game analysed,
//! answered as its replay).
//!
//! Every request must name this server in its `Host` header (the loopback
//! names or `--host`, with the port: a page from another site that rebinds
//! its name to 127.0.0.1 is refused), and any `Origin` must be that host.
//! Every answer forbids framing and carries a content security policy.

use super::engine::{EngineCmd, ProcessCap};
use super::files::{GUI_PREFIX, count_gui_records, is_regular, read_record};
use super::game::{
    EVENT, EngineOptions, GameCell, GameStart, HUMAN, Setup, ThinkLimit, board_view, resumed_clocks, variant_view,
};
use super::listen::{Slot, read_body, serve};
use super::{GuiConfig, GuiError};
use crate::analysis::{Eval, analyse_record, chance_slope, eval_of_comment, tablebase_of_comment};
use crate::core::{HABERKORN_LAYERS, Position, Variant, VariantKind, default_setup_layers};
use crate::record::{GameRecord, GameResult, Mark, parse_records, today};
use crate::search::Limits;
use crate::tb::Tablebases;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{broadcast, oneshot};

pub use super::game::MAX_PLIES;

/// The page.
const INDEX_HTML: &str = include_str!("assets/index.html");
/// The page's script.
const APP_JS: &str = include_str!("assets/app.js");
/// The page's style sheet.
const STYLE_CSS: &str = include_str!("assets/style.css");
/// Largest request body (record uploads included).
pub const MAX_BODY: usize = 4 << 20;
/// Largest WebSocket message from the page.
pub const MAX_WS_MESSAGE: usize = 16 << 10;
/// Finished games kept in memory (they stay on disk).
const KEEP_FINISHED: usize = 32;
/// WebSocket connections watching one game.
pub const MAX_WATCHERS: usize = 64;
/// Threads for blocking work (record files, replays): more wait their turn.
const BLOCKING_THREADS: usize = 8;
/// Nodes per position of a game analysis the page asks for, unless it says.
pub const ANALYSIS_NODES: u64 = 20_000;
/// Most nodes per position a game analysis may ask for.
pub const MAX_ANALYSIS_NODES: u64 = 1_000_000;
/// Most nodes a whole game analysis may cost (nodes per position × positions).
pub const MAX_ANALYSIS_BUDGET: u64 = 20_000_000;
/// Most plies of a game the server analyses.
pub const MAX_ANALYSIS_PLIES: usize = 1000;
/// Hash per analysis thread, in MiB.
const ANALYSIS_HASH_MB: usize = 16;
/// Most threads one game analysis uses.
const ANALYSIS_THREADS: usize = 4;

/// What the page may ask of a game.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// The whole state.
    State,
    /// The legal targets of the piece on a square.
    Targets {
        /// The square, e.g. `e2-IV`.
        from: String,
    },
    /// A human move in protocol text.
    Move {
        /// The move, e.g. `e2-IVe4-IV` or `e7-IIe8-IIq`.
        #[serde(rename = "move")]
        mv: String,
    },
    /// The board after `ply` moves (stepping through the move list).
    View {
        /// Plies from the start.
        ply: usize,
    },
    /// Analysis on or off.
    Analyse {
        /// On or off.
        on: bool,
        /// The engine's index.
        #[serde(default)]
        engine: usize,
        /// Principal variations.
        #[serde(default = "one")]
        multipv: u32,
        /// The position after this many plies (default: the current one).
        ply: Option<usize>,
    },
    /// The human resigns.
    Resign,
    /// Ask a failed engine again.
    Retry,
    /// Adjourn: the game leaves the server (engines stop); its unfinished record can be resumed.
    Close,
}

fn one() -> u32 {
    1
}

/// A new game as the page asks for it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// `hdc` or `haberkorn`.
    pub variant: String,
    /// Haberkorn layers (3–8, default 8).
    pub layers: Option<u8>,
    /// Haberkorn: White's setup layer, 1-based (default 4, or the lowest layer that exists).
    pub white_layer: Option<u8>,
    /// Haberkorn: Black's setup layer, 1-based.
    pub black_layer: Option<u8>,
    /// Haberkorn: en passant on.
    #[serde(default)]
    pub en_passant: bool,
    /// Haberkorn: castling on.
    #[serde(default)]
    pub castling: bool,
    /// Haberkorn: setup layers chosen at random.
    #[serde(default)]
    pub random_constellation: bool,
    /// Start from this 3D-FEN.
    pub fen: Option<String>,
    /// White's engine index (absent: a human).
    pub white: Option<usize>,
    /// Black's engine index (absent: a human).
    pub black: Option<usize>,
    /// How long engines think.
    pub limit: Option<ThinkLimit>,
    /// Engine options.
    pub options: Option<EngineOptions>,
}

/// The server's shared state.
struct App {
    engines: Arc<Vec<EngineCmd>>,
    cap: Arc<ProcessCap>,
    dir: PathBuf,
    games: Mutex<BTreeMap<u64, Arc<GameCell>>>,
    next_id: AtomicU64,
    max_games: usize,
    max_records: usize,
    /// The names this server answers to in the `Host` header (lower case, IPv6 in brackets).
    names: Vec<String>,
    /// The port the `Host` header must carry.
    port: u16,
    /// Listening on every address: any IP address (never a name) is answered.
    any_ip: bool,
    /// A game analysis is running (one at a time).
    analysing: AtomicBool,
    /// The endgame tables the analysis searches with and judges by.
    tablebases: Tablebases,
}

/// A running server.
pub struct Running {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Blocks until the server ends.
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Binds the address and serves on a thread of its own (dropping the handle stops it).
pub fn start(config: GuiConfig) -> Result<Running, GuiError> {
    // Bind first: a refused address leaves no games folder behind.
    let listener = std::net::TcpListener::bind(config.addr)
        .map_err(|e| std::io::Error::new(e.kind(), format!("cannot listen on {}: {e}", config.addr)))?;
    std::fs::create_dir_all(&config.games_dir).map_err(|e| {
        std::io::Error::new(e.kind(), format!("cannot create the games folder {}: {e}", config.games_dir.display()))
    })?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let bracket = |ip: IpAddr| if ip.is_ipv6() { format!("[{ip}]") } else { ip.to_string() };
    let mut names: Vec<String> = vec!["127.0.0.1".into(), "localhost".into(), "[::1]".into(), bracket(addr.ip())];
    names.push(config.host.parse::<IpAddr>().map_or_else(|_| config.host.to_ascii_lowercase(), bracket));
    let app = Arc::new(App {
        engines: Arc::new(config.engines),
        cap: ProcessCap::new(config.max_engines, config.max_hash),
        dir: config.games_dir,
        games: Mutex::new(BTreeMap::new()),
        next_id: AtomicU64::new(1),
        max_games: config.max_games,
        max_records: config.max_records,
        names,
        port: addr.port(),
        any_ip: addr.ip().is_unspecified(),
        analysing: AtomicBool::new(false),
        tablebases: config.tablebases,
    });
    let (cap, timeout) = (config.max_connections, config.request_timeout);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(BLOCKING_THREADS)
        .enable_all()
        .build()?;
    let (stop, stopped) = oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        runtime.block_on(async move {
            let listener = match tokio::net::TcpListener::from_std(listener) {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("error: {e}");
                    return;
                }
            };
            let ticker = app.clone();
            tokio::spawn(async move {
                let mut every = tokio::time::interval(Duration::from_millis(200));
                loop {
                    every.tick().await;
                    for cell in ticker.cells() {
                        let watchers = cell.updates.receiver_count();
                        cell.lock().tick(watchers);
                    }
                }
            });
            serve(listener, router(app, timeout), cap, timeout, stopped).await;
        });
    });
    Ok(Running { addr, stop: Some(stop), thread: Some(thread) })
}

fn router(app: Arc<App>, timeout: Duration) -> Router {
    Router::new()
        .route("/", get(|| async { Html(INDEX_HTML) }))
        .route("/app.js", get(|| async { ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], APP_JS) }))
        .route("/style.css", get(|| async { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE_CSS) }))
        .route("/api/config", get(config))
        .route("/api/games", get(list_games).post(new_game))
        .route("/api/resume", post(resume))
        .route("/api/games/{id}", get(game_state))
        .route("/api/games/{id}/action", post(action))
        .route("/api/games/{id}/ws", get(socket))
        .route("/api/records", get(list_records))
        .route("/api/records/{file}", get(record_file))
        .route("/api/replay", post(replay_upload))
        .route("/api/analyse", post(analyse))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(middleware::from_fn_with_state((timeout, MAX_BODY), read_body))
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

/// Answers only requests that name this server in `Host` (DNS rebinding is
/// refused) and, when they carry an `Origin` (a browser does for a form post
/// or a WebSocket), come from a page of that host; every answer forbids
/// framing and limits the page to its own script, style and server.
async fn guard(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let host = request.headers().get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let mut response = if !app.answers_to(&host) {
        GuiError::Forbidden(format!("this server does not answer to the host '{host}'")).into_response()
    } else if let Some(refusal) = foreign_origin(&request) {
        refusal.into_response()
    } else {
        next.run(request).await
    };
    let headers = response.headers_mut();
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    let ws = if app.answers_to(&host) { format!(" ws://{host}") } else { String::new() };
    let policy = format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'{ws}; \
         base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    );
    if let Ok(value) = HeaderValue::from_str(&policy) {
        headers.insert(header::CONTENT_SECURITY_POLICY, value);
    }
    response
}

/// The refusal for a request whose `Origin` is not the host it was sent to.
fn foreign_origin(request: &Request) -> Option<GuiError> {
    let header_text = |name: header::HeaderName| request.headers().get(name).and_then(|v| v.to_str().ok());
    let origin = header_text(header::ORIGIN)?;
    let host = header_text(header::HOST).unwrap_or("");
    let origin_host = origin.split_once("://").map_or(origin, |(_, rest)| rest);
    (origin_host != host).then(|| GuiError::Forbidden(format!("requests from {origin} are not allowed")))
}

impl IntoResponse for GuiError {
    fn into_response(self) -> Response {
        let status = match self {
            GuiError::NotFound(_) => StatusCode::NOT_FOUND,
            GuiError::Forbidden(_) => StatusCode::FORBIDDEN,
            GuiError::Limit(_) => StatusCode::TOO_MANY_REQUESTS,
            GuiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            GuiError::Io(_) => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        };
        (status, Json(json!({"type": "error", "error": self.to_string()}))).into_response()
    }
}

type Reply = Result<Json<Value>, GuiError>;

/// Runs blocking work (files, replays) off the runtime's threads, so that a
/// slow disk or a long record delays no other request.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, GuiError> + Send + 'static,
) -> Result<T, GuiError> {
    tokio::task::spawn_blocking(work).await.map_err(|e| GuiError::Io(std::io::Error::other(e.to_string())))?
}

/// Parses a JSON body into `T`, with serde's message as the error.
fn parse_body<T: serde::de::DeserializeOwned>(body: &str) -> Result<T, GuiError> {
    serde_json::from_str(body).map_err(|e| GuiError::BadRequest(format!("bad request: {e}")))
}

impl App {
    /// Whether a `Host` header names this server: one of its names with its
    /// port (a bare name only on port 80), or any IP address when it listens on all.
    fn answers_to(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        let (name, port) = match host.rfind(':') {
            Some(i) if !host[i..].contains(']') => (&host[..i], host[i + 1..].parse::<u16>().ok()),
            _ => (host.as_str(), Some(80)),
        };
        if port != Some(self.port) || name.is_empty() {
            return false;
        }
        self.names.iter().any(|n| n == name)
            || (self.any_ip && name.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().is_ok())
    }

    fn cells(&self) -> Vec<Arc<GameCell>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner()).values().cloned().collect()
    }

    fn cell(&self, id: u64) -> Result<Arc<GameCell>, GuiError> {
        let games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        games.get(&id).cloned().ok_or_else(|| GuiError::NotFound(format!("game {id}")))
    }

    /// Registers a new game after checking the cap on games in progress.
    fn add(
        &self,
        setup: Setup,
        moves: &[String],
        clocks: Option<[Duration; 2]>,
        path: Option<PathBuf>,
        date: String,
    ) -> Result<Arc<GameCell>, GuiError> {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        let live = games.values().filter(|c| !c.lock().is_over()).count();
        if live >= self.max_games {
            return Err(GuiError::Limit(format!(
                "{live} games are in progress (at most {}): finish or resign one first",
                self.max_games
            )));
        }
        let finished: Vec<u64> = games.iter().filter(|(_, c)| c.lock().is_over()).map(|(id, _)| *id).collect();
        for id in finished.iter().take(finished.len().saturating_sub(KEEP_FINISHED)) {
            games.remove(id);
        }
        if path.is_none() {
            let held = count_gui_records(&self.dir);
            if held >= self.max_records {
                return Err(GuiError::Limit(format!(
                    "the games folder holds {held} GUI records (at most {}, --max-records): \
                     move or delete some to start new games",
                    self.max_records
                )));
            }
        }
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let path = path.unwrap_or_else(|| {
            let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
            self.dir.join(format!("gui-{secs}-{id}.pgn"))
        });
        let new = GameStart { id, setup, moves, clocks, path, date };
        let cell = GameCell::create(new, self.engines.clone(), self.cap.clone())?;
        games.insert(id, cell.clone());
        Ok(cell)
    }

    fn engine(&self, index: Option<usize>) -> Result<Option<usize>, GuiError> {
        match index {
            Some(i) if i >= self.engines.len() => Err(GuiError::BadRequest(format!("no engine {i}"))),
            other => Ok(other),
        }
    }

    /// A record file inside the games folder, by a plain file name only.
    fn record_path(&self, file: &str) -> Result<PathBuf, GuiError> {
        let plain = !file.is_empty()
            && !file.starts_with('.')
            && file.ends_with(".pgn")
            && file.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
        if !plain {
            return Err(GuiError::BadRequest(format!(
                "'{file}' is not a record file name (letters, digits, . - _; .pgn)"
            )));
        }
        let path = self.dir.join(file);
        if !is_regular(&path) {
            if std::fs::symlink_metadata(&path).is_ok() {
                return Err(GuiError::BadRequest(format!("{file} is not a regular file")));
            }
            return Err(GuiError::NotFound(file.to_string()));
        }
        Ok(path)
    }
}

async fn config(State(app): State<Arc<App>>) -> Json<Value> {
    let names: Vec<&str> = app.engines.iter().map(|e| e.name.as_str()).collect();
    Json(json!({
        "engines": names,
        "max_games": app.max_games,
        "max_hash": app.cap.max_hash(),
        "max_threads": std::thread::available_parallelism().map_or(1, |n| n.get()),
        "version": env!("CARGO_PKG_VERSION"),
        // The rules' setup layers for each haberkorn layer count, so the page's form shows them.
        "setup_layers": HABERKORN_LAYERS.map(|l| (l.to_string(), json!(default_setup_layers(l)))).collect::<serde_json::Map<_, _>>(),
    }))
}

/// Unfinished GUI records on disk that are not loaded: (file, record).
fn unfinished_records(app: &App) -> Vec<(String, GameRecord)> {
    let loaded: Vec<PathBuf> = app.cells().iter().map(|c| c.lock().path().to_path_buf()).collect();
    let Ok(dir) = std::fs::read_dir(&app.dir) else { return Vec::new() };
    let mut out = Vec::new();
    for entry in dir.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(GUI_PREFIX) || !name.ends_with(".pgn") || loaded.contains(&path) {
            continue;
        }
        // A link, a FIFO, a file too large or not text is no record of ours.
        let Ok(text) = read_record(&path) else { continue };
        if let Ok(mut records) = parse_records(&text)
            && records.len() == 1
            && records[0].event == EVENT
            && records[0].result == GameResult::Unfinished
        {
            out.push((name, records.remove(0)));
        }
    }
    out.sort_by(|a, b| b.0.cmp(&a.0));
    out
}

async fn list_games(State(app): State<Arc<App>>) -> Reply {
    blocking(move || Ok(Json(games_list(&app)))).await
}

fn games_list(app: &Arc<App>) -> Value {
    let live: Vec<Value> = app
        .cells()
        .iter()
        .map(|c| {
            let g = c.lock();
            let v = g.view();
            json!({"id": g.id(), "players": v["players"], "plies": g.moves().len(), "over": v["over"],
                   "result": v["result"], "reason": v["reason"], "variant": v["variant"]["name"]})
        })
        .collect();
    let unfinished: Vec<Value> = unfinished_records(app)
        .into_iter()
        .map(|(file, r)| {
            json!({"file": file, "players": [r.white, r.black], "plies": r.moves.len(),
                   "variant": r.variant.to_string(), "date": r.date})
        })
        .collect();
    json!({"live": live, "unfinished": unfinished})
}

async fn new_game(State(app): State<Arc<App>>, body: String) -> Reply {
    let req: NewGame = parse_body(&body)?;
    blocking(move || start_game(&app, req)).await
}

fn start_game(app: &App, req: NewGame) -> Reply {
    let variant = match req.variant.parse::<VariantKind>() {
        Ok(VariantKind::Hdc) => Variant::hdc(),
        Ok(VariantKind::Haberkorn) => {
            let layers = req.layers.unwrap_or(8);
            if !HABERKORN_LAYERS.contains(&layers) {
                return Err(GuiError::BadRequest(format!("haberkorn has 3 to 8 layers, not {layers}")));
            }
            let (w, b) = if req.random_constellation {
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.subsec_nanos() as usize);
                let l = layers as usize;
                (Some(1 + (nanos % l) as u8), Some(1 + (nanos / l % l) as u8))
            } else {
                (req.white_layer, req.black_layer)
            };
            Variant::haberkorn_from(layers, w, b, req.en_passant, req.castling)
                .map_err(|e| GuiError::BadRequest(e.to_string()))?
        }
        Err(_) => return Err(GuiError::BadRequest(format!("unknown variant '{}' (hdc or haberkorn)", req.variant))),
    };
    let start = match req.fen.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
        Some(fen) => Position::from_fen(fen, variant)?,
        None => Position::start(variant),
    };
    let options = req.options.unwrap_or_default().check()?;
    if u64::from(options.hash) > app.cap.max_hash() {
        return Err(GuiError::BadRequest(format!(
            "Hash {} MiB is more than all engines may hold together ({} MiB, --max-hash)",
            options.hash,
            app.cap.max_hash()
        )));
    }
    let setup = Setup {
        variant,
        start,
        players: [app.engine(req.white)?, app.engine(req.black)?],
        limit: req.limit.unwrap_or(ThinkLimit::Movetime { ms: 1000 }).check()?,
        options,
    };
    let cell = app.add(setup, &[], None, None, today())?;
    let view = cell.lock().view();
    Ok(Json(view))
}

#[derive(Deserialize)]
struct ResumeRequest {
    file: String,
}

async fn resume(State(app): State<Arc<App>>, body: String) -> Reply {
    let req: ResumeRequest = parse_body(&body)?;
    blocking(move || resume_game(&app, &req.file)).await
}

/// Resumes a record under the same checks as a new game: its time control
/// and clocks in the ranges a new game accepts, at most [`MAX_PLIES`] plies.
fn resume_game(app: &App, file: &str) -> Reply {
    let path = app.record_path(file)?;
    if let Some(cell) = app.cells().into_iter().find(|c| c.lock().path() == path) {
        let view = cell.lock().view();
        return Ok(Json(view));
    }
    let text = read_record(&path)?;
    let mut records = parse_records(&text)?;
    if records.len() != 1 || records[0].event != EVENT || records[0].result != GameResult::Unfinished {
        return Err(GuiError::BadRequest(format!("{file} is not an unfinished GUI game")));
    }
    let r = records.remove(0);
    if r.moves.len() > MAX_PLIES {
        return Err(GuiError::BadRequest(format!("{file} has {} plies (at most {MAX_PLIES})", r.moves.len())));
    }
    let limit = ThinkLimit::parse(&r.time_control)
        .ok_or_else(|| {
            GuiError::BadRequest(format!("{file}: TimeControl '{}' is not a GUI time limit", r.time_control))
        })?
        .check()?;
    let clocks = resumed_clocks(limit, &r.comment, r.moves.len())?;
    let player = |name: &str| -> Result<Option<usize>, GuiError> {
        if name == HUMAN {
            return Ok(None);
        }
        app.engines.iter().position(|e| e.name == name).map(Some).ok_or_else(|| {
            GuiError::BadRequest(format!("engine '{name}' is not running here (start the server with --engine)"))
        })
    };
    let setup = Setup {
        variant: r.variant,
        start: Position::from_fen(&r.fen, r.variant)?,
        players: [player(&r.white)?, player(&r.black)?],
        limit,
        options: EngineOptions::default(),
    };
    let cell = app.add(setup, &r.moves, clocks, Some(path), r.date)?;
    let view = cell.lock().view();
    Ok(Json(view))
}

async fn game_state(State(app): State<Arc<App>>, Path(id): Path<u64>) -> Reply {
    let cell = app.cell(id)?;
    let view = cell.lock().view();
    Ok(Json(view))
}

/// Carries out one action on a game.
fn act(app: &App, cell: &GameCell, action: Action) -> Result<Value, GuiError> {
    let mut game = cell.lock();
    match action {
        Action::State => {}
        Action::Targets { from } => return game.targets(&from),
        Action::Move { mv } => game.human_move(&mv)?,
        Action::View { ply } => {
            let (pos, last) = game.position_at(ply)?;
            let mut board = board_view(&pos, last);
            board["type"] = json!("board");
            board["ply"] = json!(ply);
            return Ok(board);
        }
        Action::Analyse { on, engine, multipv, ply } => game.analyse(on, engine, multipv, ply)?,
        Action::Resign => game.resign()?,
        Action::Retry => game.retry()?,
        Action::Close => {
            game.close();
            let id = game.id();
            drop(game);
            app.games.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
            return Ok(json!({"type": "closed", "id": id}));
        }
    }
    Ok(game.view())
}

async fn action(State(app): State<Arc<App>>, Path(id): Path<u64>, body: String) -> Reply {
    let cell = app.cell(id)?;
    let action: Action = parse_body(&body)?;
    blocking(move || act(&app, &cell, action).map(Json)).await
}

async fn socket(
    State(app): State<Arc<App>>,
    Path(id): Path<u64>,
    slot: Option<axum::Extension<Slot>>,
    ws: WebSocketUpgrade,
) -> Response {
    let cell = match app.cell(id) {
        Ok(cell) => cell,
        Err(e) => return e.into_response(),
    };
    // The page subscribes before the upgrade is answered, so that it counts
    // as soon as its client hears the answer (the upgrade itself completes
    // later, in its own task). Subscribing first and counting after keeps
    // the cap strict when pages arrive at once: each then counts the others.
    let updates = cell.updates.subscribe();
    let watchers = cell.updates.receiver_count();
    if watchers > MAX_WATCHERS {
        let others = watchers - 1;
        return GuiError::Limit(format!("{others} pages watch game {id} (at most {MAX_WATCHERS})")).into_response();
    }
    // The connection's place under the cap goes with the WebSocket until it closes.
    let slot = slot.map(|s| s.0);
    ws.max_message_size(MAX_WS_MESSAGE).on_upgrade(move |s| session(s, app, cell, updates, slot))
}

/// One page's live connection to a game.
async fn session(
    mut socket: WebSocket,
    app: Arc<App>,
    cell: Arc<GameCell>,
    mut updates: broadcast::Receiver<String>,
    _slot: Option<Slot>,
) {
    // What was published before the upgrade finished is older than the view sent first.
    while !matches!(
        updates.try_recv(),
        Err(broadcast::error::TryRecvError::Empty | broadcast::error::TryRecvError::Closed)
    ) {}
    let first = cell.lock().view().to_string();
    if socket.send(Message::Text(first.into())).await.is_err() {
        return;
    }
    loop {
        let reply = tokio::select! {
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    let answer = serde_json::from_str::<Action>(text.as_str())
                        .map_err(|e| GuiError::BadRequest(format!("bad message: {e}")))
                        .and_then(|a| act(&app, &cell, a));
                    match answer {
                        Ok(v) => v.to_string(),
                        Err(e) => json!({"type": "error", "error": e.to_string()}).to_string(),
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    json!({"type": "error", "error": "binary messages are not understood"}).to_string()
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                Some(Ok(_)) => continue,
            },
            update = updates.recv() => match update {
                Ok(text) => text,
                Err(broadcast::error::RecvError::Lagged(_)) => cell.lock().view().to_string(),
                Err(broadcast::error::RecvError::Closed) => break,
            },
        };
        if socket.send(Message::Text(reply.into())).await.is_err() {
            break;
        }
    }
}

async fn list_records(State(app): State<Arc<App>>) -> Reply {
    blocking(move || records_list(&app)).await
}

fn records_list(app: &App) -> Reply {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&app.dir)?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".pgn") && app.record_path(&name).is_ok() {
            let size = entry.metadata().map_or(0, |m| m.len());
            files.push(json!({"file": name, "bytes": size}));
        }
    }
    files.sort_by(|a, b| b["file"].as_str().cmp(&a["file"].as_str()));
    Ok(Json(json!({"records": files})))
}

#[derive(Deserialize)]
struct GameIndex {
    #[serde(default)]
    game: usize,
}

/// A record file ready for replay: every game's tags, and game `index` with
/// a board per ply and each move's analysis (see [`replay_of`]).
pub fn replay(text: &str, index: usize) -> Result<Value, GuiError> {
    replay_of(&parse_records(text)?, index)
}

/// Parsed records ready for replay: every game's tags, and game `index` with
/// a board per ply, its tags (extra ones included), each move's analysis
/// (`analysis[i]`: `eval` in pawns from White's view or `mate` in moves,
/// White's winning `chances` from them on `cubist analyse`'s curve, `mark`
/// and `better`, from its `[%eval …]` comment and note) and the
/// analysis summary tags (`summary`, null when the game is not annotated).
pub fn replay_of(records: &[GameRecord], index: usize) -> Result<Value, GuiError> {
    let Some(r) = records.get(index) else {
        return Err(GuiError::BadRequest(format!("the record has {} games, no game {}", records.len(), index + 1)));
    };
    if r.moves.len() > MAX_PLIES {
        return Err(GuiError::BadRequest(format!(
            "game {} has {} plies: the replay shows at most {MAX_PLIES}",
            index + 1,
            r.moves.len()
        )));
    }
    let summaries: Vec<Value> = records
        .iter()
        .map(|r| {
            json!({"white": r.white, "black": r.black, "result": r.result.as_str(), "round": r.round,
                   "plies": r.moves.len(), "termination": r.termination.as_str()})
        })
        .collect();
    let mut pos = Position::from_fen(&r.fen, r.variant)?;
    let mut boards = vec![board_view(&pos, None)];
    for m in &r.moves {
        let played = pos.play(m)?;
        boards.push(board_view(&pos, Some(played)));
    }
    // The tags as the record file has them (`GameRecord::tags`, then the extra ones).
    let mut tags: Vec<Value> = r.tags().into_iter().map(|(k, v)| json!([k, v])).collect();
    tags.extend(r.extra_tags.iter().map(|(k, v)| json!([k, v])));
    let analysis: Vec<Value> = (0..r.moves.len())
        .map(|i| {
            let eval = r.move_comments.get(i).and_then(|c| eval_of_comment(c));
            let note = r.notes.get(i);
            json!({
                "eval": match eval { Some(Eval::Pawns(p)) => json!(p), _ => Value::Null },
                "mate": match eval { Some(Eval::Mate(n)) => json!(n), _ => Value::Null },
                "chances": eval.map(|e| e.chances(r.variant.kind)),
                "mark": note.and_then(|n| n.mark).map(Mark::as_str),
                "better": note.map_or("", |n| n.variation.as_str()),
                "tablebase": r.move_comments.get(i).and_then(|c| tablebase_of_comment(c)),
            })
        })
        .collect();
    let annotated = analysis.iter().any(|a| !a["eval"].is_null() || !a["mate"].is_null() || !a["mark"].is_null());
    let summary = annotated.then(|| {
        let tag = |name: &str| r.extra_tag(name).unwrap_or("");
        json!({"annotator": tag("Annotator"),
               "white_average_loss": tag("WhiteAverageLoss"), "black_average_loss": tag("BlackAverageLoss"),
               "white_marks": tag("WhiteMarks"), "black_marks": tag("BlackMarks")})
    });
    Ok(json!({
        "type": "replay",
        "games": summaries,
        "game": index,
        "tags": tags,
        "comment": r.comment,
        "variant": variant_view(&r.variant),
        "moves": r.moves,
        "boards": boards,
        "analysis": analysis,
        "summary": summary,
        "chance_slope": chance_slope(r.variant.kind),
    }))
}

async fn record_file(State(app): State<Arc<App>>, Path(file): Path<String>, Query(q): Query<GameIndex>) -> Reply {
    blocking(move || {
        let text = read_record(&app.record_path(&file)?)?;
        replay(&text, q.game).map(Json)
    })
    .await
}

async fn replay_upload(Query(q): Query<GameIndex>, body: String) -> Reply {
    blocking(move || replay(&body, q.game).map(Json)).await
}

/// A game to analyse: a record's text or a file of the games folder, the game's index, nodes per position.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalyseRequest {
    text: Option<String>,
    file: Option<String>,
    #[serde(default)]
    game: usize,
    nodes: Option<u64>,
}

async fn analyse(State(app): State<Arc<App>>, body: String) -> Reply {
    let req: AnalyseRequest = parse_body(&body)?;
    blocking(move || analyse_game(&app, req).map(Json)).await
}

/// Clears the running flag of a game analysis when it ends, however it ends.
struct AnalysisSlot<'a>(&'a AtomicBool);

impl Drop for AnalysisSlot<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// Analyses one game of a record as `cubist analyse` does ([`analyse_record`]),
/// one analysis at a time and at a bounded cost, and answers the replay of
/// the annotated record (its text, every game, in `record`). The file on
/// disk is left as it is.
fn analyse_game(app: &App, req: AnalyseRequest) -> Result<Value, GuiError> {
    let text = match (req.text, req.file) {
        (Some(text), None) => text,
        (None, Some(file)) => read_record(&app.record_path(&file)?)?,
        _ => return Err(GuiError::BadRequest("send the record's text or a file name, not both".into())),
    };
    let nodes = req.nodes.unwrap_or(ANALYSIS_NODES);
    if !(1..=MAX_ANALYSIS_NODES).contains(&nodes) {
        return Err(GuiError::BadRequest(format!("nodes {nodes}: from 1 to {MAX_ANALYSIS_NODES} per position")));
    }
    let mut records = parse_records(&text)?;
    let Some(rec) = records.get_mut(req.game) else {
        let n = records.len();
        return Err(GuiError::BadRequest(format!("the record has {n} games, no game {}", req.game + 1)));
    };
    let plies = rec.moves.len();
    if plies > MAX_ANALYSIS_PLIES {
        return Err(GuiError::BadRequest(format!(
            "game {} has {plies} plies: the GUI analyses at most {MAX_ANALYSIS_PLIES} (cubist analyse has no cap)",
            req.game + 1
        )));
    }
    if nodes * (plies as u64 + 1) > MAX_ANALYSIS_BUDGET {
        return Err(GuiError::BadRequest(format!(
            "{} positions at {nodes} nodes is more than the GUI searches for one analysis \
             ({MAX_ANALYSIS_BUDGET} nodes): ask for fewer nodes",
            plies + 1
        )));
    }
    if app.analysing.swap(true, Ordering::SeqCst) {
        return Err(GuiError::Limit("another game is being analysed: try again when it is done".into()));
    }
    let _slot = AnalysisSlot(&app.analysing);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(ANALYSIS_THREADS);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| GuiError::Io(std::io::Error::other(e.to_string())))?;
    let limits = Limits { nodes: Some(nodes), ..Limits::default() };
    let annotator = format!("Cubist {} GUI analysis, {nodes} nodes", env!("CARGO_PKG_VERSION"));
    pool.install(|| analyse_record(rec, &limits, ANALYSIS_HASH_MB, &app.tablebases, &annotator, &|| {}))
        .map_err(GuiError::BadRequest)?;
    let mut out = Vec::new();
    for r in &records {
        r.write(&mut out)?;
    }
    let mut view = replay_of(&records, req.game)?;
    view["record"] = json!(String::from_utf8_lossy(&out));
    view["nodes"] = json!(nodes);
    Ok(view)
}
