"""Calls sys.exit(3) in play()."""

import sys


def play(view):
    sys.exit(3)
