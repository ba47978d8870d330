"""Ends its process with os._exit(5) in play()."""

import os


def play(view):
    os._exit(5)
