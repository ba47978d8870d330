#!/usr/bin/env python3
"""``make stack-check``: docker-compose.yml built, started and used as a user would use it.

Every image of the compose file is built (on a host with no registry, from the offline
stand-ins of ``deploy/offline_images.py``), the stack starts as its own compose project
with a throwaway env file (generated secrets, a password on Redis, a free port on
127.0.0.1), and a visitor drives it over HTTP through the published port: signs up with
the site's form, makes an API token, uploads a bot, waits for its validation in the
sandbox (containers on this host's engine, started by the worker through the socket), for
a rated ladder match and its rating change, and opens the match page and a replay. Then a
second arena host from ``deploy/arena-host.yml`` (another compose project that shares no
volume and knows no database, only the broker URL) must play matches from the same queue.
Last, ``pg_dump`` of the stack restored into a fresh stack must show the same leaderboard.
Then the upgrade (``--from``): the previous release (the last git tag, or a given commit)
is built from an export of its tree, started as a compose project of its own and filled
(sign-up, a bot, its validation, rated matches); its web and migrate are replaced by
this tree's image over the same volumes (``migrate`` first), and the leaderboard, bots,
matches and replays must read the same as before.
Whatever happens, every project is taken down with its volumes (``down -v``); a failure
names the failing services and prints each one's last log lines.

``--fresh`` reuses nothing of earlier runs: the offline stand-ins are removed first and
built again from debootstrap with Docker's build cache and pip's cache unused, the wheels
made in a throwaway folder, the platform image built with ``--no-cache``. The sandbox image
is not removed: its tag is shared by every checkout of the same SDK on this engine (their
tests use it); the stack's worker builds it only when it is missing or out of date.

Each step prints its time; every wait is for an event, with a deadline.
"""

from __future__ import annotations

import argparse
import io
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import zipfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import docker
from docker.errors import ImageNotFound
from offline_images import OfflineImageError, build_offline_images, buildkit_client
from stack_support import (
    Clock,
    Compose,
    StackCheckFailed,
    StackFiles,
    compose_command,
    inspect,
    report_failure,
    wait_for,
)
from stack_upgrade import Release, differences, release_overrides, what_users_see
from stack_visitor import Visitor

from arena.sandbox.image import image_tag, up_to_date_base

REPO = Path(__file__).resolve().parents[1]
COMPOSE_FILE = REPO / "docker-compose.yml"
ARENA_HOST_FILE = REPO / "deploy" / "arena-host.yml"
#: The images docker-compose.yml names by default; present or pullable means a registry.
REGISTRY_IMAGES = (
    "postgres:16",
    "redis:7",
    "python:3.12-slim",
    "docker:27-cli",
    "debian:bookworm-slim",
)
BOT_NAME = "stackbot"
BOT_SOURCE = '''from cucumbers import Bot, View


class StackCheck(Bot):
    """Plays its lowest legal card."""

    def play(self, view: View) -> int:
        return min(view.legal)
'''
#: What only the platform's services may hold: never an arena host's. (DATA_DIR=/data is
#: the image's default for every container, a path with no volume behind it here.)
PLATFORM_ONLY = {
    "DATABASE_URL",
    "SECRET_KEY",
    "DEAL_KEY",
    "POSTGRES_PASSWORD",
    "S3_BUCKET",
    "S3_ACCESS_KEY_ID",
}
#: Deadlines. Generous: the house bots' validations queue ahead of the upload, and the
#: first sandbox image build (when none is up to date) takes minutes.
SERVE_SECONDS = 240
VERDICT_SECONDS = 600
MATCH_SECONDS = 600


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def registry_reachable(docker: str) -> bool:
    """Whether the standard images are here, or one can be pulled within 30 s."""
    if all(_succeeds([docker, "image", "inspect", name]) for name in REGISTRY_IMAGES):
        return True
    try:
        return _succeeds([docker, "pull", "--quiet", "redis:7"], timeout=30)
    except subprocess.TimeoutExpired:
        return False


def _succeeds(command: list[str], timeout: float | None = None) -> bool:
    return subprocess.run(command, capture_output=True, timeout=timeout).returncode == 0


def say_sandbox_image(clock: Clock) -> None:
    """Whether the stack's arena workers will reuse this tree's sandbox image or build it.
    Its tag is this tree's own (``arena.sandbox.image.image_tag``): other checkouts on the
    engine neither use nor replace it."""
    client = docker.from_env()
    try:
        client.images.get(image_tag())
    except ImageNotFound:
        clock.say(f"sandbox image {image_tag()}: none yet, the stack's worker builds it")
        return
    state = "up to date, reused" if up_to_date_base(client) else "other base, rebuilt"
    clock.say(f"sandbox image {image_tag()}: {state}")


