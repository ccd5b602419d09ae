"""Unknown query parameters are refused, not ignored (CONTRACT §9: bad input is 4xx naming
the field; api/http/query.py, one dependency for every `/v1` route).

A typo such as `limt=5` or `valid_a=...` used to be dropped silently: the caller got the
default (every row, or now) and never learned why.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.api.conftest import Api, app_routes


def refused(r: Any, *names: str) -> dict[str, Any]:
    """A 422 problem+json naming each of `names` as a field."""
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = r.json()
    assert [e["field"] for e in body["errors"]] == list(names), body
    assert all("unknown query parameter" in e["message"] for e in body["errors"])
    return body


def test_a_typo_in_a_search_parameter_is_a_422_naming_it(api: Api) -> None:
    """`GET /v1/search?q=x&limt=5` names `limt` and lists what the route takes."""
    body = refused(api.get("/v1/search", params={"q": "x", "limt": 5}), "limt")
    assert "limit" in body["errors"][0]["message"] and "q" in body["errors"][0]["message"]
    assert api.get("/v1/search", params={"q": "x", "limit": 5}).status_code == 200


def test_a_typo_in_a_time_parameter_is_a_422_naming_it(api: Api) -> None:
    """`valid_a=` (for `valid_at`) on an entity's facts is refused, not read as now."""
    me = api.entity("Me")["id"]
    url = f"/v1/entities/{me}/facts"
    refused(api.get(url, params={"valid_a": "2024-01-01T00:00:00Z"}), "valid_a")
    ok = api.get(
        url, params={"valid_at": "2024-01-01T00:00:00Z", "known_at": "2030-01-01T00:00:00Z"}
    )
    assert ok.status_code == 200, ok.text


def test_every_unknown_parameter_is_named_once(api: Api) -> None:
    """Two unknown names (one given twice) are two errors, in the order given."""
    r = api.client.get(
        "/v1/proposals?stat=pending&x=1&stat=kept&status=pending", headers=api.headers
    )
    refused(r, "stat", "x")


def test_a_write_with_an_unknown_parameter_writes_nothing(api: Api) -> None:
    """`POST /v1/entities?dry_run=1` is refused before anything is written."""
    r = api.post("/v1/entities", {"name": "Zed", "kind": "person"}, params={"dry_run": 1})
    refused(r, "dry_run")
    assert api.get("/v1/entities", params={"q": "Zed"}).json()["items"] == []


def test_a_route_without_parameters_takes_none(api: Api) -> None:
    """`GET /v1/me?verbose=1`: the route takes no query parameters, and says so."""
    body = refused(api.get("/v1/me", params={"verbose": 1}), "verbose")
    assert "takes no query parameters" in body["detail"]


def _filled(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "x", path)


def test_every_v1_route_refuses_an_unknown_parameter(api: Api, app: Any) -> None:
    """Route by route: each `/v1` operation answers 422 naming an unknown parameter (the
    one dependency covers routes added later without a line of their own)."""
    routes = sorted((m, p) for m, p in app_routes(app) if p.startswith("/v1/"))
    assert len(routes) > 50
    for method, path in routes:
        r = api.client.request(
            method, _filled(path) + "?zz_unknown=1", headers=api.headers, json={}
        )
        assert r.status_code == 422, (method, path, r.status_code, r.text)
        assert r.json()["errors"][0]["field"] == "zz_unknown", (method, path, r.text)


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/metrics", "/memory/sign-in"])
def test_health_metrics_and_the_page_are_left_as_they_were(api: Api, path: str) -> None:
    """Probes, scrapers and the Memory page (links and forms of its own) are not `/v1`
    routes: an extra parameter there is not refused."""
    r = api.client.get(path, params={"zz_unknown": 1}, follow_redirects=False)
    assert r.status_code != 422, (path, r.text)
    assert r.status_code < 500, (path, r.text)


def test_openapi_documents_the_422_of_every_v1_operation(api: Api) -> None:
    """Every `/v1` operation lists its 422 problem, whose description names unknown query
    parameters."""
    doc = api.get("/openapi.json").json()
    for path, operations in doc["paths"].items():
        if not path.startswith("/v1/"):
            continue
        for method, operation in operations.items():
            answer = operation["responses"].get("422")
            assert answer is not None, (method, path)
            assert "unknown query parameter" in answer["description"], (method, path)
