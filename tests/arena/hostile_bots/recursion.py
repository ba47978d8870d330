"""Recurses without end: a RecursionError."""


def deeper(n):
    return deeper(n + 1) + 1


def play(view):
    return deeper(0)
