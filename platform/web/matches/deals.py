"""Deals no one can know before they are played.

A match stores a random ``seed`` that is shown nowhere; the deals the arena plays follow
from :func:`keyed_seed`, that seed keyed with the platform's ``DEAL_KEY`` (HMAC-SHA256), so
that a stored seed that leaks (a backup, a log line) tells nothing of any hand. Once a
match's results are public (its whole deal set played, or void) the keyed seed is
published as ``Match.deal_seed``: its replays carry their games' seeds, and anyone can
re-derive every deal from them (``cucumbers check-replay``).

Whenever a match may have been seen before it was played (a re-seat, a requeue, a retry),
it is given a :func:`fresh_seed`: its new deals owe nothing to the old ones.
"""

from __future__ import annotations

import hmac
import secrets
from hashlib import sha256

from django.conf import settings

from cucumbers.match import SEED_BITS

from .models import Match

#: Keeps the deal key's use apart from any other use of the same secret.
_PURPOSE = b"cucumbers-arena/deal-seed/1:"


def fresh_seed() -> int:
    """A new match seed from the operating system's random source (never a program's
    generator, whose state another seed could betray)."""
    return secrets.randbits(SEED_BITS)


def keyed_seed(seed: int) -> int:
    """The seed the deals of a match stored with ``seed`` follow from: HMAC-SHA256 of the
    seed under ``DEAL_KEY``, cut to ``SEED_BITS``; no one without the key can compute it."""
    digest = hmac.new(_deal_key(), _PURPOSE + str(seed).encode(), sha256).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def played_seed(match: Match) -> int:
    """The seed the arena plays ``match`` from: its published ``deal_seed`` when it has one
    (a match queued before deals were keyed plays its stored seed, as it always did), else
    its stored seed keyed."""
    return match.deal_seed if match.deal_seed is not None else keyed_seed(match.seed)


def _deal_key() -> bytes:
    key: str = settings.DEAL_KEY
    return key.encode()
