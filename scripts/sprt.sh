#!/usr/bin/env bash
# SPRT match between two git revisions of Cubist.
#
#   scripts/sprt.sh <rev-new> <rev-base> [tc]
#
# Builds both revisions in temporary git worktrees (release), then runs
# `cubist match` (built from the current checkout) with an SPRT of the new
# revision against the base until a bound is crossed or ROUNDS run out.
# Settings from the environment (defaults in brackets):
#   TC [10+0.1] (or the 3rd argument), ELO0 [0], ELO1 [5], ALPHA [0.05],
#   BETA [0.05], MODEL [normalized], ROUNDS [20000], CONCURRENCY [cores/2, at
#   least 1], VARIANT [hdc], RANDOM_PLIES [4], OUT [sprt-<new>-<base>], EXTRA
#   (more `cubist match` arguments, e.g. "--openings file=book.fen").
# Writes $OUT.pgn and $OUT.json; prints the summary table.
set -euo pipefail

if [ $# -lt 2 ]; then
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
NEW=$1 BASE=$2 TC=${3:-${TC:-10+0.1}}
ROOT=$(git rev-parse --show-toplevel)
NEW_SHA=$(git -C "$ROOT" rev-parse --short "$NEW^{commit}")
BASE_SHA=$(git -C "$ROOT" rev-parse --short "$BASE^{commit}")
CORES=$(nproc 2>/dev/null || echo 2)
CONCURRENCY=${CONCURRENCY:-$(( CORES / 2 > 0 ? CORES / 2 : 1 ))}
OUT=${OUT:-sprt-$NEW_SHA-$BASE_SHA}
TMP=$(mktemp -d)

cleanup() {
    for side in new base; do
        [ -d "$TMP/$side" ] && git -C "$ROOT" worktree remove --force "$TMP/$side" >/dev/null 2>&1 || true
    done
    rm -rf "$TMP"
}
trap cleanup EXIT

# Where cargo puts a checkout's build: CARGO_TARGET_DIR when set (made absolute), else <checkout>/target.
target_dir() { # <checkout>
    if [ -n "${CARGO_TARGET_DIR:-}" ]; then realpath -m "$CARGO_TARGET_DIR"; else echo "$1/target"; fi
}

build() { # <rev> <dir> <binary>
    echo "building $1 in $2" >&2
    git -C "$ROOT" worktree add --detach "$2" "$1" >/dev/null
    cargo build --release --quiet --manifest-path "$2/Cargo.toml"
    cp "$(target_dir "$2")/release/cubist" "$3"
}

build "$NEW_SHA" "$TMP/new" "$TMP/cubist-new"
build "$BASE_SHA" "$TMP/base" "$TMP/cubist-base"
echo "building the match runner from $ROOT" >&2
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"

# shellcheck disable=SC2086
"$(target_dir "$ROOT")/release/cubist" match \
    --engine cmd="$TMP/cubist-new" name="new-$NEW_SHA" \
    --engine cmd="$TMP/cubist-base" name="base-$BASE_SHA" \
    --each tc="$TC" \
    --variant "${VARIANT:-hdc}" --random-plies "${RANDOM_PLIES:-4}" \
    --rounds "${ROUNDS:-20000}" --concurrency "$CONCURRENCY" \
    --sprt elo0="${ELO0:-0}" elo1="${ELO1:-5}" alpha="${ALPHA:-0.05}" beta="${BETA:-0.05}" model="${MODEL:-normalized}" \
    --pgnout "$OUT.pgn" --results-json "$OUT.json" ${EXTRA:-}
