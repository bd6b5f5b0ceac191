//! The state of one UCI session (options, position, engine, perft job) and
//! the handler of every command but `help` and `register`, which the loop
//! and the command table in `uci/mod.rs` answer themselves; input parsing
//! is in `command.rs`, output text in `fmt.rs`.

use super::call::{Call, Flow, Handled};
use super::command::{self, CommandError, GoCommand, Start};
use super::fmt::{self, Output};
use super::options::{Effect, OptionId, Options};
use crate::bench;
use crate::core::{Move, Position};
use crate::search::{Engine, Limits};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use vampirc_uci::UciMessage;

/// A `go perft` running on its own thread so that `stop` can end it.
struct PerftJob {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

/// Everything a session remembers between commands.
pub struct Session {
    out: Output,
    options: Options,
    engine: Engine,
    pos: Position,
    debug: bool,
    /// Settings changed while a search ran: handed to the engine once it is idle.
    settings_pending: bool,
    /// `Clear Hash` or `ucinewgame` arrived while a search ran: done once it is idle.
    clear_pending: bool,
    perft: Option<PerftJob>,
}

impl Session {
    /// A new session at the hdc start position with default options, writing to `out`.
    pub fn new(out: Output) -> Session {
        let options = Options::default();
        let pos = Position::start(options.fen_variant());
        let engine = Engine::new(options.settings());
        Session { out, options, engine, pos, debug: false, settings_pending: false, clear_pending: false, perft: None }
    }

    /// Where this session writes.
    pub fn out(&self) -> &Output {
        &self.out
    }

    fn debug(&self, text: impl FnOnce() -> String) {
        if self.debug {
            self.out.info_string(&format!("debug: {}", text()));
        }
    }

    /// `uci`: identify, list the options, `uciok`.
    pub fn uci(&mut self, call: &Call) -> Handled {
        call.standard()?;
        self.out.send(&fmt::uci_reply());
        Ok(Flow::Continue)
    }

    /// `isready`: `readyok` at once, also while a search runs; when idle,
    /// option changes still pending reach the engine first.
    pub fn isready(&mut self, call: &Call) -> Handled {
        call.standard()?;
        self.sync_engine();
        self.out.send(&fmt::readyok());
        Ok(Flow::Continue)
    }

    /// `debug on|off`: with debug on, the engine explains what it does in `info string debug: …` lines.
    pub fn debug_mode(&mut self, call: &Call) -> Handled {
        if let UciMessage::Debug(on) = call.standard()? {
            self.debug = on;
        }
        self.debug(|| "debug mode on".to_string());
        Ok(Flow::Continue)
    }

    /// `setoption name <name> [value <value>]`.
    pub fn setoption(&mut self, call: &Call) -> Handled {
        let UciMessage::SetOption { name, value } = call.standard()? else {
            return Err(call.usage_error());
        };
        let effect = self.options.set(&name, value.as_deref())?;
        for note in self.options.take_notes() {
            self.out.info_string(&note);
        }
        if let Some(spec) = Options::find(&name) {
            let id = spec.id;
            self.debug(|| match self.options.value_text(id) {
                v if v.is_empty() => format!("option {} pressed", spec.name),
                v => format!("option {} = {v}", spec.name),
            });
        }
        match effect {
            Effect::Stored => {}
            Effect::Settings => self.settings_pending = true,
            Effect::ClearHash => self.clear_pending = true,
            Effect::Variant => self.variant_changed(),
        }
        self.sync_engine();
        Ok(Flow::Continue)
    }

    /// After a variant option changed: the position becomes the new game's
    /// start position; while the setup layers do not fit the layer count, the
    /// position stays and a warning says why.
    fn variant_changed(&mut self) {
        match self.options.variant() {
            Ok(v) if v != *self.pos.variant() => {
                self.pos = Position::start(v);
                self.debug(|| format!("variant now {v}; position set to its start"));
            }
            Ok(_) => {}
            Err(e) => self.out.info_string(&format!(
                "warning: {e}; position startpos fails until HaberkornWhiteLayer and HaberkornBlackLayer fit \
                 HaberkornLayers = {}",
                self.options.value_text(OptionId::HaberkornLayers)
            )),
        }
    }

