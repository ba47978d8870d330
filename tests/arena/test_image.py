"""The sandbox image's housekeeping: a rebuild removes the image it replaced, unless that
image is still tagged or used."""

from __future__ import annotations

import secrets
from contextlib import suppress

import pytest
from docker.errors import ImageNotFound

from arena.sandbox.container import engine_client
from arena.sandbox.image import _remove_untagged
from tests.arena.sandboxkit import build_small_image

pytestmark = pytest.mark.usefixtures("sandbox")


def small_image(base: str, tag: str) -> str:
    """A one-label image on ``base``, tagged ``tag``; its id."""
    return build_small_image(f"FROM {base}\nLABEL org.cucumbers.test={secrets.token_hex(4)}\n", tag)


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
