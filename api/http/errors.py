"""Errors as RFC 9457 problem+json, mapped once here for REST and MCP (CONTRACT §9; STYLE:
one exception root, one error table).

Bad input is 4xx naming the field; the store being down is 503; nothing else is 5xx.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from graph.errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    LimitExceeded,
    MemoryOff,
    NotFound,
    PreconditionFailed,
    StoreUnavailable,
    TooBusy,
    Unauthenticated,
    WorldstateError,
)

log = logging.getLogger("worldstate.api")
PROBLEM = "application/problem+json"


@dataclass(frozen=True, slots=True)
class Problem:
    """One RFC 9457 problem: HTTP status, title, a detail a person can act on, extra
    members (`errors` for a 422, naming the fields), and response headers (`Retry-After`
    for a 429)."""

    status: int
    title: str
    detail: str
    extra: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)


UNAVAILABLE = "The memory store cannot be reached; retry shortly."
UNPARSED_BODY = "There was an error parsing the body"
"""FastAPI's 400 for a body it cannot decode; answered as a 422 naming the body (CONTRACT §9)."""


def problem_of(exc: WorldstateError) -> Problem:  # noqa: PLR0911  # one case per error: a table
    """The one error table (STYLE "One error table"): REST answers it as problem+json, MCP
    as the tool error's text (api/mcp/server.py). CONTRACT §9: bad input is 4xx naming the
    field, the store being down is 503."""
    match exc:
        case NotFound():
            return Problem(404, "Not found", f"No {exc.kind} with id {exc.ident!r}.")
        case InvalidInput():
            return Problem(
                422,
                "Invalid request",
                f"{exc.field}: {exc.detail}",
                {"errors": [{"field": exc.field, "message": exc.detail}]},
            )
        case Conflict():
            return Problem(409, "Conflict", exc.detail)
        case LimitExceeded():
            extra: dict[str, Any] = {"limit": exc.limit, "max": exc.maximum, "used": exc.used}
            if exc.retry_after is not None:
                extra["retry_after"] = exc.retry_after
            return Problem(exc.status, "Limit reached", exc.detail, extra)
        case PreconditionFailed():
            return Problem(412, "Precondition failed", exc.detail, {"current": exc.current})
        case Unauthenticated():
            return Problem(401, "Unauthorized", exc.detail)
        case Forbidden():
            return Problem(403, "Forbidden", exc.detail)
        case MemoryOff():
            return Problem(403, "Forbidden", memory_off_detail(exc))
        case TooBusy():
            wait = str(max(1, math.ceil(exc.retry_after)))
            return Problem(429, "Too many requests", exc.detail, headers={"Retry-After": wait})
        case StoreUnavailable():
            return Problem(503, "Store unavailable", UNAVAILABLE)
        case _:
            return Problem(400, "Bad request", str(exc))


def problem(status: int, title: str, detail: str, **extra: Any) -> JSONResponse:
    """Return a problem+json response (RFC 9457) with `type`, `title`, `status`, `detail`;
    a 401 carries `WWW-Authenticate: Bearer`, a 429 with `retry_after` a `Retry-After`."""
    body = {"type": "about:blank", "title": title, "status": status, "detail": detail, **extra}
    headers = {"WWW-Authenticate": "Bearer"} if status == HTTPStatus.UNAUTHORIZED else None
    if status == HTTPStatus.TOO_MANY_REQUESTS and "retry_after" in extra:
        headers = {"Retry-After": str(extra["retry_after"])}
    return JSONResponse(body, status_code=status, media_type=PROBLEM, headers=headers)


def respond(p: Problem) -> JSONResponse:
    """A `Problem` as a problem+json response."""
    response = problem(p.status, p.title, p.detail, **p.extra)
    response.headers.update(p.headers)
    return response


def _field(error: dict[str, Any]) -> str:
    if error.get("type") == "json_invalid":
        return "body"
    parts = [str(p) for p in error.get("loc", ()) if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


def install(app: FastAPI) -> None:
    """Register the exception handlers on `app`."""

    @app.exception_handler(RequestValidationError)
    async def validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"field": _field(e), "message": _message(e)} for e in exc.errors()]
        detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
        return problem(422, "Invalid request", detail, errors=errors)

    @app.exception_handler(WorldstateError)
    async def ours(_: Request, exc: WorldstateError) -> JSONResponse:
        if isinstance(exc, StoreUnavailable):
            log.warning("store unavailable: %s", exc)
        return respond(problem_of(exc))

    @app.exception_handler(UnicodeEncodeError)
    async def bad_text(_: Request, exc: UnicodeEncodeError) -> JSONResponse:
        return problem(
            422,
            "Invalid request",
            "A text parameter contains an unpaired surrogate; send valid Unicode.",
        )

    @app.exception_handler(Exception)
    async def bug(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=exc)
        return problem(
            500, "Internal error", "Something went wrong on our side; nothing was half-written."
        )

    @app.exception_handler(StarletteHTTPException)
    async def http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == HTTPStatus.BAD_REQUEST and exc.detail == UNPARSED_BODY:
            why = "the body is not valid JSON in UTF-8, or nests deeper than it can be read"
            return problem(
                422, "Invalid request", f"body: {why}", errors=[{"field": "body", "message": why}]
            )
        titles = {
            401: "Unauthorized",
            403: "Forbidden",
            404: "Not found",
            405: "Method not allowed",
            413: "Request too large",
            429: "Too many requests",
        }
        response = problem(exc.status_code, titles.get(exc.status_code, "Error"), str(exc.detail))
        if exc.headers:
            response.headers.update(exc.headers)
        return response


def memory_off_detail(exc: MemoryOff) -> str:
    """What a person reads when memory access is `none` (CONTRACT §7), over REST and MCP."""
    return (
        f"memory is off in this chat ({exc.chat_id!r}): its memory access is `none`; "
        "change it with PUT /v1/chats/{chat_id}/memory-access"
    )


def _message(error: dict[str, Any]) -> str:
    if error.get("type") == "json_invalid":
        return f"the body is not valid JSON ({error.get('ctx', {}).get('error', 'parse error')})"
    if error.get("type") == "timezone_aware":
        return "timestamp needs a UTC offset, e.g. 2024-05-01T09:00:00Z or +02:00"
    return str(error.get("msg", "invalid"))
