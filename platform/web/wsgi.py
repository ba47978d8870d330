"""WSGI entry point: ``gunicorn web.wsgi`` with ``platform/`` on the path."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "web.settings")

application = get_wsgi_application()


def _require_signing_key() -> None:
    # The web server sends jobs (an upload's validation, a challenge): in production it does
    # not start without the key that signs them (migrate and collectstatic need none).
    from django.conf import settings

    from web.arena_hosts.keys import require_signing_key

    if not settings.DEBUG:
        require_signing_key()


_require_signing_key()
