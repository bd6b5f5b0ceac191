#!/usr/bin/env bash
# Runs a command in the background at the lowest priority, in its own
# session and log, so that it yields the CPU to tests and builds:
#
#   scripts/background.sh <log file> <command> [arguments...]
#
# `nice -n 19` alone is not enough where the kernel groups processes by
# session (autogroups): the scheduler shares the CPU fairly between groups
# first, so a niced command in its own session still takes its group's
# share. The command's group is lowered too (`/proc/self/autogroup`), so it
# only gets what the rest of the machine leaves. Prints the process id.
# Resumable commands (`cubist datagen`, `cubist spsa`, `cubist train
# --resume`) carry on when started again with the same arguments.
set -euo pipefail
if [ $# -lt 2 ]; then
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
log=$1
shift
setsid bash -c 'echo 19 > /proc/self/autogroup 2>/dev/null || true; exec nice -n 19 "$@"' background "$@" >>"$log" 2>&1 </dev/null &
echo $!
