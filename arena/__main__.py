"""``python -m arena``: the arena's command line.

- ``image [--base auto|registry|offline] [--force]``: build (or reuse) the sandbox image.
- ``match BOT BOT... [--sandbox docker|process|none] ...``: play a match exactly as the
  workers do; same options, output and replays as ``cucumbers play``.
- ``reap [--all]``: remove sandbox containers left behind by runners that died.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cucumbers.cli import add_match_arguments, run_match_command

from .sandbox.errors import SandboxError
from .sandbox.image import BaseChoice, ImageError, ensure_image
from .sandbox.reaper import reap_containers
from .sandbox.runner import register


def cmd_image(args: argparse.Namespace) -> int:
    try:
        report = ensure_image(BaseChoice(args.base), force=args.force)
    except ImageError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 1
    action = "built" if report.built else "up to date"
    print(f"{report.tag} {action} (base {report.base}, {report.seconds:.1f} s)")
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    return run_match_command(args)


def cmd_reap(args: argparse.Namespace) -> int:
    try:
        removed = reap_containers(everything=args.all)
    except SandboxError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 1
    print(f"removed {len(removed)} container(s)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m arena", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    image = commands.add_parser("image", help="build or reuse the sandbox image")
    image.add_argument("--base", choices=[c.value for c in BaseChoice], default="auto")
    image.add_argument("--force", action="store_true", help="rebuild even if up to date")
    image.set_defaults(run=cmd_image)

    match = commands.add_parser("match", help="play a match as the workers do")
    add_match_arguments(match, ["docker", "process", "none"])
    match.set_defaults(run=cmd_match)

    reap = commands.add_parser("reap", help="remove containers of runners that died")
    reap.add_argument("--all", action="store_true", help="remove every sandbox container")
    reap.set_defaults(run=cmd_reap)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    register()
    args = build_parser().parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    raise SystemExit(main())
