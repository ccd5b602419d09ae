"""The OpenAPI document covers every route of issue 16 (knowledge, remember, access log,
state, usage) with its problem answers, served as application/problem+json: the house rule
(api/http/openapi.py) plus what these routes answer beyond it."""

from __future__ import annotations

from typing import Any

from api.http.openapi import problem_statuses

EXTRA = {
    ("/v1/knowledge/remember", "post"): {404},  # not a member of the group
    ("/v1/knowledge/{name}", "get"): {409},  # several groups hold the name
    ("/v1/knowledge/{name}/versions", "get"): {409},
    ("/v1/state/{workflow}/{key}", "put"): {412},
    ("/v1/state/{workflow}/{key}", "delete"): {412},
    ("/v1/shared-state/{group_id}/{workflow}/{key}", "put"): {412},
    ("/v1/shared-state/{group_id}/{workflow}/{key}", "delete"): {412},
}
ROUTES = [
    ("/v1/knowledge", "get"),
    ("/v1/knowledge/remember", "post"),
    ("/v1/knowledge/{name}", "get"),
    ("/v1/knowledge/{name}", "put"),
    ("/v1/knowledge/{name}", "delete"),
    ("/v1/knowledge/{name}/versions", "get"),
    ("/v1/knowledge/{name}/restore", "post"),
    ("/v1/access-log", "get"),
    ("/v1/state/{workflow}/{key}", "get"),
    ("/v1/state/{workflow}/{key}", "put"),
    ("/v1/state/{workflow}/{key}", "delete"),
    ("/v1/shared-state/{group_id}/{workflow}/{key}", "get"),
    ("/v1/shared-state/{group_id}/{workflow}/{key}", "put"),
    ("/v1/shared-state/{group_id}/{workflow}/{key}", "delete"),
    ("/v1/usage", "post"),
    ("/v1/usage/summary", "get"),
]


def test_every_new_route_documents_its_problems(client: Any) -> None:
    """Each route lists the house rule's problem statuses and its own (412 for state
    writes, 404 for remember, 409 for an ambiguous document or its versions), each as
    problem+json with the Problem schema; state PUTs document 201 and their conditional
    headers."""
    doc = client.get("/openapi.json").json()
    for path, method in ROUTES:
        operation = doc["paths"][path][method]
        wanted = set(problem_statuses(path, method, operation)) | EXTRA.get((path, method), set())
        problems = {int(s) for s in operation["responses"] if s.isdigit() and int(s) >= 400}
        assert problems == wanted, (path, method, problems)
        for status in problems:
            content = operation["responses"][str(status)]["content"]
            assert list(content) == ["application/problem+json"], (path, status)
            assert content["application/problem+json"]["schema"]["$ref"].endswith("/Problem")
    put = doc["paths"]["/v1/state/{workflow}/{key}"]["put"]
    assert "201" in put["responses"]
    headers = {p["name"].lower() for p in put["parameters"] if p["in"] == "header"}
    assert headers == {"if-match", "if-none-match", "idempotency-key"}
