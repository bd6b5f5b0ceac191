#!/usr/bin/env bash
# The test ladder (docs/strength.md, "How we test"): a bounded SPRT of one
# git revision of Cubist against another, in each game, ending in a decision.
#
#   scripts/sprt.sh <rev-new> <rev-base>
#
# Builds both revisions in temporary git worktrees (release), then plays
# `cubist match` (built from this checkout) of new against base, one game
# type after the other, each until its SPRT crosses a bound or its game
# budget is spent; then the budget rule decides (accepted when the 95% Elo
# interval's lower end is above ELO0). Prints each game's table and a
# `Decision <game>: accepted|rejected (why)` line. Exit status 0 whatever
# the decision; 1 when a build or a match fails.
# Settings from the environment (defaults in brackets):
#   RUNG [1]: 1 = logic, fixed nodes a move (NODES_HDC [5000], NODES_HABERKORN
#     [10000]); 2 = speed and time, TC [st=0.03] with TIMEMARGIN [100] ms;
#     confirm = the confirmation rung, st=0.1 timemargin=300.
#   TEST [gainer]: gainer = ELO0 0 ELO1 10; nonreg = ELO0 -10 ELO1 0 (ELO0,
#     ELO1 override either); ALPHA [0.05], BETA [0.05], normalized Elo.
#   BUDGET [6000]: games per game type before the budget rule decides.
#   VARIANTS [hdc haberkorn]: the game types, in this order.
#   BOOK [builtin]: the opening book (`builtin` = books/<game>.fen, built in;
#     a file; or `none`: the start position and RANDOM_PLIES [4]).
#   CONCURRENCY [cores]: games at a time (each engine uses one thread).
#   SEED [1], OUT [sprt-<new>-<base>] (writes $OUT-<game>.pgn/.json),
#   EXTRA (more `cubist match` arguments, word-split).
#   NEW_BIN, BASE_BIN: play these engine binaries instead of building the
#     revisions (the arguments then only name them); CUBIST: the runner.
#   NEW_OPTIONS, BASE_OPTIONS: more `--engine` keys of one side (word-split),
#     e.g. "option.EvalFile=none", or a tuned set on a `tune` build.
set -euo pipefail

if [ $# -lt 2 ]; then
    sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORES=$(nproc 2>/dev/null || echo 2)
CONCURRENCY=${CONCURRENCY:-$CORES}
RUNG=${RUNG:-1}
TEST=${TEST:-gainer}
BUDGET=${BUDGET:-6000}
BOOK=${BOOK:-builtin}
SEED=${SEED:-1}
case $TEST in
    gainer) ELO0=${ELO0:-0} ELO1=${ELO1:-10} ;;
    nonreg) ELO0=${ELO0:--10} ELO1=${ELO1:-0} ;;
    *) echo "error: TEST must be gainer or nonreg, not '$TEST'" >&2; exit 2 ;;
esac
case $BUDGET in
    '' | *[!0-9]* | 0*) echo "error: BUDGET must be a whole number of games from 2, not '$BUDGET'" >&2; exit 2 ;;
esac
ROUNDS=$(( BUDGET / 2 ))
[ "$ROUNDS" -ge 1 ] || { echo "error: BUDGET must be at least 2 games (one pair)" >&2; exit 2; }

# The limit a move of `game` gets on this rung.
limit() { # <game>
    case $RUNG in
        1) if [ "$1" = hdc ]; then echo "nodes=${NODES_HDC:-5000}"; else echo "nodes=${NODES_HABERKORN:-10000}"; fi ;;
        2) echo "${TC:-st=0.03} timemargin=${TIMEMARGIN:-100}" ;;
        confirm) echo "st=0.1 timemargin=300" ;;
        *) echo "error: RUNG must be 1, 2 or confirm, not '$RUNG'" >&2; return 2 ;;
    esac
}
for game in ${VARIANTS:-hdc haberkorn}; do
    case $game in hdc | haberkorn) ;; *) echo "error: unknown game '$game' in VARIANTS" >&2; exit 2 ;; esac
    limit "$game" >/dev/null
done

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

if [ -n "${NEW_BIN:-}" ] && [ -n "${BASE_BIN:-}" ]; then
    NEW_NAME=$1 BASE_NAME=$2
else
    NEW_NAME=$(git -C "$ROOT" rev-parse --short "$1^{commit}")
    BASE_NAME=$(git -C "$ROOT" rev-parse --short "$2^{commit}")
    build "$NEW_NAME" "$TMP/new" "$TMP/cubist-new"
    build "$BASE_NAME" "$TMP/base" "$TMP/cubist-base"
    NEW_BIN=$TMP/cubist-new BASE_BIN=$TMP/cubist-base
fi
if [ -z "${CUBIST:-}" ]; then
    echo "building the match runner from $ROOT" >&2
    cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
    CUBIST=$(target_dir "$ROOT")/release/cubist
fi
OUT=${OUT:-sprt-$NEW_NAME-$BASE_NAME}

decisions=()
for game in ${VARIANTS:-hdc haberkorn}; do
    if [ "$BOOK" = none ]; then
        openings=(--random-plies "${RANDOM_PLIES:-4}")
    else
        openings=(--openings "file=$BOOK" order=random --random-plies "${RANDOM_PLIES:-0}")
    fi
    echo "== $game: rung $RUNG ($(limit "$game")), SPRT [$ELO0, $ELO1], budget $BUDGET games, book $BOOK" >&2
    # shellcheck disable=SC2046,SC2086
    "$CUBIST" match \
        --engine cmd="$NEW_BIN" name="new-$NEW_NAME" ${NEW_OPTIONS:-} \
        --engine cmd="$BASE_BIN" name="base-$BASE_NAME" ${BASE_OPTIONS:-} \
        --each $(limit "$game") \
        --variant "$game" "${openings[@]}" \
        --resign movecount=4 score=900 --maxmoves 250 \
        --rounds "$ROUNDS" --concurrency "$CONCURRENCY" --seed "$SEED" \
        --sprt elo0="$ELO0" elo1="$ELO1" alpha="${ALPHA:-0.05}" beta="${BETA:-0.05}" \
        --pgnout "$OUT-$game.pgn" --results-json "$OUT-$game.json" ${EXTRA:-} | tee "$TMP/$game.out"
    line=$(grep '^Decision: ' "$TMP/$game.out" || true)
    [ -n "$line" ] || { echo "error: the $game match printed no decision" >&2; exit 1; }
    decisions+=("Decision $game: ${line#Decision: }")
done
printf '%s\n' "${decisions[@]}"
