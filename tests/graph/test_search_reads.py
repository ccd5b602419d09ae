"""Search reads against the global vector and full-text indexes (graph/read/search.py).

Rows are written by the committer with the real local model (all-MiniLM-L6-v2), so the
vectors are the ones production stores.
"""

from __future__ import annotations

import uuid

import pytest
from neo4j import Driver

from committer.apply import Committer
from committer.proposals import Assertion, Provenance
from graph.cypher import entities as ec
from graph.cypher import episodes as pc
from graph.cypher import search as sc
from graph.cypher._fragments import on
from graph.embedding import LocalEmbedder
from graph.read import search as search_module
from graph.read.episodes import episode_lucene
from graph.read.reader import Reader
from graph.read.search import ANN_MIN, lucene_query, words
from graph.records import MemoryAccess
from graph.scope import Scope
from graph.time import AsOf

MODEL = LocalEmbedder.model


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


@pytest.fixture
def committer(neo4j_driver: Driver, embedder: LocalEmbedder) -> Committer:
    return Committer(neo4j_driver, embedder=embedder)


def located(committer: Committer, owner: str, name: str, city: str) -> str:
    """Create an entity `name` of `owner` living in `city`; return its id."""
    entity = committer.create_entity(owner, name, "person")
    committer.assert_fact(
        owner,
        Assertion(
            entity_id=entity.id,
            attribute="location",
            value=city,
            provenance=Provenance(source="user_edit"),
        ),
    )
    return entity.id


def test_other_owners_crowding_the_index_fall_back_to_the_exact_ranking(
    committer: Committer, neo4j_driver: Driver, embedder: LocalEmbedder, owner: str
) -> None:
    """More than `ANN_MIN` rows of another owner sit nearer the query than the caller's
    only row, so the over-fetched nearest rows hold none of the caller's: the reader
    ranks the caller's rows exactly and still finds it."""
    crowd = f"owner-{uuid.uuid4().hex}"
    ids = [committer.create_entity(crowd, "Ana", "person").id for _ in range(ANN_MIN + 20)]
    committer.assert_facts(
        crowd,
        [
            Assertion(
                entity_id=i,
                attribute="location",
                value="Porto",
                provenance=Provenance(source="user_edit"),
            )
            for i in ids
        ],
    )
    mine = located(committer, owner, "Ana", "Lisbon")
    [query] = embedder.embed(["Ana location Porto"])
    hits, path = Reader(neo4j_driver).semantic(
        Scope(owner), query, MODEL, AsOf.at(), 5, exact_cap=0
    )
    assert path == "exact"
    assert [(h.entity.id, h.fact.value) for h in hits] == [(mine, "Lisbon")]
    assert 0.5 < hits[0].score < 1.0


def test_the_index_answers_when_the_callers_rows_are_nearest(
    committer: Committer, neo4j_driver: Driver, embedder: LocalEmbedder, owner: str
) -> None:
    """A query nearest to the caller's own row is answered from the vector index, with
    the same score the exact ranking gives."""
    mine = located(committer, owner, "Zephyrine Okonkwo-Lindqvist", "a lighthouse on Svalbard")
    [query] = embedder.embed(["Zephyrine Okonkwo-Lindqvist location a lighthouse on Svalbard"])
    reader = Reader(neo4j_driver)
    hits, path = reader.semantic(Scope(owner), query, MODEL, AsOf.at(), 1, exact_cap=0)
    assert path == "index" and [h.entity.id for h in hits] == [mine]
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)


def test_rows_of_another_model_are_never_compared(
    committer: Committer, neo4j_driver: Driver, embedder: LocalEmbedder, owner: str
) -> None:
    """Only rows embedded by the query's model are ranked: under another model's id the
    same vectors find nothing."""
    located(committer, owner, "Ana", "Porto")
    [query] = embedder.embed(["where does Ana live"])
    reader = Reader(neo4j_driver)
    assert reader.semantic(Scope(owner), query, "openai:other", AsOf.at(), 5)[0] == []
    assert len(reader.semantic(Scope(owner), query, MODEL, AsOf.at(), 5)[0]) == 1


def test_shared_entities_are_searched_and_nothing_else_of_their_owner(
    committer: Committer, neo4j_driver: Driver, embedder: LocalEmbedder, owner: str
) -> None:
    """An entity another owner shares with the caller (`Scope.shared`) is found by both
    lists; that owner's other entities are not."""
    friend = f"owner-{uuid.uuid4().hex}"
    shared = located(committer, friend, "Ana", "Porto")
    located(committer, friend, "Ana", "Berlin")
    scope = Scope(owner, shared=(shared,))
    reader = Reader(neo4j_driver)
    [query] = embedder.embed(["where does Ana live"])
    semantic, _ = reader.semantic(scope, query, MODEL, AsOf.at(), 5)
    assert [h.fact.value for h in semantic] == ["Porto"]
    assert [h.fact.value for h in reader.fulltext(scope, "Ana Porto Berlin", AsOf.at(), 5)] == [
        "Porto"
    ]
    assert reader.fulltext(Scope(owner), "Ana Porto Berlin", AsOf.at(), 5) == []


