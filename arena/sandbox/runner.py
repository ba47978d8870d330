"""The ``docker`` runner: every bot of a match in a locked-down container of its own.

It is the process runner with another host: a :class:`DockerClient` is a
:class:`~cucumbers.runners.process.ProcessClient` whose host is a container attached
through the Engine API (:mod:`arena.sandbox.container`), so time limits (start-up, per move
and bank), protocol checks, output capture, faults and restarts are exactly the process
runner's. One container per bot lives for the whole series; the containers of a match start
in parallel (the runner creates and starts every container first, then waits for each bot).

Faults besides the process runner's, all ``error`` for the seats concerned and flagged
``infrastructure`` (the sandbox failed, not the bot), never an exception out of the runner:
no Docker engine, no sandbox image, a container the engine refused, a bot file that cannot
be copied.

Clean-up: at :meth:`DockerRunner.close` every host is asked to quit, each container is
removed (by force after ``stop_grace_seconds``) and a last sweep removes any container still
labelled with this match. A timeout or a protocol fault removes that bot's container at
once; the bot is restarted in a new container at its next game.

"Closed" means gone from the engine: a removal the engine has accepted (``AutoRemove``, or
our forced remove answered 409 "already in progress") may still be under way, and the
container is still listed until its ``destroy`` event. :meth:`DockerRunner.close` waits for
that event for every container of the match, up to :data:`REMOVAL_WAIT_SECONDS`; a container
that is still there then is logged and left to the reaper (:attr:`DockerRunner.left_behind`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from contextlib import suppress

import docker
from docker.errors import DockerException, ImageNotFound

from cucumbers.faults import BotFault, FaultKind
from cucumbers.runners import register_runner
from cucumbers.runners.base import BotClient, BotSpec, Limits, Runner, RunnerName
from cucumbers.runners.hostproc import HostChannel
from cucumbers.runners.process import ProcessClient, start_all

from . import labels
from .container import ContainerHost, SandboxRefused, Seat, engine_client, remove_container
from .settings import SandboxSettings

#: How an ``error`` fault says that the engine refused a bot's container.
COULD_NOT_START = "the sandbox could not start the bot"
#: How an ``error`` fault says that the engine does not answer (at the start or later).
ENGINE_UNREACHABLE = "the Docker engine cannot be reached"
#: Longest wait at close for the engine to finish removing a match's containers. Idle, a
#: removal ends within tens of milliseconds; on a loaded machine it has taken seconds. Below
#: the client's API timeout, so that the events stream ends by its ``until``, not a timeout.
REMOVAL_WAIT_SECONDS = 10.0

logger = logging.getLogger(__name__)


class DockerClient(ProcessClient):
    """A bot whose host runs in a container. ``unavailable`` is why the sandbox cannot run
    it at all (no engine, no image): then every move of the bot is that ``error`` fault."""

    def __init__(
        self,
        spec: BotSpec,
        limits: Limits,
        seat: Seat | None,
        unavailable: str | None,
        created: list[str] | None = None,
    ) -> None:
        self._seat = seat
        self._unavailable = unavailable
        self._created = created if created is not None else []  # names of its containers
        if seat is not None:
            # The engine logs a container's end a little after its streams close.
            self.exit_grace = seat.settings.stop_grace_seconds
        super().__init__(spec, limits)

    def _spawn(self) -> None:
        if self._unavailable is not None:
            self._load_fault = BotFault(FaultKind.ERROR, self._unavailable, infrastructure=True)
            return
        super()._spawn()

    def _start_fault(self, error: Exception) -> BotFault:
        if isinstance(error, SandboxRefused):
            return BotFault(FaultKind.ERROR, f"{COULD_NOT_START}: {error}", infrastructure=True)
        return super()._start_fault(error)  # OSError, DockerException

    def _new_host(self) -> HostChannel:
        assert self._seat is not None
        host = ContainerHost(self.spec.source, self._seat, self._tail, self._lock)
        self._created.append(host.name)
        return host

    def _closed_fault(self, host: HostChannel, when: str) -> BotFault:
        if isinstance(host, ContainerHost):
            # A refused start: the bot never ran (its channel closed before ready, for that).
            refusal = None if self._ready else host.refusal()
            if refusal is not None:
                return BotFault(
                    FaultKind.ERROR, f"{COULD_NOT_START}: {refusal}", infrastructure=True
                )
            # An engine gone mid-match cuts every channel: the sandbox's failure, not the bot's.
            lost = host.engine_lost()
            if lost is not None:
                return BotFault(
                    FaultKind.ERROR, f"{ENGINE_UNREACHABLE}: {lost}", infrastructure=True
                )
        return super()._closed_fault(host, when)


class DockerRunner(Runner):
    """``--sandbox docker``: one container per bot per match, started in parallel.

    ``settings`` default to :meth:`SandboxSettings.from_env`; ``match_id`` (default: a
    random one) names and labels the containers.
    """

    name = RunnerName.DOCKER

    def __init__(
        self,
        limits: Limits | None = None,
        settings: SandboxSettings | None = None,
        match_id: str | None = None,
    ) -> None:
        super().__init__(limits)
        self.settings = settings or SandboxSettings.from_env()
        self.match_id = match_id or labels.new_match_id()
        self._engine: docker.DockerClient | None = None
        self._seats = 0
        self._created: list[str] = []
        #: Containers of this match whose removal :meth:`close` could not see: still listed
        #: when it gave up waiting, or all it created when the engine did not answer (the
        #: reaper's to remove). Empty after a clean close.
        self.left_behind: list[str] = []

    def _connect(self) -> str | None:
        """Reach the engine and find the image; why the sandbox cannot run, or None."""
        try:
            if self._engine is None:
                self._engine = engine_client()
            self._engine.api.inspect_image(self.settings.image)
        except ImageNotFound:
            return (
                f"the sandbox image {self.settings.image} is missing"
                " (build it with: python -m arena image)"
            )
        except (DockerException, OSError) as error:
            return f"{ENGINE_UNREACHABLE}: {error}"
        return None

    def _start(self, specs: Sequence[BotSpec]) -> list[BotClient]:
        unavailable = self._connect()
        runner = labels.RunnerIdentity.current()

        def launch(spec: BotSpec) -> DockerClient:
            seat = None
            if self._engine is not None:
                seat = Seat(self._engine, self.settings, self.match_id, self._seats, runner)
            self._seats += 1
            return DockerClient(spec, self.limits, seat, unavailable, self._created)

        return start_all(launch, specs)

    def close(self) -> None:
        """Ask every host to quit, remove every container (by force once its grace is
        over) and any other still labelled with this match, then wait until the engine lists
        none of them (see the module's docstring). Never raises."""
        closing_since = time.time()
        clients, self._clients = self._clients, []
        for client in clients:
            if isinstance(client, DockerClient):
                with suppress(Exception):
                    client.request_quit()
        for client in clients:
            with suppress(Exception):
                client.close()
        engine, self._engine = self._engine, None
        if engine is not None:
            try:  # clean-up is best effort; the reaper is the safety net
                self._sweep(engine)
                self.left_behind = self._await_removal(engine, closing_since)
            except Exception as error:  # DockerException, OSError: the engine went away
                self.left_behind = sorted(self._created)
                why = f"the engine failed ({error})"
            else:
                why = f"still listed after {REMOVAL_WAIT_SECONDS:.0f} s"
            if self.left_behind:
                logger.warning(
                    "match %s: removal of %s not seen (%s); left to the reaper",
                    self.match_id,
                    ", ".join(self.left_behind),
                    why,
                )
            with suppress(Exception):
                engine.close()  # its pooled connections to the engine: ~2 descriptors a match

    def _match_filter(self) -> dict[str, list[str]]:
        runner = labels.RunnerIdentity.current()
        return {"label": [f"{labels.MATCH}={self.match_id}", f"{labels.RUNNER_PID}={runner.pid}"]}

    def _listed(self, engine: docker.DockerClient) -> dict[str, str]:
        """The containers of this match the engine lists now: id -> name."""
        found = engine.api.containers(all=True, filters=self._match_filter())
        return {c["Id"]: (c.get("Names") or [c["Id"]])[0].lstrip("/") for c in found}

    def _sweep(self, engine: docker.DockerClient) -> None:
        for container_id in self._listed(engine):
            with suppress(Exception):
                remove_container(engine, container_id)

    def _await_removal(self, engine: docker.DockerClient, since: float) -> list[str]:
        """Wait for the ``destroy`` event of every container of this match still listed;
        the names of those still listed after :data:`REMOVAL_WAIT_SECONDS`.

        The events are read from ``since`` (before the first removal was asked for), so a
        destroy that happened before the subscription is seen too. The engine is on this
        host (it mounts our staging directory), so both clocks are one.
        """
        pending = self._listed(engine)
        if not pending:
            return []
        deadline = time.time() + REMOVAL_WAIT_SECONDS
        events = engine.api.events(
            since=since - 1,
            until=deadline,
            filters={**self._match_filter(), "type": "container", "event": "destroy"},
            decode=True,
        )
        try:
            for event in events:
                pending.pop(event.get("id", ""), None)
                if not pending:
                    return []
        finally:
            events.close()
        return sorted(self._listed(engine).values())


def register() -> None:
    """Make ``--sandbox docker`` available (``cucumbers.runners.make_runner``)."""
    register_runner(DockerRunner)
