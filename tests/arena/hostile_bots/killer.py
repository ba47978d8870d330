"""Tries to kill PID 1 (its own host), every process it may signal, and a range of pids;
reports what each attempt did."""

import json
import os
import signal
import sys


def attempt(pid, sig):
    try:
        os.kill(pid, sig)
    except OSError as error:
        return type(error).__name__
    return "sent"


reported = False


def play(view):
    global reported
    if reported:
        return min(view.legal)
    reported = True
    report = {
        "kill -9 1": attempt(1, signal.SIGKILL),
        "kill -TERM 1": attempt(1, signal.SIGTERM),
        "kill -9 -1": attempt(-1, signal.SIGKILL),
        "kill -9 2..4096": sorted({attempt(pid, signal.SIGKILL) for pid in range(2, 4097)}),
    }
    child = os.fork()
    if child == 0:  # another process of the container tries too
        try:
            report["child: kill -9 1"] = attempt(1, signal.SIGKILL)
            report["child: kill -9 -1"] = attempt(-1, signal.SIGKILL)
            print("CHILD " + json.dumps(report), file=sys.stderr)
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    print("KILL " + json.dumps(report), file=sys.stderr)
    return min(view.legal)
