"""Exits while being loaded."""

import sys

sys.exit(2)


def play(view):
    return min(view.legal)