    /// Hands pending settings and clears to the engine if no search runs.
    fn sync_engine(&mut self) {
        if self.engine.is_searching() {
            return;
        }
        if self.settings_pending {
            // At most Hash and Threads can be refused: after two refusals the rest applies.
            for _ in 0..3 {
                let settings = self.options.settings();
                if *self.engine.settings() == settings {
                    break;
                }
                self.debug(|| format!("engine settings: {}", fmt::settings_text(&settings)));
                match self.engine.set_settings(settings) {
                    Ok(()) => break,
                    Err(e) => {
                        // The engine kept its table or threads: that option says so again,
                        // and the other changes waiting with it are applied on the next pass.
                        self.out.error(&format!("setoption: {e}"));
                        let kept = self.engine.settings().clone();
                        self.options.restore_refused(&e, &kept);
                    }
                }
            }
            let params = self.options.params();
            if self.engine.params() != params {
                self.engine.set_params(params);
            }
            self.settings_pending = false;
        }
        if self.clear_pending {
            self.engine.clear();
            self.clear_pending = false;
        }
    }

    /// `ucinewgame`: clear the hash and histories (once no search runs) and forget the game's earlier positions.
    pub fn ucinewgame(&mut self, call: &Call) -> Handled {
        call.standard()?;
        self.clear_pending = true;
        self.sync_engine();
        self.pos.clear_history();
        Ok(Flow::Continue)
    }

    /// `position startpos|fen <3D-FEN> [moves …]`: all or nothing.
    pub fn position_cmd(&mut self, call: &Call) -> Handled {
        let cmd = command::parse_position(call.args)?;
        let base = match &cmd.start {
            Start::StartPos => Position::start(self.options.variant().map_err(CommandError::Variant)?),
            Start::Fen(fen) => Position::from_fen(fen, self.options.fen_variant()).map_err(CommandError::Fen)?,
        };
        self.pos = command::play_moves(base, &cmd.moves)?;
        self.debug(|| format!("position {}", self.pos.fen()));
        Ok(Flow::Continue)
    }

    /// `go …`: a running search is stopped first (its `bestmove` is printed);
    /// then the new search or perft starts.
    pub fn go(&mut self, call: &Call) -> Handled {
        let cmd = command::parse_go(call.args, &self.pos)?;
        self.engine.stop();
        self.engine.wait();
        self.wait_perft();
        self.sync_engine();
        match cmd {
            GoCommand::Search(limits) => self.start_search(limits),
            GoCommand::Perft(depth) => self.start_perft(depth),
        }
        Ok(Flow::Continue)
    }

    fn start_search(&mut self, limits: Limits) {
        self.debug(|| {
            let moves =
                if limits.searchmoves.is_empty() { "all".into() } else { command::move_list(&limits.searchmoves) };
            format!(
                "go limits {}; moves {moves}; settings {}",
                fmt::limits_text(&limits),
                fmt::settings_text(self.engine.settings())
            )
        });
        let out = self.out.clone();
        self.engine.go(&self.pos, limits, Box::new(move |r| out.send(&fmt::report(&r))));
    }

    /// Runs perft on its own thread: `<move>: <count>` per root move as it
    /// is counted, a blank line, `Nodes searched: <n>`; `stop` ends it early.
    fn start_perft(&mut self, depth: u32) {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let mut pos = self.pos.clone();
        let out = self.out.clone();
        let spawned = std::thread::Builder::new().name("perft".into()).spawn(move || {
            let mut total = 0;
            let moves: Vec<Move> = pos.legal_moves().to_vec();
            for m in moves {
                let undo = pos.make(m);
                let count = crate::perft::perft_stoppable(&mut pos, depth - 1, &flag);
                pos.unmake(m, &undo);
                match count {
                    Some(n) => {
                        out.send(&format!("{m}: {n}"));
                        total += n;
                    }
                    None => {
                        out.info_string("perft stopped");
                        return;
                    }
                }
            }
            out.send(&format!("\nNodes searched: {total}"));
        });
        match spawned {
            Ok(thread) => self.perft = Some(PerftJob { stop, thread }),
            Err(e) => self.out.error(&format!("go perft: no thread to count on ({e}); nothing started")),
        }
    }