# --- the checks, in order --------------------------------------------------------------


def build_images(stack: Compose, build_log: Path, fresh: bool) -> None:
    """Every image of the project's compose file. ``fresh``: the platform image built once
    without Docker's build cache, and the proxy's; then the other services of the platform
    image reuse that build (compose builds each service that has a ``build:`` on its own)."""
    if fresh:
        stack.run("build", "--no-cache", "web", "proxy", log=build_log)
    stack.run("build", log=build_log.with_suffix(".rest.log") if fresh else build_log)


def stack_starts(clock: Clock, stack: Compose, build_log: Path, fresh: bool) -> None:
    with clock.step("images built (build of every image of docker-compose.yml)"):
        build_images(stack, build_log, fresh)
    with clock.step("stack healthy (postgres, redis, migrate, web, proxy, worker, platform, beat)"):
        stack.run("up", "-d", "--no-build")
        for service in ("postgres", "redis", "web", "proxy"):
            stack.wait_healthy(service, SERVE_SECONDS)
        Visitor(stack.base_url).wait_until_serving()
        # The arena worker's health check is slow to start (its image build may take
        # minutes); its readiness is Celery's own word.
        stack.wait_logged("worker", " ready.", SERVE_SECONDS)
        stack.wait_logged("platform", " ready.", SERVE_SECONDS)
        stack.wait_logged("beat", "scheduler lock taken", SERVE_SECONDS)


def sdk_offered(clock: Clock, visitor: Visitor) -> None:
    """The getting-started page links the SDK's wheel that the image built, and the site
    serves that file."""
    with clock.step("getting-started page: the SDK's wheel offered and served"):
        page = visitor.page("/getting-started/")
        found = re.search(r"/sdk/(cucumbers-[0-9][0-9A-Za-z.+]*-py3-none-any\.whl)", page)
        if found is None:
            raise StackCheckFailed("the getting-started page offers no SDK wheel", "web")
        wheel = visitor.raw(f"/sdk/{found[1]}")
        with zipfile.ZipFile(io.BytesIO(wheel)) as archive:
            names = archive.namelist()
        if "cucumbers/__init__.py" not in names:
            raise StackCheckFailed(f"/sdk/{found[1]} is no wheel of the SDK: {names[:5]}", "web")
        clock.say(f"{found[1]}: {len(wheel)} bytes, {len(names)} files")


def user_plays(clock: Clock, visitor: Visitor, stack: str = "") -> None:
    """Sign up, token, upload, validation, a rated ladder match, its pages; the steps'
    titles name ``stack`` when given."""
    username = f"stack{secrets.token_hex(3)}"
    on = f" ({stack})" if stack else ""
    with clock.step(f"sign up through the site's form, make an API token{on}"):
        visitor.sign_up(username, f"{username}@example.org", secrets.token_urlsafe(12))
        token = visitor.make_token("stack-check")
    with clock.step(f"upload a bot through the API{on}"):
        uploaded = visitor.upload(token, BOT_NAME, BOT_SOURCE)
        bot_id, number = uploaded["bot"]["id"], uploaded["version"]["number"]
        first_rating = visitor.api(f"/api/bots/{bot_id}/")["rating"]
        clock.say(f"bot {bot_id} version {number}: {uploaded['version']['status']}")
    with clock.step(f"first validation: the bot active after its matches in the sandbox{on}"):
        version = wait_for(
            "verdict on the upload",
            lambda: _decided(visitor.version(token, bot_id, number)),
            VERDICT_SECONDS,
        )
        if version["status"] != "active":
            raise StackCheckFailed(f"the bot was rejected: {version}")
        played = visitor.api(f"/api/matches/{version['validation_match']}/", token)
        clock.say(
            f"validation match {played['id']}: {played['sandbox']} sandbox, worker"
            f" {played['worker']}"
        )
    with clock.step(f"first rated match: a ladder match of the bot finished, its rating moved{on}"):
        match = wait_for("rated ladder match", lambda: visitor.rated_match(bot_id), MATCH_SECONDS)
        seat = next(p for p in match["participants"] if p["bot"] == bot_id)
        bot = visitor.api(f"/api/bots/{bot_id}/")
        if bot["rating"] == first_rating:
            raise StackCheckFailed(f"rating still {first_rating} after match {match['id']}")
        clock.say(
            f"match {match['id']} by worker {match['worker']}: rating"
            f" {seat['rating_before']:.1f} -> {seat['rating_after']:.1f}; now"
            f" {bot['rating']:.1f} after {bot['games']} games"
        )
    with clock.step(f"open the match page and a replay{on}"):
        page = visitor.page(f"/matches/{match['id']}/")
        if BOT_NAME not in page:
            raise StackCheckFailed(f"the page of match {match['id']} does not name the bot")
        # A rotation's replays are held until its whole deal set is played: the replay of
        # a match whose set is.
        match = wait_for(
            "a rated match of the bot whose deal set is played",
            lambda: visitor.rated_match(bot_id, replays_shown=True),
            MATCH_SECONDS,
        )
        replay = visitor.api(f"/api/matches/{match['id']}/games/1/replay/")
        download = visitor.raw(f"/matches/{match['id']}/games/1/replay.json.gz")
        if not download.startswith(b"\x1f\x8b"):
            raise StackCheckFailed("the replay download is not gzip")
        clock.say(
            f"match page {len(page)} bytes; replay JSON keys {sorted(replay)[:6]};"
            f" download {len(download)} bytes of gzip"
        )


