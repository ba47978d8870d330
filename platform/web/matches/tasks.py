"""The matches' periodic jobs, sent by beat to the platform's worker."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings

from arena.broker import SWEEP_STORAGE_TASK

from .sweep import sweep_storage


@shared_task(name=SWEEP_STORAGE_TASK)  # type: ignore[untyped-decorator]  # Celery is untyped
def sweep_storage_task() -> int:
    """Unreferenced replays and sources past their grace period removed (logged)."""
    grace = timedelta(seconds=settings.STORAGE_SWEEP_GRACE_SECONDS)
    return len(sweep_storage(grace).removed)
