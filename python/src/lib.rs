//! `cubist._cubist`: the Python face of Cubist's rules library. A [`Board`]
//! of either game (legal moves, make/take back, 3D-FEN, the game's end,
//! perft) and [`Record`], the match runner's game records read and written.
//! Every refusal is a `ValueError` naming what was refused; nothing here
//! panics on input from Python.

use cubist::record::{self, GameRecord, GameResult, Termination};
use cubist::core::{Color, GameState, Move, MoveError, Piece, Position, Square, Undo, Variant, VariantKind};
use pyo3::create_exception;
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt};

create_exception!(
    _cubist,
    InvalidMoveError,
    PyValueError,
    "A move text that is not `<square><square>[promotion]` (a ValueError)."
);
create_exception!(_cubist, IllegalMoveError, PyValueError, "A well-formed move that is not legal here (a ValueError).");

/// The layers' Roman numerals, I (bottom) to VIII.
const ROMAN: [&str; 8] = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII"];

/// The layer counts a haberkorn board may have.
const HABERKORN_LAYERS: std::ops::RangeInclusive<i64> = 3..=8;

/// A library move error as the Python exception of its kind.
fn move_error(e: MoveError) -> PyErr {
    match e {
        MoveError::Malformed { .. } => InvalidMoveError::new_err(e.to_string()),
        MoveError::Illegal(_) => IllegalMoveError::new_err(e.to_string()),
    }
}

/// A whole-number argument `name`, refused with a `ValueError` when it is
/// too large for any board (a `TypeError` when it is no integer).
fn int_arg(name: &str, value: &Bound<'_, PyAny>) -> PyResult<i64> {
    if !value.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!("{name} must be an int, not {}", value.get_type().name()?)));
    }
    value.extract::<i64>().map_err(|_| PyValueError::new_err(format!("{name} {value} is out of range")))
}

/// The options of a game as Python gives them (`None`: the default).
struct VariantArgs<'a, 'py> {
    name: &'a str,
    layers: Option<&'a Bound<'py, PyAny>>,
    white_layer: Option<&'a Bound<'py, PyAny>>,
    black_layer: Option<&'a Bound<'py, PyAny>>,
    en_passant: Option<bool>,
    castling: Option<bool>,
}

impl VariantArgs<'_, '_> {
    /// The variant, on `fen_layers` layers when a FEN gives that many
    /// (haberkorn), refusing unknown games, options hdc does not have,
    /// layer counts outside 3..8 and setup layers off the board.
    fn variant(&self, fen_layers: Option<usize>) -> PyResult<Variant> {
        let kind: VariantKind = self.name.parse().map_err(|_| {
            PyValueError::new_err(format!("unknown game '{}': expected 'hdc' or 'haberkorn'", self.name))
        })?;
        match kind {
            VariantKind::Hdc => {
                let given = [
                    ("layers", self.layers.is_some()),
                    ("white_layer", self.white_layer.is_some()),
                    ("black_layer", self.black_layer.is_some()),
                    ("en_passant", self.en_passant.is_some()),
                    ("castling", self.castling.is_some()),
                ];
                if let Some((name, _)) = given.iter().find(|(_, g)| *g) {
                    return Err(PyValueError::new_err(format!(
                        "{name} is a haberkorn option: hdc always has 8 layers, en passant and castling"
                    )));
                }
                Ok(Variant::hdc())
            }
            VariantKind::Haberkorn => {
                let asked = self.layers.map(|l| int_arg("layers", l)).transpose()?;
                let layers = match (asked, fen_layers) {
                    (Some(a), Some(f)) if a != f as i64 => {
                        return Err(PyValueError::new_err(format!("layers {a} but the FEN has {f} layers")));
                    }
                    (Some(a), _) => a,
                    (None, Some(f)) => f as i64,
                    (None, None) => 8,
                };
                if !HABERKORN_LAYERS.contains(&layers) {
                    return Err(PyValueError::new_err(format!("haberkorn needs 3 to 8 layers, not {layers}")));
                }
                let layers = layers as u8;
                let setup = |name: &str, value: Option<&Bound<'_, PyAny>>| -> PyResult<Option<u8>> {
                    let Some(v) = value else { return Ok(None) };
                    let l = int_arg(name, v)?;
                    if !(1..=i64::from(layers)).contains(&l) {
                        return Err(PyValueError::new_err(format!(
                            "{name} {l} is not on a board of {layers} layers: give 1 to {layers}"
                        )));
                    }
                    Ok(Some(l as u8))
                };
                let white = setup("white_layer", self.white_layer)?;
                let black = setup("black_layer", self.black_layer)?;
                // The rules' defaults for the layer count (`cubist::core::default_setup_layers`).
                Variant::haberkorn_from(
                    layers,
                    white,
                    black,
                    self.en_passant.unwrap_or(false),
                    self.castling.unwrap_or(false),
                )
                .map_err(|e| PyValueError::new_err(e.to_string()))
            }
        }
    }
}

