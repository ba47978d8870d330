"""Schemathesis over the whole API, bounded: for every operation of the schema, cases it
generates from the schema (valid ones and, where the schema allows a refusal, invalid ones)
go to the WSGI app with a signed-in user's token, and its default checks hold: no 5xx, every
status documented, every answer (refusals included) of the documented content type and
shape, schema-invalid data refused, no method answered that the schema lacks. One default
check is swapped for a finer one: schema-valid data may meet the game's own rules (a 400
with a refusal's code), never a validation the schema does not describe
(:func:`schema_valid_data_passes_validation`).

The cases are the same on every run (``derandomize``, no example database): a failure
reproduces. For a wider look, run it with ``EXAMPLES = 80`` and ``derandomize=False``:
about a minute and a half on two cores (three such runs were green when it was written)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.contrib.auth.models import User
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.web.factories import active_bot
from tests.web.tournaments.helpers import open_tournament
from web.accounts.models import ApiToken

pytestmark = pytest.mark.django_db

#: Cases per operation, and the longest one case may take (a request through the whole
#: stack, with the database; generous for a busy machine). 21 operations: under a minute
#: on two cores.
EXAMPLES = 25
DEADLINE_MS = 5000


@pytest.fixture(autouse=True)
def _transaction_kept_open() -> Iterator[None]:
    # Django closes the database connection after each request, the test's transaction
    # with it; its own test client keeps it open the same way.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def token(user: User) -> str:
    # Some objects to find: the generated ids are mostly unknown (404), a few are these.
    active_bot(owner=user, name="mine")
    active_bot(name="rival")
    open_tournament()
    return ApiToken.issue(user, "schemathesis")[1]


# The schema that /api/schema/ serves, made at collection (no request, no database); its
# cases go to the WSGI app. (Loading it from a fixture, schemathesis.pytest.from_fixture,
# fails on pytest 9: it sets an attribute pytest's items no longer have.)
schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
schema.app = get_wsgi_application()


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=DEADLINE_MS,
    # The same cases on every run, and none replayed from an earlier run's examples
    # (.hypothesis/): a failure here is reproducible, and the test is the same in CI.
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_the_api_keeps_to_its_schema(case: Any, token: str) -> None:
    case.call_and_validate(
        headers={"Authorization": f"Token {token}"},
        excluded_checks=[positive_data_acceptance],
        additional_checks=[schema_valid_data_passes_validation],
    )


#: What a schema-valid request may be answered besides a success: its objects are unknown
#: or not the caller's (401, 403, 404), in conflict (409) or over a quota (429).
ACCEPTED = {401, 403, 404, 409, 429}
#: The codes of a body or query the API found malformed (web/api/errors.py).
MALFORMED = {"invalid", "parse_error", "unsupported_media_type"}


def schema_valid_data_passes_validation(ctx: Any, response: Any, case: Any) -> bool | None:
    """Schemathesis' positive_data_acceptance, but for the game's own rules: data the
    schema calls valid is never refused as malformed, so the serializers enforce no bound
    the schema lacks. A 400 with a refusal's own code is the rules speaking (a bot that
    plays twice in one challenge, a file that is not Python): the schema cannot say those.
    """
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return None
    status = response.status_code
    if status < 400 or status in ACCEPTED:
        return None
    code = response.json().get("code") if status == 400 else None
    assert status == 400 and code not in MALFORMED, (
        f"schema-valid data refused: {status} {response.text[:300]}"
    )
    return None
