#!/usr/bin/env python3
"""A fake UCI engine for the match runner's tests.

Without --wrap it plays a fixed script of hdc pawn moves that are legal
whatever the other fake scripted engine does: White pushes the pawns of
layers I and II, Black those of layers VIII and VII, one rank at a time, so
no line ever opens onto a king (64 moves per side).

With --moves M1,M2,... it plays that game instead, for either side: its
answer is the move after those the position already has (any variant).

With --wrap CMD [ARGS...] it passes everything through to a real engine.

Either way it can inject one fault on its Nth `go` (counted from 1 over the
life of the process): --crash-at N, --illegal-at N, --garbage-at N,
--slow-at N (sleep --sleep seconds first); --noready never answers `isready`
after the first --ready-answers answers; --every repeats the fault on every later
`go`; --fault-once FILE injects a fault only while FILE does not exist
and creates it with the first (an engine restarted after it plays on); --touch FILE appends a line to FILE at start; --error-line writes `info string error: …` before each move;
--score CP adds an `info ... score cp
CP` line before each move.
"""
import argparse
import os
import subprocess
import sys
import threading
import time

FILES = "abcdefgh"


def script(white):
    layers = ["I", "II"] if white else ["VIII", "VII"]
    steps = [(2, 3), (3, 4), (4, 5), (5, 6)] if white else [(7, 6), (6, 5), (5, 4), (4, 3)]
    return [f"{f}{a}-{l}{f}{b}-{l}" for a, b in steps for l in layers for f in FILES]


WHITE, BLACK = script(True), script(False)


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    for opt in ["crash-at", "illegal-at", "garbage-at", "slow-at"]:
        ap.add_argument("--" + opt, type=int, default=0)
    ap.add_argument("--sleep", type=float, default=3.0)
    ap.add_argument("--every", action="store_true", help="fault on every go from N on")
    ap.add_argument("--noready", action="store_true")
    ap.add_argument("--ready-answers", type=int, default=0)
    ap.add_argument("--score", type=int)
    ap.add_argument("--moves", help="a whole game to play, comma-separated")
    ap.add_argument("--fault-once", help="fault only while this file does not exist; the first fault creates it")
    ap.add_argument("--touch", help="append a line to this file (in the working directory) at each start")
    ap.add_argument("--error-line", action="store_true", help="write 'info string error' before each move")
    ap.add_argument("--wrap", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.touch:
        with open(a.touch, "a") as f:
            f.write("start\n")

    child = None
    pending = {"go": 0}
    lock = threading.Lock()

    def hit(n, at):
        if at <= 0 or not (n == at or (a.every and n > at)):
            return False
        if a.fault_once:
            if os.path.exists(a.fault_once):
                return False
            open(a.fault_once, "w").close()
        return True

    def fault_move(n, real):
        if hit(n, a.illegal_at):
            return "a1-Ia8-I"
        if hit(n, a.garbage_at):
            return "banana"
        if hit(n, a.slow_at):
            time.sleep(a.sleep)
        return real

    def answer(n, real):
        if a.error_line:
            out("info string error: the fake's report on go " + str(n))
        if a.score is not None:
            out(f"info depth 1 score cp {a.score} nodes 1 pv {real}")
        out(f"bestmove {fault_move(n, real)}")

    if a.wrap:
        child = subprocess.Popen(a.wrap, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

        def pump():
            for line in child.stdout:
                line = line.strip()
                if line.startswith("bestmove"):
                    with lock:
                        n = pending["go"]
                    parts = line.split()
                    answer(n, parts[1] if len(parts) > 1 else "")
                elif a.score is not None and line.startswith("info") and " score " in line:
                    continue
                else:
                    out(line)
            os._exit(0)

        threading.Thread(target=pump, daemon=True).start()

    def to_child(line):
        child.stdin.write(line + "\n")
        child.stdin.flush()

    ready_answers = 0
    moves = []
    black_to_move_at_start = False
    for raw in sys.stdin:
        line = raw.strip()
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "isready" and a.noready:
            if ready_answers >= a.ready_answers:
                continue
            ready_answers += 1
        if cmd == "go":
            with lock:
                pending["go"] += 1
                n = pending["go"]
            if n == a.crash_at and hit(n, a.crash_at):
                if child:
                    child.kill()
                os._exit(3)
        if child:
            if cmd == "quit":
                to_child(line)
                child.wait()
                return
            to_child(line)
            continue
        if cmd == "uci":
            out("id name fake")
            out("id author cubist tests")
            out("option name Hash type spin default 16 min 1 max 65536")
            out("option name Style type combo default calm var calm var wild")
            out("uciok")
        elif cmd == "isready":
            out("readyok")
        elif cmd == "position":
            moves = words[words.index("moves") + 1:] if "moves" in words else []
            black_to_move_at_start = "fen" in words and words[words.index("fen") + 2] == "b"
        elif cmd == "go" and a.moves is not None:
            game = a.moves.split(",")
            answer(n, game[len(moves)] if len(moves) < len(game) else "0000")
        elif cmd == "go":
            black = (len(moves) % 2 == 1) != black_to_move_at_start
            mine = BLACK if black else WHITE
            i = len(moves) // 2
            answer(n, mine[i] if i < len(mine) else "0000")
        elif cmd == "quit":
            return


if __name__ == "__main__":
    main()
