"""Health and readiness for a monitor (a load balancer, Prometheus' blackbox exporter, a
cron job with curl).

- ``/health/live``: the web process answers (no database, no broker): restart it if not.
- ``/health/ready``: JSON of what the site needs and how the arena keeps up: the database,
  the broker, messages waiting on each arena queue, matches queued and the age of the oldest
  one, the arena workers seen in the last minutes, and whether the data directories (bot
  sources, replays, when on this host's disk) take a write. 200 when the database and the
  broker answer and the data directories can be written, else 503 (take this web server out
  of rotation; nothing to restart here).

Public, like the arena page: no match of anyone's in particular, no error text (a failure
is logged with its details and answered as ``"unavailable"``).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import connection
from django.db.models import Min
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache

from web.matches.models import Match, MatchStatus
from web.pipeline.dispatch import queue_depths
from web.storage_files import unwritable_locations

logger = logging.getLogger(__name__)

#: Workers that started a match this recently count as seen.
WORKERS_WINDOW = timedelta(minutes=10)


@never_cache
def live(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok\n", content_type="text/plain")


def _database() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except Exception:
        logger.exception("readiness: the database does not answer")
        return False


@never_cache
def ready(request: HttpRequest) -> JsonResponse:
    database = _database()
    depths = queue_depths()
    body: dict[str, object] = {
        "database": "ok" if database else "unavailable",
        "broker": "ok" if depths is not None else "unavailable",
        "queue_messages": depths,
    }
    if database:
        now = timezone.now()
        queued = Match.objects.filter(status=MatchStatus.QUEUED)
        oldest = queued.aggregate(oldest=Min("created_at"))["oldest"]
        body["queued_matches"] = queued.count()
        body["oldest_queued_seconds"] = round((now - oldest).total_seconds(), 1) if oldest else None
        body["running_matches"] = Match.objects.filter(status=MatchStatus.RUNNING).count()
        body["workers_seen"] = sorted(
            set(
                Match.objects.filter(started_at__gte=now - WORKERS_WINDOW)
                .exclude(worker="")
                .values_list("worker", flat=True)
            )
        )
    unwritable = unwritable_locations()
    body["storage"] = "ok" if not unwritable else {"unwritable": unwritable}
    ok = database and depths is not None and not unwritable
    body["status"] = "ready" if ok else "not ready"
    return JsonResponse(body, status=200 if ok else 503)
