"""The broker between the platform and the arena: the queues and task names both sides use,
and the Celery settings both sides need for work that must not be lost. No Django here: the
arena worker reads it, and so does the platform's Celery app.

Messages (JSON text, schemas in :mod:`arena.contract`):

- platform → arena, on :data:`URGENT_QUEUE`, :data:`TOURNAMENT_QUEUE` or :data:`LADDER_QUEUE`:
  :data:`PLAY_TASK` with a ``MatchJob``;
- arena → platform, on :data:`REPORTS_QUEUE`: :data:`STARTED_TASK` with a ``MatchStarted``
  when a worker begins a job, :data:`REPORT_TASK` with the ``MatchReport`` when it ends;
- platform → arena, on :data:`REVIEW_QUEUE`: :data:`REVIEW_TASK` with a ``ReviewJob`` (a
  move review an owner asked for, :mod:`arena.review_contract`); arena → platform, on
  :data:`REPORTS_QUEUE`: :data:`REVIEW_RESULT_TASK` with its ``ReviewResult``.

Both sides must agree on the broker's redelivery settings (a consumer restores the
unacknowledged messages older than *its* visibility timeout), so both build them here, from
the same variables. Each :class:`Role` keeps its own Redis keys beside the queues they share
(:data:`ROLE_KEYS`): its unacknowledged messages and its remote-control namespace, so that an
arena host, whose Redis user may touch only the arena's keys (:mod:`arena.redis_acl`), can
neither read nor restore the platform's messages nor send commands to its worker.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qs, urlsplit

from arena.contract import MatchKind

#: Matches someone waits for (a new upload's verdict, a challenge): served first.
URGENT_QUEUE: Final = "urgent"
#: A new version's first rated matches (its *debut*), whatever their kind: served after
#: the urgent queue (a verdict comes first) and before everything else (its author waits
#: for a first rating); bounded, one table at a time per provisional bot.
DEBUT_QUEUE: Final = "debut"
#: Tournament matches: a whole schedule at once, served after the urgent queue (it must not
#: starve validations) and before the ladder (an event has a start and people waiting).
TOURNAMENT_QUEUE: Final = "tournament"
#: Ladder matches: the steady background load.
LADDER_QUEUE: Final = "ladder"
#: The queues of matches, most urgent first.
MATCH_QUEUES: Final = (URGENT_QUEUE, DEBUT_QUEUE, TOURNAMENT_QUEUE, LADDER_QUEUE)
#: Move reviews an owner asked for (the site's "Review"): house code, no bot and no sandbox,
#: so served even while the Docker engine is away. Served after the matches a person or an
#: event waits for and *before* the ladder: the ladder is topped up to never run dry, so a
#: queue after it would never be served; the reviews' per-user quota (``REVIEWS_PER_DAY``)
#: bounds what they take from it.
REVIEW_QUEUE: Final = "review"
#: The queues arena workers serve, most urgent first (Redis: ``queue_order_strategy``).
ARENA_QUEUES: Final = (URGENT_QUEUE, DEBUT_QUEUE, TOURNAMENT_QUEUE, REVIEW_QUEUE, LADDER_QUEUE)
#: What workers send back: served by the platform's own worker, which holds the database.
REPORTS_QUEUE: Final = "reports"
#: The platform's periodic jobs (top-up, reaper, re-validation, delayed retries).
MAINTENANCE_QUEUE: Final = "maintenance"
#: The queues the platform's worker serves, first served first: what arena workers send
#: back before the periodic jobs.
PLATFORM_QUEUES: Final = (REPORTS_QUEUE, MAINTENANCE_QUEUE)

#: Which queue a match of each kind waits on (its urgency: a person waits for a verdict or
#: a challenge; an event has a start; the ladder is the steady background).
KIND_QUEUES: Final[Mapping[MatchKind, str]] = {
    MatchKind.VALIDATION: URGENT_QUEUE,
    MatchKind.CHALLENGE: URGENT_QUEUE,
    MatchKind.TOURNAMENT: TOURNAMENT_QUEUE,
    MatchKind.LADDER: LADDER_QUEUE,
}

# The arena worker's tasks: a match, on the match queues; a move review, on REVIEW_QUEUE.
PLAY_TASK: Final = "arena.play"
REVIEW_TASK: Final = "arena.review"
# The platform worker's tasks: what arena workers send back (on REPORTS_QUEUE) ...
STARTED_TASK: Final = "platform.match_started"
REPORT_TASK: Final = "platform.match_report"
REVIEW_RESULT_TASK: Final = "platform.review_result"
# ... and its own jobs (on MAINTENANCE_QUEUE): a delayed resend, and beat's periodic jobs.
SEND_MATCH_TASK: Final = "pipeline.send_match"
TOP_UP_LADDER_TASK: Final = "pipeline.top_up_ladder"
REAP_MATCHES_TASK: Final = "pipeline.reap_matches"
REVALIDATE_TASK: Final = "pipeline.revalidate_failed"
ADVANCE_TOURNAMENTS_TASK: Final = "tournaments.advance"
SWEEP_STORAGE_TASK: Final = "storage.sweep"
RECUR_TOURNAMENTS_TASK: Final = "tournaments.recur"
# ... and the mail it sends to bots' owners (web/notifications, web/tournaments/notices.py).
TELL_ENTRANTS_TASK: Final = "tournaments.tell_entrants"
VERSION_NOTICE_TASK: Final = "notifications.version_notice"
DELIVER_NOTICE_TASK: Final = "notifications.deliver"
#: Where each task the platform's worker serves comes in (the default: MAINTENANCE_QUEUE).
PLATFORM_ROUTES: Final[Mapping[str, str]] = {
    STARTED_TASK: REPORTS_QUEUE,
    REPORT_TASK: REPORTS_QUEUE,
    REVIEW_RESULT_TASK: REPORTS_QUEUE,
}


def queue_for(kind: str, *, debut: bool = False) -> str:
    """The queue a match of ``kind`` (a :class:`MatchKind` value) waits on; ``debut``: a
    new version's first rated matches."""
    return DEBUT_QUEUE if debut else KIND_QUEUES[MatchKind(kind)]


