"""The one match factory: every kind queues its matches here (a plain match, or a deal set of
one match per seat rotation), so that a queued match always has the same shape: its seats,
its seed, its log line and its send once the caller's transaction commits."""

from __future__ import annotations

import random
import uuid
from collections.abc import Sequence

from django.conf import settings
from django.contrib.auth.models import User

from arena.contract import MatchKind
from cucumbers.match import SEED_BITS
from web.bots.models import Bot, BotVersion
from web.matches.models import Match, Participant

from .dispatch import send_match_on_commit
from .events import MatchEvent, log_event
from .jobs import builtin_name


def create_match(
    game: str,
    kind: MatchKind,
    bots: Sequence[Bot],
    *,
    rated: bool,
    requested_by: User | None = None,
    rng: random.Random | None = None,
    send: bool = True,
    games: int | None = None,
    versions: Sequence[BotVersion | None] | None = None,
    names: Sequence[str] | None = None,
    builtins: Sequence[str] = (),
    seed: int | None = None,
    deal_set: uuid.UUID | None = None,
    rotation: int | None = None,
) -> Match:
    """A queued match of ``bots`` then the built-in opponents ``builtins`` (SDK names), of
    ``games`` games (default ``MATCH_GAMES``) with plain deals, or one rotation of a deal
    set (:func:`create_deal_set`), sent to the arena once the caller's transaction commits;
    with ``send=False`` it waits to be played in the foreground (``run_match``: the
    ``ladder`` command, the benchmark). The bots play their active versions, or
    ``versions`` (a tournament's frozen ones, a validation's candidate), under their
    ``owner/name`` or ``names``; the deals follow from ``seed`` (default: drawn from
    ``rng``)."""
    if seed is None:
        seed = (rng or random.SystemRandom()).getrandbits(SEED_BITS)
    playing = list(versions) if versions is not None else [bot.active_version for bot in bots]
    labels = list(names) if names is not None else [str(bot) for bot in bots]
    match = Match.objects.create(
        game=game,
        kind=kind,
        rated=rated,
        seed=seed,
        games_planned=games or settings.MATCH_GAMES,
        duplicate=deal_set is not None,
        deal_set=deal_set,
        rotation=rotation,
        requested_by=requested_by,
    )
    seats = [
        Participant(match=match, index=index, bot=bot, version=version, name=label)
        for index, (bot, version, label) in enumerate(zip(bots, playing, labels, strict=True))
    ]
    seats += [
        Participant(match=match, index=index, name=builtin_name(name))
        for index, name in enumerate(builtins, start=len(seats))
    ]
    Participant.objects.bulk_create(seats)
    log_event(MatchEvent.QUEUED, match=match.pk, kind=kind, game=game, seats=len(seats))
    if send:
        send_match_on_commit(match.pk)
    return match


def create_deal_set(
    game: str,
    kind: MatchKind,
    bots: Sequence[Bot],
    *,
    rated: bool,
    deals: int | None = None,
    rng: random.Random | None = None,
    send: bool = True,
    versions: Sequence[BotVersion] | None = None,
    seed: int | None = None,
) -> list[Match]:
    """Duplicate deals that no bot can remember: ``deals`` deals (default ``MATCH_GAMES``)
    played once per seat rotation, each rotation a match of its own (fresh bot processes,
    the same seed, seats and versions), queued together. Between them every bot holds every
    seat's cards of every deal once, as in one duplicate match, and none sees a deal twice.
    Each match is as long as a plain one, so a set costs no more container starts per game
    than plain deals do."""
    if seed is None:
        seed = (rng or random.SystemRandom()).getrandbits(SEED_BITS)
    playing = list(versions) if versions is not None else [bot.active_version for bot in bots]
    deal_set = uuid.uuid4()
    return [
        create_match(
            game,
            kind,
            bots,
            rated=rated,
            send=send,
            games=deals,
            versions=playing,
            seed=seed,
            deal_set=deal_set,
            rotation=rotation,
        )
        for rotation in range(len(bots))
    ]