    /// Whether a perft is still counting.
    pub fn perft_running(&self) -> bool {
        self.perft.as_ref().is_some_and(|job| !job.thread.is_finished())
    }

    /// Waits for a perft to finish.
    pub fn wait_perft(&mut self) {
        if let Some(job) = self.perft.take() {
            let _ = job.thread.join();
        }
    }

    /// `stop`: ends a search (it prints its `bestmove`) or a perft; nothing when idle.
    ///
    /// A perft is waited for (it gives up within a perft(2) of work), so once
    /// `stop` is handled no perft is running: a later command never meets one
    /// that is merely winding down.
    pub fn stop(&mut self, call: &Call) -> Handled {
        call.standard()?;
        self.engine.stop();
        if let Some(job) = &self.perft {
            job.stop.store(true, Ordering::Relaxed);
        }
        self.wait_perft();
        Ok(Flow::Continue)
    }

    /// `ponderhit`: the expected move was played; the ponder search goes on under the clock.
    pub fn ponderhit(&mut self, call: &Call) -> Handled {
        call.standard()?;
        self.engine.ponderhit();
        Ok(Flow::Continue)
    }

    /// `quit`: leave the loop (the search is stopped and its `bestmove` printed by [`Session::shutdown`]).
    pub fn quit(&mut self, call: &Call) -> Handled {
        call.standard()?;
        Ok(Flow::Quit)
    }

    /// `d`: the position as diagrams, FEN, key, side to move, checkers, variant.
    pub fn display(&mut self, _call: &Call) -> Handled {
        self.out.send(&fmt::diagram(&self.pos));
        Ok(Flow::Continue)
    }

    /// `eval`: the linear evaluation term by term and, when a network of the
    /// position's game is loaded (`EvalFile`), the network's output (the one the search uses).
    pub fn eval(&mut self, _call: &Call) -> Handled {
        let mut text = crate::eval::trace(&self.pos);
        if let Some(net) = self.options.networks().get(self.pos.variant().kind) {
            text.push_str(&net.trace(&self.pos));
            text.push_str("The search uses the network (EvalFile none: the linear evaluation).");
        }
        self.out.send(text.trim_end());
        Ok(Flow::Continue)
    }

    /// `bench [hash] [threads] [depth]` (or `hash=N threads=N depth=N`): searches the fixed bench positions
    /// in the foreground (like Stockfish) with the evaluation `EvalFile`
    /// chose, and prints the per-position lines and the summary; a running
    /// search is stopped first.
    pub fn bench(&mut self, call: &Call) -> Handled {
        let args: Vec<&str> = call.args.split_ascii_whitespace().collect();
        let b = bench::BenchArgs::parse(&args).map_err(CommandError::Bench)?;
        self.engine.stop();
        self.engine.wait();
        self.wait_perft();
        let mut text = Vec::new();
        bench::try_run(b.depth, b.threads, b.hash_mb, self.options.networks(), &mut text)
            .map_err(|e| CommandError::Bench(e.to_string()))?;
        self.out.send(String::from_utf8_lossy(&text).trim_end());
        Ok(Flow::Continue)
    }

    /// Ends the session: stops a search (its `bestmove` is printed) and
    /// waits for it, and lets a perft finish (it counts, it does not search).
    pub fn shutdown(&mut self) {
        self.engine.stop();
        self.engine.wait();
        self.wait_perft();
    }
}
