"""Curator test fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from neo4j import Driver

from committer.apply import Committer
from curator.worker import CuratorWorker
from graph.read.reader import Reader
from tests.fakes.openai import FakeOpenAI


@pytest.fixture
def llm() -> Iterator[FakeOpenAI]:
    """A started `FakeOpenAI`, shut down after the test."""
    fake = FakeOpenAI().start()
    yield fake
    fake.stop()


@pytest.fixture
def committer(neo4j_driver: Driver) -> Committer:
    """A committer on the session's Neo4j."""
    return Committer(neo4j_driver)


@pytest.fixture
def reader(neo4j_driver: Driver) -> Reader:
    """A reader on the session's Neo4j."""
    return Reader(neo4j_driver)


@pytest.fixture
def quiet_queue(committer: Committer) -> None:
    """Curate whatever earlier tests left claimable, so claims here find this test's runs
    (the curator claims any owner's run: run such tests on a Neo4j of your own)."""
    CuratorWorker(committer).drain()
