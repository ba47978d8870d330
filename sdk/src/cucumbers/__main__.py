"""``python -m cucumbers`` is the ``cucumbers`` command."""

from __future__ import annotations

from .cli import main

raise SystemExit(main())