def _decided(version: dict[str, Any]) -> dict[str, Any] | None:
    return version if version["status"] in {"active", "rejected"} else None


def second_host_plays(clock: Clock, stack: Compose, host: Compose, name: str) -> None:
    """An arena host's worker that shares only the broker with the stack plays a match
    from the same queue: the match record names it, and so does its log."""
    with clock.step("second arena host (deploy/arena-host.yml) playing from the same queue"):
        host.run("up", "--no-build", "--no-start")
        # Its broker URL names the host "redis" on the stack's network: the one thing the
        # two projects share, as the broker's address is between two machines.
        subprocess.run(
            ["docker", "network", "connect", stack.network(), host.container_id("arena")],
            check=True,
        )
        host.run("start")
        shown = inspect(host.container_id("arena"))
        names = sorted(item.split("=", 1)[0] for item in shown["Config"]["Env"])
        leaked = set(names) & PLATFORM_ONLY
        mounts = sorted(mount["Destination"] for mount in shown["Mounts"])
        if leaked or any(mount["Type"] == "volume" for mount in shown["Mounts"]):
            raise StackCheckFailed(f"the arena host has {sorted(leaked)} / volumes {mounts}")
        clock.say(
            f"arena host's settings: {', '.join(n for n in names if n != 'PATH')};"
            f" mounts: {', '.join(mounts)}"
        )
        host.wait_logged("arena", " ready.", SERVE_SECONDS)
        match = wait_for(
            f"finished match played by a worker named {name}-*",
            lambda: Visitor(stack.base_url).match_by_worker(f"{name}-"),
            MATCH_SECONDS,
        )
        if f"match {match['id']} attempt" not in host.logs("arena"):
            raise StackCheckFailed(f"the arena host's log does not show match {match['id']}")
        clock.say(f"match {match['id']} ({match['kind']}) played by worker {match['worker']}")


def backup_restores(clock: Clock, stack: Compose, fresh: Compose) -> None:
    """The database (pg_dump) and the data volume (sources, replays) of the stack, restored
    into a fresh stack that has never run: the same leaderboard, the replays readable."""
    with clock.step("backup and restore: pg_dump and the data volume into a fresh stack"):
        # The platform's worker records results: no rating changes from here on.
        stack.run("stop", "beat", "platform")
        before = Visitor(stack.base_url).leaderboard()
        dump = stack.exec_bytes(
            "postgres", ["sh", "-c", 'pg_dump --format=custom -U "$POSTGRES_USER" "$POSTGRES_DB"']
        )
        files = stack.exec_bytes("web", ["tar", "-C", "/data", "-c", "sources", "replays"])
        fresh.run("up", "-d", "--no-build", "postgres")
        fresh.wait_healthy("postgres")
        fresh.exec_bytes(
            "postgres",
            ["sh", "-c", 'pg_restore --no-owner -U "$POSTGRES_USER" -d "$POSTGRES_DB"'],
            stdin=dump,
        )
        fresh.run(
            "run",
            "--rm",
            "--no-deps",
            "-T",
            "--entrypoint",
            "tar",
            "web",
            "-C",
            "/data",
            "-x",
            stdin=files,
        )
        fresh.run("up", "-d", "--no-build", "proxy")  # and web, which it needs
        fresh.wait_healthy("web", SERVE_SECONDS)
        fresh.wait_healthy("proxy", SERVE_SECONDS)
        after = Visitor(fresh.base_url).leaderboard()
        if after != before:
            raise StackCheckFailed(f"the leaderboards differ:\n{before}\n{after}")
        finished = Visitor(fresh.base_url).api("/api/matches/?status=finished")["results"]
        # The newest whose replays are shown (a rotation's are held until its set is played).
        latest = next((m for m in finished if not m.get("replays_held")), None)
        if latest is None:
            raise StackCheckFailed("no finished match with its replays shown after the restore")
        Visitor(fresh.base_url).raw(f"/matches/{latest['id']}/games/1/replay.json.gz")
        clock.say(
            f"dump {len(dump)} bytes, files {len(files)} bytes; the same leaderboard"
            f" of {len(after)} bots; match {latest['id']}'s replay read back"
        )


