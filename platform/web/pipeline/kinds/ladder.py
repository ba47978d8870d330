"""The ladder: rated matches among every bot with an active version, planned by
``arena.matchmaking`` from the candidates here, kept topped up to ``LADDER_QUEUE_TARGET``
queued matches per game (beat), each table a deal set (``LADDER_DUPLICATE``); when one is
played, its games are rated."""

from __future__ import annotations

import random
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from arena.contract import MatchKind
from arena.matchmaking import Candidate, MatchmakingSettings, pick_table, plan_tables
from cucumbers.games import rules_for
from cucumbers.match import GameOutcome
from web.bots.house import HOUSE_USERNAME
from web.bots.models import GAMES, Bot
from web.matches.models import Match, MatchStatus, Participant

from .. import transitions
from ..dispatch import send_match_on_commit
from ..factory import create_deal_set, create_match
from ..kind import KindPolicy, Placed
from ..rating import rate


def table_sizes(game: str) -> MatchmakingSettings:
    """The configured table sizes, clipped to the game's legal range."""
    rules = rules_for(game)
    low = min(max(settings.LADDER_MIN_PLAYERS, rules.min_players), rules.max_players)
    high = max(min(settings.LADDER_MAX_PLAYERS, rules.max_players), low)
    return MatchmakingSettings(low, high)


def candidates(game: str) -> list[Candidate]:
    """Every bot on the game's ladder (active, with an active version), with its matches in
    the matchmaking window, queued ones included so that planning sees what is pending."""
    since = timezone.now() - timedelta(hours=settings.MATCHMAKING_WINDOW_HOURS)
    # A deal set counts once (its first rotation): a table, whatever its size.
    recent = Count(
        "participations",
        filter=Q(
            participations__match__kind=MatchKind.LADDER,
            participations__match__created_at__gte=since,
        )
        & (Q(participations__match__rotation__isnull=True) | Q(participations__match__rotation=0)),
    )
    bots = Bot.objects.on_leaderboard(game).annotate(recent=recent)
    rows = bots.values_list("pk", "rating", "recent", "games_since_version", "owner_id")
    house = User.objects.filter(username=HOUSE_USERNAME).values_list("pk", flat=True).first()
    sizes = recent_table_sizes(game, since)
    return [
        Candidate(
            pk,
            rating,
            recent_matches,
            provisional=played < settings.PROVISIONAL_GAMES,
            # The house's bots are reference strategies: they may share a table.
            owner=None if owner == house else owner,
            table_sizes=tuple(sorted(sizes[pk].items())),
        )
        for pk, rating, recent_matches, played, owner in rows
    ]


def recent_table_sizes(game: str, since: datetime) -> dict[int, Counter[int]]:
    """Each bot's ladder matches since ``since`` (queued ones too) by table size."""
    recent = Match.objects.filter(
        Q(rotation__isnull=True) | Q(rotation=0),  # a deal set is one table
        game=game,
        kind=MatchKind.LADDER,
        created_at__gte=since,
    )
    size_of = dict(recent.annotate(seats=Count("participants")).values_list("pk", "seats"))
    seats = Participant.objects.filter(match_id__in=recent.values("pk"), bot__isnull=False)
    sizes: dict[int, Counter[int]] = defaultdict(Counter)
    for bot_id, match_id in seats.values_list("bot_id", "match_id"):
        sizes[bot_id][size_of[match_id]] += 1
    return sizes


def _queue_table(
    game: str, seated: Sequence[Bot], rng: random.Random, *, send: bool, debut: bool
) -> list[Match]:
    """One planned table: a deal set (``LADDER_DUPLICATE``) or a plain match, of
    ``MATCH_GAMES`` games a match; a debut's of ``LADDER_DEBUT_GAMES`` (never more than
    ``MATCH_GAMES``): a match is rated when it is over, so a new version's first rating
    waits for its whole first match."""
    games = settings.MATCH_GAMES
    if debut:
        games = min(settings.LADDER_DEBUT_GAMES, games)
    if settings.LADDER_DUPLICATE:
        return create_deal_set(
            game,
            MatchKind.LADDER,
            seated,
            rated=True,
            deals=games,
            rng=rng,
            send=send,
            debut=debut,
        )
    return [
        create_match(
            game,
            MatchKind.LADDER,
            seated,
            rated=True,
            rng=rng,
            send=send,
            games=games,
            debut=debut,
        )
    ]


def debuting(game: str) -> set[int]:
    """The provisional bots of ``game`` that have a debut match waiting already."""
    waiting = Participant.objects.filter(
        match__game=game,
        match__kind=MatchKind.LADDER,
        match__debut=True,
        match__status=MatchStatus.QUEUED,
        bot__isnull=False,
    )
    return set(waiting.values_list("bot_id", flat=True))


def queue_ladder_matches(
    game: str, count: int, rng: random.Random | None = None, *, send: bool = True
) -> list[Match]:
    """Plan rated tables for ``game`` and queue about ``count`` matches (fewer if too few
    bots): with duplicate deals (``LADDER_DUPLICATE``) each table is a deal set, one match
    per seat rotation, and tables are queued until ``count`` matches are; ``send`` as for
    :func:`create_match`. A table seated around a provisional bot that has no debut match
    waiting is a debut (sent ahead of the routine ladder): a version keeps being favoured
    until it leaves the provisional stage, one table at a time, so that it never crowds
    out the others."""
    rng = rng or random.Random()
    pool = candidates(game)
    provisional = {c.bot_id for c in pool if c.provisional}
    plans = plan_tables(pool, count, table_sizes(game), rng)
    ids = {bot_id for table in plans for bot_id in table}
    bots = Bot.objects.select_related("owner", "active_version").in_bulk(ids)
    queued: list[Match] = []
    with transaction.atomic():
        waiting = debuting(game)
        for table in plans:
            if len(queued) >= count:
                break
            seed = table[0]
            debut = settings.LADDER_DEBUT and seed in provisional and seed not in waiting
            waiting |= {seed} if debut else set()
            seated = [bots[bot_id] for bot_id in table]
            queued += _queue_table(game, seated, rng, send=send, debut=debut)
    return queued


