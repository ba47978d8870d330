"""gunicorn's settings for the web container (``gunicorn -c deploy/gunicorn.conf.py
web.wsgi``); each can be changed from the environment without rebuilding the image."""

from __future__ import annotations

import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
# The views are short database reads and writes, and the long work (matches) runs in
# Celery. The usual 2 x cores + 1 processes, capped so that a big host does not open more
# database connections than PostgreSQL's default max_connections (100) allows (one per
# thread: 8 x 8 = 64 at most).
workers = int(os.environ.get("WEB_CONCURRENCY", min(2 * multiprocessing.cpu_count() + 1, 8)))
# Threads, not sync workers: a sync worker belongs to one client until that client has sent
# its request and read the answer, so as many slow clients as workers (three, on a small
# host) stalled every other visitor. A thread each, they hold one thread of many
# (tests/web/test_slow_clients.py); a buffering proxy in front removes them altogether.
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 20
keepalive = 5
# Recycle workers now and then so that a slow leak cannot grow for ever; the jitter keeps
# them from restarting all at once.
max_requests = 2000
max_requests_jitter = 200
# The heartbeat files on a tmpfs: a container's overlay file system can stall them.
worker_tmp_dir = "/dev/shm"
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "INFO").lower()
# X-Forwarded-* are trusted from these addresses only (the proxy); Django itself trusts
# X-Forwarded-Proto when BEHIND_TLS_PROXY=1.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# LOG_FORMAT=json: gunicorn's own lines and the access log as one JSON object per line
# (arena/logs.py), the access log's fields (method, path, status, duration_ms...) as keys.
if os.environ.get("LOG_FORMAT", "plain").strip().lower() == "json":
    logconfig_dict = {
        "formatters": {
            "json": {"()": "arena.logs.JsonFormatter"},
            "access_json": {"()": "arena.logs.AccessJsonFormatter"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stdout",
            },
            "error_console": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stderr",
            },
            "access_console": {
                "class": "logging.StreamHandler",
                "formatter": "access_json",
                "stream": "ext://sys.stdout",
            },
        },
        "loggers": {
            "gunicorn.error": {"handlers": ["error_console"], "propagate": False},
            "gunicorn.access": {"handlers": ["access_console"], "propagate": False},
        },
    }
