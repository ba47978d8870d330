"""Numbers as the templates' ``floatformat`` shows them, for rows built in Python
(``web.links`` says why such rows exist): the same rounding, half away from zero."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

_ONE = Decimal(1)


def fixed(number: float, places: int) -> str:
    """``{{ number|floatformat:places }}``, and never "-0"."""
    rounded = Decimal(repr(number)).quantize(_ONE.scaleb(-places), ROUND_HALF_UP)
    return str(rounded if rounded else abs(rounded))


def whole(number: float) -> str:
    """``{{ number|floatformat:0 }}``."""
    return fixed(number, 0)
