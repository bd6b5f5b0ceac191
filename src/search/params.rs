//! Every number the search and the time manager tune, with its default in
//! each game, its range and the reason it exists ([`GameTunables`]: one set
//! a game, set by option names such as `lmr_base_hdc`), the on/off switches
//! of the pruning techniques (kept apart: a switch is for measuring, a
//! number for tuning), and the [`SearchParams`] a search reads them from.
//!
//! 3D chess has 100–250 legal moves a node where chess has about 35, so the
//! move-count based numbers here are partly shares of the node's move count
//! rather than the fixed counts of 2D engines. Fractions are integers in
//! hundredths (`lmr_base_hdc = 75` is 0.75) so that every tunable is an `i32`
//! that a UCI spin option (feature `tune`) or an SPSA script can move.

use super::history::bonus;
use crate::core::{PerGame, VariantKind};
use thiserror::Error;

/// One tunable as a tuner sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunable {
    /// Field name (the UCI options are `<name>_<game>`: `<name>_hdc`, `<name>_haberkorn`).
    pub name: &'static str,
    /// The value in force in each game when nothing is set.
    pub defaults: PerGame<i32>,
    /// Smallest sensible value.
    pub min: i32,
    /// Largest sensible value.
    pub max: i32,
    /// Why the number exists.
    pub reason: &'static str,
}

impl Tunable {
    /// The default of this tunable in `kind`.
    pub fn default_for(&self, kind: VariantKind) -> i32 {
        self.defaults[kind]
    }

    /// The UCI option (and SPSA parameter) name of this tunable in `kind`.
    pub fn option_name(&self, kind: VariantKind) -> String {
        format!("{}_{kind}", self.name)
    }

    /// The tunable and game an option name (`<name>_hdc`, `<name>_haberkorn`) stands for.
    pub fn by_option(option: &str) -> Option<(&'static Tunable, VariantKind)> {
        VariantKind::ALL.into_iter().find_map(|kind| {
            let name = option.strip_suffix(kind.name())?.strip_suffix('_')?;
            TUNABLES.iter().find(|t| t.name == name).map(|t| (t, kind))
        })
    }
}

/// A tunable set by name to a value it cannot take.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParamError {
    /// No tunable of that name.
    #[error("no search parameter named '{0}'")]
    Unknown(String),
    /// The value is outside the tunable's range.
    #[error("{name} must be within {min}..={max}, got {value}")]
    OutOfRange {
        /// The tunable.
        name: &'static str,
        /// The value given.
        value: i32,
        /// Its minimum.
        min: i32,
        /// Its maximum.
        max: i32,
    },
}

macro_rules! tunables {
    ($($name:ident = $($default:expr),+ ; $min:expr, $max:expr, $reason:expr;)*) => {
        /// Every tunable number of the search and the time manager, for one game.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Tunables {
            $(#[doc = $reason] pub $name: i32,)*
        }

        /// The tunables with their per-game defaults, ranges and reasons, in field order.
        pub const TUNABLES: &[Tunable] = &[
            $(Tunable { name: stringify!($name), defaults: PerGame::new([$($default),+]), min: $min, max: $max, reason: $reason },)*
        ];

        impl Tunables {
            /// The defaults of `kind`.
            pub const fn defaults(kind: VariantKind) -> Tunables {
                Tunables { $($name: PerGame::new([$($default),+]).at(kind),)* }
            }

            /// The value of the tunable `name`.
            pub fn get(&self, name: &str) -> Option<i32> {
                match name {
                    $(stringify!($name) => Some(self.$name),)*
                    _ => None,
                }
            }

            fn slot(&mut self, name: &str) -> Option<&mut i32> {
                match name {
                    $(stringify!($name) => Some(&mut self.$name),)*
                    _ => None,
                }
            }
        }
    };
}

