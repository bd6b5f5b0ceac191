#!/usr/bin/env python3
"""Mean search depth at a fixed node count over book positions, with options.

Before a search technique is played on the ladder (docs/strength.md), this
shows whether it fires at the rung's node count at all, and what it does
to the depth the searches reach: a change that leaves every depth as it
was cannot change a fixed-node match, and one that lowers the mean depth
spends nodes that the clock will not give back. Each position is searched
once after `ucinewgame`, with `go nodes N`; the depth of the last `info`
line with a PV counts.

    scripts/depth_probe.py --engine target/release/cubist --variant haberkorn \\
        --nodes 40000 cut_node_reduction_haberkorn=1

Options are `name=value` pairs set by `setoption` (a tune build's tunables
among them); a refused option stops the probe with its error. Prints one
line: the options, the positions' count, the mean depth and the depths.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uci_client import Engine  # noqa: E402


def book_positions(path, count, step):
    """Every `step`-th FEN of the book at `path`, `count` of them."""
    with open(path) as f:
        fens = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    return fens[::step][:count]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="cubist", help="the command that starts Cubist")
    parser.add_argument("--variant", default="haberkorn", choices=["hdc", "haberkorn"])
    parser.add_argument("--nodes", type=int, default=40000, help="nodes a search (rung 1b: 40000)")
    parser.add_argument("--book", help="FEN file (default: books/<variant>.fen of this checkout)")
    parser.add_argument("--count", type=int, default=20, help="positions to search")
    parser.add_argument("--step", type=int, default=4, help="take every step-th book position")
    parser.add_argument("options", nargs="*", help="name=value, set with setoption")
    args = parser.parse_args()
    if args.nodes < 1 or args.count < 1 or args.step < 1:
        parser.error("--nodes, --count and --step must be positive")
    options = []
    for o in args.options:
        name, sep, value = o.partition("=")
        if not sep or not name:
            parser.error(f"option '{o}' is not name=value")
        options.append((name, value))
    book = args.book or os.path.join(root, "books", f"{args.variant}.fen")
    try:
        fens = book_positions(book, args.count, args.step)
    except OSError as e:
        parser.error(f"cannot read the book: {e}")
    if not fens:
        parser.error(f"no positions in {book}")

    engine = Engine(args.engine)
    try:
        engine.set_option("UCI_Variant", args.variant)
        for name, value in options:
            engine.set_option(name, value)
        depths = []
        for fen in fens:
            engine.send("ucinewgame")
            _, _, infos = engine.go(f"fen {fen}", f"nodes {args.nodes}")
            with_pv = [l for l in infos if " pv " in l]
            if not with_pv:
                raise RuntimeError(f"no info line with a PV for {fen}")
            words = with_pv[-1].split()
            depths.append(int(words[words.index("depth") + 1]))
    except (ValueError, RuntimeError) as e:
        print(f"depth_probe: {e}", file=sys.stderr)
        return 2
    finally:
        engine.quit()
    label = " ".join(args.options) or "defaults"
    mean = sum(depths) / len(depths)
    print(f"{label}: {len(depths)} positions, {args.nodes} nodes, mean depth {mean:.2f}, depths {depths}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
