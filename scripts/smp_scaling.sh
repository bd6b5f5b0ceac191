#!/usr/bin/env bash
# Lazy SMP scaling on `cubist bench`: nodes/second ratio and time-to-depth
# ratio of N threads against 1 thread, at the same depth and hash.
# Usage: scripts/smp_scaling.sh [depth] [hash_mb] [thread counts...]
# e.g.   scripts/smp_scaling.sh 10 64 1 2        (the default)
#        scripts/smp_scaling.sh 12 256 1 2 4 8 16
# CUBIST=<path> runs that binary instead of building the checkout (a
# machine without the crates, such as a lent many-core machine).
set -euo pipefail
depth=${1:-10}
hash=${2:-64}
shift 2 2>/dev/null || shift $#
threads=("$@")
[ ${#threads[@]} -eq 0 ] && threads=(1 2)
cd "$(dirname "$0")/.."
if [ -n "${CUBIST:-}" ]; then
  bin=$(realpath "$CUBIST")
else
  cargo build --release --quiet
  # CARGO_TARGET_DIR is honoured, as cargo does.
  bin=$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/cubist
fi
base_nps=""; base_ms=""
printf '%8s %12s %14s %10s %10s %12s\n' threads time_ms nodes nps nps_ratio time_ratio
for t in "${threads[@]}"; do
  out=$("$bin" bench depth="$depth" threads="$t" hash="$hash")
  ms=$(awk -F': ' '/^Total time/ {print $2}' <<<"$out")
  nodes=$(awk -F': ' '/^Nodes searched/ {print $2}' <<<"$out")
  nps=$(awk -F': ' '/^Nodes\/second/ {print $2}' <<<"$out")
  if [ -z "$base_nps" ]; then base_nps=$nps; base_ms=$ms; fi
  # awk, not bc: a bare machine may lack bc.
  awk -v t="$t" -v ms="$ms" -v n="$nodes" -v nps="$nps" -v bn="$base_nps" -v bm="$base_ms" \
    'BEGIN { printf "%8s %12s %14s %10s %10.2f %12.2f\n", t, ms, n, nps, nps / bn, ms / bm }'
done
