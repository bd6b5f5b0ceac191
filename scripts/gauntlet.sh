#!/usr/bin/env bash
# Cubist against its Strategy baselines (greedy, random) in both variants.
#
#   scripts/gauntlet.sh [tc]
#
# Builds the current checkout (release; CARGO_TARGET_DIR is honoured) and
# plays, for hdc and for haberkorn (all 64 setup-layer constellations, one
# per round: the haberkorn rounds are rounded up to a multiple of 64), a
# gauntlet of Cubist against `option.Strategy=greedy` and `option.Strategy=random`.
# Settings from the environment (defaults in brackets): TC [10+0.1] (or the
# 1st argument), ROUNDS [20 hdc, 64 haberkorn], CONCURRENCY [cores/2, at
# least 1], RANDOM_PLIES [2], OUT [gauntlet], EXTRA (more `cubist match` arguments).
# Writes $OUT-<variant>.pgn and $OUT-<variant>.json; prints a table per variant.
set -euo pipefail

TC=${1:-${TC:-10+0.1}}
ROOT=$(git rev-parse --show-toplevel)
CORES=$(nproc 2>/dev/null || echo 2)
CONCURRENCY=${CONCURRENCY:-$(( CORES / 2 > 0 ? CORES / 2 : 1 ))}
OUT=${OUT:-gauntlet}
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
if [ -n "${CARGO_TARGET_DIR:-}" ]; then TARGET=$(realpath -m "$CARGO_TARGET_DIR"); else TARGET="$ROOT/target"; fi
BIN="$TARGET/release/cubist"

for variant in hdc haberkorn; do
    extra=()
    rounds=${ROUNDS:-20}
    if [ "$variant" = haberkorn ]; then
        extra=(--constellations)
        # One constellation per round: every one of the 64 needs a round.
        rounds=$(( (${ROUNDS:-64} + 63) / 64 * 64 ))
    fi
    echo "== $variant ==" >&2
    # shellcheck disable=SC2086
    "$BIN" match \
        --engine cmd="$BIN" name=cubist \
        --engine cmd="$BIN" name=greedy option.Strategy=greedy \
        --engine cmd="$BIN" name=random option.Strategy=random \
        --gauntlet --each tc="$TC" --variant "$variant" "${extra[@]}" \
        --random-plies "${RANDOM_PLIES:-2}" --rounds "$rounds" --concurrency "$CONCURRENCY" \
        --pgnout "$OUT-$variant.pgn" --results-json "$OUT-$variant.json" ${EXTRA:-}
done
