"""Fixtures of the fault tests: one Neo4j of their own for the session, killed and started
again by the tests (never the suite's shared one), and a `worldstate serve` over it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.faults.harness import OwnNeo4j, Serve, cli_env, own_neo4j, serve


@pytest.fixture(scope="session")
def faulty_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OwnNeo4j]:
    """A Neo4j the fault tests may SIGKILL; each test leaves it running when it ends."""
    with own_neo4j(tmp_path_factory.mktemp("faulty") / "neo4j") as store:
        yield store


@pytest.fixture(scope="session")
def faulty_serve(
    faulty_store: OwnNeo4j, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Serve]:
    """`worldstate serve` with `NEO4J_URI` set to `faulty_store` (no in-process curator)."""
    env = cli_env(curator_in_process="false") | {"NEO4J_URI": faulty_store.uri}
    with serve(tmp_path_factory.mktemp("serve") / "serve.log", env) as server:
        yield server


@pytest.fixture
def restarted(faulty_store: OwnNeo4j) -> Iterator[OwnNeo4j]:
    """`faulty_store`, started again at the end of the test if the test left it dead."""
    yield faulty_store
    instance = faulty_store.instance
    if instance is None or instance.process is None or instance.process.poll() is not None:
        faulty_store.start()
