//! One game on the server: the position (checked by the rules library), the
//! players (a human or an engine each), clocks, engine searches and the record
//! on disk, rewritten and flushed after every move. The clocks, the game's
//! ends and the engines' `go` lines are the match runner's
//! ([`crate::arena::referee`]).

use super::GuiError;
use super::engine::{EngineCmd, EngineEvent, Job, ProcessCap, SearchJob, Worker};
use crate::arena::config::{Limit, TimeControl};
use crate::arena::process::InfoLine;
use crate::arena::referee::{Clock, ending, go_command, loss, side_index, variant_options};
use crate::core::square::ROMAN;
use crate::core::{Color, Move, Position, Square, Variant};
use crate::record::{GameRecord, GameResult, Termination};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

/// The name written to records for a human player.
pub const HUMAN: &str = "Human";
/// The `Event` tag of the GUI's records (how the server recognises its own files).
pub const EVENT: &str = "Cubist GUI";
/// Consecutive engine failures tolerated before the game is ended by the fault.
pub const MAX_FAILURES: u32 = 3;
/// How long an analysis runs with no page watching the game.
pub const UNWATCHED_ANALYSIS: Duration = Duration::from_secs(60);
/// How far past its time an engine's move may come before its flag falls
/// (a human has none: the page's clock is the human's).
pub const ENGINE_MARGIN: Duration = Duration::from_millis(200);
/// Plies a game may have: a live game that reaches it ends as a draw
/// (`max moves`), and longer records are refused for replay and resuming,
/// so a replay's answer stays under about 2 MB (about 400 bytes a ply).
pub const MAX_PLIES: usize = 4000;

/// How long engines think.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ThinkLimit {
    /// Fixed time per move.
    Movetime {
        /// Milliseconds per move.
        ms: u64,
    },
    /// A clock for both sides, humans included.
    Clock {
        /// Seconds for the game.
        base_s: u64,
        /// Seconds added after each move.
        inc_s: u64,
    },
    /// Fixed depth.
    Depth {
        /// Plies.
        depth: u32,
    },
}

impl ThinkLimit {
    /// Checks the ranges the server accepts.
    pub fn check(self) -> Result<ThinkLimit, GuiError> {
        let ok = match self {
            ThinkLimit::Movetime { ms } => (10..=600_000).contains(&ms),
            ThinkLimit::Clock { base_s, inc_s } => (1..=36_000).contains(&base_s) && inc_s <= 600,
            ThinkLimit::Depth { depth } => (1..=64).contains(&depth),
        };
        if ok { Ok(self) } else { Err(GuiError::BadRequest(format!("time limit out of range: {self:?}"))) }
    }

    /// The record's `TimeControl` text: `st=1.5`, `60+1`, `depth=3`.
    pub fn describe(self) -> String {
        match self {
            ThinkLimit::Movetime { ms } => format!("st={}", ms as f64 / 1000.0),
            ThinkLimit::Clock { base_s, inc_s } => format!("{base_s}+{inc_s}"),
            ThinkLimit::Depth { depth } => format!("depth={depth}"),
        }
    }

    /// Reads [`ThinkLimit::describe`]'s text back.
    pub fn parse(text: &str) -> Option<ThinkLimit> {
        if let Some(st) = text.strip_prefix("st=") {
            let s: f64 = st.parse().ok().filter(|s: &f64| s.is_finite() && *s > 0.0)?;
            return Some(ThinkLimit::Movetime { ms: (s * 1000.0).round() as u64 });
        }
        if let Some(d) = text.strip_prefix("depth=") {
            return Some(ThinkLimit::Depth { depth: d.parse().ok()? });
        }
        let (base, inc) = text.split_once('+')?;
        Some(ThinkLimit::Clock { base_s: base.parse().ok()?, inc_s: inc.parse().ok()? })
    }

