"""Play a recorded game back to one bot, view by view: the engine of ``cucumbers repro``.

A replay holds the deal seed and every move; the engine is deterministic from the seed, so
re-running it with the recorded moves rebuilds, move by move, the exact :class:`View` each
seat was shown. :func:`reproduce` hands the views of one seat, in order, to a bot and stops
at the first one where the bot now answers differently from the record (or faults).

>>> result = reproduce(load_replay("game-00001.json"), 2, load_bot("mybot.py"))  # doctest: +SKIP
>>> result.divergence is None                   # the bot played the recorded game again
True

A bot that keeps state across the games of its match (as the starter invites) is reproduced
by :func:`reproduce_match`: the same bot object first gets its views of every earlier game of
the match (its seat in each), then the game asked. Where the record has a fault and the bot
now plays a legal card, the fault is *not reproduced*: repro cannot tell a fix from a fault
that depends on what the replays do not give back, and says so.

The time bank: a replay of revision 2 has each decision's time (``ms``), so the views show
the bank as it shrank in the recorded game; an older replay's views show it full.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .bot import Bot
from .engine import GameState
from .faults import FaultKind
from .games import UnknownGameError, rules_for
from .loader import describe_exception
from .match import derive_seed
from .runners.base import Limits
from .tracebacks import BotTraceback, bot_traceback, format_json
from .view import GameResult, GameStart, View


class ReplayMismatch(ValueError):
    """The replay does not follow from its seed on this engine (another engine version, or
    an edited file), so the views cannot be rebuilt. The message says where."""


class Difference(StrEnum):
    """How the bot departed from the record."""

    #: It played another card than the recorded one.
    MOVE = "move"
    #: It raised, returned an illegal card or ran out of time where the record has a move.
    FAULT = "fault"
    #: The record has a fault here and the bot faults again (the bug is still there).
    SAME_FAULT = "same_fault"


@dataclass(frozen=True, slots=True)
class Step:
    """One decision of the record: ``seat`` played ``card``, or faulted (``fault``)."""

    seat: int
    round: int
    trick: int
    card: int | None
    fault: Mapping[str, Any] | None
    ms: float | None = None

    def describe(self) -> str:
        if self.fault is None:
            return f"played {self.card}"
        return f"faulted: {self.fault['kind']}: {self.fault['detail']}"

    def recorded_traceback(self) -> str | None:
        """The fault's traceback as the owner's replay has it, or None."""
        if self.fault is None or "traceback" not in self.fault:
            return None
        return format_json(self.fault["traceback"])


@dataclass(frozen=True, slots=True)
class Divergence:
    """The first decision where the bot departs from the record.

    Attributes:
        kind: how it departs.
        step: the recorded decision.
        view: the view the bot was given (the same the seat saw in the recorded game).
        now: what the bot does now, in words (``plays 9``, ``raises ZeroDivisionError ...``).
        traceback: the bot's own frames when it raised now.
    """

    kind: Difference
    step: Step
    view: View
    now: str
    traceback: BotTraceback | None = None


@dataclass(frozen=True, slots=True)
class ReproResult:
    """What :func:`reproduce` found.

    Attributes:
        seat: the seat that was replayed to the bot.
        decisions: decisions of that seat compared (the divergent one included).
        divergence: the first departure, or None when the bot plays the recorded game.
        not_reproduced: the record has a fault of this seat and the bot now plays a legal
            card there in time: the fault did not happen again (fixed, or it depends on what
            the replay does not give back); the comparison stops at that point, since the
            record goes on with the engine's auto plays.
        game_number: the game's number in its match.
        departures: decisions that departed from the record (when played to the end).
    """

    seat: int
    decisions: int
    divergence: Divergence | None
    not_reproduced: Step | None = None
    game_number: int = 1
    departures: int = 0

    @property
    def same(self) -> bool:
        """The bot played every recorded decision the same, or plays a legal card where it
        faulted: what a regression test (``--pytest``) asks of a fixed bot."""
        return self.divergence is None

    @property
    def reproduced(self) -> bool:
        """The recorded game happened again: every decision the same and, where the record
        has the seat's fault, a fault again (``cucumbers repro`` exits 0)."""
        if self.divergence is not None:
            return self.divergence.kind is Difference.SAME_FAULT
        return self.not_reproduced is None


