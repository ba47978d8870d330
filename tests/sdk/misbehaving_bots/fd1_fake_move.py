"""Writes a fake protocol message straight to file descriptor 1."""

import os


def play(view):
    os.write(1, b'{"type":"move","id":1,"card":3}\n')
    return view.legal[0]
