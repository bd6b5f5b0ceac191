#!/usr/bin/env bash
# Self-play data generation's speed beside the search's, in one run of one
# binary: `cubist bench` (one thread, its default depth) and `cubist datagen`
# at 2,000 nodes a move (one thread, a fixed set of games of each game),
# each reporting nodes a second; prints both and their ratio. Run it with
# nothing else busy (pause background runs: `kill -STOP`, then `-CONT`).
# Usage: scripts/datagen_rate.sh [cubist binary] [games of each game]
# e.g.   scripts/datagen_rate.sh target/release/cubist 8
set -euo pipefail
bin=${1:-target/release/cubist}
games=${2:-8}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bench=$("$bin" bench 2>/dev/null | awk -F': *' '/^Nodes\/second/ {print $2}')
echo "bench: $bench nodes/s"
for game in hdc haberkorn; do
  # The summary line: "N games, P positions in S s (X positions/s, Y nodes/s) written to ...".
  line=$("$bin" datagen --out "$tmp/$game.bin" --games "$games" --nodes 2000 --variant "$game" --seed 999 2>&1 |
    grep 'positions/s')
  nps=$(sed -E 's/.* ([0-9]+) nodes\/s.*/\1/' <<<"$line")
  pps=$(sed -E 's/.*\(([0-9]+) positions\/s.*/\1/' <<<"$line")
  echo "datagen $game: $nps nodes/s, $pps positions/s ($(echo "scale=2; $nps / $bench" | bc) of bench)"
done
