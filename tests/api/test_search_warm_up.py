"""Search plans its queries before a user's first search (api/chat/warm_search.py): one
search for nobody and the vector cache's queries, in the background once start-up is done.
A failure is logged, never raised."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import GraphDatabase

from api.chat import warm_search
from api.chat.prefetch.warm import WARM_OWNER
from api.http.app import create_app
from api.http.settings import Settings
from graph.cypher import episodes as pc
from graph.embedding import Embedder
from graph.read.reader import Reader
from graph.read.vectors import EPISODES, FACTS, VectorCache


def test_start_up_warms_search_in_the_background(
    neo4j_driver: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app's start-up runs the warm-up once, with its own reader and embedder; the
    event it keeps is set once the warm-up has answered."""
    calls: list[tuple[Any, Any, bool]] = []
    real = warm_search.warm_up

    def spy(reader: Reader, embedder: Embedder | None) -> bool:
        calls.append((reader, embedder, real(reader, embedder)))
        return calls[-1][2]

    monkeypatch.setattr(warm_search, "warm_up", spy)
    application = create_app(Settings(curator_in_process=False), neo4j_driver)
    with TestClient(application):
        assert application.state.search_warm_up.wait(120)
    assert [(r, e, ok) for r, e, ok in calls] == [
        (application.state.reader, application.state.embedder, True)
    ]


def test_the_warm_up_never_calls_the_embedder_and_holds_nothing(neo4j_driver: Any) -> None:
    """The warm-up searches with a stand-in of the embedder's model id and size (an
    endpoint is never asked at start-up, found when it was: tests/api/test_search_modes.py
    saw the warm-up's request first), runs the vector cache's queries for nobody
    (`plan_recall`), answers True, and the cache holds nothing for nobody."""

    class Counting:
        model = "local:all-MiniLM-L6-v2"
        dimensions = 384
        calls = 0

        def warm(self) -> None:
            """Nothing to load."""

        def embed(self, texts: Any) -> list[list[float]]:
            Counting.calls += 1
            return [[0.1] * 384 for _ in texts]

    cache = VectorCache()
    assert warm_search.warm_up(Reader(neo4j_driver, vectors=cache), Counting()) is True
    assert Counting.calls == 0
    assert cache.get(WARM_OWNER, Counting.model, FACTS) is None
    assert cache.get(WARM_OWNER, Counting.model, EPISODES) is None


def test_a_store_that_cannot_be_reached_is_logged_not_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """With nothing listening, the warm-up answers False and logs a warning; the event is
    set all the same."""
    with GraphDatabase.driver("bolt://127.0.0.1:1", auth=None) as driver:
        reader = Reader(driver, retry=False)
        with caplog.at_level(logging.WARNING, logger="worldstate.search"):
            assert warm_search.warm_up(reader, None) is False
            assert warm_search.start_warm_up(reader, None).wait(60)
    assert sum("search warm-up failed" in r.message for r in caplog.records) == 2


def test_the_warm_up_plans_the_read_of_the_messages_next_to_the_best(
    neo4j_driver: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nobody's search has no best results, so the warm-up asks for the messages next to
    one itself (EPISODES_AT; here without an embedder), and still answers True."""
    asked: list[str] = []
    real = Reader._rows

    def spy(self: Reader, query: str, **params: Any) -> list[Any]:
        if params.get("owner") == WARM_OWNER:
            asked.append(query)
        return real(self, query, **params)

    monkeypatch.setattr(Reader, "_rows", spy)
    assert warm_search.warm_up(Reader(neo4j_driver), None) is True
    assert asked.count(pc.EPISODES_AT) == 1
