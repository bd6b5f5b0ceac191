//! The referee's rules beyond the board, one copy for the match runner and
//! the GUI: how a game state ends a game, each side's clock, the `go` line
//! the side to move gets, and the `setoption` lines that name the variant.

use super::config::Limit;
use crate::core::{Color, GameState, Variant, VariantKind};
use crate::record::{GameResult, Termination};
use std::time::Duration;

/// How long the referee waits for a move when no clock or move time limits it
/// (`depth=` or `nodes=` only): a hung engine must not stall the game.
pub const UNTIMED_PATIENCE: Duration = Duration::from_secs(600);

/// The index of a colour in per-side arrays: 0 White, 1 Black.
pub fn side_index(c: Color) -> usize {
    if c == Color::White { 0 } else { 1 }
}

/// The result when side `loser` (0 White, 1 Black) loses.
pub fn loss(loser: usize) -> GameResult {
    if loser == 0 { GameResult::BlackWins } else { GameResult::WhiteWins }
}

/// The result and reason of a game state that ends the game (`side_to_move`
/// is to move in it); `None` while the game goes on.
pub fn ending(state: GameState, side_to_move: Color) -> Option<(GameResult, Termination)> {
    Some(match state {
        GameState::Ongoing => return None,
        GameState::Checkmate => (loss(side_index(side_to_move)), Termination::Checkmate),
        GameState::Stalemate => (GameResult::Draw, Termination::Stalemate),
        GameState::FiftyMoves => (GameResult::Draw, Termination::FiftyMoves),
        GameState::Repetition => (GameResult::Draw, Termination::Repetition),
        GameState::DeadMaterial => (GameResult::Draw, Termination::DeadMaterial),
    })
}

/// One side's clock, run by the referee: the limit it plays under, the time
/// left on a game clock, and the margin it allows past a budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    limit: Limit,
    margin: Duration,
    remaining: Duration,
    moves_made: u32,
}

impl Clock {
    /// A clock at the start of a game under `limit`, allowing `margin` past each budget.
    pub fn new(limit: &Limit, margin: Duration) -> Clock {
        let remaining = limit.tc.map_or(Duration::ZERO, |tc| tc.base);
        Clock { limit: limit.clone(), margin, remaining, moves_made: 0 }
    }

    /// This clock with `remaining` left after `moves_made` moves (a resumed game).
    #[cfg_attr(not(feature = "gui"), allow(dead_code))] // the GUI's clocks
    pub fn resumed(mut self, remaining: Duration, moves_made: u32) -> Clock {
        self.remaining = remaining;
        self.moves_made = moves_made;
        self
    }

    /// Whether this is a game clock (a time control), not only a move limit.
    #[cfg_attr(not(feature = "gui"), allow(dead_code))] // the GUI's clocks
    pub fn is_game_clock(&self) -> bool {
        self.limit.tc.is_some()
    }

    /// The time left on the game clock before the running move (zero without a time control).
    #[cfg_attr(not(feature = "gui"), allow(dead_code))] // the GUI's clocks
    pub fn remaining(&self) -> Duration {
        self.remaining
    }

    /// This clock while its move runs, `elapsed` into it: that time is off the game clock.
    #[cfg_attr(not(feature = "gui"), allow(dead_code))] // the GUI's clocks
    pub fn running(&self, elapsed: Duration) -> Clock {
        Clock { remaining: self.remaining.saturating_sub(elapsed), ..self.clone() }
    }

    /// The time this move may take before the margin: the clock or the fixed move time.
    pub fn budget(&self) -> Option<Duration> {
        match (self.limit.tc, self.limit.movetime) {
            (Some(_), _) => Some(self.remaining),
            (None, Some(st)) => Some(st),
            (None, None) => None,
        }
    }

    /// How long to wait for this side's move: the budget and the margin, or
    /// [`UNTIMED_PATIENCE`] when nothing limits the time.
    pub fn patience(&self) -> Duration {
        self.budget().map_or(UNTIMED_PATIENCE, |b| b.saturating_add(self.margin))
    }

