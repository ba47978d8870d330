"""Ends its process between two moves, in end_round() of round 1."""

import os


def end_round(result):
    if result.number == 1:
        os._exit(4)


def play(view):
    return view.legal[0]
