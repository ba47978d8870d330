"""Leaves processes behind: a child that sleeps and a double-forked daemon in a session of
its own, both carrying a marker in their command line that the test looks for."""

import os
import subprocess
import sys
import uuid

MARKER = f"cucumbers-leftover-{uuid.uuid4().hex}"
started = False


def play(view):
    global started
    if not started:
        started = True
        sleep = [sys.executable, "-c", "import time; time.sleep(3600)", MARKER]
        subprocess.Popen(sleep, stdin=subprocess.DEVNULL)
        first = os.fork()
        if first == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, sleep)
            os._exit(0)
        os.waitpid(first, 0)
        print(f"MARKER {MARKER}", file=sys.stderr)
    return min(view.legal)
