"""Structured log lines for a match's life cycle: ``event=match.finished match=12 ...``,
one ``key=value`` line per step, so that a log search can follow one match or count events."""

from __future__ import annotations

import logging
from enum import StrEnum

from arena.logs import FIELDS

logger = logging.getLogger("web.pipeline.transitions")


class MatchEvent(StrEnum):
    QUEUED = "match.queued"
    ISSUED = "match.issued"  # sent (or about to be played in-process) under a new attempt
    STARTED = "match.started"  # a worker began the attempt
    HELD = "match.held"  # a deal set's rotation recorded, its results held for the set
    FINISHED = "match.finished"
    RETRY = "match.retry"
    FAILED = "match.failed"
    DISCARDED = "match.discarded"
    # A message that cannot be trusted (unsigned, unknown or revoked signer, bad signature,
    # another host's attempt) or a report that contradicts its job: nothing of it recorded.
    REFUSED = "match.refused"
    REQUEUED = "match.requeued"
    RECALLED = "match.recalled"  # its seats changed before it started: sent again
    RESENT = "match.resent"
    RESEEDED = "match.reseeded"  # dealt afresh: its old deals may have been seen
    UNSENT = "match.unsent"  # the broker did not take it: it stays queued for the reaper


def _value(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    text = str(value)
    # Quote anything with spaces (failure reasons) so each line stays machine-readable.
    return f'"{text.replace(chr(34), chr(39))}"' if not text or " " in text else text


def log_event(event: MatchEvent, **fields: object) -> None:
    """One line: ``event=<event>`` then the fields in the order given. The same fields ride
    along as the record's ``fields``, which a JSON line (``LOG_FORMAT=json``) holds as keys."""
    parts = [f"event={event.value}", *(f"{key}={_value(value)}" for key, value in fields.items())]
    logger.info(" ".join(parts), extra={FIELDS: {"event": event.value, **fields}})
