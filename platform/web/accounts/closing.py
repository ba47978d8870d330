"""Closing an account: the owner's bots (with their versions and sources), API tokens,
e-mail address and password go; the user row stays, inactive, so that the name, which
past matches and replays still show, can never be taken by someone else."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from web.bots.deletion import delete_bot

from .models import ApiToken


def close_account(user: User) -> None:
    with transaction.atomic():
        for bot in user.bots.all():
            delete_bot(bot)
        ApiToken.objects.live().filter(user=user).update(revoked_at=timezone.now())
        user.email = ""
        user.first_name = user.last_name = ""
        user.is_active = False
        user.is_staff = user.is_superuser = False
        user.set_unusable_password()
        user.save()
