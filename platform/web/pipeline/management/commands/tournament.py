"""``python manage.py tournament ...``: tournaments from the terminal.

- ``create``: a new event (prints its id);
- ``enter ID --bot BOT [--bot BOT ...] [--house]``: entries (``--house``: every house bot of
  the event's game), entered as staff would;
- ``start ID``: start it now (entries frozen, the schedule sent to the arena workers);
- ``play ID [--sandbox KIND]``: start it now if it is open and play every match of its
  schedule in the foreground, as ``ladder`` does (no broker or worker involved);
- ``run --name ... [create's options] [--bot ...] [--house]``: create, enter, play: a whole
  tournament in one command;
- ``show ID``: its standings.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from time import perf_counter
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from cucumbers.games import GameName
from web.bots.house import HOUSE_USERNAME
from web.bots.models import GAMES, Bot
from web.matches.models import MatchStatus
from web.pipeline.kinds.tournament import start
from web.pipeline.running import run_match
from web.sandbox import SandboxKind
from web.tournaments.entering import EntryError, enter
from web.tournaments.models import Tournament, TournamentStatus, new_seed
from web.tournaments.standings import standings


def _moment(text: str) -> datetime:
    """An ISO date and time (UTC unless it says), or ``+MINUTES`` from now."""
    if text.startswith("+"):
        try:
            return timezone.now() + timedelta(minutes=float(text[1:]))
        except ValueError:
            raise CommandError(f"{text!r}: +MINUTES, e.g. +30") from None
    moment = parse_datetime(text)
    if moment is None:
        raise CommandError(f"{text!r}: a date and time such as 2026-12-24T18:00, or +MINUTES")
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment, UTC)


def _table_sizes(text: str) -> tuple[int, int]:
    low, _, high = text.partition("-")
    try:
        return int(low), int(high or low)
    except ValueError:
        raise CommandError(f"--tables {text!r}: a size such as 4, or a range such as 3-5") from None


class Command(BaseCommand):
    help = "Create, enter, start, play and show tournaments."

    def add_arguments(self, parser: CommandParser) -> None:
        commands = parser.add_subparsers(dest="action", required=True)
        create = commands.add_parser("create", help="a new tournament")
        run = commands.add_parser("run", help="create, enter and play one now")
        for command in (create, run):
            command.add_argument("--name", required=True)
            command.add_argument("--game", choices=GAMES, default=GameName.FIVE_CUCUMBERS)
            command.add_argument("--tables", default="4", help="table size or range (3-5)")
            command.add_argument("--deals", type=int, default=20, help="deal seeds per table")
            command.add_argument("--rounds", type=int, help="default: enough to meet everyone")
            command.add_argument("--rated", action="store_true", help="rate it on the ladder")
            command.add_argument("--description", default="")
            command.add_argument(
                "--seed", type=int, help="schedule and deals, for a repeatable event"
            )
        create.add_argument("--entries-close", default="+60", help="ISO time or +MINUTES")
        create.add_argument("--starts", help="ISO time or +MINUTES (default: entries close)")
        enter_cmd = commands.add_parser("enter", help="enter bots")
        enter_cmd.add_argument("tournament", type=int)
        for command in (enter_cmd, run):
            command.add_argument("--bot", type=int, action="append", default=[], help="a bot id")
            command.add_argument("--house", action="store_true", help="every house bot")
        for name in ("start", "play", "show"):
            command = commands.add_parser(name)
            command.add_argument("tournament", type=int)
        for command in (commands.choices["play"], run):
            command.add_argument("--sandbox", choices=[k.value for k in SandboxKind])

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action in ("create", "run"):
            tournament = self._create(options, now=action == "run")
            self.stdout.write(f"tournament {tournament.pk} created: {tournament}")
        else:
            tournament = self._tournament(options["tournament"])
        if action in ("enter", "run"):
            self._enter(tournament, options["bot"], options["house"])
        if action == "start":
            started = start(tournament.pk)
            self.stdout.write(f"{started}: {started.get_status_display()}")
            if started.status == TournamentStatus.CANCELLED:
                raise CommandError(started.cancel_reason)
        if action in ("play", "run"):
            self._play(tournament, options["sandbox"])
        if action in ("play", "run", "show"):
            self._show(Tournament.objects.get(pk=tournament.pk))

    def _tournament(self, pk: int) -> Tournament:
        tournament = Tournament.objects.filter(pk=pk).first()
        if tournament is None:
            raise CommandError(f"no tournament {pk}")
        return tournament

    def _create(self, options: dict[str, Any], *, now: bool) -> Tournament:
        low, high = _table_sizes(options["tables"])
        if now:
            closes = starts = timezone.now() + timedelta(minutes=1)
        else:
            closes = _moment(options["entries_close"])
            starts = _moment(options["starts"]) if options["starts"] else closes
        tournament = Tournament(
            name=options["name"],
            description=options["description"],
            game=options["game"],
            table_size_min=low,
            table_size_max=high,
            rounds=options["rounds"],
            deals_per_table=options["deals"],
            rated=options["rated"],
            entry_deadline=closes,
            starts_at=starts,
            seed=new_seed() if options["seed"] is None else options["seed"],
        )
        try:
            tournament.full_clean()
        except ValidationError as error:
            problems = "; ".join(f"{k}: {' '.join(v)}" for k, v in error.message_dict.items())
            raise CommandError(problems) from None
        tournament.save()
        return tournament

    def _enter(self, tournament: Tournament, bot_ids: list[int], house: bool) -> None:
        ids = list(bot_ids)
        if house:
            ids += (
                Bot.objects.on_leaderboard(tournament.game)
                .filter(owner__username=HOUSE_USERNAME)
                .values_list("pk", flat=True)
            )
        if not ids:
            raise CommandError("nothing to enter: give --bot ID or --house")
        for bot_id in ids:
            bot = Bot.objects.select_related("owner").filter(pk=bot_id).first()
            if bot is None:
                raise CommandError(f"no bot {bot_id}")
            # Entered by its owner, under the same rules as on the site (one bot per
            # owner, the house's excepted).
            try:
                entry = enter(bot.owner, tournament.pk, bot.pk)
            except EntryError as error:
                raise CommandError(f"bot {bot_id}: {error.message}") from None
            self.stdout.write(f"entered {entry.name}")

    def _play(self, tournament: Tournament, sandbox_name: str | None) -> None:
        if tournament.status == TournamentStatus.OPEN:
            tournament = start(tournament.pk, send=False)
        if tournament.status == TournamentStatus.CANCELLED:
            raise CommandError(tournament.cancel_reason)
        sandbox = SandboxKind(sandbox_name) if sandbox_name else None
        tables = list(
            tournament.tables.filter(match__status=MatchStatus.QUEUED, match__sent_at__isnull=True)
        )
        self.stdout.write(f"{len(tables)} matches to play")
        started = perf_counter()
        for number, table in enumerate(tables, start=1):
            report = run_match(table.match_id, sandbox)
            self.stdout.write(
                f"[{number}/{len(tables)}] round {table.round} table {table.table}:"
                f" match {table.match_id} {report.result.value}"
                f"{' ' + report.reason if report.reason else ''}"
            )
        self.stdout.write(f"played in {perf_counter() - started:.1f} s")

    def _show(self, tournament: Tournament) -> None:
        self.stdout.write(f"{tournament} ({tournament.get_status_display()})")
        if tournament.status == TournamentStatus.OPEN:
            for entry in tournament.entries.all():
                self.stdout.write(f"  {entry.name}")
            return
        table = standings(tournament)
        self.stdout.write(f"{table.matches_done} of {table.matches_total} matches played")
        for row in table.rows:
            interval = (
                f" [{100 * row.score_low:3.0f}-{100 * row.score_high:3.0f}]"
                if row.score_low is not None and row.score_high is not None
                else ""
            )
            score = f"{100 * row.score:5.1f}%" if row.score is not None else "    -"
            mark = "≈" if row.close_to_above else " "
            self.stdout.write(
                f"  {row.rank:2d}{mark} {row.entry.name:40s} {score}{interval}"
                f"  {row.games} games, {row.wins} wins, {row.faults} faults"
            )
