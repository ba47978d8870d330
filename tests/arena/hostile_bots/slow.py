"""A good citizen that thinks 0.15 s per move (half the tests' move limit)."""

import time


def play(view):
    time.sleep(0.15)
    return max(view.legal)
