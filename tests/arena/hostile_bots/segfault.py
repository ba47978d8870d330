"""Crashes the interpreter with a segmentation fault."""

import ctypes


def play(view):
    ctypes.string_at(0)
