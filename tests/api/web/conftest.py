"""Memory page fixtures: the API app of tests/api (same process, real Neo4j) driven as a
browser would drive the page's forms, and a signed-in page per test owner."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.http.app import create_app
from api.http.settings import Settings
from committer.apply import Committer
from tests.api.conftest import Api, make_api

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@pytest.fixture(scope="session")
def app(neo4j_driver: Any) -> Iterator[Any]:
    """An app of the Memory page's tests alone (the REST suites change their shared app's
    state, e.g. its token cache, while they run); the curator is driven by the tests."""
    settings = Settings(curator_in_process=False, embedder="none", prefetch_deadline_ms=2000)
    application = create_app(settings, neo4j_driver)
    with TestClient(application):
        yield application


class Page:
    """A TestClient with its own cookie jar, signed in to the Memory page with one token."""

    def __init__(self, app: Any, token: str, owner: str):
        self.client = TestClient(app, base_url="http://testserver")
        self.owner = owner
        self.token = token
        self.html = ""

    def sign_in(self) -> Any:
        form = self.client.get("/memory/sign-in")
        csrf = CSRF.search(form.text)
        assert csrf, form.text
        r = self.client.post(
            "/memory/sign-in",
            data={"token": self.token, "csrf": csrf.group(1), "next": "/memory"},
            follow_redirects=False,
        )
        assert r.status_code == 303, r.text
        return r

    def get(self, url: str, **kw: Any) -> Any:
        r = self.client.get(url, **kw)
        self.html = r.text
        return r

    def csrf(self) -> str:
        """The CSRF token of the last page (any form's)."""
        if not CSRF.search(self.html):
            self.get("/memory")
        found = CSRF.search(self.html)
        assert found, self.html
        return found.group(1)

    def post(self, url: str, data: dict[str, Any] | None = None, **kw: Any) -> Any:
        body = {"csrf": self.csrf(), **(data or {})}
        r = self.client.post(url, data=body, **kw)
        self.html = r.text
        return r


def make_page(app: Any, neo4j_driver: Any, owner: str, scopes: tuple[str, ...]) -> Page:
    secret, _ = Committer(neo4j_driver).create_token(owner, scopes)
    page = Page(app, secret, owner)
    page.sign_in()
    return page


@pytest.fixture
def web(app: Any, neo4j_driver: Any, owner: str) -> Page:
    """The test owner's Memory page, signed in with every scope."""
    return make_page(app, neo4j_driver, owner, ("read", "write", "curate", "admin"))


@pytest.fixture
def rest(client: TestClient, neo4j_driver: Any, owner: str) -> Api:
    """The same owner over REST, to set up data and to check the page against."""
    return make_api(client, neo4j_driver, owner, ("read", "write", "curate", "admin"))