#: A message taken by a consumer that died is delivered again after this many seconds.
DEFAULT_VISIBILITY_SECONDS: Final = 3600
#: Consumers look for such messages every tenth of this many seconds.
DEFAULT_RESTORE_SECONDS: Final = 10
#: A message larger than this is dropped unread by a consumer (:mod:`arena.poison`).
DEFAULT_MAX_MESSAGE_BYTES: Final = 32 * 1024 * 1024


class Role(Enum):
    """Who talks to the broker: each has a Redis user of its own (:mod:`arena.redis_acl`)."""

    #: The web server, the platform's worker and beat: sends jobs, consumes reports.
    PLATFORM = "platform"
    #: Every arena worker, on any host: takes jobs, sends reports back.
    ARENA = "arena"


@dataclass(frozen=True, slots=True)
class RoleKeys:
    """The broker's keys that belong to one role, not to both."""

    #: Celery's ``control_exchange``: remote control (``celery inspect ping``) and its
    #: Pub/Sub channel ``/<db>.<control>.pidbox`` stay among the role's own workers.
    control: str
    #: kombu's hash of the messages taken and not yet acknowledged, by delivery tag.
    unacked: str
    #: The sorted set of those tags by the time they were taken (for the visibility timeout).
    unacked_index: str
    #: The lock a consumer holds while it restores the messages of consumers that died.
    unacked_mutex: str


