"""The broker's queues (no Django here: the Celery app reads them before Django is set up)."""

from __future__ import annotations

#: Matches someone waits for (a new upload's verdict, a challenge): served first.
URGENT_QUEUE = "urgent"
#: Ladder matches: the steady background load.
LADDER_QUEUE = "ladder"
#: The periodic jobs (top-up, reaper, re-validation), on a worker of their own (beat's), so
#: that long matches never hold them up.
MAINTENANCE_QUEUE = "maintenance"
#: The queues match workers serve, most urgent first (Redis: ``queue_order_strategy``).
MATCH_QUEUES = (URGENT_QUEUE, LADDER_QUEUE)
