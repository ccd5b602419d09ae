"""Request timestamps are read alike at every entry point (CONTRACT §2; graph.fields.Timestamp).

RFC 3339 §5.6 NOTE lets a space stand for the `T` between date and time; a query
parameter, a JSON body and an MCP argument all take it, and all still refuse a time
without an offset with a 422 (or tool error) naming the field.
"""

from __future__ import annotations

from typing import Any

from neo4j import Driver

from tests.api.conftest import Api
from tests.api.test_mcp import call, error, mcp_url, ok, token

__all__ = ["mcp_url"]  # the MCP app fixture, shared

SPACED = "2024-05-01 09:00:00+00:00"
"""RFC 3339 with a space for the `T` (§5.6 NOTE)."""
NAIVE = "2024-05-01 09:00:00"
"""The same without an offset: refused (CONTRACT §2)."""


def _me_in_berlin(api: Api) -> str:
    me = api.entity("Me")["id"]
    api.fact(me, attribute="location", value="Paris", valid_from="2024-01-01T00:00:00Z")
    return me


def test_a_json_body_takes_a_space_separated_time(api: Api) -> None:
    """`valid_from` "2024-05-01 09:00:00+00:00" is the instant 2024-05-01T09:00:00Z."""
    me = _me_in_berlin(api)
    made = api.fact(me, attribute="location", value="Berlin", valid_from=SPACED)["fact"]
    assert made["valid_from"] == "2024-05-01T09:00:00Z"
    r = api.post(f"/v1/entities/{me}/facts", {"attribute": "x", "value": 1, "valid_from": NAIVE})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "valid_from"


def test_a_query_parameter_takes_a_space_separated_time(api: Api) -> None:
    """`?valid_at=2024-05-01 09:00:00+00:00` reads at that instant; without an offset it is
    a 422 problem naming `valid_at`."""
    me = _me_in_berlin(api)
    api.fact(me, attribute="location", value="Berlin", valid_from="2024-06-01T00:00:00Z")
    r = api.get(f"/v1/entities/{me}/facts", params={"valid_at": SPACED})
    assert r.status_code == 200, r.text
    assert [f["value"] for f in r.json()["items"]] == ["Paris"]
    r = api.get(f"/v1/entities/{me}/facts", params={"valid_at": NAIVE})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["errors"][0]["field"] == "valid_at"


def test_an_mcp_argument_takes_a_space_separated_time(
    mcp_url: str, neo4j_driver: Driver, owner: str, api: Api
) -> None:
    """`time_travel` with `valid_at` "2024-05-01 09:00:00+00:00" answers as REST does; a
    naive one is a tool error naming `valid_at`."""
    me = _me_in_berlin(api)
    api.fact(me, attribute="location", value="Berlin", valid_from="2024-06-01T00:00:00Z")
    secret = token(neo4j_driver, owner, "read")
    answer: dict[str, Any] = ok(
        call(mcp_url, secret, "time_travel", {"entity_id": me, "valid_at": SPACED})
    )
    assert [f["value"] for f in answer["facts"]] == ["Paris"]
    naive = error(call(mcp_url, secret, "time_travel", {"entity_id": me, "valid_at": NAIVE}))
    assert naive.startswith("valid_at:")


def test_an_unencoded_plus_in_a_query_is_refused_saying_so(api: Api) -> None:
    """`?valid_at=2024-05-01T09:00:00+02:00` typed into a URL arrives with a space for the
    `+` (form decoding): a 422 naming `valid_at` that says to send `%2B`; encoded, it reads."""
    me = _me_in_berlin(api)
    r = api.get(f"/v1/entities/{me}/facts?valid_at=2024-05-01T09:00:00+02:00")
    assert r.status_code == 422, r.text
    problem = r.json()
    assert problem["errors"][0]["field"] == "valid_at"
    assert "%2B" in problem["detail"] + str(problem["errors"]), problem
    r = api.get(f"/v1/entities/{me}/facts?valid_at=2024-05-01T09:00:00%2B02:00")
    assert r.status_code == 200, r.text
    assert [f["value"] for f in r.json()["items"]] == ["Paris"]
