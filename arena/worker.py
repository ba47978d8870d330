"""``python -m arena worker``: an arena worker. It takes match jobs from the broker, plays
each in the Docker sandbox (:func:`arena.playing.play_job`) and sends back a ``started``
message when it begins and the report when it ends (:mod:`arena.broker`). It also computes
the move reviews owners ask for (:func:`review`: house code, no sandbox, a time limit).

It needs the broker and a Docker engine, and nothing else: no database, no secret key, no
storage credentials, no Django. Its settings are ``REDIS_URL`` (or ``CUCUMBERS_BROKER_DIR``
for the local filesystem broker), the broker's ``CELERY_VISIBILITY_TIMEOUT`` and
``CELERY_RESTORE_INTERVAL``, the sandbox's ``CUCUMBERS_SANDBOX_*`` limits, ``SANDBOX``
(``docker``, or ``process`` explicitly, for local use only), its name, and its keys
(:class:`WorkerKeys`): the platform's public key, to check every job before it plays it,
and this arena host's private key and name, to sign what it sends back.

Fail closed: without its keys a worker does not start (exit status 2, naming the variable);
a job that is not signed by the platform's key is refused, logged, acknowledged and
dropped: never played, and no report (nothing of its attempt can be trusted). With
Docker, a worker whose engine does not answer at start exits non-zero with a message naming
the engine; one whose engine goes away pauses its queues until it is back
(:mod:`arena.engine_watch`); a job taken before the watch noticed finds the engine gone
before it starts and goes back to its queue, no attempt spent; a match in flight then ends
as an infrastructure error, retried by the platform, never charged to a bot and never
played elsewhere.

Stopped with SIGTERM, a worker ends the matches in play first (Celery's warm shutdown);
with SIGQUIT, at once: each match in play is abandoned, its sandbox removed, and its job
goes back to its queue (:mod:`arena.stopping`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from celery import Celery
from celery.exceptions import Reject, SoftTimeLimitExceeded
from celery.signals import after_setup_logger, after_setup_task_logger
from celery.worker.request import Request
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from kombu import Exchange, Queue  # type: ignore[attr-defined]  # kombu declares no exports

from cucumbers.runners.base import RunnerName

from .broker import (
    ARENA_QUEUES,
    DELIVERY,
    MATCH_QUEUES,
    PLAY_TASK,
    REPORT_TASK,
    REPORTS_QUEUE,
    REVIEW_RESULT_TASK,
    REVIEW_TASK,
    STARTED_TASK,
    BrokerSettings,
    BrokerSettingsError,
    Role,
)
from .contract import (
    ContractError,
    MatchReport,
    MatchStarted,
    ReportStatus,
    dump,
    load_job,
)
from .engine_watch import (
    PING_SECONDS,
    WATCH_SECONDS,
    WATCH_VARIABLE,
    EngineMissing,
    EngineUnavailable,
    EngineWatch,
    engine_missing,
    pause_now,
    require_engine,
)
from .logs import log_format, use_json_on
from .playing import play_job
from .review_contract import dump as dump_review
from .review_contract import load_review_job
from .reviewing import failed, review_job
from .signing import (
    PLATFORM_SIGNER,
    KeyFileError,
    Purpose,
    SignatureError,
    Signer,
    claimed,
    load_private_key,
    load_public_key_file,
    open_envelope,
    parse_public_key,
)
from .stopping import EXIT_ABANDONED, Abandoned, leave, playing

logger = logging.getLogger(__name__)
_Key = TypeVar("_Key", Ed25519PrivateKey, Ed25519PublicKey)

#: Runners a worker may play in: the sandbox, or (explicitly) the SDK's process runner.
SANDBOXES = (RunnerName.DOCKER, RunnerName.PROCESS)
#: How long a message back to the platform is retried while the broker does not answer.
SEND_RETRIES = 60
SEND_RETRY_POLICY = {
    "max_retries": SEND_RETRIES,
    "interval_start": 1,
    "interval_step": 1,
    "interval_max": 2,
}


#: What an arena worker reads from its environment, besides ``CUCUMBERS_SANDBOX_*``: the
#: broker, the sandbox choice and the Docker engine's address.
WORKER_VARIABLES = (
    "REDIS_URL",
    "CUCUMBERS_BROKER_DIR",
    "CELERY_VISIBILITY_TIMEOUT",
    "CELERY_RESTORE_INTERVAL",
    "CELERY_MAX_MESSAGE_BYTES",
    "SANDBOX",
    "DOCKER_HOST",
    "DOCKER_TLS_VERIFY",
    "DOCKER_CERT_PATH",
    "LOG_FORMAT",
    WATCH_VARIABLE,
    "ARENA_PLATFORM_KEY",
    "ARENA_PLATFORM_KEY_FILE",
    "ARENA_HOST_KEY_FILE",
    "ARENA_HOST_NAME",
)
#: What any process needs to run.
PROCESS_VARIABLES = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH")


def worker_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The part of ``environ`` an arena worker may see: never the platform's database,
    secret key or storage credentials."""
    return {
        name: value
        for name, value in environ.items()
        if name in WORKER_VARIABLES
        or name in PROCESS_VARIABLES
        or name.startswith("CUCUMBERS_SANDBOX_")
    }


