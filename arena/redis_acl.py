"""The broker's Redis users, one per role, and the ACL file that defines them.

The broker is a trust boundary: an arena host must be able to write to Redis, so whoever
holds an arena host holds its Redis password. Each role therefore gets a user that can do
what that role's processes do and nothing else, found by running them (the platform's
worker, an arena worker and ``celery inspect ping`` through a real match, with
``tests/web/matches/test_redis_acl.py`` checking that Redis's ``ACL LOG`` stays empty):

- ``platform`` (the web server, the platform's worker with beat, ``manage.py``): the queues,
  its own unacknowledged messages, kombu's binding tables, its own remote control and
  Celery's worker events; never the site's cache;
- ``arena`` (every arena worker, on any host, and its health check): take jobs from the match
  queues and the review queue, put reports on ``reports`` without reading them, its own
  unacknowledged jobs and remote control; nothing of the platform's, nothing of the cache,
  no server command;
- ``cache`` (the site's Django cache, ``CACHE_URL``): keys ``cache:*`` only, in any database;
- ``default``: off (a connection that does not authenticate can do nothing).

The broker is database 0: the broker users may not ``SELECT``, so they can never reach the
cache's database, and kombu's Pub/Sub channel names carry the database number.

Every rule is listed with its reason (:func:`users`); ``python -m arena redis-acl`` writes the
file from the passwords in ``REDIS_PLATFORM_PASSWORD``, ``REDIS_ARENA_PASSWORD`` and
``REDIS_CACHE_PASSWORD`` (stored as SHA-256 digests, never in clear), and ``--explain``
prints the rules with their reasons.

Example::

    REDIS_PLATFORM_PASSWORD=... REDIS_ARENA_PASSWORD=... REDIS_CACHE_PASSWORD=... \\
        python -m arena redis-acl --output /acl/users.acl
    redis-server --aclfile /acl/users.acl
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from .broker import (
    ARENA_QUEUES,
    MAINTENANCE_QUEUE,
    REPORTS_QUEUE,
    ROLE_KEYS,
    Role,
)

#: The broker's Redis database: the broker users are refused ``SELECT``.
BROKER_DB: Final = 0
#: What the site's cache keys begin with (its ``KEY_PREFIX``, ``cache`` then Django's ``:``).
CACHE_PREFIX: Final = "cache:"
#: The fewest characters a password may have: Redis limits no one's attempts to guess it.
MIN_PASSWORD_LENGTH: Final = 16
#: The environment variable that holds each user's password.
PASSWORD_VARIABLES: Final[Mapping[str, str]] = {
    "platform": "REDIS_PLATFORM_PASSWORD",
    "arena": "REDIS_ARENA_PASSWORD",
    "cache": "REDIS_CACHE_PASSWORD",
}

#: The name of a reply queue of ``celery inspect``/``control``: a UUID, then the namespace.
_UUID = "????????-????-????-????-????????????"


#: The Redis of the shipped configuration: ``redis:7`` (7.4 now); Debian 12's is 7.0.
DEFAULT_VERSION: Final = (7, 2)


class AclError(ValueError):
    """A password or a server version that cannot be used; the message names its variable."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One ACL rule of a user, and why the user needs it; ``since``: the first Redis version
    that knows its command (an older server refuses an ACL file naming an unknown one)."""

    rule: str
    why: str
    since: tuple[int, int] = (7, 0)


@dataclass(frozen=True, slots=True)
class User:
    """A Redis user: its name and its rules, in order (later rules refine earlier ones)."""

    name: str
    rules: tuple[Rule, ...]

    def line(self, password: str | None, version: tuple[int, int] = DEFAULT_VERSION) -> str:
        """The user's line of an ACL file for a Redis of ``version``: on, with the
        password's digest, or off."""
        rules = [rule.rule for rule in self.rules if rule.since <= version]
        if password is None:
            return " ".join(["user", self.name, "off", *rules])
        digest = hashlib.sha256(password.encode()).hexdigest()
        return " ".join(["user", self.name, "on", f"#{digest}", *rules])


def _selector(*rules: str) -> str:
    """A Redis 7 selector: its keys, channels and commands are allowed together only (a
    command is let through if the user's root rules or one selector allow it whole)."""
    return "(" + " ".join(rules) + ")"


