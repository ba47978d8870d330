"""Raises in play()."""


def play(view):
    raise ValueError("no idea what to play")
