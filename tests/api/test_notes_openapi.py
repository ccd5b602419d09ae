"""The OpenAPI document covers every note and memory route (issue 15): a description, and
each problem answer it may give, as `application/problem+json` (CONTRACT §9; the rule of
api/http/openapi.py, plus the 404s a body's ids can cause)."""

from __future__ import annotations

from typing import Any

from api.http.errors import PROBLEM


def test_every_note_route_documents_its_problems(app: Any) -> None:
    """401, 429 and 503 everywhere; 404 where a path or a body names a resource; 409 on
    every write (a limit or a conflict); each as problem+json."""
    paths = app.openapi()["paths"]
    routes = {
        (method.upper(), path): op
        for path, ops in paths.items()
        if path.startswith(("/v1/notes", "/v1/memory"))
        for method, op in ops.items()
    }
    assert len(routes) == 13, sorted(routes)
    for (method, path), op in routes.items():
        assert op.get("description"), (method, path)
        codes = set(op["responses"])
        assert {"401", "403", "429", "503"} <= codes, (method, path, codes)
        for code in codes - {"200", "201"}:
            assert list(op["responses"][code]["content"]) == [PROBLEM], (method, path, code)
        if (
            "{note_id}" in path
            or path in ("/v1/notes/handover",)
            or (method, path)
            == (
                "POST",
                "/v1/notes",
            )
        ):
            assert "404" in codes, (method, path)
        if method == "POST":
            assert "409" in codes, (method, path)
