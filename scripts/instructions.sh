#!/usr/bin/env bash
# Instructions executed by `cubist bench` under valgrind's callgrind, for a
# git revision and the working tree: a count that a shared, noisy machine
# cannot disturb, where nodes/second (scripts/nps.sh) can. Builds the
# revision in a git worktree under a temporary directory (its own target
# directory) and the working tree in its usual one, runs `cubist bench
# depth=<depth>` of each under callgrind once, and prints both node counts (a
# pure speed change keeps them equal), both instruction totals, their
# ratio, and the working tree's most expensive functions (exclusive).
# Fewer instructions need not mean less time where cache misses and
# mispredicted branches dominate: confirm a gain with scripts/nps.sh.
# Usage: scripts/instructions.sh [revision] [depth] [functions]
# e.g.   scripts/instructions.sh main          (bench depth=5, top 15 functions)
#        scripts/instructions.sh HEAD~3 6 25
# INSTR_BASE_TARGET=dir keeps the revision's build between calls.
set -euo pipefail
rev=${1:-main}
depth=${2:-5}
top=${3:-15}
for tool in valgrind callgrind_annotate; do
  if ! command -v "$tool" >/dev/null; then
    echo "error: $tool not found (Debian/Ubuntu: apt-get install valgrind)" >&2
    exit 1
  fi
done
# shellcheck source=scripts/build_pair.sh
source "$(dirname "$0")/build_pair.sh"
build_pair "$rev" "${INSTR_BASE_TARGET:-}"

# One run under callgrind: prints "nodes instructions".
count() {
  local which=$1 bin=$2 args
  args=$(bench_depth_args "$bin" "$depth")
  valgrind --tool=callgrind --callgrind-out-file="$tmp/$which.cg" "$bin" bench "$args" \
    >"$tmp/$which.out" 2>"$tmp/$which.err"
  local nodes instr
  nodes=$(awk -F': *' '/^Nodes searched/ {print $2}' "$tmp/$which.out")
  instr=$(awk '/^summary:/ {print $2}' "$tmp/$which.cg")
  echo "$nodes $instr"
}

echo "running $rev under callgrind (bench depth=$depth) ..." >&2
read -r base_nodes base_instr < <(count base "$base_bin")
echo "running the working tree under callgrind (bench depth=$depth) ..." >&2
read -r tree_nodes tree_instr < <(count tree "$tree_bin")

printf '%-12s %12s %16s\n' build nodes instructions
printf '%-12s %12s %16s\n' "$rev" "$base_nodes" "$base_instr"
printf '%-12s %12s %16s\n' tree "$tree_nodes" "$tree_instr"
printf 'ratio tree/%s: %.4f (%+.1f%%)\n' "$rev" "$(echo "$tree_instr / $base_instr" | bc -l)" \
  "$(echo "($tree_instr / $base_instr - 1) * 100" | bc -l)"
if [ "$base_nodes" != "$tree_nodes" ]; then
  echo "note: the node counts differ, so the trees differ: this is not a pure speed comparison"
fi
echo
echo "the working tree's top $top functions (instructions, exclusive):"
callgrind_annotate "$tmp/tree.cg" 2>/dev/null |
  awk -v n="$top" '/file:function/ {on = 1; next} on && /^ *[0-9]/ && c++ < n' |
  sed -e 's/???://' -e 's/ \[[^]]*\]$//' | cut -c1-150
