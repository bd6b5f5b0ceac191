//! One game between two engine processes, refereed by the rules library:
//! every move is checked, natural ends come from `Position::game_state`,
//! the clock is the referee's own, and any engine fault loses the game.

use super::config::{DrawRule, EngineSpec, Limit, ResignRule};
use super::process::{EngineProcess, EngineScore, ProcessError, SearchReply};
use super::record::{GameResult, Termination};
use crate::core::{Color, GameState, MoveError, Position, Variant, VariantKind};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// How long the referee waits for a move when no clock or move time limits it
/// (`depth=` or `nodes=` only): a hung engine must not stall the match.
pub const UNTIMED_PATIENCE: Duration = Duration::from_secs(600);

/// Adjudication settings beyond the rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adjudication {
    /// `--resign`.
    pub resign: Option<ResignRule>,
    /// `--draw`.
    pub draw: Option<DrawRule>,
    /// `--maxmoves`: full moves after which the game is drawn.
    pub maxmoves: Option<u32>,
}

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

/// One side's clock, run by the referee.
struct Clock {
    limit: Limit,
    margin: Duration,
    remaining: Duration,
    moves_made: u32,
}

impl Clock {
    fn new(spec: &EngineSpec) -> Clock {
        let remaining = spec.limit.tc.map_or(Duration::ZERO, |tc| tc.base);
        Clock { limit: spec.limit.clone(), margin: spec.timemargin, remaining, moves_made: 0 }
    }

    /// The time this move may take before the margin: the clock or the fixed move time.
    fn budget(&self) -> Option<Duration> {
        match (self.limit.tc, self.limit.movetime) {
            (Some(_), _) => Some(self.remaining),
            (None, Some(st)) => Some(st),
            (None, None) => None,
        }
    }

    /// Charges a move's time; false when the flag fell.
    fn charge(&mut self, elapsed: Duration) -> bool {
        if let Some(budget) = self.budget()
            && elapsed > budget + self.margin
        {
            return false;
        }
        self.moves_made += 1;
        if let Some(tc) = self.limit.tc {
            self.remaining = self.remaining.saturating_sub(elapsed) + tc.inc;
            if let Some(m) = tc.moves
                && self.moves_made.is_multiple_of(m)
            {
                self.remaining += tc.base;
            }
        }
        true
    }

    fn movestogo(&self) -> Option<u32> {
        self.limit.tc.and_then(|tc| tc.moves).map(|m| m - self.moves_made % m)
    }
}

/// The `go` command for the side to move.
fn go_command(clocks: &[Clock; 2], mover: usize) -> String {
    let mut go = String::from("go");
    for (i, (t, inc)) in [("wtime", "winc"), ("btime", "binc")].iter().enumerate() {
        if let Some(tc) = clocks[i].limit.tc {
            go += &format!(" {t} {} {inc} {}", clocks[i].remaining.as_millis(), tc.inc.as_millis());
        }
    }
    let own = &clocks[mover];
    if let Some(mtg) = own.movestogo() {
        go += &format!(" movestogo {mtg}");
    }
    if let Some(st) = own.limit.movetime {
        go += &format!(" movetime {}", st.as_millis());
    }
    if let Some(d) = own.limit.depth {
        go += &format!(" depth {d}");
    }
    if let Some(n) = own.limit.nodes {
        go += &format!(" nodes {n}");
    }
    go
}

/// The `setoption` lines that tell an engine the variant.
pub fn variant_options(v: &Variant) -> Vec<String> {
    let mut lines = vec![format!("setoption name UCI_Variant value {}", v.kind.name())];
    if v.kind == VariantKind::Haberkorn {
        lines.push(format!("setoption name HaberkornLayers value {}", v.layers));
        lines.push(format!("setoption name HaberkornWhiteLayer value {}", v.white_layer + 1));
        lines.push(format!("setoption name HaberkornBlackLayer value {}", v.black_layer + 1));
        lines.push(format!("setoption name HaberkornEnPassant value {}", v.en_passant));
        lines.push(format!("setoption name HaberkornCastling value {}", v.castling));
    }
    lines
}

/// Counts consecutive scores for resign and draw adjudication.
struct Adjudicator {
    rules: Adjudication,
    losing: [u32; 2],
    drawish: u32,
}

