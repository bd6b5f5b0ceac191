"""Boards: perft against `cubist perft`, moves and take-backs, 3D-FEN, the game's end, bad input."""

import copy
import re
import subprocess
from pathlib import Path

import pytest

import cubist
from cubist import Board, IllegalMoveError, InvalidMoveError

# (Board arguments, `cubist perft` arguments, perft(1), perft(2)), the numbers
# as `cargo run --release -- perft <depth> <arguments>` prints them.
PERFT = [
    ({}, [], 242, 58564),
    ({"variant": "haberkorn"}, ["--variant", "haberkorn"], 208, 42628),
    ({"variant": "haberkorn", "layers": 3}, ["--variant", "haberkorn", "--layers", "3"], None, 10138),
    (
        {"variant": "haberkorn", "layers": 4, "en_passant": True, "castling": True},
        ["--variant", "haberkorn", "--layers", "4", "--en-passant", "--castling"],
        None,
        19010,
    ),
]


def empty_layers(n):
    return ["8/8/8/8/8/8/8/8"] * n


def fen3(layers, rest):
    """A 3-layer haberkorn FEN from its layers (I first) and the other fields."""
    return "|".join(layers) + " " + rest


MATE = "Q7/8/8/8/8/8/8/7K|8/8/8/8/8/8/8/8|k7/2Q5/8/8/8/8/8/8 b - - 0 1"
STALE = "1Q6/8/8/8/8/8/8/7K|8/8/8/8/8/8/8/8|k7/2Q5/8/8/8/8/8/8 b - - 0 1"
HAB3 = {"variant": "haberkorn", "white_layer": 1, "black_layer": 1}


@pytest.mark.parametrize("kwargs,cli,one,two", PERFT)
def test_perft_of_the_start_positions(kwargs, cli, one, two):
    board = Board(**kwargs)
    if one is not None:
        assert board.perft(1) == one == len(board.legal_moves)
    assert board.perft(2) == two
    assert board.perft(0) == 1
    assert sum(n for _, n in board.divide(2)) == two


@pytest.mark.parametrize("kwargs,cli,one,two", PERFT)
def test_perft_agrees_with_the_binary(cubist_bin, kwargs, cli, one, two):
    board = Board(**kwargs)
    for depth in (1, 2):
        out = subprocess.run(
            [cubist_bin, "perft", str(depth), *cli], capture_output=True, text=True, timeout=60, check=True
        ).stdout
        nodes = int(re.search(r"Nodes searched: (\d+)", out).group(1))
        assert board.perft(depth) == nodes, (cli, depth, out)


def test_push_and_pop_round_trip():
    board = Board()
    start = board.fen()
    played = []
    for _ in range(12):
        move = board.legal_moves[len(played) * 7 % len(board.legal_moves)]
        board.push(move)
        played.append(move)
    assert board.move_stack == played
    assert board.peek() == played[-1]
    assert board.fullmove_number == 7
    for move in reversed(played):
        assert board.pop() == move
    assert board.fen() == start
    assert board == Board()
    with pytest.raises(IndexError):
        board.pop()
    with pytest.raises(IndexError):
        board.peek()


def test_fen_round_trips_in_both_games():
    for kwargs in ({}, {"variant": "haberkorn"}, {"variant": "haberkorn", "layers": 5, "en_passant": True}):
        board = Board(**kwargs)
        for _ in range(6):
            board.push(board.legal_moves[-1])
        again = Board.from_fen(board.fen(), **kwargs)
        assert again.fen() == board.fen()
        assert again.legal_moves == board.legal_moves
        assert again.start_fen == board.fen()
        assert Board(fen=board.fen(), **kwargs).fen() == board.fen()
    # A haberkorn FEN brings its layer count.
    small = Board.from_fen(fen3(["4k3/8/8/8/8/8/8/4K3", "8/8/8/8/8/8/8/8", "8/8/8/8/8/8/8/8"], "w - - 0 1"), "haberkorn")
    assert small.layers == 3 and (small.white_layer, small.black_layer) == (2, 3)


def test_haberkorn_starts_from_the_rules_default_on_every_layer_count():
    """The Python package's door to the setup layers' one default: the start
    positions of tests/data/haberkorn_starts.txt, which the command line, UCI,
    the GUI and the data reader build too."""
    repo = Path(__file__).resolve().parents[2]
    lines = (repo / "tests" / "data" / "haberkorn_starts.txt").read_text().splitlines()
    starts = [line.split(" ; ") for line in lines if line and not line.startswith("#")]
    assert [int(n) for n, _ in starts] == [3, 4, 5, 6, 7, 8]
    for layers, fen in starts:
        assert Board("haberkorn", layers=int(layers)).fen() == fen, layers


