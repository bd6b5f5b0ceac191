"""Cubist's 3D chess from Python.

Boards of HyperDimension Chess (``hdc``) and Haberkorn's 3D space chess
(``haberkorn``) with legal moves, 3D-FEN, the game's end and perft; game
records as ``cubist match`` writes them; and :mod:`cubist.engine`, a UCI
engine wrapper shaped like python-chess's ``SimpleEngine``.

The rules are Cubist's own library (the ``cubist._cubist`` extension); the
move text, 3D-FEN and record format are those of the repository's
protocol.md.
"""

from __future__ import annotations

import os
from typing import Iterable, List, Optional, Union

from ._cubist import (
    GAMES,
    Board,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    Record,
    parse_records,
)

__all__ = [
    "GAMES",
    "WHITE",
    "BLACK",
    "Board",
    "IllegalMoveError",
    "InvalidMoveError",
    "Outcome",
    "Record",
    "parse_records",
    "read_records",
    "write_records",
]

__version__ = "0.2.0"

#: The side names :attr:`Board.turn` and :attr:`Outcome.winner` use.
WHITE = "white"
BLACK = "black"


def read_records(path: Union[str, "os.PathLike[str]"]) -> List[Record]:
    """Reads every game record of the file at ``path`` (UTF-8).

    A record that cannot be read, or whose moves do not replay, raises
    ``ValueError`` with the library's message.
    """
    with open(path, encoding="utf-8") as f:
        return parse_records(f.read())


def write_records(records: Iterable[Record], path: Optional[Union[str, "os.PathLike[str]"]] = None) -> str:
    """The records as text, one after the other; also written to ``path`` when given."""
    text = "".join(r.write() for r in records)
    if path is not None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return text
