from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from web.pages.sdk import build_wheel


class Command(BaseCommand):
    help = "Build the SDK's wheel that the getting-started page offers (at every deploy)."

    def handle(self, *args: Any, **options: Any) -> None:
        wheel = build_wheel()
        if options["verbosity"]:
            self.stdout.write(f"built {wheel}")
