#!/usr/bin/env python3
"""``make run``: the platform on embedded defaults, in the foreground.

Makes this checkout's signing keys on first run (the platform's and one arena host's, under
``DATA_DIR/keys``, 0600) and registers that host, migrates, registers the house bots and
the demo account, then runs the web server
(http://127.0.0.1:8000), the platform's worker (reports and periodic jobs), the scheduler
(beat, its own process, holding the scheduler's lock) and one arena worker (matches, with
only the broker's and the sandbox's variables in its environment) until Ctrl-C, which
stops all four. None outlives another: a child that exits stops the others, and each child
gets SIGTERM should the launcher itself be killed. SQLite and kombu's filesystem broker
under ``DATA_DIR`` (default ``.data/``) need no server; ``DATABASE_URL`` and ``REDIS_URL``
switch to PostgreSQL and Redis.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

from arena.parent_death import end_with
from arena.signing import ensure_key_pair
from arena.worker import worker_environment

REPO = Path(__file__).resolve().parents[1]
#: The name this machine's arena worker signs with, registered on the platform.
LOCAL_HOST = "local-arena"
PYTHON = sys.executable
ADDRESS = os.environ.get("RUN_ADDRESS", "127.0.0.1:8000")
STOP_SECONDS = 10.0
#: How long Ctrl-C lets the worker finish its running tasks (Celery's warm shutdown) before
#: its cold shutdown: a ladder match may run for minutes, and every task is safe to run
#: again (acks late, given back when its process is killed; the reapers pick up the rest).
WARM_SECONDS = 4.0


def manage(*args: str, env: dict[str, str]) -> None:
    subprocess.run([PYTHON, "manage.py", *args], cwd=REPO, env=env, check=True)


def docker_answers(env: dict[str, str]) -> bool:
    probe = "from web.sandbox import docker_engine_answers; print(docker_engine_answers())"
    out = subprocess.run(
        [PYTHON, "manage.py", "shell", "-v", "0", "-c", probe],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip().splitlines()[-1] == "True"


def prepare_sandbox(env: dict[str, str]) -> None:
    """Choose the sandbox for local use, unless ``SANDBOX`` is set: Docker when an engine
    answers and the sandbox image builds (minutes, the first time: now rather than in the
    middle of the first validation), else the process runner, chosen explicitly so that
    every page says uploads are not isolated. A worker never makes this choice itself."""
    if env.get("SANDBOX"):
        print(f"run: sandbox: {env['SANDBOX']} (SANDBOX is set)", flush=True)
        if env["SANDBOX"] == "docker":
            subprocess.run([PYTHON, "-m", "arena", "image"], cwd=REPO, env=env, check=True)
        return
    if docker_answers(env):
        print("run: sandbox: Docker; making sure the sandbox image is built...", flush=True)
        if subprocess.run([PYTHON, "-m", "arena", "image"], cwd=REPO, env=env).returncode == 0:
            env["SANDBOX"] = "docker"
            return
        print("run: the sandbox image could not be built: using the process runner")
    env["SANDBOX"] = "process"
    print("run: sandbox: process runner. Uploads are NOT isolated: local use only.")


def start(name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    print(f"run: starting {name}: {' '.join(argv[1:])}", flush=True)
    launcher = os.getpid()
    # A session of its own: Ctrl-C reaches only this launcher, which stops each child in
    # order instead of all of them racing at once. SIGTERM when the launcher dies, however
    # it dies (SIGKILL, an OOM kill): no child outlives it.
    return subprocess.Popen(
        argv, cwd=REPO, env=env, start_new_session=True, preexec_fn=lambda: end_with(launcher)
    )


def stop(children: dict[str, subprocess.Popen[bytes]]) -> None:
    # The main process only: Celery's warm shutdown stops its own pool processes.
    for child in children.values():
        if child.poll() is None:
            child.terminate()
    worker = children.get("arena")
    if worker is not None:
        try:
            worker.wait(timeout=WARM_SECONDS)
        except subprocess.TimeoutExpired:
            print("run: the worker is still busy: cold shutdown", flush=True)
            worker.send_signal(signal.SIGQUIT)
    deadline = time.monotonic() + STOP_SECONDS - WARM_SECONDS
    for name, child in children.items():
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            print(f"run: {name} did not stop in {STOP_SECONDS:g} s: killing it", flush=True)
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()


def local_secret_key(data_dir: Path) -> str:
    """This checkout's own secret key, made once and kept in DATA_DIR (0600)."""
    path = data_dir / "secret_key"
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(50))
    return path.read_text().strip()