// name = one default per game in the order of `VariantKind::ALL` (hdc, haberkorn); min, max, reason.
tunables! {
    aspiration_delta = 30, 30; 5, 200, "Half-width of the first aspiration window at the root, in centipawns.";
    aspiration_min_depth = 4, 4; 1, 20, "Iterations below this depth search the full window.";
    rfp_max_depth = 7, 7; 0, 16, "Reverse futility prunes only at this remaining depth or less.";
    rfp_margin = 90, 90; 20, 400, "Reverse futility margin per ply of depth.";
    nmp_min_depth = 3, 3; 1, 10, "Null-move pruning needs at least this depth.";
    nmp_base = 3, 3; 1, 6, "Null-move reduction at any depth.";
    nmp_depth_div = 4, 4; 2, 10, "One more ply of null-move reduction per this many plies of depth.";
    nmp_eval_div = 200, 200; 50, 1000, "One more ply of null-move reduction per this much eval above beta (at most two).";
    lost_margin = 2500, 1000; 200, 30000, "A side whose alpha is this far below zero makes no null move, prunes no node by reverse futility and keeps its checks from exchange pruning (a mating attack hides from static and reduced searches): in hdc about a queen and a pawn (2254 + 71), in haberkorn about a queen in the endgame (1087; 1815 in the middlegame); rows 14 and 18b of docs/strength.md.";
    nmp_verify_pieces = 2, 2; 0, 8, "With this many non-pawn pieces or fewer, a null-move cutoff is verified (zugzwang is plausible).";
    lmp_max_depth = 8, 8; 0, 16, "Late-move pruning of quiet moves only at this depth or less.";
    lmp_base = 3, 3; 0, 20, "Quiet moves always tried before late-move pruning (plus depth squared).";
    lmp_share = 0, 0; 0, 50, "Percent of the node's moves per ply of depth added to the late-move count (3D nodes have 100-250 moves).";
    history_prune_depth = 4, 4; 1, 12, "Quiet moves whose history score (as ordered, the killers' and countermove's too) lies below -history_prune_margin times the depth are pruned at this depth or less, as late-move pruning is (never at a node in check or in a mate window, nor a safe check), where the switch history_pruning is on: by default in haberkorn only (4, margin 2000; rows 68 and 73 of docs/strength.md), not in hdc (row 68: 3000 lost there).";
    history_prune_margin = 3000, 2000; 250, 30000, "The history score per ply of depth below which history_prune_depth prunes a quiet move (haberkorn 2000: row 73 of docs/strength.md).";
    futility_max_depth = 6, 6; 0, 12, "Futility pruning of quiet moves only at this depth or less.";
    futility_base = 120, 120; 0, 600, "Futility margin at depth 0.";
    futility_depth = 100, 100; 20, 400, "Futility margin per ply of depth.";
    see_quiet_depth = 4, 4; 0, 10, "Quiet moves losing more than see_quiet_margin per ply in exchange are pruned at this depth or less.";
    see_quiet_margin = 60, 60; 0, 400, "Exchange loss per ply of depth a quiet move may risk near the leaves.";
    see_capture_depth = 6, 6; 0, 12, "Captures losing more than see_capture_margin per ply in exchange are pruned at this depth or less.";
    see_capture_margin = 90, 90; 0, 400, "Exchange loss per ply of depth a capture may risk near the leaves.";
    lmr_base = 75, 75; 0, 300, "LMR reduction = base + ln(depth) ln(move number) / divisor, in hundredths.";
    lmr_divisor = 225, 225; 100, 600, "LMR divisor in hundredths (larger: gentler reductions).";
    lmr_min_depth = 3, 3; 1, 8, "LMR only at this depth or more.";
    lmr_move_ref = 0, 0; 0, 250, "If non-zero, LMR counts a move's number as if the node had this many moves (3D nodes have 100-250; 0: plain count).";
    lmr_check_relief = 1, 1; 0, 64, "Plies less LMR reduction for a move giving check without losing material (other checks: one ply).";
    threat_flights = 1, 1; 0, 26, "A move threatens mate when it puts a piece next to the enemy king and that king has at most this many flight squares.";
    lmr_history_div = 8192, 8192; 1000, 32768, "One ply less (more) reduction per this much good (bad) history.";
    mate_reach_slack = 0, 0; 0, 4, "Plies beyond the remaining depth within which a mate proven in the window still turns off late-move pruning and reductions. 0: 2 (a check extension each way) let a haberkorn depth-6 search spend 30 M nodes on full-width attacks under a mate 5 (rows 43, 44 of docs/strength.md).";
    tt_cutoff_halfmoves = 90, 90; 0, 100, "A table entry ends a non-PV node only while the halfmove clock is below this (nearer the fifty-move rule, the entry's score may be one that the rule has since made a draw).";
    mate_checks_only = 1, 1; 0, 1, "1: a node whose alpha is a mate within three plies searches only checking moves (nothing else can beat it: sound). Rows 43, 44.";
    cont_history_weight = 0, 100; 0, 200, "Weight of the continuation history (moves 1 and 2 plies back) beside twice the butterfly history in quiet-move order and LMR, in hundredths; 0 turns it off (no table updates either). Off in hdc: row 42 of docs/strength.md.";
    piece_to_weight = 0, 100; 0, 200, "Weight of the piece-to history (by side, moving piece kind and to-square: 7,168 slots against the butterfly table's 524,288, so it learns from fewer cutoffs) beside twice the butterfly history in quiet-move order and LMR, in hundredths; 0: not read. On in haberkorn with history_bonus_slope: row 64 of docs/strength.md.";
    history_bonus_slope = 0, 300; 0, 1000, "If non-zero, a cutoff at depth d moves the histories by this times d (capped at history_bonus_max) instead of 16 d² + 32 d (capped at 2,000): larger steps at the shallow depths where most cutoffs fall. On in haberkorn: row 64 of docs/strength.md.";
    history_bonus_max = 1500, 1500; 100, 4000, "The cap of history_bonus_slope's bonus.";
    capture_history_weight = 50, 0; 0, 200, "Weight of the capture history (by side, capturing piece and square, captured kind) added to a capture's order score (its victim's value times 16 less its capturer's eighth), in hundredths; 0 with `capture_see_div` 0 turns it off (no table updates either). Off in haberkorn: row 46 of docs/strength.md.";
    capture_see_div = 64, 0; 0, 1024, "The exchange-loss margin of capture pruning widens by one centipawn per this much capture history (and narrows for a bad one); 0: the history plays no part.";
    qs_recaptures_from = 4, 4; 1, 32, "Quiescence plies after which only recaptures are searched.";
    qs_futility_margin = 200, 200; 0, 1000, "A quiescence capture whose gain cannot lift stand-pat plus this to alpha is skipped.";
    tm_moves_to_go = 50, 50; 10, 100, "Moves the clock is shared over when the GUI sends no movestogo.";
    tm_increment_pct = 75, 75; 0, 100, "Percent of the increment added to the soft limit.";
    tm_soft_max_pct = 40, 40; 5, 80, "The soft limit is at most this percent of the remaining clock.";
    tm_hard_factor = 3, 3; 1, 10, "The hard limit is this many soft limits.";
    tm_hard_max_pct = 60, 60; 10, 90, "The hard limit is at most this percent of the remaining clock.";
    tm_iteration_pct = 55, 55; 20, 100, "A new iteration starts only before this percent of the (scaled) soft limit.";
    tm_changed_pct = 160, 160; 20, 400, "The soft limit's scale, in percent, after an iteration whose best move differs from the last one's.";
    tm_held_once_pct = 120, 120; 20, 400, "The soft limit's scale, in percent, when the best move has held for one iteration.";
    tm_held_pct = 100, 100; 20, 400, "The soft limit's scale, in percent, when the best move has held for two or three iterations.";
    tm_settled_pct = 70, 70; 20, 400, "The soft limit's scale, in percent, when the best move has held for four iterations or more.";
}

