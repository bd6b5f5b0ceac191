//! Reading the GUI's lines: the one place that decides which input goes
//! through `vampirc-uci` and which through Cubist's own parser.
//!
//! - vampirc-uci parses the standard messages that carry no squares:
//!   `uci`, `isready`, `setoption`, `ucinewgame`, `stop`, `ponderhit`,
//!   `quit`, `debug` ([`standard`]).
//! - Cubist parses everything that carries 3D moves or that vampirc-uci gets
//!   wrong: `position … moves …` ([`parse_position`]) and `go` with
//!   `searchmoves` and `perft` ([`parse_go`]). vampirc-uci only knows 2D
//!   squares (`e2e4`), and its `go` parser has defects that would crash or
//!   silently mislead the engine; see [`parse_go`].
//!
//! The command name (the first token) is matched exactly, case-sensitively,
//! by the dispatch in `uci/mod.rs` before anything here runs, so vampirc-uci's
//! lenient prefixes (it reads `isreadyfoo` as `isready`) never apply.

use super::echo::shown;
use super::options::OptionError;
use crate::core::variant::VariantError;
use crate::core::{FenError, Move, MoveError, Position};
use crate::search::Limits;
use std::time::Duration;
use thiserror::Error;
use vampirc_uci::UciMessage;

/// Why a command line was refused. The session prints it as
/// `info string error: …` and changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CommandError {
    /// The first token names no command.
    #[error("unknown command '{0}'")]
    Unknown(String),
    /// A standard command whose arguments do not parse.
    #[error("malformed '{command}' command; usage: {usage}")]
    Usage {
        /// The command name.
        command: &'static str,
        /// How it is written.
        usage: &'static str,
    },
    /// `position` followed by something other than `startpos` or `fen`.
    #[error("position: expected 'startpos' or 'fen', found '{0}'; position unchanged")]
    PositionStart(String),
    /// `position startpos` followed by something other than `moves`.
    #[error("position: expected 'moves' after startpos, found '{0}'; position unchanged")]
    PositionMoves(String),
    /// A FEN that does not parse.
    #[error("position fen: {0}; position unchanged")]
    Fen(FenError),
    /// The variant options do not describe a game (a setup layer beyond the layer count).
    #[error(
        "position startpos: {0}; set HaberkornLayers, HaberkornWhiteLayer and HaberkornBlackLayer to fit; position unchanged"
    )]
    Variant(VariantError),
    /// A move in `position … moves …` that is malformed or illegal.
    #[error("position: move {index} of {count}: {error}; position unchanged")]
    Move {
        /// 1-based index in the move list.
        index: usize,
        /// Moves in the list.
        count: usize,
        /// What is wrong with it (names the token).
        error: MoveError,
    },
    /// A `go` token that is no parameter.
    #[error("go: unknown parameter '{0}'; no search started")]
    GoUnknown(String),
    /// A `go` parameter without its number.
    #[error("go: '{0}' needs a number; no search started")]
    GoMissing(&'static str),
    /// A `go` number that does not parse or is out of range.
    #[error("go: '{text}' is not a valid value for '{keyword}' ({expected}); no search started")]
    GoNumber {
        /// The parameter.
        keyword: &'static str,
        /// The text given.
        text: String,
        /// What it must be.
        expected: &'static str,
    },
    /// A `searchmoves` entry that is malformed or illegal here.
    #[error("go searchmoves: {0}; no search started")]
    SearchMove(MoveError),
    /// `searchmoves` without moves.
    #[error("go: 'searchmoves' needs at least one move; no search started")]
    NoSearchMoves,
    /// A `setoption` the options refuse.
    #[error("setoption: {0}")]
    Option(#[from] OptionError),
    /// `bench` arguments out of range or unknown.
    #[error("bench: {0}")]
    Bench(String),
    /// `perft` mixed with search parameters.
    #[error("go perft takes only a depth: 'go perft <depth>'")]
    PerftMixed,
}

/// Parses a standard square-free message with vampirc-uci. `command` is the
/// first token, already matched by the dispatch; the result is checked to be
/// that message, so a line vampirc-uci reads as something else is refused.
pub fn standard(command: &'static str, usage: &'static str, line: &str) -> Result<UciMessage, CommandError> {
    let msg = vampirc_uci::parse_one(line);
    let fits = matches!(
        (command, &msg),
        ("uci", UciMessage::Uci)
            | ("isready", UciMessage::IsReady)
            | ("setoption", UciMessage::SetOption { .. })
            | ("ucinewgame", UciMessage::UciNewGame)
            | ("stop", UciMessage::Stop)
            | ("ponderhit", UciMessage::PonderHit)
            | ("quit", UciMessage::Quit)
            | ("debug", UciMessage::Debug(_))
    );
    if fits { Ok(msg) } else { Err(CommandError::Usage { command, usage }) }
}

/// Where `position` starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// The variant's start position (from the options).
    StartPos,
    /// A 3D-FEN (its fields joined by single spaces).
    Fen(String),
}

