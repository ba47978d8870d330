"""Record a played series of games as a finished match: participants with their placement,
faults and wins, and one stored replay per game. Called inside the caller's transaction, so
a match is recorded whole or not at all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils import timezone

from cucumbers.match import GameOutcome
from web.bots.models import Bot, BotVersion

from .models import Match, MatchGame, MatchKind, MatchStatus, Participant
from .replays import StoredFiles


@dataclass(frozen=True, slots=True)
class Entrant:
    """A bot of the series, in the order of the match's bot list."""

    name: str
    bot: Bot | None = None
    version: BotVersion | None = None


@dataclass(frozen=True, slots=True)
class Standing:
    """How one entrant did over the series."""

    placement: int
    mean_place: float
    wins: int
    faults: int


def standings(outcomes: Sequence[GameOutcome], entrants: int) -> list[Standing]:
    """Each entrant's standing: mean place over the games (1 = best), ranked with ties
    sharing a placement (1, 1, 3...)."""
    if not outcomes:
        raise ValueError("a match has at least one game")
    places = [0.0] * entrants
    wins = [0] * entrants
    faults = [0] * entrants
    for outcome in outcomes:
        for bot in range(entrants):
            place = outcome.place_of_bot(bot)
            places[bot] += place
            wins[bot] += place == 1
        for fault in outcome.faults:
            faults[outcome.bots[fault.seat]] += 1
    means = [total / len(outcomes) for total in places]
    return [
        Standing(1 + sum(other < mean for other in means), mean, wins[bot], faults[bot])
        for bot, mean in enumerate(means)
    ]


def record_series(
    *,
    game: str,
    kind: MatchKind,
    seed: int,
    sandbox: str,
    entrants: Sequence[Entrant],
    outcomes: Sequence[GameOutcome],
    files: StoredFiles,
) -> Match:
    """A finished, unrated match with its participants and games (replays kept in the
    outcomes are stored through ``files``). Must run inside ``transaction.atomic()``."""
    now = timezone.now()
    match = Match.objects.create(
        game=game,
        kind=kind,
        status=MatchStatus.FINISHED,
        seed=seed,
        games_planned=len(outcomes),
        sandbox=sandbox,
        started_at=now,
        finished_at=now,
        attempts=1,
    )
    Participant.objects.bulk_create(
        Participant(
            match=match,
            index=index,
            bot=entrant.bot,
            version=entrant.version,
            name=entrant.name,
            placement=standing.placement,
            mean_place=standing.mean_place,
            wins=standing.wins,
            faults=standing.faults,
        )
        for index, (entrant, standing) in enumerate(
            zip(entrants, standings(outcomes, len(entrants)), strict=True)
        )
    )
    store_games(match, outcomes, files)
    return match


def store_games(match: Match, outcomes: Sequence[GameOutcome], files: StoredFiles) -> None:
    """One row per game, with its replay stored through ``files`` (inside the caller's
    transaction)."""
    for outcome in outcomes:
        row = MatchGame(
            match=match,
            number=outcome.game_number,
            seed=outcome.seed,
            placement=[outcome.bots[seat] for seat in outcome.placement],
            faults=[
                {**fault.to_json(), "participant": outcome.bots[fault.seat]}
                for fault in outcome.faults
            ],
        )
        if outcome.replay is not None:
            row.replay.name, row.replay_size = files.save_replay(
                match.pk, outcome.game_number, outcome.replay
            )
        row.save()