impl Tunables {
    /// Sets the tunable `name` to `value` after checking its range.
    pub fn set(&mut self, name: &str, value: i32) -> Result<(), ParamError> {
        let t = TUNABLES.iter().find(|t| t.name == name).ok_or_else(|| ParamError::Unknown(name.to_string()))?;
        if !(t.min..=t.max).contains(&value) {
            return Err(ParamError::OutOfRange { name: t.name, value, min: t.min, max: t.max });
        }
        if let Some(slot) = self.slot(name) {
            *slot = value;
        }
        Ok(())
    }

    /// Whether a search with these numbers reads the continuation history (its weight is not 0).
    pub fn reads_continuation_history(&self) -> bool {
        self.cont_history_weight > 0
    }

    /// How far a cutoff at `depth` moves the histories (see `history_bonus_slope`).
    #[inline]
    pub fn history_bonus(&self, depth: i32) -> i32 {
        if self.history_bonus_slope > 0 {
            (self.history_bonus_slope * depth).min(self.history_bonus_max)
        } else {
            bonus(depth)
        }
    }

    /// Whether a search with these numbers reads the capture history (in move
    /// order or in capture pruning), so that its table is worth keeping.
    pub fn reads_capture_history(&self) -> bool {
        self.capture_history_weight != 0 || self.capture_see_div != 0
    }
}

