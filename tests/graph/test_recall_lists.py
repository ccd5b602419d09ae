"""A search's four candidate lists in one query (graph/read/recall.py `Reader.recall`,
graph/cypher/recall.py RECALL_LISTS): when the owner's vectors are held in the process, the
cache's candidates of both kinds and both full-text lists are read together, and the answer
is exactly what `fulltext`, `episode_fulltext` and `nearest` answer one by one."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from neo4j import Driver

from committer.apply import Committer
from committer.proposals import Assertion, Provenance
from graph.cypher import episodes as pc
from graph.cypher import search as sc
from graph.cypher import vectors as vc
from graph.cypher.recall import RECALL_LISTS
from graph.embedding import LocalEmbedder
from graph.read.reader import Reader
from graph.read.recall import Recalled
from graph.read.vectors import VectorCache
from graph.records import MemoryAccess
from graph.scope import Scope
from graph.time import AsOf
from tests.graph.test_episode_cache import SAID, say

MODEL = LocalEmbedder.model
ASKED = ("who has a cat", "a trip to Lisbon", "lives in Porto", "the the of")


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


def one_by_one(
    reader: Reader, scope: Scope, text: str, vector: list[float], as_of: AsOf, k: int
) -> Recalled:
    """The four lists as search read them before `recall`: one query each."""
    with reader.snapshot() as snap:
        fact_text = snap.fulltext(scope, text, as_of, k, vector, MODEL)
        said_text = snap.episode_fulltext(scope, text, as_of, k, vector, MODEL)
        (fact_near, _), (said_near, _) = snap.nearest(scope, vector, MODEL, as_of, k)
    return Recalled(fact_near, fact_text, said_near, said_text)


def test_one_query_answers_what_each_list_answers(
    neo4j_driver: Driver, embedder: LocalEmbedder, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same hits, scores and order in each list, for the owner's full scope and for one that
    keeps untrusted episodes out (the semantic list then falls back to the exact ranking);
    with words, one RECALL_LISTS, which reads the cache's key too (then only the exact
    fallback, when the scope's filter left too few candidates); a query of stop words
    reads the key, then the semantic lists (NEAREST_OF_BOTH) and no full-text list."""
    committer = Committer(neo4j_driver, embedder=embedder)
    for i, city in enumerate(("Porto", "Lisbon", "Kyoto", "Lima")):
        entity = committer.create_entity(owner, f"Person{i}", "person")
        committer.assert_fact(
            owner,
            Assertion(
                entity_id=entity.id,
                attribute="location",
                value=city,
                provenance=Provenance(source="user_edit"),
            ),
        )
    say(neo4j_driver, embedder, owner, SAID)
    noise = tuple(f"Note {i}: the cat and the trip to Lisbon." for i in range(30))
    say(neo4j_driver, embedder, owner, noise, run="r2", source="untrusted")
    cached = Reader(neo4j_driver, vectors=VectorCache())
    trusted = Scope(owner, MemoryAccess("restricted", ("conversation",), ("user_stated",)))
    ran: list[str] = []
    rows = Reader._rows

    def recorded(self: Reader, q: str, **params: Any) -> list[Any]:
        if params.get("owner") == owner:  # not another test's app warming up meanwhile
            ran.append(q)
        return rows(self, q, **params)

    monkeypatch.setattr(Reader, "_rows", recorded)
    filled: set[str] = set()
    for scope in (Scope(owner), trusted):
        for text in ASKED:
            [vector] = embedder.embed([text])
            as_of = AsOf.at()
            before = one_by_one(cached, scope, text, vector, as_of, 3)
            ran.clear()
            with cached.snapshot() as snap:
                got = snap.recall(scope, text, as_of, 3, vector, MODEL)
            assert got == before, (scope, text)
            if text == "the the of":
                assert ran[:2] == [vc.VECTORS_KEY, vc.NEAREST_OF_BOTH]
                assert got.fact_text == got.said_text == []
            else:  # the key read with the lists: the vectors held were current
                assert ran[0] == RECALL_LISTS and vc.VECTORS_KEY not in ran
                filled |= {n for n in Recalled.__slots__ if getattr(got, n)}
    assert filled == set(Recalled.__slots__)  # every list answered something
    assert sc.FULLTEXT_TOP not in ran and pc.EPISODES_FULLTEXT_TOP not in ran


def test_without_a_vector_or_a_cache_the_lists_are_read_one_by_one(
    neo4j_driver: Driver, embedder: LocalEmbedder, owner: str
) -> None:
    """No vector: the two full-text lists only (the semantic lists empty). No cache: the
    four lists as each method reads them alone."""
    say(neo4j_driver, embedder, owner, SAID)
    plain = Reader(neo4j_driver)
    [vector] = embedder.embed(["a trip to Lisbon"])
    as_of = AsOf.at()
    got = plain.recall(Scope(owner), "a trip to Lisbon", as_of, 3)
    assert got.fact_near == got.said_near == []
    assert got.said_text == plain.episode_fulltext(Scope(owner), "a trip to Lisbon", as_of, 3)
    assert got.said_text[0].episode.text == "Lisbon two years ago was the best trip I have had."
    with_vector = plain.recall(Scope(owner), "a trip to Lisbon", as_of, 3, vector, MODEL)
    assert with_vector == one_by_one(plain, Scope(owner), "a trip to Lisbon", vector, as_of, 3)


def test_vectors_held_at_an_old_key_are_checked_and_taken_again(
    neo4j_driver: Driver, embedder: LocalEmbedder, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vectors held were read before a commit that adds the best match: RECALL_LISTS
    reads the new key, the candidates are taken again from the vectors brought up to date,
    and the answer is what a reader without a cache gives: the new episode first."""
    say(neo4j_driver, embedder, owner, SAID)
    Committer(neo4j_driver, embedder=embedder).create_entity(owner, "Ana", "person")
    cached, plain = Reader(neo4j_driver, vectors=VectorCache()), Reader(neo4j_driver)
    text = "a trip to Lisbon"
    [vector] = embedder.embed([text])
    with cached.snapshot() as snap:
        snap.recall(Scope(owner), text, AsOf.at(), 3, vector, MODEL)  # the cache fills
    say(neo4j_driver, embedder, owner, ("Our trip to Lisbon: a trip I loved.",), run="r2")
    as_of = AsOf.at()
    ran: list[str] = []
    rows = Reader._rows

    me = threading.get_ident()

    def recorded(self: Reader, q: str, **params: Any) -> list[Any]:
        if threading.get_ident() == me:  # not another test's app warming up meanwhile
            ran.append(q)
        return rows(self, q, **params)

    monkeypatch.setattr(Reader, "_rows", recorded)
    with cached.snapshot() as snap:
        got = snap.recall(Scope(owner), text, as_of, 3, vector, MODEL)
    monkeypatch.undo()
    assert ran[0] == RECALL_LISTS and vc.VECTORS_KEY not in ran
    assert vc.EPISODE_VECTORS_SINCE in ran and ran[-1] == vc.NEAREST_OF_BOTH
    assert got == one_by_one(plain, Scope(owner), text, vector, as_of, 3)
    assert got.said_near[0].episode.text == "Our trip to Lisbon: a trip I loved."
