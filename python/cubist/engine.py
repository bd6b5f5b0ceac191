"""A UCI engine from Python, shaped like python-chess's ``chess.engine.SimpleEngine``.

python-chess cannot drive Cubist (it manages ``UCI_Variant`` itself and
does not read 3D moves); this module speaks protocol.md's UCI dialect:
it sets the game of the :class:`cubist.Board` it is given (``UCI_Variant``
and the ``Haberkorn*`` options), sends ``position fen <start> moves ...``
and ``go ...``, and reads ``info`` and ``bestmove``.

Nothing here waits forever: a reader thread hands the engine's lines to a
queue, every wait has a deadline, and an engine that ends or stays silent
past it raises :class:`EngineTerminatedError` or :class:`EngineTimeoutError`
(both :class:`EngineError`). ::

    import cubist
    from cubist.engine import Limit, SimpleEngine

    board = cubist.Board("haberkorn")
    with SimpleEngine.popen_uci("cubist") as engine:
        result = engine.play(board, Limit(nodes=2000))
        board.push(result.move)
"""

from __future__ import annotations

import dataclasses
import queue
import shlex
import subprocess
import threading
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._cubist import Board

__all__ = [
    "EngineError",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "Limit",
    "Score",
    "PovScore",
    "PlayResult",
    "Option",
    "InfoDict",
    "SimpleEngine",
]

#: Seconds to wait for ``uciok``, ``readyok`` and for the engine to quit.
DEFAULT_TIMEOUT = 10.0

#: Options :meth:`SimpleEngine.play` and :meth:`SimpleEngine.analyse` set from the board and ``multipv``.
MANAGED_OPTIONS = frozenset(
    name.lower()
    for name in (
        "UCI_Variant",
        "HaberkornLayers",
        "HaberkornWhiteLayer",
        "HaberkornBlackLayer",
        "HaberkornEnPassant",
        "HaberkornCastling",
        "MultiPV",
    )
)

#: The information ``analyse`` returns: depth, seldepth, multipv, score
#: (:class:`PovScore`), nodes, nps, hashfull, tbhits, time (seconds), pv (moves),
#: lowerbound/upperbound (True when the score is a bound), string.
InfoDict = Dict[str, Any]


class EngineError(RuntimeError):
    """The engine answered something unexpected, refused a command, or failed."""


class EngineTerminatedError(EngineError):
    """The engine process ended (or was killed) while it was needed."""


class EngineTimeoutError(EngineError, TimeoutError):
    """The engine did not answer within the timeout."""


@dataclasses.dataclass
class Limit:
    """When a search should stop (python-chess's names): ``time`` in seconds
    per move, ``depth`` and ``nodes``, ``mate`` in moves, or clocks in
    seconds (``white_clock``, ``black_clock``, ``white_inc``, ``black_inc``,
    ``remaining_moves``). No limit at all searches until ``stop``, which
    :meth:`SimpleEngine.play` refuses."""

    time: Optional[float] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None
    mate: Optional[int] = None
    white_clock: Optional[float] = None
    black_clock: Optional[float] = None
    white_inc: Optional[float] = None
    black_inc: Optional[float] = None
    remaining_moves: Optional[int] = None

    def go_args(self) -> List[str]:
        """The ``go`` parameters of this limit."""

        def ms(seconds: float) -> str:
            return str(max(0, int(round(seconds * 1000))))

        args: List[str] = []
        conv: Callable[[Any], str]
        for key, value, conv in (
            ("wtime", self.white_clock, ms),
            ("btime", self.black_clock, ms),
            ("winc", self.white_inc, ms),
            ("binc", self.black_inc, ms),
            ("movestogo", self.remaining_moves, str),
            ("movetime", self.time, ms),
            ("depth", self.depth, str),
            ("nodes", self.nodes, str),
            ("mate", self.mate, str),
        ):
            if value is not None:
                if key not in ("wtime", "btime", "winc", "binc", "movetime") and (
                    isinstance(value, bool) or not isinstance(value, int) or value < 0
                ):
                    raise ValueError(f"Limit: {key} must be a whole number 0 or more, not {value!r}")
                args += [key, conv(value)]
        return args

    def seconds(self) -> float:
        """The longest the search may take by its time limits (0 when it has none)."""
        clocks = [c for c in (self.white_clock, self.black_clock) if c is not None]
        return max([self.time or 0.0] + clocks)


