//! Game records: a PGN-style text with the moves in protocol move text
//! (`e2-IVe4-IV`), written and flushed as each game ends, and read back.
//! The format is documented in protocol.md ("Matches").

use crate::core::square::ROMAN;
use crate::core::{Position, Variant, VariantKind};
use std::fmt;
use std::io::{self, Write};
use std::str::FromStr;
use thiserror::Error;

/// How a game ended, from White's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `*`: still being played (the GUI's records of unfinished games; the
    /// match runner never writes it).
    Unfinished,
}

impl GameResult {
    /// The PGN result text.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unfinished => "*",
        }
    }

    /// White's points: 1, ½ or 0 (an unfinished game counts ½).
    pub fn white_points(self) -> f64 {
        match self {
            GameResult::WhiteWins => 1.0,
            GameResult::BlackWins => 0.0,
            GameResult::Draw | GameResult::Unfinished => 0.5,
        }
    }
}

/// Why a game ended: the `Termination` tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// The side to move is mated.
    Checkmate,
    /// The side to move has no move and is not in check.
    Stalemate,
    /// Threefold repetition.
    Repetition,
    /// Fifty moves without capture or pawn move.
    FiftyMoves,
    /// Mating material is gone.
    DeadMaterial,
    /// `--resign` adjudication.
    Resign,
    /// `--draw` adjudication.
    DrawAdjudication,
    /// `--maxmoves` reached.
    MaxMoves,
    /// The referee's clock ran out for the side to move.
    TimeForfeit,
    /// A well-formed move that is not legal.
    IllegalMove,
    /// A `bestmove` that is not move text.
    MalformedMove,
    /// The engine exited or could not be started.
    Crash,
    /// No `uciok`/`readyok` in time.
    NoReadyok,
    /// A player resigned (the GUI).
    Resignation,
    /// The game is still being played (the GUI's unfinished records).
    Unterminated,
}

impl Termination {
    /// Every termination, for parsing.
    pub const ALL: [Termination; 15] = [
        Termination::Checkmate,
        Termination::Stalemate,
        Termination::Repetition,
        Termination::FiftyMoves,
        Termination::DeadMaterial,
        Termination::Resign,
        Termination::DrawAdjudication,
        Termination::MaxMoves,
        Termination::TimeForfeit,
        Termination::IllegalMove,
        Termination::MalformedMove,
        Termination::Crash,
        Termination::NoReadyok,
        Termination::Resignation,
        Termination::Unterminated,
    ];

