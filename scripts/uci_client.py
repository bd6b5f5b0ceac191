#!/usr/bin/env python3
"""Drive Cubist over UCI from Python, standard library only.

python-chess can start Cubist and read its options and `info` lines, but it
manages `UCI_Variant` itself and cannot parse 3D moves such as
`e2-IVe4-IV`, so its `analyse()` and `play()` do not work with Cubist. This
script is the small client to start from instead (protocol.md, "Scripts in
Python"): it sets the game, sends a position, reads `info` and `bestmove`,
and plays a short engine-against-engine game.

    scripts/uci_client.py --engine cubist --variant haberkorn --plies 10 --depth 3
    scripts/uci_client.py --engine "cargo run --release --" --analyse --depth 6

Each line of the game is printed as `PLY MOVE SCORE` (the mover's score);
`--analyse` prints the `info` lines of one search of the start position.
"""

import argparse
import shlex
import subprocess
import sys
import time


class Engine:
    """One engine process spoken to over UCI."""

    def __init__(self, command, timeout=60.0):
        self.proc = subprocess.Popen(
            shlex.split(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.timeout = timeout
        self.options = []
        self.name = "?"
        for line in self.ask("uci", "uciok"):
            if line.startswith("id name "):
                self.name = line[len("id name "):]
            elif line.startswith("option name "):
                self.options.append(line)

    def send(self, line):
        """Writes one command."""
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def lines_until(self, prefix):
        """Reads lines up to and including the first that starts with `prefix`."""
        deadline = time.monotonic() + self.timeout
        out = []
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the engine ended before '{prefix}': {out[-3:]}")
            line = line.rstrip("\n")
            out.append(line)
            if line.startswith(prefix):
                return out
        raise RuntimeError(f"no '{prefix}' within {self.timeout} s")

    def ask(self, command, answer):
        """Sends `command` and reads up to the line starting with `answer`."""
        self.send(command)
        return self.lines_until(answer)

    def set_option(self, name, value):
        """`setoption`; an `info string error` answer becomes an exception."""
        self.send(f"setoption name {name} value {value}")
        for line in self.ask("isready", "readyok"):
            if line.startswith("info string error"):
                raise ValueError(line)

    def search(self, moves, depth):
        """Searches the start position after `moves`: (best move, last score, info lines)."""
        return self.go("startpos" + (" moves " + " ".join(moves) if moves else ""), f"depth {depth}")

    def go(self, position, limits):
        """`position <position>`, then `go <limits>`: (best move, last score, info lines)."""
        self.send(f"position {position}")
        lines = self.ask(f"go {limits}", "bestmove ")
        infos = [l for l in lines if l.startswith("info depth ")]
        errors = [l for l in lines if l.startswith("info string error")]
        if errors:
            raise ValueError(errors[0])
        score = None
        for info in infos:
            words = info.split()
            if "score" in words:
                i = words.index("score")
                score = " ".join(words[i + 1:i + 3])
        best = lines[-1].split()[1]
        return best, score, infos

    def quit(self):
        """`quit`, and waits for the process."""
        try:
            self.send("quit")
        except BrokenPipeError:
            pass
        self.proc.wait(timeout=self.timeout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="cubist", help="the command that starts Cubist")
    parser.add_argument("--variant", default="hdc", choices=["hdc", "haberkorn"])
    parser.add_argument("--depth", type=int, default=3, help="search depth per move")
    parser.add_argument("--plies", type=int, default=8, help="plies of the engine-against-engine game")
    parser.add_argument("--analyse", action="store_true", help="print one search's info lines instead")
    args = parser.parse_args()

    white = Engine(args.engine)
    white.set_option("UCI_Variant", args.variant)
    if args.analyse:
        best, score, infos = white.search([], args.depth)
        for info in infos:
            print(info)
        print(f"bestmove {best} ({score})")
        white.quit()
        return 0
    black = Engine(args.engine)
    black.set_option("UCI_Variant", args.variant)
    print(f"{white.name} against {black.name}, {args.variant}, depth {args.depth}")
    moves = []
    for ply in range(args.plies):
        mover = white if ply % 2 == 0 else black
        best, score, _ = mover.search(moves, args.depth)
        if best == "(none)":
            print(f"{ply + 1} no legal move: the game is over")
            break
        moves.append(best)
        print(f"{ply + 1} {best} {score}")
    white.quit()
    black.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
