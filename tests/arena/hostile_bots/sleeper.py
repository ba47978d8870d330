"""Sleeps forever in its first move."""

import time


def play(view):
    time.sleep(3600)
