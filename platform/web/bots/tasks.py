"""Celery tasks: thin wrappers taking ids, over the plain functions of ``validation.py``."""

from __future__ import annotations

from celery import shared_task

from . import validation


@shared_task(
    name="bots.validate_version",
    # Whatever escapes validation is infrastructure (the sandbox, storage, the database):
    # a bot's misbehaviour is a verdict, never an exception. Retry those with backoff.
    autoretry_for=(Exception,),
    retry_backoff=10,
    retry_backoff_max=300,
    max_retries=4,
)
def validate_version_task(version_id: int) -> str | None:
    return validation.validate_version(version_id)


@shared_task(name="bots.requeue_stale_validations")
def requeue_stale_validations_task() -> int:
    requeued = validation.requeue_stale_validations()
    for version_id in requeued:
        validate_version_task.delay(version_id)
    return len(requeued)
