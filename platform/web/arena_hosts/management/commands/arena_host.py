"""``python manage.py arena_host add NAME --public-key KEY | --public-key-file PATH``,
``arena_host revoke NAME``, ``arena_host list``: the arena hosts whose signed reports the
platform accepts (docs/platform.md, "Arena hosts")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from web.arena_hosts.hosts import HostError, add_host, revoke_host
from web.arena_hosts.models import ArenaHost


class Command(BaseCommand):
    help = "Add, revoke or list the arena hosts whose signed reports are accepted."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        add = actions.add_parser("add", help="register a host's public key (idempotent)")
        add.add_argument("name", help="the host's ARENA_HOST_NAME")
        key = add.add_mutually_exclusive_group(required=True)
        key.add_argument("--public-key", help="ed25519:<base64>")
        key.add_argument("--public-key-file", help="a file holding it (keygen's PATH.pub)")
        add.add_argument("--note", default="", help="who runs it, where")
        add.add_argument(
            "--replace",
            action="store_true",
            help="another key for a known, unrevoked name replaces its old one (compose's own"
            " worker after a restore onto fresh volumes)",
        )
        revoke = actions.add_parser("revoke", help="refuse everything the host signs")
        revoke.add_argument("name")
        actions.add_parser("list", help="every host, revoked ones too")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            getattr(self, f"_{options['action']}")(options)
        except HostError as error:
            raise CommandError(str(error)) from None

    def _add(self, options: dict[str, Any]) -> None:
        key = options["public_key"]
        if options["public_key_file"]:
            try:
                key = Path(options["public_key_file"]).read_text().strip()
            except OSError as error:
                raise CommandError(f"cannot read {options['public_key_file']}: {error}") from None
        host, created = add_host(options["name"], key, options["note"], replace=options["replace"])
        said = "added" if created else "already known"
        self.stdout.write(f"{said}: {host.name} {host.public_key}")

    def _revoke(self, options: dict[str, Any]) -> None:
        host = revoke_host(options["name"])
        self.stdout.write(f"revoked: {host.name} (since {host.revoked_at:%Y-%m-%d %H:%M:%S})")

    def _list(self, options: dict[str, Any]) -> None:
        for host in ArenaHost.objects.all():
            state = f"revoked {host.revoked_at:%Y-%m-%d %H:%M}" if host.revoked_at else "active"
            self.stdout.write(f"{host.name}\t{state}\t{host.public_key}\t{host.note}")
