"""``manage.py bootstrap``: what ``make run`` needs on a fresh database, idempotently: the
house bots (queued for validation) and a demo account whose credentials it prints."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand

from web.bots.house import ensure_house_bots
from web.sandbox import SandboxKind, current_sandbox

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "cucumbers-demo"


class Command(BaseCommand):
    help = "Create the house bots and the demo account (local use)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--no-demo", action="store_true", help="skip the demo account")

    def handle(self, *args: Any, **options: Any) -> None:
        created = ensure_house_bots()
        self.stdout.write(f"house bots: {len(created)} uploaded, validation queued")
        kind = current_sandbox()
        isolation = "isolated" if kind is SandboxKind.DOCKER else "NOT isolated, local use only"
        self.stdout.write(f"sandbox: {kind.value} ({isolation})")
        if options["no_demo"]:
            return
        demo, made = User.objects.get_or_create(
            username=DEMO_USERNAME, defaults={"is_staff": True, "is_superuser": True}
        )
        if made:
            demo.set_password(DEMO_PASSWORD)
            demo.save()
        self.stdout.write(
            f"demo account (staff, local use only): {DEMO_USERNAME} / {DEMO_PASSWORD}"
        )
