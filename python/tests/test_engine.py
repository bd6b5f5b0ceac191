"""The engine wrapper: a whole game against the real engine, and engines that die, hang or misbehave."""

import sys
import time
from pathlib import Path

import pytest

import cubist
from cubist import Board, Record
from cubist.engine import (
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    Limit,
    PovScore,
    Score,
    SimpleEngine,
)

FAKE = str(Path(__file__).with_name("fake_engine.py"))


def fake(mode, *args, timeout=2.0):
    return SimpleEngine.popen_uci([sys.executable, FAKE, mode, *args], timeout=timeout)


@pytest.mark.parametrize("variant,kwargs", [("hdc", {}), ("haberkorn", {"layers": 5, "en_passant": True})])
def test_an_engine_game_is_played_and_recorded(cubist_bin, variant, kwargs):
    board = Board(variant, **kwargs)
    with SimpleEngine.popen_uci(cubist_bin) as white, SimpleEngine.popen_uci(cubist_bin) as black:
        assert white.id["name"].startswith("Cubist")
        assert "HaberkornLayers" in white.options and white.options["Hash"].min == 1
        white.configure({"Hash": 8})
        comments = []
        while not board.is_game_over() and len(board.move_stack) < 16:
            engine = white if board.turn == cubist.WHITE else black
            result = engine.play(board, Limit(nodes=200), game=board)
            assert result.move in board.legal_moves
            board.push(result.move)
            # A book move (and a move played at once) comes without info.
            if "score" in result.info:
                assert isinstance(result.info["score"], PovScore) and result.info["nodes"] >= 1
                comments.append(f"{result.info['score'].relative}/{result.info['depth']}")
            else:
                comments.append("no info")
        info = white.analyse(board, Limit(depth=2))
        assert info["depth"] == 2 and info["pv"][0] in board.legal_moves
        lines = white.analyse(board, Limit(depth=2), multipv=3)
        assert len(lines) == 3 and [i["multipv"] for i in lines] == [1, 2, 3]
        assert len({i["pv"][0] for i in lines}) == 3
    assert white.process.poll() == 0 and black.process.poll() == 0
    over = board.is_game_over()
    rec = Record(
        board,
        white="cubist",
        black="cubist",
        move_comments=comments,
        result=None if over else "1/2-1/2",
        termination=None if over else "max moves",
    )
    assert cubist.parse_records(rec.write()) == [rec]


def test_the_engine_answers_for_the_boards_game(cubist_bin):
    # Mate in one from Python's board, in a 3-layer haberkorn game.
    board = Board.from_fen(
        "8/8/8/8/8/8/8/Q6K|8/8/8/8/8/8/8/8|k7/2Q5/8/8/8/8/8/8 w - - 0 1", "haberkorn", white_layer=1, black_layer=1
    )
    with SimpleEngine.popen_uci(cubist_bin) as engine:
        info = engine.analyse(board, Limit(depth=3))
        assert info["score"].relative == Score(mate=1) and info["score"].black() == Score(mate=-1)
        move = engine.play(board, Limit(depth=3)).move
        board.push(move)
        assert board.is_checkmate()
        assert engine.play(board, Limit(depth=1)).move is None
        with pytest.raises(EngineError, match="Hash"):
            engine.configure({"Hash": 0})
        with pytest.raises(EngineError, match="UCI_Variant"):
            engine.configure({"UCI_Variant": "hdc"})
        engine.ping()


def test_info_and_bestmove_are_read():
    with fake("ok") as engine:
        assert engine.id == {"name": "Fake ok", "author": "nobody"}
        assert engine.options["UCI_Variant"].var == ["hdc", "haberkorn"]
        result = engine.play(Board(), Limit(time=0.1))
        assert (result.move, result.ponder) == ("e2-IVe4-IV", "e7-IVe5-IV")
        info = result.info
        assert info["score"] == PovScore(Score(mate=-3), "white") and info["upperbound"]
        assert (info["depth"], info["seldepth"], info["nodes"], info["time"], info["pv"]) == (
            1, 2, 10, 0.005, ["e2-IVe4-IV"],
        )
        with pytest.raises(ValueError, match="search forever"):
            engine.play(Board(), Limit())
        with pytest.raises(ValueError, match="depth"):
            engine.play(Board(), Limit(depth=-1))
        with pytest.raises(ValueError, match="root move 'e2-IVe5-IV'"):
            engine.play(Board(), Limit(depth=1), root_moves=["e2-IVe5-IV"])


def test_an_engine_that_cannot_start_or_exits_at_once():
    with pytest.raises(EngineTerminatedError, match="cannot start"):
        SimpleEngine.popen_uci("/nonexistent/engine")
    with pytest.raises(EngineTerminatedError, match="exit code 5"):
        fake("exit")


def test_a_silent_engine_times_out_and_is_killed():
    start = time.monotonic()
    with pytest.raises(EngineTimeoutError, match="uciok") as info:
        fake("silent", timeout=0.5)
    assert isinstance(info.value, EngineError) and isinstance(info.value, TimeoutError)
    assert time.monotonic() - start < 5


def test_an_engine_that_dies_in_a_search():
    engine = fake("die-on-go")
    with pytest.raises(EngineTerminatedError, match="exit code 3"):
        engine.play(Board(), Limit(nodes=100))
    assert engine.process.poll() == 3
    with pytest.raises(EngineTerminatedError):
        engine.ping()
    engine.quit()


def test_an_engine_that_hangs_in_a_search_is_killed():
    engine = fake("hang-on-go", timeout=0.5)
    start = time.monotonic()
    with pytest.raises(EngineTimeoutError, match="bestmove"):
        engine.play(Board(), Limit(time=0.2))
    assert time.monotonic() - start < 8
    assert engine.process.poll() is not None
    with pytest.raises(EngineTerminatedError):
        engine.play(Board(), Limit(nodes=1))


def test_an_engine_that_only_stops_on_stop_stays_usable():
    with fake("stoppable", timeout=0.5) as engine:
        with pytest.raises(EngineTimeoutError):
            engine.play(Board(), Limit(depth=30))
        assert engine.process.poll() is None
        engine.ping()


def test_illegal_moves_and_refused_searches_raise_engine_error():
    with fake("illegal") as engine:
        with pytest.raises(EngineError, match="illegal move 'a1-Ia1-I'"):
            engine.play(Board(), Limit(nodes=1))
    with fake("error-on-go") as engine:
        with pytest.raises(EngineError, match="unknown parameter"):
            engine.play(Board(), Limit(nodes=1))
        engine.ping()


def test_quit_kills_an_engine_that_ignores_it():
    engine = fake("deaf", timeout=0.5)
    engine.quit()
    assert engine.process.poll() is not None
    engine.quit()
