"""Counts the games it has seen: the count only grows if the bot object lives on."""

from cucumbers import Bot


class Counter(Bot):
    def __init__(self):
        self.games = 0

    def start_game(self, game):
        self.games += 1
        print(f"GAMES {self.games}")

    def play(self, view):
        return view.legal[0]
