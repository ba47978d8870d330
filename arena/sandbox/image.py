"""The sandbox image: built once from ``deploy/sandbox/`` and reused while its inputs are
unchanged.

Inputs are the Dockerfile, the SDK package copied into the image and the base image's name.
The tag carries the SDK version and a digest of this tree's part of them (the Dockerfile
and the package, :func:`tree_digest`), so two checkouts sharing one Docker engine (a
branch beside main, a CI clone) each use their own image and never replace each other's.
The digest of all the inputs, base included, is stored as an image label, so
``ensure_image`` rebuilds exactly when one of them changed. The base is a slim Python image
where a registry is reachable, else one made from Debian's packages by
``deploy/sandbox/build-offline-base.sh`` (no registry needed). Images of other trees stay
until ``python -m arena image --prune`` (each costs about 1 MB: the layers below the SDK's
are shared).
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from contextlib import suppress
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import docker
from docker.errors import APIError, DockerException, ImageNotFound

import cucumbers

REPO_ROOT = Path(__file__).resolve().parents[2]
#: The recipe (Dockerfile, offline base script): beside the code in a checkout; an
#: installed arena (the platform's image) is told where by ``CUCUMBERS_SANDBOX_RECIPE``.
RECIPE = Path(os.environ.get("CUCUMBERS_SANDBOX_RECIPE") or REPO_ROOT / "deploy" / "sandbox")
SDK_PACKAGE = Path(cucumbers.__file__).resolve().parent

IMAGE_NAME = "cucumbers-sandbox"
REGISTRY_BASE = "python:3.12-slim"
OFFLINE_BASE = "cucumbers-sandbox-base:bookworm"
INPUTS_LABEL = "org.cucumbers.sandbox.inputs"
#: A pull that gets no answer in this time counts as "no registry".
PULL_TIMEOUT_SECONDS = 60


class ImageError(Exception):
    """The sandbox image could not be found or built; the message says why."""


class BaseChoice(StrEnum):
    """Where the image's base comes from."""

    AUTO = "auto"  # a base already here, else try the registry, else build offline
    REGISTRY = "registry"  # python:3.12-slim from a registry
    OFFLINE = "offline"  # Debian's packages through debootstrap


@functools.cache
def image_tag() -> str:
    """The image's tag: the SDK version it carries and the digest of this tree's inputs."""
    return f"{IMAGE_NAME}:{cucumbers.__version__}-{tree_digest()[:12]}"


@dataclass(frozen=True, slots=True)
class ImageReport:
    """What :func:`ensure_image` did."""

    tag: str
    base: str
    built: bool
    seconds: float


def _package_files() -> list[Path]:
    return sorted(
        path
        for path in SDK_PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )


@functools.cache
def tree_digest() -> str:
    """SHA-256 over what the image takes from this tree: the Dockerfile and the SDK package."""
    digest = hashlib.sha256()
    digest.update((RECIPE / "Dockerfile").read_bytes())
    for path in _package_files():
        digest.update(f"\n{path.relative_to(SDK_PACKAGE)}\n".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def inputs_digest(base: str) -> str:
    """SHA-256 over everything the image is built from: the base and this tree's inputs."""
    return hashlib.sha256(f"base={base}\n{tree_digest()}".encode()).hexdigest()


def _image_id(client: docker.DockerClient, name: str) -> str | None:
    """The id of the image ``name``, or None when there is none."""
    try:
        return str(client.api.inspect_image(name)["Id"])
    except ImageNotFound:
        return None


def _pull(name: str) -> bool:
    try:
        result = subprocess.run(
            ["docker", "pull", "--quiet", name],
            capture_output=True,
            timeout=PULL_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0


def _build_offline_base() -> None:
    script = RECIPE / "build-offline-base.sh"
    result = subprocess.run(
        ["bash", str(script), OFFLINE_BASE], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise ImageError(f"building the offline base failed: {result.stderr.strip()[-1000:]}")


def choose_base(client: docker.DockerClient, choice: BaseChoice) -> str:
    """The base image to build on, obtaining it if needed."""
    if choice is BaseChoice.REGISTRY:
        if _image_id(client, REGISTRY_BASE) is None and not _pull(REGISTRY_BASE):
            raise ImageError(f"cannot pull {REGISTRY_BASE}: no registry reachable?")
        return REGISTRY_BASE
    if choice is BaseChoice.OFFLINE:
        if _image_id(client, OFFLINE_BASE) is None:
            _build_offline_base()
        return OFFLINE_BASE
    for name in (REGISTRY_BASE, OFFLINE_BASE):
        if _image_id(client, name) is not None:
            return name
    if _pull(REGISTRY_BASE):
        return REGISTRY_BASE
    _build_offline_base()
    return OFFLINE_BASE


BASE_LABEL = "org.cucumbers.sandbox.base"
_BASE_OF_CHOICE = {BaseChoice.REGISTRY: REGISTRY_BASE, BaseChoice.OFFLINE: OFFLINE_BASE}


def up_to_date_base(client: docker.DockerClient) -> str | None:
    """The base of the existing image when that image is up to date with its inputs."""
    try:
        labels: dict[str, str] = client.images.get(image_tag()).labels or {}
    except ImageNotFound:
        return None
    base = labels.get(BASE_LABEL)
    if base and labels.get(INPUTS_LABEL) == inputs_digest(base):
        return base
    return None


def ensure_image(
    choice: BaseChoice = BaseChoice.AUTO,
    *,
    force: bool = False,
    client: docker.DockerClient | None = None,
) -> ImageReport:
    """Build the sandbox image unless an up-to-date one exists (on the requested base).
    Raises :class:`ImageError`."""
    started = time.monotonic()
    try:
        client = client or docker.from_env()
        existing = None if force else up_to_date_base(client)
        if existing and _BASE_OF_CHOICE.get(choice, existing) == existing:
            return ImageReport(image_tag(), existing, False, time.monotonic() - started)
        base = choose_base(client, choice)
        previous = _image_id(client, image_tag())
        with tempfile.TemporaryDirectory(prefix="cucumbers-image-") as context:
            shutil.copy(RECIPE / "Dockerfile", Path(context) / "Dockerfile")
            shutil.copytree(
                SDK_PACKAGE,
                Path(context) / "cucumbers",
                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
            )
            client.images.build(
                path=context,
                tag=image_tag(),
                buildargs={"BASE": base},
                labels={INPUTS_LABEL: inputs_digest(base), BASE_LABEL: base},
                rm=True,
                forcerm=True,
                pull=False,
            )
        if previous is not None and previous != _image_id(client, image_tag()):
            _remove_untagged(client, previous)
    except (DockerException, APIError) as error:
        raise ImageError(f"building {image_tag()} failed: {error}") from error
    return ImageReport(image_tag(), base, True, time.monotonic() - started)


def _remove_untagged(client: docker.DockerClient, image_id: str) -> None:
    """Remove the image a rebuild replaced, so rebuilds do not pile up ~200 MB images; kept
    if it still has a tag or a container (a match playing on it). Best effort."""
    with suppress(DockerException):
        if not client.api.inspect_image(image_id).get("RepoTags"):
            client.api.remove_image(image_id, noprune=False)


def prune_other_images(
    client: docker.DockerClient | None = None,
    *,
    repository: str = IMAGE_NAME,
    keep: str | None = None,
) -> list[str]:
    """Remove the other tags of ``repository`` (the sandbox images of other trees) whose
    image no container uses, keeping ``keep`` (this tree's, :func:`image_tag`); the tags
    removed. On an engine shared with other checkouts theirs go too: each builds its own
    again, in seconds, when next needed."""
    client = client or docker.from_env()
    keep = keep or image_tag()
    removed = []
    for image in client.images.list(name=repository):
        for tag in image.tags:
            if tag == keep or not tag.startswith(f"{repository}:"):
                continue
            with suppress(APIError):  # a container uses it: it stays
                client.images.remove(tag)
                removed.append(tag)
    return removed