impl Adjudicator {
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

/// What a fault of side `loser` (0 White, 1 Black) gives.
fn loss(loser: usize) -> GameResult {
    if loser == 0 { GameResult::BlackWins } else { GameResult::WhiteWins }
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
    rules: Adjudication,
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
    let mut clocks = [Clock::new(specs[0]), Clock::new(specs[1])];
    let mut adjudicator = Adjudicator { rules, losing: [0; 2], drawish: 0 };
    // The state of the position on the board, computed once per ply (it generates the legal moves).
    let mut state = pos.game_state();
    loop {
        match state {
            GameState::Ongoing => {}
            GameState::Checkmate => {
                let loser = if pos.side_to_move() == Color::White { 0 } else { 1 };
                return ended(&moves, loss(loser), Termination::Checkmate, String::new());
            }
            drawn => {
                let t = match drawn {
                    GameState::Stalemate => Termination::Stalemate,
                    GameState::FiftyMoves => Termination::FiftyMoves,
                    GameState::Repetition => Termination::Repetition,
                    _ => Termination::DeadMaterial,
                };
                return ended(&moves, GameResult::Draw, t, String::new());
            }
        }
        if let Some(max) = rules.maxmoves
            && moves.len() >= 2 * max as usize
        {
            return ended(&moves, GameResult::Draw, Termination::MaxMoves, String::new());
        }
        let side = if pos.side_to_move() == Color::White { 0 } else { 1 };
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
        let clock = &clocks[side];
        let deadline = Instant::now() + clock.budget().map_or(UNTIMED_PATIENCE, |b| b + clock.margin);
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
    use crate::core::Variant;

    fn spec(tokens: &str) -> EngineSpec {
        let t: Vec<String> = format!("cmd=x {tokens}").split_whitespace().map(String::from).collect();
        EngineSpec::parse(&[], &t).unwrap()
    }

    #[test]
    fn go_commands_carry_both_clocks() {
        let clocks = [Clock::new(&spec("tc=40/10+0.1")), Clock::new(&spec("tc=5+0 depth=3"))];
        assert_eq!(go_command(&clocks, 0), "go wtime 10000 winc 100 btime 5000 binc 0 movestogo 40");
        assert_eq!(go_command(&clocks, 1), "go wtime 10000 winc 100 btime 5000 binc 0 depth 3");
        let fixed = [Clock::new(&spec("st=0.5")), Clock::new(&spec("nodes=1000"))];
        assert_eq!(go_command(&fixed, 0), "go movetime 500");
        assert_eq!(go_command(&fixed, 1), "go nodes 1000");
    }

    #[test]
    fn the_referee_clock_runs_and_flags() {
        let mut c = Clock::new(&spec("tc=2/1+0.1 timemargin=0"));
        assert!(c.charge(Duration::from_millis(400)));
        assert_eq!(c.remaining, Duration::from_millis(700));
        assert!(c.charge(Duration::from_millis(200)));
        assert_eq!(c.remaining, Duration::from_millis(1600), "a new period after 2 moves");
        assert!(!c.charge(Duration::from_millis(1601)));
        let mut st = Clock::new(&spec("st=0.1 timemargin=50"));
        assert!(st.charge(Duration::from_millis(149)));
        assert!(!st.charge(Duration::from_millis(151)));
        assert_eq!(Clock::new(&spec("depth=1")).budget(), None);
    }

    #[test]
    fn adjudication_counts_consecutive_moves() {
        let rules = Adjudication {
            resign: Some(ResignRule { movecount: 2, score: 500 }),
            draw: Some(DrawRule { movenumber: 10, movecount: 2, score: 5 }),
            maxmoves: None,
        };
        let mut a = Adjudicator { rules, losing: [0; 2], drawish: 0 };
        assert_eq!(a.after_move(0, Some(EngineScore::Cp(-600)), 1), None);
        assert_eq!(a.after_move(1, Some(EngineScore::Cp(600)), 2), None);
        assert_eq!(a.after_move(0, Some(EngineScore::Cp(-400)), 2), None, "the run is broken");
        assert_eq!(a.after_move(0, Some(EngineScore::Mate(-3)), 3), None);
        assert_eq!(a.after_move(0, Some(EngineScore::Cp(-900)), 4), Some((0, Termination::Resign)));
        let mut d = Adjudicator { rules, losing: [0; 2], drawish: 0 };
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

    #[test]
    fn variant_options_name_the_haberkorn_settings() {
        assert_eq!(variant_options(&Variant::hdc()), ["setoption name UCI_Variant value hdc"]);
        let v = Variant::haberkorn_with(5, 1, 5, true, false).unwrap();
        let lines = variant_options(&v);
        assert!(lines.contains(&"setoption name HaberkornWhiteLayer value 1".to_string()));
        assert!(lines.contains(&"setoption name HaberkornEnPassant value true".to_string()));
    }
}
