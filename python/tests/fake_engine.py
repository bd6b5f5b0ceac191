"""A tiny UCI engine that misbehaves on purpose (the first argument says how):

ok          answers everything; `go` plays the first move it was told to play (argv[2])
silent      never answers anything
exit        ends at once, before `uci`
die-on-go   ends (status 3) when a search starts
hang-on-go  prints one info line on `go`, then neither a bestmove nor anything else, even on `stop`
stoppable   searches until `stop`, then answers bestmove
illegal     answers every `go` with a move that is not legal
error-on-go answers `go` with an `info string error` line and no search
deaf        answers as ok but ignores `quit`
"""

import sys
import time

mode = sys.argv[1]
move = sys.argv[2] if len(sys.argv) > 2 else "e2-IVe4-IV"


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


if mode == "exit":
    sys.exit(5)
for line in sys.stdin:
    words = line.split()
    if not words or mode == "silent":
        continue
    cmd = words[0]
    if cmd == "uci":
        say("id name Fake " + mode)
        say("id author nobody")
        say("option name Hash type spin default 16 min 1 max 64")
        say("option name UCI_Variant type combo default hdc var hdc var haberkorn")
        say("uciok")
    elif cmd == "isready":
        say("readyok")
    elif cmd == "quit" and mode != "deaf":
        break
    elif cmd == "go":
        if mode == "die-on-go":
            sys.exit(3)
        if mode == "hang-on-go":
            say("info depth 1 score cp 0 pv " + move)
            while True:
                time.sleep(1)
        if mode == "stoppable":
            for line in sys.stdin:
                if line.strip() == "stop":
                    say("bestmove " + move)
                    break
            continue
        if mode == "error-on-go":
            say("info string error: go: unknown parameter 'x'; no search started")
            continue
        say("info depth 1 seldepth 2 multipv 1 score mate -3 upperbound nodes 10 nps 100 time 5 pv " + move)
        say("bestmove " + ("a1-Ia1-I" if mode == "illegal" else move) + " ponder e7-IVe5-IV")
