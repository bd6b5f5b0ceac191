//! Game records: a PGN-style text with the moves in protocol move text
//! (`e2-IVe4-IV`), written and read back: tags, moves, each move's comment,
//! and the analysis notes of `cubist analyse` (marks `?!`/`?`/`??` and a
//! better line as a variation). The format is documented in protocol.md
//! ("Matches", "Game analysis").

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
    /// `--tb`: the endgame tables hold the position.
    Tablebase,
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
    pub const ALL: [Termination; 16] = [
        Termination::Checkmate,
        Termination::Stalemate,
        Termination::Repetition,
        Termination::FiftyMoves,
        Termination::DeadMaterial,
        Termination::Resign,
        Termination::DrawAdjudication,
        Termination::MaxMoves,
        Termination::Tablebase,
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
            Termination::Tablebase => "adjudication: tablebase",
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

/// An annotator's mark on a move: lichess's three for errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mark {
    /// `?!`: an inaccuracy.
    Inaccuracy,
    /// `?`: a mistake.
    Mistake,
    /// `??`: a blunder.
    Blunder,
}

impl Mark {
    /// The three marks, mildest first.
    pub const ALL: [Mark; 3] = [Mark::Inaccuracy, Mark::Mistake, Mark::Blunder];

    /// The mark as it follows a move: `?!`, `?` or `??`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "?!",
            Mark::Mistake => "?",
            Mark::Blunder => "??",
        }
    }
}

/// The suffixes annotators put after a move, longest first: the three
/// [`Mark`]s and the good ones (`!!`, `!?`, `!`), which are read and dropped.
const SUFFIXES: [&str; 6] = ["??", "?!", "!!", "!?", "?", "!"];

/// Splits a move word into the move and the mark after it.
fn split_mark(word: &str) -> (&str, Option<Mark>) {
    for suffix in SUFFIXES {
        if let Some(m) = word.strip_suffix(suffix) {
            let mark = Mark::ALL.into_iter().find(|k| k.as_str() == suffix);
            return (m, mark);
        }
    }
    (word, None)
}

/// What an analysis adds to a move besides its comment: a mark and a
/// better line (the move text inside the parentheses, comments included).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveNote {
    /// The move's mark, if any.
    pub mark: Option<Mark>,
    /// The variation after the move, without its parentheses; empty if none.
    pub variation: String,
}

impl MoveNote {
    /// Whether the note says nothing.
    pub fn is_empty(&self) -> bool {
        self.mark.is_none() && self.variation.is_empty()
    }
}

