//! The match settings and their fastchess-style `key=value` text: engines
//! (with their time controls and limits), openings, adjudication, SPRT and
//! the output (records file, log, results format), and the checks a match
//! runs before anything starts ([`MatchConfig::validate`]).

use super::shard::Shard;
use super::stats::{Sprt, SprtModel};
use super::variant_json::{deserialize_variant, serialize_variant};
use crate::core::Variant;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

/// Why a match setting was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    /// A token that is not `key=value`.
    #[error("{group}: expected key=value, found '{token}'")]
    NotKeyValue {
        /// The option it belongs to (`--engine`, `--resign`, ...).
        group: &'static str,
        /// The token.
        token: String,
    },
    /// A key the option does not know.
    #[error("{group}: unknown key '{key}'")]
    UnknownKey {
        /// The option it belongs to.
        group: &'static str,
        /// The key.
        key: String,
    },
    /// A value that does not parse.
    #[error("{group}: bad value '{value}' for {key}: {why}")]
    BadValue {
        /// The option it belongs to.
        group: &'static str,
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// What was expected.
        why: String,
    },
    /// A required key is missing.
    #[error("{group}: {key}= is required")]
    Missing {
        /// The option it belongs to.
        group: &'static str,
        /// The key.
        key: &'static str,
    },
    /// Settings that do not fit together.
    #[error("{0}")]
    Conflict(String),
    /// An engine's program that cannot be found or run.
    #[error("--engine cmd={cmd}: the program {why}")]
    Program {
        /// The program as given.
        cmd: String,
        /// What is wrong with it.
        why: String,
    },
}

/// A time control: `moves/base+inc` or `base+inc` (seconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    /// Moves per period (`None`: the whole game).
    pub moves: Option<u32>,
    /// Time per period.
    pub base: Duration,
    /// Increment per move.
    pub inc: Duration,
}

impl TimeControl {
    /// Reads `40/60+0.6`, `10+0.1`, `60` or, as cutechess writes a base
    /// time, `1:30+0.5` (minutes:seconds).
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let (moves, rest) = match text.split_once('/') {
            Some((m, r)) => {
                (Some(m.parse::<u32>().ok().filter(|&m| m > 0).ok_or("moves must be a positive integer")?), r)
            }
            None => (None, text),
        };
        let (base, inc) = match rest.split_once('+') {
            Some((b, i)) => (clock_seconds(b)?, seconds(i)?),
            None => (clock_seconds(rest)?, Duration::ZERO),
        };
        if base.is_zero() {
            return Err("the base time must be positive".into());
        }
        Ok(TimeControl { moves, base, inc })
    }
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(m) = self.moves {
            write!(f, "{m}/")?;
        }
        write!(f, "{}", self.base.as_secs_f64())?;
        if !self.inc.is_zero() {
            write!(f, "+{}", self.inc.as_secs_f64())?;
        }
        Ok(())
    }
}

/// Reads a base time: seconds, or `M:SS` (minutes and seconds) as cutechess and fastchess take it.
fn clock_seconds(text: &str) -> Result<Duration, String> {
    match text.split_once(':') {
        Some((m, sec)) => {
            let minutes = m.parse::<u32>().map_err(|_| format!("'{text}' is not M:SS (minutes:seconds)"))?;
            Ok(Duration::from_secs(u64::from(minutes) * 60) + seconds(sec)?)
        }
        None => seconds(text),
    }
}

/// Reads a non-negative number of seconds.
fn seconds(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0 && *s < 1e9)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("'{text}' is not a number of seconds"))
}

/// How long an engine may think: any combination of clock, fixed time, depth and nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limit {
    /// A game clock.
    pub tc: Option<TimeControl>,
    /// Fixed time per move.
    pub movetime: Option<Duration>,
    /// Fixed depth.
    pub depth: Option<u32>,
    /// Fixed node count.
    pub nodes: Option<u64>,
}

impl Limit {
    /// The PGN `TimeControl` text: `40/60+0.6`, `10+0.1`, `st=1`, `depth=3`, `nodes=1000`, joined by `,`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(tc) = self.tc {
            parts.push(tc.to_string());
        }
        if let Some(st) = self.movetime {
            parts.push(format!("st={}", st.as_secs_f64()));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth={d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes={n}"));
        }
        if parts.is_empty() { "-".to_string() } else { parts.join(",") }
    }
}

