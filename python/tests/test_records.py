"""Game records: built from boards, written, read back; bad records refused with the library's message."""

import pytest

import cubist
from cubist import Board, Record


def played(variant="hdc", plies=9, **kwargs):
    board = Board(variant, **kwargs)
    for i in range(plies):
        moves = board.legal_moves
        board.push(moves[(i * 13) % len(moves)])
    return board


def test_a_record_of_a_board_round_trips():
    board = played()
    rec = Record(
        board,
        white="alpha",
        black='b "quoted" \\ name',
        event="Test",
        site="here",
        date="2025.01.02",
        round="3.1",
        time_control="10+0.1",
        move_comments=[f"+0.{i}5/{i + 1} 0.101s" for i in range(9)],
        comment="adjourned",
    )
    assert (rec.result, rec.termination) == ("*", "unterminated")
    assert rec.moves == board.move_stack and rec.fen == board.start_fen and rec.variant == "hdc"
    text = rec.write()
    assert '[White "alpha"]' in text and '[PlyCount "9"]' in text and "{adjourned} *" in text
    assert str(rec) == text
    (back,) = cubist.parse_records(text)
    assert back == rec
    assert (back.black, back.comment, back.move_comments) == (rec.black, "adjourned", rec.move_comments)
    assert back.tags["Round"] == "3.1" and list(back.tags)[:3] == ["Event", "Site", "Date"]
    assert back.board() == board and back.board().move_stack == board.move_stack


def test_haberkorn_options_survive_a_record():
    board = played("haberkorn", layers=5, white_layer=2, black_layer=4, en_passant=True, castling=True)
    (back,) = cubist.parse_records(Record(board).write())
    b = back.board()
    assert (b.variant, b.layers, b.white_layer, b.black_layer, b.en_passant, b.castling) == (
        "haberkorn", 5, 2, 4, True, True,
    )
    assert back.tags["Layers"] == "5" and back.tags["WhiteLayer"] == "II"
    assert b.fen() == board.fen()


def test_a_finished_game_takes_the_boards_outcome():
    board = Board.from_fen(
        "8/8/8/8/8/8/8/Q6K|8/8/8/8/8/8/8/8|k7/2Q5/8/8/8/8/8/8 w - - 0 1", "haberkorn", white_layer=1, black_layer=1
    )
    board.push("a1-Ia8-I")
    rec = Record(board, white="w", black="b")
    assert (rec.result, rec.termination) == ("1-0", "checkmate")
    assert rec.date.count(".") == 2 and len(rec.date) == 10
    resigned = Record(played(), result="0-1", termination="resignation")
    assert (resigned.result, resigned.termination) == ("0-1", "resignation")
    with pytest.raises(ValueError, match="result '1-0' is not the board's"):
        Record(played(), result="1-0")


def test_files_of_records(tmp_path):
    recs = [Record(played(plies=n), round=f"{n}.1", date="2025.01.01") for n in (0, 1, 4)]
    path = tmp_path / "games.pgn"
    text = cubist.write_records(recs, path)
    assert path.read_text(encoding="utf-8") == text
    assert cubist.read_records(path) == recs
    assert cubist.read_records(str(path))[2].moves == recs[2].moves
    assert cubist.parse_records("") == []


def test_fields_can_be_changed_and_are_checked():
    rec = Record(played(plies=2))
    rec.white, rec.result, rec.termination, rec.comment = "x", "1/2-1/2", "adjudication: draw", "agreed"
    rec.move_comments = ["a", "b"]
    assert cubist.parse_records(rec.write()) == [rec]
    before = rec.write()
    for field, value, message in [
        ("result", "2-0", "unknown result '2-0'"),
        ("termination", "boredom", "unknown termination 'boredom'"),
        ("white", "a\nb", "line break"),
        ("comment", "a } b", "'}'"),
        ("move_comments", ["one"], "1 move comments for 2 moves"),
    ]:
        with pytest.raises(ValueError, match=message):
            setattr(rec, field, value)
    assert rec.write() == before
    with pytest.raises(ValueError, match="unknown termination"):
        Record(played(), termination="nope")


def test_bad_records_raise_value_error_with_the_librarys_message():
    text = Record(played(plies=1), date="2025.01.01").write()
    first = cubist.parse_records(text)[0].moves[0]
    cases = [
        (text.replace(first, "e2-IVe5-IV"), "bad game record: game 1: move 1 'e2-IVe5-IV' does not replay"),
        (text.replace('[PlyCount "1"]', '[PlyCount "2"]'), "PlyCount 2 but 1 moves"),
        (text.replace("[Result", "[Xesult"), "missing tag Result"),
        (text.replace('[Variant "hdc"]', '[Variant "chess"]'), "bad Variant 'chess'"),
        ("1. e2-IVe4-IV", "line 1: cannot read '1. e2-IVe4-IV'"),
        (text + text.replace('[FEN "', '[FEN "x'), "game 2: bad FEN"),
    ]
    for bad, message in cases:
        with pytest.raises(ValueError, match=message.replace("(", r"\(")):
            cubist.parse_records(bad)
