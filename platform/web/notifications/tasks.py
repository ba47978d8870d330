"""The notices' tasks, on the platform's own worker (``maintenance`` queue, the default):
the pipeline only enqueues them, after its transaction commits, and never waits for a
mail server. A mail server's error (any ``OSError``: refused, timed out, an SMTP error) is
logged and retried with backoff; a notice is sent at least once, so a worker lost at the
wrong moment may send one twice."""

from __future__ import annotations

import logging

from celery import shared_task

from arena.broker import DELIVER_NOTICE_TASK, VERSION_NOTICE_TASK

from .mail import send_notice, version_facts

logger = logging.getLogger(__name__)

_RETRIED = {
    "autoretry_for": (OSError,),
    "retry_backoff": 30,
    "retry_backoff_max": 900,
    "retry_jitter": True,
    "max_retries": 8,
}


@shared_task(name=VERSION_NOTICE_TASK, **_RETRIED)
def version_notice_task(kind: str, version_id: int) -> bool:
    found = version_facts(kind, version_id)
    if found is None:
        return False
    return _send(kind, *found)


@shared_task(name=DELIVER_NOTICE_TASK, **_RETRIED)
def deliver_task(kind: str, user_id: int, facts: dict[str, str]) -> bool:
    return _send(kind, user_id, facts)


def _send(kind: str, user_id: int, facts: dict[str, str]) -> bool:
    try:
        return send_notice(kind, user_id, facts)
    except OSError as error:
        logger.warning(
            'event=notice.failed kind=%s user=%s error="%s: %s"',
            kind,
            user_id,
            type(error).__name__,
            error,
        )
        raise