/// The tags a record's fields hold; any other tag is kept in `extra_tags`.
const KNOWN_TAGS: [&str; 18] = [
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "Variant",
    "Layers",
    "WhiteLayer",
    "BlackLayer",
    "EnPassant",
    "Castling",
    "SetUp",
    "FEN",
    "TimeControl",
    "Termination",
    "PlyCount",
];

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
    /// Marks and variations of an analysis (`cubist analyse`): one per
    /// move, or none at all.
    pub notes: Vec<MoveNote>,
    /// Tags besides the fields' own (an analysis's `Annotator`, for one), in order.
    pub extra_tags: Vec<(String, String)>,
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

    /// The value of an extra tag (see [`GameRecord::extra_tags`]).
    pub fn extra_tag(&self, name: &str) -> Option<&str> {
        self.extra_tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Writes the record as PGN-style text, ending with a blank line.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        for (name, value) in self.tags() {
            writeln!(out, "[{name} \"{}\"]", escape(&value))?;
        }
        for (name, value) in &self.extra_tags {
            writeln!(out, "[{name} \"{}\"]", escape(value))?;
        }
        writeln!(out)?;
        let black_first = self.fen.split_whitespace().nth(1) == Some("b");
        let first_number: usize = self.fen.split_whitespace().nth(5).and_then(|n| n.parse().ok()).unwrap_or(1);
        let mut words = Vec::new();
        for (i, m) in self.moves.iter().enumerate() {
            let ply = i + usize::from(black_first);
            let number = first_number + ply / 2;
            let note = self.notes.get(i);
            let m = format!("{m}{}", note.and_then(|n| n.mark).map_or("", Mark::as_str));
            if ply % 2 == 0 {
                words.push(format!("{number}. {m}"));
            } else if i == 0 {
                words.push(format!("{number}... {m}"));
            } else {
                words.push(m);
            }
            let comment = self.move_comments.get(i).filter(|c| !c.is_empty());
            if let Some(c) = comment {
                words.push(format!("{{{}}}", c.replace('}', "")));
            }
            if let Some(v) = note.map(|n| n.variation.as_str()).filter(|v| !v.is_empty()) {
                if comment.is_none() {
                    // The variation closes the move's comment slot: a comment after it is the next one's.
                    words.push("{}".to_string());
                }
                words.push(format!("({})", v.replace(['(', ')'], "")));
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

/// Reads every record of a file back and replays its moves with the rules;
/// the first bad record is the error.
pub fn parse_records(text: &str) -> Result<Vec<GameRecord>, RecordError> {
    read_records(text).into_iter().collect()
}

/// Reads every record of a file, each on its own: a bad record is its
/// error (numbered from 1 in the file) and the next one is read all the same.
pub fn read_records(text: &str) -> Vec<Result<GameRecord, RecordError>> {
    let mut games = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut movetext = String::new();
    let mut in_moves = false;
    let mut bad: Option<RecordError> = None;
    /// Ends the game read so far: its record or its first error.
    fn end_game(
        games: &mut Vec<Result<GameRecord, RecordError>>,
        tags: &mut Vec<(String, String)>,
        movetext: &mut String,
        bad: &mut Option<RecordError>,
    ) {
        let n = games.len() + 1;
        games.push(bad.take().map_or_else(|| finish(n, tags, movetext), Err));
        tags.clear();
        movetext.clear();
    }
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') {
            if in_moves {
                end_game(&mut games, &mut tags, &mut movetext, &mut bad);
                in_moves = false;
            }
            let inner = line.strip_prefix('[').and_then(|l| l.strip_suffix(']'));
            let tag = inner.and_then(|l| l.split_once(' ')).and_then(|(name, value)| {
                let value = value.trim().strip_prefix('"').and_then(|v| v.strip_suffix('"'))?;
                Some((name.to_string(), unescape(value)))
            });
            match tag {
                Some(tag) => tags.push(tag),
                None => {
                    bad.get_or_insert(RecordError::Syntax(i + 1, line.to_string()));
                }
            }
        } else if !line.is_empty() {
            if tags.is_empty() && !in_moves {
                bad.get_or_insert(RecordError::Syntax(i + 1, line.to_string()));
            }
            in_moves = true;
            movetext.push_str(line);
            movetext.push(' ');
        }
    }
    if !tags.is_empty() || bad.is_some() {
        end_game(&mut games, &mut tags, &mut movetext, &mut bad);
    }
    games
}

/// The text inside the parentheses that open `text`, nesting and `{…}`
/// comments respected, and what follows the closing one.
fn split_variation(text: &str) -> Option<(&str, &str)> {
    let mut depth = 0;
    let mut in_comment = false;
    for (i, c) in text.char_indices() {
        match c {
            '{' if !in_comment => in_comment = true,
            '}' if in_comment => in_comment = false,
            '(' if !in_comment => depth += 1,
            ')' if !in_comment => {
                depth -= 1;
                if depth == 0 {
                    return Some((&text[1..i], &text[i + 1..]));
                }
            }
            _ => {}
        }
    }
    None
}

/// A record's tag `name` from `tags`, or the error that record `n` lacks it.
fn tag_of(n: usize, tags: &[(String, String)], name: &'static str) -> Result<String, RecordError> {
    tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()).ok_or(RecordError::MissingTag(n, name))
}