    /// The referee's clock of one side under this limit: a clock game's time
    /// control for both sides; a move time or a depth for an engine only (a
    /// human is not timed then). The GUI flags game clocks only: an engine
    /// late on a fixed move time is its worker's to catch as hung.
    pub fn clock(self, engine: bool) -> Clock {
        let limit = match self {
            ThinkLimit::Clock { base_s, inc_s } => Limit {
                tc: Some(TimeControl {
                    moves: None,
                    base: Duration::from_secs(base_s),
                    inc: Duration::from_secs(inc_s),
                }),
                ..Limit::default()
            },
            ThinkLimit::Movetime { ms } if engine => {
                Limit { movetime: Some(Duration::from_millis(ms)), ..Limit::default() }
            }
            ThinkLimit::Depth { depth } if engine => Limit { depth: Some(depth), ..Limit::default() },
            _ => Limit::default(),
        };
        Clock::new(&limit, if engine { ENGINE_MARGIN } else { Duration::ZERO })
    }
}

/// Engine settings of a game (sent as UCI options).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineOptions {
    /// `Threads`.
    pub threads: u32,
    /// `Hash` in MiB.
    pub hash: u32,
    /// `Strategy`: `search`, `greedy` or `random`.
    pub strategy: String,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions { threads: 1, hash: 16, strategy: "search".into() }
    }
}

impl EngineOptions {
    /// Checks the ranges the server accepts.
    pub fn check(self) -> Result<EngineOptions, GuiError> {
        let max_threads = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        if !(1..=max_threads).contains(&self.threads) {
            return Err(GuiError::BadRequest(format!("Threads must be 1 to {max_threads}")));
        }
        if !(1..=4096).contains(&self.hash) {
            return Err(GuiError::BadRequest("Hash must be 1 to 4096 MiB".into()));
        }
        if !["search", "greedy", "random"].contains(&self.strategy.as_str()) {
            return Err(GuiError::BadRequest(format!("unknown Strategy '{}'", self.strategy)));
        }
        Ok(self)
    }

    fn lines(&self, variant: &Variant, multipv: u32) -> Vec<String> {
        let mut lines = variant_options(variant);
        lines.push(format!("setoption name Threads value {}", self.threads));
        lines.push(format!("setoption name Hash value {}", self.hash));
        lines.push(format!("setoption name Strategy value {}", self.strategy));
        lines.push(format!("setoption name MultiPV value {multipv}"));
        lines
    }
}

/// Everything fixed when a game starts.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The variant with its haberkorn options.
    pub variant: Variant,
    /// The position the game starts from.
    pub start: Position,
    /// Engine index per colour (White, Black); `None` is a human.
    pub players: [Option<usize>; 2],
    /// How long engines think (and the clocks, for a clock).
    pub limit: ThinkLimit,
    /// Engine options.
    pub options: EngineOptions,
}

/// Search slots: one per colour, and one for analysis.
const ANALYSIS: usize = 2;

/// What the analysis engine is asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Analysis {
    engine: usize,
    multipv: u32,
    ply: usize,
}

/// A game and the channel its changes are broadcast on.
pub struct GameCell {
    game: Mutex<Game>,
    /// Every state change and engine report, as JSON text.
    pub updates: broadcast::Sender<String>,
}

/// The state of one game.
pub struct Game {
    id: u64,
    me: Weak<GameCell>,
    engines: Arc<Vec<EngineCmd>>,
    cap: Arc<ProcessCap>,
    setup: Setup,
    pos: Position,
    moves: Vec<String>,
    ended: Option<(GameResult, Termination, String)>,
    clocks: [Clock; 2],
    turn_start: Instant,
    tag: u64,
    thinking: Option<usize>,
    analysis: Option<Analysis>,
    infos: Vec<InfoLine>,
    info_from: String,
    search_ply: usize,
    error: Option<String>,
    /// Whether `error` says the search waits for a place under the engine cap.
    queued: bool,
    failures: u32,
    workers: [Option<Worker>; 3],
    closed: bool,
    unwatched_since: Option<Instant>,
    path: PathBuf,
    date: String,
}