    /// The tag text.
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::Repetition => "threefold repetition",
            Termination::FiftyMoves => "fifty moves",
            Termination::DeadMaterial => "dead material",
            Termination::Resign => "adjudication: resign",
            Termination::DrawAdjudication => "adjudication: draw",
            Termination::MaxMoves => "max moves",
            Termination::TimeForfeit => "time forfeit",
            Termination::IllegalMove => "illegal move",
            Termination::MalformedMove => "malformed move",
            Termination::Crash => "crash",
            Termination::NoReadyok => "no readyok",
            Termination::Resignation => "resignation",
            Termination::Unterminated => "unterminated",
        }
    }

    /// Whether an engine fault ended the game.
    pub fn is_fault(self) -> bool {
        matches!(
            self,
            Termination::TimeForfeit
                | Termination::IllegalMove
                | Termination::MalformedMove
                | Termination::Crash
                | Termination::NoReadyok
        )
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Termination {
    type Err = ();
    fn from_str(s: &str) -> Result<Termination, ()> {
        Termination::ALL.into_iter().find(|t| t.as_str() == s).ok_or(())
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The `Event` tag.
    pub event: String,
    /// The `Site` tag.
    pub site: String,
    /// The `Date` tag, `YYYY.MM.DD`.
    pub date: String,
    /// The `Round` tag: `round.game`, both from 1.
    pub round: String,
    /// White's engine name.
    pub white: String,
    /// Black's engine name.
    pub black: String,
    /// The result.
    pub result: GameResult,
    /// The variant, including the haberkorn options.
    pub variant: Variant,
    /// The 3D-FEN the game started from.
    pub fen: String,
    /// The `TimeControl` tag.
    pub time_control: String,
    /// Why it ended.
    pub termination: Termination,
    /// The moves in protocol text.
    pub moves: Vec<String>,
    /// What the mover saw with each move, as cutechess writes it (`+0.35/12
    /// 0.101s`: score in pawns from the mover's side or `+M3`, depth, time);
    /// one per move, or none at all.
    pub move_comments: Vec<String>,
    /// A comment after the moves (the referee's reason), may be empty.
    pub comment: String,
}

/// Why a record could not be read back.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RecordError {
    /// A line that is neither a tag, a move line nor blank.
    #[error("line {0}: cannot read '{1}'")]
    Syntax(usize, String),
    /// A required tag is missing.
    #[error("game {0}: missing tag {1}")]
    MissingTag(usize, &'static str),
    /// A tag value that does not parse.
    #[error("game {0}: bad {1} '{2}'")]
    BadTag(usize, &'static str, String),
    /// The moves do not replay legally from the FEN.
    #[error("game {0}: move {1} '{2}' does not replay: {3}")]
    Replay(usize, usize, String, String),
    /// The PlyCount tag disagrees with the moves.
    #[error("game {0}: PlyCount {1} but {2} moves")]
    PlyCount(usize, usize, usize),
}

impl GameRecord {
    /// The tags in the order they are written, values unescaped: the seven
    /// PGN ones, the variant and its haberkorn options, `SetUp`, `FEN`,
    /// `TimeControl`, `Termination` and `PlyCount`.
    pub fn tags(&self) -> Vec<(&'static str, String)> {
        let mut tags: Vec<(&'static str, String)> = vec![
            ("Event", self.event.clone()),
            ("Site", self.site.clone()),
            ("Date", self.date.clone()),
            ("Round", self.round.clone()),
            ("White", self.white.clone()),
            ("Black", self.black.clone()),
            ("Result", self.result.as_str().to_string()),
            ("Variant", self.variant.kind.name().to_string()),
        ];
        if self.variant.kind == VariantKind::Haberkorn {
            let v = &self.variant;
            tags.push(("Layers", v.layers.to_string()));
            tags.push(("WhiteLayer", ROMAN[v.white_layer as usize].to_string()));
            tags.push(("BlackLayer", ROMAN[v.black_layer as usize].to_string()));
            tags.push(("EnPassant", on_off(v.en_passant).to_string()));
            tags.push(("Castling", on_off(v.castling).to_string()));
        }
        tags.push(("SetUp", "1".to_string()));
        tags.push(("FEN", self.fen.clone()));
        tags.push(("TimeControl", self.time_control.clone()));
        tags.push(("Termination", self.termination.as_str().to_string()));
        tags.push(("PlyCount", self.moves.len().to_string()));
        tags
    }

    /// Writes the record as PGN-style text, ending with a blank line.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        for (name, value) in self.tags() {
            writeln!(out, "[{name} \"{}\"]", escape(&value))?;
        }
        writeln!(out)?;
        let black_first = self.fen.split_whitespace().nth(1) == Some("b");
        let first_number: usize = self.fen.split_whitespace().nth(5).and_then(|n| n.parse().ok()).unwrap_or(1);
        let mut words = Vec::new();
        for (i, m) in self.moves.iter().enumerate() {
            let ply = i + usize::from(black_first);
            let number = first_number + ply / 2;
            if ply % 2 == 0 {
                words.push(format!("{number}. {m}"));
            } else if i == 0 {
                words.push(format!("{number}... {m}"));
            } else {
                words.push(m.clone());
            }
            if let Some(c) = self.move_comments.get(i).filter(|c| !c.is_empty()) {
                words.push(format!("{{{}}}", c.replace('}', "")));
            }
        }
        if !self.comment.is_empty() {
            // A comment right after a move is that move's: a last move without
            // one gets an empty `{}` first, so the referee's is not read as its.
            let last = self.moves.len().checked_sub(1).and_then(|i| self.move_comments.get(i));
            let last_said = last.is_some_and(|c| !c.is_empty());
            if !self.moves.is_empty() && !last_said {
                words.push("{}".to_string());
            }
            words.push(format!("{{{}}}", self.comment.replace('}', "")));
        }
        words.push(self.result.as_str().to_string());
        let mut line = String::new();
        for w in words {
            if !line.is_empty() && line.len() + 1 + w.len() > 100 {
                writeln!(out, "{line}")?;
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&w);
        }
        writeln!(out, "{line}")?;
        writeln!(out)?;
        out.flush()
    }
}

/// Today's date as `YYYY.MM.DD` (UTC, from the system clock), for the `Date` tag.
pub fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    civil_date((secs / 86_400) as i64)
}

