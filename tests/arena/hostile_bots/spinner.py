"""Spins the CPU forever in its first move."""


def play(view):
    while True:
        pass
