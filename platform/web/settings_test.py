"""Settings for the test suite: the real PostgreSQL that ``make services`` starts
(``deploy/ensure-postgres.sh``), an in-memory broker, fast password hashing, and files in a
throw-away folder."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

os.environ.setdefault("DEBUG", "0")
os.environ.setdefault("SECRET_KEY", "test-only-secret-key")
os.environ.setdefault("DATABASE_URL", "postgres://cucumbers:cucumbers@127.0.0.1:5432/cucumbers")
if "DATA_DIR" not in os.environ:
    os.environ["DATA_DIR"] = tempfile.mkdtemp(prefix="cucumbers-test-data-")
    atexit.register(shutil.rmtree, os.environ["DATA_DIR"], ignore_errors=True)
os.environ.setdefault("SANDBOX", "process")
# No weekly house event unless a test asks for one (its workers inherit this environment).
os.environ.setdefault("HOUSE_EVENTS", "0")
# The platform's signing key for this session (the tests' arena workers get its public key).
if "ARENA_SIGNING_KEY_FILE" not in os.environ:
    from arena.signing import ensure_key_pair

    os.environ["ARENA_SIGNING_KEY_FILE"] = os.path.join(os.environ["DATA_DIR"], "keys", "platform")
    ensure_key_pair(os.environ["ARENA_SIGNING_KEY_FILE"])
# The test client and the browser tests' live server speak plain HTTP (production's
# redirect to HTTPS is tested on its own, tests/web/test_settings.py).
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")

from .settings import *  # noqa: F403
from .settings import REST_FRAMEWORK, STORAGES

STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # noqa: F405  (whitenoise looks there)
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    **STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
CELERY_BROKER_URL = "memory://"
CELERY_BROKER_TRANSPORT = None
CELERY_BROKER_TRANSPORT_OPTIONS = {}
# Generous anonymous/user rates so that only the tests about throttling meet them.
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {"anon": "1000/minute", "user": "1000/minute"},
}
# Two suites on one server (a developer's and CI's, say) need test databases of their own.
DATABASES["default"]["TEST"] = {  # noqa: F405
    "NAME": os.environ.get("CUCUMBERS_TEST_DATABASE", "test_cucumbers")
}
