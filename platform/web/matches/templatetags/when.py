"""``{{ moment|ago }}``: "just now", "3 minutes ago", "2 days ago" (Django's ``timesince``
says "0 minutes" for the first minute)."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import timezone
from django.utils.timesince import timesince

register = template.Library()


@register.filter
def ago(moment: datetime | None) -> str:
    if moment is None:
        return ""
    if (timezone.now() - moment).total_seconds() < 60:
        return "just now"
    return f"{timesince(moment, depth=1)} ago"


@register.filter
def duration(seconds: float) -> str:
    """``75`` -> "1 min 15 s"; ``3.2`` -> "3 s"."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


@register.filter
def get(mapping: dict[str, object], key: str) -> object:
    """``{{ counts|get:kind }}``: a mapping's value by a variable key."""
    return mapping.get(key)