/// One engine of the match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineSpec {
    /// Name in records and tables.
    pub name: String,
    /// The program.
    pub cmd: String,
    /// Its command-line arguments.
    pub args: Vec<String>,
    /// UCI options sent with `setoption` after `uciok`, in order.
    pub options: Vec<(String, String)>,
    /// Its thinking limit.
    pub limit: Limit,
    /// Grace the referee allows beyond the clock or the fixed move time.
    pub timemargin: Duration,
    /// How long the engine may take to answer `uci` and `isready`.
    pub ready_timeout: Duration,
    /// Where the engine's stderr goes (appended); `None`: discarded.
    pub stderr: Option<PathBuf>,
    /// The working directory of the engine process (`dir=`); `None`: the runner's.
    pub dir: Option<PathBuf>,
    /// Start the engine process afresh before every game (`restart=on`).
    pub restart: bool,
}

/// Default grace beyond the clock: the referee measures from its own side of the pipe.
pub const DEFAULT_TIMEMARGIN: Duration = Duration::from_millis(50);
/// Default time allowed for `uciok` and `readyok`.
pub const DEFAULT_READY_TIMEOUT: Duration = Duration::from_secs(10);

/// Splits `key=value` tokens.
fn pairs<'a>(group: &'static str, tokens: &'a [String]) -> Result<Vec<(&'a str, &'a str)>, ConfigError> {
    tokens
        .iter()
        .map(|t| t.split_once('=').ok_or_else(|| ConfigError::NotKeyValue { group, token: t.clone() }))
        .collect()
}

/// Parses a value with `FromStr`, naming the key on failure.
fn value<T: std::str::FromStr>(group: &'static str, key: &str, text: &str, what: &str) -> Result<T, ConfigError> {
    text.parse::<T>().map_err(|_| ConfigError::BadValue {
        group,
        key: key.to_string(),
        value: text.to_string(),
        why: what.to_string(),
    })
}

impl EngineSpec {
    /// Builds an engine from the `--each` tokens followed by its own `--engine`
    /// tokens (later keys win; `arg=` and `option.` accumulate). An error
    /// names the option the bad token came from.
    pub fn parse(each: &[String], own: &[String]) -> Result<EngineSpec, ConfigError> {
        EngineSpec::read(each, own)?.finish()
    }

    /// Like [`EngineSpec::parse`], but a program that cannot be found (see
    /// [`check_program`]) is refused first, before a missing limit.
    pub fn parse_runnable(each: &[String], own: &[String]) -> Result<EngineSpec, ConfigError> {
        let spec = EngineSpec::read(each, own)?;
        if !spec.cmd.is_empty() {
            check_program(&spec.cmd)?;
        }
        spec.finish()
    }

    /// The `--each` and `--engine` tokens applied, unchecked.
    fn read(each: &[String], own: &[String]) -> Result<EngineSpec, ConfigError> {
        let mut spec = EngineSpec {
            name: String::new(),
            cmd: String::new(),
            args: Vec::new(),
            options: Vec::new(),
            limit: Limit::default(),
            timemargin: DEFAULT_TIMEMARGIN,
            ready_timeout: DEFAULT_READY_TIMEOUT,
            stderr: None,
            dir: None,
            restart: false,
        };
        spec.apply("--each", each)?;
        spec.apply("--engine", own)?;
        Ok(spec)
    }

    /// Applies `key=value` tokens of the option `group`.
    fn apply(&mut self, group: &'static str, tokens: &[String]) -> Result<(), ConfigError> {
        let spec = self;
        for (key, val) in pairs(group, tokens)? {
            let bad = |why: String| ConfigError::BadValue { group, key: key.into(), value: val.into(), why };
            match key {
                "cmd" => spec.cmd = val.to_string(),
                "name" => spec.name = val.to_string(),
                "arg" => spec.args.push(val.to_string()),
                // cutechess's and fastchess's one string of arguments, split as a shell would split words.
                "args" => spec.args.extend(split_words(val).map_err(bad)?),
                "dir" if !val.is_empty() => spec.dir = Some(PathBuf::from(val)),
                "restart" => {
                    spec.restart = match val {
                        "on" => true,
                        "off" => false,
                        _ => return Err(bad("expected on or off".into())),
                    }
                }
                // cutechess-cli's protocol key: UCI is the only one spoken here.
                "proto" if val == "uci" => {}
                "proto" => return Err(bad("only uci is spoken here".into())),
                "tc" if val == "inf" => spec.limit.tc = None,
                "tc" => spec.limit.tc = Some(TimeControl::parse(val).map_err(bad)?),
                "st" => spec.limit.movetime = Some(seconds(val).map_err(bad)?).filter(|d| !d.is_zero()),
                // fastchess's ply limit of a search is a depth limit.
                "depth" | "plies" => {
                    spec.limit.depth = Some(value(group, key, val, "a positive integer")?).filter(|&d| d > 0)
                }
                "nodes" => spec.limit.nodes = Some(value(group, key, val, "a positive integer")?).filter(|&n| n > 0),
                "timemargin" => spec.timemargin = Duration::from_millis(value(group, key, val, "milliseconds")?),
                "readytimeout" => spec.ready_timeout = seconds(val).map_err(bad)?,
                "stderr" if !val.is_empty() => spec.stderr = Some(PathBuf::from(val)),
                _ => match key.strip_prefix("option.") {
                    Some(name) if !name.is_empty() => {
                        spec.options.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                        spec.options.push((name.to_string(), val.to_string()));
                    }
                    _ => return Err(ConfigError::UnknownKey { group, key: key.to_string() }),
                },
            }
        }
        Ok(())
    }

