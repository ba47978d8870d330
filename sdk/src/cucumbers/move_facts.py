"""Per-move facts in a replay (``replay-format.md``, revision 2): the time each decision
took, public, and for the bot's owner only what it printed during that decision and the
traceback of its fault.

The match loop writes the times into every replay (:func:`with_times`). The private facts
travel apart from the replay (the match report, the site's private output) and are merged
into an owner's copy (:func:`with_private`); :func:`public_replay` takes them out again, so a
replay the site stores or serves to others never holds them.

>>> replay = with_times(replay, {(seat, round, trick): seconds, ...})   # doctest: +SKIP
>>> owners = with_private(replay, {2: moves_of_seat_2}, {2: traceback})   # doctest: +SKIP
>>> public_replay(owners) == replay                                        # doctest: +SKIP
True
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .move_output import MoveOutput
from .tracebacks import BotTraceback

#: The revision of ``cucumbers-replay/1`` that has per-move facts; a replay without a
#: ``revision`` key is revision 1.
REPLAY_REVISION = 2
#: Keys only an owner's copy of a replay may hold: on ``plays[]`` and on ``faults[]``.
PRIVATE_PLAY_KEYS = frozenset({"output"})
PRIVATE_FAULT_KEYS = frozenset({"traceback"})

#: A decision's place: (seat, round number, trick number), round and trick from 1.
DecisionKey = tuple[int, int, int]


def decisions(replay: Mapping[str, Any]) -> Iterator[tuple[DecisionKey, dict[str, Any]]]:
    """Every decision of the record with its play: the plays that are not the engine's, and
    at each fault the seat's auto play that stands for the move that faulted."""
    faults = {(f["seat"], f["round"], f["trick"]) for f in replay.get("faults", [])}
    for rnd in replay["rounds"]:
        for number, trick in enumerate(rnd["tricks"], start=1):
            for play in trick["plays"]:
                key = (play["seat"], rnd["number"], number)
                if not play.get("auto"):
                    yield key, play
                elif key in faults:
                    faults.discard(key)
                    yield key, play


def with_times(replay: Mapping[str, Any], seconds: Mapping[DecisionKey, float]) -> dict[str, Any]:
    """A copy of ``replay`` of revision 2: each decision's play carries ``ms``, the time the
    match loop measured for it (rounded to 0.1 ms)."""
    return add_times(_copy_rounds(replay), seconds)


def add_times(replay: dict[str, Any], seconds: Mapping[DecisionKey, float]) -> dict[str, Any]:
    """:func:`with_times` on a replay of one's own: its plays are changed in place (the
    match loop's, once per game: no copy). ``seconds`` has a key for every decision and
    only for them (the match loop times the moves it asks for), so a lookup per play does."""
    get = seconds.get
    for rnd in replay["rounds"]:
        number = rnd["number"]
        for trick_number, trick in enumerate(rnd["tricks"], start=1):
            for play in trick["plays"]:
                elapsed = get((play["seat"], number, trick_number))
                if elapsed is not None:
                    play["ms"] = round(elapsed * 1000, 1)
    return {
        "format": replay["format"],
        "revision": REPLAY_REVISION,
        **{k: v for k, v in replay.items() if k not in ("format", "revision")},
    }


def with_private(
    replay: Mapping[str, Any],
    outputs: Mapping[int, Sequence[MoveOutput]],
    tracebacks: Mapping[int, BotTraceback | Mapping[str, Any]],
) -> dict[str, Any]:
    """An owner's copy of ``replay``: by seat, each move's printed lines on its play
    (``output``) and the traceback of the seat's fault (``traceback``)."""
    copy = _copy_rounds(replay)
    lines = {
        (seat, move.round, move.trick): list(move.lines)
        for seat, moves in outputs.items()
        for move in moves
        if move.lines
    }
    if lines:
        for key, play in decisions(copy):
            if key in lines:
                play["output"] = lines[key]
    faults = []
    for fault in copy.get("faults", []):
        trace = tracebacks.get(fault.get("seat", -1))
        if trace is not None:
            shown = trace.to_json() if isinstance(trace, BotTraceback) else dict(trace)
            fault = {**fault, "traceback": shown}
        faults.append(fault)
    copy["faults"] = faults
    return copy


def has_private(replay: Mapping[str, Any]) -> bool:
    """Whether ``replay`` holds anything only an owner may read."""
    if any(PRIVATE_FAULT_KEYS & set(fault) for fault in replay.get("faults", [])):
        return True
    return any(
        PRIVATE_PLAY_KEYS & set(play)
        for rnd in replay.get("rounds", [])
        for trick in rnd.get("tricks", [])
        for play in trick.get("plays", [])
    )


def public_replay(replay: Mapping[str, Any]) -> dict[str, Any]:
    """``replay`` without what only an owner may read (itself when it holds none)."""
    if not has_private(replay):
        return dict(replay)
    copy = _copy_rounds(replay)
    for rnd in copy["rounds"]:
        for trick in rnd["tricks"]:
            trick["plays"] = [
                {k: v for k, v in play.items() if k not in PRIVATE_PLAY_KEYS}
                for play in trick["plays"]
            ]
    copy["faults"] = [
        {k: v for k, v in fault.items() if k not in PRIVATE_FAULT_KEYS}
        for fault in copy.get("faults", [])
    ]
    return copy


def moment(replay: Mapping[str, Any] | None, game: int, seat: int, round: int, trick: int) -> str:
    """The viewer's key of the moment ``seat`` played in ``trick`` of ``round`` of game
    ``game`` (``g3-r2-t4-p2``, the URL fragment the replay viewer jumps to): ``p`` counts the
    plays of the trick up to the seat's. Without the replay (or the play): the trick's start."""
    played = 0
    try:
        plays = replay["rounds"][round - 1]["tricks"][trick - 1]["plays"] if replay else []
        played = next(i for i, play in enumerate(plays, start=1) if play["seat"] == seat)
    except (KeyError, IndexError, TypeError, StopIteration):
        pass
    return f"g{game}-r{round}-t{trick}-p{played}"


def game_record(replay: Mapping[str, Any]) -> dict[str, Any]:
    """``replay`` without any per-move fact (time, output, traceback) nor ``revision``: what
    the seed and the moves determine, equal for every play of the same game."""
    copy = _copy_rounds(public_replay(replay))
    for rnd in copy["rounds"]:
        for trick in rnd["tricks"]:
            for play in trick["plays"]:
                play.pop("ms", None)
    copy.pop("revision", None)
    return copy


def _copy_rounds(replay: Mapping[str, Any]) -> dict[str, Any]:
    """A copy deep enough to change plays and faults without touching ``replay``."""
    copy = dict(replay)
    copy["rounds"] = [
        {
            **rnd,
            "tricks": [
                {**trick, "plays": [dict(play) for play in trick["plays"]]}
                for trick in rnd["tricks"]
            ],
        }
        for rnd in replay["rounds"]
    ]
    copy["faults"] = [dict(fault) for fault in replay.get("faults", [])]
    return copy
