"""Tries to write outside /tmp: its own file, the image, the root, the host's canary file
(CANARY, filled in by the test); and to change its own file's mode. Reports each result."""

import errno
import json
import os
import sys

CANARY = ""  # a file on the host, filled in by the test


def write(path):
    try:
        with open(path, "ab") as file:
            file.write(b"\nvandalised\n")
        return "written"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))


def chmod(path):
    try:
        os.chmod(path, 0o777)
        return "changed"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))


reported = False


def play(view):
    global reported
    if reported:
        return min(view.legal)
    reported = True
    own = os.path.abspath(__file__)
    report = {
        "own file": write(own),
        "own file mode": chmod(own),
        "new file beside it": write(os.path.join(os.path.dirname(own), "other.py")),
        "image": write("/opt/cucumbers/cucumbers/__init__.py"),
        "root": write("/vandal"),
        "etc": write("/etc/passwd"),
        "canary": write(CANARY),
        "tmp": write("/tmp/fine"),
    }
    print("WRITE " + json.dumps(report), file=sys.stderr)
    return min(view.legal)
