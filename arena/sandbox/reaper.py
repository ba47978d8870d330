"""Removing the sandbox containers that runners left behind (``python -m arena reap``).

A runner removes its containers when it closes, and a container whose runner died removes
itself when its bot reads the end of its input. What remains is a container whose runner
was killed while its bot was busy (or stuck): :func:`reap_containers` removes the sandbox
containers whose runner, per their labels, no longer runs on this host, and the staged
copies of bot files such runners left. Every arena worker runs it when it starts, before its
first job (``arena.worker.reap_leftovers``; ``python -m arena reap`` by hand); ``everything=True``
removes every sandbox container, live matches included. :func:`reap_runner` removes those
of one runner that still runs, the match it abandons (:mod:`arena.stopping`).
"""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ThreadPoolExecutor

import docker
from docker.errors import DockerException

from cucumbers.runners.hostproc import remove_tree
from cucumbers.runners.reaper import read_proc

from . import labels
from .container import engine_client, remove_container, staging_owner
from .errors import SandboxError
from .settings import env_str


def reap_containers(
    everything: bool = False,
    client: docker.DockerClient | None = None,
    staging_dir: str | None = None,
) -> list[str]:
    """Remove the sandbox containers of runners that are gone (all of them with
    ``everything``); their names. Containers of runners on other hosts are left alone
    unless ``everything``. Then remove the staged bot files of runners that are gone from
    ``staging_dir`` (default: ``CUCUMBERS_SANDBOX_STAGING_DIR`` or the temporary
    directory). Raises :class:`SandboxError` when the engine cannot be reached."""
    removed = []
    try:
        client = client or engine_client()
        found = client.api.containers(all=True, filters={"label": f"{labels.SANDBOX}=1"})
        for container in found:
            if everything or labels.runner_is_alive(container.get("Labels") or {}) is False:
                name = (container.get("Names") or [container["Id"]])[0].lstrip("/")
                if remove_container(client, container["Id"]):
                    removed.append(name)
    except (DockerException, OSError) as error:
        raise SandboxError(f"cannot reap sandbox containers: {error}") from error
    reap_staged_files(staging_dir or env_str(os.environ, "STAGING_DIR", tempfile.gettempdir()))
    return sorted(removed)


def reap_runner(runner: labels.RunnerIdentity, timeout: float) -> list[str]:
    """Remove, by force and all at once, the sandbox containers ``runner`` started on this
    host (its labels: pid, start time, host), however far its matches got; their names.
    For a runner that abandons its match: the bots are killed now rather than asked to
    quit. Raises :class:`SandboxError` when the engine cannot be reached within
    ``timeout`` seconds a call."""
    wanted = {f"{key}={value}" for key, value in runner.labels().items()}
    try:
        client = engine_client(timeout)
        try:
            found = client.api.containers(all=True, filters={"label": sorted(wanted)})
            names = {c["Id"]: (c.get("Names") or [c["Id"]])[0].lstrip("/") for c in found}
            if not names:
                return []
            with ThreadPoolExecutor(max_workers=len(names)) as pool:
                gone = list(pool.map(lambda i: remove_container(client, i), names))
        finally:
            client.close()
    except (DockerException, OSError) as error:
        raise SandboxError(f"cannot remove the runner's containers: {error}") from error
    return sorted(name for name, removed in zip(names.values(), gone, strict=True) if removed)


def reap_staged_files(staging_dir: str) -> list[str]:
    """Remove the staged bot directories in ``staging_dir`` whose runner is gone; their
    paths. A directory of a live runner is in use (mounted in a container): kept."""
    removed: list[str] = []
    try:
        names = os.listdir(staging_dir)
    except OSError:
        return removed
    for name in names:
        owner = staging_owner(name)  # None for other hosts' and other files
        if owner is None:
            continue
        info = read_proc(owner[0])
        if info is None or not info.alive or info.start != owner[1]:
            path = os.path.join(staging_dir, name)
            remove_tree(path)
            removed.append(path)
    return sorted(removed)
