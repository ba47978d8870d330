"""The storage sweep (beat's ``storage.sweep``): files of the site's storages that no row
references, older than a grace period, are removed and logged.

They are what a process killed between writing its files and committing its rows leaves
(a platform worker killed while recording a report, a web server while storing an upload):
nothing reads them, nothing else would remove them. A file younger than
``STORAGE_SWEEP_GRACE_SECONDS`` may belong to a transaction still open, so it is kept.

Replays and output tails live under ``BUCKET/MATCH/`` (:mod:`web.matches.replays`), sources
under ``OWNER/BOT/`` (:mod:`web.bots.uploads`): the sweep reads the rows of one bucket of
matches, or of one owner's bots, at a time, by indexed keys.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.core.files.storage import Storage, storages
from django.db.models import Q
from django.utils import timezone

from web.bots.models import BotVersion

from .models import MatchGame

logger = logging.getLogger(__name__)


@dataclass
class Swept:
    """What one sweep found and removed, by storage."""

    removed: list[str] = field(default_factory=list)
    kept_young: int = 0


def _files(storage: Storage, folder: str) -> Iterator[str]:
    """Every file name under ``folder`` of ``storage``, recursively."""
    folders, files = storage.listdir(folder)
    for name in files:
        yield f"{folder}/{name}" if folder else name
    for sub in folders:
        yield from _files(storage, f"{folder}/{sub}" if folder else sub)


def _remove(storage: Storage, names: set[str], cutoff: datetime, swept: Swept, what: str) -> None:
    for name in sorted(names):
        try:
            if storage.get_modified_time(name) > cutoff:
                swept.kept_young += 1
                continue
            storage.delete(name)
        except OSError as error:  # gone meanwhile, or the storage is away: next time
            logger.warning("storage sweep: %s %s not removed: %s", what, name, error)
            continue
        swept.removed.append(name)
        logger.warning("storage sweep: removed %s %s: no row references it", what, name)


def sweep_replays(cutoff: datetime, swept: Swept) -> None:
    storage = storages["replays"]
    buckets, _ = storage.listdir("")
    for bucket in buckets:
        matches, strays = storage.listdir(bucket)
        files = {f"{bucket}/{name}" for name in strays}
        ids = [int(name) for name in matches if name.isdigit()]
        for name in matches:
            files.update(_files(storage, f"{bucket}/{name}"))
        referenced: set[str] = set()
        rows = MatchGame.objects.filter(match_id__in=ids).values_list("replay", "outputs")
        for replay, outputs in rows:
            referenced.update(n for n in (replay, outputs) if n)
        _remove(storage, files - referenced, cutoff, swept, "replay file")


def sweep_sources(cutoff: datetime, swept: Swept) -> None:
    storage = storages["bot_sources"]
    owners, strays = storage.listdir("")
    files = set(strays)
    for owner in owners:
        found = set(_files(storage, owner))
        if owner.isdigit():
            query = Q(bot__owner_id=int(owner))
            referenced = set(BotVersion.objects.filter(query).values_list("source", flat=True))
        else:
            referenced = set()
        files.update(found - referenced)
    _remove(storage, files, cutoff, swept, "bot source")


def sweep_storage(grace: timedelta) -> Swept:
    """Remove the files of the replays' and the sources' storages that no row references
    and that are older than ``grace``."""
    swept = Swept()
    cutoff = timezone.now() - grace
    sweep_replays(cutoff, swept)
    sweep_sources(cutoff, swept)
    logger.info(
        "storage sweep: %d unreferenced file(s) removed, %d kept (younger than %s)",
        len(swept.removed),
        swept.kept_young,
        grace,
    )
    return swept
