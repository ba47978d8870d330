"""Forks until the process limit says no: every child forks again, then sleeps forever (so
the host still answers). Reports how far it got."""

import os
import sys
import time


def bomb():
    made = 0
    while True:
        try:
            pid = os.fork()
        except OSError as error:
            return made, error
        if pid == 0:  # a child: fork on, then sleep forever holding its pid
            try:
                bomb()
            finally:
                while True:
                    time.sleep(3600)
        made += 1


def play(view):
    made, error = bomb()
    processes = sum(name.isdigit() for name in os.listdir("/proc"))
    print(f"FORKED {made} then {type(error).__name__}; PROCESSES {processes}", file=sys.stderr)
    return min(view.legal)