def recorded_steps(replay: Mapping[str, Any]) -> Iterator[Step]:
    """Every decision of the record, in order. Auto plays are the engine's, not a
    decision, except the one at a fault, which stands for the move that faulted."""
    faults = {(f["seat"], f["round"], f["trick"]): f for f in replay.get("faults", [])}
    for rnd in replay["rounds"]:
        for number, trick in enumerate(rnd["tricks"], start=1):
            for play in trick["plays"]:
                seat = play["seat"]
                ms = play.get("ms")
                ms = float(ms) if type(ms) in (int, float) else None
                if not play.get("auto"):
                    yield Step(seat, rnd["number"], number, play["card"], None, ms)
                elif (fault := faults.pop((seat, rnd["number"], number), None)) is not None:
                    yield Step(seat, rnd["number"], number, None, fault, ms)


#: What the bot did at a decision: its card (None when it faulted), in words, its traceback.
Answer = tuple[int | None, str, BotTraceback | None]


def _ask(
    bot: Bot, view: View, seconds: float, hook_error: Answer | None, bot_file: str | None
) -> Answer:
    """The bot's card (None when it faults), what it did in words, and its traceback when
    it raised. A hook that raised since the last move is this move's fault, as in a match."""
    if hook_error is not None:
        return hook_error
    started = time.perf_counter()
    try:
        card = bot.play(view)
    except (Exception, SystemExit) as error:
        return None, f"raises {describe_exception(error)}", bot_traceback(error, bot_file)
    elapsed = time.perf_counter() - started
    if type(card) is not int or card not in view.legal:
        return None, f"returns {card!r}, not a legal card (legal: {list(view.legal)})", None
    if elapsed > seconds:
        return None, f"plays {card} after {elapsed:.2f} s, over the {seconds:g} s it had", None
    return card, f"plays {card}", None


def reproduce(
    replay: Mapping[str, Any],
    seat: int,
    bot: Bot,
    *,
    limits: Limits | None = None,
    game_number: int = 1,
    bot_file: str | None = None,
    to_the_end: bool = False,
) -> ReproResult:
    """Give ``bot`` the views seat ``seat`` saw in ``replay``, in order, with the hooks
    (``start_game``, ``end_round``, ``end_game``) at their places, and compare its moves
    with the record. Raises :class:`ReplayMismatch` when the replay cannot be rebuilt.

    ``limits`` give the views' ``move_seconds`` and ``bank_seconds`` (default: the usual
    limits; the site's are the same) and the time a move may take here; ``game_number`` is
    the game's number in its match (the bot's ``GameStart`` says it); ``bot_file``: the
    bot's file, whose frames a traceback keeps. ``to_the_end``: go on past the first
    departure to the end of the game, as for an earlier game of a match (the views are the
    record's whatever the bot answers), counting departures.
    """
    limits = limits or Limits()
    try:
        rules = rules_for(str(replay["game"]))
        players = list(replay["players"])
        seed = replay["seed"]
        state = GameState(rules, len(players), seed)
    except (KeyError, TypeError, ValueError, UnknownGameError) as error:
        raise ReplayMismatch(f"not a replay this engine can play: {error}") from None
    if not 0 <= seat < len(players):
        raise ReplayMismatch(f"no seat {seat}: the game has seats 0 to {len(players) - 1}")
    names = tuple(str(p.get("name", f"seat {s}")) for s, p in enumerate(players))
    allowed = limits.move_seconds + limits.bank_seconds
    hook_error = _hook(
        bot.start_game,
        GameStart(
            game=str(rules.name),
            seat=seat,
            num_players=len(players),
            players=names,
            game_number=game_number,
            bot_seed=derive_seed("bot", seed, seat),
            move_seconds=limits.move_seconds,
            bank_seconds=limits.bank_seconds,
        ),
        bot_file,
    )
    bank = float(limits.bank_seconds)
    decisions, rounds_seen, departures = 0, 0, 0
    first: Divergence | None = None
    not_reproduced: Step | None = None

    def result() -> ReproResult:
        return ReproResult(seat, decisions, first, not_reproduced, game_number, departures)

    for step in recorded_steps(replay):
        if state.to_move != step.seat or (step.card is not None and step.card not in state.legal()):
            raise ReplayMismatch(
                f"round {step.round} trick {step.trick}: the record has seat {step.seat}"
                f" {step.describe()}, which this engine does not allow there (is the replay"
                f" from another engine version, or edited?)"
            )
        if step.seat == seat:
            view = state.view(seat, limits.move_seconds, bank)
            decisions += 1
            card, now, trace = _ask(bot, view, allowed, hook_error, bot_file)
            hook_error = None
            divergence: Divergence | None = None
            if step.fault is not None:
                if card is None:
                    divergence = Divergence(Difference.SAME_FAULT, step, view, now, trace)
                elif first is None and not_reproduced is None:
                    not_reproduced = step
                    if not to_the_end:
                        return result()
            elif card != step.card:
                kind = Difference.FAULT if card is None else Difference.MOVE
                divergence = Divergence(kind, step, view, now, trace)
            if divergence is not None:
                departures += divergence.kind is not Difference.SAME_FAULT
                if first is None and not_reproduced is None:
                    first = divergence
                if not to_the_end:
                    return result()
            if step.ms is not None:  # the bank as the match loop drew on it
                bank = max(0.0, bank - max(0.0, step.ms / 1000 - limits.move_seconds))
        if step.fault is not None:
            state.fault(FaultKind(step.fault["kind"]), str(step.fault["detail"]))
        else:
            state.play(step.card)
        while rounds_seen < state.rounds_finished:
            hook_error = hook_error or _hook(
                bot.end_round, state.round_result(rounds_seen), bot_file
            )
            rounds_seen += 1
    if not state.is_terminal:
        raise ReplayMismatch("the record ends before the game does on this engine")
    placement = tuple(state.placement())
    _hook(
        bot.end_game,
        GameResult(
            seat=seat,
            place=placement.index(seat) + 1,
            placement=placement,
            scores=tuple(state.scores),
            capped=state.capped,
        ),
        bot_file,
    )
    return result()


