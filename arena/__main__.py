"""``python -m arena``: the arena's command line.

- ``keygen --out PATH``: a new Ed25519 key pair for signing (the platform's, or an arena
  host's): the private key in PATH (0600), the public key in PATH.pub, printed.
- ``image [--base auto|registry|offline] [--force] [--prune]``: build (or reuse) the sandbox
  image of this tree; ``--prune`` then removes other trees' sandbox images no container uses.
- ``match BOT BOT... [--sandbox docker|process|none] ...``: play a match exactly as the
  workers do; same options, output and replays as ``cucumbers play``.
- ``redis-acl [--output FILE] [--explain]``: the broker's Redis users, one per role, as an
  ACL file for ``redis-server --aclfile`` (passwords from ``REDIS_*_PASSWORD``); see
  :mod:`arena.redis_acl`.
- ``reap [--all]``: remove sandbox containers (and staged sources) left behind by runners
  that died.
- ``seccomp``: print the sandbox's seccomp profile (``deploy/sandbox/seccomp.json``).
- ``worker [--name NAME] [--concurrency N] [--sandbox docker|process]``: an arena worker,
  playing matches from the broker (``REDIS_URL``) until stopped; see :mod:`arena.worker`.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from collections.abc import Sequence

from docker.errors import DockerException

from cucumbers.cli import add_match_arguments, run_match_command
from cucumbers.runners.base import RunnerName

from .broker import ARENA_QUEUES, BrokerSettings, BrokerSettingsError, Role
from .engine_watch import EngineUnavailable
from .logs import formatter, log_format
from .sandbox.errors import SandboxError, SettingsError
from .sandbox.image import BaseChoice, ImageError, ensure_image, prune_other_images
from .sandbox.reaper import reap_containers
from .sandbox.runner import register
from .sandbox.settings import SandboxSettings


def cmd_image(args: argparse.Namespace) -> int:
    try:
        report = ensure_image(BaseChoice(args.base), force=args.force)
    except ImageError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 1
    action = "built" if report.built else "up to date"
    print(f"{report.tag} {action} (base {report.base}, {report.seconds:.1f} s)")
    if args.prune:
        try:
            removed = prune_other_images()
        except DockerException as error:
            print(f"arena: error: pruning the sandbox images failed: {error}", file=sys.stderr)
            return 1
        print(
            f"removed {len(removed)} other sandbox image(s){': ' if removed else ''}"
            + ", ".join(removed)
        )
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


def cmd_worker(args: argparse.Namespace) -> int:
    from .engine_watch import watch_seconds
    from .worker import SANDBOXES, WorkerConfig, WorkerKeys, WorkerKeysError, run_worker

    sandbox = args.sandbox or os.environ.get("SANDBOX", "").strip() or RunnerName.DOCKER
    if sandbox not in SANDBOXES:
        print(f"arena: error: SANDBOX={sandbox!r}: one of {', '.join(SANDBOXES)}", file=sys.stderr)
        return 2
    try:
        broker = BrokerSettings.from_env()
        broker.celery(Role.ARENA)  # no broker named: say so now, not from inside Celery
        limits = SandboxSettings.from_env()  # a mistyped limit stops the worker here
        watch = watch_seconds(os.environ)
        kind = log_format()
    except (BrokerSettingsError, SettingsError, ValueError) as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    try:
        keys = WorkerKeys.from_env()  # last: a worker without its keys never starts
    except WorkerKeysError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    config = WorkerConfig(
        name=args.name,
        sandbox=sandbox,
        staging_dir=limits.staging_dir,
        runtime=limits.runtime,
        keys=keys,
        engine_watch_seconds=watch,
    )
    console = logging.StreamHandler()
    console.setFormatter(formatter(kind, "[%(asctime)s: %(levelname)s/arena] %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[console])
    try:
        run_worker(
            config, broker, concurrency=args.concurrency, queues=tuple(args.queues.split(","))
        )
    except EngineUnavailable:
        return 1  # logged, naming the engine
    return 0


def cmd_keygen(args: argparse.Namespace) -> int:
    from .signing import write_key_pair

    try:
        line = write_key_pair(args.out)
    except (FileExistsError, OSError) as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 1
    print(line)
    return 0


def cmd_redis_acl(args: argparse.Namespace) -> int:
    from .redis_acl import AclError, acl_file, explain, parse_version, passwords_from_env

    if args.explain:
        sys.stdout.write(explain())
        return 0
    try:
        text = acl_file(passwords_from_env(), parse_version(args.redis_version))
    except AclError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    if args.output is None:
        sys.stdout.write(text)
        return 0
    # Redis reads it as its own user: readable, and it holds digests, never a password.
    descriptor = os.open(args.output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    with os.fdopen(descriptor, "w") as out:
        out.write(text)
    os.chmod(args.output, 0o644)
    return 0


def cmd_seccomp(args: argparse.Namespace) -> int:
    from .sandbox.seccomp import profile_file_text

    sys.stdout.write(profile_file_text())
    return 0


def _name(text: str) -> str:
    if not 1 <= len(text) <= 100 or any(c.isspace() or c == "@" for c in text):
        raise argparse.ArgumentTypeError("1 to 100 characters, no space and no '@'")
    return text


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError("a whole number, at least 1")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m arena", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    image = commands.add_parser("image", help="build or reuse the sandbox image")
    image.add_argument("--base", choices=[c.value for c in BaseChoice], default="auto")
    image.add_argument("--force", action="store_true", help="rebuild even if up to date")
    image.add_argument(
        "--prune",
        action="store_true",
        help="then remove other trees' sandbox images that no container uses",
    )
    image.set_defaults(run=cmd_image)

    keygen = commands.add_parser(
        "keygen",
        help="make a signing key pair (the platform's, or an arena host's)",
        description="Writes a new Ed25519 private key to PATH (PEM PKCS#8, mode 0600) and its"
        " public key to PATH.pub (one line, ed25519:<base64>), and prints the public key."
        " Refuses to overwrite either file.",
    )
    keygen.add_argument("--out", required=True, metavar="PATH", help="the private key's file")
    keygen.set_defaults(run=cmd_keygen)

    match = commands.add_parser("match", help="play a match as the workers do")
    add_match_arguments(match, [RunnerName.DOCKER, RunnerName.PROCESS, RunnerName.NONE])
    match.set_defaults(run=cmd_match)

    reap = commands.add_parser("reap", help="remove containers of runners that died")
    reap.add_argument("--all", action="store_true", help="remove every sandbox container")
    reap.set_defaults(run=cmd_reap)

    acl = commands.add_parser(
        "redis-acl",
        help="write the broker's Redis users (an ACL file) from REDIS_*_PASSWORD",
        description="The broker's Redis users, one per role (platform, arena, cache; default"
        " off), from REDIS_PLATFORM_PASSWORD, REDIS_ARENA_PASSWORD and REDIS_CACHE_PASSWORD"
        " (stored as SHA-256 digests). For redis-server --aclfile.",
    )
    acl.add_argument("--output", help="the file to write (default: standard output)")
    acl.add_argument(
        "--redis-version",
        default=os.environ.get("REDIS_VERSION", "7.2").strip() or "7.2",
        help="the server's version, as 7.0 or 7.4: an older Redis refuses commands it does"
        " not know (default: $REDIS_VERSION, else 7.2)",
    )
    acl.add_argument("--explain", action="store_true", help="print each rule and its reason")
    acl.set_defaults(run=cmd_redis_acl)

    seccomp = commands.add_parser("seccomp", help="print the sandbox's seccomp profile")
    seccomp.set_defaults(run=cmd_seccomp)

    worker = commands.add_parser(
        "worker",
        help="play matches from the broker (REDIS_URL) in the sandbox",
        description="An arena worker: it needs the broker (REDIS_URL) and a Docker engine,"
        " nothing else. It plays matches until stopped (SIGTERM lets running matches end).",
    )
    worker.add_argument(
        "--name",
        type=_name,
        default=socket.gethostname(),
        help="how match pages name this worker (default: the host name)",
    )
    worker.add_argument(
        "--concurrency",
        type=_positive,
        default=2,
        help="matches played at once (default: 2)",
    )
    worker.add_argument(
        "--sandbox",
        choices=[RunnerName.DOCKER, RunnerName.PROCESS],
        help="docker (default; or $SANDBOX), or process: bots unsandboxed, local use only",
    )
    worker.add_argument(
        "--queues",
        default=",".join(ARENA_QUEUES),
        help=f"queues served, first served first (default: {','.join(ARENA_QUEUES)})",
    )
    worker.set_defaults(run=cmd_worker)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    register()
    args = build_parser().parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    raise SystemExit(main())