@dataclasses.dataclass(frozen=True)
class Score:
    """A score from one side's point of view: centipawns, or mate in ``mate``
    moves (negative: getting mated)."""

    cp: Optional[int] = None
    mate: Optional[int] = None

    def is_mate(self) -> bool:
        """Whether this is a mate score."""
        return self.mate is not None

    def score(self, *, mate_score: Optional[int] = None) -> Optional[int]:
        """Centipawns; a mate as ``mate_score`` minus the moves (None without ``mate_score``)."""
        if self.mate is None:
            return self.cp
        if mate_score is None:
            return None
        return mate_score - self.mate if self.mate > 0 else -mate_score - self.mate

    def __neg__(self) -> "Score":
        return Score(None if self.cp is None else -self.cp, None if self.mate is None else -self.mate)

    def __str__(self) -> str:
        if self.mate is not None:
            return f"#{self.mate:+d}"
        return f"{self.cp:+d}"


@dataclasses.dataclass(frozen=True)
class PovScore:
    """A score as the engine gave it (``relative``: the side to move's view,
    ``turn``) with the other views."""

    relative: Score
    turn: str

    def pov(self, color: str) -> Score:
        """The score from ``color``'s (``"white"`` or ``"black"``) point of view."""
        return self.relative if color == self.turn else -self.relative

    def white(self) -> Score:
        """The score from White's point of view."""
        return self.pov("white")

    def black(self) -> Score:
        """The score from Black's point of view."""
        return self.pov("black")

    def is_mate(self) -> bool:
        """Whether this is a mate score."""
        return self.relative.is_mate()


@dataclasses.dataclass
class PlayResult:
    """What :meth:`SimpleEngine.play` returns: the move (None when the engine
    has none: ``bestmove (none)``), the expected reply and the last info."""

    move: Optional[str]
    ponder: Optional[str] = None
    info: InfoDict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Option:
    """An option the engine announced in its ``uci`` answer."""

    name: str
    type: str
    default: Optional[str]
    min: Optional[int]
    max: Optional[int]
    var: List[str]


def _parse_option(line: str) -> Option:
    """An ``option name <n> type <t> [default <d>] [min <m>] [max <m>] [var <v>]...`` line."""
    words = line.split()[1:]
    keys = {"name", "type", "default", "min", "max", "var"}
    fields: Dict[str, List[str]] = {}
    var: List[str] = []
    key = None
    for w in words:
        if w in keys:
            key = w
            if key == "var":
                var.append("")
            else:
                fields[key] = []
        elif key == "var":
            var[-1] = (var[-1] + " " + w).strip()
        elif key is not None:
            fields[key].append(w)
    text = {k: " ".join(v) for k, v in fields.items()}

    def num(k: str) -> Optional[int]:
        return int(text[k]) if text.get(k, "").lstrip("-").isdigit() else None

    return Option(text.get("name", ""), text.get("type", ""), text.get("default"), num("min"), num("max"), var)


