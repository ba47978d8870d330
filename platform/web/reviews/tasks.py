"""The platform worker's task for what arena workers send back of a review (on the
``reports`` queue, :data:`arena.broker.REVIEW_RESULT_TASK`): an envelope signed by a
registered arena host for :attr:`~arena.signing.Purpose.REVIEW_RESULT`, or it is refused
(``event=review.refused``) before it is read. Safe to run twice (``recording.py``)."""

from __future__ import annotations

from celery import shared_task

from arena.broker import REVIEW_RESULT_TASK
from arena.contract import ContractError
from arena.review_contract import load_review_result
from arena.signing import Purpose, SignatureError, claimed
from web.arena_hosts.keys import open_from_host

from .events import ReviewEvent, log_event
from .recording import Outcome, receive_result

# A result that cannot be recorded now (the database is restarting) is tried again.
_RETRIED = {
    "autoretry_for": (Exception,),
    "dont_autoretry_for": (ContractError, SignatureError),
    "retry_backoff": 5,
    "retry_backoff_max": 120,
    "max_retries": 12,
}


@shared_task(name=REVIEW_RESULT_TASK, **_RETRIED)
def review_result_task(text: str) -> str:
    try:
        host, body = open_from_host(text, Purpose.REVIEW_RESULT)
        result = load_review_result(body)
    except (SignatureError, ContractError) as error:
        said = claimed(text)
        log_event(ReviewEvent.REFUSED, reason=str(error)[:2000], **said)
        return Outcome.REFUSED.value
    return receive_result(result, host).value
