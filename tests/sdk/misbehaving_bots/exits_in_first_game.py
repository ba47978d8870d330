"""Exits in its first move of game 1 (a crash), then plays normally. Prints its pid and how many
games this bot object has seen."""

import os
import time

from cucumbers import Bot


class FailsInFirstGame(Bot):
    def __init__(self):
        self.games = 0
        self.game_number = 0

    def start_game(self, game):
        self.games += 1
        self.game_number = game.game_number
        print(f"PID {os.getpid()} GAMES {self.games}")

    def play(self, view):
        if self.game_number == 1:
            os._exit(7)
        return view.legal[0]
