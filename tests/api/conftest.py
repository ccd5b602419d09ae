"""API test fixtures: the real app over the real Neo4j of tests/conftest.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient

from api.http.app import create_app
from api.http.settings import Settings
from committer.apply import Committer


class Api:
    """A TestClient bound to one owner's token, plus helpers the tests share."""

    def __init__(self, client: TestClient, token: str, owner: str):
        self.client = client
        self.owner = owner
        self.headers = {"Authorization": f"Bearer {token}"}

    def get(self, url: str, **kw: Any) -> Any:
        return self.client.get(url, headers=self.headers, **kw)

    def post(self, url: str, json: Any = None, **kw: Any) -> Any:
        return self.client.post(url, json=json, headers=self.headers, **kw)

    def delete(self, url: str, **kw: Any) -> Any:
        return self.client.delete(url, headers=self.headers, **kw)

    def entity(self, name: str, kind: str = "person", **extra: Any) -> dict[str, Any]:
        r = self.post("/v1/entities", {"name": name, "kind": kind, **extra})
        assert r.status_code == 201, r.text
        return r.json()  # type: ignore[no-any-return]

    def fact(self, entity_id: str, **body: Any) -> dict[str, Any]:
        r = self.post(f"/v1/entities/{entity_id}/facts", body)
        assert r.status_code == 201, r.text
        return r.json()  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def app(neo4j_driver: Any) -> Iterator[Any]:
    """One app for the API tests; the curator is driven by the tests (`app.state.curator`)."""
    settings = Settings(curator_in_process=False, prefetch_deadline_ms=2000)
    application = create_app(settings, neo4j_driver)
    with TestClient(application):
        yield application


@pytest.fixture
def client(app: Any) -> TestClient:
    return TestClient(app)


def make_api(client: TestClient, neo4j_driver: Any, owner: str, scopes: tuple[str, ...]) -> Api:
    secret, _ = Committer(neo4j_driver).create_token(owner, scopes)
    return Api(client, secret, owner)


@pytest.fixture
def api(client: TestClient, neo4j_driver: Any, owner: str) -> Api:
    """The owner of this test, with every scope."""
    return make_api(client, neo4j_driver, owner, ("read", "write", "curate", "admin"))


@pytest.fixture
def other(client: TestClient, neo4j_driver: Any, owner: str) -> Api:
    """A second owner, to prove nothing crosses (CONTRACT §7)."""
    return make_api(client, neo4j_driver, owner + "-other", ("read", "write", "curate", "admin"))


def app_routes(app: Any, memory_page: bool = False) -> set[tuple[str, str]]:
    """Every (method, path template) the app answers, routers included (HEAD left out).

    The Memory page's routes (`/memory`, signed in by cookie, not by bearer token) are left
    out unless `memory_page`; alone, they are its own suites' (tests/api/web/)."""
    return {
        (method, c.path)
        for c in iter_route_contexts(app.routes)
        for method in (c.methods or ())
        if method != "HEAD" and c.path.startswith("/memory") == memory_page
    }
