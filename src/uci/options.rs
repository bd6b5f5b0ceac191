//! The engine's UCI options: their names, types, ranges and defaults (one
//! table, [`SPECS`]), the values in force, and what they mean for the search
//! ([`Settings`]) and for the game ([`Variant`]); the networks `EvalFile`
//! loads, the endgame tables `TablebasePath` loads, and in builds with the cargo feature `tune` every search tunable
//! as an option per game.
//!
//! Names are matched case-insensitively, as the UCI specification asks. A
//! value that does not fit its option is refused with an [`OptionError`] and
//! leaves the option as it was.

use super::echo::shown;
use crate::core::variant::VariantError;
use crate::core::{Variant, VariantKind};
use crate::eval::Networks;
use crate::eval::nnue::Network;
use crate::search::{EngineError, SearchParams, Settings, Strategy, Tunable, skill};
use crate::tb::{Loaded, Tablebases};
use std::sync::Arc;
use thiserror::Error;
use vampirc_uci::UciOptionConfig;

/// Every option, in the order `uci` lists them; the index into [`SPECS`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OptionId {
    /// `Hash`: transposition table size in MiB.
    Hash,
    /// `Threads`: search threads.
    Threads,
    /// `Clear Hash`: forget the hash table and histories.
    ClearHash,
    /// `MultiPV`: lines to report.
    MultiPv,
    /// `Ponder`: the GUI may send `go ponder` (informative for the engine).
    Ponder,
    /// `Move Overhead`: milliseconds kept back per move for communication.
    MoveOverhead,
    /// `Strategy`: the search, or a test baseline.
    Strategy,
    /// `Skill Level`: playing level, 0 (weakest) to 20 (full strength).
    SkillLevel,
    /// `UCI_LimitStrength`: play at the strength `UCI_Elo` asks for.
    UciLimitStrength,
    /// `UCI_Elo`: the strength to play at with `UCI_LimitStrength`.
    UciElo,
    /// `UCI_Variant`: `hdc` or `haberkorn`.
    UciVariant,
    /// `HaberkornLayers`: layers of the haberkorn board.
    HaberkornLayers,
    /// `HaberkornWhiteLayer`: White's setup layer (1 = I; 0 = the default for the layer count).
    HaberkornWhiteLayer,
    /// `HaberkornBlackLayer`: Black's setup layer (1 = I; 0 = the default for the layer count).
    HaberkornBlackLayer,
    /// `HaberkornEnPassant`: switch the optional en-passant rule on.
    HaberkornEnPassant,
    /// `HaberkornCastling`: switch the optional castling rule on.
    HaberkornCastling,
    /// `EvalFile`: a network file to evaluate its game with (`none`: the linear evaluation).
    EvalFile,
    /// `TablebasePath`: folders of endgame table files (`<empty>`: none).
    TablebasePath,
}

/// The type, default and range of an option, as `uci` announces it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OptionKind {
    /// `type check`: `true` or `false`.
    Check {
        /// The value at start.
        default: bool,
    },
    /// `type spin`: an integer in `min..=max`.
    Spin {
        /// The value at start.
        default: i64,
        /// The smallest value accepted.
        min: i64,
        /// The largest value accepted.
        max: i64,
    },
    /// `type combo`: one of a fixed list of words.
    Combo {
        /// The value at start.
        default: &'static str,
        /// The words accepted.
        vars: &'static [&'static str],
    },
    /// `type button`: an action without a value.
    Button,
    /// `type string`: any text.
    Text {
        /// The value at start.
        default: &'static str,
    },
}

/// One option: its UCI name, kind and a line for `help` and protocol.md.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct OptionSpec {
    /// Which option.
    pub id: OptionId,
    /// The name exactly as `uci` announces it.
    pub name: &'static str,
    /// Type, default and range.
    pub kind: OptionKind,
    /// What it does, in one line.
    pub about: &'static str,
}

const fn spin(default: i64, min: i64, max: i64) -> OptionKind {
    OptionKind::Spin { default, min, max }
}