/// The number of `|`-separated layers of a FEN's placement, when 3 to 8.
fn fen_layer_count(fen: &str) -> Option<usize> {
    let n = fen.split_whitespace().next()?.split('|').count();
    HABERKORN_LAYERS.contains(&(n as i64)).then_some(n)
}

/// A side as Python names it.
fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// How a game ended: what ended it and who won (`None`: drawn).
#[pyclass(module = "cubist", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub struct Outcome {
    /// What ended the game, as the `Termination` tag of a record writes it:
    /// `checkmate`, `stalemate`, `threefold repetition`, `fifty moves`, `dead material`.
    #[pyo3(get)]
    pub termination: &'static str,
    /// `"white"` or `"black"`, or `None` for a draw.
    #[pyo3(get)]
    pub winner: Option<&'static str>,
}

#[pymethods]
impl Outcome {
    /// The result text: `1-0`, `0-1` or `1/2-1/2`.
    fn result(&self) -> &'static str {
        match self.winner {
            Some("white") => "1-0",
            Some(_) => "0-1",
            None => "1/2-1/2",
        }
    }

    /// `Outcome(termination='checkmate', winner='white')`.
    fn __repr__(&self) -> String {
        let winner = self.winner.map_or("None".to_string(), |w| format!("'{w}'"));
        format!("Outcome(termination='{}', winner={winner})", self.termination)
    }
}

impl Outcome {
    /// The outcome of a game in `state` with `side` to move, if it is over.
    fn of(state: GameState, side: Color) -> Option<Outcome> {
        let drawn = |termination| Some(Outcome { termination, winner: None });
        match state {
            GameState::Ongoing => None,
            GameState::Checkmate => {
                Some(Outcome { termination: Termination::Checkmate.as_str(), winner: Some(color_name(!side)) })
            }
            GameState::Stalemate => drawn(Termination::Stalemate.as_str()),
            GameState::FiftyMoves => drawn(Termination::FiftyMoves.as_str()),
            GameState::Repetition => drawn(Termination::Repetition.as_str()),
            GameState::DeadMaterial => drawn(Termination::DeadMaterial.as_str()),
        }
    }
}

/// A position of either game with the moves that led to it from its start.
#[pyclass(module = "cubist")]
#[derive(Clone)]
pub struct Board {
    /// The current position (with its history, for the repetition rule).
    pos: Position,
    /// The 3D-FEN the board started from.
    start_fen: String,
    /// The moves played since, with what takes each back.
    stack: Vec<(Move, Undo)>,
}

