"""What ``deploy/stack_check.py`` drives the stack with: the step clock, waits with
deadlines, the throwaway settings and a compose project that cleans up after itself."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from arena.signing import write_key_pair

T = TypeVar("T")
#: The label every sandbox container carries, and the one naming its runner's host
#: (arena/sandbox/labels.py): the check removes only those its own workers started.
SANDBOX_LABEL = "org.cucumbers.sandbox"
RUNNER_HOST_LABEL = "org.cucumbers.runner-host"
#: The uid of the image's arena user, which writes the staging directory.
ARENA_UID = 1000


#: How many of a failing service's last log lines the failure shows.
FAILURE_LOG_LINES = 60


class StackCheckFailed(Exception):
    """A step did not reach its goal; the message says which and what was seen, and
    ``service`` names the compose service at fault (of the compose project ``project``)
    when one is known."""

    def __init__(
        self, message: str, service: str | None = None, project: str | None = None
    ) -> None:
        super().__init__(message)
        self.service = service
        self.project = project


@dataclass
class Clock:
    """Prints each step with the time it took and the time since the start."""

    started: float = field(default_factory=time.monotonic)
    steps: list[tuple[str, float, float]] = field(default_factory=list)

    def say(self, message: str) -> None:
        print(f"[{time.monotonic() - self.started:7.1f} s] {message}", flush=True)

    @contextmanager
    def step(self, title: str) -> Iterator[None]:
        begun = time.monotonic()
        self.say(f"-> {title}")
        yield
        took = time.monotonic() - begun
        self.steps.append((title, took, time.monotonic() - self.started))
        self.say(f"ok {title} ({took:.1f} s)")

    def summary(self) -> str:
        rows = [f"  {took:7.1f} s   done at {at:7.1f} s   {name}" for name, took, at in self.steps]
        return "\n".join(["step timings:", *rows])


def wait_for(what: str, check: Callable[[], T | None], timeout: float, every: float = 1.0) -> T:
    """``check()``'s first true result, asked every ``every`` seconds until ``timeout``.
    An exception in ``check`` (a page not up yet) counts as not yet, and is reported."""
    deadline = time.monotonic() + timeout
    last_error = ""
    while True:
        try:
            result = check()
        except StackCheckFailed:
            raise
        except Exception as error:
            result, last_error = None, f"; last error: {type(error).__name__}: {error}"
        if result:
            return result
        if time.monotonic() > deadline:
            raise StackCheckFailed(f"no {what} within {timeout:.0f} s{last_error}")
        time.sleep(every)


def compose_command() -> list[str]:
    """Compose v2 (``docker compose``) if installed, else Debian's ``docker-compose``."""
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    raise StackCheckFailed("no Docker Compose (deploy/ensure-compose.sh installs one)")


