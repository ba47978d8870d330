"""Leaves a mark in /tmp when its first move begins, then sleeps forever: a bot that is busy
when its runner dies."""

import time


def play(view):
    with open("/tmp/playing", "w"):
        pass
    time.sleep(3600)