impl Board {
    /// A board of `variant` from `fen` (its start position when `None`).
    fn build(args: &VariantArgs<'_, '_>, fen: Option<&str>) -> PyResult<Board> {
        let variant = args.variant(fen.and_then(fen_layer_count))?;
        let fen = fen.map_or_else(|| variant.start_fen(), str::to_string);
        let pos = Position::from_fen(&fen, variant).map_err(|e| PyValueError::new_err(format!("bad 3D-FEN: {e}")))?;
        Ok(Board { start_fen: pos.fen(), pos, stack: Vec::new() })
    }

    /// A board of `variant` from `fen` with `moves` played (the library's
    /// own records: their moves replayed once already).
    fn replayed(variant: Variant, fen: &str, moves: &[String]) -> PyResult<Board> {
        let pos = Position::from_fen(fen, variant).map_err(|e| PyValueError::new_err(format!("bad 3D-FEN: {e}")))?;
        let mut board = Board { start_fen: pos.fen(), pos, stack: Vec::new() };
        for m in moves {
            board.push(m)?;
        }
        Ok(board)
    }

    /// The variant's name and options as keyword text for `__repr__`.
    fn variant_args(&self) -> String {
        let v = self.pos.variant();
        match v.kind {
            VariantKind::Hdc => "'hdc'".to_string(),
            VariantKind::Haberkorn => format!(
                "'haberkorn', layers={}, white_layer={}, black_layer={}, en_passant={}, castling={}",
                v.layers,
                v.white_layer + 1,
                v.black_layer + 1,
                if v.en_passant { "True" } else { "False" },
                if v.castling { "True" } else { "False" }
            ),
        }
    }
}

#[pymethods]
impl Board {
    /// The start position of `variant` (`"hdc"` or `"haberkorn"` with its options), or `fen`.
    #[new]
    #[pyo3(signature = (variant = "hdc", *, fen = None, layers = None, white_layer = None, black_layer = None, en_passant = None, castling = None))]
    fn new(
        variant: &str,
        fen: Option<&str>,
        layers: Option<&Bound<'_, PyAny>>,
        white_layer: Option<&Bound<'_, PyAny>>,
        black_layer: Option<&Bound<'_, PyAny>>,
        en_passant: Option<bool>,
        castling: Option<bool>,
    ) -> PyResult<Board> {
        let args = VariantArgs { name: variant, layers, white_layer, black_layer, en_passant, castling };
        Board::build(&args, fen)
    }

    /// The position of a 3D-FEN in `variant` (haberkorn: the layer count comes from the FEN).
    #[staticmethod]
    #[pyo3(signature = (fen, variant = "hdc", *, layers = None, white_layer = None, black_layer = None, en_passant = None, castling = None))]
    fn from_fen(
        fen: &str,
        variant: &str,
        layers: Option<&Bound<'_, PyAny>>,
        white_layer: Option<&Bound<'_, PyAny>>,
        black_layer: Option<&Bound<'_, PyAny>>,
        en_passant: Option<bool>,
        castling: Option<bool>,
    ) -> PyResult<Board> {
        let args = VariantArgs { name: variant, layers, white_layer, black_layer, en_passant, castling };
        Board::build(&args, Some(fen))
    }

    /// The 3D-FEN of the current position.
    fn fen(&self) -> String {
        self.pos.fen()
    }

    /// The 3D-FEN the board started from.
    #[getter]
    fn start_fen(&self) -> String {
        self.start_fen.clone()
    }