/// A parsed `position` command: the start and the move texts to play on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionCommand<'a> {
    /// Where to start.
    pub start: Start,
    /// The moves, as written (checked when played).
    pub moves: Vec<&'a str>,
}

/// Parses the arguments of `position startpos|fen <3D-FEN> [moves m1 m2 …]`.
pub fn parse_position(args: &str) -> Result<PositionCommand<'_>, CommandError> {
    let mut tokens = args.split_ascii_whitespace();
    let start = match tokens.next() {
        Some("startpos") => {
            match tokens.next() {
                None | Some("moves") => {}
                Some(other) => return Err(CommandError::PositionMoves(shown(other))),
            }
            Start::StartPos
        }
        Some("fen") => {
            let fields: Vec<&str> = tokens.by_ref().take_while(|t| *t != "moves").collect();
            Start::Fen(fields.join(" "))
        }
        Some(other) => return Err(CommandError::PositionStart(shown(other))),
        None => return Err(CommandError::PositionStart(String::new())),
    };
    Ok(PositionCommand { start, moves: tokens.collect() })
}

/// Plays `moves` on `pos` with the checked path ([`Position::play`]), so the
/// game history (repetitions) carries into the position; the first bad move
/// is reported by its index and text.
pub fn play_moves(mut pos: Position, moves: &[&str]) -> Result<Position, CommandError> {
    for (i, text) in moves.iter().enumerate() {
        pos.play(text).map_err(|error| CommandError::Move {
            index: i + 1,
            count: moves.len(),
            error: shorten(error),
        })?;
    }
    Ok(pos)
}

/// What `go` asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoCommand {
    /// A search with these limits.
    Search(Limits),
    /// `go perft <depth>`: count the legal move tree.
    Perft(u32),
}

/// The `go` parameters that take a number, and the number's type.
const GO_NUMBERS: [(&str, NumberKind); 9] = [
    ("wtime", NumberKind::Millis),
    ("btime", NumberKind::Millis),
    ("winc", NumberKind::Millis),
    ("binc", NumberKind::Millis),
    ("movetime", NumberKind::Millis),
    ("movestogo", NumberKind::Count),
    ("depth", NumberKind::Count),
    ("mate", NumberKind::Count),
    ("nodes", NumberKind::Nodes),
];

