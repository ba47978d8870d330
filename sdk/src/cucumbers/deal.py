"""The deal's random draw: ``random.Random.sample``, restated with its inner call inlined.

``rules.md`` (the engine's decisions, (f)) fixes the deal as ``rng.sample(deck, k)``. The
standard library draws each card through ``Random._randbelow``, a Python-level call per card
dealt, so one per move of the game; this function makes exactly the same calls of
``rng.getrandbits`` in the same order, so it returns exactly what ``rng.sample`` returns (and
leaves the generator in the same state). ``tests/sdk/test_deal.py`` checks it against the
standard library on every branch, so a Python that changed its ``sample`` would be caught.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import ceil, log
from random import Random


def sample(rng: Random, population: Sequence[int], k: int) -> list[int]:
    """``rng.sample(population, k)``, the same cards in the same order."""
    n = len(population)
    if not 0 <= k <= n:
        raise ValueError("Sample larger than population or is negative")
    getrandbits = rng.getrandbits
    # The standard library's choice between its two methods (Lib/random.py, sample).
    setsize = 21
    if k > 5:
        setsize += 4 ** ceil(log(k * 3, 4))
    result = [0] * k
    if n <= setsize:
        pool = list(population)
        for i in range(k):
            m = n - i
            bits = m.bit_length()
            j = getrandbits(bits)
            while j >= m:
                j = getrandbits(bits)
            result[i] = pool[j]
            pool[j] = pool[m - 1]
        return result
    selected: set[int] = set()
    bits = n.bit_length()
    for i in range(k):
        j = getrandbits(bits)
        while j >= n or j in selected:
            j = getrandbits(bits)
        selected.add(j)
        result[i] = population[j]
    return result