#: The platform keeps kombu's names (what an earlier release left there is restored by it);
#: the arena workers share keys of their own, so that any arena worker restores a job that
#: a dead one had taken, and no arena host can read the platform's unacknowledged reports.
ROLE_KEYS: Final[Mapping[Role, RoleKeys]] = {
    Role.PLATFORM: RoleKeys("platform", "unacked", "unacked_index", "unacked_mutex"),
    Role.ARENA: RoleKeys("arena", "arena.unacked", "arena.unacked_index", "arena.unacked_mutex"),
}


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
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, folder: Path | None = None
    ) -> BrokerSettings:
        """From ``REDIS_URL``, ``CUCUMBERS_BROKER_DIR`` (or ``folder``),
        ``CELERY_VISIBILITY_TIMEOUT``, ``CELERY_RESTORE_INTERVAL`` and
        ``CELERY_MAX_MESSAGE_BYTES``."""
        env = os.environ if environ is None else environ
        named = env.get("CUCUMBERS_BROKER_DIR", "").strip()
        return cls(
            redis_url=env.get("REDIS_URL", "").strip(),
            folder=Path(named) if named else folder,
            visibility_seconds=_positive(
                env, "CELERY_VISIBILITY_TIMEOUT", DEFAULT_VISIBILITY_SECONDS
            ),
            restore_seconds=_positive(env, "CELERY_RESTORE_INTERVAL", DEFAULT_RESTORE_SECONDS),
            max_message_bytes=_positive(
                env, "CELERY_MAX_MESSAGE_BYTES", DEFAULT_MAX_MESSAGE_BYTES, "bytes"
            ),
        )

    def celery(self, role: Role) -> dict[str, Any]:
        """Celery's ``broker_url``, ``broker_transport`` (kombu's, with the poison guard of
        :mod:`arena.poison`), ``broker_transport_options`` (and ``broker_use_ssl`` for TLS)
        and ``control_exchange``, for the processes of ``role``."""
        keys = ROLE_KEYS[role]
        if self.redis_url:
            parts = urlsplit(self.redis_url)
            options: dict[str, Any] = {
                "broker_url": self.redis_url,
                "broker_transport": GUARDED_TRANSPORTS.get(parts.scheme, parts.scheme),
                "broker_transport_options": {
                    "visibility_timeout": self.visibility_seconds,
                    "unacked_restore_interval": self.restore_seconds,
                    # A worker serving several queues takes from the first non-empty one in
                    # the order given (ARENA_QUEUES): validations first.
                    "queue_order_strategy": "priority",
                    # No message has a priority: one Redis list per queue, named as the
                    # queue (no "urgent\x06\x163" beside it), which the ACL names exactly.
                    "priority_steps": [0],
                    "unacked_key": keys.unacked,
                    "unacked_index_key": keys.unacked_index,
                    "unacked_mutex_key": keys.unacked_mutex,
                    "max_message_bytes": self.max_message_bytes,
                },
                "control_exchange": keys.control,
            }
            if parts.scheme == "rediss":
                # kombu's default for rediss:// checks no certificate (it warns, and talks
                # to whoever answers): TLS here means a checked server, unless the URL says
                # otherwise (?ssl_cert_reqs=...). Said outright: kombu infers TLS from the
                # scheme only for its own transport's name.
                options["broker_use_ssl"] = {"ssl_cert_reqs": _cert_reqs(parts.query)}
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
            "broker_transport": GUARDED_TRANSPORTS["filesystem"],
            "control_exchange": keys.control,
            "broker_transport_options": {
                "max_message_bytes": self.max_message_bytes,
                "data_folder_in": str(folders["queue"]),
                "data_folder_out": str(folders["queue"]),
                "processed_folder": str(folders["processed"]),
                "control_folder": str(folders["control"]),
                "store_processed": False,
            },
        }


#: kombu's transports with :mod:`arena.poison`'s guard, by URL scheme (``broker_transport``).
GUARDED_TRANSPORTS: Final[Mapping[str, str]] = {
    "redis": "arena.poison:RedisTransport",
    "rediss": "arena.poison:RedisTransport",
    "filesystem": "arena.poison:FilesystemTransport",
}

#: How every task of both sides is delivered: acknowledged after it ran, given back if its
#: process dies (so every task is safe to run twice), one message taken at a time, JSON only;
#: a message no worker can read is dropped, logged and counted, never fatal
#: (:class:`arena.poison.GuardedConsumer`).
DELIVERY: Final[Mapping[str, Any]] = {
    "task_acks_late": True,
    "task_reject_on_worker_lost": True,
    "worker_prefetch_multiplier": 1,
    "task_serializer": "json",
    "accept_content": ["json"],
    "task_ignore_result": True,
    "broker_connection_retry_on_startup": True,
    "worker_consumer": "arena.poison:GuardedConsumer",
}


def _cert_reqs(query: str) -> ssl.VerifyMode:
    """The certificate check a ``rediss://`` URL asks for (``?ssl_cert_reqs=``, as kombu
    and redis-py read it); required unless it says otherwise."""
    given = parse_qs(query).get("ssl_cert_reqs", ["required"])[-1].strip().lower()
    return {
        "none": ssl.CERT_NONE,
        "cert_none": ssl.CERT_NONE,
        "optional": ssl.CERT_OPTIONAL,
        "cert_optional": ssl.CERT_OPTIONAL,
    }.get(given, ssl.CERT_REQUIRED)


def _positive(env: Mapping[str, str], name: str, default: int, unit: str = "seconds") -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise BrokerSettingsError(f"{name}={raw!r}: a whole number of {unit}, at least 1")
    return value
