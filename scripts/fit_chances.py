#!/usr/bin/env python3
"""Fits the winning-chance curve of `cubist analyse` per game.

    scripts/fit_chances.py DATA.txt

DATA.txt is a `cubist datagen` data set in the text format (`cubist convert
data.bin data.txt`): lines `GAME ; FEN ; SCORE ; RESULT`, the score in
centipawns from White's view and White's result 1, 0.5 or 0. For each game
this finds the slope k of P(White scores) = 1 / (1 + exp(-k * score)) that
minimises the cross-entropy against the results (a ternary search over k on
up to 300,000 positions drawn with a fixed seed) and prints k and the score
worth 75%. The slopes in src/analysis.rs (`chance_slope`) came from
1,618,400 positions of `cubist datagen --nodes 2000 --variant both --seed
4902` (docs/analysis.md).
"""
import math
import random
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    data = {}
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            parts = line.rstrip("\n").split(" ; ")
            if len(parts) != 4:
                continue
            data.setdefault(parts[0], []).append((int(parts[2]), float(parts[3])))
    for game, rows in sorted(data.items()):
        rng = random.Random(1)
        rows = rng.sample(rows, min(len(rows), 300_000))

        def loss(k: float) -> float:
            total = 0.0
            for cp, r in rows:
                p = min(max(1 / (1 + math.exp(-k * cp)), 1e-9), 1 - 1e-9)
                total -= r * math.log(p) + (1 - r) * math.log(1 - p)
            return total / len(rows)

        lo, hi = 1e-4, 2e-2
        for _ in range(40):
            a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            if loss(a) < loss(b):
                hi = b
            else:
                lo = a
        k = (lo + hi) / 2
        print(f"{game}: k={k:.6f} (75% at {math.log(3) / k:.0f} cp) positions={len(rows)} cross-entropy={loss(k):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
