"""Semantic search of episodes from owners' vectors held in the process (graph/read/vectors.py,
kind `episode`).

The cache only picks candidates; the store checks them (graph/cypher/vectors.py
EPISODES_NEAREST_OF). These tests show it answers what the store's exact ranking answers,
keeps owners apart, stays current across commits and forgets on both time axes (CONTRACT
§12), reloads after the backfill, honours memory access, and leaves owners too big for it
to the store.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from neo4j import Driver

from committer.apply import Committer
from committer.proposals import Assertion, Provenance
from committer.search_index import backfill
from graph.cypher import vectors as vc
from graph.embedding import LocalEmbedder
from graph.read.episodes import EpisodeHit
from graph.read.reader import Reader
from graph.read.vectors import EPISODES, VectorCache
from graph.records import MemoryAccess
from graph.scope import Scope
from graph.time import AsOf, utcnow
from graph.write.writer import Writer

MODEL = LocalEmbedder.model
SAID = (
    "I went hiking in the Dolomites with my sister.",
    "My cat Miso hates thunderstorms.",
    "We booked a table at the ramen place for Friday.",
    "I started learning the cello last month.",
    "The plumber comes on Tuesday morning.",
    "Lisbon two years ago was the best trip I have had.",
)


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


def say(
    driver: Driver,
    embedder: LocalEmbedder | None,
    owner: str,
    texts: tuple[str, ...],
    *,
    run: str = "r1",
    said_at: datetime | None = None,
    source: str = "user_stated",
    withheld: bool = False,
) -> list[str]:
    """Record one episode per text in one commit (with vectors when `embedder` is given);
    return their ids."""
    vectors = embedder.embed(list(texts)) if embedder is not None else [None] * len(texts)
    at = said_at or utcnow() - timedelta(minutes=1)
    made = [
        {
            "id": f"ep-{owner}-{run}-{i}",
            "chat_id": "c1",
            "run_id": f"{owner}-{run}",
            "message_id": f"m{i}",
            "seq": i,
            "part": "own",
            "surface": "chat",
            "role": "user",
            "speaker_id": None,
            "text": text,
            "said_at": at,
            "source": source,
            "search_text": text,
            "embedding": vector,
            "withheld": withheld,
        }
        for i, (text, vector) in enumerate(zip(texts, vectors, strict=True))
    ]

    def work(w: Any) -> None:
        w.ensure_owner(owner, utcnow())
        t = w.begin_commit(owner, utcnow())
        w.create_episodes(owner, made, t, MODEL if embedder is not None else None)

    Writer(driver).transaction(work)
    return [e["id"] for e in made]


def found(hits: list[EpisodeHit]) -> list[tuple[str, float, str]]:
    return [(h.episode.id, round(h.score, 6), h.text) for h in hits]


def test_the_cache_answers_what_the_exact_ranking_answers(
    neo4j_driver: Driver, embedder: LocalEmbedder, owner: str
) -> None:
    """Same episodes, same scores, same order, same records as the store's exact ranking;
    another owner's episodes with the same words are never among them."""
    say(neo4j_driver, embedder, owner, SAID)
    other = owner + "-other"
    say(neo4j_driver, embedder, other, SAID)
    cache = VectorCache()
    cached, plain = Reader(neo4j_driver, vectors=cache), Reader(neo4j_driver)
    for text in ("who has a cat", "music lessons", "a trip to Portugal"):
        [query] = embedder.embed([text])
        hits, path = cached.episode_semantic(Scope(owner), query, MODEL, AsOf.at(), 4)
        exact, how = plain.episode_semantic(Scope(owner), query, MODEL, AsOf.at(), 4)
        assert (path, how) == ("cache", "small")
        assert found(hits) == found(exact) and len(hits) == 4
        assert [h.episode for h in hits] == [h.episode for h in exact]
        assert {h.episode.owner for h in hits} == {owner}
    assert cache.get(owner, MODEL, EPISODES) is not None
    assert cache.get(owner, MODEL) is None  # the fact rows are an entry of their own


