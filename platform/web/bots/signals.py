"""What the bots app tells the layers above it, which it must not import: the pipeline
(``web.pipeline``) builds on bots, not the other way round."""

from __future__ import annotations

from django.dispatch import Signal

#: A version was put in line for validation (an upload, or staff requeueing it), sent
#: inside that transaction with ``version``: the pipeline queues its validation match in
#: the same transaction (web/pipeline/kinds/validation.py), so an upload is never stored
#: without its match. Sent with ``send``, never ``send_robust``: a receiver's failure rolls
#: the upload back.
version_submitted = Signal()

#: A bot's active version was changed by its owner (an earlier passed version made active
#: again), sent inside that transaction with ``bot``: the pipeline re-seats the bot's queued
#: ladder matches with it in the same transaction, as when a new version is promoted.
active_version_changed = Signal()