def upgrade_keeps_everything(
    clock: Clock,
    release: Release,
    old: Compose,
    variables: dict[str, str],
    fresh: bool,
    build_log: Path,
) -> Compose:
    """The release's stack built, started and filled; then this tree's image over its
    volumes (``migrate`` first, then web): what users see must not change. The upgraded
    project (the same compose project, this tree's compose file)."""
    with clock.step(f"upgrade: the release {release.name} built and started"):
        build_images(old, build_log, fresh)
        old.run("up", "-d", "--no-build")
        old.wait_healthy("web", SERVE_SECONDS)
        Visitor(old.base_url).wait_until_serving()
        old.wait_logged("worker", " ready.", SERVE_SECONDS)
    user_plays(clock, Visitor(old.base_url), f"release {release.name}")
    with clock.step(f"upgrade: {release.name} -> this tree (migrate, then web), the same data"):
        old.run("stop", "beat", "worker")  # nothing is played or recorded from here on
        before = what_users_see(Visitor(old.base_url))
        new = Compose(old.project, [COMPOSE_FILE], variables, clock.say, old.port)
        # Compose recreates what changed (the image of migrate and web) over the same
        # volumes; web waits for migrate to end with 0, and the proxy (new since issue 30:
        # it now holds the published port) for web. beat and the worker stay stopped, so
        # that the comparison sees no new result.
        new.run("up", "-d", "--no-build", "proxy")
        new.wait_healthy("web", SERVE_SECONDS)
        new.wait_healthy("proxy", SERVE_SECONDS)
        migrated = inspect(new.container_id("migrate"))
        if migrated["Config"]["Image"] != variables["WEB_IMAGE"]:
            raise StackCheckFailed(f"migrate ran {migrated['Config']['Image']}", "migrate")
        after = what_users_see(Visitor(new.base_url))
        changed = differences(before, after)
        if changed:
            raise StackCheckFailed("the upgrade changed what users see:\n" + "\n".join(changed))
        clock.say(
            f"the same leaderboard ({len(after['leaderboard'])} bots), {len(after['bots'])}"
            f" bots, {len(after['matches'])} finished matches, {len(after['replays'])}"
            f" replays (API and download) after migrate of {variables['WEB_IMAGE']}"
        )
    return new


