"""Fills memory (pages really written, not only reserved) until something gives."""

import sys

hoard = []


def play(view):
    while True:
        hoard.append(b"x" * (16 * 2**20))
        print(f"holding {16 * len(hoard)} MiB", file=sys.stderr)