def test_restricted_access_filters_both_lists(
    committer: Committer, neo4j_driver: Driver, embedder: LocalEmbedder, owner: str
) -> None:
    """A scope restricted to the area `work` sees the occupation, not the location."""
    ana = located(committer, owner, "Ana", "Porto")
    committer.assert_fact(
        owner,
        Assertion(
            entity_id=ana,
            attribute="occupation",
            value="nurse",
            provenance=Provenance(source="user_edit"),
        ),
    )
    scope = Scope(owner, MemoryAccess("restricted", ("work",), ("user_edit",)))
    reader = Reader(neo4j_driver)
    [query] = embedder.embed(["where does Ana live"])
    assert [h.fact.value for h in reader.semantic(scope, query, MODEL, AsOf.at(), 5)[0]] == [
        "nurse"
    ]
    assert [h.fact.value for h in reader.fulltext(scope, "Ana", AsOf.at(), 5)] == ["nurse"]
    closed = Scope(owner, MemoryAccess("none"))
    assert reader.semantic(closed, query, MODEL, AsOf.at(), 5)[0] == []
    assert reader.fulltext(closed, "Ana", AsOf.at(), 5) == []


def test_words_fold_accents_and_case_and_drop_stop_words() -> None:
    """The query's words are what the index's analyzer keeps."""
    assert words("Where is the Café in ZÜRICH? café!") == ["where", "cafe", "zurich"]
    assert words("the of and") == []


def test_lucene_query_is_narrowed_to_the_caller_and_quotes_nothing_of_the_query() -> None:
    """Lucene operators in the query are not words; the owner and the shared entities
    narrow the query; an owner id the analyzer cannot phrase-match leaves it un-narrowed."""
    scope = Scope("owner-1", shared=("ent_a", "ent_b"))
    assert lucene_query('Ana* AND "Porto" OR -x:y', scope) == (
        '+search_text:(ana porto x y) +(owner:"owner-1" entity_id:"ent_a" entity_id:"ent_b")'
    )
    assert lucene_query("the", scope) is None
    assert lucene_query("Ana", Scope('we"ird')) == "+search_text:(ana)"
    assert lucene_query("Ana", Scope("the")) == "+search_text:(ana)"


def test_episode_query_asks_accented_words_in_both_forms() -> None:
    """`episode_text` stems (english) but does not fold accents: a word written with accents
    is asked folded and as written, so "Zürich" finds both spellings; a listing's filter
    needs one form of each word."""
    assert episode_lucene("Café in Zürich", "o1") == (
        '+search_text:(cafe café zurich zürich) +owner:"o1"'
    )
    assert episode_lucene("Zürich cats", "o1", every=True) == (
        '+search_text:(zurich zürich) +search_text:(cats) +owner:"o1"'
    )
    assert episode_lucene("the", "o1") is None


