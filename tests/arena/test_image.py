"""The sandbox image's tag and housekeeping: the tag is the tree's own; a rebuild removes the
image it replaced, unless that image is still tagged or used; pruning removes other trees'
images that no container uses."""

from __future__ import annotations

import secrets
import shutil
from contextlib import suppress
from pathlib import Path

import pytest
from docker.errors import ImageNotFound

from arena.sandbox import image
from arena.sandbox.container import engine_client
from arena.sandbox.image import _remove_untagged, prune_other_images
from tests.arena.sandboxkit import build_small_image


def small_image(base: str, tag: str) -> str:
    """A one-label image on ``base``, tagged ``tag``; its id."""
    return build_small_image(f"FROM {base}\nLABEL org.cucumbers.test={secrets.token_hex(4)}\n", tag)


def test_the_tag_is_this_trees_own_so_two_checkouts_never_share_an_image(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert (
        image.image_tag()
        == f"cucumbers-sandbox:{image.cucumbers.__version__}-" + (image.tree_digest()[:12])
    )
    other = tmp_path / "cucumbers"  # another checkout's SDK: a copy, then one change
    shutil.copytree(image.SDK_PACKAGE, other, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(image, "SDK_PACKAGE", other)
    digest = image.tree_digest.__wrapped__  # the cached one is this tree's
    assert digest() == image.tree_digest()
    (other / "host.py").write_text((other / "host.py").read_text() + "\n# changed\n")
    assert digest() != image.tree_digest()


def test_the_replaced_image_goes_once_untagged_and_a_tagged_one_stays(sandbox: str) -> None:
    api = engine_client().api
    name = f"cucumbers-test-image:{secrets.token_hex(4)}"
    replaced = small_image(sandbox, name)
    newer = replaced
    try:
        _remove_untagged(engine_client(), replaced)  # still tagged: kept
        assert api.inspect_image(replaced)["RepoTags"] == [name]
        newer = small_image(sandbox, name)  # a rebuild: the tag moves to the new image
        assert api.inspect_image(replaced)["RepoTags"] == []
        _remove_untagged(engine_client(), replaced)
        with pytest.raises(ImageNotFound):
            api.inspect_image(replaced)
        _remove_untagged(engine_client(), newer)  # tagged: kept
        assert api.inspect_image(newer)["RepoTags"] == [name]
    finally:
        for image in (name, replaced, newer):
            with suppress(ImageNotFound):
                api.remove_image(image, force=True)


def test_pruning_removes_other_trees_images_but_not_this_ones_or_one_in_use(sandbox: str) -> None:
    client = engine_client()
    repository = f"cucumbers-test-prune-{secrets.token_hex(3)}"
    mine, stale, in_use = (f"{repository}:{what}" for what in ("mine", "stale", "in-use"))
    for tag in (mine, stale, in_use):
        small_image(sandbox, tag)
    container = client.containers.create(in_use, command=["true"])
    try:
        removed = prune_other_images(client, repository=repository, keep=mine)
        assert removed == [stale]
        tags = {t for i in client.images.list(name=repository) for t in i.tags}
        assert tags == {mine, in_use}
    finally:
        container.remove(force=True)
        for tag in (mine, stale, in_use):
            with suppress(ImageNotFound):
                client.api.remove_image(tag, force=True)
