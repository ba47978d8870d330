#!/usr/bin/env python3
"""Django's command-line utility for Cucumber Arena.

``platform/`` is a source folder, not a package: it goes on ``sys.path`` so that the project
package ``web`` inside it imports, while ``import platform`` keeps the standard library's.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PLATFORM_DIR = Path(__file__).resolve().parent / "platform"


def main() -> None:
    if str(PLATFORM_DIR) not in sys.path:
        sys.path.insert(0, str(PLATFORM_DIR))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "web.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
