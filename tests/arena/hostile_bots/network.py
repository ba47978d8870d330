"""Tries the network at import (the start-up limit leaves time for it): TCP connections and
UDP datagrams to every target in TARGETS (the test fills them in), and lists its network
interfaces. Reports each result."""

import errno
import json
import socket
import sys

TARGETS = []  # (host, port) pairs, filled in by the test


def tcp(host, port):
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return "connected"
    except OSError as error:
        return errno.errorcode.get(error.errno, type(error).__name__)


def udp(host, port):
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.settimeout(1.0)
            sock.connect((host, port))  # connected: an ICMP refusal comes back as an error
            sock.send(b"hello")
            sock.recv(16)
            return "answered"
    except OSError as error:
        return errno.errorcode.get(error.errno, type(error).__name__)


REPORT = {
    "interfaces": [name for _, name in socket.if_nameindex()],
    "tcp": {f"{host}:{port}": tcp(host, port) for host, port in TARGETS},
    "udp": {f"{host}:{port}": udp(host, port) for host, port in TARGETS},
}
print("NET " + json.dumps(REPORT), file=sys.stderr)


def play(view):
    return min(view.legal)