def test_fulltext_reads_the_best_hits_first_and_all_when_too_few_are_visible(
    committer: Committer, neo4j_driver: Driver, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Full-text search filters only Lucene's best `fulltext_scan(k)` hits by time and
    access (FULLTEXT_TOP), and reads every hit (FULLTEXT) only when fewer than k of those
    are visible and Lucene had more: either way the answer is the one reading every hit
    gives, now and as of the past. The entity's 11 superseded rows say "harbour" three
    times, so they are Lucene's best hits and the visible ones come after them."""
    boat = committer.create_entity(owner, "Quillon", "person").id
    past = AsOf.at()
    for n in range(12):  # 11 superseded rows and one current
        if n == 6:
            past = AsOf.at()
        committer.assert_fact(
            owner,
            Assertion(
                entity_id=boat,
                attribute="location",
                value=f"harbour harbour harbour quay {n}",
                provenance=Provenance(source="user_edit"),
            ),
        )
    for name in ("Ilse", "Marten", "Odile"):
        located(committer, owner, name, "the old harbour")
    reader = Reader(neo4j_driver)
    calls: list[str] = []
    original = Reader._rows

    def spy(self: Reader, query: str, **params: object) -> list[object]:
        if params.get("owner") == owner:  # not another test's app warming up meanwhile
            calls.append(
                "top" if query == sc.FULLTEXT_TOP else "all" if query == sc.FULLTEXT else ""
            )
        return original(self, query, **params)

    def ids(k: int, as_of: AsOf, scan_min: int, per: int) -> list[str]:
        monkeypatch.setattr(search_module, "SCAN_MIN", scan_min)
        monkeypatch.setattr(search_module, "SCAN_PER_RESULT", per)
        return [h.fact.id for h in reader.fulltext(Scope(owner), "harbour", as_of, k)]

    for as_of in (AsOf.at(), past):
        everything = ids(3, as_of, 10_000, 1)
        assert len(everything) == (1 if as_of is past else 3)  # the others came later
        monkeypatch.setattr(Reader, "_rows", spy)
        calls.clear()
        assert ids(3, as_of, 2, 1) == everything  # 3 hits read: too few visible, all read
        assert calls == ["top", "all"]
        calls.clear()
        assert ids(20, as_of, 200, 8) == ids(20, as_of, 10_000, 1)  # Lucene had fewer: one read
        assert calls[0] == "top" and "all" not in calls
        monkeypatch.setattr(Reader, "_rows", original)
    assert sc.FULLTEXT_TOP.count("{limit: $scan}") == 1
    assert pc.EPISODES_FULLTEXT_TOP.count("{limit: $scan}") == 1


def test_a_search_without_a_hit_reads_once(
    committer: Committer, neo4j_driver: Driver, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by bench/search_crowd.py: the best-hits query answered no row at all both when
    Lucene had no hit and when none of its hits were visible, so a search with no hit (an
    owner with no matching episode, every time) read everything again. Now it reads once,
    facts and episodes alike; a search whose hits are all invisible still reads them all."""
    located(committer, owner, "Ilse", "the old harbour")
    reader = Reader(neo4j_driver)
    ran: list[str] = []
    original = Reader._rows

    def spy(self: Reader, query: str, **params: object) -> list[object]:
        if params.get("owner") == owner:  # not another test's app warming up meanwhile
            ran.append(query)
        return original(self, query, **params)

    monkeypatch.setattr(Reader, "_rows", spy)
    assert reader.fulltext(Scope(owner), "lighthouse", AsOf.at(), 5) == []
    assert reader.episode_fulltext(Scope(owner), "lighthouse", AsOf.at(), 5) == []
    assert ran == [sc.FULLTEXT_TOP, pc.EPISODES_FULLTEXT_TOP]
    ran.clear()
    closed = Scope(owner, MemoryAccess("none"))
    monkeypatch.setattr(search_module, "SCAN_MIN", 1)
    monkeypatch.setattr(search_module, "SCAN_PER_RESULT", 1)
    assert reader.fulltext(closed, "harbour", AsOf.at(), 1) == []
    assert ran == [sc.FULLTEXT_TOP, sc.FULLTEXT]  # one hit, not visible: Lucene may have more


def test_search_hits_decode_entities_as_the_node_does(
    committer: Committer, neo4j_driver: Driver, owner: str
) -> None:
    """Search reads an entity's columns with integer times (ENTITY_MAP: decoding a DATETIME
    cost ~0.2 ms in the driver, 100 of them a search); the record is the one the whole
    node gives, merged (`merged_at`) and renamed (`names_since`) entities too, and a hit
    found as of before the merge shows its entity unmerged."""
    ilse = located(committer, owner, "Ilse", "the old harbour")
    twin = located(committer, owner, "Ilse Brandt", "the new harbour")
    before = AsOf.at()
    committer.merge(owner, twin, ilse)
    rows = neo4j_driver.execute_query(
        "MATCH (e:Entity) WHERE e.owner = $owner RETURN e AS node, "
        + on(ec.ENTITY_MAP, "e")
        + " AS columns",
        owner=owner,
    ).records
    records = [
        (ec.entity_from_record(r["node"]), ec.entity_from_record(r["columns"])) for r in rows
    ]
    assert all(node == columns for node, columns in records)
    assert {r[0].id for r in records if r[0].merged_at} == {twin}
    assert {r[0].id for r in records if r[0].names_since} == {ilse}
    hits = Reader(neo4j_driver).fulltext(Scope(owner), "new harbour", before, 5)
    assert (hits[0].entity.id, hits[0].entity.merged_into) == (twin, None)


def test_a_hit_decodes_its_row_only_when_asked_and_alike(
    committer: Committer, neo4j_driver: Driver, owner: str
) -> None:
    """A hit read from the store keeps its row undecoded until `fact` or `entity` is asked
    for (graph/read/search.py Hit): its id, valid_from, run and message, read without
    decoding, are the decoded row's, and two reads of one row are equal hits."""
    ana = located(committer, owner, "Ana", "Porto")
    reader = Reader(neo4j_driver)
    first, again = (reader.fulltext(Scope(owner), "Ana Porto", AsOf.at(), 5) for _ in range(2))
    [hit] = first
    light = (hit.id, hit.valid_from, hit.run_id, hit.message_id)
    assert light == (hit.fact.id, hit.fact.valid_from, hit.fact.run_id, hit.fact.message_id)
    assert hit.entity.id == ana and hit.fact.value == "Porto"
    assert first == again
