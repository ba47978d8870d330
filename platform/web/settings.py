"""Settings of the Cucumber Arena site, all from the environment (see ``docs/platform.md``).

Safe for production by default: DEBUG is off unless ``DEBUG=1``, a secret key is then
required, cookies are secure. The embedded defaults (SQLite and a Celery broker on the file
system, both under ``DATA_DIR``) need no server; ``DATABASE_URL`` and ``REDIS_URL`` switch
to PostgreSQL and Redis, and ``CACHE_URL`` puts the cache in a Redis database of its own.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from arena.broker import (
    ADVANCE_TOURNAMENTS_TASK,
    MAINTENANCE_QUEUE,
    PLATFORM_ROUTES,
    REAP_MATCHES_TASK,
    RECUR_TOURNAMENTS_TASK,
    REVALIDATE_TASK,
    SWEEP_STORAGE_TASK,
    TOP_UP_LADDER_TASK,
    BrokerSettings,
    Role,
)
from arena.contract import MAX_GAMES
from arena.logs import FORMATS
from cucumbers.runners.base import RunnerName
from cucumbers.viewer_html import VIEWER_DIR

from .cache_backend import site_caches
from .env import envbool, envchoice, envint, envlist, envstr

PROJECT_DIR = Path(__file__).resolve().parent
REPO_DIR = PROJECT_DIR.parents[1]

DEBUG = envbool("DEBUG", False)

SECRET_KEY = envstr("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY is required when DEBUG is off")
    SECRET_KEY = "insecure-local-development-key-never-use-in-production"
# The key the deals of every match follow from (web/matches/deals.py): no one without it can
# compute a hand before it is played, not even from a leaked match seed. Derived from
# SECRET_KEY unless set; change it only when no match is queued, running or held (a deal
# set whose rotations were dealt under two keys is not a set any more).
DEAL_KEY = envstr("DEAL_KEY", "") or f"deal-key:{SECRET_KEY}"

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])

# Cookies travel over TLS only in production; plain http://127.0.0.1 needs DEBUG=1.
SESSION_COOKIE_SECURE = envbool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SESSION_COOKIE_HTTPONLY = True
# Production speaks HTTPS only: plain HTTP is redirected, and browsers are told (HSTS, sent
# on HTTPS responses only) to use nothing else for a year. DEBUG (make run) serves plain HTTP.
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0 if DEBUG else 365 * 24 * 3600)
# Subdomains may be other people's sites: their owner opts in.
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (django-csp): the pages are server-rendered and load their few
# scripts and styles from the site itself, so nothing inline and nothing from elsewhere runs
# (an injected <script> or on* attribute is inert). Images may be data: URIs (the API docs'
# icons); no page may frame the site.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
if envbool("BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

#: Everything the embedded defaults write: the SQLite file, uploads, replays, the broker.
DATA_DIR = Path(envstr("DATA_DIR", str(REPO_DIR / ".data"))).resolve()

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "django_ratelimit",
    "web.accounts",
    "web.bots",
    "web.matches",
    "web.pipeline",
    "web.api",
    "web.pages",
    "web.tournaments",
    "web.arena_hosts",
    "web.notifications",
    "web.reviews",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Before any view (or the CSRF check) reads the body: an oversized one is refused unread.
    "web.request_size.RequestSizeLimitMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: it answers a locked-out log-in (django-axes).
    "axes.middleware.AxesMiddleware",
]

#: Proxies in front of the site whose X-Forwarded-For entries name the client (0: none, the
#: header is ignored): web/accounts/addresses.py and the API's rate limit.
TRUSTED_PROXIES = envint("TRUSTED_PROXIES", 0)

# --- Log-in: brute-force protection (django-axes) -----------------------------------------
# LOGIN_FAILURE_LIMIT wrong passwords for one username from one client lock that pair out
# for LOGIN_LOCKOUT_MINUTES (429), the right password included; the site's log-in and the
# admin's alike. Per pair, so that nobody can lock another person out from elsewhere. The
# client's address follows the same proxy rule as the API's rate limit (TRUSTED_PROXIES).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = envint("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=envint("LOGIN_LOCKOUT_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "web.accounts.addresses.client_ip"

# --- What anyone may do without an account, per client address and hour (django-ratelimit,
# counted in the cache: Redis when CACHE_URL is set). A class behind one NAT address shares
# these: raise them for such a site.
SIGNUPS_PER_HOUR = envint("SIGNUPS_PER_HOUR", 10, minimum=1)
PASSWORD_RESETS_PER_HOUR = envint("PASSWORD_RESETS_PER_HOUR", 5, minimum=1)

ROOT_URLCONF = "web.urls"
WSGI_APPLICATION = "web.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [PROJECT_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "web.context_processors.site",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        envstr("DATABASE_URL", f"sqlite:///{DATA_DIR / 'db.sqlite3'}"),
        conn_max_age=envint("DB_CONN_MAX_AGE", 60),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # The web server and the worker write at once: wait for the lock instead of failing,
    # and take it at BEGIN so a transaction never has to upgrade a read lock.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL;",
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

#: The broker (Celery's, read again by BrokerSettings below). Every arena host can write
#: to it, so the site keeps nothing of its own there: never its cache.
REDIS_URL = envstr("REDIS_URL", "")
#: The site's cache (the API's rate limits, the abuse limits, the bot page's figures and
#: charts, the match list's count): a Redis database of its own, with credentials arena
#: hosts do not hold, storing JSON only (web/cache_backend.py); refused when it names the
#: broker's database. Empty: each process's local memory (one process: make run).
CACHE_URL = envstr("CACHE_URL", "")
CACHES = site_caches(CACHE_URL, broker_url=REDIS_URL)
# django-ratelimit knows memcached and django-redis by name, not Django's own RedisCache
# (an atomic INCR all the same). Without CACHE_URL (make run: one web process) the local
# memory cache counts per process, which is all a single-process server needs.
SILENCED_SYSTEM_CHECKS = ["django_ratelimit.W001"]
if not CACHE_URL:
    SILENCED_SYSTEM_CHECKS.append("django_ratelimit.E003")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
#: A password reset link works once, and for this long (seconds).
PASSWORD_RESET_TIMEOUT = 2 * 3600

# --- E-mail (password reset links, notices to bot owners) --------------------------------------
# ``smtp`` in production (a relay you run or rent); ``console`` prints each message on the
# output of the process that sends it (the web server, the platform's worker for the
# notices), as under make run (DEBUG).
EMAIL_BACKEND = {
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
    "console": "django.core.mail.backends.console.EmailBackend",
}[envchoice("EMAIL_BACKEND", "console" if DEBUG else "smtp", ("smtp", "console"))]
EMAIL_HOST = envstr("EMAIL_HOST", "localhost")
EMAIL_PORT = envint("EMAIL_PORT", 587, minimum=1)
EMAIL_HOST_USER = envstr("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = envstr("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", True)  # STARTTLS on EMAIL_PORT
EMAIL_USE_SSL = envbool("EMAIL_USE_SSL", False)  # TLS from the first byte (port 465)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL exclude each other: choose one")
EMAIL_TIMEOUT = envint("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = envstr("DEFAULT_FROM_EMAIL", "Cucumber Arena <noreply@localhost>")
#: The site's address as its users reach it: the links of mails sent by the platform's worker
#: (notices, their unsubscribe links), which has no request to take it from.
SITE_URL = envstr("SITE_URL", "http://localhost:8000")
LOGIN_REDIRECT_URL = "my-bots"
LOGOUT_REDIRECT_URL = "leaderboard"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
# The project's own files (web is not an app), and the replay viewer under static/viewer/:
# its one copy lives in the SDK, which ships it for the offline `cucumbers replay --html`.
STATICFILES_DIRS = [PROJECT_DIR / "static", ("viewer", VIEWER_DIR)]
# What the site serves that is made before it starts, not while it runs: in a checkout,
# `make run` collects the static files and builds the SDK's wheel into DATA_DIR, and the
# documents are the repository's docs/; the platform's image makes all three at build time
# in its own read-only tree and names them here (deploy/web.Dockerfile).
STATIC_ROOT = Path(envstr("STATIC_ROOT", str(DATA_DIR / "static"))).resolve()
#: The SDK's wheel served at /sdk/ (manage.py build_sdk writes it; the image builds it).
SDK_DIR = Path(envstr("SDK_WHEEL_DIR", str(DATA_DIR / "sdk"))).resolve()
#: docs/*.md, the site's rules, ratings, writing-bots and replay-format pages.
DOCS_DIR = Path(envstr("DOCS_DIR", str(REPO_DIR / "docs"))).resolve()
MEDIA_ROOT = DATA_DIR / "media"

# Bot sources and replays have storages of their own, never served as media: a source is
# shown to its owner and staff only, through a view that checks.
#: An S3-compatible bucket (AWS, MinIO, Ceph...) for bot sources and replays, so that web
#: servers and workers on several hosts share them; empty: files under ``DATA_DIR``.
S3_BUCKET = envstr("S3_BUCKET", "")
if S3_BUCKET:
    # Private objects only: served by the platform's views (which check access), never by
    # a public URL; and never overwritten, as the file system's storage never does.
    _S3_OPTIONS: dict[str, object] = {
        "bucket_name": S3_BUCKET,
        # Unset values are None so that boto3 falls back to its own chain (instance roles,
        # AWS_* variables, ~/.aws).
        "endpoint_url": envstr("S3_ENDPOINT_URL", "") or None,
        "region_name": envstr("S3_REGION", "") or None,
        "access_key": envstr("S3_ACCESS_KEY_ID", "") or None,
        "secret_key": envstr("S3_SECRET_ACCESS_KEY", "") or None,
        "addressing_style": envchoice("S3_ADDRESSING_STYLE", "auto", ("auto", "path", "virtual")),
        "default_acl": "private",
        "querystring_auth": True,
        "file_overwrite": False,
    }
    _BOT_SOURCES: dict[str, object] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {**_S3_OPTIONS, "location": envstr("S3_SOURCES_PREFIX", "sources")},
    }
    _REPLAYS: dict[str, object] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {**_S3_OPTIONS, "location": envstr("S3_REPLAYS_PREFIX", "replays")},
    }
    if _BOT_SOURCES["OPTIONS"] == _REPLAYS["OPTIONS"]:
        raise ImproperlyConfigured("S3_SOURCES_PREFIX and S3_REPLAYS_PREFIX must differ")
else:
    _BOT_SOURCES = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": DATA_DIR / "sources"},
    }
    _REPLAYS = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": DATA_DIR / "replays"},
    }
STORAGES = {
    "default": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": MEDIA_ROOT},
    },
    "bot_sources": _BOT_SOURCES,
    "replays": _REPLAYS,
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

#: The storage sweep (web/matches/sweep.py): how often, and how old an unreferenced file must
#: be before it is removed (older than any transaction between a write and its commit).
STORAGE_SWEEP_SECONDS = envint("STORAGE_SWEEP_SECONDS", 3600, minimum=1)
STORAGE_SWEEP_GRACE_SECONDS = envint("STORAGE_SWEEP_GRACE_SECONDS", 3600, minimum=0)
#: Retry-After of the 503 answered while the database or the storage is away (web/outages.py).
OUTAGE_RETRY_AFTER_SECONDS = envint("OUTAGE_RETRY_AFTER_SECONDS", 30, minimum=1)

# --- Bots and validation --------------------------------------------------------------
UPLOAD_MAX_BYTES = envint("UPLOAD_MAX_BYTES", 256 * 1024, minimum=1)
UPLOADS_PER_HOUR = envint("UPLOADS_PER_HOUR", 30, minimum=1)
#: Bots one user may own (versions or not): quotas per user are only worth so much.
BOTS_PER_USER = envint("BOTS_PER_USER", 20, minimum=1)
#: ``docker``: every bot in the Docker sandbox; an engine that cannot be reached makes
#: matches retried, never played unsandboxed. ``process``: the SDK's process runner, NOT
#: isolated, for local use only (every page says so); never chosen by itself.
SANDBOX = envchoice("SANDBOX", RunnerName.DOCKER, (RunnerName.DOCKER, RunnerName.PROCESS))
VALIDATION_GAMES = envint("VALIDATION_GAMES", 2, minimum=1)
VALIDATION_OPPONENTS = envlist("VALIDATION_OPPONENTS", ["random", "lowest", "highest"])
PROVISIONAL_GAMES = envint("PROVISIONAL_GAMES", 20)
LEADERBOARD_PAGE_SIZE = envint("LEADERBOARD_PAGE_SIZE", 50, minimum=1)

# --- The ladder (docs/arena.md) -------------------------------------------------------------
#: The soft time limit's share of each game of a ladder match (CELERY_SOFT_TIME_LIMIT).
MATCH_SOFT_SECONDS_PER_GAME = 60
#: Games of a ladder match: with duplicate deals, the deals of a deal set, each played once
#: per seat rotation in a match of its own (a 4-seat table: 4 matches of MATCH_GAMES games);
#: also a challenge's default length. Chosen by measurement (docs/arena.md, "How long a
#: ladder match is"): at 20 the ladder's order settles several times faster per hour of
#: machine time than at the 5 of before (each match starts its containers once for four
#: times the games), and a match of fast bots still holds a worker for seconds (what is
#: urgent, a verdict, waits for the first worker to come free).
MATCH_GAMES = envint("MATCH_GAMES", 20, minimum=1)
if MATCH_GAMES > MAX_GAMES:
    raise ImproperlyConfigured(
        f"MATCH_GAMES ({MATCH_GAMES}) is more than a job holds ({MAX_GAMES})"
    )
#: Ladder matches play duplicate deals (deal sets: no bot process sees a deal twice).
LADDER_DUPLICATE = envbool("LADDER_DUPLICATE", True)
#: K of a version's first established game; then K shrinks like 1/sqrt(games) down to
#: ELO_MIN_K (docs/ratings.md). ELO_MIN_K = ELO_K keeps one K for established versions.
ELO_K = envint("ELO_K", 16, minimum=1)
ELO_MIN_K = envint("ELO_MIN_K", 4, minimum=1)
if ELO_MIN_K > ELO_K:
    raise ImproperlyConfigured(f"ELO_MIN_K ({ELO_MIN_K}) must not exceed ELO_K ({ELO_K})")
ELO_PROVISIONAL_K = envint("ELO_PROVISIONAL_K", 48, minimum=1)
#: Ladder table sizes, clipped to each game's legal range (2-6 and 2-7).
LADDER_MIN_PLAYERS = envint("LADDER_MIN_PLAYERS", 2, minimum=2)
LADDER_MAX_PLAYERS = envint("LADDER_MAX_PLAYERS", 7, minimum=2)
#: Queued ladder matches kept per game by the periodic top-up (about what the workers take
#: between two top-ups); 0 stops the ladder.
LADDER_QUEUE_TARGET = envint("LADDER_QUEUE_TARGET", 4)
LADDER_TOP_UP_SECONDS = envint("LADDER_TOP_UP_SECONDS", 15, minimum=1)
#: A new version's first tables go ahead of the routine ladder, on the debut queue, until
#: it leaves the provisional stage (docs/arena.md, "A new version's debut").
LADDER_DEBUT = envbool("LADDER_DEBUT", True)
#: Games of a debut table's matches: short, since a match is rated only once it is over and
#: a new version's author waits for that first rating (5 deals at 4 seats: the provisional
#: stage's 20 games in one set; never more than MATCH_GAMES); the routine ladder's are
#: MATCH_GAMES long.
LADDER_DEBUT_GAMES = envint("LADDER_DEBUT_GAMES", 5, minimum=1)
if LADDER_DEBUT_GAMES > MAX_GAMES:
    raise ImproperlyConfigured(
        f"LADDER_DEBUT_GAMES ({LADDER_DEBUT_GAMES}) is more than a job holds ({MAX_GAMES})"
    )
#: Matches counted as "recent" by matchmaking, which seeds tables with the least busy bots.
MATCHMAKING_WINDOW_HOURS = envint("MATCHMAKING_WINDOW_HOURS", 24, minimum=1)
#: Attempts of a match (worker lost, infrastructure errors) before it fails unrated.
MATCH_MAX_ATTEMPTS = envint("MATCH_MAX_ATTEMPTS", 5, minimum=1)
#: First wait after an infrastructure error, doubled at each attempt (up to 10 minutes).
MATCH_RETRY_SECONDS = envint("MATCH_RETRY_SECONDS", 10, minimum=0)
MATCH_REAPER_SECONDS = envint("MATCH_REAPER_SECONDS", 60, minimum=1)
#: How often beat starts the tournaments that are due (and ends those whose matches are over).
TOURNAMENT_ADVANCE_SECONDS = envint("TOURNAMENT_ADVANCE_SECONDS", 30, minimum=1)
#: How often beat opens the recurring events' next occurrences (web/tournaments/recurring.py).
RECURRING_SECONDS = envint("RECURRING_SECONDS", 60, minimum=1)
#: One weekly round robin per game, with the house bots entered, unless staff made a series
#: of that game themselves (the admin's "Recurring tournaments"); 0: none.
HOUSE_EVENTS = envbool("HOUSE_EVENTS", True)
#: A job sent this long ago and not started while its queue is empty (it is not waiting
#: behind others) was lost with the broker: it is sent again, not counted as an attempt.
MATCH_UNSTARTED_SECONDS = envint("MATCH_UNSTARTED_SECONDS", 120, minimum=1)
#: Automatic retirement (web/pipeline/retirement.py): a bot's active version stops playing
#: when more than RETIREMENT_FAULT_PERCENT % of its last RETIREMENT_GAMES rated ladder games
#: had a fault of its own (never an infrastructure fault). RETIREMENT_GAMES=0: never.
RETIREMENT_GAMES = envint("RETIREMENT_GAMES", 20)
RETIREMENT_FAULT_PERCENT = envint("RETIREMENT_FAULT_PERCENT", 50, minimum=1)
if RETIREMENT_FAULT_PERCENT > 100:
    raise ImproperlyConfigured("RETIREMENT_FAULT_PERCENT is a percentage: at most 100")
CHALLENGES_PER_HOUR = envint("CHALLENGES_PER_HOUR", 10, minimum=1)
#: The most games a challenge may ask for.
CHALLENGE_MAX_GAMES = envint("CHALLENGE_MAX_GAMES", 20, minimum=1)

# --- Move reviews (web/reviews; docs/bots.md, "Reviewing a game") -------------------------
#: Reviews one user may ask for in any 24 hours (a failed review asked again counts again);
#: beyond it the ask is refused (429, too_many_reviews), never dropped.
REVIEWS_PER_DAY = envint("REVIEWS_PER_DAY", 20, minimum=1)
#: Deals per decision (cucumbers review --deals): the SDK's default, so the site's figures
#: are those of `cucumbers review REPLAY --seat N` on the downloaded replay.
REVIEW_DEALS = envint("REVIEW_DEALS", 1000, minimum=2)
#: How long a review may take on an arena worker: past the soft limit it fails, saying so.
REVIEW_SOFT_TIME_LIMIT = envint("REVIEW_SOFT_TIME_LIMIT", 900, minimum=1)
REVIEW_TIME_LIMIT = envint("REVIEW_HARD_TIME_LIMIT", 960, minimum=1)
#: A review still queued this long after it was asked for was lost (its message or its
#: worker): asking again sends it again.
REVIEW_RESEND_SECONDS = envint("REVIEW_RESEND_SECONDS", 3600, minimum=1)

# --- Celery -------------------------------------------------------------------------------
# The broker between the platform and the arena workers (arena/broker.py reads the same
# variables for the workers): REDIS_URL, or kombu's filesystem transport in DATA_DIR/broker
# for `make run` (the same tasks as production, no server to run). CELERY_VISIBILITY_TIMEOUT:
# a message taken by a worker that died is delivered again after this long; workers look for
# such messages every tenth CELERY_RESTORE_INTERVAL.
_BROKER = BrokerSettings.from_env(folder=DATA_DIR / "broker").celery(Role.PLATFORM)
CELERY_BROKER_URL = _BROKER["broker_url"]
# kombu's transport with the poison guard: a message no worker can read is dropped, logged
# and counted, never fatal (arena/poison.py). CELERY_MAX_MESSAGE_BYTES: the largest taken.
CELERY_BROKER_TRANSPORT = _BROKER["broker_transport"]
CELERY_BROKER_TRANSPORT_OPTIONS = _BROKER["broker_transport_options"]
CELERY_BROKER_USE_SSL = _BROKER.get("broker_use_ssl", False)
# The platform's own remote-control namespace and unacknowledged messages (in the transport
# options): the arena's Redis user reaches neither (arena/redis_acl.py).
CELERY_CONTROL_EXCHANGE = _BROKER["control_exchange"]
# This project's worker serves what arena workers send back (reports first) and the periodic
# jobs (deploy/run.py, docker-compose.yml); matches go to the arena's queues by name
# (web/pipeline/dispatch.py). Delivery (acks late...) is arena.broker.DELIVERY (web/celery.py).
CELERY_TASK_DEFAULT_QUEUE = MAINTENANCE_QUEUE
CELERY_TASK_ROUTES = {task: {"queue": queue} for task, queue in PLATFORM_ROUTES.items()}
#: How long a match may take on an arena worker (sent with each job), and so its lease: a
#: minute a game of the ladder's matches (300 s when they were 5 games), never under 300 s,
#: so that a longer MATCH_GAMES does not cut its matches short.
CELERY_TASK_SOFT_TIME_LIMIT = envint(
    "CELERY_SOFT_TIME_LIMIT", max(300, MATCH_SOFT_SECONDS_PER_GAME * MATCH_GAMES), minimum=1
)
CELERY_TASK_TIME_LIMIT = envint(
    "CELERY_HARD_TIME_LIMIT", CELERY_TASK_SOFT_TIME_LIMIT + 60, minimum=1
)
#: A match still running this long lost its worker (no task outlives the hard time limit):
#: another attempt may take it over. Keep it above CELERY_HARD_TIME_LIMIT.
MATCH_LEASE_SECONDS = envint("MATCH_LEASE_SECONDS", CELERY_TASK_TIME_LIMIT + 60, minimum=1)
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")
#: Exactly one scheduler: beat runs as its own process (celery -A web beat) and takes a lock
#: before it sends anything; a second beat waits on it (web/scheduler.py).
CELERY_BEAT_SCHEDULER = "web.scheduler:LockedScheduler"
#: The platform's private Ed25519 key (PEM; python -m arena keygen --out PATH): every job is
#: signed with it, and arena workers refuse any job it did not sign. The web server and the
#: platform's worker refuse to start without it when DEBUG is off (web/arena_hosts/keys.py);
#: migrate, collectstatic and check need none.
ARENA_SIGNING_KEY_FILE = envstr("ARENA_SIGNING_KEY_FILE", "")
CELERY_BEAT_SCHEDULE = {
    "revalidate-failed": {"task": REVALIDATE_TASK, "schedule": 120.0},
    "top-up-ladder": {"task": TOP_UP_LADDER_TASK, "schedule": float(LADDER_TOP_UP_SECONDS)},
    "reap-matches": {"task": REAP_MATCHES_TASK, "schedule": float(MATCH_REAPER_SECONDS)},
    # Starts the tournaments that are due; finishes any whose end was not heard at once.
    "advance-tournaments": {
        "task": ADVANCE_TOURNAMENTS_TASK,
        "schedule": float(TOURNAMENT_ADVANCE_SECONDS),
    },
    # Opens the recurring house events' next occurrences (web/tournaments/recurring.py).
    "recur-tournaments": {"task": RECUR_TOURNAMENTS_TASK, "schedule": float(RECURRING_SECONDS)},
    # Files no row references (a process killed between its writes and its commit).
    "sweep-storage": {"task": SWEEP_STORAGE_TASK, "schedule": float(STORAGE_SWEEP_SECONDS)},
}

# --- API ------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "web.accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # JSON bodies only: one request content type per operation, so that a client generated
    # from the schema sends one body; the uploads (a file) take multipart (web/api/views.py).
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    # Pages whose parameters are checked: junk is a 400, never the first page (pagination.py).
    "DEFAULT_PAGINATION_CLASS": "web.api.pagination.Pages",
    "PAGE_SIZE": envint("API_PAGE_SIZE", 50, minimum=1),
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "web.api.errors.exception_handler",
    # Counted in the cache; a cache that is down lets requests through (web/api/throttling.py).
    "DEFAULT_THROTTLE_CLASSES": [
        "web.api.throttling.FailOpenAnonRateThrottle",
        "web.api.throttling.FailOpenUserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": envstr("API_ANON_RATE", "120/minute"),
        "user": envstr("API_USER_RATE", "600/minute"),
    },
    # Anonymous clients are told apart by address: the last TRUSTED_PROXIES entries of
    # X-Forwarded-For are our own proxies'; with 0 (no proxy) the header is ignored, so a
    # forged one cannot buy a fresh rate limit. Behind one TLS proxy: TRUSTED_PROXIES=1.
    "NUM_PROXIES": TRUSTED_PROXIES,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Cucumber Arena API",
    "DESCRIPTION": "Bots, versions, leaderboards, matches and replays of Cucumber Arena.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # 3.1: a nullable reference is oneOf [ref, null], which validators read as meant.
    "OAS_VERSION": "3.1.0",
    # Matches and tournaments both have a "status": each its own named enum.
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": "web.matches.models.MatchStatus",
        "TournamentStatusEnum": "web.tournaments.models.TournamentStatus",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "web.api.schema.document_errors",
    ],
}

# LOG_FORMAT=json: one JSON object per line (time, level, logger, message and the fields of
# structured events such as the pipeline's), for the web server and the platform's worker
# alike (web/celery.py gives Celery's handlers the same formatter); arena/logs.py.
LOG_FORMAT = envchoice("LOG_FORMAT", "plain", FORMATS)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {"()": "arena.logs.JsonFormatter"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": envstr("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