def test_board_state_and_options():
    board = Board("haberkorn", layers=6, white_layer=2, black_layer=5, en_passant=True)
    assert (board.variant, board.layers, board.white_layer, board.black_layer) == ("haberkorn", 6, 2, 5)
    assert board.en_passant and not board.castling
    assert board.turn == cubist.WHITE
    assert board.piece_at("e1-II") == "K" and board.piece_at("e8-V") == "k" and board.piece_at("e4-IV") is None
    hdc = Board()
    assert (hdc.variant, hdc.layers, hdc.en_passant, hdc.castling) == ("hdc", 8, True, True)
    assert "Layer VIII" in str(hdc) and hdc.fen() in str(hdc)
    assert eval(repr(board), {"Board": Board}) == board
    assert cubist.GAMES == ["hdc", "haberkorn"]


def test_copies_are_independent():
    board = Board()
    board.push("e2-IVe4-IV")
    for other in (board.copy(), copy.copy(board), copy.deepcopy(board)):
        assert other == board and other.move_stack == ["e2-IVe4-IV"]
        other.push(other.legal_moves[0])
        assert other != board
    assert board.move_stack == ["e2-IVe4-IV"]


def test_checkmate_is_seen_after_a_push():
    # The queen comes to a8-I: mate up the a8 column (the library's own test position).
    before = "8/8/8/8/8/8/8/Q6K|8/8/8/8/8/8/8/8|k7/2Q5/8/8/8/8/8/8 w - - 0 1"
    board = Board.from_fen(before, **HAB3)
    assert not board.is_game_over() and board.result() == "*" and board.outcome() is None
    board.push("a1-Ia8-I")
    assert board.is_check() and board.is_checkmate() and not board.is_stalemate()
    assert board.checkers() == ["a8-I"]
    assert board.legal_moves == []
    outcome = board.outcome()
    assert outcome is not None and outcome == Board.from_fen(MATE, **HAB3).outcome()
    assert (outcome.termination, outcome.winner, outcome.result()) == ("checkmate", "white", "1-0")
    assert board.result() == "1-0" and board.is_game_over()
    mate = Board.from_fen(MATE, **HAB3)
    assert mate.is_checkmate() and mate.fen().split()[:2] == board.fen().split()[:2]


def test_stalemate_and_the_draw_rules():
    stale = Board.from_fen(STALE, **HAB3)
    assert stale.is_stalemate() and not stale.is_checkmate()
    assert (stale.outcome().termination, stale.outcome().winner, stale.result()) == ("stalemate", None, "1/2-1/2")
    e = "8/8/8/8/8/8/8/8"
    dead = Board.from_fen(fen3(["k7/8/8/8/8/8/8/6BK", e, e], "w - - 0 1"), **HAB3)
    assert dead.is_dead_material() and dead.outcome().termination == "dead material"
    fifty = Board.from_fen(fen3(["k7/8/8/8/8/8/8/6RK", e, e], "w - - 100 80"), **HAB3)
    assert fifty.is_fifty_moves() and fifty.outcome().termination == "fifty moves"
    shuffle = Board.from_fen(fen3(["k7/8/8/8/8/8/8/n5NK", e, e], "w - - 0 1"), **HAB3)
    for _ in range(2):
        for m in ["g1-Ih3-I", "a1-Ib3-I", "h3-Ig1-I", "b3-Ia1-I"]:
            assert not shuffle.is_game_over()
            shuffle.push(m)
    assert shuffle.is_threefold_repetition()
    assert (shuffle.outcome().termination, shuffle.result()) == ("threefold repetition", "1/2-1/2")
    shuffle.pop()
    assert not shuffle.is_threefold_repetition()


BAD_MOVES = [
    ("e2-IVe5-IV", IllegalMoveError, "illegal move 'e2-IVe5-IV'"),
    ("e7-IVe5-IV", IllegalMoveError, "illegal move 'e7-IVe5-IV'"),
    ("e2-IVe4-IVq", IllegalMoveError, "e2-IVe4-IVq"),
    ("e2e4", InvalidMoveError, "malformed move 'e2e4'"),
    ("", InvalidMoveError, "malformed move ''"),
    ("e2-IVe4-IX", InvalidMoveError, "e2-IVe4-IX"),
    ("e2-IVe4-IVx", InvalidMoveError, "'x' is not a promotion letter"),
    ("e2-IV e4-IV", InvalidMoveError, "e2-IV e4-IV"),
]