/// Every option, indexed by [`OptionId`].
pub const SPECS: [OptionSpec; 18] = [
    OptionSpec { id: OptionId::Hash, name: "Hash", kind: spin(16, 1, 65536), about: "transposition table size in MiB" },
    OptionSpec { id: OptionId::Threads, name: "Threads", kind: spin(1, 1, 1024), about: "search threads" },
    OptionSpec {
        id: OptionId::ClearHash,
        name: "Clear Hash",
        kind: OptionKind::Button,
        about: "forget the hash table and the search histories",
    },
    OptionSpec {
        id: OptionId::MultiPv,
        name: "MultiPV",
        kind: spin(1, 1, 256),
        about: "principal variations reported",
    },
    OptionSpec {
        id: OptionId::Ponder,
        name: "Ponder",
        kind: OptionKind::Check { default: false },
        about: "tells the engine the GUI may send go ponder (the engine needs no preparation)",
    },
    OptionSpec {
        id: OptionId::MoveOverhead,
        name: "Move Overhead",
        kind: spin(10, 0, 5000),
        about: "milliseconds kept back per move for communication delays",
    },
    OptionSpec {
        id: OptionId::Strategy,
        name: "Strategy",
        kind: OptionKind::Combo { default: "search", vars: &Strategy::NAMES },
        about: "search = the engine; greedy and random are test baselines (most material at once / any legal move)",
    },
    OptionSpec {
        id: OptionId::SkillLevel,
        name: "Skill Level",
        kind: spin(skill::MAX_LEVEL as i64, 0, skill::MAX_LEVEL as i64),
        about: "playing level for people: 0 weakest, 20 full strength (Stockfish's scale of levels, not its strength)",
    },
    OptionSpec {
        id: OptionId::UciLimitStrength,
        name: "UCI_LimitStrength",
        kind: OptionKind::Check { default: false },
        about: "play at the strength UCI_Elo asks for (it then overrides Skill Level)",
    },
    OptionSpec {
        id: OptionId::UciElo,
        name: "UCI_Elo",
        kind: spin(skill::MIN_ELO, skill::MIN_ELO, skill::MAX_ELO),
        about: "strength with UCI_LimitStrength, on Cubist's own scale (the random mover is 0; see README)",
    },
    OptionSpec {
        id: OptionId::UciVariant,
        name: "UCI_Variant",
        kind: OptionKind::Combo { default: "hdc", vars: &VariantKind::NAMES },
        about: "the game: hdc (HyperDimension Chess) or haberkorn (3D space chess)",
    },
    OptionSpec {
        id: OptionId::HaberkornLayers,
        name: "HaberkornLayers",
        kind: spin(8, 3, 8),
        about: "haberkorn: layers of the board for position startpos (a FEN brings its own)",
    },
    OptionSpec {
        id: OptionId::HaberkornWhiteLayer,
        name: "HaberkornWhiteLayer",
        kind: spin(0, 0, 8),
        about: "haberkorn: White's setup layer, 1 = I; 0 = the rules' default for the layer count (IV, II on 3 or 4 layers)",
    },
    OptionSpec {
        id: OptionId::HaberkornBlackLayer,
        name: "HaberkornBlackLayer",
        kind: spin(0, 0, 8),
        about: "haberkorn: Black's setup layer, 1 = I; 0 = the rules' default for the layer count (V, III on 3 or 4 layers)",
    },
    OptionSpec {
        id: OptionId::HaberkornEnPassant,
        name: "HaberkornEnPassant",
        kind: OptionKind::Check { default: false },
        about: "haberkorn: the optional en-passant rule",
    },
    OptionSpec {
        id: OptionId::HaberkornCastling,
        name: "HaberkornCastling",
        kind: OptionKind::Check { default: false },
        about: "haberkorn: the optional castling rule (O-O and O-O-O on each side's setup layer)",
    },
    OptionSpec {
        id: OptionId::EvalFile,
        name: "EvalFile",
        kind: OptionKind::Text { default: BUILTIN_NETWORKS },
        about: "a network file (cubist train): its game is evaluated by it; none: the linear evaluation in both games; \
                default: the built-in networks",
    },
    OptionSpec {
        id: OptionId::TablebasePath,
        name: "TablebasePath",
        kind: OptionKind::Text { default: NO_TABLES },
        about: "folders of endgame table files (cubist tb generate --out), separated by ':' (';' on Windows), \
                probed in the search; <empty>: none",
    },
];