def local_keys(data_dir: Path, env: dict[str, str]) -> dict[str, str]:
    """This checkout's keys, made once under DATA_DIR/keys: the platform's (unless
    ``ARENA_SIGNING_KEY_FILE`` names one) in ``env``; returns the arena worker's settings
    (the platform's public key, its own private key and name)."""
    keys = data_dir / "keys"
    env.setdefault("ARENA_SIGNING_KEY_FILE", str(keys / "platform"))
    ensure_key_pair(env["ARENA_SIGNING_KEY_FILE"])
    host_key = keys / LOCAL_HOST
    ensure_key_pair(host_key)
    return {
        "ARENA_PLATFORM_KEY_FILE": env["ARENA_SIGNING_KEY_FILE"] + ".pub",
        "ARENA_HOST_KEY_FILE": str(host_key),
        "ARENA_HOST_NAME": LOCAL_HOST,
    }


def main() -> int:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(REPO / "platform"), env.get("PYTHONPATH", "")])
    )
    env.setdefault("DJANGO_SETTINGS_MODULE", "web.settings")
    # The production settings (DEBUG off: no debug pages listing the URL patterns, static
    # files from WhiteNoise as in a deployment), but plain http on this machine: cookies
    # that are not TLS-only, no redirect to https, no HSTS, e-mail printed here.
    data_dir = Path(env.get("DATA_DIR") or REPO / ".data").resolve()
    env.setdefault("SECRET_KEY", local_secret_key(data_dir))
    for name, value in {
        "SECURE_COOKIES": "0",
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_HSTS_SECONDS": "0",
        "EMAIL_BACKEND": "console",
        "SITE_URL": f"http://{ADDRESS}",  # the links in the notices printed here
    }.items():
        env.setdefault(name, value)
    worker_keys = local_keys(data_dir, env)
    manage("migrate", "--noinput", "-v", "1", env=env)
    host_key = worker_keys["ARENA_HOST_KEY_FILE"]
    manage("arena_host", "add", LOCAL_HOST, "--public-key-file", f"{host_key}.pub", env=env)
    manage("collectstatic", "--noinput", "-v", "0", env=env)
    manage("bootstrap", env=env)
    manage("build_sdk", env=env)  # the SDK the getting-started page offers
    prepare_sandbox(env)
    arena_env = worker_environment(env) | worker_keys
    if not env.get("REDIS_URL"):
        arena_env["CUCUMBERS_BROKER_DIR"] = str(data_dir / "broker")
    children = {
        "web": start("web", [PYTHON, "manage.py", "runserver", ADDRESS, "--noreload"], env),
        # What arena workers send back, before the periodic jobs.
        "platform": start(
            "platform",
            [
                *[PYTHON, "-m", "celery", "-A", "web", "worker", "--loglevel=INFO"],
                *["--concurrency=1", "-n", "platform@%h"],
            ],
            env,
        ),
        # The scheduler, its own process: one at a time (its lock, web/scheduler.py).
        "beat": start(
            "beat", [PYTHON, "-m", "celery", "-A", "web", "beat", "--loglevel=INFO"], env
        ),
        # Matches, urgent ones first, and move reviews (before the ladder).
        "arena": start("arena", [PYTHON, "-m", "arena", "worker", "--concurrency=2"], arena_env),
    }
    print(f"run: Cucumber Arena at http://{ADDRESS}/ (Ctrl-C stops everything)", flush=True)
    stopping = False

    def on_signal(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    code = 0
    while not stopping:
        for name, child in children.items():
            if child.poll() is not None:
                print(f"run: {name} exited with code {child.returncode}: stopping", flush=True)
                stopping, code = True, 1
        time.sleep(0.5)
    print("run: stopping...", flush=True)
    stop(children)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