/// The moves a piece may make to one target square.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Target {
    /// The target square.
    pub to: String,
    /// The full move text without promotion.
    #[serde(rename = "move")]
    pub mv: String,
    /// Promotion letters when the move promotes (choose one), else empty.
    pub promotions: Vec<String>,
}

/// The legal targets of the piece on `from`, from the rules library.
pub fn targets(pos: &Position, from: Square) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for m in pos.legal_moves().into_iter().filter(|m| m.from() == from) {
        let to = m.to().to_string();
        let promo = m.promotion_kind().map(|k| k.letter().to_ascii_lowercase().to_string());
        match out.iter_mut().find(|t| t.to == to) {
            Some(t) => t.promotions.extend(promo),
            None => out.push(Target { mv: format!("{from}{to}"), to, promotions: promo.into_iter().collect() }),
        }
    }
    out
}

/// A board to draw: placement, side, last move, check and the king's attackers.
pub fn board_view(pos: &Position, last: Option<Move>) -> Value {
    let checkers: Vec<String> = pos.checkers().into_iter().map(|s| s.to_string()).collect();
    let king = pos.in_check().then(|| pos.king(pos.side_to_move()).to_string());
    json!({
        "fen": pos.fen(),
        "side": if pos.side_to_move() == Color::White { "w" } else { "b" },
        "last": last.map(|m| [m.from().to_string(), m.to().to_string()]),
        "checkers": checkers,
        "king_in_check": king,
    })
}

/// The variant as the page needs it.
pub fn variant_view(v: &Variant) -> Value {
    json!({
        "kind": v.kind.name(),
        "layers": v.layers,
        "white_layer": ROMAN[v.white_layer as usize],
        "black_layer": ROMAN[v.black_layer as usize],
        "en_passant": v.en_passant,
        "castling": v.castling,
        "name": v.to_string(),
    })
}

/// What a game starts from: its id and setup, the moves already played (a
/// resumed record; none for a new game), the clocks after them, where its
/// record is written and the date its record carries.
pub struct GameStart<'a> {
    /// The server's id of the game.
    pub id: u64,
    /// Variant, start position, players and limits.
    pub setup: Setup,
    /// Moves already played, in move text.
    pub moves: &'a [String],
    /// The clocks after those moves (`None`: the setup's base time).
    pub clocks: Option<[Duration; 2]>,
    /// The record file.
    pub path: PathBuf,
    /// The record's `Date` tag.
    pub date: String,
}

impl GameCell {
    /// A new game (or one resumed with moves already played) writing its
    /// record to `new.path`, its engines started from `engines` under `cap`.
    pub fn create(
        new: GameStart,
        engines: Arc<Vec<EngineCmd>>,
        cap: Arc<ProcessCap>,
    ) -> Result<Arc<GameCell>, GuiError> {
        let GameStart { id, setup, moves, clocks, path, date } = new;
        let mut pos = setup.start.clone();
        for m in moves {
            pos.play(m)?;
        }
        // Each side's clock, with the time a resumed record left it.
        let first = side_index(setup.start.side_to_move());
        let plies = moves.len() as u32;
        let clocks = [0, 1].map(|side| {
            let clock = setup.limit.clock(setup.players[side].is_some());
            let made = if side == first { plies.div_ceil(2) } else { plies / 2 };
            match clocks {
                Some(left) => clock.resumed(left[side], made),
                None => clock,
            }
        });
        let (updates, _) = broadcast::channel(256);
        let cell = Arc::new_cyclic(|me| GameCell {
            game: Mutex::new(Game {
                id,
                me: me.clone(),
                engines,
                cap,
                setup,
                pos,
                moves: moves.to_vec(),
                ended: None,
                clocks,
                turn_start: Instant::now(),
                tag: 0,
                thinking: None,
                analysis: None,
                infos: Vec::new(),
                info_from: String::new(),
                search_ply: 0,
                error: None,
                queued: false,
                failures: 0,
                workers: [None, None, None],
                closed: false,
                unwatched_since: None,
                path,
                date,
            }),
            updates,
        });
        {
            let mut game = cell.lock();
            game.check_end();
            game.save()?;
            game.schedule();
        }
        Ok(cell)
    }

