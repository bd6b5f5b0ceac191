#!/usr/bin/env bash
# Search speed of the working tree against a git revision: `cubist bench`
# nodes/second on one thread. Builds the revision in a git worktree under a
# temporary directory (its own target directory) and the working tree in its
# usual target directory (both at nice 19), then runs the two benches
# alternately, `runs` times each, and prints every run, the medians and the
# ratio (tree / revision). Each binary searches its own default bench depth
# unless a depth is given (v0.1.0's default is 10, today's 8; the node counts
# differ, so only speeds compare). Two speeds are shown: the bench's own
# (nodes per wall-clock second) and nodes per CPU second (user + system),
# which a busy machine disturbs less.
# Usage: scripts/nps.sh [revision] [runs] [depth]
# e.g.   scripts/nps.sh                (v0.1.0, 3 runs each, default depths)
#        scripts/nps.sh main 5 6
# NPS_BASE_TARGET=dir keeps the revision's build between calls.
set -euo pipefail
rev=${1:-v0.1.0}
# v0.1.0 is the tag of commit ba4cfe9; a clone without tags still finds it.
if [ "$rev" = v0.1.0 ] && ! git -C "$(dirname "$0")" rev-parse -q --verify "v0.1.0^{commit}" >/dev/null; then
  rev=ba4cfe9
fi
runs=${2:-3}
depth=${3:-}
# shellcheck source=scripts/build_pair.sh
source "$(dirname "$0")/build_pair.sh"
build_pair "$rev" "${NPS_BASE_TARGET:-}"

# One bench run: prints "nodes wall_nps cpu_nps".
bench() {
  local bin=$1 args
  args=$(bench_depth_args "$bin" "$depth")
  # shellcheck disable=SC2086 # an empty depth is no argument
  { TIMEFORMAT='%U %S'; time "$bin" bench $args >"$tmp/out" 2>/dev/null; } 2>"$tmp/time"
  local nodes nps cpu
  nodes=$(awk -F': *' '/^Nodes searched/ {print $2}' "$tmp/out")
  nps=$(awk -F': *' '/^Nodes\/second/ {print $2}' "$tmp/out")
  cpu=$(awk '{print $1 + $2}' "$tmp/time")
  echo "$nodes $nps $(echo "$nodes / $cpu" | bc)"
}

median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }

printf '%-8s %4s %12s %12s %12s\n' build run nodes wall_nps cpu_nps
: >"$tmp/base.txt"
: >"$tmp/tree.txt"
for i in $(seq 1 "$runs"); do
  for which in base tree; do
    bin=$base_bin
    [ "$which" = tree ] && bin=$tree_bin
    read -r nodes nps cpu_nps < <(bench "$bin")
    echo "$nps $cpu_nps" >>"$tmp/$which.txt"
    printf '%-8s %4s %12s %12s %12s\n' "$which" "$i" "$nodes" "$nps" "$cpu_nps"
  done
done

bw=$(cut -d' ' -f1 "$tmp/base.txt" | median)
bc_=$(cut -d' ' -f2 "$tmp/base.txt" | median)
tw=$(cut -d' ' -f1 "$tmp/tree.txt" | median)
tc=$(cut -d' ' -f2 "$tmp/tree.txt" | median)
echo
printf 'median nodes/s   %-12s %12s (wall) %12s (cpu)\n' "$rev" "$bw" "$bc_"
printf 'median nodes/s   %-12s %12s (wall) %12s (cpu)\n' "tree" "$tw" "$tc"
printf 'ratio tree/%-6s %18.2f (wall) %12.2f (cpu)\n' "$rev" "$(echo "$tw / $bw" | bc -l)" "$(echo "$tc / $bc_" | bc -l)"
