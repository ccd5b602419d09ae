"""The OpenAPI document tells the truth about errors (CONTRACT §9): every operation lists the
problem+json answers it can give, with one shared `Problem` schema.

Which statuses an operation can answer follows from what it is, by one rule applied to every
route (so a route added later is documented without a line of its own):

| status | when |
|---|---|
| 401 | it needs a bearer token (every `/v1` route) |
| 403 | it needs a scope, or reads under a chat's memory access (every `/v1` route but `/v1/me`) |
| 404 | it names a resource in its path |
| 409 | it writes (the state it acts on may have moved) |
| 413 | it takes a body |
| 422 | it takes parameters or a body, or is a `/v1` route (an unknown query parameter) |
| 429 | it is rate limited (every `/v1` route) |
| 503 | always: the store may be unreachable |
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "description": "An RFC 9457 problem: what went wrong, for a person to act on.",
    "type": "object",
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {"type": "string", "description": "always about:blank"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string", "description": "what to do about it, naming the field"},
        "errors": {
            "type": "array",
            "description": "on a 422: each field at fault and its message",
            "items": {
                "type": "object",
                "required": ["field", "message"],
                "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
            },
        },
    },
}

DESCRIPTIONS = {
    401: "No bearer token, or an unknown or revoked one.",
    403: "The token lacks the scope, or the chat's memory access is `none`.",
    404: "No such resource for this owner (another owner's ids look the same).",
    409: "The state the request acts on has moved (e.g. a run id reused with other content).",
    412: "The value's version does not match `If-Match`.",
    413: "The request body is over its bound.",
    422: "Bad input: the problem names each field at fault (an unknown query parameter"
    " too: it is refused, not ignored).",
    429: "Too many requests; retry after the `Retry-After` seconds.",
    503: "The memory store cannot be reached; retry shortly.",
}
FASTAPI_422 = "Validation Error"
"""FastAPI's own description of its 422: ours replaces it (it says what ours is)."""
WRITES = {"post", "put", "patch", "delete"}
SECRET_REFUSED: dict[int | str, dict[str, str]] = {
    422: {
        "description": DESCRIPTIONS[422]
        + " Text that carries a secret (a password, PIN, passcode, API key, token, card"
        " number ...) is refused naming its field: worldstate never stores secrets"
        " (committer/secrets.py)."
    }
}
"""The 422 of a route that keeps a client's text, for its `responses=`."""


def problem_statuses(path: str, method: str, operation: dict[str, Any]) -> list[int]:
    """The problem statuses an operation can answer, by the module's table."""
    statuses = {503}
    if path.startswith("/v1/"):
        statuses |= {401, 422, 429}  # 422: an unknown query parameter (api/http/query.py)
        if path != "/v1/me":
            statuses.add(403)
    if "{" in path:
        statuses.add(404)
    if method in WRITES:
        statuses.add(409)
    if "requestBody" in operation:
        statuses |= {413, 422}
    if operation.get("parameters"):
        statuses.add(422)
    return sorted(statuses)


def document_problems(schema: dict[str, Any]) -> dict[str, Any]:
    """Add the `Problem` schema and each operation's problem answers to an OpenAPI document.

    FastAPI's own 422 (`HTTPValidationError`, `application/json`, "Validation Error") is
    replaced: our 422 is a problem, described by `DESCRIPTIONS`. Answers an operation
    documents itself are kept, with problem+json content.
    """
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components["Problem"] = PROBLEM_SCHEMA
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)
    content = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            for status in problem_statuses(path, method, operation):
                answer = responses.get(str(status), {})
                own = answer.get("description")
                responses[str(status)] = {
                    "description": DESCRIPTIONS[status] if own in (None, "", FASTAPI_422) else own,
                    "content": content,
                }
            for status, answer in responses.items():
                if status.isdigit() and int(status) in DESCRIPTIONS:
                    answer["content"] = content
    return schema


def install(app: FastAPI) -> None:
    """Make `app.openapi()` build the document with its problem answers (once, then cached)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = document_problems(
                get_openapi(
                    title=app.title,
                    version=app.version,
                    description=app.description,
                    routes=app.routes,
                )
            )
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