    /// The game, locked (a poisoned lock is taken over: the state stays consistent between calls).
    pub fn lock(&self) -> MutexGuard<'_, Game> {
        self.game.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn on_engine_event(&self, slot: usize, event: EngineEvent) {
        let mut game = self.lock();
        game.engine_event(slot, event);
    }
}

impl Game {
    /// The game's number on this server.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The record file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.ended.is_some()
    }

    /// The moves played, in protocol text.
    pub fn moves(&self) -> &[String] {
        &self.moves
    }

    fn name(&self, side: usize) -> String {
        match self.setup.players[side] {
            Some(e) => self.engines.get(e).map_or_else(|| format!("engine {e}"), |e| e.name.clone()),
            None => HUMAN.to_string(),
        }
    }

    fn broadcast(&self, message: Value) {
        if let Some(cell) = self.me.upgrade() {
            let _ = cell.updates.send(message.to_string());
        }
    }

    /// The clocks now: the side to move's runs while the game goes on.
    fn clocks_running(&self) -> [Clock; 2] {
        let mut clocks = self.clocks.clone();
        if self.ended.is_none() {
            let side = side_index(self.pos.side_to_move());
            clocks[side] = clocks[side].running(self.turn_start.elapsed());
        }
        clocks
    }

    /// The time left on both game clocks now (`None` without a game clock).
    fn clocks_now(&self) -> Option<[Duration; 2]> {
        self.clocks[0].is_game_clock().then(|| self.clocks_running().map(|c| c.remaining()))
    }

    /// The whole state for the page.
    pub fn view(&self) -> Value {
        let last = self.moves.last().and_then(|_| self.last_move());
        let (result, reason, comment) = match &self.ended {
            Some((r, t, c)) => (r.as_str(), t.as_str(), c.as_str()),
            None => ("*", "", ""),
        };
        json!({
            "type": "state",
            "id": self.id,
            "variant": variant_view(&self.setup.variant),
            "players": [self.name(0), self.name(1)],
            "engines": self.setup.players,
            "human": [self.setup.players[0].is_none(), self.setup.players[1].is_none()],
            "start_fen": self.setup.start.fen(),
            "moves": self.moves,
            "board": board_view(&self.pos, last),
            "over": self.ended.is_some(),
            "result": result,
            "reason": reason,
            "comment": comment,
            "clocks_ms": self.clocks_now().map(|c| [c[0].as_millis() as u64, c[1].as_millis() as u64]),
            "limit": self.setup.limit.describe(),
            "options": self.setup.options,
            "thinking": self.thinking.map(|_| self.info_from.clone()),
            "infos": self.infos,
            "info_ply": self.search_ply,
            "info_engine": self.info_from,
            "analysis": self.analysis.map(|a| json!({"engine": a.engine, "multipv": a.multipv, "ply": a.ply})),
            "error": self.error,
            "record": self.path.file_name().map(|n| n.to_string_lossy().into_owned()),
        })
    }

    fn last_move(&self) -> Option<Move> {
        let mut pos = self.setup.start.clone();
        let n = self.moves.len();
        for m in &self.moves[..n.saturating_sub(1)] {
            pos.play(m).ok()?;
        }
        pos.parse_move(self.moves.last()?).ok()
    }

    /// The position after `ply` moves and the move that led there.
    pub fn position_at(&self, ply: usize) -> Result<(Position, Option<Move>), GuiError> {
        if ply > self.moves.len() {
            return Err(GuiError::BadRequest(format!("ply {ply} is beyond the game's {} moves", self.moves.len())));
        }
        let mut pos = self.setup.start.clone();
        let mut last = None;
        for m in &self.moves[..ply] {
            last = Some(pos.play(m)?);
        }
        Ok((pos, last))
    }

    /// The legal targets of the piece on `from` in the current position.
    pub fn targets(&self, from: &str) -> Result<Value, GuiError> {
        let sq = Square::parse(from.trim(), self.setup.variant.layers)
            .map_err(|e| GuiError::BadRequest(format!("bad square '{from}': {e}")))?;
        Ok(json!({"type": "targets", "from": sq.to_string(), "targets": targets(&self.pos, sq)}))
    }

    /// A human's move: checked against the rules and the player to move; on error nothing changes.
    pub fn human_move(&mut self, text: &str) -> Result<(), GuiError> {
        self.check_open()?;
        if let Some((_, t, _)) = &self.ended {
            return Err(GuiError::BadRequest(format!("the game is over ({t})")));
        }
        let side = side_index(self.pos.side_to_move());
        if self.setup.players[side].is_some() {
            return Err(GuiError::BadRequest("it is the engine's turn".into()));
        }
        let m = self.pos.parse_move(text.trim())?;
        self.apply(side, m);
        Ok(())
    }

    /// Plays a checked move for `side`, then ends the game or starts the next search.
    fn apply(&mut self, side: usize, m: Move) {
        let clock = &mut self.clocks[side];
        if !clock.charge(self.turn_start.elapsed()) && clock.is_game_clock() {
            self.finish(loss(side), Termination::TimeForfeit, format!("{} ran out of time", self.name(side)));
            return;
        }
        self.pos.make(m);
        self.moves.push(m.to_string());
        self.turn_start = Instant::now();
        self.failures = 0;
        self.error = None;
        self.queued = false;
        if let Some(a) = self.analysis.as_mut() {
            a.ply = self.moves.len();
        }
        self.check_end();
        if self.ended.is_none() && self.moves.len() >= MAX_PLIES {
            self.finish(GameResult::Draw, Termination::MaxMoves, format!("the GUI's cap of {MAX_PLIES} plies"));
        }
        self.schedule();
        // A record that cannot be written does not undo the move: the page is told.
        if let Err(e) = self.save() {
            self.error = Some(format!("cannot write the record {}: {e}", self.path.display()));
        }
        self.broadcast(self.view());
    }

    fn check_end(&mut self) {
        if self.ended.is_none()
            && let Some((result, termination)) = ending(self.pos.game_state(), self.pos.side_to_move())
        {
            self.finish(result, termination, String::new());
        }
    }

    /// Ends the game; stops every search.
    fn finish(&mut self, result: GameResult, termination: Termination, comment: String) {
        self.ended = Some((result, termination, comment));
        self.stop_engines();
        let _ = self.save();
        self.broadcast(self.view());
    }

    /// Stops every search and lets the engine processes quit (a later search starts new ones).
    fn stop_engines(&mut self) {
        self.tag += 1;
        self.thinking = None;
        self.analysis = None;
        for slot in self.workers.iter_mut() {
            if let Some(w) = slot.take() {
                w.send(Job::Stop);
            }
        }
    }

    /// Takes the game off the server (adjourned): engines stop, the record stays unfinished for resuming.
    pub fn close(&mut self) {
        self.closed = true;
        self.stop_engines();
        if self.ended.is_none()
            && let Err(e) = self.save()
        {
            log::warn!("cannot write {}: {e}", self.path.display());
        }
        self.broadcast(json!({"type": "closed", "id": self.id}));
    }

    /// A human resigns (the side to move when both are human).
    pub fn resign(&mut self) -> Result<(), GuiError> {
        self.check_open()?;
        if self.ended.is_some() {
            return Err(GuiError::BadRequest("the game is over".into()));
        }
        let side = match self.setup.players {
            [None, Some(_)] => 0,
            [Some(_), None] => 1,
            [None, None] => side_index(self.pos.side_to_move()),
            [Some(_), Some(_)] => return Err(GuiError::BadRequest("no human plays in this game".into())),
        };
        self.finish(loss(side), Termination::Resignation, format!("{} resigns", self.name(side)));
        Ok(())
    }

    /// Switches analysis on (on the position after `ply` moves) or off.
    pub fn analyse(&mut self, on: bool, engine: usize, multipv: u32, ply: Option<usize>) -> Result<(), GuiError> {
        self.check_open()?;
        if !on {
            self.analysis = None;
            self.tag += 1;
            if let Some(w) = &self.workers[ANALYSIS] {
                w.send(Job::Stop);
            }
            self.broadcast(self.view());
            return Ok(());
        }
        if engine >= self.engines.len() {
            return Err(GuiError::BadRequest(format!("no engine {engine}")));
        }
        if !(1..=16).contains(&multipv) {
            return Err(GuiError::BadRequest("MultiPV must be 1 to 16".into()));
        }
        if self.ended.is_none() && self.setup.players.iter().all(Option::is_some) {
            return Err(GuiError::BadRequest("no analysis while two engines play".into()));
        }
        let ply = ply.unwrap_or(self.moves.len());
        self.position_at(ply)?;
        self.analysis = Some(Analysis { engine, multipv, ply });
        self.error = None;
        self.failures = 0;
        self.schedule();
        self.broadcast(self.view());
        Ok(())
    }

    /// Asks for the search the game needs now, if any (an engine to move, or analysis).
    fn schedule(&mut self) {
        self.tag += 1;
        self.thinking = None;
        self.infos.clear();
        for w in self.workers.iter().flatten() {
            w.send(Job::Stop);
        }
        if self.closed {
            return;
        }
        let side = side_index(self.pos.side_to_move());
        // A finished game may still be analysed.
        let player = if self.ended.is_some() { None } else { self.setup.players[side] };
        let (slot, engine, multipv, ply) = match (player, self.analysis) {
            (Some(e), _) => (side, e, 1, self.moves.len()),
            (None, Some(a)) => (ANALYSIS, a.engine, a.multipv, a.ply),
            (None, None) => return,
        };
        let Ok((pos, _)) = self.position_at(ply) else { return };
        if ending(pos.game_state(), pos.side_to_move()).is_some() {
            return;
        }
        let start_fen = self.setup.start.fen();
        let mut position = if start_fen == self.setup.variant.start_fen() {
            "position startpos".to_string()
        } else {
            format!("position fen {start_fen}")
        };
        if ply > 0 {
            position.push_str(" moves ");
            position.push_str(&self.moves[..ply].join(" "));
        }
        let (go, wait) = if slot == ANALYSIS {
            ("go infinite".to_string(), None)
        } else {
            let clocks = self.clocks_running();
            (go_command(&clocks, side), Some(clocks[side].patience()))
        };
        let job = SearchJob {
            setup: self.setup.options.lines(&self.setup.variant, multipv),
            position,
            go,
            wait,
            side: pos.side_to_move(),
            tag: self.tag,
            hash: u64::from(self.setup.options.hash),
        };
        self.search_ply = ply;
        self.info_from = self.engines.get(engine).map_or_else(String::new, |e| e.name.clone());
        self.thinking = Some(slot);
        let sent = self.workers[slot].as_ref().is_some_and(|w| w.send(Job::Search(job.clone())));
        if !sent {
            let Some(cmd) = self.engines.get(engine).cloned() else { return };
            let me = self.me.clone();
            let worker = Worker::spawn(cmd, self.cap.clone(), move |event| {
                if let Some(cell) = me.upgrade() {
                    cell.on_engine_event(slot, event);
                }
            });
            worker.send(Job::Search(job));
            self.workers[slot] = Some(worker);
        }
    }

    fn engine_event(&mut self, slot: usize, event: EngineEvent) {
        match event {
            EngineEvent::Queued(tag, why) if tag == self.tag => {
                self.error = Some(format!("{why}: the engine waits for a place"));
                self.queued = true;
                self.broadcast(self.view());
            }
            EngineEvent::Info(tag, info) if tag == self.tag => {
                if std::mem::take(&mut self.queued) {
                    self.error = None;
                }
                match self.infos.iter_mut().find(|i| i.multipv == info.multipv) {
                    Some(old) => *old = info.clone(),
                    None => self.infos.push(info.clone()),
                }
                self.infos.sort_by_key(|i| i.multipv);
                self.broadcast(
                    json!({"type": "info", "engine": self.info_from, "info": info, "analysis": slot == ANALYSIS, "ply": self.search_ply}),
                );
            }
            EngineEvent::BestMove(tag, text) if tag == self.tag => {
                self.thinking = None;
                if slot == ANALYSIS {
                    return;
                }
                let side = side_index(self.pos.side_to_move());
                match self.pos.parse_move(&text) {
                    Ok(m) => self.apply(side, m),
                    Err(e) => {
                        let termination =
                            if text.is_empty() { Termination::MalformedMove } else { Termination::IllegalMove };
                        self.finish(loss(side), termination, format!("{}: bestmove {text}: {e}", self.name(side)));
                    }
                }
            }
            EngineEvent::Failed(tag, why) if tag == self.tag => {
                self.thinking = None;
                self.workers[slot] = None;
                self.failures += 1;
                if slot == ANALYSIS {
                    self.analysis = None;
                    self.error = Some(format!("analysis stopped: {why}"));
                } else if self.failures >= MAX_FAILURES {
                    self.error = Some(why.clone());
                    self.finish(loss(slot), Termination::Crash, why);
                    return;
                } else {
                    self.error = Some(format!("{why}; restarting the engine"));
                    self.schedule();
                }
                self.broadcast(self.view());
            }
            _ => {}
        }
    }

    /// Called regularly with the number of pages watching: ends the game when
    /// the side to move's clock is out, stops an analysis nobody watches.
    pub fn tick(&mut self, watchers: usize) {
        // An analysis nobody watches is an idle engine: it stops after a while.
        if self.analysis.is_some() && watchers == 0 {
            let since = *self.unwatched_since.get_or_insert_with(Instant::now);
            if since.elapsed() > UNWATCHED_ANALYSIS {
                self.analysis = None;
                self.tag += 1;
                self.thinking = None;
                if let Some(w) = self.workers[ANALYSIS].take() {
                    w.send(Job::Stop);
                }
            }
        } else {
            self.unwatched_since = None;
        }
        if self.ended.is_some() {
            return;
        }
        let side = side_index(self.pos.side_to_move());
        let clock = &mut self.clocks[side];
        let elapsed = self.turn_start.elapsed();
        if clock.is_game_clock() && clock.flag_fell(elapsed) {
            clock.charge(elapsed);
            self.finish(loss(side), Termination::TimeForfeit, format!("{} ran out of time", self.name(side)));
        }
    }

    /// Refuses actions on an adjourned game.
    fn check_open(&self) -> Result<(), GuiError> {
        if self.closed {
            return Err(GuiError::BadRequest(format!("game {} was adjourned: resume it from the games list", self.id)));
        }
        Ok(())
    }

    /// Asks again for the engine's move after a failure report.
    pub fn retry(&mut self) -> Result<(), GuiError> {
        self.check_open()?;
        self.failures = 0;
        self.error = None;
        self.schedule();
        self.broadcast(self.view());
        Ok(())
    }

    /// The record as it stands (`*` while unfinished; the clocks in the comment).
    pub fn record(&self) -> GameRecord {
        let (result, termination, comment) = match &self.ended {
            Some((r, t, c)) => (*r, *t, c.clone()),
            None => (
                GameResult::Unfinished,
                Termination::Unterminated,
                self.clocks_now()
                    .map_or_else(String::new, |c| format!("clocks {} {}", c[0].as_millis(), c[1].as_millis())),
            ),
        };
        GameRecord {
            event: EVENT.into(),
            site: "Cubist GUI".into(),
            date: self.date.clone(),
            round: self.id.to_string(),
            white: self.name(0),
            black: self.name(1),
            result,
            variant: self.setup.variant,
            fen: self.setup.start.fen(),
            time_control: self.setup.limit.describe(),
            termination,
            moves: self.moves.clone(),
            move_comments: Vec::new(),
            notes: Vec::new(),
            extra_tags: Vec::new(),
            comment,
        }
    }

    /// Writes the record (to a temporary file created anew, flushed, then renamed over the old one).
    pub fn save(&self) -> Result<(), GuiError> {
        let mut text = Vec::new();
        self.record().write(&mut text)?;
        super::files::write_record(&self.path, &text)?;
        Ok(())
    }
}

