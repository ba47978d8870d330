"""Legal sets: which cards a seat may play (``rules.md``, the shared trick rules: any card
at least the trick's high card, or the lowest card held).

The engine keeps each seat's ranks as the bits of an int (:func:`ranks_mask`), so a legal
set is two shifts and a mask, and one shared tuple per set (:data:`LEGAL_SETS`), never a scan
of the hand. :func:`legal_cards` is the same rule on a plain hand, for bots and tests.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence


def ranks_mask(hand: Sequence[int]) -> int:
    """The ranks in ``hand`` as bits: bit ``c`` is set when it holds a ``c``."""
    mask = 0
    for card in hand:
        mask |= 1 << card
    return mask


#: ``LEGAL_SETS[mask]``: the ranks of ``mask``, sorted, as the tuple every view of that legal
#: set shares. Filled on first use by :func:`ranks_of`; a game's ranks bound it (at most
#: 2**15 sets for ranks up to 15).
LEGAL_SETS: dict[int, tuple[int, ...]] = {}


def ranks_of(mask: int) -> tuple[int, ...]:
    """``LEGAL_SETS[mask]``, computed and kept on first use."""
    ranks = LEGAL_SETS[mask] = tuple(c for c in range(mask.bit_length()) if mask >> c & 1)
    return ranks


def legal_cards(hand: Sequence[int], high: int | None) -> tuple[int, ...]:
    """The distinct cards of the sorted ``hand`` that may be played on a trick whose highest
    card is ``high`` (``None`` when leading): any card ``>= high``, or the lowest card."""
    distinct = tuple(dict.fromkeys(hand))
    if high is None:
        return distinct
    i = bisect_left(distinct, high)
    return distinct if i < 2 else (distinct[0], *distinct[i:])
