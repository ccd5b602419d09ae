"""Problem responses in the OpenAPI document (CONTRACT §9): each route lists the problem
statuses it may answer, as `application/problem+json` with the `ProblemBody` schema.

`problems(*codes)` is a route's `responses=`; `document_problems(app)` moves those responses
from FastAPI's `application/json` to `application/problem+json` alone.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, Field

PROBLEM = "application/problem+json"


class FieldProblem(BaseModel):
    """One field at fault in a 422."""

    field: str
    message: str


class ProblemBody(BaseModel):
    """An error, as RFC 9457 problem+json (CONTRACT §9): `detail` says what to do about it."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    errors: list[FieldProblem] | None = Field(
        default=None, description="422 only: each field at fault and why"
    )
    current: int | None = Field(
        default=None, description="412 only: the value's current version (null: no value)"
    )


MEANINGS = {
    401: "no bearer token, or an unknown or revoked one",
    403: "the token lacks the scope, a refused `remember`, or the chat's memory access is `none`",
    404: "no such name or id for this owner (another owner's look the same)",
    409: "the request collides with the state it would change",
    412: "If-Match names another version than the current one, or If-None-Match: * and a "
    "value exists",
    413: "the request body is over the size limit",
    422: "a parameter or body field is invalid (named in `errors`)",
    503: "the memory store cannot be reached; retry shortly",
}
"""What each problem status means, for the OpenAPI document."""


def problems(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The `responses` of a route that may answer these problem statuses (401, 422 and 503
    always: every route authenticates, validates and reads the store)."""
    wanted = sorted({401, 422, 503, *codes})
    return {
        code: {"model": ProblemBody, "description": MEANINGS[code], "content": {PROBLEM: {}}}
        for code in wanted
    }


def document_problems(app: FastAPI) -> None:
    """Have `app.openapi()` list each problem response under `application/problem+json`
    alone (FastAPI files a response `model` under `application/json`)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = build()
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                for response in operation.get("responses", {}).values():
                    content = response.get("content", {})
                    if PROBLEM in content and "application/json" in content:
                        content[PROBLEM] = content.pop("application/json")
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
