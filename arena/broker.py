"""The broker between the platform and the arena: the queues and task names both sides use,
and the Celery settings both sides need for work that must not be lost. No Django here: the
arena worker reads it, and so does the platform's Celery app.

Messages (JSON text, schemas in :mod:`arena.contract`):

- platform → arena, on :data:`URGENT_QUEUE`, :data:`TOURNAMENT_QUEUE` or :data:`LADDER_QUEUE`:
  :data:`PLAY_TASK` with a ``MatchJob``;
- arena → platform, on :data:`REPORTS_QUEUE`: :data:`STARTED_TASK` with a ``MatchStarted``
  when a worker begins a job, :data:`REPORT_TASK` with the ``MatchReport`` when it ends.

Both sides must agree on the broker's redelivery settings (kombu's Redis transport keeps
every consumer's unacknowledged messages in one place and any consumer restores those older
than *its* visibility timeout), so both build them here, from the same variables.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qs, urlsplit

#: Matches someone waits for (a new upload's verdict, a challenge): served first.
URGENT_QUEUE: Final = "urgent"
#: Tournament matches: a whole schedule at once, served after the urgent queue (it must not
#: starve validations) and before the ladder (an event has a start and people waiting).
TOURNAMENT_QUEUE: Final = "tournament"
#: Ladder matches: the steady background load.
LADDER_QUEUE: Final = "ladder"
#: The queues arena workers serve, most urgent first (Redis: ``queue_order_strategy``).
MATCH_QUEUES: Final = (URGENT_QUEUE, TOURNAMENT_QUEUE, LADDER_QUEUE)
#: What workers send back: served by the platform's own worker, which holds the database.
REPORTS_QUEUE: Final = "reports"
#: The platform's periodic jobs (top-up, reaper, re-validation, delayed retries).
MAINTENANCE_QUEUE: Final = "maintenance"

PLAY_TASK: Final = "arena.play"
STARTED_TASK: Final = "platform.match_started"
REPORT_TASK: Final = "platform.match_report"

#: A message taken by a consumer that died is delivered again after this many seconds.
DEFAULT_VISIBILITY_SECONDS: Final = 3600
#: Consumers look for such messages every tenth of this many seconds.
DEFAULT_RESTORE_SECONDS: Final = 10


class BrokerSettingsError(ValueError):
    """A broker variable with a value that cannot be used; the message names it."""


@dataclass(frozen=True, slots=True)
class BrokerSettings:
    """Where the broker is. ``redis_url`` (``REDIS_URL``) in production; without it the
    filesystem transport in ``folder`` (``CUCUMBERS_BROKER_DIR``), for ``make run`` on one
    machine with no server to run."""

    redis_url: str = ""
    folder: Path | None = None
    visibility_seconds: int = DEFAULT_VISIBILITY_SECONDS
    restore_seconds: int = DEFAULT_RESTORE_SECONDS

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, folder: Path | None = None
    ) -> BrokerSettings:
        """From ``REDIS_URL``, ``CUCUMBERS_BROKER_DIR`` (or ``folder``),
        ``CELERY_VISIBILITY_TIMEOUT`` and ``CELERY_RESTORE_INTERVAL``."""
        env = os.environ if environ is None else environ
        named = env.get("CUCUMBERS_BROKER_DIR", "").strip()
        return cls(
            redis_url=env.get("REDIS_URL", "").strip(),
            folder=Path(named) if named else folder,
            visibility_seconds=_positive(
                env, "CELERY_VISIBILITY_TIMEOUT", DEFAULT_VISIBILITY_SECONDS
            ),
            restore_seconds=_positive(env, "CELERY_RESTORE_INTERVAL", DEFAULT_RESTORE_SECONDS),
        )

    def celery(self) -> dict[str, Any]:
        """Celery's ``broker_url`` and ``broker_transport_options`` (and ``broker_use_ssl``
        for TLS)."""
        if self.redis_url:
            options: dict[str, Any] = {
                "broker_url": self.redis_url,
                "broker_transport_options": {
                    "visibility_timeout": self.visibility_seconds,
                    "unacked_restore_interval": self.restore_seconds,
                    # A worker serving several queues takes from the first non-empty one in
                    # the order given (-Q urgent,tournament,ladder): validations first.
                    "queue_order_strategy": "priority",
                },
            }
            parts = urlsplit(self.redis_url)
            if parts.scheme == "rediss" and "ssl_cert_reqs" not in parse_qs(parts.query):
                # kombu's default for rediss:// checks no certificate (it warns, and talks
                # to whoever answers): TLS here means a checked server, unless the URL says
                # otherwise (?ssl_cert_reqs=...).
                options["broker_use_ssl"] = {"ssl_cert_reqs": ssl.CERT_REQUIRED}
            return options
        if self.folder is None:
            raise BrokerSettingsError(
                "no broker: set REDIS_URL (redis://[:password@]host:port/db, or rediss:// for"
                " TLS), or CUCUMBERS_BROKER_DIR for the local filesystem broker"
            )
        folders = {name: self.folder / name for name in ("queue", "processed", "control")}
        for path in folders.values():
            path.mkdir(parents=True, exist_ok=True)
        return {
            "broker_url": "filesystem://",
            "broker_transport_options": {
                "data_folder_in": str(folders["queue"]),
                "data_folder_out": str(folders["queue"]),
                "processed_folder": str(folders["processed"]),
                "control_folder": str(folders["control"]),
                "store_processed": False,
            },
        }


#: How every task of both sides is delivered: acknowledged after it ran, given back if its
#: process dies (so every task is safe to run twice), one message taken at a time, JSON only.
DELIVERY: Final[Mapping[str, Any]] = {
    "task_acks_late": True,
    "task_reject_on_worker_lost": True,
    "worker_prefetch_multiplier": 1,
    "task_serializer": "json",
    "accept_content": ["json"],
    "task_ignore_result": True,
    "broker_connection_retry_on_startup": True,
}


def _positive(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise BrokerSettingsError(f"{name}={raw!r}: a whole number of seconds, at least 1")
    return value