    /// The game: `"hdc"` or `"haberkorn"`.
    #[getter]
    fn variant(&self) -> &'static str {
        self.pos.variant().kind.name()
    }

    /// Layers of the board (8 in hdc).
    #[getter]
    fn layers(&self) -> u8 {
        self.pos.variant().layers
    }

    /// Haberkorn: White's setup layer, 1 = I (4 in hdc).
    #[getter]
    fn white_layer(&self) -> u8 {
        self.pos.variant().white_layer + 1
    }

    /// Haberkorn: Black's setup layer, 1 = I (4 in hdc).
    #[getter]
    fn black_layer(&self) -> u8 {
        self.pos.variant().black_layer + 1
    }

    /// Whether en passant is in force (always in hdc).
    #[getter]
    fn en_passant(&self) -> bool {
        self.pos.variant().en_passant
    }

    /// Whether castling is in force (always in hdc).
    #[getter]
    fn castling(&self) -> bool {
        self.pos.variant().castling
    }

    /// The side to move: `"white"` or `"black"`.
    #[getter]
    fn turn(&self) -> &'static str {
        color_name(self.pos.side_to_move())
    }

    /// The full-move number of the current position.
    #[getter]
    fn fullmove_number(&self) -> u32 {
        self.pos.fullmove_number()
    }

    /// Plies since the last capture or pawn move.
    #[getter]
    fn halfmove_clock(&self) -> u16 {
        self.pos.halfmove_clock()
    }

    /// Every legal move, in protocol text, in the generator's order.
    #[getter]
    fn legal_moves(&self) -> Vec<String> {
        self.pos.legal_moves().into_iter().map(|m| m.to_string()).collect()
    }

    /// The moves played since the start, in protocol text.
    #[getter]
    fn move_stack(&self) -> Vec<String> {
        self.stack.iter().map(|(m, _)| m.to_string()).collect()
    }

    /// Whether `move` is well-formed and legal here.
    fn is_legal(&self, r#move: &str) -> bool {
        self.pos.parse_move(r#move).is_ok()
    }

    /// Plays `move` (protocol text); a malformed or illegal one raises a ValueError and changes nothing.
    fn push(&mut self, r#move: &str) -> PyResult<()> {
        let m = self.pos.parse_move(r#move).map_err(move_error)?;
        let undo = self.pos.make(m);
        self.stack.push((m, undo));
        Ok(())
    }

    /// Takes back the last move and returns it; IndexError when none was played.
    fn pop(&mut self) -> PyResult<String> {
        let (m, undo) = self.stack.pop().ok_or_else(|| PyIndexError::new_err("pop from a board without moves"))?;
        self.pos.unmake(m, &undo);
        Ok(m.to_string())
    }

    /// The last move played; IndexError when none was.
    fn peek(&self) -> PyResult<String> {
        self.stack
            .last()
            .map(|(m, _)| m.to_string())
            .ok_or_else(|| PyIndexError::new_err("peek at a board without moves"))
    }

    /// The piece on `square` (`e1-IV`) as its FEN letter (uppercase White), or None.
    fn piece_at(&self, square: &str) -> PyResult<Option<char>> {
        let sq = Square::parse(square, self.pos.variant().layers)
            .map_err(|e| PyValueError::new_err(format!("bad square '{square}': {e}")))?;
        Ok(self.pos.piece_at(sq).map(Piece::letter))
    }

    /// The squares of the pieces giving check to the side to move.
    fn checkers(&self) -> Vec<String> {
        self.pos.checkers().into_iter().map(|sq| sq.to_string()).collect()
    }

    /// Whether the side to move is in check.
    fn is_check(&self) -> bool {
        self.pos.in_check()
    }

    /// Whether the side to move is checkmated.
    fn is_checkmate(&self) -> bool {
        self.pos.in_check() && self.pos.count_legal() == 0
    }

    /// Whether the side to move has no legal move and is not in check.
    fn is_stalemate(&self) -> bool {
        !self.pos.in_check() && self.pos.count_legal() == 0
    }

    /// Whether the position is on the board for the third time (since the last irreversible move).
    fn is_threefold_repetition(&self) -> bool {
        self.pos.is_threefold()
    }

    /// Whether 50 moves by each side passed without a capture or pawn move.
    fn is_fifty_moves(&self) -> bool {
        self.pos.halfmove_clock() >= 100
    }

    /// Whether only K v K, K+N v K or K+B v K remain.
    fn is_dead_material(&self) -> bool {
        self.pos.is_dead_material()
    }

    /// Whether the game has ended by mate, stalemate or an automatic draw.
    fn is_game_over(&self) -> bool {
        self.pos.game_state().is_over()
    }

    /// How the game ended, or None while it goes on (mate and stalemate before the draw rules).
    fn outcome(&self) -> Option<Outcome> {
        Outcome::of(self.pos.game_state(), self.pos.side_to_move())
    }

    /// `1-0`, `0-1`, `1/2-1/2`, or `*` while the game goes on.
    fn result(&self) -> &'static str {
        self.outcome().map_or("*", |o| o.result())
    }

    /// Leaf nodes of the legal move tree `depth` plies deep (as `cubist perft`).
    fn perft(&self, py: Python<'_>, depth: &Bound<'_, PyAny>) -> PyResult<u64> {
        let depth = int_arg("depth", depth)?;
        let depth =
            u32::try_from(depth).map_err(|_| PyValueError::new_err(format!("depth {depth} must be 0 or more")))?;
        let mut pos = self.pos.clone();
        Ok(py.detach(move || cubist::perft::perft(&mut pos, depth)))
    }

    /// Perft split by root move: each legal move with its count at `depth` (≥ 1).
    fn divide(&self, py: Python<'_>, depth: &Bound<'_, PyAny>) -> PyResult<Vec<(String, u64)>> {
        let depth = int_arg("depth", depth)?;
        let depth = u32::try_from(depth)
            .ok()
            .filter(|&d| d >= 1)
            .ok_or_else(|| PyValueError::new_err(format!("depth {depth} must be 1 or more")))?;
        let mut pos = self.pos.clone();
        let split = py.detach(move || cubist::perft::divide(&mut pos, depth));
        Ok(split.into_iter().map(|(m, n)| (m.to_string(), n)).collect())
    }

    /// A copy with the same position and moves.
    fn copy(&self) -> Board {
        self.clone()
    }

    /// `copy.copy(board)`.
    fn __copy__(&self) -> Board {
        self.clone()
    }

    /// `copy.deepcopy(board)`.
    fn __deepcopy__(&self, _memo: &Bound<'_, PyDict>) -> Board {
        self.clone()
    }

    /// Equal when the positions (history included), start and moves agree.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Board>().is_ok_and(|o| {
            let o = o.borrow();
            self.pos == o.pos && self.start_fen == o.start_fen && self.move_stack() == o.move_stack()
        })
    }

    /// Every layer as an 8×8 diagram, the top layer first (`.` empty, FEN letters), then the FEN.
    fn __str__(&self) -> String {
        let mut s = String::new();
        for z in (0..self.pos.variant().layers).rev() {
            s.push_str(&format!("Layer {}\n", ROMAN[z as usize]));
            for y in (0..8).rev() {
                let row: Vec<String> = (0..8)
                    .map(|x| self.pos.piece_at(Square::new(x, y, z)).map_or('.', Piece::letter).to_string())
                    .collect();
                s.push_str(&format!("  {} {}\n", y + 1, row.join(" ")));
            }
            s.push_str("    a b c d e f g h\n\n");
        }
        s.push_str(&format!("Fen: {}\nSide to move: {}", self.pos.fen(), self.turn()));
        s
    }

    /// `Board.from_fen('<fen>', 'haberkorn', layers=…, …)`.
    fn __repr__(&self) -> String {
        format!("Board.from_fen('{}', {})", self.pos.fen(), self.variant_args())
    }
}