    /// Whether a move that has taken `elapsed` so far has overstepped the budget and the margin.
    pub fn flag_fell(&self, elapsed: Duration) -> bool {
        self.budget().is_some_and(|b| elapsed > b.saturating_add(self.margin))
    }

    /// Charges a move's time (adding the increment and, after a period's
    /// moves, the next period); false, with the clock at zero, when the flag fell.
    pub fn charge(&mut self, elapsed: Duration) -> bool {
        if self.flag_fell(elapsed) {
            self.remaining = Duration::ZERO;
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

    /// Moves until the next period of the time control, if it has periods.
    fn movestogo(&self) -> Option<u32> {
        self.limit.tc.and_then(|tc| tc.moves).map(|m| m - self.moves_made % m)
    }
}

/// The `go` line for side `mover` (0 White, 1 Black): both game clocks, then
/// the mover's own move limits.
pub fn go_command(clocks: &[Clock; 2], mover: usize) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::config::EngineSpec;

    fn clock(tokens: &str) -> Clock {
        let t: Vec<String> = format!("cmd=x {tokens}").split_whitespace().map(String::from).collect();
        let spec = EngineSpec::parse(&[], &t).unwrap();
        Clock::new(&spec.limit, spec.timemargin)
    }

    #[test]
    fn go_commands_carry_both_clocks() {
        let clocks = [clock("tc=40/10+0.1"), clock("tc=5+0 depth=3")];
        assert_eq!(go_command(&clocks, 0), "go wtime 10000 winc 100 btime 5000 binc 0 movestogo 40");
        assert_eq!(go_command(&clocks, 1), "go wtime 10000 winc 100 btime 5000 binc 0 depth 3");
        let fixed = [clock("st=0.5"), clock("nodes=1000")];
        assert_eq!(go_command(&fixed, 0), "go movetime 500");
        assert_eq!(go_command(&fixed, 1), "go nodes 1000");
    }

    #[test]
    fn the_referee_clock_runs_and_flags() {
        let mut c = clock("tc=2/1+0.1 timemargin=0");
        assert!(c.is_game_clock());
        assert!(c.charge(Duration::from_millis(400)));
        assert_eq!(c.remaining(), Duration::from_millis(700));
        assert_eq!(c.running(Duration::from_millis(200)).remaining(), Duration::from_millis(500));
        assert!(c.charge(Duration::from_millis(200)));
        assert_eq!(c.remaining(), Duration::from_millis(1600), "a new period after 2 moves");
        assert!(c.flag_fell(Duration::from_millis(1601)));
        assert!(!c.charge(Duration::from_millis(1601)));
        assert_eq!(c.remaining(), Duration::ZERO, "a fallen flag shows zero");
        let mut st = clock("st=0.1 timemargin=50");
        assert!(!st.is_game_clock());
        assert_eq!(st.patience(), Duration::from_millis(150));
        assert!(st.charge(Duration::from_millis(149)));
        assert!(!st.charge(Duration::from_millis(151)));
        let untimed = clock("depth=1");
        assert_eq!(untimed.budget(), None);
        assert_eq!(untimed.patience(), UNTIMED_PATIENCE);
        assert!(!untimed.flag_fell(Duration::from_secs(3600)));
        let resumed = clock("tc=40/10+0").resumed(Duration::from_secs(3), 39);
        assert_eq!(go_command(&[resumed.clone(), resumed], 0), "go wtime 3000 winc 0 btime 3000 binc 0 movestogo 1");
    }

    #[test]
    fn game_states_end_games_with_their_results() {
        assert_eq!(ending(GameState::Ongoing, Color::White), None);
        assert_eq!(ending(GameState::Checkmate, Color::White), Some((GameResult::BlackWins, Termination::Checkmate)));
        assert_eq!(ending(GameState::Checkmate, Color::Black), Some((GameResult::WhiteWins, Termination::Checkmate)));
        assert_eq!(ending(GameState::Repetition, Color::Black), Some((GameResult::Draw, Termination::Repetition)));
        assert_eq!(loss(side_index(Color::Black)), GameResult::WhiteWins);
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
