"""Finds the host's protocol output (a writable pipe other than fds 0-2, or the socket of
the Docker sandbox's socket channel) and writes garbage to it."""

import os

PAYLOAD = b"this is not JSON\n"


def protocol_fd():
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd <= 2:
            continue
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
            with open(f"/proc/self/fdinfo/{fd}") as info:
                flags = int(info.read().split("flags:")[1].split()[0], 8)
        except (OSError, IndexError, ValueError):
            continue
        if target.startswith("pipe:") and flags & os.O_ACCMODE == os.O_WRONLY:
            return fd
        if target.startswith("socket:") and flags & os.O_ACCMODE == os.O_RDWR:
            return fd
    raise RuntimeError("no protocol pipe or socket found")


def play(view):
    os.write(protocol_fd(), PAYLOAD)
    return view.legal[0]
