"""``python manage.py ladder --matches N [--game G]``: play N ladder matches in the
foreground, exactly as the workers do (matchmaking, sandbox, storage, ratings), printing
each match and a summary. A table of duplicate deals is a deal set, played whole (it is
rated whole): the run ends with the table that reaches N matches. For demos and
benchmarks; no broker or worker is involved."""

from __future__ import annotations

import random
from time import perf_counter
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from web.bots.models import GAMES, Bot
from web.matches.models import Match, MatchStatus
from web.pipeline.kinds.ladder import queue_ladder_matches
from web.pipeline.running import run_match
from web.sandbox import SandboxKind


class Command(BaseCommand):
    help = "Play N ladder matches now, in the foreground, and print a summary."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--matches", type=int, required=True, help="how many matches")
        parser.add_argument("--game", choices=GAMES, help="one game (default: both)")
        parser.add_argument("--sandbox", choices=[k.value for k in SandboxKind])
        parser.add_argument("--seed", type=int, help="matchmaking seed, for a repeatable run")

    def handle(self, *args: Any, **options: Any) -> None:
        total = options["matches"]
        if total < 1:
            raise CommandError("--matches must be at least 1")
        games = [options["game"]] if options["game"] else list(GAMES)
        sandbox = SandboxKind(options["sandbox"]) if options["sandbox"] else None
        rng = random.Random(options["seed"])
        statuses: dict[str, int] = {}
        rated_games = 0
        played = 0
        started = perf_counter()
        while played < total:
            game = games[played % len(games)]
            table = queue_ladder_matches(game, 1, rng, send=False)
            if not table:
                raise CommandError(f"{game}: too few bots with an active version to play")
            for match in table:
                report = run_match(match.pk, sandbox)
                played += 1
                names = ", ".join(
                    match.participants.order_by("index").values_list("name", flat=True)
                )
                self.stdout.write(
                    f"[{min(played, total)}/{total}] match {match.pk} {game}: {report.result.value}"
                    f" ({names}){' ' + report.reason if report.reason else ''}"
                )
            # What became of the table once it was played whole (a deal set's rotations
            # finish together).
            for match in Match.objects.filter(pk__in=[m.pk for m in table]):
                statuses[match.status] = statuses.get(match.status, 0) + 1
                if match.status == MatchStatus.FINISHED:
                    rated_games += match.games_planned
        elapsed = perf_counter() - started
        summary = ", ".join(f"{count} {status}" for status, count in statuses.items())
        self.stdout.write(
            f"{played} matches in {elapsed:.1f} s ({summary}); {rated_games} rated games,"
            f" {rated_games / elapsed * 3600:.0f} games/hour"
        )
        for game in games:
            self.stdout.write(f"{game} leaderboard:")
            for rank, bot in enumerate(Bot.objects.on_leaderboard(game)[:10], start=1):
                self.stdout.write(f"  {rank:2d}. {bot}  {bot.rating:7.1f}  ({bot.games} games)")