/// One set of tunables per game: the two games differ in branching factor
/// (hdc about 240 moves a node, haberkorn 60-150) and material scale, so
/// each is tuned apart.
pub type GameTunables = PerGame<Tunables>;

impl Default for GameTunables {
    fn default() -> GameTunables {
        PerGame::from_fn(Tunables::defaults)
    }
}

impl GameTunables {
    /// Sets a tunable by option name: `<name>_<game>` sets one game's, a
    /// bare `<name>` every game's; nothing changes on error.
    pub fn set(&mut self, option: &str, value: i32) -> Result<(), ParamError> {
        if let Some((t, kind)) = Tunable::by_option(option) {
            return self[kind].set(t.name, value);
        }
        let mut all = *self;
        for (_, t) in all.iter_mut() {
            t.set(option, value)?;
        }
        *self = all;
        Ok(())
    }
}

macro_rules! switches {
    ($($name:ident: $doc:expr;)*) => {
        /// On/off switches of the pruning and reduction techniques (all on by
        /// default), so that self-play can measure each one and a plain full-width
        /// alpha-beta baseline can be built from the same search.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Switches {
            $(#[doc = $doc] pub $name: bool,)*
        }

        impl Switches {
            /// Every technique on.
            pub const ALL_ON: Switches = Switches { $($name: true,)* };

            /// Every selective technique off: a full-width alpha-beta search (with
            /// quiescence, the transposition table and move ordering).
            pub const FULL_WIDTH: Switches = Switches { $($name: false,)* };

            /// The switch names, as the examples' `--off` and `--on` take them.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            /// Sets the switch `name`; `false` if there is no such switch.
            pub fn set(&mut self, name: &str, on: bool) -> bool {
                let slot = match name {
                    $(stringify!($name) => &mut self.$name,)*
                    _ => return false,
                };
                *slot = on;
                true
            }
        }
    };
}

switches! {
    null_move: "Null-move pruning.";
    lmr: "Late-move reductions.";
    reverse_futility: "Reverse futility (static null-move) pruning.";
    futility: "Futility pruning of quiet moves.";
    late_move_pruning: "Late-move pruning of quiet moves.";
    history_pruning: "History pruning of quiet moves (off by default in hdc: `Switches::defaults`).";
    see_pruning: "Pruning of moves that lose material in exchange near the leaves.";
    aspiration: "Aspiration windows at the root.";
}

impl Switches {
    /// The techniques on by default in game `kind`: all but history pruning
    /// in hdc, whose self-play lost with it (docs/strength.md row 68), all
    /// in haberkorn.
    pub fn defaults(kind: VariantKind) -> Switches {
        match kind {
            VariantKind::Hdc => Switches { history_pruning: false, ..Switches::ALL_ON },
            VariantKind::Haberkorn => Switches::ALL_ON,
        }
    }
}

/// One set of switches per game: a technique that lost in one game is off
/// there by its switch, not by a number that SPSA could move.
pub type GameSwitches = PerGame<Switches>;

impl Default for GameSwitches {
    fn default() -> GameSwitches {
        PerGame::from_fn(Switches::defaults)
    }
}

impl GameSwitches {
    /// The same switches in every game (`Switches::FULL_WIDTH`, `Switches::ALL_ON`).
    pub fn every_game(switches: Switches) -> GameSwitches {
        PerGame::from_fn(|_| switches)
    }

    /// Sets a switch by name: `<name>_<game>` one game's, a bare `<name>`
    /// every game's; `false` (and nothing changed) if there is no such switch.
    pub fn set(&mut self, option: &str, on: bool) -> bool {
        for kind in VariantKind::ALL {
            if let Some(name) = option.strip_suffix(kind.name()).and_then(|n| n.strip_suffix('_')) {
                return self[kind].set(name, on);
            }
        }
        let mut all = *self;
        for (_, s) in all.iter_mut() {
            if !s.set(option, on) {
                return false;
            }
        }
        *self = all;
        true
    }
}