def test_new_and_forgotten_episodes_on_both_axes(
    neo4j_driver: Driver, embedder: LocalEmbedder, owner: str
) -> None:
    """An episode recorded after the cache loaded is found; a forgotten one is gone now but
    found at a `known_at` before the forget; one said later than `valid_at` is not visible
    at it (CONTRACT §12)."""
    [hiking, *_] = say(neo4j_driver, embedder, owner, SAID)
    reader = Reader(neo4j_driver, vectors=VectorCache())
    [parrot] = embedder.embed(["our pet parrot"])
    reader.episode_semantic(Scope(owner), parrot, MODEL, AsOf.at(), 2)  # loads the cache
    before = utcnow()
    said_at = utcnow()
    [newcomer] = say(
        neo4j_driver,
        embedder,
        owner,
        ("Our new pet parrot Kiwi says hello.",),
        run="r2",
        said_at=said_at,
    )
    Committer(neo4j_driver).forget_episode(owner, hiking)
    hits, path = reader.episode_semantic(Scope(owner), parrot, MODEL, AsOf.at(), 2)
    assert path == "cache" and hits[0].episode.id == newcomer
    [dolomites] = embedder.embed(["hiking in the mountains"])
    now = reader.episode_semantic(Scope(owner), dolomites, MODEL, AsOf.at(), 20)[0]
    assert hiking not in {h.episode.id for h in now} and len(now) == len(SAID)
    then = reader.episode_semantic(Scope(owner), dolomites, MODEL, AsOf(before, before), 1)[0]
    assert [h.episode.id for h in then] == [hiking]
    earlier = said_at - timedelta(microseconds=1)
    valid = reader.episode_semantic(Scope(owner), parrot, MODEL, AsOf(earlier, utcnow()), 20)[0]
    assert newcomer not in {h.episode.id for h in valid}
    plain = Reader(neo4j_driver)
    for as_of in (AsOf.at(), AsOf(before, before), AsOf(earlier, utcnow())):
        assert found(reader.episode_semantic(Scope(owner), parrot, MODEL, as_of, 3)[0]) == found(
            plain.episode_semantic(Scope(owner), parrot, MODEL, as_of, 3)[0]
        )


def test_vectors_backfilled_later_reload_the_owner(
    neo4j_driver: Driver, embedder: LocalEmbedder, owner: str
) -> None:
    """Episodes written without an embedder have no vector; the backfill sets them without
    a commit and bumps `search_rev`, so the cache loads the owner again (found: the
    episode backfill did not bump it, and a cache loaded before it never saw them)."""
    say(neo4j_driver, None, owner, SAID[:2])
    reader = Reader(neo4j_driver, vectors=VectorCache())
    [query] = embedder.embed(["who has a cat"])
    assert reader.episode_semantic(Scope(owner), query, MODEL, AsOf.at(), 3) == ([], "cache")
    backfill(neo4j_driver, None, embedder, owners=[owner])
    hits, path = reader.episode_semantic(Scope(owner), query, MODEL, AsOf.at(), 3)
    assert path == "cache" and "Miso" in hits[0].episode.text


def test_memory_access_is_decided_by_the_store(
    neo4j_driver: Driver, embedder: LocalEmbedder, owner: str
) -> None:
    """Whatever the cache proposes: a scope without area `conversation` sees no episode, a
    scope allowing only `user_stated` sees no untrusted one, a closed scope sees none."""
    say(neo4j_driver, embedder, owner, SAID[:3])
    [untrusted] = say(
        neo4j_driver,
        embedder,
        owner,
        ("The cat Miso sleeps all day.",),
        run="r2",
        source="untrusted",
    )
    reader = Reader(neo4j_driver, vectors=VectorCache())
    [query] = embedder.embed(["a cat"])
    full = reader.episode_semantic(Scope(owner), query, MODEL, AsOf.at(), 10)[0]
    assert untrusted in {h.episode.id for h in full} and len(full) == 4
    trusted = Scope(owner, MemoryAccess("restricted", ("conversation",), ("user_stated",)))
    hits = reader.episode_semantic(trusted, query, MODEL, AsOf.at(), 10)[0]
    assert len(hits) == 3 and untrusted not in {h.episode.id for h in hits}
    work = Scope(owner, MemoryAccess("restricted", ("work",), ("user_stated", "untrusted")))
    assert reader.episode_semantic(work, query, MODEL, AsOf.at(), 10)[0] == []
    closed = Scope(owner, MemoryAccess("none"))
    assert reader.episode_semantic(closed, query, MODEL, AsOf.at(), 10)[0] == []


def test_too_few_visible_candidates_fall_back_to_the_exact_ranking(
    neo4j_driver: Driver, embedder: LocalEmbedder, owner: str
) -> None:
    """When the scope's filter drops candidates and more episodes are visible than were
    proposed, the exact ranking answers, with what it answers without the cache."""
    texts = tuple(f"Note {i} about the garden and the roses." for i in range(25))
    say(neo4j_driver, embedder, owner, texts, source="untrusted")
    say(neo4j_driver, embedder, owner, ("Roses need pruning in March.",), run="r2")
    reader, plain = Reader(neo4j_driver, vectors=VectorCache()), Reader(neo4j_driver)
    [query] = embedder.embed(["garden roses"])
    trusted = Scope(owner, MemoryAccess("restricted", ("conversation",), ("user_stated",)))
    hits, path = reader.episode_semantic(trusted, query, MODEL, AsOf.at(), 2)
    assert path == "exact" and [h.episode.text for h in hits] == ["Roses need pruning in March."]
    assert found(hits) == found(plain.episode_semantic(trusted, query, MODEL, AsOf.at(), 2)[0])


