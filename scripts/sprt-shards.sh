#!/usr/bin/env bash
# One match (an SPRT) split into shards that GNU parallel runs in waves, on
# this machine or over SSH, until `cubist merge` says the SPRT has decided.
#
#   scripts/sprt-shards.sh <shards> <cubist match arguments…>
#
# The match arguments are those of the unsharded match (engines, --each,
# --rounds, --sprt, …) without --shard, --seed, --pgnout and --results-json:
# every shard gets the same seed and its own files. Shards are launched WAVE at
# a time; after each wave all finished shards are merged, and no new wave
# starts once the merged SPRT says H0 or H1 (or every shard has run). A shard
# whose results file is already complete is not played again, so a run that
# was interrupted resumes where it stopped. See docs/sharding.md.
# Settings from the environment (defaults in brackets):
#   CUBIST [built from this checkout] the cubist binary (same path on every machine)
#   OUT [sprt-shards] folder for shard-K.json/.pgn, merged.json and merged.pgn
#   JOBS [cores] shards GNU parallel runs at once per machine (--jobs)
#   WAVE [JOBS, times the machines with SSHLOGINFILE] shards per wave
#   SEED [random, printed] the match seed
#   SSHLOGINFILE: run the shards on these machines (GNU parallel --sshloginfile,
#     one SSH login a line, not ':'); results come back with --return
#   PARALLEL_ARGS: more GNU parallel options (word-split)
# Prints the merged table after every wave (the shards' own output goes to
# $OUT/shards.log); exits 0 when done, 1 when a shard or the merge fails.
set -euo pipefail

if [ $# -lt 3 ]; then
    sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
SHARDS=$1
shift
case $SHARDS in
    '' | *[!0-9]* | 0*) echo "error: <shards> must be a whole number from 1, not '$SHARDS'" >&2; exit 2 ;;
esac
for arg in "$@"; do
    case $arg in
        --shard | -shard | --seed | -seed | -srand | --srand | --pgnout | -pgnout | --results-json | -results-json)
            echo "error: leave $arg to the script: it sets the seed (SEED=…), the shard and the output files of every shard" >&2
            exit 2
            ;;
    esac
done
command -v parallel >/dev/null 2>&1 || { echo "error: GNU parallel is needed (Debian: apt-get install parallel)" >&2; exit 1; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${CUBIST:-}" ]; then
    echo "building cubist in $ROOT" >&2
    cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
    if [ -n "${CARGO_TARGET_DIR:-}" ]; then CUBIST=$(realpath -m "$CARGO_TARGET_DIR")/release/cubist; else CUBIST=$ROOT/target/release/cubist; fi
fi
OUT=$(realpath -m "${OUT:-sprt-shards}")
mkdir -p "$OUT"
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
SEED=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "match seed $SEED, $SHARDS shards, results in $OUT" >&2

# shellcheck disable=SC2206
EXTRA=(${PARALLEL_ARGS:-})
if [ -n "${SSHLOGINFILE:-}" ]; then
    MACHINES=$(grep -cv '^\s*\(#\|$\)' "$SSHLOGINFILE" || true)
    WAVE=${WAVE:-$(( JOBS * (MACHINES > 0 ? MACHINES : 1) ))}
    # Each shard runs in a scratch folder on its machine; its two files come back into $OUT.
    EXTRA+=(--sshloginfile "$SSHLOGINFILE" --workdir ... --cleanup
        --return "$OUT/./shard-{}.json" --return "$OUT/./shard-{}.pgn")
    DEST=.
else
    WAVE=${WAVE:-$JOBS}
    DEST=$OUT
fi

# Whether shard $1 has finished: its results JSON holds all its games (the JSON of
# an interrupted shard holds only its finished game pairs).
shard_done() {
    local f="$OUT/shard-$1.json" games scheduled
    [ -s "$f" ] || return 1
    games=$(grep -m1 -o '"games": *[0-9]*' "$f" | grep -o '[0-9]*$' || true)
    scheduled=$(grep -m1 -o '"scheduled": *[0-9]*' "$f" | grep -o '[0-9]*$' || true)
    [ -n "$games" ] && [ "$games" = "$scheduled" ]
}

# The merged results of every finished shard; sets DECISION (Continue, H0, H1 or none).
merge_finished() {
    local jsons=() pgns=()
    for k in $(seq 1 "$SHARDS"); do
        if shard_done "$k"; then
            jsons+=("$OUT/shard-$k.json")
            pgns+=("$OUT/shard-$k.pgn")
        fi
    done
    [ ${#jsons[@]} -gt 0 ] || return 0
    "$CUBIST" merge "${jsons[@]}" --results-json "$OUT/merged.json" --pgnout "$OUT/merged.pgn" --pgn "${pgns[@]}"
    DECISION=$(grep -o '"decision": *"[A-Za-z0-9]*"' "$OUT/merged.json" | grep -o '[A-Za-z0-9]*"$' | tr -d '"' || true)
    DECISION=${DECISION:-none}
}

DECISION=none
next=1
while :; do
    wave=()
    while [ "$next" -le "$SHARDS" ] && [ ${#wave[@]} -lt "$WAVE" ]; do
        if ! shard_done "$next"; then
            # An interrupted shard is played again from its start.
            rm -f "$OUT/shard-$next.json" "$OUT/shard-$next.pgn" "$OUT/shard-$next.state"
            wave+=("$next")
        fi
        next=$((next + 1))
    done
    if [ ${#wave[@]} -gt 0 ]; then
        echo "wave: shards ${wave[*]} of $SHARDS" >&2
        if ! parallel --quote --jobs "$JOBS" --halt now,fail=1 "${EXTRA[@]}" \
            "$CUBIST" match "$@" --seed "$SEED" --shard "{}/$SHARDS" \
            --results-json "$DEST/shard-{}.json" --pgnout "$DEST/shard-{}.pgn" ::: "${wave[@]}" \
            >>"$OUT/shards.log" 2>&1; then
            tail -n 20 "$OUT/shards.log" >&2
            echo "error: a shard failed (the shards' output is in $OUT/shards.log)" >&2
            exit 1
        fi
    fi
    merge_finished
    if [ "$DECISION" = H0 ] || [ "$DECISION" = H1 ]; then
        echo "SPRT decided ($DECISION): no more shards" >&2
        break
    fi
    [ "$next" -le "$SHARDS" ] || break
done