/// What a search runs with: the technique switches and the tunable numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchParams {
    /// Which techniques are on, per game.
    pub switches: GameSwitches,
    /// The numbers they use, per game.
    pub tunables: GameTunables,
}

impl SearchParams {
    /// Whether a search of game `kind` reads the continuation history (its weight is not 0).
    pub fn continuation_history(&self, kind: VariantKind) -> bool {
        self.tunables[kind].reads_continuation_history()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_history_bonus_is_quadratic_unless_a_slope_is_set() {
        let mut t = Tunables::defaults(VariantKind::Hdc);
        assert_eq!((1..=12).map(|d| t.history_bonus(d)).collect::<Vec<_>>(), (1..=12).map(bonus).collect::<Vec<_>>());
        t.set("history_bonus_slope", 300).unwrap();
        assert_eq!([1, 4, 5, 9].map(|d| t.history_bonus(d)), [300, 1200, 1500, 1500]);
        let h = Tunables::defaults(VariantKind::Haberkorn);
        assert_eq!([1, 4, 5, 9].map(|d| h.history_bonus(d)), [300, 1200, 1500, 1500], "haberkorn's default slope");
    }

    #[test]
    fn every_default_lies_in_its_range_and_names_are_unique() {
        for kind in VariantKind::ALL {
            let d = Tunables::defaults(kind);
            for (i, t) in TUNABLES.iter().enumerate() {
                let v = t.default_for(kind);
                assert!(t.min <= v && v <= t.max, "{}", t.name);
                assert_eq!(d.get(t.name), Some(v));
                assert!(!t.reason.is_empty());
                assert!(TUNABLES[..i].iter().all(|u| u.name != t.name));
            }
        }
    }

    #[test]
    fn set_checks_name_and_range() {
        let mut p = Tunables::defaults(VariantKind::Hdc);
        p.set("rfp_margin", 150).unwrap();
        assert_eq!(p.rfp_margin, 150);
        assert!(matches!(p.set("rfp_margin", 5000), Err(ParamError::OutOfRange { .. })));
        assert_eq!(p.rfp_margin, 150);
        assert!(matches!(p.set("nonsense", 1), Err(ParamError::Unknown(_))));
        let mut s = Switches::ALL_ON;
        assert!(s.set("lmr", false) && !s.lmr);
        assert!(!s.set("nonsense", false));
        let mut g = GameSwitches::default();
        assert!(!g[VariantKind::Hdc].history_pruning && g[VariantKind::Haberkorn].history_pruning);
        assert!(g.set("history_pruning_hdc", true) && g[VariantKind::Hdc].history_pruning);
        assert!(g.set("null_move", false) && !g[VariantKind::Hdc].null_move && !g[VariantKind::Haberkorn].null_move);
        let before = g;
        assert!(!g.set("null_move_chess", true) && !g.set("nonsense", false) && !g.set("lmr_hdc_hdc", false));
        assert_eq!(g, before);
    }

    #[test]
    fn option_names_set_one_game_and_bare_names_both() {
        let mut g = GameTunables::default();
        assert_eq!(g[VariantKind::Hdc].lost_margin, 2500);
        assert_eq!(g[VariantKind::Haberkorn].lost_margin, 1000);
        g.set("lost_margin_hdc", 3000).unwrap();
        assert_eq!((g[VariantKind::Hdc].lost_margin, g[VariantKind::Haberkorn].lost_margin), (3000, 1000));
        g.set("rfp_margin", 100).unwrap();
        assert_eq!((g[VariantKind::Hdc].rfp_margin, g[VariantKind::Haberkorn].rfp_margin), (100, 100));
        let before = g;
        assert!(matches!(g.set("rfp_margin_haberkorn", 1), Err(ParamError::OutOfRange { .. })));
        assert!(matches!(g.set("rfp_margin_chess", 100), Err(ParamError::Unknown(_))));
        assert_eq!(g, before);
        let t = TUNABLES.iter().find(|t| t.name == "lmr_base").unwrap();
        assert_eq!(t.option_name(VariantKind::Haberkorn), "lmr_base_haberkorn");
    }
}
