"""Finished matches written straight from played outcomes, for tests of the pages, the API
and the viewer that need a match with real replays but not the pipeline that plays one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils import timezone

from arena.contract import MatchKind
from cucumbers.match import GameOutcome
from web.bots.models import Bot, BotVersion
from web.matches.models import Match, MatchStatus, Participant
from web.matches.replays import StoredFiles
from web.pipeline.recording import standings, store_games


@dataclass(frozen=True, slots=True)
class Entrant:
    """A bot of the series, in the order of the match's bot list."""

    name: str
    bot: Bot | None = None
    version: BotVersion | None = None


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