    /// Checks the whole and fills in the name.
    fn finish(self) -> Result<EngineSpec, ConfigError> {
        const G: &str = "--engine";
        let mut spec = self;
        if spec.cmd.is_empty() {
            return Err(ConfigError::Missing { group: G, key: "cmd" });
        }
        if spec.name.is_empty() {
            spec.name = std::path::Path::new(&spec.cmd)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| spec.cmd.clone());
        }
        let l = &spec.limit;
        if l.tc.is_none() && l.movetime.is_none() && l.depth.is_none() && l.nodes.is_none() {
            return Err(ConfigError::Conflict(format!(
                "engine '{}' has no limit: give tc=, st=, depth= or nodes= (in --engine or --each)",
                spec.name
            )));
        }
        if l.tc.is_some() && l.movetime.is_some() {
            return Err(ConfigError::Conflict(format!("engine '{}': tc= and st= exclude each other", spec.name)));
        }
        Ok(spec)
    }
}

/// Checks, without starting it, that the program `cmd` can be run as the
/// match starts it: a path with `/` (from the runner's folder) must be an
/// executable file; a bare name must be one on the PATH (with no PATH set,
/// nothing is checked).
pub fn check_program(cmd: &str) -> Result<(), ConfigError> {
    let refuse = |why: String| Err(ConfigError::Program { cmd: cmd.to_string(), why });
    if !cmd.contains('/') {
        return match std::env::var_os("PATH") {
            Some(paths) if !std::env::split_paths(&paths).any(|dir| runnable(&dir.join(cmd)).is_ok()) => {
                refuse("is not on the PATH".into())
            }
            _ => Ok(()),
        };
    }
    runnable(Path::new(cmd)).or_else(refuse)
}

/// Whether `path` is an executable file; `Err` says why not.
fn runnable(path: &Path) -> Result<(), String> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err("does not exist".into()),
        Err(e) => return Err(format!("cannot be looked at: {e}")),
    };
    if !meta.is_file() {
        return Err("is not a file".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return Err("is not executable".into());
        }
    }
    Ok(())
}

/// Splits `args="…"` into words at blanks; single or double quotes keep blanks inside a word.
fn split_words(text: &str) -> Result<Vec<String>, String> {
    let (mut words, mut word, mut quote, mut in_word) = (Vec::new(), String::new(), None, false);
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => (quote, in_word) = (Some(c), true),
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                }
                in_word = false;
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err("a quote is not closed".into());
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// How the progress lines look: fastchess's (the default) or cutechess-cli's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum OutputFormat {
    /// `Results of A vs B: …` blocks.
    #[default]
    Fastchess,
    /// `Score of A vs B: W - L - D  [0.550] N` and `Elo difference: …` lines.
    Cutechess,
}

/// Reads `--output format=fastchess|cutechess`.
pub fn parse_output(tokens: &[String]) -> Result<OutputFormat, ConfigError> {
    const G: &str = "--output";
    let mut format = OutputFormat::Fastchess;
    for (key, val) in pairs(G, tokens)? {
        match (key, val) {
            ("format", "fastchess") => format = OutputFormat::Fastchess,
            ("format", "cutechess") => format = OutputFormat::Cutechess,
            ("format", _) => {
                return Err(ConfigError::BadValue {
                    group: G,
                    key: key.into(),
                    value: val.into(),
                    why: "expected fastchess or cutechess".into(),
                });
            }
            _ => return Err(ConfigError::UnknownKey { group: G, key: key.to_string() }),
        }
    }
    Ok(format)
}

/// Reads `--report penta=true|false`: whether the rating lines show the pentanomial counts.
pub fn parse_report(tokens: &[String]) -> Result<bool, ConfigError> {
    const G: &str = "--report";
    let mut penta = true;
    for (key, val) in pairs(G, tokens)? {
        match key {
            "penta" => {
                penta = value(G, key, val, "expected true or false")?;
            }
            _ => return Err(ConfigError::UnknownKey { group: G, key: key.to_string() }),
        }
    }
    Ok(penta)
}

