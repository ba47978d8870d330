"""The bounds of what the API takes, shared by its serializers, filters, pages and schema, so
that what the schema promises is what the server enforces."""

from __future__ import annotations

#: Ids (and version and game numbers) are positive 64-bit integers: anything larger is a 400
#: (or, in a path, a 404), never a database error.
LARGEST_ID = 2**63 - 1
#: Items a client may ask for in one page (``page_size``).
MAX_PAGE_SIZE = 200
#: A username's longest (Django's ``User.username``).
USERNAME_LENGTH = 150
