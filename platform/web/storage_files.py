"""Writing to the site's storages (bot sources, replays) without leaving debris, and asking
whether they can be written at all.

A write that fails part-way (``ENOSPC`` on a full disk, an I/O error) raised out of Django's
``Storage.save`` with the file it had created still there, empty or cut short, and with no
name to delete it by: a full disk left dozens of empty sources and replays behind.
:func:`save_whole` names the file first and removes it when the write fails. What a killed
process leaves between its writes and its commit is the periodic sweep's
(:mod:`web.matches.sweep`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Final

from django.core.files.base import File
from django.core.files.storage import FileSystemStorage, Storage, storages

logger = logging.getLogger(__name__)

#: The storages of the site's own files (settings.STORAGES).
DATA_STORAGES: Final = ("bot_sources", "replays")
#: What the readiness probe writes: enough to need a free block, not just an inode.
PROBE_BYTES: Final = 4096


def save_whole(storage: Storage, name: str, content: File[bytes]) -> str:
    """``storage.save(name, content)``; should it fail, nothing is left under the name it
    chose. Returns the name saved."""
    chosen = storage.get_available_name(name)
    try:
        return storage.save(chosen, content)
    except BaseException:
        with contextlib.suppress(Exception):  # the storage may be away altogether
            if storage.exists(chosen):
                storage.delete(chosen)
                logger.warning("storage: removed %s, whose write failed", chosen)
        raise


def unwritable_locations() -> dict[str, str]:
    """The local data directories (of the file-system storages) that cannot take a write
    now, with the reason; empty when all can. An object store is not probed here."""
    problems: dict[str, str] = {}
    for alias in DATA_STORAGES:
        storage = storages[alias]
        if not isinstance(storage, FileSystemStorage):
            continue
        location = Path(storage.location)
        try:
            location.mkdir(parents=True, exist_ok=True)
            descriptor, path = tempfile.mkstemp(dir=location, prefix=".ready-")
            try:
                os.write(descriptor, b"\0" * PROBE_BYTES)  # unbuffered: ENOSPC here
            finally:
                os.close(descriptor)
                os.unlink(path)
        except OSError as error:
            logger.error("readiness: %s (%s) cannot be written: %s", alias, location, error)
            problems[alias] = error.strerror or type(error).__name__
    return problems