/// The game record `n`'s tags set up: its `Variant` tag, and for haberkorn
/// the board's layers, setup layers and rule options.
fn variant_of_tags(n: usize, tags: &[(String, String)]) -> Result<Variant, RecordError> {
    let tag = |name| tag_of(n, tags, name);
    let game = tag("Variant")?;
    match game.parse::<VariantKind>() {
        Ok(VariantKind::Hdc) => Ok(Variant::hdc()),
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
            .map_err(|e| RecordError::BadTag(n, "Layers", e.to_string()))
        }
        Err(_) => Err(RecordError::BadTag(n, "Variant", game)),
    }
}

/// What a record's move text holds besides its result: the moves (replayed
/// on `pos` as they are read), their comments, the comment after the last
/// move's own, and the moves' marks and variations.
#[derive(Default)]
struct Movetext {
    /// The moves in order.
    moves: Vec<String>,
    /// One comment a move, or none at all.
    move_comments: Vec<String>,
    /// The referee's comment after the last move's own.
    comment: String,
    /// One note a move, or none at all.
    notes: Vec<MoveNote>,
}

/// Reads record `n`'s move text, replaying each move on `pos`. Words and
/// `{…}` comments come in order: a comment right after a move is that
/// move's; a comment after a move's own comment is the referee's.
fn read_movetext(n: usize, text: &str, result: GameResult, pos: &mut Position) -> Result<Movetext, RecordError> {
    let mut out = Movetext::default();
    let (moves, move_comments, notes) = (&mut out.moves, &mut out.move_comments, &mut out.notes);
    let mut rest = text;
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
                out.comment = text;
            }
            rest = &after[end + 1..];
            continue;
        }
        if rest.starts_with('(') {
            let (inner, after) =
                split_variation(rest).ok_or_else(|| RecordError::BadTag(n, "movetext", "unclosed (".into()))?;
            if moves.is_empty() {
                return Err(RecordError::BadTag(n, "movetext", "a variation before the first move".into()));
            }
            // The variation ends the move's comment slot.
            move_comments.resize(moves.len(), String::new());
            notes.resize(moves.len(), MoveNote::default());
            notes[moves.len() - 1].variation = inner.trim().to_string();
            rest = after;
            continue;
        }
        let end = rest.find(|c: char| c.is_whitespace() || c == '{' || c == '(').unwrap_or(rest.len());
        let word = &rest[..end];
        rest = &rest[end..];
        if word.ends_with('.') || word == result.as_str() || word.starts_with('$') {
            continue;
        }
        let (word, mark) = split_mark(word);
        pos.play(word).map_err(|e| RecordError::Replay(n, moves.len() + 1, word.to_string(), e.to_string()))?;
        moves.push(word.to_string());
        notes.resize(moves.len() - 1, MoveNote::default());
        notes.push(MoveNote { mark, variation: String::new() });
    }
    if notes.iter().all(MoveNote::is_empty) {
        notes.clear();
    } else {
        notes.resize(moves.len(), MoveNote::default());
    }
    // One per move, or none at all (an empty `{}` only marks a move without one).
    if move_comments.iter().all(String::is_empty) {
        move_comments.clear();
    } else {
        move_comments.resize(moves.len(), String::new());
    }
    Ok(out)
}