def _own_keys(role: Role) -> tuple[Rule, ...]:
    """The role's unacknowledged messages, each key with only the commands kombu runs on it
    (one hash, its index by time, and the restore lock)."""
    keys = ROLE_KEYS[role]
    return (
        Rule(
            _selector(f"~{keys.unacked}", "+hset +hget +hdel +watch"),
            "the role's unacknowledged messages: recorded when taken (HSET), read back to be "
            "restored in a transaction (WATCH, HGET), forgotten when acknowledged (HDEL)",
        ),
        Rule(
            _selector(f"~{keys.unacked_index}", "+zadd +zrem +zrange"),
            "their index by time: the restore finds those taken before the visibility "
            "timeout (ZRANGE BYSCORE)",
        ),
        Rule(
            _selector(f"~{keys.unacked_mutex}", "+set +evalsha +get +del"),
            "the restore lock: taken with SET NX PX, released by redis-py's script (GET, DEL)",
        ),
    )


def _remote_control(role: Role, node: str) -> tuple[Rule, ...]:
    """Celery's remote control in the role's own namespace (``celery inspect ping``, and the
    platform worker's start-up exchange): a broadcast channel and reply queues."""
    ns = ROLE_KEYS[role].control
    return (
        Rule(
            _selector(f"&/{BROKER_DB}.{ns}.pidbox", "+psubscribe +punsubscribe +publish"),
            f"the broadcast of the {ns} workers' remote control: they listen to it "
            "(PSUBSCRIBE), `celery inspect` speaks on it (PUBLISH); no other channel",
        ),
        Rule(
            _selector(
                f"~{node}@*.{ns}.pidbox", f"~{_UUID}.reply.{ns}.pidbox", "+brpop +lpush +llen +del"
            ),
            "a worker's own broadcast queue (declared, so counted with LLEN, and deleted when "
            "it stops) and the reply queues of `celery inspect` (named by a UUID), where a "
            "worker puts its answer (LPUSH) and the client takes it (BRPOP)",
        ),
    )


def _binding_tables(*patterns: str) -> Rule:
    """kombu's binding tables, with the deadlines and scripts of expiring ones."""
    return Rule(
        _selector(
            *(f"~{p}" for p in patterns),
            "~_kombu.binding_deadlines",
            "+evalsha +sadd +srem +smembers +zadd +zrangebyscore +zrem +exists +del",
        ),
        "kombu's binding tables of the queues one declares: added by a script (SADD, and "
        "ZADD of an expiring table's deadline), read to route a reply (SMEMBERS), left when a "
        "queue is deleted (SREM), and swept by a script once overdue (ZRANGEBYSCORE, "
        "EXISTS of its permanent set, DEL, ZREM)",
    )


#: What every Celery process of the broker's users runs on no key.
_CONNECTION: Final = (
    Rule("+ping", "kombu checks a new connection with PING"),
    Rule(
        "+client|setinfo",
        "redis-py names its library on every new connection (Redis 7.2 and later)",
        since=(7, 2),
    ),
    Rule(
        "+multi +exec +unwatch",
        "kombu's pipelines are transactions; a restore that fails between its WATCH and "
        "EXEC drops the watch (UNWATCH, on the connection's own state only)",
    ),
    Rule(
        "+script|load",
        "redis-py loads its lock's script before it runs it (a script's commands are "
        "checked against the user's rules like any other)",
    ),
)


