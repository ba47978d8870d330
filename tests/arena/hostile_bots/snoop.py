"""Looks for secrets: its environment, /proc (other processes, PID 1's environment), the
Docker socket, and the other bot's file (OTHER_BOT, filled in by the test). Reports all."""

import json
import os
import socket
import sys

OTHER_BOT = ""  # the other bot's path on the host, filled in by the test


def read(path):
    try:
        with open(path, "rb") as file:
            return file.read(100_000).decode("utf-8", "replace")
    except OSError as error:
        return f"<{type(error).__name__}>"


def docker_socket(path):
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(path)
            return "connected"
    except OSError as error:
        return type(error).__name__


def listing(folder):
    try:
        return os.listdir(folder)
    except OSError as error:
        return f"<{type(error).__name__}>"


reported = False


def play(view):
    global reported
    if reported:
        return min(view.legal)
    reported = True
    pids = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
    report = {
        "environ": dict(os.environ),
        "pids": pids,
        "cmdlines": {pid: read(f"/proc/{pid}/cmdline").replace("\0", " ") for pid in pids},
        "pid1_environ": read("/proc/1/environ").split("\0"),
        "sockets": {
            path: docker_socket(path) for path in ("/var/run/docker.sock", "/run/docker.sock")
        },
        "other_bot": {
            "exists": os.path.exists(OTHER_BOT),
            "read": read(OTHER_BOT),
            "dir": listing(os.path.dirname(OTHER_BOT)),
        },
        "bot_dir": listing("/bot"),
        "uid": [os.getuid(), os.getgid(), os.geteuid()],
    }
    print("SNOOP " + json.dumps(report), file=sys.stderr)
    return min(view.legal)