def _parse_info(line: str, turn: str) -> InfoDict:
    """The fields of an ``info`` line (``turn``: the side to move, for the score's point of view)."""
    words = line.split()[1:]
    info: InfoDict = {}
    i = 0
    ints = {"depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "tbhits", "currmovenumber"}
    while i < len(words):
        w = words[i]
        if w == "string":
            info["string"] = " ".join(words[i + 1 :])
            break
        if w == "pv":
            info["pv"] = words[i + 1 :]
            break
        if w in ints and i + 1 < len(words):
            try:
                info[w] = int(words[i + 1])
            except ValueError:
                pass
            i += 2
        elif w == "time" and i + 1 < len(words):
            try:
                info["time"] = int(words[i + 1]) / 1000.0
            except ValueError:
                pass
            i += 2
        elif w == "score" and i + 2 < len(words):
            kind, value = words[i + 1], words[i + 2]
            try:
                score = Score(cp=int(value)) if kind == "cp" else Score(mate=int(value))
                info["score"] = PovScore(score, turn)
            except ValueError:
                pass
            i += 3
        elif w in ("lowerbound", "upperbound"):
            info[w] = True
            i += 1
        else:
            i += 1
    return info


def _variant_options(board: Board) -> List[Tuple[str, str]]:
    """The ``setoption`` name/value pairs that choose ``board``'s game."""
    if board.variant == "hdc":
        return [("UCI_Variant", "hdc")]

    def flag(b: bool) -> str:
        return "true" if b else "false"

    return [
        ("UCI_Variant", "haberkorn"),
        ("HaberkornLayers", str(board.layers)),
        ("HaberkornWhiteLayer", str(board.white_layer)),
        ("HaberkornBlackLayer", str(board.black_layer)),
        ("HaberkornEnPassant", flag(board.en_passant)),
        ("HaberkornCastling", flag(board.castling)),
    ]


_EOF = object()


class SimpleEngine:
    """A UCI engine process, driven synchronously (python-chess's ``SimpleEngine``).

    Start one with :meth:`popen_uci`; use it as a context manager, or call
    :meth:`quit` at the end. ``timeout`` bounds every wait for an answer
    (``uciok``, ``readyok``, ``quit``); a search may take its limit's time
    plus ``timeout``.
    """

    def __init__(self, process: "subprocess.Popen[str]", *, timeout: Optional[float] = DEFAULT_TIMEOUT) -> None:
        self.process = process
        self.timeout = timeout
        #: ``id`` lines of the ``uci`` answer: ``{"name": ..., "author": ...}``.
        self.id: Dict[str, str] = {}
        #: The options the engine announced, by name.
        self.options: Dict[str, Option] = {}
        self._lines: "queue.Queue[object]" = queue.Queue()
        self._sent: Dict[str, str] = {}
        self._game: object = None
        self._in_game = False
        self._closed = False
        self._reader = threading.Thread(target=self._read, name="cubist-engine-reader", daemon=True)
        self._reader.start()
        try:
            self._handshake()
        except BaseException:
            self._kill()
            raise

    @classmethod
    def popen_uci(
        cls,
        command: Union[str, Sequence[str]] = "cubist",
        *,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        **popen_args: Any,
    ) -> "SimpleEngine":
        """Starts ``command`` (a path, a shell-like string or an argument list)
        and does the ``uci`` handshake. ``popen_args`` go to ``subprocess.Popen``
        (``stderr`` defaults to ``DEVNULL``)."""
        args = shlex.split(command) if isinstance(command, str) else list(command)
        popen_args.setdefault("stderr", subprocess.DEVNULL)
        try:
            process = subprocess.Popen(
                args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                **popen_args,
            )
        except OSError as e:
            raise EngineTerminatedError(f"cannot start engine {args!r}: {e}") from e
        return cls(process, timeout=timeout)

    # The process and its lines.

    def _read(self) -> None:
        """The reader thread: every line of the engine's stdout into the queue, then the end."""
        stdout = self.process.stdout
        try:
            if stdout is not None:
                for line in stdout:
                    self._lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        finally:
            self._lines.put(_EOF)
            try:
                if stdout is not None:
                    stdout.close()
            except (OSError, ValueError):
                pass

    def _send(self, line: str) -> None:
        """Writes one command."""
        if self._closed:
            raise EngineTerminatedError("the engine was closed")
        stdin = self.process.stdin
        try:
            assert stdin is not None
            stdin.write(line + "\n")
            stdin.flush()
        except (OSError, ValueError) as e:
            self._kill()
            raise EngineTerminatedError(f"the engine ended (sending {line!r}): {self._exit_text()}") from e

    def _exit_text(self) -> str:
        """How the process ended, for messages."""
        code = self.process.poll()
        if code is None:
            return "still running"
        return f"exit code {code}" if code >= 0 else f"killed by signal {-code}"

    def _recv(self, deadline: Optional[float], waiting_for: str) -> str:
        """The next line, by ``deadline`` (a ``time.monotonic`` value; None: no limit)."""
        if self._closed:
            raise EngineTerminatedError("the engine was closed")
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                item = self._lines.get(timeout=wait)
            except queue.Empty:
                raise EngineTimeoutError(f"the engine did not answer {waiting_for} in time") from None
            if item is _EOF:
                self._lines.put(_EOF)
                try:
                    self.process.wait(timeout=1.0)
                except subprocess.TimeoutExpired:
                    pass
                self._kill()
                raise EngineTerminatedError(f"the engine ended while waiting for {waiting_for}: {self._exit_text()}")
            assert isinstance(item, str)
            return item

    def _deadline(self, extra: float = 0.0) -> Optional[float]:
        """The deadline ``timeout`` (plus ``extra`` seconds) from now."""
        return None if self.timeout is None else time.monotonic() + self.timeout + extra

    def _until(self, command: Optional[str], answer: str, deadline: Optional[float]) -> List[str]:
        """Sends ``command`` and reads lines up to the one that is or starts with ``answer``."""
        if command is not None:
            self._send(command)
        lines = []
        while True:
            line = self._recv(deadline, repr(answer))
            lines.append(line)
            if line == answer or line.startswith(answer + " "):
                return lines

    def _kill(self) -> None:
        """Ends the process at once (nothing more is sent to it)."""
        self._closed = True
        if self.process.poll() is None:
            try:
                self.process.kill()
            except OSError:
                pass
        try:
            self.process.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            pass
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
        except (OSError, ValueError):
            pass

    def _handshake(self) -> None:
        """``uci`` → ``id``, ``option`` lines, ``uciok``; then ``isready``."""
        for line in self._until("uci", "uciok", self._deadline()):
            if line.startswith("id "):
                parts = line.split(None, 2)
                if len(parts) == 3:
                    self.id[parts[1]] = parts[2]
            elif line.startswith("option "):
                opt = _parse_option(line)
                self.options[opt.name] = opt
        self.ping()

    # The public face.

    def ping(self) -> None:
        """``isready`` and waits for ``readyok``; refused commands sent before it raise :class:`EngineError`."""
        lines = self._until("isready", "readyok", self._deadline())
        errors = [l for l in lines if l.startswith("info string error")]
        if errors:
            raise EngineError(errors[0][len("info string ") :])

    def _setoption(self, name: str, value: Any) -> None:
        """``setoption``, unless the engine already has that value from us."""
        if isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = "" if value is None else str(value)
        if self._sent.get(name.lower()) == text:
            return
        self._send(f"setoption name {name}" + (f" value {text}" if text else ""))
        self._sent[name.lower()] = text

    def configure(self, options: Mapping[str, Any]) -> None:
        """Sets options (``{"Hash": 32, "Threads": 2}``); one the engine refuses
        raises :class:`EngineError` with its message. The game's options and
        ``MultiPV`` are managed by :meth:`play` and :meth:`analyse`."""
        for name in options:
            if name.lower() in MANAGED_OPTIONS:
                raise EngineError(f"cannot set {name}: it is set from the board (and analyse's multipv)")
        for name, value in options.items():
            self._sent.pop(name.lower(), None)
            self._setoption(name, value)
        try:
            self.ping()
        except EngineError:
            for name in options:
                self._sent.pop(name.lower(), None)
            raise

    def _prepare(self, board: Board, options: Optional[Mapping[str, Any]], game: object, multipv: int) -> None:
        """The game's options, ``MultiPV``, ``ucinewgame`` for a new game, ``position``."""
        if options:
            self.configure(options)
        for name, value in _variant_options(board):
            self._setoption(name, value)
        if multipv != 1 or any(n.lower() == "multipv" for n in self.options):
            self._setoption("MultiPV", multipv)
        if not self._in_game or game is not self._game:
            self._send("ucinewgame")
            self._game = game
            self._in_game = True
        self.ping()
        moves = board.move_stack
        self._send(f"position fen {board.start_fen}" + (" moves " + " ".join(moves) if moves else ""))

    def _search(
        self,
        board: Board,
        limit: Limit,
        *,
        multipv: int,
        root_moves: Optional[Sequence[str]],
        options: Optional[Mapping[str, Any]],
        game: object,
        timeout: Optional[float],
    ) -> Tuple[List[str], Dict[int, InfoDict]]:
        """Runs one ``go``: (bestmove words, infos by multipv)."""
        if not isinstance(limit, Limit):
            raise TypeError(f"limit must be a Limit, not {type(limit).__name__}")
        go = ["go"] + limit.go_args()
        if len(go) == 1:
            raise ValueError("Limit() without time, depth, nodes, mate or clocks would search forever")
        if root_moves is not None:
            root_moves = list(root_moves)
            for m in root_moves:
                if not board.is_legal(m):
                    raise ValueError(f"root move {m!r} is not legal here")
            if root_moves:
                go += ["searchmoves"] + root_moves
        self._prepare(board, options, game, multipv)
        self._send(" ".join(go))
        wait = self.timeout if timeout is None else timeout
        deadline = None if wait is None else time.monotonic() + limit.seconds() + wait
        turn = board.turn
        infos: Dict[int, InfoDict] = {}
        while True:
            try:
                line = self._recv(deadline, "bestmove")
            except EngineTimeoutError:
                self._stop_or_kill()
                raise
            if line.startswith("info string error"):
                self._recover()
                raise EngineError(line[len("info string ") :])
            if line.startswith("info "):
                info = _parse_info(line, turn)
                if "depth" in info or "score" in info or "pv" in info:
                    infos[info.get("multipv", 1)] = info
            elif line.startswith("bestmove"):
                return line.split()[1:], infos

    def _recover(self) -> None:
        """After a refused ``position`` or ``go``: ``stop`` whatever runs, and ``isready``."""
        self._send("stop")
        self._until("isready", "readyok", self._deadline())

    def _stop_or_kill(self) -> None:
        """After a search went wrong: ``stop`` and a second for its ``bestmove``, else the process is killed."""
        try:
            self._send("stop")
            self._until(None, "bestmove", time.monotonic() + 1.0)
        except EngineError:
            self._kill()

    def play(
        self,
        board: Board,
        limit: Limit,
        *,
        root_moves: Optional[Sequence[str]] = None,
        options: Optional[Mapping[str, Any]] = None,
        game: object = None,
        timeout: Optional[float] = None,
    ) -> PlayResult:
        """The engine's move in ``board``'s position under ``limit``.

        ``game``: any object that stays the same for the moves of one game
        (a new one sends ``ucinewgame``). ``timeout`` (default: the
        engine's) is added to the limit's time. A move that is not legal
        on the board raises :class:`EngineError`."""
        words, infos = self._search(
            board, limit, multipv=1, root_moves=root_moves, options=options, game=game, timeout=timeout
        )
        if not words:
            raise EngineError("bestmove without a move")
        move = None if words[0] == "(none)" else words[0]
        if move is not None and not board.is_legal(move):
            raise EngineError(f"the engine played the illegal move {move!r} in {board.fen()}")
        ponder = words[2] if len(words) >= 3 and words[1] == "ponder" else None
        return PlayResult(move, ponder, infos.get(1, {}))

    def analyse(
        self,
        board: Board,
        limit: Limit,
        *,
        multipv: Optional[int] = None,
        root_moves: Optional[Sequence[str]] = None,
        options: Optional[Mapping[str, Any]] = None,
        game: object = None,
        timeout: Optional[float] = None,
    ) -> Union[InfoDict, List[InfoDict]]:
        """Searches ``board``'s position under ``limit``: the last ``info`` of the
        best line (score, pv, depth, nodes, ...), or with ``multipv`` a list of
        that many lines (fewer if there are fewer moves), best first."""
        if multipv is not None and (isinstance(multipv, bool) or not isinstance(multipv, int) or multipv < 1):
            raise ValueError(f"multipv must be a whole number 1 or more, not {multipv!r}")
        _, infos = self._search(
            board, limit, multipv=multipv or 1, root_moves=root_moves, options=options, game=game, timeout=timeout
        )
        if multipv is None:
            return infos.get(1, {})
        return [infos[k] for k in sorted(infos)][:multipv]

    def quit(self) -> None:
        """``quit``, waits ``timeout`` for the process to end, then kills it."""
        if self._closed:
            return
        try:
            self._send("quit")
        except EngineTerminatedError:
            return
        try:
            self.process.wait(timeout=DEFAULT_TIMEOUT if self.timeout is None else self.timeout)
        except subprocess.TimeoutExpired:
            pass
        self._kill()

    def close(self) -> None:
        """Ends the engine (``quit``, then kill if needed)."""
        self.quit()

    def __enter__(self) -> "SimpleEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()

    def __repr__(self) -> str:
        name = self.id.get("name", "?")
        return f"<SimpleEngine {name!r} pid={self.process.pid}{' closed' if self._closed else ''}>"