def queue_debut(bot: Bot, rng: random.Random | None = None, *, send: bool = True) -> list[Match]:
    """A new version's first rated table, queued now (inside the caller's transaction:
    the one that promoted it) and sent ahead of the routine ladder: seated around ``bot``
    by the ladder's matchmaking. Nothing when too few bots can play."""
    rng = rng or random.Random()
    pool = candidates(bot.game)
    if bot.pk not in {c.bot_id for c in pool}:
        return []
    table = pick_table(pool, table_sizes(bot.game), rng, seed_id=bot.pk)
    if table is None:
        return []
    ids = [c.bot_id for c in table]
    found = Bot.objects.select_related("owner", "active_version").in_bulk(ids)
    return _queue_table(bot.game, [found[i] for i in ids], rng, send=send, debut=True)


def reseat_retired(bot: Bot) -> tuple[list[int], list[int]]:
    """``bot``'s active version changed (a new one promoted, an older one made active, or
    it was retired): its queued ladder matches that seat another version are re-seated
    with the active one and dealt afresh (whoever changed versions may have read what was
    queued), sent again under new attempts (a job already on the broker is then discarded
    when it reports); or, when the bot has no active version any more or left the ladder,
    dropped (failed, unrated, saying why). A deal set counts as one: re-seated or dropped
    whole, and never touched once any of its rotations has begun: it plays on with the
    versions it was created with and is rated whole. Inside the caller's transaction.
    Returns (re-seated, dropped)."""
    stale = Participant.objects.filter(
        bot=bot,
        match__kind=MatchKind.LADDER,
        match__status=MatchStatus.QUEUED,
    ).exclude(version_id=bot.active_version_id)
    tables: dict[uuid.UUID | int, list[int]] = {}
    for match_id, deal_set in (
        Match.objects.filter(pk__in=stale.values("match_id"))
        .order_by("pk")
        .values_list("pk", "deal_set")
    ):
        tables.setdefault(deal_set or match_id, []).append(match_id)
    reseated: list[int] = []
    dropped: list[int] = []
    for ids in tables.values():
        rows = transitions.lock_table(ids[0])
        if any(row.status != MatchStatus.QUEUED for row in rows):
            continue  # a set that has begun is frozen: it plays on, rated whole
        members = [row.pk for row in rows]
        if bot.active_version_id is None or not bot.active:
            reason = f"{bot} has no active version any more (retired) to play this match"
            dropped += [pk for pk in members if transitions.fail(pk, reason)]
            continue
        Participant.objects.filter(match_id__in=members, bot=bot).update(
            version=bot.active_version_id
        )
        for pk in members:
            transitions.recall(pk)
        transitions.reseed(members[0])
        for pk in members:
            send_match_on_commit(pk)
        reseated += members
    return reseated, dropped


def on_active_version_changed(sender: object, bot: Bot, **kwargs: object) -> None:
    """:data:`web.bots.signals.active_version_changed`: its owner made another version
    active; its queued ladder matches follow, as after a promotion (inside that
    transaction)."""
    reseat_retired(bot)


def set_has_begun(match: Match) -> bool:
    """Whether another rotation of ``match``'s deal set has begun (running, played, or
    over): the set's seats are frozen then."""
    if match.deal_set is None:
        return False
    return (
        Match.objects.filter(deal_set=match.deal_set)
        .exclude(pk=match.pk)
        .exclude(status=MatchStatus.QUEUED)
        .exists()
    )


def queue_depth(game: str) -> int:
    return Match.objects.filter(game=game, kind=MatchKind.LADDER, status=MatchStatus.QUEUED).count()


def top_up(target: int | None = None) -> dict[str, int]:
    """Queue enough ladder matches that each game has ``target`` waiting
    (``LADDER_QUEUE_TARGET``); returns how many were queued per game."""
    target = settings.LADDER_QUEUE_TARGET if target is None else target
    queued = {}
    for game in GAMES:
        missing = target - queue_depth(game)
        queued[game] = len(queue_ladder_matches(game, missing)) if missing > 0 else 0
    return queued


class LadderPolicy(KindPolicy):
    """Only active versions play (a deal set's, as it began); a played ladder match is
    rated game by game, a deal set when it is whole."""

    kind = MatchKind.LADDER

    def refusal(self, match: Match, participants: Sequence[Participant]) -> str | None:
        # A version retired since the match was queued never gets a new rated game (its
        # matches are re-seated when it is retired: this catches what slipped past), but a
        # deal set that has begun plays on with the versions it was created with: a set
        # counts whole, never in part.
        if set_has_begun(match):
            return None
        ids = [p.bot_id for p in participants if p.bot_id is not None]
        active = dict(Bot.objects.filter(pk__in=ids).values_list("pk", "active_version_id"))
        for entrant in participants:
            if entrant.bot_id is not None and active.get(entrant.bot_id) != entrant.version_id:
                return f"{entrant.name} changed versions before this match was played"
        return None

    def recorded(
        self, match: Match, participants: Sequence[Participant], outcomes: Sequence[GameOutcome]
    ) -> None:
        if match.rated:
            rate(match, participants, outcomes)

    def set_recorded(
        self, match: Match, participants: Sequence[Participant], games: Sequence[Placed]
    ) -> None:
        if match.rated:
            rate(match, participants, games)