/// One game record: tags, moves with their comments, result and a closing comment.
#[pyclass(module = "cubist")]
#[derive(Clone)]
pub struct Record {
    /// The library's record.
    rec: GameRecord,
}

/// The result texts records take.
const RESULTS: [GameResult; 4] =
    [GameResult::WhiteWins, GameResult::BlackWins, GameResult::Draw, GameResult::Unfinished];

/// The result of its text (`1-0`, `0-1`, `1/2-1/2`, `*`).
fn parse_result(text: &str) -> PyResult<GameResult> {
    RESULTS
        .into_iter()
        .find(|r| r.as_str() == text)
        .ok_or_else(|| PyValueError::new_err(format!("unknown result '{text}': expected one of 1-0, 0-1, 1/2-1/2, *")))
}

/// The termination of its tag text (`checkmate`, `adjudication: draw`, …).
fn parse_termination(text: &str) -> PyResult<Termination> {
    text.parse().map_err(|_| {
        let names: Vec<&str> = Termination::ALL.iter().map(|t| t.as_str()).collect();
        PyValueError::new_err(format!("unknown termination '{text}': expected one of {}", names.join(", ")))
    })
}

/// A tag value or comment `what`, refused when it holds a line break (or,
/// for comments, a `}`): the record could not be read back.
fn check_text(what: &str, text: &str, comment: bool) -> PyResult<()> {
    if text.contains(['\n', '\r']) {
        return Err(PyValueError::new_err(format!("{what} {text:?} holds a line break")));
    }
    if comment && text.contains('}') {
        return Err(PyValueError::new_err(format!("{what} {text:?} holds a '}}', which ends a comment")));
    }
    Ok(())
}

