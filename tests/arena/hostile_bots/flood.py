"""Floods stdout, stderr and raw file descriptor 1 (bytes that are not UTF-8, and a line
that looks like a protocol message), then plays normally."""

import os
import sys


def play(view):
    for _ in range(2000):
        print("x" * 1000)
        print("y" * 1000, file=sys.stderr)
        os.write(1, b"\xff\xfe raw \x00 bytes\n")
    os.write(1, b'{"type":"move","id":1,"card":3}\n')
    print("flood done")
    return min(view.legal)
