"""A good citizen that uses numpy."""

import numpy as np


def play(view):
    legal = np.array(view.legal)
    return int(legal[np.argmin(legal)])
