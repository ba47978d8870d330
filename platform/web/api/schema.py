"""The OpenAPI schema beyond what drf-spectacular infers: the token authentication (an
extension), and what the API answers when it refuses (a postprocessing hook). The hook:
drf-spectacular documents successes only; every refusal has one ``Error`` shape,
``{"detail": ..., "code": ...}``, with ``fields`` when a body or query parameters do not
validate (web/api/errors.py). Which statuses an operation can answer follows from what it
takes: a token (401), path parameters (404), query parameters (400, 404) or a body (400;
415 when of another content type), a change (403, 409), an upload (413), and every request
may be throttled (429) or meet an outage of the database or the storage (503, with
``Retry-After``: web/outages.py).
tests/web/api/test_schema.py checks the real answers against it."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension

from .bounds import LARGEST_ID


class ApiTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "web.accounts.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <your token>`: create one on your account's token page.",
        }


ERROR = {
    "type": "object",
    "description": "A refusal, in the one shape of every error of the API: a message to show"
    " and a machine-readable code; ``fields`` when a body or query parameters do not validate.",
    "properties": {
        "detail": {"type": "string", "description": "what went wrong, for a person"},
        "code": {
            "type": "string",
            "description": "what went wrong, for a program: invalid (see fields), not_found,"
            " not_authenticated, permission_denied, throttled, unsupported_media_type,"
            " parse_error, or a refusal's own (duplicate_name, too_many_uploads...)",
        },
        "fields": {
            "type": "object",
            "description": "invalid only: the messages of each field or query parameter that"
            " does not validate (an item of a list as name.0)",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
    },
    "required": ["detail", "code"],
}
_REASONS = {
    400: "The request is malformed (a body that does not validate, a bad filter).",
    401: "The token is missing, unknown or revoked.",
    403: "Not yours to change, or not allowed with a token.",
    404: "No such object.",
    409: "In conflict with what exists (a name taken, a game that differs, a quota).",
    413: "The body is larger than an upload may be.",
    415: "The body is not of the operation's one content type (JSON; multipart for uploads).",
    429: "Too many requests: throttled, or over a quota; try again later.",
    503: "The database or the file storage is unavailable (code database_unavailable or"
    " storage_unavailable): nothing was changed; ask again after Retry-After seconds.",
}
_WRITES = {"post", "put", "patch", "delete"}


def _error(status: int) -> dict[str, Any]:
    schema = {"$ref": "#/components/schemas/Error"}
    return {"description": _REASONS[status], "content": {"application/json": {"schema": schema}}}


def statuses(method: str, operation: dict[str, Any]) -> set[int]:
    """The refusals ``operation`` can answer."""
    found = {401, 429, 503}
    places = {parameter.get("in") for parameter in operation.get("parameters", [])}
    if "path" in places:
        found.add(404)
    if "query" in places:
        found |= {400, 404}  # a bad filter; a page or a game that does not exist
    if "requestBody" in operation:
        found |= {400, 415}
    if method in _WRITES:
        found |= {400, 403, 404, 409}
    body = operation.get("requestBody", {}).get("content", {})
    if "multipart/form-data" in body:
        found.add(413)
    return found


def _null_as_a_type(node: object) -> None:
    """OpenAPI 3.1 has no ``nullable``: what DRF's pagination and a few fields still say
    with it becomes a ``null`` type (validators of 3.1 ignore ``nullable``)."""
    if isinstance(node, dict):
        if node.pop("nullable", False):
            kind = node.get("type")
            if isinstance(kind, str):
                node["type"] = [kind, "null"]
            elif "$ref" in node or "allOf" in node or "oneOf" in node:
                node["oneOf"] = [{k: node.pop(k) for k in ("$ref", "allOf", "oneOf") if k in node}]
                node["oneOf"].append({"type": "null"})
        for value in node.values():
            _null_as_a_type(value)
    elif isinstance(node, list):
        for value in node:
            _null_as_a_type(value)


def _ids_in_paths(operation: dict[str, Any]) -> None:
    """Every path parameter of the API is an id or a number (a version's, a game's) that its
    URL matches as digits (web/api/urls.py, the viewsets' ``lookup_value_regex``): a positive
    integer, whatever drf-spectacular read from the route (a string pattern, a model's
    bounds). Anything else is no address of the API: a 404."""
    for parameter in operation.get("parameters", []):
        if parameter.get("in") == "path":
            parameter["schema"] = {"type": "integer", "minimum": 1, "maximum": LARGEST_ID}


def _uploads(result: dict[str, Any], operation: dict[str, Any]) -> None:
    """A multipart body takes its fields and no others (UploadSerializer refuses the rest),
    and its file is never empty (DRF's FileField refuses an empty one)."""
    body = operation.get("requestBody", {}).get("content", {}).get("multipart/form-data")
    if body is not None:
        name = body["schema"]["$ref"].rsplit("/", 1)[1]
        component = result["components"]["schemas"][name]
        component["additionalProperties"] = False
        for field in component.get("properties", {}).values():
            if field.get("format") == "binary":
                field["minLength"] = 1


def document_errors(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular's postprocessing hook (SPECTACULAR_SETTINGS)."""
    _null_as_a_type(result)
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Error"] = ERROR
    for methods in result.get("paths", {}).values():
        for method, operation in methods.items():
            _ids_in_paths(operation)
            _uploads(result, operation)
            responses = operation.setdefault("responses", {})
            for status in sorted(statuses(method, operation)):
                responses.setdefault(str(status), _error(status))
    return result