/// The proleptic Gregorian date `YYYY.MM.DD` of a day counted from 1970-01-01
/// (day 0; negative before it), by Howard Hinnant's days-to-civil algorithm.
pub fn civil_date(days_since_epoch: i64) -> String {
    let z = days_since_epoch + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

fn on_off(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Reads every record of a file back and replays its moves with the rules.
pub fn parse_records(text: &str) -> Result<Vec<GameRecord>, RecordError> {
    let mut games = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut movetext = String::new();
    let mut in_moves = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') {
            if in_moves {
                games.push(finish(games.len() + 1, &tags, &movetext)?);
                tags.clear();
                movetext.clear();
                in_moves = false;
            }
            let inner = line.strip_prefix('[').and_then(|l| l.strip_suffix(']'));
            let (name, value) =
                inner.and_then(|l| l.split_once(' ')).ok_or_else(|| RecordError::Syntax(i + 1, line.to_string()))?;
            let value = value.trim().strip_prefix('"').and_then(|v| v.strip_suffix('"'));
            let value = value.ok_or_else(|| RecordError::Syntax(i + 1, line.to_string()))?;
            tags.push((name.to_string(), unescape(value)));
        } else if !line.is_empty() {
            if tags.is_empty() {
                return Err(RecordError::Syntax(i + 1, line.to_string()));
            }
            in_moves = true;
            movetext.push_str(line);
            movetext.push(' ');
        }
    }
    if !tags.is_empty() {
        games.push(finish(games.len() + 1, &tags, &movetext)?);
    }
    Ok(games)
}

