"""What the pipeline tells the rest of the site, which it must not import (the tournaments
build on the pipeline, not the other way round)."""

from __future__ import annotations

from django.db import transaction
from django.dispatch import Signal

#: A match ended, finished or failed for good; sent after the transaction that ended it
#: commits, with ``match_id`` and ``kind``. Receivers must be safe to hear of a match twice.
match_ended = Signal()


def announce_match_ended(match_id: int, kind: str) -> None:
    """Send :data:`match_ended` once the current transaction commits (at once outside
    one). A receiver's failure is logged, never raised into the pipeline."""
    transaction.on_commit(
        lambda: match_ended.send_robust(sender=None, match_id=match_id, kind=kind), robust=True
    )
