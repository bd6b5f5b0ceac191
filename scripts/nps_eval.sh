#!/usr/bin/env bash
# Search speed with the built-in networks against the linear evaluation:
# the UCI `bench` of one binary (one thread, 16 MiB, its default depth, both
# games' bench positions) run alternately with `EvalFile default` and
# `EvalFile none`, `runs` times each; prints every run, the medians and the
# ratio (networks / linear). The two evaluations grow different trees, so
# the node counts differ and only the speeds compare. Builds the working
# tree (nice 19) unless a binary is given.
# Usage: scripts/nps_eval.sh [runs] [binary]
# e.g.   scripts/nps_eval.sh 5
set -euo pipefail
runs=${1:-3}
bin=${2:-}
cd "$(dirname "$0")/.."
if [ -z "$bin" ]; then
  nice -n 19 cargo build --release --quiet
  bin=target/release/cubist
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One bench run with EvalFile $1: prints "nodes nps".
bench() {
  printf 'setoption name EvalFile value %s\nbench\nquit\n' "$1" | "$bin" 2>/dev/null |
    awk -F': *' '/^Nodes searched/ {n = $2} /^Nodes\/second/ {s = $2} END {print n, s}'
}
median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }

printf '%-8s %4s %12s %12s\n' eval run nodes nodes/s
for i in $(seq 1 "$runs"); do
  for which in default none; do
    read -r nodes nps < <(bench "$which")
    echo "$nps" >>"$tmp/$which.txt"
    printf '%-8s %4s %12s %12s\n' "$which" "$i" "$nodes" "$nps"
  done
done
net=$(median <"$tmp/default.txt")
lin=$(median <"$tmp/none.txt")
echo
printf 'median nodes/s   networks %12s   linear %12s   ratio %.2f\n' "$net" "$lin" "$(echo "$net / $lin" | bc -l)"
