"""The OpenAPI document covers every note and memory route (issue 15): a description, and
each problem response it may give, as `application/problem+json` (CONTRACT §9)."""

from __future__ import annotations

from typing import Any

from api.http.errors import PROBLEM


def test_every_note_route_documents_its_problems(app: Any) -> None:
    """401, 422 and 503 on every route; 404 on routes taking a note id; 429 on the reads
    that serve bodies; 409 on writes that can meet a limit or a conflict."""
    paths = app.openapi()["paths"]
    routes = {
        (method.upper(), path): op
        for path, ops in paths.items()
        if path.startswith(("/v1/notes", "/v1/memory"))
        for method, op in ops.items()
    }
    assert len(routes) == 13, sorted(routes)
    for (method, path), op in routes.items():
        assert op.get("description") or op.get("summary"), (method, path)
        codes = set(op["responses"])
        assert {"401", "422", "503"} <= codes, (method, path, codes)
        for code in codes - {"200", "201"}:
            content = op["responses"][code]["content"]
            assert list(content) == [PROBLEM], (method, path, code)
            assert "detail" in content[PROBLEM]["schema"]["properties"]
        if "{note_id}" in path:
            assert "404" in codes, (method, path)
        if method == "POST":
            assert "409" in codes, (method, path)
    assert "429" in routes[("GET", "/v1/notes/{note_id}")]["responses"]
    assert "429" in routes[("GET", "/v1/memory")]["responses"]