@pytest.mark.parametrize("move,error,message", BAD_MOVES)
def test_bad_moves_raise_and_change_nothing(move, error, message):
    board = Board()
    board.push("e2-IVe4-IV")
    board.push("e7-IVe6-IV")
    before = (board.fen(), board.move_stack, board.copy())
    with pytest.raises(error, match=re.escape(message)) as info:
        board.push(move)
    assert isinstance(info.value, ValueError)
    assert (board.fen(), board.move_stack) == before[:2] and board == before[2]
    assert not board.is_legal(move)


def test_a_layer_beyond_a_small_board_is_refused():
    board = Board("haberkorn", layers=3)
    with pytest.raises(InvalidMoveError, match="e2-IIe4-V"):
        board.push("e2-IIe4-V")
    with pytest.raises(ValueError, match="bad square 'e4-V'"):
        board.piece_at("e4-V")


BAD_FENS = [
    ("", "found 0"),
    ("8/8/8/8/8/8/8/8 w - - 0 1", "hdc needs 8 layers"),
    (Board().fen().replace(" w ", " x "), "'x'"),
    (Board().fen().replace("rnbqkbnr", "rnbqxbnr"), "'x'"),
    (Board().fen().replace("rnbqkbnr", "rnbq1bnr"), "kings"),
    (Board().fen().replace(" 0 1", " 0 -5"), "-5"),
    (Board().fen().replace(" - 0 1", " z9-IV 0 1"), "z9-IV"),
]


@pytest.mark.parametrize("fen,message", BAD_FENS)
def test_bad_fens_raise_value_error_naming_the_fault(fen, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Board.from_fen(fen)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"variant": "chess"}, "unknown game 'chess'"),
        ({"variant": "HDC"}, "unknown game 'HDC'"),
        ({"variant": "haberkorn", "layers": 2}, "3 to 8 layers, not 2"),
        ({"variant": "haberkorn", "layers": 9}, "3 to 8 layers, not 9"),
        ({"variant": "haberkorn", "layers": 10**40}, "layers"),
        ({"variant": "haberkorn", "layers": 4, "white_layer": 5}, "white_layer 5 is not on a board of 4 layers"),
        ({"variant": "haberkorn", "black_layer": 0}, "black_layer 0"),
        ({"variant": "haberkorn", "white_layer": -3}, "white_layer -3"),
        ({"variant": "hdc", "layers": 8}, "layers is a haberkorn option"),
        ({"variant": "hdc", "castling": True}, "castling is a haberkorn option"),
    ],
)
def test_bad_games_and_layers_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Board(**kwargs)


def test_a_fen_and_layers_that_disagree_are_refused():
    fen = Board("haberkorn", layers=5).fen()
    with pytest.raises(ValueError, match="layers 6 but the FEN has 5 layers"):
        Board.from_fen(fen, "haberkorn", layers=6)
    assert Board.from_fen(fen, "haberkorn", layers=5).layers == 5


def test_bad_perft_depths_and_types():
    board = Board()
    with pytest.raises(ValueError, match="depth -1"):
        board.perft(-1)
    with pytest.raises(ValueError, match="depth 0"):
        board.divide(0)
    with pytest.raises(ValueError, match="depth"):
        board.perft(2**70)
    with pytest.raises(TypeError):
        board.perft("2")
    with pytest.raises(TypeError):
        Board("haberkorn", layers="8")


def test_mangled_input_raises_value_error_and_never_panics():
    # PanicException is a BaseException: one here would fail the test, not be caught.
    import random

    rng = random.Random(48)
    alphabet = "KQDRBNPkqdrbnp12345678/|-wb IVXace0:,9"
    starts = [Board().fen(), Board("haberkorn", layers=4, en_passant=True, castling=True).fen()]
    for i in range(3000):
        text = list(rng.choice(starts))
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(text))
            action = rng.randrange(3)
            if action == 0:
                del text[pos]
            elif action == 1:
                text[pos] = rng.choice(alphabet)
            else:
                text.insert(pos, rng.choice(alphabet))
        fen = "".join(text)
        for variant in ("hdc", "haberkorn"):
            try:
                board = Board.from_fen(fen, variant)
            except ValueError:
                continue
            assert Board.from_fen(board.fen(), variant).fen() == board.fen()
            board.perft(1)
    board = Board("haberkorn", layers=3)
    moves = board.legal_moves
    for i in range(3000):
        text = list(rng.choice(moves) + rng.choice(["", "q", "d"]))
        for _ in range(rng.randint(0, 3)):
            text.insert(rng.randrange(len(text) + 1), rng.choice(alphabet + "–"))
        before = board.fen()
        try:
            board.push("".join(text))
            board.pop()
        except ValueError:
            pass
        assert board.fen() == before
