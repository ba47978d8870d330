"""``{{ participant.name|breakable }}``: a seat's name that wraps where a reader expects.

A name is ``owner/bot`` or ``builtin:NAME``; browsers find no line break after the ``/`` or
the ``:``, so a narrow column (a match's participants on a phone) broke inside the words
(``builtin:heur|istic``). A ``<wbr>`` after each offers that break first."""

from __future__ import annotations

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_AFTER = re.compile(r"([/:])")


@register.filter
def breakable(name: str) -> SafeString:
    """The name escaped, with a ``<wbr>`` after each ``/`` and ``:``."""
    return mark_safe(_AFTER.sub(r"\1<wbr>", escape(name)))  # escaped first, then the tags
