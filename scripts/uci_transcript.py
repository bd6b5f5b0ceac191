#!/usr/bin/env python3
"""Runs a UCI session with the cubist binary the way a GUI does (one line at
a time, waiting for the answers) and prints the transcript: lines sent to the
engine start with "> ", every other line is the engine's output.

Used to make the example session in protocol.md:

    cargo build --release
    scripts/uci_transcript.py target/release/cubist < session.txt
"""

import queue
import subprocess
import sys
import threading
import time

QUIET_S = 0.5  # an answer is complete once the engine has been quiet this long
LIMIT_S = 30.0  # the longest one command may keep the engine talking


def main() -> None:
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/cubist"
    proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    lines: "queue.Queue[str | None]" = queue.Queue()

    def read() -> None:
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    ended = False
    for command in sys.stdin.read().splitlines():
        print(f"> {command}")
        proc.stdin.write(command + "\n")
        proc.stdin.flush()
        start = time.monotonic()
        while not ended and time.monotonic() - start < LIMIT_S:
            try:
                line = lines.get(timeout=QUIET_S)
            except queue.Empty:
                break
            if line is None:
                ended = True
            else:
                print(line)
    proc.stdin.close()
    proc.wait(timeout=LIMIT_S)
    while not ended and (line := lines.get()) is not None:
        print(line)
    print(f"(exit status {proc.returncode})")


if __name__ == "__main__":
    main()
