"""A finished tournament's mail to its entrants' owners (``web.notifications``): each owner
once, with the final place of each of their bots. The standings are read by the platform's
worker (``tournaments.tell_entrants``), never in the transaction that finished the event."""

from __future__ import annotations

import logging
from collections import defaultdict

from celery import current_app
from django.db import transaction

from arena.broker import TELL_ENTRANTS_TASK
from cucumbers.games import title
from web.notifications.mail import absolute
from web.notifications.models import NoticeKind
from web.notifications.notify import tell

from .models import Tournament
from .standings import standings

logger = logging.getLogger(__name__)


def tell_entrants(tournament_id: int) -> None:
    """Once the caller's transaction commits, have the worker mail the entrants."""
    transaction.on_commit(lambda: _enqueue(tournament_id), robust=True)


def _enqueue(tournament_id: int) -> None:
    try:  # by name: the tasks module imports this one
        current_app.send_task(TELL_ENTRANTS_TASK, args=[tournament_id])
    except Exception as error:  # the broker is down: no mail, the tournament still ended
        logger.warning(
            'event=notice.unsent tournament=%s error="%s: %s"',
            tournament_id,
            type(error).__name__,
            error,
        )


def entrant_notices(tournament_id: int) -> list[tuple[int, dict[str, str]]]:
    """(owner id, facts) for each owner with an entry that played."""
    tournament = Tournament.objects.get(pk=tournament_id)
    table = standings(tournament)
    lines: dict[int, list[str]] = defaultdict(list)
    for row in table.rows:
        owner = row.entry.owner_id
        if owner is None or row.entry.version_id is None:
            continue
        lines[owner].append(
            f"{row.entry.name}: place {row.rank} of {len(table.rows)}"
            + (f", score {row.score:.3f}" if row.score is not None else "")
            + f" ({row.games} games, {row.wins} won, {row.faults} faults)"
        )
    facts = {
        "tournament": tournament.name,
        "game": title(tournament.game),
        "tournament_url": absolute(tournament.get_absolute_url()),
    }
    return [(owner, {**facts, "results": "\n".join(found)}) for owner, found in lines.items()]


def send_entrant_notices(tournament_id: int) -> int:
    """Queue each owner's notice (one task each, retried on its own); how many."""
    notices = entrant_notices(tournament_id)
    for owner, facts in notices:
        tell(NoticeKind.TOURNAMENT, owner, facts)
    return len(notices)