def run(args: argparse.Namespace) -> None:
    clock = Clock()
    with clock.step("preflight: engine, compose, which images"):
        subprocess.run([str(REPO / "deploy" / "ensure-compose.sh")], check=True)
        docker = buildkit_client()
        offline = args.images == "offline" or (
            args.images == "auto" and not registry_reachable(docker)
        )
        clock.say(f"compose: {' '.join(compose_command())}; BuildKit client: {docker}")
        clock.say("images: " + ("offline stand-ins (no registry)" if offline else "registry"))
        release, about_release = Release.find(args.from_)
        clock.say(about_release)
        if args.fresh:
            clock.say("fresh: no image, build cache or wheel of an earlier run is reused")
    images: dict[str, str] = {}
    if offline:
        with clock.step("offline images (Debian's packages, wheels built here)"):
            try:
                built = build_offline_images(docker, log=clock.say, fresh=args.fresh)
            except OfflineImageError as error:
                raise StackCheckFailed(str(error)) from error
            images = built.compose_variables()
            clock.say(" ".join(f"{name}={image}" for name, image in images.items()))
    project = f"cucumbers-stack-{secrets.token_hex(3)}"
    web_image = f"cucumber-arena-web:{project}"
    proxy_image = f"cucumber-arena-proxy:{project}"
    # The folder outlives the projects: compose reads their env files to take them down.
    with tempfile.TemporaryDirectory(prefix=f"{project}-") as tmp, ExitStack() as cleanup:
        cleanup.callback(_remove_image, web_image, clock)
        cleanup.callback(_remove_image, proxy_image, clock)
        say_sandbox_image(clock)
        projects: list[Compose] = []

        def new_project(
            name: str, files: list[Path], variables: dict[str, str], port: int
        ) -> Compose:
            compose = Compose(name, files, variables, clock.say, port)
            projects.append(compose)
            cleanup.callback(compose.down)
            return compose

        def stack_files(name: str, image: str = web_image) -> StackFiles:
            return StackFiles.generate(
                Path(tmp) / name, free_port(), images, docker, image, proxy_image
            )

        files = stack_files("stack")
        stack = new_project(project, [COMPOSE_FILE], dict(files.variables), files.port)
        try:
            stack_starts(clock, stack, Path(tmp) / "build.log", args.fresh)
            sdk_offered(clock, Visitor(stack.base_url))
            user_plays(clock, Visitor(stack.base_url))
            host_name = f"{project}-host2"
            # Its own key, registered on the platform (as an operator would), and the
            # platform's public key, read from the stack (migrate made it).
            platform_key = stack.exec_bytes("web", ["cat", "/data/keys/platform.pub"]).decode()
            host_variables, host_key = files.arena_host(host_name, platform_key.strip())
            stack.exec_bytes(
                "web", ["django-admin", "arena_host", "add", host_name, "--public-key", host_key]
            )
            host = new_project(host_name, [ARENA_HOST_FILE], host_variables, 0)
            second_host_plays(clock, stack, host, host_name)
            if not args.no_backup:
                fresh_files = stack_files("fresh")
                fresh = new_project(
                    f"{project}-fresh",
                    [COMPOSE_FILE],
                    dict(fresh_files.variables),
                    fresh_files.port,
                )
                backup_restores(clock, stack, fresh)
            if release is not None:
                # The machine's cores to the release's stack: the others are done. The
                # newest first, as at the end: the arena host is on the stack's network.
                for compose in reversed(projects):
                    compose.down()
                release_image = f"{web_image}-release"
                cleanup.callback(_remove_image, release_image, clock)
                tree = release.export(Path(tmp) / "release")
                old_files = stack_files("upgrade", release_image)
                overrides, why = release_overrides(tree, old_files.folder)
                if why:
                    clock.say(why)
                old_variables = dict(old_files.variables)
                if "redis-acl:" not in (tree / "docker-compose.yml").read_text():
                    # Its Redis takes one password, this tree's a user per role: the release
                    # runs on single-password env files, and the upgrade brings this tree's
                    # (docs/platform.md, Deploying, "Upgrades"), as an operator would.
                    old_variables = old_files.single_password()
                    clock.say(
                        f"{release.name} predates the per-role Redis users and signed"
                        " messages: it runs on one Redis password, upgraded with new env files"
                    )
                old = new_project(
                    f"{project}-upgrade",
                    [tree / "docker-compose.yml", *overrides],
                    old_variables,
                    old_files.port,
                )
                upgraded = upgrade_keeps_everything(
                    clock,
                    release,
                    old,
                    {**old_files.variables, "WEB_IMAGE": web_image},
                    args.fresh,
                    Path(tmp) / "release-build.log",
                )
                projects.append(upgraded)
                cleanup.callback(upgraded.down)
        except BaseException as error:
            report_failure(projects, error)
            raise
        finally:
            print(clock.summary(), flush=True)


def _remove_image(tag: str, clock: Clock) -> None:
    """An image this check tagged (its layers stay in the build cache)."""
    subprocess.run(["docker", "image", "rm", tag], capture_output=True, check=False)
    clock.say(f"removed image tag {tag}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--images",
        choices=["auto", "registry", "offline"],
        default="auto",
        help="registry: the standard images; offline: stand-ins from Debian's packages;"
        " auto (default): offline when no registry answers",
    )
    parser.add_argument("--no-backup", action="store_true", help="skip backup and restore")
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="reuse nothing of earlier runs: the offline images removed and built again,"
        " no build cache, no pip cache, the wheels in a throwaway folder",
    )
    parser.add_argument(
        "--from",
        dest="from_",
        default="auto",
        metavar="COMMIT",
        help="upgrade step from this release (a tag or commit); auto (default): the last"
        " tag reachable from HEAD, none when there is no tag; none: skip the step",
    )
    try:
        run(parser.parse_args())
    except (StackCheckFailed, subprocess.CalledProcessError) as error:
        print(f"stack-check: FAILED: {error}", file=sys.stderr, flush=True)
        return 1
    print("stack-check: passed", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
