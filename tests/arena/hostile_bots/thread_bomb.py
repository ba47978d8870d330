"""Starts sleeping threads until the process limit says no; reports how far it got."""

import sys
import threading
import time


def play(view):
    started = 0
    while True:
        try:
            threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
        except RuntimeError as error:
            print(f"THREADS {started} then {error}", file=sys.stderr)
            return min(view.legal)
        started += 1
