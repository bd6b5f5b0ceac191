# Sourced by scripts/nps.sh and scripts/instructions.sh: builds a git
# revision and the working tree apart, for comparing the two.
# `build_pair REV [BASE_TARGET]` checks REV out (detached) in a git worktree
# under a temporary directory `$tmp` (removed on exit, worktree and all),
# builds it into BASE_TARGET (default `$tmp/target`; keep a directory there
# to reuse the build between calls) and the working tree into its usual
# target directory (CARGO_TARGET_DIR is honoured, as cargo does), both at
# nice 19, and sets `$root`, `$base_bin` and `$tree_bin`.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
cleanup() {
  git -C "$root" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

build_pair() {
  local rev=$1 base_target=${2:-$tmp/target}
  git -C "$root" worktree add --detach --quiet "$tmp/base" "$rev"
  echo "building $rev ..." >&2
  (cd "$tmp/base" && CARGO_TARGET_DIR="$base_target" nice -n 19 cargo build --release --quiet)
  echo "building the working tree ..." >&2
  (cd "$root" && nice -n 19 cargo build --release --quiet)
  tree_bin=$(cd "$root" && realpath -m "${CARGO_TARGET_DIR:-target}")/release/cubist
  base_bin=$base_target/release/cubist
}

# `bench_depth_args BIN DEPTH` prints the bench arguments that ask BIN for
# DEPTH (nothing for an empty DEPTH): `depth=DEPTH` where BIN's bench takes
# named arguments (its help names `depth=`), else the lone number (older
# builds, v0.1.0 among them, took `[depth] [threads] [hash]` by position;
# today's order is Stockfish's `[hash] [threads] [depth]`).
bench_depth_args() {
  local bin=$1 depth=$2
  [ -z "$depth" ] && return 0
  if "$bin" bench --help 2>/dev/null | grep -q 'depth='; then
    echo "depth=$depth"
  else
    echo "$depth"
  fi
}
