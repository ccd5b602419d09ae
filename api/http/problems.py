"""Problem responses in the OpenAPI document (CONTRACT §9: errors are RFC 9457
`application/problem+json`): `problems(*codes)` is a route's `responses=` argument.

The schema is inlined under `application/problem+json` (FastAPI files a response `model`
under `application/json`, which is not what these answers carry).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from api.http.errors import PROBLEM


class ProblemOut(BaseModel):
    """An error as RFC 9457 problem+json: `detail` says what to do about it."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    errors: list[dict[str, str]] | None = Field(
        default=None, description="422: each field at fault, `{field, message}`"
    )
    limit: str | None = Field(default=None, description="409/429 over a limit: its name")
    max: int | None = Field(default=None, description="409/429: the limit's configured value")
    used: int | None = Field(default=None, description="409/429: how much is used")
    retry_after: int | None = Field(default=None, description="429: seconds until it resets")


MEANING = {
    401: "no bearer token, or an unknown or revoked one",
    403: "the token lacks the scope, or the chat's memory access is `none`",
    404: "no such id for this owner (another owner's ids look the same)",
    409: "the request collides with the state it would change, or a limit on what is kept",
    422: "a parameter or body field is invalid (named in `errors`)",
    429: "an hourly reading ceiling is reached (named in `limit`; see Retry-After)",
    503: "the memory store cannot be reached; retry shortly",
}
"""What each problem status means."""

_SCHEMA = ProblemOut.model_json_schema()


def problems(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The `responses` of a route that may answer these problem statuses (401 and 503
    always), each documented as `application/problem+json`."""
    return {
        code: {"description": MEANING[code], "content": {PROBLEM: {"schema": _SCHEMA}}}
        for code in sorted({401, 503, *codes})
    }