/// A library record error as a `ValueError` with its message.
fn record_error(e: record::RecordError) -> PyErr {
    PyValueError::new_err(format!("bad game record: {e}"))
}

/// An empty unfinished hdc record read from text, whose fields a new
/// [`Record`] then replaces one by one: the library builds it, so fields it
/// gains later start as a record read back without them does.
fn blank_record() -> PyResult<GameRecord> {
    let text = format!(
        "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n\
         [Result \"*\"]\n[Variant \"hdc\"]\n[SetUp \"1\"]\n[FEN \"{}\"]\n[TimeControl \"-\"]\n\
         [Termination \"unterminated\"]\n[PlyCount \"0\"]\n\n*\n",
        Variant::hdc().start_fen()
    );
    let mut recs = record::parse_records(&text).map_err(|e| PyRuntimeError::new_err(format!("blank record: {e}")))?;
    recs.pop().ok_or_else(|| PyRuntimeError::new_err("blank record: nothing read"))
}

#[pymethods]
impl Record {
    /// The record of the game played on `board` (its start FEN and moves).
    /// `result` and `termination` default to the board's outcome (`*`,
    /// `unterminated` while the game goes on); a result the board does not
    /// show needs its termination. `date` defaults to today (UTC).
    #[new]
    #[pyo3(signature = (board, *, white = "?", black = "?", event = "?", site = "?", date = None, round = "?", result = None, termination = None, time_control = "-", move_comments = None, comment = ""))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        board: &Board,
        white: &str,
        black: &str,
        event: &str,
        site: &str,
        date: Option<&str>,
        round: &str,
        result: Option<&str>,
        termination: Option<&str>,
        time_control: &str,
        move_comments: Option<Vec<String>>,
        comment: &str,
    ) -> PyResult<Record> {
        let outcome = board.outcome();
        let result = match result {
            Some(r) => parse_result(r)?,
            None => parse_result(outcome.as_ref().map_or("*", |o| o.result()))?,
        };
        let termination = match (termination, &outcome) {
            (Some(t), _) => parse_termination(t)?,
            (None, Some(o)) if o.result() == result.as_str() => parse_termination(o.termination)?,
            (None, _) if result == GameResult::Unfinished => Termination::Unterminated,
            (None, _) => {
                return Err(PyValueError::new_err(format!(
                    "result '{}' is not the board's ({}): give its termination",
                    result.as_str(),
                    board.result()
                )));
            }
        };
        let mut r = Record { rec: blank_record()? };
        r.set_white(white)?;
        r.set_black(black)?;
        r.set_event(event)?;
        r.set_site(site)?;
        r.set_date(&date.map_or_else(record::today, str::to_string))?;
        r.set_round(round)?;
        r.set_time_control(time_control)?;
        r.set_comment(comment)?;
        r.rec.result = result;
        r.rec.termination = termination;
        r.rec.variant = *board.pos.variant();
        r.rec.fen = board.start_fen.clone();
        r.rec.moves = board.move_stack();
        r.set_move_comments(move_comments.unwrap_or_default())?;
        Ok(r)
    }

    /// The tags in the order they are written (name → value).
    #[getter]
    fn tags<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, value) in self.rec.tags() {
            d.set_item(name, value)?;
        }
        Ok(d)
    }

    /// The `Event` tag.
    #[getter]
    fn event(&self) -> String {
        self.rec.event.clone()
    }

    /// Sets the `Event` tag.
    #[setter]
    fn set_event(&mut self, value: &str) -> PyResult<()> {
        check_text("Event", value, false)?;
        self.rec.event = value.to_string();
        Ok(())
    }

    /// The `Site` tag.
    #[getter]
    fn site(&self) -> String {
        self.rec.site.clone()
    }

    /// Sets the `Site` tag.
    #[setter]
    fn set_site(&mut self, value: &str) -> PyResult<()> {
        check_text("Site", value, false)?;
        self.rec.site = value.to_string();
        Ok(())
    }

    /// The `Date` tag, `YYYY.MM.DD`.
    #[getter]
    fn date(&self) -> String {
        self.rec.date.clone()
    }

    /// Sets the `Date` tag.
    #[setter]
    fn set_date(&mut self, value: &str) -> PyResult<()> {
        check_text("Date", value, false)?;
        self.rec.date = value.to_string();
        Ok(())
    }

    /// The `Round` tag.
    #[getter]
    fn round(&self) -> String {
        self.rec.round.clone()
    }

    /// Sets the `Round` tag.
    #[setter]
    fn set_round(&mut self, value: &str) -> PyResult<()> {
        check_text("Round", value, false)?;
        self.rec.round = value.to_string();
        Ok(())
    }

    /// White's name.
    #[getter]
    fn white(&self) -> String {
        self.rec.white.clone()
    }

    /// Sets White's name.
    #[setter]
    fn set_white(&mut self, value: &str) -> PyResult<()> {
        check_text("White", value, false)?;
        self.rec.white = value.to_string();
        Ok(())
    }

    /// Black's name.
    #[getter]
    fn black(&self) -> String {
        self.rec.black.clone()
    }

    /// Sets Black's name.
    #[setter]
    fn set_black(&mut self, value: &str) -> PyResult<()> {
        check_text("Black", value, false)?;
        self.rec.black = value.to_string();
        Ok(())
    }

    /// The result: `1-0`, `0-1`, `1/2-1/2` or `*`.
    #[getter]
    fn result(&self) -> &'static str {
        self.rec.result.as_str()
    }

    /// Sets the result (one of the four texts).
    #[setter]
    fn set_result(&mut self, value: &str) -> PyResult<()> {
        self.rec.result = parse_result(value)?;
        Ok(())
    }

    /// The `Termination` tag: `checkmate`, `time forfeit`, `adjudication: draw`, ….
    #[getter]
    fn termination(&self) -> &'static str {
        self.rec.termination.as_str()
    }

    /// Sets the `Termination` tag (one the library knows).
    #[setter]
    fn set_termination(&mut self, value: &str) -> PyResult<()> {
        self.rec.termination = parse_termination(value)?;
        Ok(())
    }

    /// The `TimeControl` tag.
    #[getter]
    fn time_control(&self) -> String {
        self.rec.time_control.clone()
    }

    /// Sets the `TimeControl` tag.
    #[setter]
    fn set_time_control(&mut self, value: &str) -> PyResult<()> {
        check_text("TimeControl", value, false)?;
        self.rec.time_control = value.to_string();
        Ok(())
    }

    /// The game: `"hdc"` or `"haberkorn"` (the options are on [`Record::board`]).
    #[getter]
    fn variant(&self) -> &'static str {
        self.rec.variant.kind.name()
    }

    /// The 3D-FEN the game started from.
    #[getter]
    fn fen(&self) -> String {
        self.rec.fen.clone()
    }

    /// The moves in protocol text.
    #[getter]
    fn moves(&self) -> Vec<String> {
        self.rec.moves.clone()
    }

    /// What the mover said with each move (`+0.35/12 0.101s`): one per move, or an empty list.
    #[getter]
    fn move_comments(&self) -> Vec<String> {
        self.rec.move_comments.clone()
    }

    /// Sets the move comments: one per move, or an empty list.
    #[setter]
    fn set_move_comments(&mut self, value: Vec<String>) -> PyResult<()> {
        if !value.is_empty() && value.len() != self.rec.moves.len() {
            return Err(PyValueError::new_err(format!(
                "{} move comments for {} moves: give one per move or none",
                value.len(),
                self.rec.moves.len()
            )));
        }
        for c in &value {
            check_text("move comment", c, true)?;
        }
        self.rec.move_comments = value;
        Ok(())
    }

    /// The comment after the moves (the referee's reason), may be empty.
    #[getter]
    fn comment(&self) -> String {
        self.rec.comment.clone()
    }

    /// Sets the comment after the moves.
    #[setter]
    fn set_comment(&mut self, value: &str) -> PyResult<()> {
        check_text("comment", value, true)?;
        self.rec.comment = value.to_string();
        Ok(())
    }

    /// The board at the end of the game (its moves on the move stack).
    fn board(&self) -> PyResult<Board> {
        Board::replayed(self.rec.variant, &self.rec.fen, &self.rec.moves)
    }

    /// The record as text, as `cubist match` writes it (ends with a blank line).
    fn write(&self) -> PyResult<String> {
        let mut out = Vec::new();
        self.rec.write(&mut out).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        String::from_utf8(out).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// The record as text.
    fn __str__(&self) -> PyResult<String> {
        self.write()
    }

    /// `<Record a vs b 1-0 (checkmate), 41 moves>`.
    fn __repr__(&self) -> String {
        format!(
            "<Record {} vs {} {} ({}), {} moves>",
            self.rec.white,
            self.rec.black,
            self.rec.result.as_str(),
            self.rec.termination.as_str(),
            self.rec.moves.len()
        )
    }

    /// Equal when every field agrees.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Record>().is_ok_and(|o| self.rec == o.borrow().rec)
    }
}

