#!/usr/bin/env bash
# Profile-guided build of `cubist` (what Stockfish's `make profile-build`
# does): an instrumented build plays a training run (the default `bench`
# and short self-play matches in both games), llvm-profdata merges the
# counts, and a second build lays out and inlines the code by them. The
# same code and the same search trees (the script checks that the bench
# signature is unchanged); 5-8% more nodes/s on earlier sessions' 2-core
# machines, nothing on the AMD one of 3f661d8 (docs/performance.md, "Speed").
#
# Usage: scripts/pgo.sh            -> target/pgo/release/cubist
# Needs rustup's llvm-tools component (installed when missing). RUSTFLAGS,
# when set, replaces .cargo/config.toml's target level as in any cargo build.
set -euo pipefail
cd "$(dirname "$0")/.."
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
sysroot=$(rustc --print sysroot)
host=$(rustc -vV | awk '/^host:/ {print $2}')
profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
  rustup component add llvm-tools
fi
flags=${RUSTFLAGS:-}
if [ -z "$flags" ] && [ "$(uname -m)" = x86_64 ]; then
  flags="-C target-cpu=x86-64-v3"
fi
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT

echo "pgo: instrumented build" >&2
RUSTFLAGS="$flags -C profile-generate=$data/raw" cargo build --release --quiet --target-dir "$target/pgo-gen"
gen="$target/pgo-gen/release/cubist"

echo "pgo: training run" >&2
signature=$("$gen" bench | awk -F': ' '/^Nodes searched/ {print $2}')
for variant in hdc haberkorn; do
  if ! "$gen" match --engine cmd="$gen" name=a --engine cmd="$gen" name=b --each nodes=4000 \
    --variant "$variant" --rounds 2 --random-plies 6 --maxmoves 80 --seed 1 >"$data/match.log" 2>&1; then
    cat "$data/match.log" >&2
    echo "pgo: the $variant training match failed" >&2
    exit 1
  fi
done
"$profdata" merge -o "$data/cubist.profdata" "$data/raw"

echo "pgo: optimized build" >&2
RUSTFLAGS="$flags -C profile-use=$data/cubist.profdata" cargo build --release --quiet --target-dir "$target/pgo"
bin="$target/pgo/release/cubist"
check=$("$bin" bench | awk -F': ' '/^Nodes searched/ {print $2}')
if [ "$check" != "$signature" ]; then
  echo "pgo: bench signature $check differs from the instrumented build's $signature" >&2
  exit 1
fi
echo "pgo: $bin (bench signature $check)" >&2