def users() -> tuple[User, ...]:
    """The users of the shipped configuration, each rule with its reason."""
    start = Rule("resetkeys resetchannels -@all", "from nothing: no key, channel or command")
    arena_ns = ROLE_KEYS[Role.ARENA].control
    arena = User(
        "arena",
        (
            start,
            *_CONNECTION,
            Rule(
                _selector(*(f"~{queue}" for queue in ARENA_QUEUES), "+brpop +lpush +rpush"),
                "take jobs, matches and reviews (BRPOP), and put back a job whose worker died "
                "or could not tell the platform (RPUSH, LPUSH); nothing else on them (no DEL, "
                "no read without taking). A job's signature, not this rule, is what makes a "
                "job genuine",
            ),
            Rule(
                _selector(f"%W~{REPORTS_QUEUE}", "+lpush"),
                "send `started` messages, reports and review results, and nothing else: an "
                "arena host can neither read, take nor delete another's reports",
            ),
            *_own_keys(Role.ARENA),
            *_remote_control(Role.ARENA, "arena"),
            Rule(
                _selector(
                    *(
                        f"~_kombu.{kind}.{table}"
                        for kind in ("binding", "binding_permanent")
                        for table in (f"{arena_ns}.pidbox", f"reply.{arena_ns}.pidbox")
                    ),
                    "+sadd +srem +smembers",
                ),
                "the binding tables of its remote control, which never expire "
                "(arena/worker.py): a worker's broadcast queue and a client's reply queue "
                "are bound (SADD) and unbound (SREM), a reply's queue is looked up "
                "(SMEMBERS); no other binding table, and no script on them",
            ),
        ),
    )
    platform_queues = [f"~{q}" for q in (*ARENA_QUEUES, REPORTS_QUEUE, MAINTENANCE_QUEUE)]
    platform = User(
        "platform",
        (
            start,
            *_CONNECTION,
            Rule(
                "+script|exists +time",
                "kombu's binding scripts (in pipelines: SCRIPT EXISTS) read the server's clock",
            ),
            Rule(
                _selector(*platform_queues, "+brpop +lpush +rpush +llen"),
                "send jobs to the match and review queues and count them (/health/ready), consume "
                "reports and beat's periodic jobs, restore its own messages",
            ),
            *_own_keys(Role.PLATFORM),
            *_remote_control(Role.PLATFORM, "platform"),
            Rule(
                _selector(
                    f"&/{BROKER_DB}.celeryev/worker.*",
                    "~celeryev.*",
                    "+psubscribe +punsubscribe +publish +llen +del",
                ),
                "Celery's worker events of the platform's worker (heartbeats, gossip), and "
                "its gossip queue",
            ),
            _binding_tables("_kombu.binding.*", "_kombu.binding_permanent.*"),
        ),
    )
    cache = User(
        "cache",
        (
            start,
            Rule(f"~{CACHE_PREFIX}*", "the site's cache keys, in any database, and no others"),
            Rule("+ping", "as any redis-py client"),
            Rule("+client|setinfo", "as any redis-py client (Redis 7.2 and later)", (7, 2)),
            Rule("+select", "the cache has a database of its own (no key beyond cache:* there)"),
            Rule(
                "+get +mget +set +mset +del +exists +incrby +expire +persist +multi +exec",
                "what Django's RedisCache does (get, set, add, incr, touch, delete, *_many); "
                "never FLUSHDB (cache.clear()), which would empty a database whatever its keys",
            ),
        ),
    )
    default = User("default", (Rule("nopass resetkeys resetchannels -@all", "off: no rights"),))
    return (default, platform, arena, cache)


def acl_file(passwords: Mapping[str, str], version: tuple[int, int] = DEFAULT_VERSION) -> str:
    """The ACL file's text for a Redis of ``version``, given each user's password by user
    name."""
    lines = []
    for user in users():
        if user.name == "default":
            lines.append(user.line(None, version))
            continue
        variable = PASSWORD_VARIABLES[user.name]
        password = passwords.get(user.name, "")
        if len(password) < MIN_PASSWORD_LENGTH:
            raise AclError(f"{variable}: a password of at least {MIN_PASSWORD_LENGTH} characters")
        if any(c.isspace() for c in password):
            raise AclError(f"{variable}: a password without spaces")
        lines.append(user.line(password, version))
    return "\n".join(lines) + "\n"


def passwords_from_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each user's password from its variable (empty when unset)."""
    env = os.environ if environ is None else environ
    return {user: env.get(variable, "") for user, variable in PASSWORD_VARIABLES.items()}


def parse_version(text: str) -> tuple[int, int]:
    """``7.0`` or ``7.4.1`` (what ``redis-server --version`` says after ``v=``) as (7, 0)."""
    parts = text.strip().split(".")
    if len(parts) < 2 or not all(part.isdigit() for part in parts[:2]):
        raise AclError(f"REDIS_VERSION={text!r}: a version such as 7.0 or 7.4")
    return int(parts[0]), int(parts[1])


def explain() -> str:
    """Every user's rules with their reasons, as text."""
    out = []
    for user in users():
        out.append(f"user {user.name}")
        out.extend(f"  {rule.rule}\n      {rule.why}" for rule in user.rules)
    return "\n".join(out) + "\n"
