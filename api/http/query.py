"""Unknown query parameters are refused, not ignored (CONTRACT §9: bad input is 4xx naming
the field).

`known_query_only` is a dependency of the whole app (`create_app`), so every `/v1` route,
including one added later, refuses a query parameter it does not declare: a typo such as
`limt=5` or `valid_a=` would otherwise be dropped, and the caller would get the default
(the first page, or now) without a word. What a route declares is read from its own
FastAPI dependency tree (`Query` parameters of the endpoint and of every dependency it
uses, by their alias), so the rule needs no list of its own.

Left alone: routes outside `/v1` (the health probes and `/metrics`, which scrapers call
with parameters of their own, and the Memory page, whose links and forms carry theirs),
and the MCP server, which is not a FastAPI route (its arguments are checked by its tools).

The check runs before the route's other dependencies, the bearer token's included: an
unknown parameter is a 422 whoever asks (it says nothing about the store).
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute

UNKNOWN = "unknown query parameter"
"""The start of the message of each unknown parameter (its field is the parameter)."""


def declared_query(dependant: Dependant) -> frozenset[str]:
    """The query parameter names a route takes: the aliases of the `Query` parameters of
    its endpoint and of every dependency below it (a pydantic model declared as query
    parameters counts its fields)."""
    names: set[str] = set()
    stack = [dependant]
    while stack:
        current = stack.pop()
        for param in current.query_params:
            model: Any = param.field_info.annotation
            fields = getattr(model, "model_fields", None)
            if isinstance(fields, dict):
                names.update(f.alias or name for name, f in fields.items())
            else:
                names.add(param.alias)
        stack.extend(current.dependencies)
    return frozenset(names)


def known_query_only(request: Request) -> None:
    """Refuse the query parameters a `/v1` route does not declare.

    Args:
        request: the request; its matched route is `request.scope["route"]`.

    Raises:
        RequestValidationError: a 422 problem+json (api/http/errors.py) with one error
            per unknown parameter, in the order given, each naming it as its `field`
            and saying which parameters the route takes.
    """
    route = request.scope.get("route")
    if not isinstance(route, APIRoute) or not request.url.path.startswith("/v1/"):
        return
    given = list(dict.fromkeys(request.query_params.keys()))
    if not given:
        return
    declared = declared_query(route.dependant)  # a few microseconds: not cached
    unknown = [name for name in given if name not in declared]
    if not unknown:
        return
    takes = (
        f"this route takes: {', '.join(sorted(declared))}"
        if declared
        else "this route takes no query parameters"
    )
    raise RequestValidationError(
        [
            {
                "type": "unknown_query_parameter",
                "loc": ("query", name),
                "msg": f"{UNKNOWN}; {takes}",
                "input": request.query_params.get(name),
            }
            for name in unknown
        ]
    )