/// The order in which an opening file is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OpeningOrder {
    /// Shuffled once with the match seed.
    Random,
    /// As in the file.
    Sequential,
}

/// The format of an opening file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OpeningFormat {
    /// One 3D-FEN per line.
    Fen,
    /// One 3D-EPD per line: four FEN fields, then operations.
    Epd,
}

/// `--openings file=<path> format=fen|epd order=random|sequential`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpeningsSpec {
    /// The file.
    pub file: PathBuf,
    /// Its format.
    pub format: OpeningFormat,
    /// The order of use.
    pub order: OpeningOrder,
    /// The opening the first round takes, 1-based (fastchess's `start=`), after any shuffle.
    pub start: usize,
}

/// The file name `--openings file=` reads as the game's built-in balanced book.
pub const BUILTIN_BOOK: &str = "builtin";

impl OpeningsSpec {
    /// The game's built-in balanced book, in random order from its first line.
    pub fn builtin() -> OpeningsSpec {
        OpeningsSpec {
            file: PathBuf::from(BUILTIN_BOOK),
            format: OpeningFormat::Fen,
            order: OpeningOrder::Random,
            start: 1,
        }
    }

    /// Whether this names the built-in book rather than a file.
    pub fn is_builtin(&self) -> bool {
        self.file.as_os_str() == BUILTIN_BOOK
    }

    /// Reads the `--openings` tokens.
    pub fn parse(tokens: &[String]) -> Result<OpeningsSpec, ConfigError> {
        const G: &str = "--openings";
        let (mut file, mut format, mut order, mut start) = (None, OpeningFormat::Fen, OpeningOrder::Random, 1);
        for (key, val) in pairs(G, tokens)? {
            let bad =
                |why: &str| ConfigError::BadValue { group: G, key: key.into(), value: val.into(), why: why.into() };
            match key {
                "file" => file = Some(PathBuf::from(val)),
                "format" => {
                    format = match val {
                        "fen" => OpeningFormat::Fen,
                        "epd" => OpeningFormat::Epd,
                        _ => return Err(bad("expected fen or epd")),
                    }
                }
                "order" => {
                    order = match val {
                        "random" => OpeningOrder::Random,
                        "sequential" => OpeningOrder::Sequential,
                        _ => return Err(bad("expected random or sequential")),
                    }
                }
                "start" => {
                    start = val.parse().ok().filter(|&n| n >= 1).ok_or_else(|| bad("expected a line number from 1"))?
                }
                _ => return Err(ConfigError::UnknownKey { group: G, key: key.to_string() }),
            }
        }
        Ok(OpeningsSpec { file: file.ok_or(ConfigError::Missing { group: G, key: "file" })?, format, order, start })
    }
}

/// `--pgnout FILE [min]` (cutechess) or, as fastchess writes it, `--pgnout file=FILE [key=value…]`:
/// the file. cutechess's `min` (records without comments) is accepted and changes nothing. fastchess's other keys (`notation`, `nodes`, `seldepth`, …), which choose what a
/// record shows, are accepted and change nothing: records always hold protocol move text and
/// `{score/depth time}` comments.
pub fn parse_pgnout(tokens: &[String]) -> Result<PathBuf, ConfigError> {
    const G: &str = "--pgnout";
    match tokens {
        [one] if !one.contains('=') => Ok(PathBuf::from(one)),
        [one, min] if !one.contains('=') && min == "min" => Ok(PathBuf::from(one)),
        _ => {
            let mut file = None;
            for (key, val) in pairs(G, tokens)? {
                match key {
                    "file" => file = Some(PathBuf::from(val)),
                    "notation" | "nodes" | "seldepth" | "nps" | "hashfull" | "timeleft" | "latency" | "min"
                    | "match_line" | "append" => {}
                    _ => return Err(ConfigError::UnknownKey { group: G, key: key.to_string() }),
                }
            }
            file.ok_or(ConfigError::Missing { group: G, key: "file" })
        }
    }
}

/// `--log file=FILE` (fastchess) or `--log FILE`: the conversation log.
pub fn parse_log(tokens: &[String]) -> Result<PathBuf, ConfigError> {
    const G: &str = "--log";
    match tokens {
        [one] if !one.contains('=') => Ok(PathBuf::from(one)),
        _ => {
            let mut file = None;
            for (key, val) in pairs(G, tokens)? {
                match key {
                    "file" => file = Some(PathBuf::from(val)),
                    // fastchess's level and engine-output switches: everything is logged here.
                    "level" | "engine" | "append" | "compress" | "realtime" => {}
                    _ => return Err(ConfigError::UnknownKey { group: G, key: key.to_string() }),
                }
            }
            file.ok_or(ConfigError::Missing { group: G, key: "file" })
        }
    }
}