/// Builds one record from its tags and move text and replays it.
fn finish(n: usize, tags: &[(String, String)], movetext: &str) -> Result<GameRecord, RecordError> {
    let tag = |name: &'static str| {
        tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()).ok_or(RecordError::MissingTag(n, name))
    };
    let result = match tag("Result")?.as_str() {
        "1-0" => GameResult::WhiteWins,
        "0-1" => GameResult::BlackWins,
        "1/2-1/2" => GameResult::Draw,
        "*" => GameResult::Unfinished,
        other => return Err(RecordError::BadTag(n, "Result", other.to_string())),
    };
    let game = tag("Variant")?;
    let variant = match game.parse::<VariantKind>() {
        Ok(VariantKind::Hdc) => Variant::hdc(),
        Ok(VariantKind::Haberkorn) => {
            let layer = |name: &'static str| -> Result<u8, RecordError> {
                let v = tag(name)?;
                ROMAN.iter().position(|r| *r == v).map(|p| p as u8 + 1).ok_or(RecordError::BadTag(n, name, v))
            };
            let flag = |name: &'static str| -> Result<bool, RecordError> {
                match tag(name)?.as_str() {
                    "on" => Ok(true),
                    "off" => Ok(false),
                    v => Err(RecordError::BadTag(n, name, v.to_string())),
                }
            };
            let layers = tag("Layers")?;
            let layers: u8 = layers.parse().map_err(|_| RecordError::BadTag(n, "Layers", layers.clone()))?;
            Variant::haberkorn_with(
                layers,
                layer("WhiteLayer")?,
                layer("BlackLayer")?,
                flag("EnPassant")?,
                flag("Castling")?,
            )
            .map_err(|e| RecordError::BadTag(n, "Layers", e.to_string()))?
        }
        Err(_) => return Err(RecordError::BadTag(n, "Variant", game)),
    };
    let termination = tag("Termination")?;
    let termination = termination.parse().map_err(|_| RecordError::BadTag(n, "Termination", termination.clone()))?;
    let fen = tag("FEN")?;
    let mut pos = Position::from_fen(&fen, variant).map_err(|e| RecordError::BadTag(n, "FEN", e.to_string()))?;
    // Words and `{…}` comments in order: a comment right after a move is that
    // move's; a comment after a move's own comment is the referee's.
    let mut moves = Vec::new();
    let mut move_comments: Vec<String> = Vec::new();
    let mut comment = String::new();
    let mut rest = movetext;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        if let Some(after) = rest.strip_prefix('{') {
            let end = after.find('}').ok_or_else(|| RecordError::BadTag(n, "movetext", "unclosed {".into()))?;
            let text = after[..end].trim().to_string();
            if !moves.is_empty() && move_comments.len() < moves.len() {
                move_comments.resize(moves.len() - 1, String::new());
                move_comments.push(text);
            } else {
                comment = text;
            }
            rest = &after[end + 1..];
            continue;
        }
        let end = rest.find(|c: char| c.is_whitespace() || c == '{').unwrap_or(rest.len());
        let word = &rest[..end];
        rest = &rest[end..];
        if word.ends_with('.') || word == result.as_str() {
            continue;
        }
        pos.play(word).map_err(|e| RecordError::Replay(n, moves.len() + 1, word.to_string(), e.to_string()))?;
        moves.push(word.to_string());
    }
    // One per move, or none at all (an empty `{}` only marks a move without one).
    if move_comments.iter().all(String::is_empty) {
        move_comments.clear();
    } else {
        move_comments.resize(moves.len(), String::new());
    }
    let plies = tag("PlyCount")?;
    let plies: usize = plies.parse().map_err(|_| RecordError::BadTag(n, "PlyCount", plies.clone()))?;
    if plies != moves.len() {
        return Err(RecordError::PlyCount(n, plies, moves.len()));
    }
    Ok(GameRecord {
        event: tag("Event")?,
        site: tag("Site")?,
        date: tag("Date")?,
        round: tag("Round")?,
        white: tag("White")?,
        black: tag("Black")?,
        result,
        variant,
        fen,
        time_control: tag("TimeControl")?,
        termination,
        moves,
        move_comments,
        comment,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(variant: Variant, moves: &[&str]) -> GameRecord {
        GameRecord {
            event: "Cubist \"test\" match".into(),
            site: "here".into(),
            date: "2025.01.02".into(),
            round: "1.2".into(),
            white: "a".into(),
            black: "b".into(),
            result: GameResult::BlackWins,
            variant,
            fen: variant.start_fen(),
            time_control: "10+0.1".into(),
            termination: Termination::IllegalMove,
            moves: moves.iter().map(|m| m.to_string()).collect(),
            move_comments: (0..moves.len()).map(|i| format!("+0.{i}5/{} 0.101s", i + 1)).collect(),
            comment: "a plays illegal move e2-IVe5-IV".into(),
        }
    }

    #[test]
    fn hdc_record_round_trips() {
        let rec = sample(Variant::hdc(), &["e2-IVe4-IV", "e7-IVe5-IV", "g1-IVf3-IV", "b8-IVc6-IV", "a2-Ia3-I"]);
        let mut buf = Vec::new();
        rec.write(&mut buf).unwrap();
        rec.write(&mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert!(text.contains("[Termination \"illegal move\"]"));
        assert!(text.contains("[PlyCount \"5\"]"));
        assert!(text.contains("[SetUp \"1\"]\n[FEN "), "{text}");
        assert!(text.contains("1. e2-IVe4-IV {+0.05/1 0.101s} e7-IVe5-IV {+0.15/2 0.101s} 2. g1-IVf3-IV"), "{text}");
        assert!(text.contains("a3-I {+0.45/5 0.101s} {a plays illegal move e2-IVe5-IV} 0-1"), "{text}");
        let back = parse_records(&text).unwrap();
        assert_eq!(back, vec![rec.clone(), rec]);
    }

    #[test]
    fn haberkorn_record_keeps_its_options() {
        let v = Variant::haberkorn_with(6, 2, 5, true, false).unwrap();
        let rec = sample(v, &["e2-IIe4-II"]);
        let mut buf = Vec::new();
        rec.write(&mut buf).unwrap();
        let back = parse_records(std::str::from_utf8(&buf).unwrap()).unwrap();
        assert_eq!(back[0].variant, v);
        assert_eq!(back[0], rec);
    }

    #[test]
    fn unfinished_record_round_trips() {
        let mut rec = sample(Variant::hdc(), &["e2-IVe4-IV", "e7-IVe5-IV"]);
        rec.result = GameResult::Unfinished;
        rec.termination = Termination::Unterminated;
        rec.comment = String::new();
        // The GUI writes unfinished records without per-move comments.
        rec.move_comments.clear();
        let mut buf = Vec::new();
        rec.write(&mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert!(text.contains("[Result \"*\"]") && text.contains("[Termination \"unterminated\"]"));
        assert!(text.contains("e7-IVe5-IV *"));
        assert_eq!(parse_records(&text).unwrap(), vec![rec]);
    }

    #[test]
    fn civil_dates_of_known_days() {
        assert_eq!(civil_date(0), "1970.01.01");
        assert_eq!(civil_date(-1), "1969.12.31");
        assert_eq!(civil_date(11_016), "2000.02.29");
        assert_eq!(civil_date(19_723), "2024.01.01");
        assert_eq!(civil_date(19_782), "2024.02.29");
        assert_eq!(civil_date(19_783), "2024.03.01");
        assert_eq!(civil_date(47_541), "2100.03.01", "2100 is no leap year");
        let d = today();
        let parts: Vec<u32> = d.split('.').map(|p| p.parse().unwrap()).collect();
        assert_eq!((d.len(), parts.len()), (10, 3), "{d}");
        assert!(parts[0] >= 2024 && (1..=12).contains(&parts[1]) && (1..=31).contains(&parts[2]), "{d}");
    }

    #[test]
    fn records_without_set_up_still_read() {
        // Records written before the `SetUp` tag (the GUI's first ones among them).
        let rec = sample(Variant::haberkorn_with(4, 2, 3, true, false).unwrap(), &["e2-IIe4-II"]);
        let mut buf = Vec::new();
        rec.write(&mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap().replace("[SetUp \"1\"]\n", "");
        assert!(!text.contains("SetUp"), "{text}");
        assert_eq!(parse_records(&text).unwrap(), vec![rec]);
    }

    #[test]
    fn broken_records_are_refused() {
        let rec = sample(Variant::hdc(), &["e2-IVe4-IV"]);
        let mut buf = Vec::new();
        rec.write(&mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let illegal = text.replace("e2-IVe4-IV", "e2-IVe5-IV");
        assert!(matches!(parse_records(&illegal), Err(RecordError::Replay(1, 1, _, _))));
        let count = text.replace("[PlyCount \"1\"]", "[PlyCount \"2\"]");
        assert!(matches!(parse_records(&count), Err(RecordError::PlyCount(1, 2, 1))));
        assert!(matches!(
            parse_records(&text.replace("[Result", "[Xesult")),
            Err(RecordError::MissingTag(1, "Result"))
        ));
        assert!(parse_records("1. e2-IVe4-IV").is_err());
        assert_eq!(parse_records("").unwrap(), vec![]);
    }
}