class WorkerKeysError(ValueError):
    """A key setting of the worker that is missing or cannot be used; names the variable."""


@dataclass(frozen=True, slots=True)
class WorkerKeys:
    """The platform's public key (jobs must be signed with it) and this arena host's
    signer (its name as the platform knows it, and its private key)."""

    platform: Ed25519PublicKey
    host: Signer

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> WorkerKeys:
        """From ``ARENA_PLATFORM_KEY`` (``ed25519:...``) or ``ARENA_PLATFORM_KEY_FILE``,
        ``ARENA_HOST_KEY_FILE`` and ``ARENA_HOST_NAME``; raises :class:`WorkerKeysError`."""
        env = os.environ if environ is None else environ
        inline = env.get("ARENA_PLATFORM_KEY", "").strip()
        path = env.get("ARENA_PLATFORM_KEY_FILE", "").strip()
        if inline and path:
            raise WorkerKeysError(
                "ARENA_PLATFORM_KEY and ARENA_PLATFORM_KEY_FILE are both set: set one"
            )
        if inline:
            platform = _named(parse_public_key, inline, "ARENA_PLATFORM_KEY")
        elif path:
            platform = _named(load_public_key_file, path, "ARENA_PLATFORM_KEY_FILE")
        else:
            raise WorkerKeysError(
                "ARENA_PLATFORM_KEY (or ARENA_PLATFORM_KEY_FILE) is not set: the platform's"
                " public key, ed25519:..., without which no job can be trusted"
            )
        name = env.get("ARENA_HOST_NAME", "").strip()
        if not name or len(name) > 100 or any(c.isspace() for c in name):
            raise WorkerKeysError(
                "ARENA_HOST_NAME is not set: this arena host's name as the platform knows it"
                " (manage.py arena_host add NAME), 1 to 100 characters, no space"
            )
        key_file = env.get("ARENA_HOST_KEY_FILE", "").strip()
        if not key_file:
            raise WorkerKeysError(
                "ARENA_HOST_KEY_FILE is not set: this arena host's private key"
                " (python -m arena keygen --out PATH)"
            )
        host = Signer(name, _named(load_private_key, key_file, "ARENA_HOST_KEY_FILE"))
        return cls(platform, host)


def _named(load: Callable[[str], _Key], value: str, variable: str) -> _Key:
    try:
        return load(value)
    except KeyFileError as error:
        raise WorkerKeysError(f"{variable}: {error}") from None


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    """Who this worker is and how it plays (set before the worker starts; its pool's
    processes inherit it)."""

    name: str
    sandbox: str = RunnerName.DOCKER
    staging_dir: str | None = None
    runtime: str = "runc"
    keys: WorkerKeys | None = None
    #: How often the engine is asked while it answers (:mod:`arena.engine_watch`).
    engine_watch_seconds: float = WATCH_SECONDS


# No fixups: Celery would set Django up if DJANGO_SETTINGS_MODULE happened to be set. Not
# the current app: a process that imports this module (a test, the launcher) keeps its own.
app = Celery("arena", fixups=[], set_as_current=False)
app.conf.update(DELIVERY)
# Every message goes through the default exchange straight to its queue's list, so the
# worker needs no binding table: it declares none (the platform's own declarations stand),
# and its Redis user may not write the platform's (arena/redis_acl.py).
app.conf.task_queues = [
    # Named as Celery names a queue it creates (its banner then shows what the platform's).
    Queue(name, Exchange(name), name, no_declare=True)  # type: ignore[no-untyped-call]
    for name in (*ARENA_QUEUES, REPORTS_QUEUE)
]
# Remote control without expiring queues: kombu then keeps no deadlines for their binding
# tables and runs no sweep, which would have the arena's Redis user delete the platform's
# overdue tables (an inspect client killed before it reads leaves its reply list behind).
app.conf.control_queue_expires = None
# For `celery -A arena.worker inspect ...`; a worker's own start names any problem.
with contextlib.suppress(BrokerSettingsError):
    app.conf.update(BrokerSettings.from_env().celery(Role.ARENA))
_config = WorkerConfig(name=socket.gethostname())