/// `--resign movecount=N score=S`: a side whose own score stays at or below
/// −S centipawns for N consecutive moves loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResignRule {
    /// Consecutive moves.
    pub movecount: u32,
    /// Centipawns.
    pub score: i32,
}

/// `--draw movenumber=N movecount=N score=S`: from move N on, a game in which
/// both engines' scores stay within ±S for `movecount` consecutive moves each is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawRule {
    /// First full move at which the rule applies.
    pub movenumber: u32,
    /// Consecutive moves of each side.
    pub movecount: u32,
    /// Centipawns.
    pub score: i32,
}

/// Reads `key=value` tokens that are all numbers into the named slots.
fn numbers<const N: usize>(
    group: &'static str,
    tokens: &[String],
    keys: [&'static str; N],
) -> Result<[f64; N], ConfigError> {
    let mut out = [None; N];
    for (key, val) in pairs(group, tokens)? {
        let i = keys.iter().position(|k| *k == key).ok_or(ConfigError::UnknownKey { group, key: key.to_string() })?;
        let v: f64 = value(group, key, val, "a number")?;
        if !v.is_finite() {
            return Err(ConfigError::BadValue { group, key: key.into(), value: val.into(), why: "a number".into() });
        }
        out[i] = Some(v);
    }
    let mut res = [0.0; N];
    for i in 0..N {
        res[i] = out[i].ok_or(ConfigError::Missing { group, key: keys[i] })?;
    }
    Ok(res)
}

/// Checks a count is a non-negative integer.
fn count(group: &'static str, key: &'static str, v: f64) -> Result<u32, ConfigError> {
    if v >= 0.0 && v.fract() == 0.0 && v <= u32::MAX as f64 {
        Ok(v as u32)
    } else {
        Err(ConfigError::BadValue { group, key: key.into(), value: v.to_string(), why: "a whole number".into() })
    }
}

impl ResignRule {
    /// Reads the `--resign` tokens.
    pub fn parse(tokens: &[String]) -> Result<ResignRule, ConfigError> {
        const G: &str = "--resign";
        let [mc, sc] = numbers(G, tokens, ["movecount", "score"])?;
        Ok(ResignRule { movecount: count(G, "movecount", mc)?.max(1), score: sc.abs() as i32 })
    }
}

impl DrawRule {
    /// Reads the `--draw` tokens.
    pub fn parse(tokens: &[String]) -> Result<DrawRule, ConfigError> {
        const G: &str = "--draw";
        let [mn, mc, sc] = numbers(G, tokens, ["movenumber", "movecount", "score"])?;
        Ok(DrawRule {
            movenumber: count(G, "movenumber", mn)?,
            movecount: count(G, "movecount", mc)?.max(1),
            score: sc.abs() as i32,
        })
    }
}

/// Reads `--sprt elo0=E0 elo1=E1 alpha=A beta=B [model=normalized|logistic]`.
pub fn parse_sprt(tokens: &[String]) -> Result<Sprt, ConfigError> {
    const G: &str = "--sprt";
    let mut model = SprtModel::Normalized;
    let mut min_pairs = None;
    let mut rest = Vec::new();
    for t in tokens {
        match t.split_once('=') {
            Some(("minpairs", v)) => min_pairs = Some(value(G, "minpairs", v, "a whole number of game pairs")?),
            Some(("model", "normalized")) => model = SprtModel::Normalized,
            Some(("model", "logistic")) => model = SprtModel::Logistic,
            Some(("model", v)) => {
                return Err(ConfigError::BadValue {
                    group: G,
                    key: "model".into(),
                    value: v.into(),
                    why: "expected normalized or logistic".into(),
                });
            }
            _ => rest.push(t.clone()),
        }
    }
    let [e0, e1, a, b] = numbers(G, &rest, ["elo0", "elo1", "alpha", "beta"])?;
    let mut sprt = Sprt::new(e0, e1, a, b, model).map_err(ConfigError::Conflict)?;
    if let Some(m) = min_pairs {
        sprt.min_pairs = m;
    }
    Ok(sprt)
}

/// Adjudication settings beyond the rules.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adjudication {
    /// `--resign`.
    pub resign: Option<ResignRule>,
    /// `--draw`.
    pub draw: Option<DrawRule>,
    /// `--maxmoves`: full moves after which the game is drawn.
    pub maxmoves: Option<u32>,
    /// `--tb`: a folder of endgame tables; a position they hold ends the
    /// game with their result (the fifty-move rule applied).
    #[serde(default)]
    pub tb: Option<PathBuf>,
}

