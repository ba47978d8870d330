"""The URLs of the pages that long lists link to, one per row: a bot, a match, a user.

``reverse()`` costs about 20 µs; the match list links 50 matches and some 225 seats, the
leaderboard 50 bots and their 50 owners. Each pattern is reversed once (per URL
configuration and script prefix, which is all a reversal depends on besides its argument)
with a stand-in argument, and then only formatted. The argument is quoted as ``reverse()``
quotes it, so the URLs are the same.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import quote

from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.http import RFC3986_SUBDELIMS

# A stand-in no real argument contains, for both int and str converters.
_STAND_IN = 987654321987654321
# What reverse() leaves unquoted in a path (django.urls.resolvers).
_SAFE = RFC3986_SUBDELIMS + "/~:@"


@lru_cache(maxsize=64)
def _pattern(name: str, urlconf: str | None, prefix: str) -> tuple[str, str]:
    """The reversed URL of ``name`` around its one argument: (before, after)."""
    before, after = reverse(name, urlconf=urlconf, args=[_STAND_IN]).split(str(_STAND_IN))
    return before, after


def _url(name: str, argument: str) -> str:
    before, after = _pattern(name, get_urlconf(), get_script_prefix())
    return f"{before}{quote(argument, safe=_SAFE)}{after}"


# Bot.get_absolute_url and Match.get_absolute_url are these: one way to link a bot or a match.


def bot_url(bot_id: int) -> str:
    """``reverse("bot-detail", args=[bot_id])``."""
    return _url("bot-detail", str(int(bot_id)))


def match_url(match_id: int) -> str:
    """``reverse("match-detail", args=[match_id])``."""
    return _url("match-detail", str(int(match_id)))


def profile_url(username: str) -> str:
    """``reverse("profile", args=[username])``."""
    return _url("profile", username)
