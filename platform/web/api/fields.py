"""Fields of the API's JSON bodies that take their own JSON type only. DRF's own fields
coerce (``"5"`` for 5, ``1`` or ``"yes"`` for true, ``5`` for ``"5"``), so a
body the schema calls invalid was accepted; a typed client never sends those, and a wrong
type is a mistake worth a 400. Multipart fields (the uploads) are strings and stay DRF's."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class JsonInteger(serializers.IntegerField):
    """A JSON integer: not a string nor a boolean; ``5.0`` is one (JSON Schema says so)."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, float) and data.is_integer():
            data = int(data)
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class JsonBoolean(serializers.BooleanField):
    """``true`` or ``false``."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class JsonString(serializers.CharField):
    """A JSON string (not a number), as sent: untrimmed, so that the schema's lengths and
    patterns are what it is checked against."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)