def _json_lines(logger: logging.Logger, **_: object) -> None:
    """LOG_FORMAT=json: Celery's handlers (set up when the worker starts, replacing the
    root logger's) write JSON lines too."""
    if log_format() == "json":
        use_json_on(logger)


after_setup_logger.connect(_json_lines, weak=False)
after_setup_task_logger.connect(_json_lines, weak=False)


def configure(config: WorkerConfig, broker: BrokerSettings) -> None:
    """Set the worker's identity and broker (before it starts)."""
    global _config
    if config.sandbox not in SANDBOXES:
        raise ValueError(f"SANDBOX={config.sandbox!r}: one of {', '.join(SANDBOXES)}")
    if config.keys is None:
        raise ValueError("a worker needs its keys (WorkerKeys.from_env)")
    _config = config
    MatchQueuesWatch.every = config.engine_watch_seconds
    app.conf.update(broker.celery(Role.ARENA))


def current_config() -> WorkerConfig:
    return _config


class PlayRequest(Request):  # type: ignore[misc]  # Celery is untyped
    """A play job as the worker's main process sees it: when the job found the engine
    missing, the match queues are paused before the message goes back to its queue."""

    def on_failure(
        self, exc_info: Any, send_failed_event: bool = True, return_ok: bool = False
    ) -> None:
        if isinstance(exc_info.exception, EngineMissing):
            pause_now(str(exc_info.exception.reason))
        super().on_failure(exc_info, send_failed_event=send_failed_event, return_ok=return_ok)


@app.task(name=PLAY_TASK, Request=PlayRequest)  # type: ignore[untyped-decorator]  # untyped
def play(text: str) -> str:
    """Play one job, if the platform signed it, and send back what happened."""
    config = current_config()
    if config.keys is None:
        logger.error("refused a job: this worker has no keys (start it with python -m arena)")
        return "refused"
    try:
        _, body = open_envelope(text, Purpose.JOB, {PLATFORM_SIGNER: config.keys.platform})
    except SignatureError as error:
        # Not the platform's: whoever wrote it to the broker may have chosen its sources,
        # match and attempt. Dropped (acknowledged), never played, nothing sent back.
        logger.error("refused a job: %s (it claims %s)", error, claimed(text))
        return "refused"
    try:
        job = load_job(body)
    except ContractError as error:
        # A site of another release, most likely: say so to the platform, which retries
        # the match (and fails it with this reason at its attempt cap).
        logger.error("cannot read a job: %s", error)
        refused = _refusal(body, f"worker {config.name} cannot read this job: {error}")
        if refused is not None:
            send_back(REPORT_TASK, Purpose.REPORT, dump(refused))
        return "refused"
    if config.sandbox == RunnerName.DOCKER and (problem := engine_missing()) is not None:
        # Nothing started: no word to the platform, so no attempt is spent and nothing is
        # anyone's fault; the job waits on its queue for a worker with an engine.
        logger.error(
            "match %s attempt %s: the Docker engine cannot be reached (%s): put back on its"
            " queue, not started",
            job.match,
            job.attempt,
            problem,
        )
        raise EngineMissing(f"the Docker engine cannot be reached: {problem}")
    logger.info("match %s attempt %s: playing (%s)", job.match, job.attempt, job.kind)
    clear = _clear_sandbox if config.sandbox == RunnerName.DOCKER else None
    try:
        with playing(job.match, str(job.attempt), clear):
            send_back(
                STARTED_TASK,
                Purpose.STARTED,
                dump(
                    MatchStarted(
                        match=job.match,
                        attempt=job.attempt,
                        worker=config.name,
                        sandbox=config.sandbox,
                    )
                ),
            )
            report = play_job(job, config.sandbox, config.name, config.staging_dir)
            send_back(REPORT_TASK, Purpose.REPORT, dump(report))
    except Abandoned:
        # Unacknowledged, the job goes back to its queue as the worker closes (acks late).
        leave(EXIT_ABANDONED)
    logger.info("match %s attempt %s: %s", job.match, job.attempt, report.status.value)
    return report.status.value


def _clear_sandbox() -> list[str]:
    """Remove this pool process's sandbox containers by force (a match abandoned)."""
    from .sandbox.labels import RunnerIdentity
    from .sandbox.reaper import reap_runner

    return reap_runner(RunnerIdentity.current(), timeout=PING_SECONDS)


