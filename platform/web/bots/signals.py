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
