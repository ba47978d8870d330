"""Leaves processes behind: a `sleep 1000` child and a double-forked daemon in a session of
its own. Prints their pids."""

import os
import subprocess
import time


def daemon():
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.setsid()
            grandchild = os.fork()
            if grandchild == 0:
                try:
                    time.sleep(1000)
                finally:
                    os._exit(0)
            os.write(write_end, str(grandchild).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(child, 0)
    pid = int(os.read(read_end, 100))
    os.close(read_end)
    return pid


def start_game(game):
    sleeper = subprocess.Popen(["sleep", "1000"])
    print(f"PIDS {os.getpid()} {sleeper.pid} {daemon()}", flush=True)


def play(view):
    return view.legal[0]
