"""Ends its process without a word."""

import os


def play(view):
    os._exit(5)
