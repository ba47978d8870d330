"""Writes megabytes to fd 1 and fd 2 at its first move of each game."""

import os
import sys

from cucumbers import Bot

MEGABYTES = 3


class Flood(Bot):
    def __init__(self):
        self.flooded = False

    def start_game(self, game):
        self.flooded = False

    def play(self, view):
        if not self.flooded:
            self.flooded = True
            for _ in range(MEGABYTES):
                os.write(1, b"x" * (1024 * 1024))
                sys.stderr.write("y" * (1024 * 1024))
            print("flood done")
        return view.legal[0]