/// The `EvalFile` value that unloads every network.
pub const NO_NETWORK: &str = "none";
/// The `TablebasePath` value that loads no tables (the default, as Stockfish writes `SyzygyPath`'s).
pub const NO_TABLES: &str = "<empty>";
/// The `EvalFile` value of the built-in networks (the default).
pub const BUILTIN_NETWORKS: &str = "default";

impl OptionSpec {
    /// The option announced by `uci`, as vampirc-uci writes it.
    pub fn config(&self) -> UciOptionConfig {
        let name = self.name.to_string();
        match self.kind {
            OptionKind::Check { default } => UciOptionConfig::Check { name, default: Some(default) },
            OptionKind::Spin { default, min, max } => {
                UciOptionConfig::Spin { name, default: Some(default), min: Some(min), max: Some(max) }
            }
            OptionKind::Combo { default, vars } => UciOptionConfig::Combo {
                name,
                default: Some(default.to_string()),
                var: vars.iter().map(|v| v.to_string()).collect(),
            },
            OptionKind::Button => UciOptionConfig::Button { name },
            OptionKind::Text { default } => UciOptionConfig::String { name, default: Some(default.to_string()) },
        }
    }
}

/// Why a `setoption` was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OptionError {
    /// No option has this name.
    #[error("unknown option '{0}' (uci lists the options)")]
    Unknown(String),
    /// A check, spin or combo without `value …`.
    #[error("option {0} needs 'value <v>'; unchanged")]
    MissingValue(&'static str),
    /// A spin value that is no integer.
    #[error("option {name}: '{value}' is not an integer; unchanged")]
    NotAnInteger {
        /// The option.
        name: &'static str,
        /// The text given.
        value: String,
    },
    /// A spin value outside its range.
    #[error("option {name}: {value} is out of range {min}..{max}; unchanged")]
    OutOfRange {
        /// The option.
        name: &'static str,
        /// The value given.
        value: i64,
        /// The smallest value accepted.
        min: i64,
        /// The largest value accepted.
        max: i64,
    },
    /// A network file that was refused.
    #[error("option EvalFile: {file}: {why}; unchanged")]
    EvalFile {
        /// The file given.
        file: String,
        /// Why it was refused.
        why: String,
    },
    /// A tablebase folder that could not be listed.
    #[error("option TablebasePath: {0}; unchanged")]
    TablebasePath(String),
    /// A check value that is not `true` or `false`.
    #[error("option {name}: '{value}' is not true or false; unchanged")]
    NotABool {
        /// The option.
        name: &'static str,
        /// The text given.
        value: String,
    },
    /// A combo value not in its list.
    #[error("option {name}: '{value}' is not one of {vars}; unchanged")]
    NotInCombo {
        /// The option.
        name: &'static str,
        /// The text given.
        value: String,
        /// The words accepted, space-separated.
        vars: String,
    },
}

/// A value an option holds.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Value {
    Bool(bool),
    Int(i64),
    Word(&'static str),
    Text(String),
    None,
}

/// What a successful `setoption` asks the session to do.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Effect {
    /// Nothing beyond storing the value (`Ponder`, or any option set to the value it has).
    Stored,
    /// The search settings changed: hand them to the engine.
    Settings,
    /// `Clear Hash` was pressed.
    ClearHash,
    /// A variant option changed: the start position may be another game now.
    Variant,
}

/// The values of every option.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Options {
    values: [Value; SPECS.len()],
    /// The search's tunables (UCI options only in builds with the `tune` feature).
    params: SearchParams,
    /// The evaluation networks loaded by `EvalFile`.
    networks: Networks,
    /// The endgame tables loaded by `TablebasePath`.
    tablebases: Tablebases,
    /// What the last `setoption` has to tell (`info string`): the tables
    /// found, the files refused.
    notes: Vec<String>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            values: SPECS.map(|s| match s.kind {
                OptionKind::Check { default } => Value::Bool(default),
                OptionKind::Spin { default, .. } => Value::Int(default),
                OptionKind::Combo { default, .. } => Value::Word(default),
                OptionKind::Button => Value::None,
                OptionKind::Text { default } => Value::Text(default.to_string()),
            }),
            params: SearchParams::default(),
            networks: Networks::builtin(),
            tablebases: Tablebases::default(),
            notes: Vec::new(),
        }
    }
}

