"""The ``cucumbers`` commands that talk to a Cucumber Arena server: ``upload`` (with
``--wait``), ``matches`` and ``download``. All of them use the transport of
:mod:`cucumbers.upload` (no redirects followed, the token only over HTTPS or to this
machine), through :class:`cucumbers.api.Client`."""

from __future__ import annotations

import argparse
import itertools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cli_args import fail as _fail
from .cli_args import seconds_arg as _positive_seconds
from .games import registry

if TYPE_CHECKING:
    from .api import Client

#: Seconds ``upload --wait`` waits for the verdict by default.
WAIT_SECONDS = 600.0
OWNER_VARIABLE = "CUCUMBERS_USER"


def _client(args: argparse.Namespace) -> Client:
    from .api import Client
    from .upload import resolve

    server, token = resolve(args.server, args.token)
    return Client(server, token, allow_http=args.allow_http)


def _owner(args: argparse.Namespace) -> str | None:
    from .upload import read_config

    return args.owner or os.environ.get(OWNER_VARIABLE) or read_config().get("user")


def cmd_upload(args: argparse.Namespace) -> int:
    from .upload import UploadFailed, resolve, upload_bot

    if not args.file.is_file():
        return _fail(f"no such file: {args.file}")
    try:
        server, token = resolve(args.server, args.token)
        result = upload_bot(
            args.file,
            args.bot,
            server=server,
            token=token,
            game=args.game,
            allow_http=args.allow_http,
        )
    except UploadFailed as error:
        return _fail(str(error))
    if not args.wait:
        print(
            f"uploaded {args.file} as {result.bot} v{result.version} ({result.status}):"
            f" validation follows, see {result.url}"
        )
        return 0
    print(f"uploaded {args.file} as {result.bot} v{result.version}; waiting for the verdict")
    try:
        client = _client(args)
        bot_id = result.bot_id if result.bot_id is not None else client.find_bot(result.bot)["id"]
        version = client.wait_for_version(
            bot_id,
            result.version,
            deadline_seconds=args.wait_timeout,
            poll_seconds=args.poll,
            on_status=lambda status: print(f"  {status}", flush=True),
        )
    except UploadFailed as error:
        return _fail(str(error))
    status = version.get("status")
    if status == "active":
        print(f"{result.bot} v{result.version} passed validation and is active: {result.url}")
        return 0
    print(f"{result.bot} v{result.version} was {status}: {version.get('rejection_kind')}")
    if version.get("rejection_detail"):
        print(f"  reason: {version['rejection_detail']}")
    tail = (version.get("stderr_tail") or "").strip()
    if tail:
        print("  its last output:\n" + "\n".join(f"    {line}" for line in tail.splitlines()))
    if version.get("validation_match"):
        print(
            f"  its validation match: cucumbers download --bot {result.bot}"
            f" (match {version['validation_match']}), then cucumbers repro"
        )
    return 1


def cmd_matches(args: argparse.Namespace) -> int:
    from .downloads import match_line, match_pages
    from .upload import UploadFailed

    try:
        client = _client(args)
        bot = client.find_bot(args.bot, _owner(args))
        print(f"{bot['owner']}/{bot['name']} (bot {bot['id']}, {bot['game']}): recent matches")
        count = 0
        for match in itertools.islice(match_pages(client, int(bot["id"])), args.limit):
            print(match_line(match, int(bot["id"])))
            count += 1
    except UploadFailed as error:
        return _fail(str(error))
    if not count:
        print("no matches yet")
    return 0


def cmd_download(args: argparse.Namespace) -> int:
    from .downloads import download_matches
    from .upload import UploadFailed

    def written(path: Path, seats: list[int]) -> None:
        where = ", ".join(map(str, seats)) or "?"
        print(f"  {path}  (your seat: {where})", flush=True)

    try:
        client = _client(args)
        bot = client.find_bot(args.bot, _owner(args))
        print(f"{bot['owner']}/{bot['name']}: downloading every finished match into {args.out}/")
        done = download_matches(client, int(bot["id"]), args.out, on_game=written)
    except UploadFailed as error:
        return _fail(str(error))
    except OSError as error:
        return _fail(f"cannot write into {args.out}: {error.strerror or error}")
    print(
        f"{done.matches} matches: {done.replays} replays written, {done.kept} already there,"
        f" {done.outputs} output files, {done.faults} fault files (tracebacks); next:"
        f" cucumbers repro {args.out}/match-ID-game-N.json.gz --seat N yourbot.py"
    )
    if done.held:
        print(
            f"{done.held} matches held: their duplicate deals' other rotations are still being"
            " played; their replays come with the next download once those are"
        )
    return 0


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server", metavar="URL", help="default: $CUCUMBERS_SERVER, the config file, or local"
    )
    parser.add_argument("--token", help="API token (default: $CUCUMBERS_TOKEN or the config file)")
    parser.add_argument(
        "--allow-http",
        action="store_true",
        help="send the token over plain http to a server other than this machine",
    )


def _add_bot_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bot",
        required=True,
        metavar="NAME",
        help="your bot: NAME, OWNER/NAME or its id",
    )
    parser.add_argument(
        "--owner",
        metavar="USER",
        help="whose bot NAME is (default: $CUCUMBERS_USER or user in the config file;"
        " else NAME must be unique on the server)",
    )


def add_site_commands(commands: Any) -> None:
    """Add ``upload``, ``matches`` and ``download`` to the ``cucumbers`` subparsers."""
    upload = commands.add_parser("upload", help="upload a bot to a Cucumber Arena server")
    upload.add_argument("file", type=Path, help="the bot file (.py)")
    upload.add_argument("--bot", required=True, metavar="NAME", help="your bot's name")
    upload.add_argument(
        "--game",
        choices=list(registry()),
        help="the bot's game: needed only to create a new bot",
    )
    add_server_arguments(upload)
    upload.add_argument(
        "--wait",
        action="store_true",
        help="wait for the validation's verdict and print it (with the reason when rejected);"
        " exit status 1 when rejected",
    )
    upload.add_argument(
        "--wait-timeout",
        type=_positive_seconds,
        default=WAIT_SECONDS,
        metavar="SECONDS",
        help="how long --wait waits for the verdict (default: %(default)s)",
    )
    upload.add_argument(
        "--poll",
        type=_positive_seconds,
        default=2.0,
        metavar="SECONDS",
        help="seconds between two looks at the version's status (default: %(default)s)",
    )
    upload.set_defaults(run=cmd_upload)

    matches = commands.add_parser("matches", help="list your bot's recent matches on the server")
    _add_bot_argument(matches)
    matches.add_argument(
        "--limit",
        type=int,
        default=20,
        metavar="N",
        help="show the N most recent matches (default: %(default)s)",
    )
    add_server_arguments(matches)
    matches.set_defaults(run=cmd_matches)

    download = commands.add_parser(
        "download",
        help="download every replay (and your output tails) of your bot's matches",
        description="Fetch every finished match of the bot, page after page with no cap:"
        " OUT/match-ID-game-N.json.gz (ready for replay, check-replay and repro) and"
        " OUT/match-ID-game-N.output.txt (your bots' own output, when the server has it)."
        " Replays already there are kept.",
    )
    _add_bot_argument(download)
    download.add_argument(
        "--out",
        type=Path,
        default=Path("replays"),
        metavar="DIR",
        help="where to write (default: %(default)s)",
    )
    add_server_arguments(download)
    download.set_defaults(run=cmd_download)