/// Every `go` keyword (where a `searchmoves` list ends).
const GO_KEYWORDS: [&str; 13] = [
    "wtime",
    "btime",
    "winc",
    "binc",
    "movetime",
    "movestogo",
    "depth",
    "mate",
    "nodes",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum NumberKind {
    /// Milliseconds, possibly negative (a GUI may send a negative clock after a flag fall): read as 0.
    Millis,
    /// A count that fits u32.
    Count,
    /// A node count that fits u64.
    Nodes,
}

/// Parses the arguments of `go` against the position it will search.
///
/// This is Cubist's own token-level parser, not vampirc-uci's, because
/// vampirc-uci 0.11.1 (checked by running it):
/// - panics on `go depth 300` or `go movestogo 999` (a 3-digit number is
///   unwrapped into a `u8`), which would end the UCI loop;
/// - drops `ponder` from the standard `go ponder wtime … btime …`;
/// - silently ignores everything from the first token it does not know, so
///   `go depth 5 foo` and 3D `searchmoves` vanish without an error, and cuts
///   `nodes` to 12 digits;
/// - knows neither 3D moves nor `perft`.
///
/// Repeated parameters: the last one counts (as in Stockfish). Every token
/// must be understood, otherwise nothing is started.
pub fn parse_go(args: &str, pos: &Position) -> Result<GoCommand, CommandError> {
    let tokens: Vec<&str> = args.split_ascii_whitespace().collect();
    let mut limits = Limits::default();
    let mut perft = None;
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i];
        i += 1;
        if let Some(&(keyword, kind)) = GO_NUMBERS.iter().find(|(k, _)| *k == token) {
            let text = *tokens.get(i).ok_or(CommandError::GoMissing(keyword))?;
            i += 1;
            let bad = |expected| CommandError::GoNumber { keyword, text: shown(text), expected };
            match kind {
                NumberKind::Millis => {
                    let ms: i64 = text.parse().map_err(|_| bad("milliseconds"))?;
                    let d = Some(Duration::from_millis(ms.max(0) as u64));
                    match keyword {
                        "wtime" => limits.wtime = d,
                        "btime" => limits.btime = d,
                        "winc" => limits.winc = d,
                        "binc" => limits.binc = d,
                        _ => limits.movetime = d,
                    }
                }
                NumberKind::Count => {
                    let n: u32 = text.parse().map_err(|_| bad("a whole number 0..4294967295"))?;
                    match keyword {
                        "movestogo" => limits.movestogo = Some(n),
                        "depth" => limits.depth = Some(n),
                        _ => limits.mate = Some(n),
                    }
                }
                NumberKind::Nodes => limits.nodes = Some(text.parse().map_err(|_| bad("a whole number of nodes"))?),
            }
            continue;
        }
        match token {
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "searchmoves" => {
                let start = i;
                while i < tokens.len() && !GO_KEYWORDS.contains(&tokens[i]) {
                    let m = pos.parse_move(tokens[i]).map_err(|e| CommandError::SearchMove(shorten(e)))?;
                    limits.searchmoves.push(m);
                    i += 1;
                }
                if i == start {
                    return Err(CommandError::NoSearchMoves);
                }
            }
            "perft" => {
                let text = *tokens.get(i).ok_or(CommandError::GoMissing("perft"))?;
                i += 1;
                let depth: u32 = text.parse().ok().filter(|d| *d >= 1).ok_or_else(|| CommandError::GoNumber {
                    keyword: "perft",
                    text: shown(text),
                    expected: "a depth of at least 1",
                })?;
                perft = Some(depth);
            }
            other => return Err(CommandError::GoUnknown(shown(other))),
        }
    }
    match perft {
        Some(_) if limits != Limits::default() => Err(CommandError::PerftMixed),
        Some(depth) => Ok(GoCommand::Perft(depth)),
        None => Ok(GoCommand::Search(limits)),
    }
}

/// A move list's moves, for messages.
pub fn move_list(moves: &[Move]) -> String {
    moves.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ")
}

