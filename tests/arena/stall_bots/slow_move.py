"""Thinks MOVE_SECONDS on each of its first THINKING moves, then plays at once; always
the lowest legal card."""

import time

MOVE_SECONDS = 0.2
THINKING = 3
moves = 0


def play(view):
    global moves
    moves += 1
    if moves <= THINKING:
        time.sleep(MOVE_SECONDS)
    return min(view.legal)
