"""Reads address 0: the process dies of SIGSEGV."""

import ctypes


def play(view):
    ctypes.string_at(0)
    return view.legal[0]
