"""Writes as much as it can to /tmp, /dev/shm and everywhere else; reports each result."""

import errno
import json
import sys

PLACES = ["/tmp", "/dev/shm", "/", "/bot", "/opt/cucumbers", "/var/tmp", "/home", "/etc", "/root"]
CHUNK = b"\0" * 2**20


def fill(folder):
    written = 0
    try:
        with open(f"{folder}/filler.bin", "wb") as file:
            while written < 512 * 2**20:  # far above every limit
                file.write(CHUNK)
                file.flush()
                written += len(CHUNK)
    except OSError as error:
        return {"bytes": written, "error": errno.errorcode.get(error.errno, str(error.errno))}
    return {"bytes": written, "error": None}


reported = False


def play(view):
    global reported
    if reported:
        return min(view.legal)
    reported = True
    report = {place: fill(place) for place in PLACES}
    print("DISK " + json.dumps(report), file=sys.stderr)
    return min(view.legal)
