#!/usr/bin/env python3
"""How often the side ahead went on to win, by score bucket (issue 71's calibration table).

Reads self-play samples (`cubist convert data.bin data.txt`: lines
`GAME ; FEN ; SCORE ; RESULT`, the score in centipawns and the result from
White's view) and match records (`cubist match --pgnout`: each move's
`{+1.23/8 0.1s}` comment is the mover's score), and prints a Markdown table:
for each bucket of the side ahead's score, how many positions, and how
often that side won, drew and lost. In match records only the moves of
the engine named by --engine count (its score, the game's result from its
side); a mate score counts as the last bucket.

Usage: scripts/calibration.py [--engine main] FILE...   (.txt samples, .pgn records)
"""
import argparse
import re
import sys

BUCKETS = [0, 50, 100, 200, 400, 800, 1600]


def bucket(cp):
    """The index of the bucket holding |cp| (cp > 0)."""
    i = 0
    while i + 1 < len(BUCKETS) and cp >= BUCKETS[i + 1]:
        i += 1
    return i


def samples(path):
    """(score of the side ahead, its result: 1, 0.5 or 0) for each sample of a text data set."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(";")]
            if len(parts) < 4:
                continue
            score, result = int(parts[2]), float(parts[3])
            if score > 0:
                yield score, result
            elif score < 0:
                yield -score, 1.0 - result


MOVE_COMMENT = re.compile(r"\{([+-]?)(M?)(\d+(?:\.\d+)?)/\d+[^}]*\}")


def records(path, engine):
    """(score of the side ahead, its result) after each move of `engine` in match records."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for game in re.split(r"\n(?=\[Event )", text):
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]', game, re.M))
        if engine not in (tags.get("White"), tags.get("Black")) or tags.get("Result") not in ("1-0", "0-1", "1/2-1/2"):
            continue
        white_score = {"1-0": 1.0, "0-1": 0.0}.get(tags["Result"], 0.5)
        ours = white_score if tags["White"] == engine else 1.0 - white_score
        # The first mover of the movetext: White unless the FEN says Black.
        fen = tags.get("FEN", "")
        white_first = " b " not in fen
        moves = game[game.rfind("]") + 1:]
        for i, m in enumerate(MOVE_COMMENT.finditer(moves)):
            mover_white = (i % 2 == 0) == white_first
            if (tags["White"] == engine) != mover_white:
                continue
            sign = -1 if m.group(1) == "-" else 1
            cp = 100000 if m.group(2) else round(float(m.group(3)) * 100)
            if cp == 0:
                continue
            yield (cp, ours) if sign > 0 else (cp, 1.0 - ours)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default="main", help="the engine whose scores count in .pgn records")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    counts = [[0, 0, 0] for _ in BUCKETS]
    for path in args.files:
        rows = records(path, args.engine) if path.endswith(".pgn") else samples(path)
        for cp, result in rows:
            c = counts[bucket(cp)]
            c[0 if result == 1.0 else 1 if result == 0.5 else 2] += 1
    print("| side ahead by (cp) | positions | won | drawn | lost |")
    print("|---|---|---|---|---|")
    for i, (w, d, l) in enumerate(counts):
        n = w + d + l
        if n == 0:
            continue
        hi = f"–{BUCKETS[i + 1]}" if i + 1 < len(BUCKETS) else "+"
        print(f"| {BUCKETS[i]}{hi} | {n} | {100 * w / n:.0f}% | {100 * d / n:.0f}% | {100 * l / n:.0f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
