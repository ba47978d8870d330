"""The ``cucumbers`` command: write, play, check and watch bots locally.

``cucumbers new NAME``, ``cucumbers play BOT BOT...``, ``cucumbers validate BOT``,
``cucumbers replay FILE``, ``cucumbers check-replay FILE|DIR...``,
``cucumbers repro REPLAY --seat N BOT``, ``cucumbers review REPLAY --seat N``,
``cucumbers compare NEW OLD``, and with a server
``cucumbers upload FILE --bot NAME [--wait]``, ``cucumbers matches --bot NAME`` and
``cucumbers download --bot NAME``; ``--help`` on each.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from . import __version__
from .cli_args import add_per_move
from .cli_args import bot_arg as _bot
from .cli_args import fail as _fail
from .cli_args import positive_arg as _positive
from .cli_args import seconds_arg as _seconds
from .cli_args import seed_arg as _seed
from .cli_review import add_review_command
from .cli_site import add_site_commands
from .cli_tools import add_tool_commands
from .games import FIVE_CUCUMBERS, UnknownGameError, registry, rules_for
from .loader import BUILTIN_PREFIX, BotLoadError, load_bot
from .match import duplicate_games, play_match
from .play import PlayConfig, run_play
from .preflight import BotNotUsable, check_bots
from .progress import ProgressBar
from .render import render_replay
from .replay import ReplayFileError, iter_replay_files, load_replay
from .runners import RUNNERS, make_runner
from .runners.base import BotSpec, Limits, RunnerName
from .stats import format_table
from .validator import DealCheck, ReplayCheck, check_replay, verify_replay
from .viewer_html import replay_page

DEFAULT_GAMES = 10


def add_match_arguments(parser: argparse.ArgumentParser, sandboxes: Sequence[str]) -> None:
    """The options shared by ``cucumbers play`` and the arena's ``match`` command."""
    defaults = Limits()
    parser.add_argument(
        "bots",
        nargs="+",
        type=_bot,
        metavar="BOT",
        help="a bot file (.py) or builtin:NAME; one per seat",
    )
    parser.add_argument(
        "--game",
        choices=list(registry()),  # read when the parser is built: a registered variant too
        default=FIVE_CUCUMBERS.name,
        help="default: %(default)s",
    )
    parser.add_argument(
        "--games",
        type=_positive,
        default=DEFAULT_GAMES,
        help="games to play (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=_seed,
        default=None,
        help="match seed (default: random, printed in the summary)",
    )
    parser.add_argument(
        "--duplicate",
        action="store_true",
        help="duplicate deals: play each deal once per seat rotation, so that every bot"
        " holds every seat's cards and the luck of the deal cancels out (--games is rounded"
        " up to whole rotations). On your desk the same bot processes play every rotation,"
        " so a bot that remembers deals can know its opponents' hands from the second"
        " rotation on; the site plays each rotation in fresh processes",
    )
    parser.add_argument(
        "--sandbox",
        choices=list(sandboxes),
        default=sandboxes[0],
        help="where bots run (default: %(default)s)",
    )
    parser.add_argument(
        "--replays",
        type=Path,
        metavar="DIR",
        help="write one replay per game (and the bots' output) into DIR",
    )
    parser.add_argument(
        "--workers",
        type=_positive,
        default=1,
        help="processes to spread the games over (default: 1)",
    )
    parser.add_argument(
        "--per-move",
        type=_seconds,
        default=defaults.move_seconds,
        metavar="SECONDS",
        help="time per move (default: %(default)s)",
    )
    parser.add_argument(
        "--bank",
        type=_seconds,
        default=defaults.bank_seconds,
        metavar="SECONDS",
        help="time bank per game for overruns (default: %(default)s)",
    )
    parser.add_argument(
        "--startup",
        type=_seconds,
        default=defaults.startup_seconds,
        metavar="SECONDS",
        help="time to start a bot (default: %(default)s)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print exactly one JSON object on stdout"
    )


