"""Settings from the environment, with helpers that fail loudly on a malformed value
(a typo in production configuration must stop the start, not silently pick a default)."""

from __future__ import annotations

import os

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class ImproperlyConfiguredEnv(ValueError):
    """An environment variable holds a value its setting cannot use."""


def envstr(name: str, default: str) -> str:
    """The variable's text, or ``default`` when it is unset."""
    return os.environ.get(name, default)


def envbool(name: str, default: bool) -> bool:
    """``1/true/yes/on`` or ``0/false/no/off`` (any case); anything else is an error."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfiguredEnv(f"{name}={raw!r}: use 1 or 0 (true/false, yes/no, on/off)")


def envint(name: str, default: int, *, minimum: int = 0) -> int:
    """A whole number of at least ``minimum``."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfiguredEnv(f"{name}={raw!r}: not a whole number") from None
    if value < minimum:
        raise ImproperlyConfiguredEnv(f"{name}={raw!r}: must be at least {minimum}")
    return value


def envlist(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; blanks around items are dropped."""
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def envchoice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """One of ``choices``."""
    value = os.environ.get(name, default)
    if value not in choices:
        raise ImproperlyConfiguredEnv(f"{name}={value!r}: choose one of {', '.join(choices)}")
    return value
