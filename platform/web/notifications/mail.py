"""Composing and sending one notice: the facts of what happened, rendered as a plain-text
mail to the owner, with a signed unsubscribe link (no log-in needed) in its body and in its
``List-Unsubscribe`` headers (one click, RFC 8058).

:func:`send_notice` raises on a mail server's error: the task that calls it retries
(``tasks.py``). Nothing is sent to a closed account, to one without an address, or for a
kind its user turned off (checked at sending time, so a late opt-out still counts).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.urls import reverse

from cucumbers.games import title
from web.bots.models import BotVersion

from .models import NoticeKind, wants

logger = logging.getLogger(__name__)

#: Keeps these tokens apart from every other signature of the site.
UNSUBSCRIBE_SALT = "web.notifications.unsubscribe"

SUBJECTS = {
    NoticeKind.REJECTED: "{version} was rejected: {rejection}",
    NoticeKind.FIRST_RATING: "{version} has its first rating: Elo {rating}",
    NoticeKind.RETIRED: "{version} was retired for its faults",
    NoticeKind.TOURNAMENT: "{tournament} has ended",
}


class BadUnsubscribeToken(ValueError):
    """An unsubscribe link that this site did not sign (or that was altered)."""


def unsubscribe_token(user_id: int, kind: str) -> str:
    """A token that turns off ``kind`` for the user, for whoever holds it. It does not
    expire: a link in an old mail still works, and it can do nothing else."""
    return signing.dumps([user_id, kind], salt=UNSUBSCRIBE_SALT)


def read_unsubscribe_token(token: str) -> tuple[int, NoticeKind]:
    try:
        user_id, kind = signing.loads(token, salt=UNSUBSCRIBE_SALT)
        return int(user_id), NoticeKind(kind)
    except (signing.BadSignature, ValueError, TypeError) as error:
        raise BadUnsubscribeToken(str(error)) from None


def absolute(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def version_facts(kind: str, version_id: int) -> tuple[int, dict[str, str]] | None:
    """(owner id, facts) of a version's notice; None when the version is gone."""
    version = BotVersion.objects.select_related("bot__owner").filter(pk=version_id).first()
    if version is None:
        return None
    bot = version.bot
    facts = {
        "version": str(version),
        "bot": bot.name,
        "game": title(bot.game),
        "bot_url": absolute(bot.get_absolute_url()),
    }
    if kind == NoticeKind.REJECTED:
        facts["rejection"] = version.get_rejection_kind_display() or "rejected"
        facts["detail"] = version.rejection_detail
    elif kind == NoticeKind.FIRST_RATING:
        facts["rating"] = f"{bot.rating:.0f}"  # after its first rated match, or later
    elif kind == NoticeKind.RETIRED:
        facts["reason"] = version.retirement_reason
    return bot.owner_id, facts


def send_notice(kind: str, user_id: int, facts: dict[str, str]) -> bool:
    """Send the notice now; False when there is nobody to send it to."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None or not user.email or not wants(user_id, kind):
        logger.info("event=notice.skipped kind=%s user=%s", kind, user_id)
        return False
    unsubscribe = absolute(reverse("unsubscribe", args=[unsubscribe_token(user_id, kind)]))
    context = {
        **facts,
        "username": user.username,
        "unsubscribe_url": unsubscribe,
        "account_url": absolute(reverse("account")),
        "kind_label": NoticeKind(kind).label,
    }
    message = EmailMessage(
        subject=SUBJECTS[NoticeKind(kind)].format_map(context),
        body=render_to_string(f"notifications/mail/{kind}.txt", context),
        to=[user.email],
        headers={
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.send()
    logger.info("event=notice.sent kind=%s user=%s", kind, user_id)
    return True
