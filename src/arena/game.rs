//! One game between two engine processes, refereed by the rules library:
//! every move is checked, natural ends come from `Position::game_state`,
//! the clocks are the referee's ([`super::referee`]), any engine fault
//! loses the game, and endgame tables (`--tb`) end it once they hold the
//! position.

use super::config::{Adjudication, EngineSpec};
use super::process::{EngineProcess, EngineScore, ProcessError, SearchReply};
use super::referee::{Clock, ending, go_command, loss, side_index, variant_options};
use crate::core::{GameState, MoveError, Position};
use crate::record::{GameResult, Termination};
use crate::tb::{Tablebases, Value};
use std::time::Instant;

/// A played game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The result.
    pub result: GameResult,
    /// Why it ended.
    pub termination: Termination,
    /// The moves in protocol text.
    pub moves: Vec<String>,
    /// What the mover reported with each move (`+0.35/12 0.101s`), one per move.
    pub move_comments: Vec<String>,
    /// What the referee saw (e.g. the refused move), may be empty.
    pub comment: String,
}

/// Counts consecutive scores for resign and draw adjudication.
struct Adjudicator<'a> {
    rules: &'a Adjudication,
    losing: [u32; 2],
    drawish: u32,
}

impl Adjudicator<'_> {
    /// Records the score the mover reported with its move; returns an adjudicated end.
    fn after_move(&mut self, mover: usize, score: Option<EngineScore>, fullmove: u32) -> Option<(usize, Termination)> {
        let cp = score.map(EngineScore::centipawns);
        if let Some(r) = self.rules.resign {
            match cp {
                Some(cp) if cp <= -r.score => self.losing[mover] += 1,
                _ => self.losing[mover] = 0,
            }
            if self.losing[mover] >= r.movecount {
                return Some((mover, Termination::Resign));
            }
        }
        if let Some(d) = self.rules.draw {
            match cp {
                Some(cp) if fullmove >= d.movenumber && cp.abs() <= d.score => self.drawish += 1,
                _ => self.drawish = 0,
            }
            if self.drawish >= 2 * d.movecount {
                return Some((2, Termination::DrawAdjudication));
            }
        }
        None
    }
}

/// A move's comment as cutechess writes it: `+0.35/12 0.101s` (score in
/// pawns from the mover's side, `+M3`/`-M2` for mates, then depth and time);
/// parts the engine did not report are left out.
pub fn move_comment(reply: &SearchReply) -> String {
    let mut text = match reply.score {
        Some(EngineScore::Cp(cp)) => {
            format!("{}{:.2}", if cp < 0 { "-" } else { "+" }, f64::from(cp.unsigned_abs()) / 100.0)
        }
        Some(EngineScore::Mate(m)) => format!("{}M{}", if m < 0 { "-" } else { "+" }, m.unsigned_abs()),
        None => String::new(),
    };
    if let Some(d) = reply.depth
        && !text.is_empty()
    {
        text += &format!("/{d}");
    }
    if !text.is_empty() {
        text.push(' ');
    }
    text + &format!("{:.3}s", reply.elapsed.as_secs_f64())
}

/// The result the endgame tables give `pos`, as cutechess adjudicates with
/// Syzygy (the fifty-move rule applied), with the tables' verdict.
fn tablebase_result(tables: &Tablebases, pos: &Position) -> Option<(GameResult, Value)> {
    let value = tables.probe_at_clock(pos)?;
    let mover = side_index(pos.side_to_move());
    let result = match value {
        Value::Mate(d) if d % 2 == 1 => loss(1 - mover),
        Value::Mate(_) => loss(mover),
        Value::Draw => GameResult::Draw,
        Value::Illegal => return None,
    };
    Some((result, value))
}

/// The termination of a process error.
fn fault_of(e: &ProcessError) -> Termination {
    match e {
        // An option refused at a restart (checked before the first game, so not expected) fails the start.
        ProcessError::Spawn { .. } | ProcessError::Crashed | ProcessError::Option(_) => Termination::Crash,
        ProcessError::Timeout { what: "bestmove", .. } => Termination::TimeForfeit,
        ProcessError::Timeout { .. } => Termination::NoReadyok,
    }
}