def run_match_command(args: argparse.Namespace) -> int:
    """Run ``play``/``match`` from parsed arguments; print the summary or the JSON."""
    rules = rules_for(args.game)
    if not rules.min_players <= len(args.bots) <= rules.max_players:
        return _fail(
            f"{rules.name} needs {rules.min_players} to {rules.max_players} bots,"
            f" {len(args.bots)} given"
        )
    for source in args.bots:
        if not source.startswith(BUILTIN_PREFIX) and not Path(source).is_file():
            return _fail(f"no such bot file: {source}")
    limits = Limits(
        move_seconds=args.per_move, bank_seconds=args.bank, startup_seconds=args.startup
    )
    try:
        check_bots(args.bots, args.sandbox, limits)
    except BotNotUsable as error:
        return _fail(str(error))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    games = duplicate_games(args.games, len(args.bots)) if args.duplicate else args.games
    config = PlayConfig(
        rules=rules,
        bots=tuple(BotSpec.parse(source) for source in args.bots),
        games=games,
        duplicate=args.duplicate,
        seed=seed,
        sandbox=args.sandbox,
        limits=limits,
        workers=args.workers,
        replays=args.replays,
    )
    with ProgressBar(total=games, stream=sys.stderr) as bar:
        report = run_play(config, progress=bar.update)
    if args.json:
        print(json.dumps(report.to_json()))
        return 0
    print(
        f"{rules.name}: {len(report.outcomes)} games, {len(config.bots)} seats, seed {seed},"
        f" sandbox {config.sandbox}, {report.seconds:.2f} s"
    )
    if config.duplicate:
        seats = len(config.bots)
        print(
            f"duplicate deals: {games // seats} deals, each played {seats} times with the seats"
            f" turned, so every bot held every seat's cards once; the luck of the deal cancels"
            + (
                f" ({args.games} games asked, rounded up to whole rotations)"
                if games != args.games
                else ""
            )
        )
    print(format_table(report.summaries))
    # The counts above say how often; the first fault of each bot says why.
    explained: set[int] = set()
    for outcome in report.outcomes:
        for fault in outcome.faults:
            bot = outcome.bots[fault.seat]  # its index in the bots given
            if bot not in explained:
                explained.add(bot)
                print(
                    f"{args.bots[bot]}: first fault in game {outcome.game_number},"
                    f" round {fault.round}, trick {fault.trick}: {fault.kind.value}:"
                    f" {fault.detail}"
                )
    if args.replays:
        print(f"replays in {args.replays}/")
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    path = Path(args.name if args.name.endswith(".py") else f"{args.name}.py")
    if path.exists():
        return _fail(f"{path} already exists; choose another name")
    if not path.stem.isidentifier():
        return _fail(f"{path.name}: use letters, digits and underscores for a bot name")
    template = resources.files("cucumbers").joinpath("templates/starter.py").read_text("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(template.replace("THIS_FILE", path.name), encoding="utf-8")
    print(f"wrote {path}; try: cucumbers play {path} builtin:random builtin:heuristic")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    try:
        load_bot(args.bot)
    except BotLoadError as error:
        return _fail(f"{args.bot} is not a usable bot: {error}")
    rules = rules_for(args.game)
    if not rules.min_players <= args.players <= rules.max_players:
        return _fail(f"{rules.name} seats {rules.min_players} to {rules.max_players} players")
    specs = [BotSpec(args.bot, "your bot")]
    specs += [BotSpec("builtin:random", f"builtin:random#{k}") for k in range(1, args.players)]
    limits = Limits(move_seconds=args.per_move)
    places: list[int] = []
    moves, think = 0, 0.0
    # The runner's own `with`: stopping at the first fault stops the bots' processes now,
    # not when the suspended match generator is collected (closing a runner twice is fine).
    with make_runner(RunnerName.PROCESS, limits) as runner:
        outcomes = play_match(
            rules,
            specs,
            runner,
            seed=args.seed,
            game_numbers=range(1, args.games + 1),
            keep_replays=False,
        )
        for number in range(1, args.games + 1):
            print(
                f"validate: game {number} of {args.games} ({rules.name}, {args.players} seats,"
                f" {limits.move_seconds:g} s a move and a {limits.bank_seconds:g} s bank)...",
                file=sys.stderr,
                flush=True,
            )
            outcome = next(outcomes)
            seat = outcome.bots.index(0)
            for fault in outcome.faults:
                if fault.seat == seat:
                    print(
                        f"{args.bot} faulted in game {outcome.game_number}, round {fault.round},"
                        f" trick {fault.trick}: {fault.kind.value}: {fault.detail}",
                        file=sys.stderr,
                    )
                    if fault.traceback is not None:
                        print(fault.traceback.format(), file=sys.stderr)
                    output = outcome.outputs[seat].strip()
                    if output:
                        print("its last output:\n" + output[-2000:], file=sys.stderr)
                    print("validate: stopped at the first fault", file=sys.stderr)
                    return 1
            places.append(outcome.place_of_bot(0))
            moves += outcome.moves[seat]
            think += outcome.think_seconds[seat]
    per_move = 1000 * think / moves if moves else 0.0
    print(
        f"OK: {args.bot} played {args.games} {rules.name} games under the process runner"
        f" without a fault (mean place {sum(places) / len(places):.2f} of {args.players},"
        f" {per_move:.1f} ms per move)"
    )
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        replay = load_replay(args.file)
    except ReplayFileError as error:
        return _fail(str(error))
    if args.html is not None:
        try:
            args.html.write_text(replay_page(replay), encoding="utf-8")
        except OSError as error:
            return _fail(f"cannot write {args.html}: {error.strerror or error}")
        print(f"wrote {args.html}: open it in a browser (it needs no network)")
        return 0
    problems = check_replay(replay)
    if problems:
        print(
            f"cucumbers: warning: {args.file} breaks the rules ({len(problems)} problem(s);"
            f" cucumbers check-replay lists them all), first: {problems[0]}",
            file=sys.stderr,
        )
    color = sys.stdout.isatty() if args.color is None else args.color
    try:
        text = render_replay(replay, color=color)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        return _fail(f"{args.file} cannot be drawn: it does not have the shape of a replay")
    print(text)
    return 0


#: What ``check-replay`` says of a replay without a seed, whose hands it could not re-derive.
NO_SEED_NOTE = "its deal is NOT verified: the replay has no seed, so only the rules were checked"


def cmd_check_replay(args: argparse.Namespace) -> int:
    files = list(iter_replay_files(args.paths))
    if not files:
        return _fail("no replay files (*.json, *.json.gz) found")
    bad = unseeded = 0
    for path in files:
        try:
            checked = verify_replay(load_replay(path))
        except ReplayFileError as error:
            checked = ReplayCheck((str(error),), DealCheck.UNCHECKED)
        problems = checked.problems
        # Shown even with --quiet: a replay that passes without a seed passes on less.
        note = f"; {NO_SEED_NOTE}" if checked.deal is DealCheck.NO_SEED else ""
        unseeded += bool(note)
        if problems:
            bad += 1
            print(f"{path}: {len(problems)} problem(s){note}")
            for problem in problems[:20]:
                print(f"  - {problem}")
        elif note:
            print(f"{path}: ok{note}")
        elif not args.quiet:
            print(f"{path}: ok")
    summary = f"{len(files) - bad} of {len(files)} replays valid"
    if unseeded:
        summary += f"; {unseeded} without a seed, whose deal is NOT verified"
    print(summary)
    return 1 if bad else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cucumbers", description="Write, play and check Cucumber Arena bots locally."
    )
    parser.add_argument("--version", action="version", version=f"cucumbers {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    new = commands.add_parser("new", help="write a documented starter bot")
    new.add_argument("name", help="file name of the new bot (NAME or NAME.py)")
    new.set_defaults(run=cmd_new)

    play = commands.add_parser("play", help="play games between bots and summarize")
    add_match_arguments(
        play, [RunnerName.PROCESS, *[name for name in RUNNERS if name != RunnerName.PROCESS]]
    )
    play.set_defaults(run=run_match_command)

    validate = commands.add_parser(
        "validate",
        help="check that a bot loads and plays cleanly",
        description="Load the bot, then play games against builtin:random in a subprocess,"
        " as the platform's validation does; stop at the first fault and explain it.",
    )
    validate.add_argument("bot", type=_bot, help="the bot file (.py) or builtin:NAME")
    validate.add_argument(
        "--game",
        choices=list(registry()),
        default=FIVE_CUCUMBERS.name,
        help="the game to play (default: %(default)s)",
    )
    validate.add_argument(
        "--games", type=_positive, default=3, help="games to play (default: %(default)s)"
    )
    validate.add_argument(
        "--players",
        type=_positive,
        default=4,
        help="table size: your bot and builtin:random in the other seats (default: %(default)s)",
    )
    validate.add_argument(
        "--seed", type=_seed, default=1, help="match seed of the games (default: %(default)s)"
    )
    add_per_move(validate, "time per move (default: %(default)s; the time bank is the usual one)")
    validate.set_defaults(run=cmd_validate)

    replay = commands.add_parser("replay", help="show a replay in the terminal or a web page")
    replay.add_argument("file", type=Path)
    replay.add_argument("--color", action=argparse.BooleanOptionalAction, default=None)
    replay.add_argument(
        "--html",
        type=Path,
        metavar="OUT.html",
        help="write a self-contained page with the replay viewer instead of printing text",
    )
    replay.set_defaults(run=cmd_replay)

    check = commands.add_parser(
        "check-replay",
        help="check replays against every rule and their seed's deal",
        description="Check each replay against every rule, and every round's hands against"
        " the deal of the replay's seed. A replay without a seed (from another producer) is"
        " checked against the rules alone, and said to have its deal NOT verified. Exit"
        " status 1 when a replay has a problem.",
    )
    check.add_argument("paths", nargs="+", type=Path, metavar="FILE|DIR")
    check.add_argument("--quiet", "-q", action="store_true", help="print only problems")
    check.set_defaults(run=cmd_check_replay)

    add_tool_commands(commands)
    add_review_command(commands)
    add_site_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status = int(args.run(args))
        sys.stdout.flush()  # a closed pipe shows here, inside the try, not at exit
        return status
    except (UnknownGameError, ValueError) as error:
        return _fail(str(error))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `cucumbers replay FILE | head`: the reader has had enough. Point stdout at
        # /dev/null so that the interpreter's own flush at exit does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # what a shell reports for a process ended by SIGPIPE