/// Everything `cubist match` was asked to do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchConfig {
    /// The engines (at least two).
    pub engines: Vec<EngineSpec>,
    /// The first engine plays everyone else, the others do not meet.
    pub gauntlet: bool,
    /// The variant (setup layers vary with constellations).
    #[serde(serialize_with = "serialize_variant", deserialize_with = "deserialize_variant")]
    pub variant: Variant,
    /// An opening file.
    pub openings: Option<OpeningsSpec>,
    /// Random plies played after each opening.
    pub random_plies: u32,
    /// Haberkorn: cycle through all white/black setup-layer pairs.
    pub constellations: bool,
    /// Play each opening with colours reversed in consecutive games.
    pub repeat: bool,
    /// Rounds (one opening each).
    pub rounds: u32,
    /// Games per pairing and round (default 2 with repeat, else 1).
    pub games: Option<u32>,
    /// Games played at once.
    pub concurrency: usize,
    /// Seed for opening order and random plies.
    pub seed: u64,
    /// Resign, draw and max-moves adjudication.
    pub adjudication: Adjudication,
    /// SPRT (two engines only).
    pub sprt: Option<Sprt>,
    /// Game records file.
    pub pgnout: Option<PathBuf>,
    /// Summary JSON file.
    pub results_json: Option<PathBuf>,
    /// Conversation log: every line between the runner and each engine, timestamped.
    pub log: Option<PathBuf>,
    /// The state file (`None`: beside the results JSON, else beside the records, else none).
    #[serde(default)]
    pub state: Option<PathBuf>,
    /// The slice of the schedule to play (`1/1`: all of it). A shard plays
    /// all its games: its SPRT is reported but never stops it.
    pub shard: Shard,
    /// The records' `Event` tag.
    pub event: String,
    /// The records' `Site` tag.
    pub site: String,
    /// The first engine of a pairing always plays White (no colour swap).
    pub noswap: bool,
    /// A pause before each worker's next game.
    pub wait: std::time::Duration,
    /// Progress in fastchess's or cutechess-cli's words.
    pub output: OutputFormat,
    /// Print the score line every N finished games (0: never).
    pub score_interval: u32,
    /// Print the rating lines every N finished games (0: never).
    pub rating_interval: u32,
    /// The rating lines show the pentanomial counts.
    pub penta_report: bool,
    /// No progress bar and no line per game (the SPSA tuner's matches).
    #[serde(default)]
    pub quiet: bool,
}

/// The defaults of the settings fastchess and cutechess-cli users may change.
impl Default for MatchConfig {
    fn default() -> MatchConfig {
        MatchConfig {
            engines: Vec::new(),
            gauntlet: false,
            variant: Variant::hdc(),
            openings: None,
            random_plies: 0,
            constellations: false,
            repeat: true,
            rounds: 1,
            games: None,
            concurrency: 1,
            seed: 0,
            adjudication: Adjudication::default(),
            sprt: None,
            pgnout: None,
            results_json: None,
            log: None,
            state: None,
            shard: Shard::whole(),
            event: "Cubist match".into(),
            site: "?".into(),
            noswap: false,
            wait: std::time::Duration::ZERO,
            output: OutputFormat::Fastchess,
            score_interval: 0,
            rating_interval: 0,
            penta_report: true,
            quiet: false,
        }
    }
}

