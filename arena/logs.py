"""Log lines for people or for machines: ``LOG_FORMAT=plain`` (the default) or ``json``,
one JSON object per line, for every process of the platform (web, its Celery worker,
gunicorn's access log) and the arena workers.

A JSON line holds ``time`` (UTC, ISO 8601, milliseconds), ``level``, ``logger`` and
``message``, then the fields the code attached to the record: a structured event passes
them as ``extra={"fields": {...}}`` (:data:`FIELDS`; the pipeline's match events do), so
``event=match.finished match=12`` in a plain line is also ``"event": "match.finished",
"match": 12`` in a JSON one. An exception's traceback is in ``exception``.

A small formatter of our own rather than python-json-logger: it is these thirty lines, and
the images (and the offline wheelhouse) need no other package. No Django here: the arena
workers use it too.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

#: The record attribute that carries a line's structured fields (a mapping).
FIELDS = "fields"
FORMATS = ("plain", "json")
#: What gunicorn's access log line says, under the names a JSON line gives them.
ACCESS_ATOMS = {
    "remote": "h",
    "method": "m",
    "path": "U",
    "query": "q",
    "status": "s",
    "bytes": "B",
    "duration_ms": "M",
    "referer": "f",
    "user_agent": "a",
}


def log_format(environ: Mapping[str, str] = os.environ) -> str:
    """``LOG_FORMAT``, checked: ``plain`` or ``json``."""
    value = environ.get("LOG_FORMAT", "plain").strip().lower() or "plain"
    if value not in FORMATS:
        raise ValueError(f"LOG_FORMAT={value!r}: one of {', '.join(FORMATS)}")
    return value


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def entry(self, record: logging.LogRecord) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, FIELDS, None)
        if isinstance(fields, Mapping):
            for key, value in fields.items():
                entry.setdefault(str(key), value)  # never hides the four above
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return entry

    def format(self, record: logging.LogRecord) -> str:
        return json.dumps(self.entry(record), default=str, ensure_ascii=False)


class AccessJsonFormatter(JsonFormatter):
    """gunicorn's access log: its atoms (the record's arguments) as fields."""

    def entry(self, record: logging.LogRecord) -> dict[str, Any]:
        entry = super().entry(record)
        atoms = record.args
        if isinstance(atoms, Mapping):
            for name, atom in ACCESS_ATOMS.items():
                value = atoms.get(atom, "-")
                if value in ("-", "", None):
                    continue
                if name in ("status", "bytes") and str(value).isdigit():
                    value = int(str(value))
                entry[name] = value
        return entry


def formatter(kind: str, plain: str) -> logging.Formatter:
    """The formatter of ``LOG_FORMAT`` ``kind``: JSON, or ``plain``'s format string."""
    return JsonFormatter() if kind == "json" else logging.Formatter(plain)


def use_json_on(logger: logging.Logger) -> None:
    """Give every handler of ``logger`` the JSON formatter (after Celery set them up)."""
    for handler in logger.handlers:
        handler.setFormatter(JsonFormatter())
