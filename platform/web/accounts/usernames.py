"""What a username may be, so that nobody can pass for someone else on a leaderboard.

Names are ASCII letters, digits and ``. _ -`` (no Cyrillic ``а`` that renders as ``a``, no
invisible characters), and two names that *look* alike are one name: each name's
:func:`skeleton` (lower case, ``0`` read as ``o``, ``1``/``i`` as ``l``, ``rn`` as ``m``,
``vv`` as ``w``, separators dropped, after Unicode's confusable skeletons, TR39) is unique
(:class:`~web.accounts.models.UsernameSkeleton`). A few names that would speak for the site
are reserved."""

from __future__ import annotations

from django.core.validators import RegexValidator

from web.bots.house import HOUSE_USERNAME

#: 1-30 characters, starting and ending with a letter or digit.
USERNAME_PATTERN = r"\A[A-Za-z0-9](?:[A-Za-z0-9._-]{0,28}[A-Za-z0-9])?\Z"

username_validator = RegexValidator(
    USERNAME_PATTERN,
    "Use 1-30 ASCII letters, digits and . _ - (starting and ending with a letter or digit).",
    code="invalid",
)

#: Names that would speak for the site (their skeletons are refused too).
RESERVED = frozenset(
    {
        HOUSE_USERNAME,
        "admin",
        "administrator",
        "anonymous",
        "arena",
        "cucumber",
        "cucumbers",
        "deleted",
        "moderator",
        "official",
        "root",
        "security",
        "staff",
        "support",
        "system",
    }
)

_SEPARATORS = str.maketrans("", "", "._-")
_LOOKALIKES = str.maketrans({"0": "o", "1": "l", "i": "l"})
_PAIRS = (("rn", "m"), ("vv", "w"))


def skeleton(username: str) -> str:
    """What ``username`` looks like: two names with one skeleton are the same name to a
    reader (``House``, ``h0use``, ``ho.use``; ``bi11`` and ``bill``)."""
    name = username.lower().translate(_SEPARATORS)
    for pair, single in _PAIRS:
        name = name.replace(pair, single)
    return name.translate(_LOOKALIKES)


_RESERVED_SKELETONS = frozenset(skeleton(name) for name in RESERVED)


def is_reserved(username: str) -> bool:
    """Whether ``username`` is, or looks like, a name that speaks for the site."""
    return skeleton(username) in _RESERVED_SKELETONS
