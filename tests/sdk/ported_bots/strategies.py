"""A teaching library of strategies ported to the SDK: one base class and a strategy per
subclass, two of which are not one line of inheritance, so the file says which one plays
(``BOT = Careful``; tests/sdk/test_loader.py, tests/web/bots/test_source_check.py)."""

from __future__ import annotations

from cucumbers import Bot, View


class Strategy(Bot):
    def play(self, view: View) -> int:
        return self.pick(view.legal)

    def pick(self, legal: tuple[int, ...]) -> int:
        return legal[0]


class Bold(Strategy):
    def pick(self, legal: tuple[int, ...]) -> int:
        return legal[-1]


class Careful(Strategy):
    def pick(self, legal: tuple[int, ...]) -> int:
        return legal[len(legal) // 2]


BOT = Careful
