"""API tokens: created and revoked by their user in the web UI, stored as SHA-256 digests
(a database leak gives no usable token), shown in full once, at creation."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models
from django.utils import timezone

#: Every token starts with this, so a leaked one is recognisable (and greppable).
TOKEN_PREFIX = "cuc_"
#: Characters of the token kept in clear to tell tokens apart in the UI.
SHOWN_CHARS = 8


def digest_token(token: str) -> str:
    """The stored form of ``token``."""
    return hashlib.sha256(token.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet["ApiToken"]):
    def live(self) -> ApiTokenQuerySet:
        return self.filter(revoked_at__isnull=True)


class ApiToken(models.Model):
    """One API token of a user. The token itself is never stored."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, help_text="what this token is for, e.g. a laptop")
    shown = models.CharField(max_length=SHOWN_CHARS + len(TOKEN_PREFIX), editable=False)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.shown}…)"

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    @classmethod
    def issue(cls, user: User, name: str) -> tuple[ApiToken, str]:
        """A new token for ``user``: the saved row and the token, to show exactly once."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        row = cls.objects.create(
            user=user,
            name=name,
            shown=token[: len(TOKEN_PREFIX) + SHOWN_CHARS],
            digest=digest_token(token),
        )
        return row, token

    def revoke(self) -> None:
        """Stop the token from working; the row stays for the record."""
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])

    @classmethod
    def authenticate(cls, token: str) -> ApiToken | None:
        """The live token row for ``token`` (and mark it used), or None."""
        row = (
            cls.objects.live()
            .select_related("user")
            .filter(digest=digest_token(token), user__is_active=True)
            .first()
        )
        if row is not None:
            # One UPDATE, no read-modify-write: concurrent requests may both stamp it.
            cls.objects.filter(pk=row.pk).update(last_used_at=timezone.now())
        return row


def revoke_tokens_on_password_change(sender: type, instance: object, **kwargs: object) -> None:
    """``pre_save`` of the user model: a new password revokes every token of the user (a
    password change is what one does after a leak; a token must not outlive it). Whatever
    changes it (the password change page, a reset, the admin, ``set_password`` in a shell)."""
    pk = getattr(instance, "pk", None)
    if pk is None or kwargs.get("raw"):
        return
    update_fields = kwargs.get("update_fields")
    if update_fields is not None and "password" not in update_fields:  # type: ignore[operator]
        return
    before = sender._default_manager.filter(pk=pk).values_list("password", flat=True).first()  # type: ignore[attr-defined]
    if before is not None and before != getattr(instance, "password", None):
        ApiToken.objects.live().filter(user_id=pk).update(revoked_at=timezone.now())


class UsernameSkeleton(models.Model):
    """The :func:`~web.accounts.usernames.skeleton` of a user's name, unique: two names
    that look alike cannot both exist. Kept by :func:`record_username_skeleton` whoever
    creates or renames the user (sign-up, the admin, ``createsuperuser``)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="username_skeleton",
    )
    skeleton = models.CharField(max_length=150, unique=True)

    def __str__(self) -> str:
        return self.skeleton


def record_username_skeleton(sender: type, instance: object, **kwargs: object) -> None:
    """``post_save`` of the user model: store its name's skeleton (an IntegrityError, and so
    a rolled-back save, when another user's name looks the same)."""
    update_fields = kwargs.get("update_fields")
    if kwargs.get("raw") or (update_fields is not None and "username" not in update_fields):  # type: ignore[operator]
        return  # a log-in saves last_login only
    from .usernames import skeleton

    pk: int = getattr(instance, "pk")  # noqa: B009  (saved: it has one; instance is any user model)
    username = str(getattr(instance, "username", ""))
    UsernameSkeleton.objects.update_or_create(user_id=pk, defaults={"skeleton": skeleton(username)})
