"""Play a recorded game back to one bot, view by view: the engine of ``cucumbers repro``.

A replay holds the deal seed and every move; the engine is deterministic from the seed, so
re-running it with the recorded moves rebuilds, move by move, the exact :class:`View` each
seat was shown. :func:`reproduce` hands the views of one seat, in order, to a bot and stops
at the first one where the bot now answers differently from the record (or faults).

>>> result = reproduce(load_replay("game-00001.json"), 2, load_bot("mybot.py"))  # doctest: +SKIP
>>> result.divergence is None                   # the bot played the recorded game again
True

What the views cannot restore: ``bank_seconds`` (the time bank is shown full; on the server
it shrank when the bot overran) and anything the bot remembered from earlier games of its
match (the bot object here has played none).
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

    def describe(self) -> str:
        if self.fault is None:
            return f"played {self.card}"
        return f"faulted: {self.fault['kind']}: {self.fault['detail']}"


@dataclass(frozen=True, slots=True)
class Divergence:
    """The first decision where the bot departs from the record.

    Attributes:
        kind: how it departs.
        step: the recorded decision.
        view: the view the bot was given (the same the seat saw in the recorded game).
        now: what the bot does now, in words (``plays 9``, ``raises ZeroDivisionError ...``).
    """

    kind: Difference
    step: Step
    view: View
    now: str


@dataclass(frozen=True, slots=True)
class ReproResult:
    """What :func:`reproduce` found.

    Attributes:
        seat: the seat that was replayed to the bot.
        decisions: decisions of that seat compared (the divergent one included).
        divergence: the first departure, or None when the bot plays the recorded game.
        fixed: the record has a fault of this seat and the bot now plays a legal card there
            in time; the comparison stops at that point, since the record goes on with the
            engine's auto plays.
    """

    seat: int
    decisions: int
    divergence: Divergence | None
    fixed: Step | None = None

    @property
    def same(self) -> bool:
        """The bot played every recorded decision the same (or now plays where it faulted)."""
        return self.divergence is None


def recorded_steps(replay: Mapping[str, Any]) -> Iterator[Step]:
    """Every decision of the record, in order. Auto plays are the engine's, not a
    decision, except the one at a fault, which stands for the move that faulted."""
    faults = {(f["seat"], f["round"], f["trick"]): f for f in replay.get("faults", [])}
    for rnd in replay["rounds"]:
        for number, trick in enumerate(rnd["tricks"], start=1):
            for play in trick["plays"]:
                seat = play["seat"]
                if not play.get("auto"):
                    yield Step(seat, rnd["number"], number, play["card"], None)
                elif (fault := faults.pop((seat, rnd["number"], number), None)) is not None:
                    yield Step(seat, rnd["number"], number, None, fault)


def _ask(bot: Bot, view: View, seconds: float, hook_error: str | None) -> tuple[int | None, str]:
    """The bot's card (None when it faults) and what it did, in words. A hook that raised
    since the last move is this move's fault, as in a match."""
    if hook_error is not None:
        return None, hook_error
    started = time.perf_counter()
    try:
        card = bot.play(view)
    except (Exception, SystemExit) as error:
        return None, f"raises {describe_exception(error)}"
    elapsed = time.perf_counter() - started
    if type(card) is not int or card not in view.legal:
        return None, f"returns {card!r}, not a legal card (legal: {list(view.legal)})"
    if elapsed > seconds:
        return None, f"plays {card} after {elapsed:.2f} s, over the {seconds:g} s it had"
    return card, f"plays {card}"


def reproduce(
    replay: Mapping[str, Any],
    seat: int,
    bot: Bot,
    *,
    limits: Limits | None = None,
    game_number: int = 1,
) -> ReproResult:
    """Give ``bot`` the views seat ``seat`` saw in ``replay``, in order, with the hooks
    (``start_game``, ``end_round``, ``end_game``) at their places, and compare its moves
    with the record. Raises :class:`ReplayMismatch` when the replay cannot be rebuilt.

    ``limits`` give the views' ``move_seconds`` and ``bank_seconds`` (default: the usual
    limits; the site's are the same) and the time a move may take here.
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
    )
    decisions, rounds_seen = 0, 0
    for step in recorded_steps(replay):
        if state.to_move != step.seat or (step.card is not None and step.card not in state.legal()):
            raise ReplayMismatch(
                f"round {step.round} trick {step.trick}: the record has seat {step.seat}"
                f" {step.describe()}, which this engine does not allow there (is the replay"
                f" from another engine version, or edited?)"
            )
        if step.seat == seat:
            view = state.view(seat, limits.move_seconds, limits.bank_seconds)
            decisions += 1
            card, now = _ask(bot, view, allowed, hook_error)
            hook_error = None
            if step.fault is not None:
                if card is None:
                    return ReproResult(
                        seat, decisions, Divergence(Difference.SAME_FAULT, step, view, now)
                    )
                return ReproResult(seat, decisions, None, fixed=step)
            if card != step.card:
                kind = Difference.FAULT if card is None else Difference.MOVE
                return ReproResult(seat, decisions, Divergence(kind, step, view, now))
        if step.fault is not None:
            state.fault(FaultKind(step.fault["kind"]), str(step.fault["detail"]))
        else:
            state.play(step.card)
        while rounds_seen < state.rounds_finished:
            hook_error = hook_error or _hook(bot.end_round, state.round_result(rounds_seen))
            rounds_seen += 1
    if not state.is_terminal:
        raise ReplayMismatch("the record ends before the game does on this engine")
    placement = tuple(state.placement())
    bot.end_game(
        GameResult(
            seat=seat,
            place=placement.index(seat) + 1,
            placement=placement,
            scores=tuple(state.scores),
            capped=state.capped,
        )
    )
    return ReproResult(seat, decisions, None)


def _hook(method: Callable[[Any], object], notice: object) -> str | None:
    """Call a hook; what it raised, in words, or None."""
    try:
        method(notice)
    except (Exception, SystemExit) as error:
        return f"{method.__name__} raises {describe_exception(error)}"
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


def format_result(result: ReproResult) -> str:
    """What ``cucumbers repro`` prints."""
    if result.fixed is not None:
        return (
            f"seat {result.seat}: the same {result.decisions - 1} decisions, then where the"
            f" record has round {result.fixed.round} trick {result.fixed.trick}"
            f" {result.fixed.describe()}, the bot now plays a legal card in time: fixed"
        )
    d = result.divergence
    if d is None:
        return (
            f"seat {result.seat}: the bot played the recorded game again"
            f" ({result.decisions} decisions, all the same)"
        )
    what = {
        Difference.MOVE: "plays differently",
        Difference.FAULT: "faults",
        Difference.SAME_FAULT: "faults again",
    }[d.kind]
    return "\n".join(
        [
            f"seat {result.seat}: decision {result.decisions}, round {d.step.round} trick"
            f" {d.step.trick}: the bot {what}",
            f"  recorded: {d.step.describe()}",
            f"  now:      {d.now}",
            "the view:",
            format_view(d.view),
        ]
    )
