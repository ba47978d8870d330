"""A replay drawn as plain text for the terminal, round by round and trick by trick.

>>> print(render_replay(load_replay("game.json.gz")))   # doctest: +SKIP
Five Cucumbers · seed 1234 · engine 0.1.0 · 2 players
  s0  alice/lowball v3
  s1  builtin:random
<BLANKLINE>
Round 1 · leader s0 · 7 cards
  hands  s0: 1 3 3 7 9 12 15
  ...
  T1  s0:9   s1:10  → s1

It draws what the replay says and derives nothing beyond labels, and it copes with broken
replays (missing keys, wrong types), since a replay the validator rejects is exactly the one
someone wants to look at.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from typing import Any

from .games import GameRules, registry

_AUTO_NOTE = "* = auto play: the engine played the lowest card for a faulted bot"
# ANSI SGR codes, used only with color=True.
_BOLD, _DIM, _RED, _GREEN, _YELLOW, _CYAN = "1", "2", "31", "32", "33", "36"


def render_replay(replay: Mapping[str, Any], *, color: bool = False) -> str:
    """The game in ``replay`` as text readable at 80-100 columns: a header with the game,
    seed and players; then for every round its dealer (Concombre), leader, dealt hands, one
    line per trick (``T3  s2:9   s0:10  s1:3*  → s0``, ``*`` marking an auto play), the
    loser and penalty, scores, eliminations, half-cucumbers, and each fault where it
    happened; finally the placement. ANSI colors only when ``color`` is true.

    The title, the score unit, whether rounds have a dealer and the cards' names (Concombre:
    J, Q, K, A) come from the game's rules in the registry; a game it does not know is
    drawn with its name, plain numbers and a dealer wherever the replay gives one."""
    replay = _sanitize(replay)
    paint = _Painter(color)
    players = [_obj(p) for p in _list(replay.get("players"))]
    names = {_key(p.get("seat")): _name(p) for p in players}
    game = replay.get("game")
    rules = registry().get(game) if isinstance(game, str) else None
    seed = f"seed {replay['seed']}" if "seed" in replay else "no seed"  # the seed is optional
    lines = [
        paint(
            _BOLD,
            f"{rules.title if rules else game} · {seed}"
            f" · engine {replay.get('engine')} · {len(players)} players",
        )
    ]
    lines += [f"  s{seat}  {name}" for seat, name in names.items()]
    faults = [_obj(f) for f in _list(replay.get("faults"))]
    rounds = [_obj(r) for r in _list(replay.get("rounds"))]
    for index, rnd in enumerate(rounds, 1):
        number = rnd.get("number", index)
        here = [f for f in faults if f.get("round") == number]
        lines.append("")
        lines += _round(rnd, number, here, rules, paint)
    numbers = {_key(rnd.get("number", index)) for index, rnd in enumerate(rounds, 1)}
    for fault in faults:  # a fault in no recorded round is still shown
        if _key(fault.get("round")) not in numbers:
            lines.append(paint(_RED, _fault(fault, "") + f" (round {fault.get('round')})"))
    lines += ["", paint(_BOLD, "Placement")]
    outcome = _outcomes(rounds, faults)
    for rank, seat in enumerate(_list(replay.get("placement")), 1):
        note = f"  ({outcome[_key(seat)]})" if _key(seat) in outcome else ""
        lines.append(f"  {rank}. s{seat}  {names.get(_key(seat), '?')}{note}")
    if replay.get("capped") is True:
        lines.append(paint(_YELLOW, "Stopped at the 1000-round safety cap."))
    if any(p.get("auto") is True for r in rounds for t in _tricks(r) for p in _plays(t)):
        lines.append(paint(_DIM, _AUTO_NOTE))
    return "\n".join(lines) + "\n"


def _round(
    rnd: dict[str, Any],
    number: object,
    faults: list[dict[str, Any]],
    rules: GameRules | None,
    paint: _Painter,
) -> list[str]:
    name = _card_namer(rules)
    head = f"Round {number}"
    if rules.has_dealer if rules else rnd.get("dealer") is not None:
        head += f" · dealer s{rnd.get('dealer')}"
    head += f" · leader s{rnd.get('leader')} · {rnd.get('hand_size')} cards"
    lines = [paint(_BOLD, head)]
    hands = _list(rnd.get("hands"))
    label = "  hands  "
    for seat, hand in enumerate(hands):
        if isinstance(hand, list):
            cards = " ".join(name(c) for c in sorted(hand, key=_sort_key))
            lines.append(f"{label}s{seat}: {cards}")
            label = " " * len(label)
    tricks = _tricks(rnd)
    for t, trick in enumerate(tricks, 1):
        for fault in faults:
            if fault.get("trick") == t:
                lines.append(paint(_RED, _fault(fault, "  ")))
        cells = []
        for play in _plays(trick):
            auto = play.get("auto") is True
            cell = f"s{play.get('seat')}:{name(play.get('card'))}{'*' if auto else ''}"
            cells.append(paint(_YELLOW, f"{cell:<6}") if auto else f"{cell:<6}")
        winner = paint(_GREEN, f"→ s{trick.get('winner')}")
        lines.append(f"  T{t:<3}" + " ".join(cells) + f" {winner}")
    for fault in faults:  # any fault at a trick the round does not have
        if not (_is_int(fault.get("trick")) and 1 <= fault["trick"] <= len(tricks)):
            lines.append(paint(_RED, _fault(fault, "  ")))
    unit = rules.unit if rules else "points"
    doubled = " (doubled: a 1 in the last trick)" if rnd.get("doubled") is True else ""
    lines.append(
        f"  loser s{rnd.get('loser')} with {name(rnd.get('card'))}:"
        f" +{rnd.get('penalty')} {unit}{doubled}"
    )
    scores = _list(rnd.get("scores"))
    lines.append("  scores  " + "  ".join(f"s{s} {v}" for s, v in enumerate(scores)))
    for key, text, code in (
        ("half", "half-cucumber", _CYAN),
        ("eliminated", "eliminated", _RED),
    ):
        seats = _list(rnd.get(key))
        if seats:
            lines.append(paint(code, f"  {text}: " + ", ".join(f"s{s}" for s in seats)))
    if faults:
        out = ", ".join(f"s{f.get('seat')}" for f in faults)
        lines.append(paint(_RED, f"  disqualified: {out} (faulted)"))
    return lines


def _outcomes(rounds: list[dict[str, Any]], faults: list[dict[str, Any]]) -> dict[Any, str]:
    """A note per seat that left the game: when and why."""
    notes: dict[Any, str] = {}
    for index, rnd in enumerate(rounds, 1):
        for seat in _list(rnd.get("eliminated")):
            notes[_key(seat)] = f"eliminated in round {rnd.get('number', index)}"
    for fault in faults:
        where = f"round {fault.get('round')}"
        notes[_key(fault.get("seat"))] = f"disqualified in {where}: {fault.get('kind')}"
    return notes


def _fault(fault: dict[str, Any], indent: str) -> str:
    """The fault as lines of at most 100 columns (a detail may hold 500 characters)."""
    text = (
        f"! s{fault.get('seat')} faulted ({fault.get('kind')}) at trick {fault.get('trick')}"
        f" and is auto-played to the end of the round: {fault.get('detail')}"
    )
    return textwrap.fill(text, 100, initial_indent=indent, subsequent_indent=indent + "    ")


def _name(player: dict[str, Any]) -> str:
    name = str(player.get("name", "?"))
    name = name if len(name) <= 40 else name[:39] + "…"
    version = player.get("version")
    return f"{name} v{version}" if _is_int(version) else name


def _sanitize(value: Any) -> Any:
    """A copy of ``value`` with every control character in its strings escaped: names and
    fault details come from bots and their authors, and must not drive the terminal."""
    if isinstance(value, str):
        return "".join(c if c.isprintable() else repr(c)[1:-1] for c in value)
    if isinstance(value, Mapping):
        return {k: _sanitize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_sanitize(v) for v in value]
    return value


class _Painter:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text


def _key(value: object) -> object:
    """``value`` as a dict key: a broken replay may hold a list where a seat belongs."""
    return value if isinstance(value, (int, str)) or value is None else repr(value)


def _card_namer(rules: GameRules | None) -> Callable[[object], str]:
    """How to print a card: by the rules' name for it, or as the replay holds it (a broken
    replay may hold anything where a card belongs)."""
    if rules is None:
        return str
    return lambda card: rules.card_name(card) if _is_int(card) else str(card)  # type: ignore[arg-type]


def _is_int(value: object) -> bool:
    return type(value) is int


def _sort_key(card: object) -> tuple[int, str]:
    return (card, "") if isinstance(card, int) else (0, str(card))


def _obj(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _tricks(rnd: dict[str, Any]) -> list[dict[str, Any]]:
    return [_obj(t) for t in _list(rnd.get("tricks"))]


def _plays(trick: dict[str, Any]) -> list[dict[str, Any]]:
    return [_obj(p) for p in _list(trick.get("plays"))]
