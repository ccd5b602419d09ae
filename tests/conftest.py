"""Shared fixtures: one Neo4j per test session, a fresh owner id per test, hypothesis profile.

The Neo4j is, in this order: the server at `NEO4J_URI` (with `NEO4J_USER` and
`NEO4J_PASSWORD`); else a `neo4j:5.26-community` container when a Docker engine answers;
else the local provisioner (`graph.local.server`, Java 17 and Maven, no Docker) started
for this session in a temporary directory and stopped at its end. Tests share it, so
each test writes under its own `owner` id and never sees another test's data.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings as hypothesis_settings
from neo4j import Driver
from pydantic_settings import BaseSettings, SettingsConfigDict

from api.http.settings import Settings
from graph.driver import StoreTimeouts, connect
from graph.local.server import Neo4jLocalSettings, start, stop
from graph.schema import ensure_schema

if TYPE_CHECKING:
    from testcontainers.community.neo4j import Neo4jContainer

NEO4J_IMAGE = "neo4j:5.26-community"


class _SuiteSettings(BaseSettings):
    """Knobs of the test suite itself (environment, prefix `WORLDSTATE_`).

    Attributes:
        hypothesis_max_examples: examples per property (`WORLDSTATE_HYPOTHESIS_MAX_EXAMPLES`).
    """

    model_config = SettingsConfigDict(env_prefix="WORLDSTATE_", extra="ignore")

    hypothesis_max_examples: int = 50


def pytest_configure(config: pytest.Config) -> None:
    """Register and load the hypothesis profile "ci": no deadline (Neo4j round trips vary)."""
    hypothesis_settings.register_profile(
        "ci", deadline=None, max_examples=_SuiteSettings().hypothesis_max_examples
    )
    hypothesis_settings.load_profile("ci")


@dataclass(frozen=True, slots=True)
class Neo4jServer:
    """The session's Neo4j.

    Attributes:
        uri: Bolt URI.
        auth: `(user, password)`, or None when the server has authentication disabled.
        kind: where it came from: "env", "docker" or "local".
    """

    uri: str
    auth: tuple[str, str] | None
    kind: str


@pytest.fixture(scope="session")
def neo4j_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jServer]:
    """The session's Neo4j: `NEO4J_URI`, else Docker, else the local provisioner."""
    settings = Settings()
    if settings.neo4j_uri:
        auth = None
        if settings.neo4j_password is not None:
            auth = (settings.neo4j_user or "neo4j", settings.neo4j_password.get_secret_value())
        yield Neo4jServer(settings.neo4j_uri, auth, "env")
        return
    if _docker_answers():
        container = _neo4j_container()
        with container:
            yield Neo4jServer(
                container.get_connection_url(), (container.username, container.password), "docker"
            )
        return
    local = Neo4jLocalSettings()
    instance = start(
        tmp_path_factory.mktemp("neo4j"),
        heap=local.neo4j_heap,
        page_cache_mb=local.neo4j_page_cache_mb,
        cache_dir=local.neo4j_cache,
        detach=False,
    )
    try:
        yield Neo4jServer(instance.uri, None, "local")
    finally:
        stop(instance)


@pytest.fixture(scope="session")
def neo4j_uri(neo4j_server: Neo4jServer) -> str:
    """Bolt URI of the session's Neo4j."""
    return neo4j_server.uri


@pytest.fixture(scope="session")
def neo4j_driver(neo4j_server: Neo4jServer) -> Iterator[Driver]:
    """A driver for the session's Neo4j, closed at the end of the session.

    Its connect and pool-acquisition bounds are 10 s, not the service's 1 s: a busy test
    machine is not an outage (found: the oracle's hypothesis test failed as "flaky" on a
    1 s acquisition under load). Tests of the bounds themselves build their own drivers
    and servers with the service's settings (tests/faults/, test_prefetch_deadline.py)."""
    user, password = neo4j_server.auth if neo4j_server.auth else (None, None)
    timeouts = StoreTimeouts(connect_s=10.0, acquire_s=10.0, retry_s=10.0)
    with connect(neo4j_server.uri, user, password, timeouts) as driver:
        driver.verify_connectivity()
        ensure_schema(driver)
        yield driver


@pytest.fixture
def owner() -> str:
    """A fresh owner id for this test alone, so tests never see each other's data."""
    return f"owner-{uuid.uuid4().hex}"


def _docker_answers() -> bool:
    """Return True when a Docker engine answers a ping within a few seconds."""
    try:
        import docker  # type: ignore[import-untyped]  # noqa: PLC0415  # only with a Docker engine
    except ImportError:
        return False
    try:
        client = docker.from_env(timeout=3)
    except Exception:
        return False
    try:
        return bool(client.ping())
    except Exception:
        return False
    finally:
        with contextlib.suppress(Exception):
            client.close()


def _neo4j_container() -> Neo4jContainer:
    """Build (not start) the Neo4j container; the module moved in testcontainers 4.x."""
    try:
        from testcontainers.community.neo4j import Neo4jContainer  # noqa: PLC0415  # Docker only
    except ImportError:  # Older 4.x releases only have the deprecated path.
        from testcontainers.neo4j import Neo4jContainer  # noqa: PLC0415  # Docker only
    return Neo4jContainer(NEO4J_IMAGE, password="worldstate-test")
