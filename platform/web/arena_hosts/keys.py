"""The keys of the messages between the site and the arena: the platform's own signer, for
the jobs it sends (``ARENA_SIGNING_KEY_FILE``), and the arena hosts' public keys, for the
``started`` messages and reports they send back (:class:`~web.arena_hosts.models.ArenaHost`).
"""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from arena.signing import (
    PLATFORM_SIGNER,
    KeyFileError,
    Purpose,
    SignatureError,
    Signer,
    load_private_key,
    open_envelope,
    parse_public_key,
)

from .models import ArenaHost

_signers: dict[str, Signer] = {}


def platform_signer() -> Signer:
    """The platform's signer, from ``ARENA_SIGNING_KEY_FILE`` (read once per process);
    raises ``ImproperlyConfigured`` naming the setting."""
    path = settings.ARENA_SIGNING_KEY_FILE
    if not path:
        raise ImproperlyConfigured(
            "ARENA_SIGNING_KEY_FILE is not set: the platform's private key, which signs every"
            " job (python -m arena keygen --out PATH; docs/platform.md)"
        )
    signer = _signers.get(path)
    if signer is None:
        try:
            signer = Signer(PLATFORM_SIGNER, load_private_key(path))
        except KeyFileError as error:
            raise ImproperlyConfigured(f"ARENA_SIGNING_KEY_FILE: {error}") from None
        _signers[path] = signer
    return signer


def require_signing_key() -> None:
    """At the start of a process that sends jobs (the web server, the platform's worker):
    without a usable key it stops, naming the setting, rather than failing each send."""
    platform_signer()


def host_key(name: str) -> Ed25519PublicKey:
    """The public key of the arena host ``name``; raises ``SignatureError`` for a host
    that is unknown or revoked."""
    host = ArenaHost.objects.filter(name=name).first()
    if host is None:
        raise SignatureError(f"unknown arena host {name!r}")
    if host.revoked_at is not None:
        raise SignatureError(f"arena host {name!r} was revoked on {host.revoked_at:%Y-%m-%d %H:%M}")
    try:
        return parse_public_key(host.public_key)
    except KeyFileError as error:
        raise SignatureError(f"arena host {name!r} has an unusable key: {error}") from None


def open_from_host(text: str, purpose: Purpose) -> tuple[str, str]:
    """(host name, body) of a message an arena host signed for ``purpose``; raises
    ``SignatureError`` naming the problem."""
    return open_envelope(text, purpose, host_key)
