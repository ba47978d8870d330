from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from web.pages.sdk import SdkSourcesMissing, build_wheel


class Command(BaseCommand):
    help = "Build the SDK's wheel that the getting-started page offers, from a checkout."

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            wheel = build_wheel()
        except SdkSourcesMissing as error:
            raise CommandError(str(error)) from error
        if options["verbosity"]:
            self.stdout.write(f"built {wheel}")