def _hook(method: Callable[[Any], object], notice: object, bot_file: str | None) -> Answer | None:
    """Call a hook; what it raised (a fault at the next move), or None."""
    try:
        method(notice)
    except (Exception, SystemExit) as error:
        words = f"{method.__name__} raises {describe_exception(error)}"
        return None, words, bot_traceback(error, bot_file)
    return None


def format_view(view: View) -> str:
    """The view as a bot author reads it: the hand, the legal cards, the trick, the scores."""
    lines = [
        f"  game {view.game}, round {view.round_number}, trick {view.trick_number} of"
        f" {view.tricks_per_round}, seat {view.seat} of {view.num_players}",
        f"  hand:   {list(view.hand)}",
        f"  legal:  {list(view.legal)}",
        "  trick:  "
        + (
            ", ".join(f"seat {p.seat} played {p.card}" for p in view.trick)
            if view.trick
            else "(you lead)"
        ),
        f"  high:   {view.high}",
        f"  scores: {list(view.scores)}  (active seats {list(view.active)})",
    ]
    for number, trick in enumerate(view.tricks, start=1):
        plays = " ".join(f"s{p.seat}:{p.card}" for p in trick.plays)
        lines.append(f"  trick {number}: {plays} -> seat {trick.winner}")
    return "\n".join(lines)


def format_result(result: ReproResult, alone_note: str = "") -> str:
    """What ``cucumbers repro`` prints of the game asked. ``alone_note``: why a fault that
    is not reproduced may need what this replay alone does not give back."""
    where = f"game {result.game_number}, seat {result.seat}"
    if result.not_reproduced is not None:
        step = result.not_reproduced
        lines = [
            f"{where}: the same {result.decisions - 1} decisions, then where the record has"
            f" round {step.round} trick {step.trick} {step.describe()}, the bot now plays a"
            " legal card in time: the fault is NOT reproduced",
            "  it is fixed, or it depends on what was not given back here: "
            + (alone_note or "the machine, the time, or randomness not drawn from bot_seed"),
        ]
        if (recorded := step.recorded_traceback()) is not None:
            lines += ["the recorded traceback:", _indent(recorded)]
        return "\n".join(lines)
    d = result.divergence
    if d is None:
        return (
            f"{where}: the bot played the recorded game again"
            f" ({result.decisions} decisions, all the same)"
        )
    what = {
        Difference.MOVE: "the bot plays differently",
        Difference.FAULT: "the bot faults",
        Difference.SAME_FAULT: "the fault is reproduced: the bot faults again",
    }[d.kind]
    lines = [
        f"{where}: decision {result.decisions}, round {d.step.round} trick {d.step.trick}: {what}",
        f"  recorded: {d.step.describe()}",
        f"  now:      {d.now}",
    ]
    if d.traceback is not None:
        lines += ["the traceback now:", _indent(d.traceback.format())]
    elif (recorded := d.step.recorded_traceback()) is not None:
        lines += ["the recorded traceback:", _indent(recorded)]
    return "\n".join([*lines, "the view:", format_view(d.view)])


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())
