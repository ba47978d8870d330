"""Raises in start_game(); the fault surfaces at its first move."""


def start_game(game):
    raise RuntimeError("cannot start")


def play(view):
    return view.legal[0]
