"""The arena hosts whose reports the platform accepts: each signs its ``started`` messages
and reports with its own Ed25519 key (``arena/signing.py``); revoking a host cuts it off at
once, whatever it sends afterwards."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from arena.signing import KeyFileError, parse_public_key


def validate_public_key(value: str) -> None:
    try:
        parse_public_key(value)
    except KeyFileError as error:
        raise ValidationError(str(error)) from None


class ArenaHost(models.Model):
    """An arena host, known by the name it signs with (its ``ARENA_HOST_NAME``)."""

    name = models.CharField(
        max_length=100, unique=True, help_text="the name it signs with (ARENA_HOST_NAME)"
    )
    public_key = models.CharField(
        max_length=100, validators=[validate_public_key], help_text="ed25519:<base64>"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    revoked_at = models.DateTimeField(
        null=True, blank=True, help_text="from then on, nothing it signs is accepted"
    )
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None
