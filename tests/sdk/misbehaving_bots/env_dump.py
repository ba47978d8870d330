"""Plays its lowest card and prints its environment as JSON at the start of each game."""

import json
import os


def start_game(game):
    print("ENV " + json.dumps({"environ": dict(os.environ), "cwd": os.getcwd()}))


def play(view):
    return view.legal[0]