/// Plays one game from `start`. `engines[0]` plays White; a slot left `None`
/// (or emptied here after a crash or a timeout) is started or restarted next game.
pub fn play_game(
    start: &Position,
    specs: [&EngineSpec; 2],
    engines: &mut [Option<EngineProcess>; 2],
    rules: &Adjudication,
    tables: &Tablebases,
) -> Played {
    // Each move with what its engine reported.
    let mut moves: Vec<(String, String)> = Vec::new();
    let ended = |moves: &Vec<(String, String)>, result, termination, comment: String| Played {
        result,
        termination,
        moves: moves.iter().map(|(m, _)| m.clone()).collect(),
        move_comments: moves.iter().map(|(_, c)| c.clone()).collect(),
        comment,
    };
    let faulted =
        |engines: &mut [Option<EngineProcess>; 2], moves: &Vec<(String, String)>, side: usize, e: ProcessError| {
            engines[side] = None;
            ended(moves, loss(side), fault_of(&e), format!("{}: {e}", specs[side].name))
        };
    // Start both engines and announce the game.
    for side in 0..2 {
        if engines[side].is_none() {
            match EngineProcess::start(specs[side]) {
                Ok(p) => engines[side] = Some(p),
                Err(e) => return faulted(engines, &moves, side, e),
            }
        }
        let Some(engine) = engines[side].as_mut() else { continue };
        let mut lines = variant_options(start.variant());
        lines.push("ucinewgame".into());
        let sent = lines.iter().try_for_each(|l| engine.send(l)).and_then(|_| engine.is_ready());
        if let Err(e) = sent {
            return faulted(engines, &moves, side, e);
        }
    }
    let start_fen = start.fen();
    let position_prefix = if start_fen == start.variant().start_fen() {
        "position startpos".to_string()
    } else {
        format!("position fen {start_fen}")
    };
    let mut pos = start.clone();
    let mut clocks = specs.map(|s| Clock::new(&s.limit, s.timemargin));
    let mut adjudicator = Adjudicator { rules, losing: [0; 2], drawish: 0 };
    // The state of the position on the board, computed once per ply (it generates the legal moves).
    let mut state = pos.game_state();
    loop {
        if let Some((result, termination)) = ending(state, pos.side_to_move()) {
            return ended(&moves, result, termination, String::new());
        }
        if state == GameState::Ongoing
            && let Some((result, value)) = tablebase_result(tables, &pos)
        {
            return ended(&moves, result, Termination::Tablebase, format!("tablebase: {value}"));
        }
        if let Some(max) = rules.maxmoves
            && moves.len() >= 2 * max as usize
        {
            return ended(&moves, GameResult::Draw, Termination::MaxMoves, String::new());
        }
        let side = side_index(pos.side_to_move());
        let Some(engine) = engines[side].as_mut() else {
            return faulted(engines, &moves, side, ProcessError::Crashed);
        };
        let position = if moves.is_empty() {
            position_prefix.clone()
        } else {
            let list: Vec<&str> = moves.iter().map(|(m, _)| m.as_str()).collect();
            format!("{position_prefix} moves {}", list.join(" "))
        };
        if let Err(e) = engine.send(&position).and_then(|_| engine.is_ready()) {
            return faulted(engines, &moves, side, e);
        }
        let deadline = Instant::now() + clocks[side].patience();
        let reply = match engine.go(&go_command(&clocks, side), deadline) {
            Ok(r) => r,
            Err(e) => return faulted(engines, &moves, side, e),
        };
        if !clocks[side].charge(reply.elapsed) {
            let comment = format!("{} took {} ms", specs[side].name, reply.elapsed.as_millis());
            return ended(&moves, loss(side), Termination::TimeForfeit, comment);
        }
        let m = match pos.parse_move(&reply.bestmove) {
            Ok(m) => m,
            Err(e) => {
                let t = match e {
                    MoveError::Illegal(_) => Termination::IllegalMove,
                    MoveError::Malformed { .. } => Termination::MalformedMove,
                };
                let comment = format!("{} played '{}'", specs[side].name, reply.bestmove);
                return ended(&moves, loss(side), t, comment);
            }
        };
        pos.make(m);
        moves.push((m.to_string(), move_comment(&reply)));
        state = pos.game_state();
        if state == GameState::Ongoing
            && let Some((loser, t)) = adjudicator.after_move(side, reply.score, pos.fullmove_number())
        {
            let result = if loser == 2 { GameResult::Draw } else { loss(loser) };
            return ended(&moves, result, t, String::new());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::config::{DrawRule, ResignRule};
    use std::time::Duration;

    #[test]
    fn adjudication_counts_consecutive_moves() {
        let rules = Adjudication {
            resign: Some(ResignRule { movecount: 2, score: 500 }),
            draw: Some(DrawRule { movenumber: 10, movecount: 2, score: 5 }),
            maxmoves: None,
            tb: None,
        };
        let mut a = Adjudicator { rules: &rules, losing: [0; 2], drawish: 0 };
        assert_eq!(a.after_move(0, Some(EngineScore::Cp(-600)), 1), None);
        assert_eq!(a.after_move(1, Some(EngineScore::Cp(600)), 2), None);
        assert_eq!(a.after_move(0, Some(EngineScore::Cp(-400)), 2), None, "the run is broken");
        assert_eq!(a.after_move(0, Some(EngineScore::Mate(-3)), 3), None);
        assert_eq!(a.after_move(0, Some(EngineScore::Cp(-900)), 4), Some((0, Termination::Resign)));
        let mut d = Adjudicator { rules: &rules, losing: [0; 2], drawish: 0 };
        assert_eq!(d.after_move(0, Some(EngineScore::Cp(0)), 9), None, "before movenumber");
        assert_eq!(d.after_move(1, Some(EngineScore::Cp(0)), 10), None);
        assert_eq!(d.after_move(0, Some(EngineScore::Cp(3)), 10), None);
        assert_eq!(d.after_move(1, Some(EngineScore::Cp(-5)), 11), None);
        assert_eq!(d.after_move(0, Some(EngineScore::Cp(1)), 12), Some((2, Termination::DrawAdjudication)));
    }

    #[test]
    fn move_comments_read_like_cutechess() {
        let reply =
            |score, depth| SearchReply { bestmove: String::new(), score, depth, elapsed: Duration::from_millis(101) };
        assert_eq!(move_comment(&reply(Some(EngineScore::Cp(35)), Some(12))), "+0.35/12 0.101s");
        assert_eq!(move_comment(&reply(Some(EngineScore::Cp(-5)), Some(3))), "-0.05/3 0.101s");
        assert_eq!(move_comment(&reply(Some(EngineScore::Mate(-2)), None)), "-M2 0.101s");
        assert_eq!(move_comment(&reply(None, Some(4))), "0.101s");
    }
}
