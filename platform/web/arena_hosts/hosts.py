"""Adding and revoking arena hosts: the one place that writes :class:`ArenaHost` rows (the
``arena_host`` command and ``make run`` call it)."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from arena.signing import KeyFileError, parse_public_key, public_text

from .models import ArenaHost


class HostError(ValueError):
    """A host that cannot be added or revoked as asked; the message says why."""


def add_host(
    name: str, public_key: str, note: str = "", *, replace: bool = False
) -> tuple[ArenaHost, bool]:
    """Register ``name`` with ``public_key`` (``ed25519:...``); (host, created). The same
    key again changes nothing; another key for a known name, or a revoked host, is a
    :class:`HostError` (a new key is a new host: revoke the old one, add a new name).
    ``replace``: another key for a known name replaces its old one (compose's own worker,
    whose key lives in the stack's volume: a database restored onto fresh volumes knows
    its old key); a revoked host stays revoked all the same."""
    if not name or len(name) > 100 or any(c.isspace() for c in name):
        raise HostError("a host's name is 1 to 100 characters, no space")
    try:
        key = public_text(parse_public_key(public_key))  # one spelling per key
    except KeyFileError as error:
        raise HostError(str(error)) from None
    try:
        with transaction.atomic():
            host, created = ArenaHost.objects.get_or_create(
                name=name, defaults={"public_key": key, "note": note}
            )
    except IntegrityError:  # a concurrent add of the same name
        host, created = ArenaHost.objects.get(name=name), False
    if host.public_key != key and replace and host.revoked_at is None:
        ArenaHost.objects.filter(pk=host.pk).update(public_key=key)
        host.refresh_from_db()
    if host.public_key != key:
        raise HostError(
            f"arena host {name!r} is registered with another key; revoke it and add the new"
            " key under a new name"
        )
    if host.revoked_at is not None:
        raise HostError(f"arena host {name!r} was revoked: a revoked host stays revoked")
    return host, created


def revoke_host(name: str) -> ArenaHost:
    """Revoke ``name`` now (again: no change); from then on nothing it signs is accepted."""
    ArenaHost.objects.filter(name=name, revoked_at__isnull=True).update(revoked_at=timezone.now())
    host = ArenaHost.objects.filter(name=name).first()
    if host is None:
        raise HostError(f"no arena host {name!r}")
    return host
