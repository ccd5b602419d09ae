"""The OpenAPI document covers every route of issue 16 (knowledge, remember, access log,
state, usage) with its problem responses, served as application/problem+json."""

from __future__ import annotations

from typing import Any

W = {"401", "403", "404", "409", "412", "422", "503"}
EXPECTED = {
    ("/v1/knowledge", "get"): {"401", "403", "422", "503"},
    ("/v1/knowledge/remember", "post"): {"401", "403", "404", "409", "422", "503"},
    ("/v1/knowledge/{name}", "get"): {"401", "403", "404", "409", "422", "503"},
    ("/v1/knowledge/{name}", "put"): {"401", "403", "404", "409", "422", "503"},
    ("/v1/knowledge/{name}", "delete"): {"401", "403", "404", "422", "503"},
    ("/v1/knowledge/{name}/versions", "get"): {"401", "403", "404", "422", "503"},
    ("/v1/knowledge/{name}/restore", "post"): {"401", "403", "404", "409", "422", "503"},
    ("/v1/access-log", "get"): {"401", "403", "422", "503"},
    ("/v1/state/{workflow}/{key}", "get"): {"401", "403", "404", "422", "503"},
    ("/v1/state/{workflow}/{key}", "put"): W | {"201"},
    ("/v1/state/{workflow}/{key}", "delete"): W,
    ("/v1/shared-state/{group_id}/{workflow}/{key}", "get"): {"401", "403", "404", "422", "503"},
    ("/v1/shared-state/{group_id}/{workflow}/{key}", "put"): W | {"201"},
    ("/v1/shared-state/{group_id}/{workflow}/{key}", "delete"): W,
    ("/v1/usage", "post"): {"401", "403", "409", "422", "503"},
    ("/v1/usage/summary", "get"): {"401", "403", "422", "503"},
}


def test_every_new_route_documents_its_problems(client: Any) -> None:
    """Each route lists exactly its success and problem statuses; every problem is
    application/problem+json with the ProblemBody schema (413 is the body limit's, on
    every route, and documented in the README's Bounds)."""
    doc = client.get("/openapi.json").json()
    for (path, method), codes in EXPECTED.items():
        responses = doc["paths"][path][method]["responses"]
        success = {"201"} if (path, method) == ("/v1/usage", "post") else {"200"}
        assert set(responses) == success | codes, (path, method, set(responses))
        for code in codes - {"201"}:
            content = responses[code]["content"]
            assert list(content) == ["application/problem+json"], (path, code)
            assert content["application/problem+json"]["schema"]["$ref"].endswith("/ProblemBody")
    put = doc["paths"]["/v1/state/{workflow}/{key}"]["put"]
    headers = {p["name"].lower() for p in put["parameters"] if p["in"] == "header"}
    assert headers == {"if-match", "if-none-match", "idempotency-key"}