impl MatchConfig {
    /// Checks what must hold before anything starts.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let n = self.engines.len();
        if n < 2 {
            return Err(ConfigError::Conflict("a match needs at least two --engine".into()));
        }
        if self.sprt.is_some() && n != 2 {
            return Err(ConfigError::Conflict("--sprt needs exactly two engines".into()));
        }
        if self.rounds == 0 || self.games == Some(0) || self.concurrency == 0 {
            return Err(ConfigError::Conflict("--rounds, --games and --concurrency must be at least 1".into()));
        }
        Ok(())
    }

    /// Gives engines with the same name a `-2`, `-3` … suffix.
    pub fn unique_names(&mut self) {
        let engines = &mut self.engines;
        for i in 1..engines.len() {
            let base = engines[i].name.clone();
            let mut k = 2;
            while engines[..i].iter().any(|e| e.name == engines[i].name) {
                engines[i].name = format!("{base}-{k}");
                k += 1;
            }
        }
    }

    /// The settings with every path made absolute, so that a resume from another folder finds the same files.
    pub fn with_absolute_paths(&self) -> MatchConfig {
        let abs = |p: &mut PathBuf| {
            if let Ok(a) = std::path::absolute(&*p) {
                *p = a;
            }
        };
        let mut cfg = self.clone();
        for p in [&mut cfg.pgnout, &mut cfg.results_json, &mut cfg.log, &mut cfg.state].into_iter().flatten() {
            abs(p);
        }
        if let Some(o) = &mut cfg.openings {
            abs(&mut o.file);
        }
        for e in &mut cfg.engines {
            for p in [&mut e.stderr, &mut e.dir].into_iter().flatten() {
                abs(p);
            }
            // A program with a `/` is found from the runner's folder (`dir=` or not); one without, on the PATH.
            if e.cmd.contains('/')
                && let Ok(a) = std::path::absolute(&e.cmd)
            {
                e.cmd = a.display().to_string();
            }
        }
        cfg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn time_controls() {
        let tc = TimeControl::parse("40/60+0.6").unwrap();
        assert_eq!(tc.moves, Some(40));
        assert_eq!(tc.base, Duration::from_secs(60));
        assert_eq!(tc.inc, Duration::from_millis(600));
        assert_eq!(tc.to_string(), "40/60+0.6");
        assert_eq!(TimeControl::parse("10+0.1").unwrap().to_string(), "10+0.1");
        assert_eq!(TimeControl::parse("5").unwrap().inc, Duration::ZERO);
        for bad in ["", "x+1", "0/10", "10+y", "-5+1", "0+1"] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn engine_merges_each_and_own_settings() {
        let e = EngineSpec::parse(
            &toks("tc=10+0.1 option.Hash=16"),
            &toks("cmd=/bin/eng name=a arg=-x arg=y option.Hash=32 option.Strategy=greedy timemargin=20"),
        )
        .unwrap();
        assert_eq!(e.name, "a");
        assert_eq!(e.args, ["-x", "y"]);
        assert_eq!(e.options, [("Hash".into(), "32".into()), ("Strategy".into(), "greedy".into())]);
        assert_eq!(e.limit.describe(), "10+0.1");
        assert_eq!(e.timemargin, Duration::from_millis(20));
        assert_eq!(EngineSpec::parse(&[], &toks("cmd=/x/eng depth=2")).unwrap().name, "eng");
    }

    #[test]
    fn engine_errors_are_clear() {
        let err = |s: &str| EngineSpec::parse(&[], &toks(s)).unwrap_err().to_string();
        assert!(err("name=a depth=1").contains("cmd= is required"));
        assert!(err("cmd=x").contains("no limit"));
        assert!(err("cmd=x depth=1 colour=red").contains("unknown key 'colour'"));
        assert!(err("cmd=x depth=deep").contains("bad value 'deep'"));
        assert!(err("cmd=x depth").contains("expected key=value"));
        assert!(err("cmd=x tc=1+0 st=1").contains("exclude"));
        // A bad token from --each names --each.
        let each = EngineSpec::parse(&toks("depth=deep"), &toks("cmd=x")).unwrap_err().to_string();
        assert!(each.starts_with("--each: bad value 'deep'"), "{each}");
    }

    #[test]
    fn a_program_that_cannot_be_found_is_named_before_a_missing_limit() {
        let err = |own: Vec<String>| EngineSpec::parse_runnable(&[], &own).unwrap_err().to_string();
        assert_eq!(
            err(toks("cmd=/nonexistent/engine")),
            "--engine cmd=/nonexistent/engine: the program does not exist"
        );
        assert_eq!(
            err(toks("cmd=cubist-no-such-program depth=1")),
            "--engine cmd=cubist-no-such-program: the program is not on the PATH"
        );
        assert!(err(toks("cmd=/ depth=1")).ends_with("the program is not a file"));
        #[cfg(unix)]
        {
            let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
            assert!(err(vec![format!("cmd={manifest}"), "depth=1".into()]).ends_with("the program is not executable"));
        }
        // Found, the program goes on to the other checks.
        assert!(err(toks("cmd=sh")).contains("no limit"));
        assert!(err(toks("cmd=/bin/sh")).contains("no limit"));
        assert!(EngineSpec::parse_runnable(&[], &toks("cmd=sh depth=1")).is_ok());
        // `parse` alone does not look for the program.
        assert!(EngineSpec::parse(&[], &toks("cmd=/nonexistent/engine depth=1")).is_ok());
    }

    #[test]
    fn cutechess_and_fastchess_time_controls() {
        let tc = |s: &str| EngineSpec::parse(&[], &toks(&format!("cmd=x {s}"))).map(|e| e.limit);
        let t = tc("tc=1:30+0.5").unwrap().tc.unwrap();
        assert_eq!((t.base, t.inc), (Duration::from_secs(90), Duration::from_millis(500)));
        assert_eq!(tc("tc=40/0:30").unwrap().tc.unwrap().base, Duration::from_secs(30));
        // tc=inf: no clock; another limit is then needed.
        assert_eq!(tc("tc=inf depth=3").unwrap(), Limit { depth: Some(3), ..Limit::default() });
        assert!(tc("tc=inf").is_err());
        assert!(tc("tc=1:xx").is_err());
        assert!(tc("proto=uci depth=1").is_ok() && tc("proto=xboard depth=1").is_err());
        assert_eq!(parse_pgnout(&toks("file=a.pgn notation=san")).unwrap(), PathBuf::from("a.pgn"));
        assert_eq!(parse_pgnout(&toks("b.pgn")).unwrap(), PathBuf::from("b.pgn"));
        assert!(parse_pgnout(&toks("notation=san")).is_err());
        assert_eq!(parse_log(&toks("file=m.log level=trace")).unwrap(), PathBuf::from("m.log"));
        let sprt = parse_sprt(&toks("elo0=0 elo1=5 alpha=0.05 beta=0.05 minpairs=3")).unwrap();
        assert_eq!(sprt.min_pairs, 3);
    }

    #[test]
    fn fastchess_and_cutechess_engine_keys_and_outputs() {
        let e = EngineSpec::parse(&toks("plies=4"), &toks("cmd=x dir=/tmp restart=on arg=-a")).unwrap();
        assert_eq!((e.limit.depth, e.dir, e.restart), (Some(4), Some(PathBuf::from("/tmp")), true));
        let mut own = toks("cmd=x depth=1");
        own.push("args=-x 'two words' \"y z\"  -w".into());
        assert_eq!(EngineSpec::parse(&[], &own).unwrap().args, ["-x", "two words", "y z", "-w"]);
        assert!(EngineSpec::parse(&[], &toks("cmd=x depth=1 restart=yes")).is_err());
        assert!(EngineSpec::parse(&[], &toks("cmd=x depth=1 args='open")).is_err());
        assert!(!EngineSpec::parse(&[], &toks("cmd=x depth=1 restart=off")).unwrap().restart);
        assert_eq!(parse_output(&toks("format=cutechess")), Ok(OutputFormat::Cutechess));
        assert_eq!(parse_output(&toks("format=fastchess")), Ok(OutputFormat::Fastchess));
        assert!(parse_output(&toks("format=pgn")).is_err() && parse_output(&toks("colour=yes")).is_err());
        assert_eq!((parse_report(&toks("penta=true")), parse_report(&toks("penta=false"))), (Ok(true), Ok(false)));
        assert!(parse_report(&toks("penta=maybe")).is_err());
        assert_eq!(parse_pgnout(&toks("c.pgn min")).unwrap(), PathBuf::from("c.pgn"));
        assert!(parse_pgnout(&toks("c.pgn max")).is_err());
    }

    #[test]
    fn adjudication_openings_and_sprt() {
        assert_eq!(ResignRule::parse(&toks("movecount=3 score=600")).unwrap(), ResignRule { movecount: 3, score: 600 });
        assert_eq!(
            DrawRule::parse(&toks("movenumber=40 movecount=8 score=10")).unwrap(),
            DrawRule { movenumber: 40, movecount: 8, score: 10 }
        );
        assert!(ResignRule::parse(&toks("movecount=3")).is_err());
        assert!(DrawRule::parse(&toks("movenumber=1.5 movecount=8 score=10")).is_err());
        let o = OpeningsSpec::parse(&toks("file=a.epd format=epd order=sequential")).unwrap();
        assert_eq!((o.format, o.order), (OpeningFormat::Epd, OpeningOrder::Sequential));
        assert!(OpeningsSpec::parse(&toks("format=epd")).is_err());
        let s = parse_sprt(&toks("elo0=0 elo1=5 alpha=0.05 beta=0.05")).unwrap();
        assert_eq!((s.elo0, s.elo1, s.model), (0.0, 5.0, SprtModel::Normalized));
        assert!(parse_sprt(&toks("elo0=5 elo1=0 alpha=0.05 beta=0.05")).is_err());
        assert!(parse_sprt(&toks("elo0=0 elo1=5 alpha=0.05 beta=0.05 model=bayes")).is_err());
    }

    #[test]
    fn duplicate_names_get_suffixes() {
        let spec = |name: &str| {
            EngineSpec::parse(&[], &["cmd=x".to_string(), format!("name={name}"), "depth=1".to_string()]).unwrap()
        };
        let mut cfg =
            MatchConfig { engines: vec![spec("a"), spec("a"), spec("b"), spec("a")], ..MatchConfig::default() };
        cfg.unique_names();
        let names: Vec<&str> = cfg.engines.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["a", "a-2", "b", "a-3"]);
    }
}