/// Reads every record of `text` and replays its moves; a bad record raises ValueError.
#[pyfunction]
fn parse_records(text: &str) -> PyResult<Vec<Record>> {
    let recs = record::parse_records(text).map_err(record_error)?;
    Ok(recs.into_iter().map(|rec| Record { rec }).collect())
}

/// The native module: `Board`, `Outcome`, `Record`, `parse_records` and the move errors.
#[pymodule]
fn _cubist(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let missing = cubist::cpu::missing_features();
    if !missing.is_empty() {
        return Err(pyo3::exceptions::PyImportError::new_err(format!(
            "this build of cubist uses {} and this processor lacks it; reinstall it for plain x86-64 with \
             RUSTFLAGS=\"-C target-cpu=x86-64\" pip install ./python",
            missing.join(", ")
        )));
    }
    m.add_class::<Board>()?;
    m.add_class::<Outcome>()?;
    m.add_class::<Record>()?;
    m.add_function(wrap_pyfunction!(parse_records, m)?)?;
    m.add("InvalidMoveError", m.py().get_type::<InvalidMoveError>())?;
    m.add("IllegalMoveError", m.py().get_type::<IllegalMoveError>())?;
    m.add("GAMES", VariantKind::NAMES.to_vec())?;
    Ok(())
}
