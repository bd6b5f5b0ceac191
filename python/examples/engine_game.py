#!/usr/bin/env python3
"""Plays Cubist against itself from Python and prints the game record.

    python python/examples/engine_game.py --engine target/release/cubist --variant haberkorn --nodes 2000

The game ends at mate, stalemate, a draw rule, or after --plies plies
(then adjudicated a draw, `max moves`, as `cubist match --maxmoves` does).
"""

import argparse
import sys

import cubist
from cubist.engine import Limit, SimpleEngine


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="cubist", help="the command that starts Cubist")
    parser.add_argument("--variant", default="hdc", choices=cubist.GAMES)
    parser.add_argument("--layers", type=int, help="haberkorn: layers of the board (3 to 8)")
    parser.add_argument("--nodes", type=int, default=1000, help="nodes per move")
    parser.add_argument("--plies", type=int, default=40, help="plies before the game is called a draw")
    args = parser.parse_args()

    options = {"layers": args.layers} if args.layers is not None else {}
    board = cubist.Board(args.variant, **options)
    comments = []
    with SimpleEngine.popen_uci(args.engine) as white, SimpleEngine.popen_uci(args.engine) as black:
        name = white.id.get("name", "?")
        while not board.is_game_over() and len(board.move_stack) < args.plies:
            engine = white if board.turn == cubist.WHITE else black
            result = engine.play(board, Limit(nodes=args.nodes), game=board)
            if result.move is None:
                break
            board.push(result.move)
            info = result.info
            comments.append(f"{info['score'].relative}/{info['depth']}" if "score" in info else "no info")

    over = board.is_game_over()
    record = cubist.Record(
        board,
        white=name,
        black=name,
        event="Python example game",
        site="cubist/python/examples/engine_game.py",
        round="1",
        time_control=f"nodes={args.nodes}",
        result=None if over else "1/2-1/2",
        termination=None if over else "max moves",
        move_comments=comments,
    )
    sys.stdout.write(record.write())
    # What was written reads back the same.
    assert cubist.parse_records(record.write()) == [record]
    return 0


if __name__ == "__main__":
    sys.exit(main())
