#!/usr/bin/env python3
"""Which endings of few pieces occur: a census of material signatures.

    cubist convert games.bin games.txt
    scripts/material_census.py [--max-pieces 4] games.txt [more.txt ...]

Reads training data in the text format (`GAME ; FEN ; SCORE ; RESULT`, one
position a line: what `cubist convert` writes from `cubist datagen`'s
binary files) and counts, for each game and board, the material signatures
(Syzygy's way: `KQvKR`, the side with more material first, so that an
ending and its colour-swapped twin count together) of the positions with at
most --max-pieces pieces, kings included. Prints them most frequent first,
with their share of all positions read: the order in which endgame tables
of that size pay (docs/endgames.md).
"""

import argparse
import collections
import sys

# Strongest first, as tables write material (src/tb/material.rs).
ORDER = "QDRBNP"
# Rough values, only to put the stronger side first.
VALUE = {"Q": 9, "D": 7, "R": 5, "B": 3, "N": 3, "P": 1}


def side(letters):
    """`K` and a side's pieces, strongest first."""
    return "K" + "".join(sorted(letters, key=ORDER.index))


def signature(board):
    """The material of a FEN's board field, stronger side first, and its piece count."""
    white = [c for c in board if c.isupper() and c != "K"]
    black = [c.upper() for c in board if c.islower() and c != "k"]
    count = len(white) + len(black) + 2
    key = lambda ps: (sum(VALUE[p] for p in ps), side(ps))
    if key(black) > key(white):
        white, black = black, white
    return side(white) + "v" + side(black), count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="text-format data files")
    parser.add_argument("--max-pieces", type=int, default=4, help="count positions of at most this many pieces")
    args = parser.parse_args()
    counts = collections.Counter()
    total = collections.Counter()
    for path in args.files:
        with open(path, encoding="utf-8") as f:
            for line in f:
                fields = [x.strip() for x in line.split(";")]
                if len(fields) < 2 or not fields[1]:
                    continue
                game, board = fields[0], fields[1].split()[0]
                layers = board.count("|") + 1
                where = game if game == "hdc" else f"{game} {layers}"
                total[where] += 1
                material, count = signature(board)
                if count <= args.max_pieces:
                    counts[(where, material, count)] += 1
    if not total:
        sys.exit("no positions read")
    print("| game | ending | pieces | positions | share |")
    print("|---|---|---|---|---|")
    for (where, material, count), n in counts.most_common():
        print(f"| {where} | {material} | {count} | {n} | {100.0 * n / total[where]:.4f}% |")
    for where, n in sorted(total.items()):
        print(f"{where}: {n} positions read", file=sys.stderr)


if __name__ == "__main__":
    main()