/// The search tunables as UCI spin options (feature `tune`; none otherwise),
/// for SPSA tuners and matches that move them without recompiling.
pub fn tune_configs() -> Vec<UciOptionConfig> {
    if !cfg!(feature = "tune") {
        return Vec::new();
    }
    VariantKind::ALL
        .into_iter()
        .flat_map(|kind| {
            crate::search::params::TUNABLES.iter().map(move |t| UciOptionConfig::Spin {
                name: t.option_name(kind),
                default: Some(t.default_for(kind) as i64),
                min: Some(t.min as i64),
                max: Some(t.max as i64),
            })
        })
        .collect()
}

impl Options {
    /// The spec of the option called `name` (any case).
    pub fn find(name: &str) -> Option<&'static OptionSpec> {
        SPECS.iter().find(|s| s.name.eq_ignore_ascii_case(name.trim()))
    }

    /// Sets an option from `setoption name <name> [value <value>]`; on error nothing changes.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Effect, OptionError> {
        let Some(spec) = Options::find(name) else { return self.set_tunable(name, value) };
        let value = value.map(str::trim).filter(|v| !v.is_empty());
        let new = match (spec.kind, value) {
            (OptionKind::Button, _) => Value::None,
            (_, None) => return Err(OptionError::MissingValue(spec.name)),
            (OptionKind::Check { .. }, Some(v)) => match v.to_ascii_lowercase().as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => return Err(OptionError::NotABool { name: spec.name, value: shown(v) }),
            },
            (OptionKind::Spin { min, max, .. }, Some(v)) => {
                let n: i64 = v.parse().map_err(|_| OptionError::NotAnInteger { name: spec.name, value: shown(v) })?;
                if !(min..=max).contains(&n) {
                    return Err(OptionError::OutOfRange { name: spec.name, value: n, min, max });
                }
                Value::Int(n)
            }
            (OptionKind::Combo { vars, .. }, Some(v)) => match vars.iter().find(|w| w.eq_ignore_ascii_case(v)) {
                Some(w) => Value::Word(w),
                None => {
                    return Err(OptionError::NotInCombo { name: spec.name, value: shown(v), vars: vars.join(" ") });
                }
            },
            (OptionKind::Text { .. }, Some(v)) => Value::Text(v.to_string()),
        };
        if spec.id == OptionId::EvalFile {
            return self.set_eval_file(new);
        }
        if spec.id == OptionId::TablebasePath {
            return self.set_tablebase_path(new);
        }
        // A value that changes nothing has no effect: above all, it does not reset the position.
        if spec.kind != OptionKind::Button && self.values[spec.id as usize] == new {
            return Ok(Effect::Stored);
        }
        self.values[spec.id as usize] = new;
        Ok(match spec.id {
            OptionId::Ponder | OptionId::EvalFile | OptionId::TablebasePath => Effect::Stored,
            OptionId::ClearHash => Effect::ClearHash,
            OptionId::Hash
            | OptionId::Threads
            | OptionId::MultiPv
            | OptionId::MoveOverhead
            | OptionId::Strategy
            | OptionId::SkillLevel
            | OptionId::UciLimitStrength
            | OptionId::UciElo => Effect::Settings,
            OptionId::UciVariant
            | OptionId::HaberkornLayers
            | OptionId::HaberkornWhiteLayer
            | OptionId::HaberkornBlackLayer
            | OptionId::HaberkornEnPassant
            | OptionId::HaberkornCastling => Effect::Variant,
        })
    }

    /// `EvalFile`: loads the network (checked: magic, architecture, game,
    /// size, checksum) and puts it in place for its game; `none` unloads
    /// every network, `default` restores the built-in ones. A file that is
    /// refused changes nothing.
    fn set_eval_file(&mut self, value: Value) -> Result<Effect, OptionError> {
        let Value::Text(path) = &value else { return Err(OptionError::MissingValue("EvalFile")) };
        if path.eq_ignore_ascii_case(NO_NETWORK) {
            self.networks = Networks::default();
        } else if path.eq_ignore_ascii_case(BUILTIN_NETWORKS) {
            self.networks = Networks::builtin();
        } else {
            let net = Network::load(std::path::Path::new(path))
                .map_err(|e| OptionError::EvalFile { file: shown(path), why: e.to_string() })?;
            self.networks.set(Arc::new(net));
        }
        self.values[OptionId::EvalFile as usize] = value;
        Ok(Effect::Settings)
    }

    /// `TablebasePath`: loads every table file of the folders named (like
    /// Stockfish's `SyzygyPath`, which reports "Found N tablebases"); a
    /// folder that cannot be listed is refused and changes nothing, a
    /// damaged file is left out with a note, the rest load. `<empty>`
    /// unloads every table.
    fn set_tablebase_path(&mut self, value: Value) -> Result<Effect, OptionError> {
        let Value::Text(path) = &value else { return Err(OptionError::MissingValue("TablebasePath")) };
        let loaded = if path.trim() == NO_TABLES {
            Loaded::default()
        } else {
            Tablebases::load(path).map_err(|e| OptionError::TablebasePath(e.to_string()))?
        };
        self.notes = loaded.refused.iter().map(|e| format!("warning: TablebasePath: left out {e}")).collect();
        let tb = &loaded.tablebases;
        self.notes.push(match tb.len() {
            0 => "no endgame tables loaded".to_string(),
            n => format!("found {n} endgame tables of up to {} pieces", tb.max_pieces()),
        });
        self.tablebases = loaded.tablebases;
        self.values[OptionId::TablebasePath as usize] = value;
        Ok(Effect::Settings)
    }

    /// What the last `setoption` has to tell, taken (each an `info string`).
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// The networks loaded by `EvalFile`.
    pub fn networks(&self) -> &Networks {
        &self.networks
    }

    /// A search tunable by name (builds with the `tune` feature only).
    fn set_tunable(&mut self, name: &str, value: Option<&str>) -> Result<Effect, OptionError> {
        let name = name.trim();
        let unknown = || OptionError::Unknown(shown(name));
        if !cfg!(feature = "tune") {
            return Err(unknown());
        }
        let (t, kind) = Tunable::by_option(&name.to_ascii_lowercase()).ok_or_else(unknown)?;
        let v = value.map(str::trim).filter(|v| !v.is_empty()).ok_or(OptionError::MissingValue(t.name))?;
        let n: i64 = v.parse().map_err(|_| OptionError::NotAnInteger { name: t.name, value: v.to_string() })?;
        let (min, max) = (t.min as i64, t.max as i64);
        if !(min..=max).contains(&n) {
            return Err(OptionError::OutOfRange { name: t.name, value: n, min, max });
        }
        self.params.tunables[kind].set(t.name, n as i32).map_err(|_| unknown())?;
        Ok(Effect::Settings)
    }

    /// The search parameters in force (defaults unless tuned through options).
    pub fn params(&self) -> SearchParams {
        self.params
    }

    fn int(&self, id: OptionId) -> i64 {
        match self.values[id as usize] {
            Value::Int(n) => n,
            _ => 0,
        }
    }

    fn flag(&self, id: OptionId) -> bool {
        matches!(self.values[id as usize], Value::Bool(true))
    }

    fn word(&self, id: OptionId) -> &'static str {
        match self.values[id as usize] {
            Value::Word(w) => w,
            _ => "",
        }
    }

    /// The current value as `setoption` would write it (empty for a button).
    pub fn value_text(&self, id: OptionId) -> String {
        match &self.values[id as usize] {
            Value::Bool(b) => b.to_string(),
            Value::Int(n) => n.to_string(),
            Value::Word(w) => w.to_string(),
            Value::Text(t) => t.clone(),
            Value::None => String::new(),
        }
    }

    /// The search settings these options describe.
    pub fn settings(&self) -> Settings {
        // Every spin is range-checked, so the casts below cannot wrap.
        Settings {
            hash_mb: self.int(OptionId::Hash) as usize,
            threads: self.int(OptionId::Threads) as usize,
            multipv: self.int(OptionId::MultiPv) as usize,
            move_overhead_ms: self.int(OptionId::MoveOverhead) as u64,
            strategy: Strategy::from_name(self.word(OptionId::Strategy)).unwrap_or_default(),
            skill_level: if self.flag(OptionId::UciLimitStrength) {
                skill::level_for_elo(self.int(OptionId::UciElo))
            } else {
                self.int(OptionId::SkillLevel) as u8
            },
            networks: self.networks.clone(),
            tablebases: self.tablebases.clone(),
        }
    }

    /// Sets the option the engine refused (`Hash` or `Threads`) back to the value in force.
    pub fn restore_refused(&mut self, refused: &EngineError, kept: &Settings) {
        match refused {
            EngineError::Hash { .. } => self.values[OptionId::Hash as usize] = Value::Int(kept.hash_mb as i64),
            EngineError::Threads(..) => self.values[OptionId::Threads as usize] = Value::Int(kept.threads as i64),
        }
    }

    /// The game chosen by `UCI_Variant`.
    pub fn variant_kind(&self) -> VariantKind {
        // The combo accepts only the two names.
        self.word(OptionId::UciVariant).parse().unwrap_or(VariantKind::Hdc)
    }

    /// The variant `position startpos` sets up; an error when a haberkorn
    /// setup layer lies beyond `HaberkornLayers`.
    pub fn variant(&self) -> Result<Variant, VariantError> {
        match self.variant_kind() {
            VariantKind::Hdc => Ok(Variant::hdc()),
            VariantKind::Haberkorn => Variant::haberkorn_from(
                self.int(OptionId::HaberkornLayers) as u8,
                Some(self.int(OptionId::HaberkornWhiteLayer) as u8).filter(|&l| l != 0),
                Some(self.int(OptionId::HaberkornBlackLayer) as u8).filter(|&l| l != 0),
                self.flag(OptionId::HaberkornEnPassant),
                self.flag(OptionId::HaberkornCastling),
            ),
        }
    }

    /// The variant `position fen` reads a FEN with: the game and the rule
    /// switches from the options; the layer count then comes from the FEN
    /// (setup layers do not matter once pieces stand on the board).
    pub fn fen_variant(&self) -> Variant {
        match self.variant_kind() {
            VariantKind::Hdc => Variant::hdc(),
            VariantKind::Haberkorn => Variant {
                en_passant: self.flag(OptionId::HaberkornEnPassant),
                castling: self.flag(OptionId::HaberkornCastling),
                ..Variant::haberkorn()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_tunables_are_options_only_in_tune_builds() {
        let mut o = Options::default();
        let r = o.set("rfp_margin_haberkorn", Some("150"));
        if cfg!(feature = "tune") {
            assert_eq!(r, Ok(Effect::Settings));
            assert_eq!(o.params().tunables[VariantKind::Haberkorn].rfp_margin, 150);
            assert_eq!(o.params().tunables[VariantKind::Hdc].rfp_margin, 90);
            assert!(matches!(o.set("rfp_margin_haberkorn", Some("99999")), Err(OptionError::OutOfRange { .. })));
            assert!(matches!(o.set("rfp_margin", Some("100")), Err(OptionError::Unknown(_))));
            assert_eq!(o.params().tunables[VariantKind::Haberkorn].rfp_margin, 150);
            assert_eq!(tune_configs().len(), 2 * crate::search::params::TUNABLES.len());
        } else {
            assert_eq!(r, Err(OptionError::Unknown("rfp_margin_haberkorn".into())));
            assert_eq!(o.params(), SearchParams::default());
            assert!(tune_configs().is_empty());
        }
    }

    #[test]
    fn specs_are_indexed_by_their_id() {
        for (i, s) in SPECS.iter().enumerate() {
            assert_eq!(s.id as usize, i, "{}", s.name);
        }
    }

    #[test]
    fn defaults_give_the_default_settings_and_hdc() {
        let o = Options::default();
        assert_eq!(o.settings(), Settings::default());
        assert_eq!(o.variant(), Ok(Variant::hdc()));
    }

    #[test]
    fn bad_values_are_refused_and_change_nothing() {
        let mut o = Options::default();
        let before = o.clone();
        assert_eq!(
            o.set("Hash", Some("0")),
            Err(OptionError::OutOfRange { name: "Hash", value: 0, min: 1, max: 65536 })
        );
        assert!(matches!(o.set("Hash", Some("lots")), Err(OptionError::NotAnInteger { .. })));
        assert!(matches!(o.set("Hash", None), Err(OptionError::MissingValue("Hash"))));
        assert!(matches!(o.set("Ponder", Some("yes")), Err(OptionError::NotABool { .. })));
        assert!(matches!(o.set("UCI_Variant", Some("chess")), Err(OptionError::NotInCombo { .. })));
        assert!(matches!(o.set("HaberkornLayers", Some("9")), Err(OptionError::OutOfRange { .. })));
        assert!(matches!(o.set("Nonsense", Some("1")), Err(OptionError::Unknown(_))));
        assert_eq!(o, before);
    }

    #[test]
    fn setting_the_value_in_force_changes_nothing() {
        let mut o = Options::default();
        assert_eq!(o.set("UCI_Variant", Some("haberkorn")), Ok(Effect::Variant));
        assert_eq!(o.set("UCI_Variant", Some("HABERKORN")), Ok(Effect::Stored));
        assert_eq!(o.set("Hash", Some("16")), Ok(Effect::Stored));
        assert_eq!(o.set("Clear Hash", None), Ok(Effect::ClearHash));
        assert_eq!(o.set("Clear Hash", None), Ok(Effect::ClearHash));
    }

    #[test]
    fn skill_level_or_elo_set_the_playing_level() {
        let mut o = Options::default();
        assert_eq!(o.settings().skill_level, skill::MAX_LEVEL);
        o.set("Skill Level", Some("3")).unwrap();
        assert_eq!(o.settings().skill_level, 3);
        o.set("UCI_Elo", Some(&skill::MAX_ELO.to_string())).unwrap();
        assert_eq!(o.settings().skill_level, 3, "UCI_Elo needs UCI_LimitStrength");
        o.set("UCI_LimitStrength", Some("true")).unwrap();
        assert_eq!(o.settings().skill_level, skill::level_for_elo(skill::MAX_ELO));
        assert!(matches!(o.set("UCI_Elo", Some("100")), Err(OptionError::OutOfRange { .. })));
        assert!(matches!(o.set("Skill Level", Some("21")), Err(OptionError::OutOfRange { .. })));
    }

    #[test]
    fn names_and_words_ignore_case() {
        let mut o = Options::default();
        assert_eq!(o.set("hash", Some("64")), Ok(Effect::Settings));
        assert_eq!(o.set("STRATEGY", Some("Greedy")), Ok(Effect::Settings));
        assert_eq!(o.set("clear hash", None), Ok(Effect::ClearHash));
        let s = o.settings();
        assert_eq!((s.hash_mb, s.strategy), (64, Strategy::Greedy));
    }

    #[test]
    fn haberkorn_options_build_the_variant() {
        let mut o = Options::default();
        assert_eq!(o.set("UCI_Variant", Some("haberkorn")), Ok(Effect::Variant));
        assert_eq!(o.variant(), Ok(Variant::haberkorn()));
        o.set("HaberkornLayers", Some("3")).unwrap();
        assert_eq!(o.variant(), Variant::haberkorn_from(3, None, None, false, false));
        assert_eq!(o.variant().map(|v| (v.white_layer, v.black_layer)), Ok((1, 2)));
        o.set("HaberkornWhiteLayer", Some("4")).unwrap();
        assert_eq!(o.variant(), Err(VariantError::SetupLayer(4, 3)));
        o.set("HaberkornWhiteLayer", Some("1")).unwrap();
        o.set("HaberkornBlackLayer", Some("3")).unwrap();
        o.set("HaberkornCastling", Some("true")).unwrap();
        assert_eq!(o.variant(), Variant::haberkorn_with(3, 1, 3, false, true));
        assert!(o.fen_variant().castling);
    }
}