/// Builds one record from its tags and move text and replays it.
fn finish(n: usize, tags: &[(String, String)], movetext: &str) -> Result<GameRecord, RecordError> {
    let tag = |name| tag_of(n, tags, name);
    let result = match tag("Result")?.as_str() {
        "1-0" => GameResult::WhiteWins,
        "0-1" => GameResult::BlackWins,
        "1/2-1/2" => GameResult::Draw,
        "*" => GameResult::Unfinished,
        other => return Err(RecordError::BadTag(n, "Result", other.to_string())),
    };
    let variant = variant_of_tags(n, tags)?;
    let termination = tag("Termination")?;
    let termination = termination.parse().map_err(|_| RecordError::BadTag(n, "Termination", termination.clone()))?;
    let fen = tag("FEN")?;
    let mut pos = Position::from_fen(&fen, variant).map_err(|e| RecordError::BadTag(n, "FEN", e.to_string()))?;
    let Movetext { moves, move_comments, comment, notes } = read_movetext(n, movetext, result, &mut pos)?;
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
        notes,
        extra_tags: tags.iter().filter(|(k, _)| !KNOWN_TAGS.contains(&k.as_str())).cloned().collect(),
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
            notes: Vec::new(),
            extra_tags: Vec::new(),
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
    fn marks_variations_and_other_tags_read_back() {
        let mut rec = sample(Variant::hdc(), &["e2-IVe4-IV", "e7-IVe5-IV", "g1-IVf3-IV"]);
        rec.move_comments[1] = String::new();
        rec.notes = vec![
            MoveNote::default(),
            MoveNote { mark: Some(Mark::Mistake), variation: "1... d7-IVd5-IV {[%eval -0.20]} 2. e4-IVd5-IV".into() },
            MoveNote { mark: Some(Mark::Inaccuracy), variation: String::new() },
        ];
        rec.extra_tags = vec![("Annotator".into(), "me".into()), ("Opening".into(), "x \"y\"".into())];
        let mut buf = Vec::new();
        rec.write(&mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert!(text.contains("e7-IVe5-IV? {} (1... d7-IVd5-IV"), "{text}");
        assert!(text.contains("g1-IVf3-IV?! {+0.25/3 0.101s}"), "{text}");
        assert!(text.contains("[PlyCount \"3\"]\n[Annotator \"me\"]\n"), "{text}");
        assert_eq!(parse_records(&text).unwrap(), vec![rec.clone()]);
        assert_eq!(rec.extra_tag("Opening"), Some("x \"y\""));
        // Other annotators' spellings: good-move marks and NAGs dropped, nested variations kept whole.
        let other = text
            .replace("1. e2-IVe4-IV", "1. e2-IVe4-IV!? $1")
            .replace("(1... d7-IVd5-IV", "(1... d7-IVd5-IV (1... c7-IVc5-IV) ");
        let back = parse_records(&other).unwrap().remove(0);
        assert_eq!(back.notes[0], MoveNote::default());
        assert!(back.notes[1].variation.starts_with("1... d7-IVd5-IV (1... c7-IVc5-IV)"), "{:?}", back.notes[1]);
        for broken in ["(1... d7", "1. (e2-IVe4-IV)"] {
            let t = text.replace("1. e2-IVe4-IV", broken);
            assert!(parse_records(&t).is_err(), "{t}");
        }
    }

    #[test]
    fn each_record_reads_on_its_own() {
        let good = sample(Variant::hdc(), &["e2-IVe4-IV"]);
        let mut buf = Vec::new();
        good.write(&mut buf).unwrap();
        let one = String::from_utf8(buf).unwrap();
        let text = format!("{one}{}{one}", one.replace("e2-IVe4-IV", "e2-IVe6-IV"));
        let read = read_records(&text);
        assert_eq!(read.len(), 3);
        assert_eq!(read[0].as_ref(), Ok(&good));
        assert!(matches!(read[1], Err(RecordError::Replay(2, 1, _, _))));
        assert_eq!(read[2].as_ref(), Ok(&good));
        assert!(matches!(parse_records(&text), Err(RecordError::Replay(2, 1, _, _))));
        let junk = read_records("junk\n\n[Event \"x\"]\n[Bad tag\n\n1. e2-IVe4-IV *\n");
        // Move text before any tag is a bad record of its own.
        assert_eq!(junk.len(), 2, "{junk:?}");
        assert!(matches!(junk[0], Err(RecordError::Syntax(1, _))));
        assert!(matches!(junk[1], Err(RecordError::Syntax(4, _))));
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
