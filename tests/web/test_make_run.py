"""``make run`` end to end: ``deploy/run.py`` on its embedded defaults (SQLite, kombu's
filesystem broker) serves the leaderboard, prints the demo account, drops the poison put on
every queue and plays on, accepts an API upload that its own worker validates, and Ctrl-C
stops every process it started; killed with SIGKILL, it leaves none of them running.

No database of the test suite is used: the launcher gets a clean environment with a
throw-away ``DATA_DIR``, so it never touches the repository's ``.data/``."""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.factories import GOOD_BOT

REPO = Path(__file__).resolve().parents[2]
RUN_PY = REPO / "deploy" / "run.py"
START_SECONDS = 300.0  # migrations on SQLite, bootstrap, four processes importing Django, on a
# machine that may be busy (a deadline for the event, not a speed)
# The house bots' validations queue ahead of ours on 2 cores, and the local filesystem
# broker serves its queues in no order of urgency: the ladder's deal sets (a table's
# rotations queued together) come between them. A deadline for the event, not a speed.
VALIDATE_SECONDS = 120.0
STOP_SECONDS = 12.0  # run.py's own STOP_SECONDS (10) plus a margin
# What the test suite's settings put in os.environ, and anything that would point the
# launcher at a server: make run must work on its embedded defaults alone.
SCRUBBED = {
    "DJANGO_SETTINGS_MODULE",
    "DATABASE_URL",
    "REDIS_URL",
    "SECRET_KEY",
    "DEBUG",
    "DATA_DIR",
    "SANDBOX",
    "RUN_ADDRESS",
    "S3_BUCKET",
    "ARENA_SIGNING_KEY_FILE",
}

BOT_SOURCE = GOOD_BOT.decode()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def processes_with(markers: tuple[str, ...]) -> list[int]:
    """Pids of live processes whose environment holds one of ``markers`` (the unique
    DATA_DIR, or the broker folder inside it for the arena worker, which gets nothing else
    of the launcher's environment): the launcher's children and their own children
    (Celery's pools) alike."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        variables = environ.split(b"\0")
        if state != "Z" and any(marker.encode() in variables for marker in markers):
            found.append(int(entry.name))
    return found


class Launcher:
    """``deploy/run.py`` as ``make run`` starts it, with its output collected."""

    def __init__(self, data_dir: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
        env.update(
            DATA_DIR=str(data_dir),
            RUN_ADDRESS=f"127.0.0.1:{self.port}",
            SANDBOX="process",  # seconds per validation; Docker is covered elsewhere
            # Both periodic ladder tasks due within the test (defaults: 15 s and 60 s).
            LADDER_TOP_UP_SECONDS="2",
            MATCH_REAPER_SECONDS="2",
            PYTHONUNBUFFERED="1",
        )
        self.data_dir = data_dir
        self.marker = (f"DATA_DIR={data_dir}", f"CUCUMBERS_BROKER_DIR={data_dir}/broker")
        # Exactly the Makefile's recipe: `$(BIN)/python deploy/run.py` from the repository.
        self.proc = subprocess.Popen(
            [sys.executable, "deploy/run.py"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.append(raw.decode(errors="replace"))

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def assert_alive(self) -> None:
        if self.proc.poll() is not None:
            pytest.fail(f"run.py exited with {self.proc.returncode}:\n{self.output[-4000:]}")


@pytest.fixture
def launcher(tmp_path: Path) -> Iterator[Launcher]:
    running = Launcher(tmp_path / "data")
    try:
        yield running
    finally:
        # Whatever the test's outcome, leave no process behind.
        if running.proc.poll() is None:
            running.proc.send_signal(signal.SIGINT)
            try:
                running.proc.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                running.proc.kill()
        for pid in processes_with(running.marker):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def wait_for(what: str, check: Any, timeout: float, launcher: Launcher) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        launcher.assert_alive()
        result = check()
        if result:
            return result
        time.sleep(0.5)
    pytest.fail(f"timed out waiting for {what}; run.py said:\n{launcher.output[-4000:]}")


def http_get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return 0, ""


def log_in_and_make_token(base: str, username: str, password: str) -> str:
    """Log in through the form (as a person would), then create an API token with the
    session: both the form's and the API's CSRF checks are exercised."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(f"{base}/accounts/login/", timeout=10).read()
    csrf = next(c.value for c in jar if c.name == "csrftoken")
    form = urllib.parse.urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": csrf}
    ).encode()
    login = urllib.request.Request(
        f"{base}/accounts/login/", data=form, headers={"Referer": f"{base}/accounts/login/"}
    )
    with opener.open(login, timeout=10) as response:
        # A failed log-in re-renders the form; a successful one redirects away from it.
        assert "/accounts/login/" not in response.geturl(), "the demo log-in was refused"
    csrf = next(c.value for c in jar if c.name == "csrftoken")  # rotated at log-in
    request = urllib.request.Request(
        f"{base}/api/tokens/",
        data=json.dumps({"name": "smoke"}).encode(),
        headers={"Content-Type": "application/json", "X-CSRFToken": csrf, "Referer": base},
    )
    with opener.open(request, timeout=10) as response:
        assert response.status == 201
        token: str = json.loads(response.read())["token"]
    return token


