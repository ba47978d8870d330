"""Structured log lines of a review's life (``event=review.recorded review=3 ...``), as
the matches' (web/pipeline/events.py): one ``key=value`` line per step."""

from __future__ import annotations

import logging
from enum import StrEnum

from arena.logs import FIELDS

logger = logging.getLogger("web.reviews")


class ReviewEvent(StrEnum):
    SENT = "review.sent"
    UNSENT = "review.unsent"  # the broker did not take it: asking again sends it
    RECORDED = "review.recorded"
    FAILED = "review.failed"
    DISCARDED = "review.discarded"  # not the attempt it waits for (a duplicate, a late one)
    # A result that cannot be trusted (unsigned, unknown or revoked signer, bad signature,
    # another purpose) or that contradicts its job: nothing of it recorded.
    REFUSED = "review.refused"


def _value(value: object) -> str:
    text = f"{value:.3f}" if isinstance(value, float) else str(value)
    return f'"{text.replace(chr(34), chr(39))}"' if not text or " " in text else text


def log_event(event: ReviewEvent, **fields: object) -> None:
    parts = [f"event={event.value}", *(f"{key}={_value(value)}" for key, value in fields.items())]
    level = logging.WARNING if event is ReviewEvent.REFUSED else logging.INFO
    logger.log(level, " ".join(parts), extra={FIELDS: {"event": event.value, **fields}})