@dataclass(frozen=True, slots=True)
class StackFiles:
    """One stack's throwaway settings: env files with fresh secrets (mode 0600), a staging
    directory of its own, and the variables compose itself reads."""

    folder: Path
    port: int
    #: The broker's users and the cache's (docs/security.md, "Redis: one user per role").
    redis_passwords: Mapping[str, str]
    staging_dir: Path
    variables: Mapping[str, str]

    @classmethod
    def generate(
        cls,
        folder: Path,
        port: int,
        images: Mapping[str, str],
        docker: str,
        web_image: str,
        proxy_image: str,
    ) -> StackFiles:
        folder.mkdir(mode=0o700, parents=True)
        db_password = secrets.token_hex(16)
        passwords = {user: secrets.token_hex(16) for user in ("platform", "arena", "cache")}
        platform = {
            "SECRET_KEY": secrets.token_urlsafe(50),
            "POSTGRES_USER": "arena",
            "POSTGRES_DB": "arena",
            "POSTGRES_PASSWORD": db_password,
            "DATABASE_URL": f"postgres://arena:{db_password}@postgres:5432/arena",
            "REDIS_URL": f"redis://platform:{passwords['platform']}@redis:6379/0",
            "CACHE_URL": f"redis://cache:{passwords['cache']}@redis:6379/1",
            # Made by migrate on the data volume (docker-compose.yml).
            "ARENA_SIGNING_KEY_FILE": "/data/keys/platform",
            # Plain HTTP on the loopback, no TLS proxy in front of the stack's own: the
            # visitor is the client. Said explicitly, as production's defaults (redirect to
            # HTTPS, HSTS, secure cookies) would turn it away.
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "CSRF_TRUSTED_ORIGINS": f"http://127.0.0.1:{port}",
            "BEHIND_TLS_PROXY": "0",
            "SECURE_COOKIES": "0",
            "SECURE_SSL_REDIRECT": "0",
            "SECURE_HSTS_SECONDS": "0",
            "EMAIL_BACKEND": "console",  # nothing is mailed from a throwaway stack
            # The stack's proxy names the client (a release without one sends no header,
            # and the connection's address counts).
            "TRUSTED_PROXIES": "1",
            "LADDER_TOP_UP_SECONDS": "5",
        }
        worker = {
            "REDIS_URL": f"redis://arena:{passwords['arena']}@redis:6379/0",
            "WORKER_CONCURRENCY": "2",
        }
        for name, values in (("platform.env", platform), ("arena-worker.env", worker)):
            path = folder / name
            path.touch(mode=0o600)
            path.write_text("".join(f"{key}={value}\n" for key, value in values.items()))
        staging = folder / "staging"
        staging.mkdir(mode=0o755)
        os.chown(staging, ARENA_UID, ARENA_UID)
        variables = {
            "ARENA_ENV_FILE": str(folder / "platform.env"),
            "ARENA_WORKER_ENV_FILE": str(folder / "arena-worker.env"),
            "ARENA_STAGING_DIR": str(staging),
            "DOCKER_GID": str(Path("/var/run/docker.sock").stat().st_gid),
            **{f"REDIS_{user.upper()}_PASSWORD": value for user, value in passwords.items()},
            "WEB_IMAGE": web_image,
            "PROXY_IMAGE": proxy_image,
            "WEB_PORT": str(port),
            **images,
            # docker-compose 1.29 builds with the classic builder unless told otherwise, and
            # through the first `docker` on PATH: one that has BuildKit.
            "COMPOSE_DOCKER_CLI_BUILD": "1",
            "DOCKER_BUILDKIT": "1",
            "PATH": f"{Path(docker).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        return cls(folder, port, passwords, staging, variables)

    def single_password(self) -> dict[str, str]:
        """The compose variables of a release from before the per-role Redis users (one
        ``requirepass``, every URL with it): env files of their own beside this stack's, the
        same secrets otherwise, so that the upgrade to this tree's files keeps the data."""
        password = self.redis_passwords["platform"]
        url = f"redis://:{password}@redis:6379/0"
        files = {}
        for name in ("platform.env", "arena-worker.env"):
            lines = (self.folder / name).read_text().splitlines()
            kept = [line for line in lines if not line.startswith(("REDIS_URL=", "CACHE_URL="))]
            path = self.folder / f"single-password-{name}"
            path.touch(mode=0o600)
            path.write_text("".join(f"{line}\n" for line in [*kept, f"REDIS_URL={url}"]))
            files[name] = str(path)
        return {
            **self.variables,
            "ARENA_ENV_FILE": files["platform.env"],
            "ARENA_WORKER_ENV_FILE": files["arena-worker.env"],
            "REDIS_PASSWORD": password,
        }

    def arena_host(self, name: str, platform_key: str) -> tuple[dict[str, str], str]:
        """The variables of deploy/arena-host.yml (the broker URL as the ``arena`` user, the
        platform's public key ``platform_key``, a staging directory and a key of its own;
        nothing of the platform's) and the host's public key, to register on the platform."""
        staging = self.folder / f"staging-{name}"
        staging.mkdir(mode=0o755)
        os.chown(staging, ARENA_UID, ARENA_UID)
        keys = self.folder / f"keys-{name}"
        keys.mkdir(mode=0o700)
        public = write_key_pair(keys / "host")
        for path in (keys, keys / "host", keys / "host.pub"):
            os.chown(path, ARENA_UID, ARENA_UID)
        keep = ("DOCKER_GID", "WEB_IMAGE", "PYTHON_IMAGE", "DOCKER_CLI_IMAGE", "PATH")
        return {
            **{key: value for key, value in self.variables.items() if key in keep},
            "COMPOSE_DOCKER_CLI_BUILD": "1",
            "DOCKER_BUILDKIT": "1",
            "REDIS_URL": f"redis://arena:{self.redis_passwords['arena']}@redis:6379/0",
            "ARENA_HOST_NAME": name,
            "ARENA_STAGING_DIR": str(staging),
            "ARENA_KEYS_DIR": str(keys),
            "ARENA_PLATFORM_KEY": platform_key,
        }, public


@dataclass
class Compose:
    """One compose project, run with its own variables (never the caller's .env)."""

    project: str
    files: list[Path]
    variables: Mapping[str, str]
    say: Callable[[str], None]
    port: int = 0
    #: Host names of the project's containers: their runners' sandbox containers are ours.
    hostnames: set[str] = field(default_factory=set)
    #: Taken down already (down is asked again when the check ends).
    is_down: bool = False

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def run(
        self, *args: str, stdin: bytes = b"", check: bool = True, log: Path | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """``compose -p PROJECT -f FILE... ARGS``, its output captured (and kept in ``log``);
        a failure raises :class:`StackCheckFailed` with the output's end, unless not
        ``check``."""
        command = [*compose_command(), "-p", self.project]
        for path in self.files:
            command += ["-f", str(path)]
        result = subprocess.run(
            [*command, *args],
            input=stdin,
            capture_output=True,
            env={**os.environ, **self.variables},
            cwd=self.files[0].parent,
            check=False,
        )
        if log is not None:
            log.write_bytes(result.stdout + result.stderr)
        if check and result.returncode != 0:
            tail = (result.stdout + result.stderr).decode(errors="replace")[-3000:]
            raise StackCheckFailed(f"{' '.join(args[:2])} of {self.project} failed:\n{tail}")
        return result

    def container_id(self, service: str) -> str:
        found = self.run("ps", "-q", service).stdout.decode().split()
        if not found:
            raise StackCheckFailed(f"no {service} container in {self.project}")
        self._remember_hostnames()
        return found[0]

    def exec_bytes(self, service: str, command: list[str], stdin: bytes = b"") -> bytes:
        return self.run("exec", "-T", service, *command, stdin=stdin).stdout

    def logs(self, service: str = "", tail: str = "all") -> str:
        args = ["logs", "--no-color", "--tail", tail, *([service] if service else [])]
        result = self.run(*args, check=False)
        return (result.stdout + result.stderr).decode(errors="replace")

    def health(self, service: str) -> str:
        """The container's health; a container that stopped or restarted (a crash at
        start, which the restart policy would repeat for ever) fails at once."""
        shown = inspect(self.container_id(service))
        state, restarts = shown["State"], shown.get("RestartCount", 0)
        if state["Status"] in {"exited", "dead"} or restarts:
            raise StackCheckFailed(
                f"{service} of {self.project} {_trouble(state, restarts)}",
                service=service,
                project=self.project,
            )
        return str(state.get("Health", {}).get("Status", "none"))

    def failing_services(self) -> dict[str, str]:
        """Each service whose container stopped with an error, restarted or is unhealthy,
        and what is wrong with it (a one-shot service that ended with 0 is fine)."""
        listed = self.run("ps", "-q", "-a", check=False).stdout.decode().split()
        found = {}
        for container in listed:
            shown = inspect(container)
            service = shown["Config"]["Labels"].get("com.docker.compose.service", container)
            state, restarts = shown["State"], shown.get("RestartCount", 0)
            health = state.get("Health", {}).get("Status")
            failed = state["Status"] in {"exited", "dead"} and state.get("ExitCode") != 0
            if failed or restarts or state.get("Restarting") or health == "unhealthy":
                found[service] = _trouble(state, restarts)
        return found

    def wait_healthy(self, service: str, timeout: float = 180) -> None:
        begun = time.monotonic()
        with self._blaming(service):
            wait_for(
                f"healthy {service} of {self.project}",
                lambda: self.health(service) == "healthy",
                timeout,
            )
        self.say(f"{service} healthy ({time.monotonic() - begun:.1f} s)")

    def wait_logged(self, service: str, text: str, timeout: float) -> None:
        """Until ``text`` is in the service's log; a container that stops or restarts
        meanwhile fails at once."""
        begun = time.monotonic()
        with self._blaming(service):
            wait_for(
                f"{text!r} in the log of {service} of {self.project}",
                lambda: self.health(service) and text in self.logs(service),
                timeout,
            )
        self.say(f"{service} logged {text!r} ({time.monotonic() - begun:.1f} s)")

    @contextmanager
    def _blaming(self, service: str) -> Iterator[None]:
        """A wait for ``service`` that fails names it, unless it names another."""
        try:
            yield
        except StackCheckFailed as error:
            if error.service is None:
                raise StackCheckFailed(str(error), service, self.project) from error
            raise

    def network(self) -> str:
        """The project's default network (where its services resolve by name)."""
        return str(next(iter(inspect(self.container_id("redis"))["NetworkSettings"]["Networks"])))

    def down(self) -> None:
        """Stop and remove the project with its volumes and networks, then any sandbox
        container its workers left (a bot ends by itself once its worker is gone; this
        catches one that did not). Never anything of anyone else's."""
        if self.is_down:
            return
        self.is_down = True
        self._remember_hostnames()
        result = self.run("down", "-v", "--remove-orphans", "-t", "20", check=False)
        for container in sandbox_containers_of(self.hostnames):
            subprocess.run(["docker", "rm", "-f", container], capture_output=True, check=False)
            self.say(f"removed sandbox container {container} left by {self.project}")
        if result.returncode != 0:
            tail = (result.stdout + result.stderr).decode(errors="replace")[-1000:]
            self.say(f"{self.project}: down -v FAILED, volumes or networks may remain:\n{tail}")
            return
        self.say(f"{self.project}: down -v done")

    def _remember_hostnames(self) -> None:
        for container in self.run("ps", "-q", check=False).stdout.decode().split():
            self.hostnames.add(str(inspect(container)["Config"]["Hostname"]))


def _trouble(state: dict[str, Any], restarts: int) -> str:
    """What a container's state says went wrong, in a few words."""
    words = [str(state.get("Status"))]
    if restarts:
        words.append(f"restarted {restarts} times")
    if state.get("ExitCode"):
        words.append(f"last exit code {state['ExitCode']}")
    if state.get("Health", {}).get("Status") == "unhealthy":
        words.append("unhealthy")
    if state.get("Error"):
        words.append(str(state["Error"]))
    return ", ".join(words)


def report_failure(projects: list[Compose], error: BaseException) -> None:
    """Name the failing services of every project and print each one's last log lines;
    when none can be named, the last lines of every service."""
    named = getattr(error, "service", None)
    culprits: list[tuple[Compose, str, str]] = []
    for compose in projects:
        failing = compose.failing_services()
        if named and named not in failing and getattr(error, "project", None) == compose.project:
            failing[named] = "named by the failed step"
        culprits += [(compose, service, why) for service, why in failing.items()]
    for compose, service, why in culprits:
        print(
            f"--- failing service {service} of {compose.project} ({why}):"
            f" its last {FAILURE_LOG_LINES} log lines ---\n"
            + compose.logs(service, tail=str(FAILURE_LOG_LINES)),
            flush=True,
        )
    if culprits:
        names = ", ".join(f"{service} of {compose.project}" for compose, service, _ in culprits)
        print(f"stack-check: failing service(s): {names}", flush=True)
        return
    for compose in projects:
        print(f"--- {compose.project}: last log lines ---\n{compose.logs(tail='20')}", flush=True)


def inspect(container: str) -> Any:
    """``docker inspect`` of one container, as JSON."""
    output = subprocess.run(["docker", "inspect", container], capture_output=True, check=True)
    return json.loads(output.stdout)[0]


def sandbox_containers_of(hostnames: set[str]) -> list[str]:
    """Sandbox containers whose runner ran in one of ``hostnames`` (the labels say)."""
    if not hostnames:
        return []
    listing = subprocess.run(
        [
            "docker",
            "ps",
            "-a",
            "--filter",
            f"label={SANDBOX_LABEL}=1",
            "--format",
            f'{{{{.ID}}}} {{{{.Label "{RUNNER_HOST_LABEL}"}}}}',
        ],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    rows = [line.split() for line in listing.splitlines()]
    return [row[0] for row in rows if len(row) == 2 and row[1] in hostnames]
