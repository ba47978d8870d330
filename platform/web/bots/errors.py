"""Why an upload was refused: a code of the site's one vocabulary (:class:`Problem`), one
clear message each."""

from __future__ import annotations

from web.refusals import Refusal

__all__ = ["UploadError"]


class UploadError(Refusal):
    """An upload refused before anything was stored. ``message`` is safe to show to the
    uploader: it never quotes the source beyond what the uploader sent."""