@app.task(name=REVIEW_TASK)  # type: ignore[untyped-decorator]  # Celery is untyped
def review(text: str) -> str:
    """Compute a move review, if the platform signed its job, and send back the result
    (a failed one past the job's soft time limit, which the platform sends with it)."""
    config = current_config()
    if config.keys is None:
        logger.error("refused a review job: this worker has no keys")
        return "refused"
    try:
        _, body = open_envelope(text, Purpose.REVIEW_JOB, {PLATFORM_SIGNER: config.keys.platform})
        job = load_review_job(body)
    except (SignatureError, ContractError) as error:
        # Not the platform's, or of another release: nothing to answer whom (logged).
        logger.error("refused a review job: %s (it claims %s)", error, claimed(text))
        return "refused"
    logger.info("review %s of match %s: %d games", job.review, job.match, len(job.games))
    try:
        result = review_job(job, config.name)
    except SoftTimeLimitExceeded:
        result = failed(job, config.name, "the review took longer than its time limit")
    send_back(REVIEW_RESULT_TASK, Purpose.REVIEW_RESULT, dump_review(result))
    logger.info("review %s: %s", job.review, result.status.value)
    return result.status.value


def send_back(task: str, purpose: Purpose, body: str) -> None:
    """Send a message to the platform, signed by this arena host, retried while the broker
    does not answer; if it never does, the job goes back to the queue (played again under
    the same attempt)."""
    keys = current_config().keys
    assert keys is not None  # play() refuses jobs before this without keys
    text = keys.host.seal(purpose, body)
    try:
        app.send_task(
            task, args=[text], queue=REPORTS_QUEUE, retry=True, retry_policy=SEND_RETRY_POLICY
        )
    except Exception as error:
        raise Reject(f"the platform could not be told: {error}", requeue=True) from error


def _refusal(text: str, reason: str) -> MatchReport | None:
    """An infrastructure-error report for a job that could not be read, if its match and
    attempt can be."""
    try:
        raw = json.loads(text)
        return MatchReport(
            match=int(raw["match"]),
            attempt=uuid.UUID(str(raw["attempt"])),
            worker=current_config().name,
            sandbox=current_config().sandbox,
            status=ReportStatus.INFRASTRUCTURE_ERROR,
            reason=reason[:2000],
        )
    except (ValueError, KeyError, TypeError):
        return None


def prepare_sandbox(config: WorkerConfig) -> None:
    """Before the first job is taken: no engine, no worker (it could only fail, or, were it
    allowed to fall back, run bots unsandboxed). Raises ``SystemExit`` with the reason."""
    if config.sandbox != RunnerName.DOCKER:
        logger.warning("SANDBOX=process: bots run unsandboxed on this host (local use only)")
        return
    from .sandbox.image import ImageError
    from .sandbox.prepare import SandboxUnavailable, prepare_docker

    require_engine()
    try:
        prepare_docker(PING_SECONDS, config.runtime)
    except SandboxUnavailable as error:
        logger.critical("%s", error)
        raise EngineUnavailable(str(error)) from error
    except ImageError as error:
        raise SystemExit(f"arena: error: the sandbox image cannot be had: {error}") from error
    logger.info("bot containers run with the %s runtime", config.runtime)
    reap_leftovers(config)


def reap_leftovers(config: WorkerConfig) -> list[str]:
    """What runners of this host that died left (a worker killed mid-match): their sandbox
    containers and staged bot files, removed before the first job (:mod:`.sandbox.reaper`).
    The containers' names; a reaper that cannot finish is logged, never fatal."""
    from .sandbox.errors import SandboxError
    from .sandbox.reaper import reap_containers

    try:
        removed = reap_containers(staging_dir=config.staging_dir)
    except SandboxError as error:
        logger.error("reaping what dead runners left failed: %s", error)
        return []
    logger.info(
        "reaped %d sandbox container(s) of dead runners%s",
        len(removed),
        f": {', '.join(removed)}" if removed else "",
    )
    return removed


class MatchQueuesWatch(EngineWatch):
    """Pauses the match queues while the engine is down (Docker sandbox only); reviews run
    no bot and go on."""

    queues = MATCH_QUEUES
    order = ARENA_QUEUES

    def include_if(self, parent: Any) -> bool:
        return current_config().sandbox == RunnerName.DOCKER


app.steps["consumer"].add(MatchQueuesWatch)


def run_worker(
    config: WorkerConfig,
    broker: BrokerSettings,
    *,
    concurrency: int,
    queues: tuple[str, ...] = ARENA_QUEUES,
    loglevel: str = "INFO",
) -> None:
    """Run the worker in the foreground until it is stopped (SIGTERM: warm shutdown)."""
    configure(config, broker)
    prepare_sandbox(config)
    app.worker_main(
        [
            "worker",
            f"--hostname=arena@{config.name}",
            f"--queues={','.join(queues)}",
            f"--concurrency={concurrency}",
            f"--loglevel={loglevel}",
            # No events: nobody listens to an arena worker's, and its Redis user may
            # publish on its remote-control channel only (arena/redis_acl.py).
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
    )
