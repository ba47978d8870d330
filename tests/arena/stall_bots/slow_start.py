"""Takes IMPORT_SECONDS to load, then plays the lowest legal card."""

import time

IMPORT_SECONDS = 6.5

time.sleep(IMPORT_SECONDS)


def play(view):
    return min(view.legal)