/// The clocks of a resumed record under `limit` after `plies` moves: only a
/// clock game has them (its base time when the comment has none), and
/// neither may exceed the base time plus every increment its side has had.
pub fn resumed_clocks(limit: ThinkLimit, comment: &str, plies: usize) -> Result<Option<[Duration; 2]>, GuiError> {
    let ThinkLimit::Clock { base_s, inc_s } = limit else { return Ok(None) };
    let Some(clocks) = parse_clocks(comment) else { return Ok(None) };
    let most = Duration::from_secs(base_s.saturating_add(inc_s.saturating_mul(plies as u64)));
    if clocks.iter().any(|c| *c > most) {
        return Err(GuiError::BadRequest(format!(
            "the record's clocks ({comment}) exceed its time control {} after {plies} plies",
            limit.describe()
        )));
    }
    Ok(Some(clocks))
}

/// The clocks stored in an unfinished record's comment (`clocks <white ms> <black ms>`).
pub fn parse_clocks(comment: &str) -> Option<[Duration; 2]> {
    let mut words = comment.strip_prefix("clocks ")?.split_whitespace().map(|w| w.parse::<u64>().ok());
    Some([Duration::from_millis(words.next()??), Duration::from_millis(words.next()??)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_round_trip_through_their_text() {
        for l in [
            ThinkLimit::Movetime { ms: 1500 },
            ThinkLimit::Clock { base_s: 300, inc_s: 2 },
            ThinkLimit::Depth { depth: 4 },
        ] {
            assert_eq!(ThinkLimit::parse(&l.describe()), Some(l));
        }
        assert_eq!(ThinkLimit::parse("banana"), None);
        assert!(ThinkLimit::Movetime { ms: 1 }.check().is_err());
        assert!(ThinkLimit::Depth { depth: 0 }.check().is_err());
        assert_eq!(parse_clocks("clocks 1000 2500"), Some([Duration::from_secs(1), Duration::from_millis(2500)]));
        assert_eq!(parse_clocks("clocks 1"), None);
    }

    #[test]
    fn targets_come_from_the_rules() {
        let pos = Position::start(Variant::hdc());
        let from = Square::parse("e2-IV", 8).unwrap();
        let t = targets(&pos, from);
        let mut tos: Vec<&str> = t.iter().map(|t| t.to.as_str()).collect();
        tos.sort();
        assert_eq!(tos, vec!["e3-IV", "e4-IV"]);
        assert!(t.iter().all(|t| t.promotions.is_empty() && t.mv.starts_with("e2-IV")));
        let promo = Position::from_fen(
            "8/4P3/8/8/8/8/8/k6K|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/8 w - - 0 1",
            Variant::haberkorn_with(3, 1, 3, false, false).unwrap(),
        )
        .unwrap();
        let t = targets(&promo, Square::parse("e7-I", 3).unwrap());
        let e8 = t.iter().find(|t| t.to == "e8-I").unwrap();
        assert_eq!(e8.promotions.len(), 4);
    }
}