def test_withheld_episodes_among_a_full_scopes_few_candidates_fall_back(
    neo4j_driver: Driver, embedder: LocalEmbedder, owner: str
) -> None:
    """A scope of full access is proposed only `k + CACHE_MARGIN` candidates (graph/read/
    base.py picks_of). When withheld episodes (CONTRACT §3) crowd them so that fewer than
    `k` pass the store's check, the exact ranking answers, what it answers without the
    cache; with none withheld, the cache's few candidates answer."""
    texts = tuple(f"Note {i} about the garden and the roses." for i in range(12))
    say(neo4j_driver, embedder, owner, texts, withheld=True)
    kept = ("Roses need pruning in March.", "The tulips came up early this spring.")
    say(neo4j_driver, embedder, owner, kept, run="r2")
    reader, plain = Reader(neo4j_driver, vectors=VectorCache()), Reader(neo4j_driver)
    [query] = embedder.embed(["garden roses"])
    hits, path = reader.episode_semantic(Scope(owner), query, MODEL, AsOf.at(), 2)
    assert path == "exact" and sorted(h.episode.text for h in hits) == sorted(kept)
    assert found(hits) == found(plain.episode_semantic(Scope(owner), query, MODEL, AsOf.at(), 2)[0])
    other = owner + "-open"
    say(neo4j_driver, embedder, other, texts)
    hits, path = reader.episode_semantic(Scope(other), query, MODEL, AsOf.at(), 2)
    assert path == "cache" and len(hits) == 2
    assert found(hits) == found(plain.episode_semantic(Scope(other), query, MODEL, AsOf.at(), 2)[0])


def test_an_owner_too_big_for_the_cache_is_left_to_the_store(
    neo4j_driver: Driver, embedder: LocalEmbedder, owner: str
) -> None:
    """Past `owner_rows` episodes the owner is not held, and the store ranks them."""
    say(neo4j_driver, embedder, owner, SAID)
    cache = VectorCache(owner_rows=3)
    reader = Reader(neo4j_driver, vectors=cache)
    [query] = embedder.embed(["who has a cat"])
    hits, path = reader.episode_semantic(Scope(owner), query, MODEL, AsOf.at(), 1)
    assert path == "small" and "Miso" in hits[0].episode.text
    assert cache.too_big(owner, MODEL, EPISODES) and cache.get(owner, MODEL, EPISODES) is None
    assert not cache.too_big(owner, MODEL)


def test_a_search_reads_the_cache_key_once(
    neo4j_driver: Driver, embedder: LocalEmbedder, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In one snapshot the fact rows and the episodes share the owner's cache key (one
    round trip less a search); a new snapshot reads it again."""
    say(neo4j_driver, embedder, owner, SAID)
    reader = Reader(neo4j_driver, vectors=VectorCache())
    [query] = embedder.embed(["who has a cat"])
    for _ in range(2):
        with reader.snapshot() as snap:
            ran: list[str] = []
            rows = snap._rows

            def recorded(q: str, **params: object) -> list[object]:
                ran.append(q)  # noqa: B023  # each snapshot's own list
                return rows(q, **params)  # noqa: B023

            monkeypatch.setattr(snap, "_rows", recorded)
            snap.semantic(Scope(owner), query, MODEL, AsOf.at(), 3)
            hits, path = snap.episode_semantic(Scope(owner), query, MODEL, AsOf.at(), 3)
            assert path == "cache" and len(hits) == 3
            assert ran.count(vc.VECTORS_KEY) == 1


def test_both_lists_in_one_round_trip_answer_what_each_answers(
    neo4j_driver: Driver, embedder: LocalEmbedder, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`nearest` checks the fact rows' and the episodes' candidates in one query
    (NEAREST_OF_BOTH) and answers exactly what `semantic` and `episode_semantic` answer
    without a cache: the same hits, scores and order, the exact fallback included (a
    scope that keeps the untrusted episodes out)."""
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
    reader, plain = Reader(neo4j_driver, vectors=VectorCache()), Reader(neo4j_driver)
    trusted = Scope(owner, MemoryAccess("restricted", ("conversation",), ("user_stated",)))
    ran: list[str] = []
    rows = Reader._rows

    def recorded(self: Reader, q: str, **params: object) -> list[object]:
        if params.get("owner") == owner:  # not another test's app warming up meanwhile
            ran.append(q)
        return rows(self, q, **params)

    monkeypatch.setattr(Reader, "_rows", recorded)
    hows = set()
    for scope in (Scope(owner), trusted):
        for text in ("who has a cat", "a trip to Portugal", "lives in Japan"):
            [query] = embedder.embed([text])
            with reader.snapshot() as snap:
                (facts, how), (said, said_how) = snap.nearest(scope, query, MODEL, AsOf.at(), 3)
            hows |= {how, said_how}
            assert facts == plain.semantic(scope, query, MODEL, AsOf.at(), 3)[0]
            assert said == plain.episode_semantic(scope, query, MODEL, AsOf.at(), 3)[0]
    assert hows == {"cache", "exact"}
    assert vc.NEAREST_OF not in ran and vc.EPISODES_NEAREST_OF not in ran
    assert ran.count(vc.NEAREST_OF_BOTH) == 6