/// A move error with its echoed text shortened by [`shown`].
fn shorten(e: MoveError) -> MoveError {
    match e {
        MoveError::Malformed { text, why } => MoveError::Malformed { text: shown(&text), why: shown(&why) },
        MoveError::Illegal(text) => MoveError::Illegal(shown(&text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;

    fn start() -> Position {
        Position::start(Variant::hdc())
    }

    #[test]
    fn go_reads_every_parameter() {
        let pos = start();
        let GoCommand::Search(l) = parse_go(
            "ponder wtime 1000 btime -5 winc 10 binc 20 movestogo 300 depth 300 nodes 99999999999999 mate 3 \
             movetime 500 searchmoves e2-IVe4-IV d2-IVd4-IV infinite",
            &pos,
        )
        .unwrap() else {
            panic!("not a search")
        };
        assert!(l.ponder && l.infinite);
        assert_eq!(l.wtime, Some(Duration::from_millis(1000)));
        assert_eq!(l.btime, Some(Duration::ZERO));
        assert_eq!((l.winc, l.binc), (Some(Duration::from_millis(10)), Some(Duration::from_millis(20))));
        assert_eq!((l.movestogo, l.depth, l.mate), (Some(300), Some(300), Some(3)));
        assert_eq!(l.nodes, Some(99_999_999_999_999));
        assert_eq!(l.movetime, Some(Duration::from_millis(500)));
        assert_eq!(move_list(&l.searchmoves), "e2-IVe4-IV d2-IVd4-IV");
        assert_eq!(parse_go("", &pos), Ok(GoCommand::Search(Limits::default())));
        assert_eq!(parse_go("perft 2", &pos), Ok(GoCommand::Perft(2)));
    }

    #[test]
    fn go_refuses_what_it_does_not_understand() {
        let pos = start();
        assert_eq!(parse_go("depth", &pos), Err(CommandError::GoMissing("depth")));
        assert!(matches!(parse_go("depth x", &pos), Err(CommandError::GoNumber { keyword: "depth", .. })));
        assert!(matches!(parse_go("depth -1", &pos), Err(CommandError::GoNumber { .. })));
        assert!(matches!(parse_go("movetime 1.5", &pos), Err(CommandError::GoNumber { .. })));
        assert_eq!(parse_go("depth 5 foo", &pos), Err(CommandError::GoUnknown("foo".into())));
        assert_eq!(parse_go("searchmoves", &pos), Err(CommandError::NoSearchMoves));
        assert!(matches!(
            parse_go("searchmoves e2e4", &pos),
            Err(CommandError::SearchMove(MoveError::Malformed { .. }))
        ));
        assert!(matches!(
            parse_go("searchmoves e2-IVe5-IV", &pos),
            Err(CommandError::SearchMove(MoveError::Illegal(_)))
        ));
        assert!(matches!(parse_go("perft 0", &pos), Err(CommandError::GoNumber { .. })));
        assert_eq!(parse_go("perft 2 depth 3", &pos), Err(CommandError::PerftMixed));
    }

    #[test]
    fn position_splits_fen_and_moves() {
        let p = parse_position("fen a b c d 0 1 moves e2-IVe4-IV e7-IVe5-IV").unwrap();
        assert_eq!(p.start, Start::Fen("a b c d 0 1".into()));
        assert_eq!(p.moves, ["e2-IVe4-IV", "e7-IVe5-IV"]);
        assert_eq!(parse_position("startpos").unwrap().moves.len(), 0);
        assert_eq!(parse_position("startpos moves").unwrap().start, Start::StartPos);
        assert_eq!(parse_position("startpos e2-IVe4-IV"), Err(CommandError::PositionMoves("e2-IVe4-IV".into())));
        assert_eq!(parse_position(""), Err(CommandError::PositionStart(String::new())));
        assert_eq!(parse_position("start"), Err(CommandError::PositionStart("start".into())));
    }

    #[test]
    fn moves_are_played_atomically_with_history() {
        let pos = play_moves(start(), &["e1-IIf3-II", "e8-IIf6-II", "f3-IIe1-II", "f6-IIe8-II"]).unwrap();
        assert!(pos.repetitions(1));
        let Err(err) = play_moves(start(), &["e2-IVe4-IV", "e2-IVe4-IV"]) else { panic!("played an illegal move") };
        assert_eq!(err.to_string(), "position: move 2 of 2: illegal move 'e2-IVe4-IV'; position unchanged");
    }

    #[test]
    fn standard_messages_must_be_what_the_dispatch_expects() {
        assert_eq!(standard("debug", "debug on|off", "debug on"), Ok(UciMessage::Debug(true)));
        assert!(standard("debug", "debug on|off", "debug maybe").is_err());
        assert!(matches!(standard("setoption", "", "setoption name Hash value 8"), Ok(UciMessage::SetOption { .. })));
        assert!(standard("setoption", "", "setoption Hash 8").is_err());
    }
}
