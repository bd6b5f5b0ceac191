#!/usr/bin/env bash
# Lazy SMP measured on a many-core machine in one short run (issue 34,
# item 3), for a machine that is lent briefly and cannot build the crates:
#
#   scripts/smp_device.sh <cubist binary> <out dir> [match seconds]
#
# 1. `smp_scaling.sh` at 1, 2, 4, 8 and 16 threads (bench depth DEPTH
#    [10], HASH [256] MiB), REPS [3] times: nodes/s and time-to-depth
#    ratios against one thread -> <out>/scaling.txt.
# 2. A match of 8 threads against 1 thread in each game, the two games
#    side by side (at most 16 threads search at once), at TC [st=0.1
#    timemargin=300], stopped by SIGTERM after [match seconds, 240]; the
#    runner keeps every finished game pair -> <out>/smp8-<game>.json/.pgn/.log.
# Prints the scaling tables and each match's last rating lines.
set -euo pipefail

if [ $# -lt 2 ]; then
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
bin=$(realpath "$1")
out=$2
secs=${3:-240}
mkdir -p "$out"
out=$(realpath "$out")
here=$(cd "$(dirname "$0")" && pwd)
echo "machine: $(nproc) cores; binary: $bin" | tee "$out/scaling.txt"
"$bin" bench depth=8 2>&1 | tail -n 3 | tee -a "$out/scaling.txt"

for rep in $(seq "${REPS:-3}"); do
    echo "run $rep" | tee -a "$out/scaling.txt"
    CUBIST="$bin" "$here/smp_scaling.sh" "${DEPTH:-10}" "${HASH:-256}" 1 2 4 8 16 | tee -a "$out/scaling.txt"
done

seed=$(date +%s)
for game in haberkorn hdc; do
    # shellcheck disable=SC2086
    timeout -s TERM "$secs" "$bin" match \
        --engine cmd="$bin" name=threads8 option.Threads=8 option.Hash=256 \
        --engine cmd="$bin" name=threads1 option.Threads=1 option.Hash=256 \
        --each ${TC:-st=0.1 timemargin=300} \
        --variant "$game" --random-plies 4 --resign movecount=4 score=900 --maxmoves 250 \
        --rounds 10000 --seed "$seed" \
        --results-json "$out/smp8-$game.json" --pgnout "$out/smp8-$game.pgn" \
        --report penta=true --scoreinterval 2 --ratinginterval 2 >"$out/smp8-$game.log" 2>&1 &
done
wait || true
for game in haberkorn hdc; do
    echo "== 8 threads against 1, $game"
    grep -E '^(Results of|Elo:)' "$out/smp8-$game.log" | tail -n 2 || echo "no game pair finished"
done