def upload(base: str, token: str, bot: str, source: str) -> dict[str, Any]:
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in (("bot", bot), ("game", "five-cucumbers")):
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
        )
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{bot}.py"\r\n'
        f"Content-Type: text/x-python\r\n\r\n{source}\r\n--{boundary}--\r\n"
    )
    request = urllib.request.Request(
        f"{base}/api/uploads/",
        data="".join(parts).encode(),
        headers={
            "Authorization": f"Token {token}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 201
            result: dict[str, Any] = json.loads(response.read())
            return result
    except urllib.error.HTTPError as error:
        pytest.fail(f"upload refused: {error.code} {error.read().decode(errors='replace')}")


def version_status(base: str, token: str, bot_id: int, number: int) -> str:
    request = urllib.request.Request(
        f"{base}/api/bots/{bot_id}/versions/", headers={"Authorization": f"Token {token}"}
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        body = json.loads(response.read())
    rows = body["results"] if isinstance(body, dict) else body
    return str(next(row["status"] for row in rows if row["number"] == number))


#: Every queue of both workers, and what a writer to the broker may leave on them.
QUEUES = ("urgent", "tournament", "ladder", "reports", "maintenance")
POISON = (b"x\x00\xff garbage", b'{"hello": "world"}', b"[1, 2]")


def put_poison(data_dir: Path) -> None:
    """Files in kombu's filesystem queue folder, named as kombu names its messages."""
    folder = data_dir / "broker" / "queue"
    folder.mkdir(parents=True, exist_ok=True)
    for queue in QUEUES:
        for number, body in enumerate(POISON):
            (folder / f"0000000{number}_{uuid.uuid4()}.{queue}.msg").write_bytes(body)


def wait_for_the_site(launcher: Launcher) -> str:
    _, page = wait_for(
        "the leaderboard",
        lambda: (lambda r: r if r[0] == 200 else None)(http_get(f"{launcher.base}/")),
        START_SECONDS,
        launcher,
    )
    return str(page)


def test_make_run_serves_validates_and_stops_cleanly(launcher: Launcher) -> None:
    page = wait_for_the_site(launcher)
    assert "Leaderboard" in page or "leaderboard" in page
    assert "demo / cucumbers-demo" in launcher.output
    assert "NOT isolated" in launcher.output  # the process runner's warning
    # Poison on every queue: dropped, logged and counted by each worker, none of which exits
    # (wait_for fails the moment the launcher does, which it would were a child to exit).
    put_poison(launcher.data_dir)
    for queue in QUEUES:
        wait_for(
            f"the poison on {queue} dropped",
            lambda queue=queue: (
                launcher.output.count(f"event=broker.poison queue={queue} ") >= len(POISON)
            ),
            30.0,
            launcher,
        )

    token = log_in_and_make_token(launcher.base, "demo", "cucumbers-demo")
    result = upload(launcher.base, token, "smoke", BOT_SOURCE)
    bot_id, number = result["bot"]["id"], result["version"]["number"]

    # Only the workers move a version out of queued/validating: "active" proves the arena
    # worker took the job from the filesystem broker and the platform's worker recorded its
    # report in SQLite while the web server reads it.
    final = wait_for(
        "the worker's verdict",
        lambda: (lambda s: s if s in {"active", "rejected"} else None)(
            version_status(launcher.base, token, bot_id, number)
        ),
        VALIDATE_SECONDS,
        launcher,
    )
    assert final == "active"
    # Beat sent both ladder entries through the broker and the worker ran them.
    for task in ("pipeline.top_up_ladder", "pipeline.reap_matches"):
        wait_for(
            f"the worker to run {task} from beat",
            lambda task=task: re.search(rf"Task {task}\[[-0-9a-f]+\] succeeded", launcher.output),
            20.0,
            launcher,
        )
    children = processes_with(launcher.marker)
    # The launcher, web, the platform's worker (+ pool), beat, the arena worker (+ pool).
    assert len(children) >= 7, children

    launcher.proc.send_signal(signal.SIGINT)
    assert launcher.proc.wait(timeout=STOP_SECONDS) == 0
    # Give the kernel a moment to reap, then nothing of ours may remain.
    deadline = time.monotonic() + 10.0
    while processes_with(launcher.marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(launcher.marker) == [], launcher.output[-3000:]
    # Warm shutdown, then cold after run.py's WARM_SECONDS (4): never its SIGKILL at 10 s,
    # which it announces ("did not stop in 10 s: killing it").
    assert "did not stop" not in launcher.output


def test_make_run_killed_with_sigkill_leaves_no_process_of_its_own(launcher: Launcher) -> None:
    wait_for_the_site(launcher)
    wait_for("the scheduler", lambda: "beat: scheduler lock taken" in launcher.output, 30, launcher)
    assert len(processes_with(launcher.marker)) >= 7
    launcher.proc.kill()  # as an OOM kill or a supervisor that signals one process does
    launcher.proc.wait()
    # Each child has the launcher's death as a SIGTERM (its warm shutdown, then gone).
    deadline = time.monotonic() + 30.0
    while processes_with(launcher.marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert processes_with(launcher.marker) == [], launcher.output[-3000:]
