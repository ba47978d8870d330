"""Play a queued match's series in the sandbox, timing where the time goes.

Bots' faults are results: they come back inside the outcomes. What is *not* a bot's fault
raises :class:`InfrastructureError`: the runner raising, or a seat's ``error`` fault whose
detail comes from the sandbox itself (no Docker engine, no image, the engine refusing a
container, the bot host not starting at all).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from typing import Any

from cucumbers.faults import FaultKind
from cucumbers.games import rules_for
from cucumbers.match import GameOutcome, game_seed, play_game, seating
from cucumbers.runners import make_runner
from cucumbers.runners.base import BotSpec, Limits

from .models import Match, Participant

#: Details of the ``error`` faults the sandbox reports for itself, as worded by
#: ``arena/sandbox/runner.py`` and the SDK's process runner (a test plays a match with a
#: missing image and checks that it is recognised, so a rewording cannot slip through).
SANDBOX_FAULT_PREFIXES = (
    "the Docker engine cannot be reached",
    "the sandbox image ",
    "the sandbox could not start the bot",
    "cannot start the bot host",
)


class InfrastructureError(Exception):
    """The match could not be played for a reason that is not a bot's fault: retry it."""


@dataclass(slots=True)
class Timings:
    """Seconds spent in each part of running one match."""

    sandbox_start: float = 0.0
    games: float = 0.0
    moves: float = 0.0
    sandbox_stop: float = 0.0
    storage: float = 0.0
    rating_transaction: float = 0.0

    def as_fields(self) -> dict[str, float]:
        return {f"t_{name}": getattr(self, name) for name in self.__slots__}


@dataclass(slots=True)
class PlayedSeries:
    outcomes: list[GameOutcome] = field(default_factory=list)
    timings: Timings = field(default_factory=Timings)


def sandbox_fault(outcome: GameOutcome) -> str | None:
    """The detail of the first fault the sandbox reported for itself, or None."""
    for fault in outcome.faults:
        if fault.kind is FaultKind.ERROR and fault.detail.startswith(SANDBOX_FAULT_PREFIXES):
            return fault.detail
    return None


def stage_sources(participants: Sequence[Participant], folder: Path) -> list[BotSpec]:
    """Each participant's version as a file the sandbox's unprivileged user can read."""
    folder.chmod(0o755)
    specs = []
    for entrant in participants:
        assert entrant.version is not None
        path = folder / f"bot{entrant.index}.py"
        with entrant.version.source.open("rb") as source:
            path.write_bytes(source.read())
        path.chmod(0o644)
        specs.append(BotSpec(str(path), entrant.name))
    return specs


def play_series(
    match: Match, participants: Sequence[Participant], runner_name: str
) -> PlayedSeries:
    """The match's games, seats rotated by the SDK's :func:`seating`. Raises
    :class:`InfrastructureError` when the sandbox, not a bot, failed."""
    rules = rules_for(match.game)
    played = PlayedSeries()
    timings = played.timings

    def player_info(bot: int) -> dict[str, Any]:
        entrant = participants[bot]
        assert entrant.bot is not None and entrant.version is not None
        return {"bot": entrant.bot_id, "version": entrant.version.number}

    with tempfile.TemporaryDirectory(prefix=f"cucumbers-match-{match.pk}-") as folder:
        specs = stage_sources(participants, Path(folder))
        rules.check_players(len(specs))
        try:
            runner = make_runner(runner_name, Limits())
            with runner:
                started = perf_counter()
                clients = runner.start(specs)
                timings.sandbox_start = perf_counter() - started
                for number in range(1, match.games_planned + 1):
                    bots = seating(match.seed, number, len(specs))
                    started = perf_counter()
                    outcome = play_game(
                        rules,
                        [clients[bot] for bot in bots],
                        seed=game_seed(match.seed, number),
                        limits=runner.limits,
                        players=[
                            {"seat": seat, "name": specs[bot].name, **player_info(bot)}
                            for seat, bot in enumerate(bots)
                        ],
                        game_number=number,
                        bots=bots,
                    )
                    timings.games += perf_counter() - started
                    timings.moves += sum(outcome.think_seconds)
                    detail = sandbox_fault(outcome)
                    if detail is not None:
                        raise InfrastructureError(detail)
                    played.outcomes.append(outcome)
                started = perf_counter()
            timings.sandbox_stop = perf_counter() - started
        except InfrastructureError:
            raise
        except Exception as error:  # a runner never raises for a bot: this is the sandbox's
            raise InfrastructureError(f"the sandbox failed: {error!r}") from error
    return played
