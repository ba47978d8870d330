"""Lifts the recursion limit and recurses until the C stack overflows."""

import sys


def deeper(n):
    return deeper(n + 1) + 1


def play(view):
    sys.setrecursionlimit(10**9)
    return deeper(0)
