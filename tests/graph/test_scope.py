"""Scope compiles to Cypher that means what `graph.scope.permits` says (CONTRACT §7).

Two properties: the predicates alone, evaluated by Neo4j on random fact shapes, agree
with `permits`; and every scoped Reader method, on a seeded store of two owners, returns
exactly the rows `permits` allows, for random memory access settings and shares.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from neo4j import Driver

from committer.apply import Committer
from committer.proposals import Assertion, Provenance
from graph.attributes import REGISTRY
from graph.cypher import facts as fc
from graph.errors import NotFound
from graph.read.reader import Reader
from graph.records import MemoryAccess
from graph.scope import ENTITY_VISIBLE, FACT_VISIBLE, Scope, params, permits
from graph.time import FAR_FUTURE, AsOf

ATTRIBUTES = [
    "location",
    "employer",
    "likes",
    "hobby_unregistered",
    "diagnosis_x",
    "favorite_color",
]
SOURCES = ["user_stated", "user_edit", "inferred", "untrusted", "integration:calendar"]
AREAS = sorted({s.area for s in REGISTRY.values()} | {"general", "no_such_area"})
LIST_SOURCES = [*SOURCES, "integration", "integration:mail"]

accesses = st.one_of(
    st.just(MemoryAccess("full")),
    st.just(MemoryAccess("none")),
    st.builds(
        lambda a, s: MemoryAccess("restricted", tuple(a), tuple(s)),
        st.lists(st.sampled_from(AREAS), unique=True, max_size=4),
        st.lists(st.sampled_from(LIST_SOURCES), unique=True, max_size=4),
    ),
)


@given(
    access=accesses,
    shared=st.lists(st.sampled_from(["e1", "e2", "e3"]), unique=True),
    facts=st.lists(
        st.fixed_dictionaries(
            {
                "owner": st.sampled_from(["me", "them"]),
                "entity_id": st.sampled_from(["e1", "e2", "e3"]),
                "attribute": st.sampled_from(
                    [*REGISTRY, "hobby_unregistered", "favorite_color", "favoritecolor"]
                ),
                "source": st.sampled_from([*SOURCES, "integration", "integration:mail"]),
            }
        ),
        min_size=1,
        max_size=20,
    ),
)
def test_the_predicates_agree_with_permits(
    neo4j_driver: Driver, access: MemoryAccess, shared: list[str], facts: list[dict[str, str]]
) -> None:
    """FACT_VISIBLE and ENTITY_VISIBLE, evaluated by Neo4j, keep exactly what `permits`
    (and its entity half: own or shared, unless `none`) keeps."""
    scope = Scope("me", access, tuple(sorted(shared)))
    query = (
        "UNWIND $facts AS f WITH f, {owner: f.owner, id: f.entity_id} AS e "
        f"RETURN {FACT_VISIBLE} AS fact_ok, {ENTITY_VISIBLE} AS entity_ok"
    )
    rows, _, _ = neo4j_driver.execute_query(query, facts=facts, **params(scope))
    for f, row in zip(facts, rows, strict=True):
        expected = permits(
            scope,
            attribute=f["attribute"],
            source=f["source"],
            entity_owner=f["owner"],
            entity_id=f["entity_id"],
        )
        assert row["fact_ok"] is expected, (f, scope)
        entity_ok = access.mode != "none" and (f["owner"] == "me" or f["entity_id"] in shared)
        assert row["entity_ok"] is entity_ok, (f, scope)


class Seeded:
    """Two owners, two entities each, one current row per attribute x source on each."""

    def __init__(self, driver: Driver):
        tag = uuid.uuid4().hex[:8]
        self.me, self.them = f"scope-me-{tag}", f"scope-them-{tag}"
        committer = Committer(driver)
        self.entities: dict[str, str] = {}
        for owner in (self.me, self.them):
            for name in ("one", "two"):
                e = committer.create_entity(owner, f"{name}-{owner}", "thing")
                self.entities[e.id] = owner
                committer.assert_facts(
                    owner,
                    [
                        Assertion(
                            entity_id=e.id,
                            attribute=a,
                            value=f"{a}-{s}-{e.id}",
                            cardinality="many",
                            valid_from=datetime(2020, 1, 1, tzinfo=UTC),
                            provenance=Provenance(source=s),
                        )
                        for a in ATTRIBUTES
                        for s in SOURCES
                    ],
                )
        self.reader = Reader(driver)
        rows, _, _ = driver.execute_query(
            "MATCH (f:Fact) WHERE f.owner IN $owners AND f.retracted_at = $far "
            "RETURN f.id AS id, f.owner AS owner, f.entity_id AS entity_id, "
            "f.attribute AS attribute, f.source AS source",
            owners=[self.me, self.them],
            far=FAR_FUTURE,
        )
        self.rows = [r.data() for r in rows]
        self.theirs = sorted(i for i, o in self.entities.items() if o == self.them)

    def allowed(self, scope: Scope, attributes: list[str] | None = None) -> set[str]:
        return {
            r["id"]
            for r in self.rows
            if (attributes is None or r["attribute"] in attributes)
            and permits(
                scope,
                attribute=r["attribute"],
                source=r["source"],
                entity_owner=r["owner"],
                entity_id=r["entity_id"],
            )
        }


@pytest.fixture(scope="module")
def seeded(neo4j_driver: Driver) -> Iterator[Seeded]:
    yield Seeded(neo4j_driver)


@pytest.mark.slow
@given(access=accesses, shared=st.sets(st.integers(0, 1)), data=st.data())
def test_every_scoped_read_returns_what_permits_allows(
    seeded: Seeded, access: MemoryAccess, shared: set[int], data: Any
) -> None:
    """facts, facts_of_entities, history, fact, owner_attributes, recent, entities,
    entities_by_ids, entity and entity_names all keep exactly the rows and entities the
    scope permits: own or shared, passing the areas x sources of `restricted`, nothing
    under `none`."""
    scope = Scope(seeded.me, access, tuple(sorted(seeded.theirs[i] for i in shared)))
    r, everything = seeded.reader, sorted(seeded.entities)
    now = AsOf.at()
    got = {f.id for f in r.facts_of_entities(scope, everything, now)}
    assert got == seeded.allowed(scope)
    past = AsOf.at(datetime(2021, 1, 1, tzinfo=UTC), datetime.now(UTC))
    assert {f.id for f in r.facts_of_entities(scope, everything, past)} == got
    one = data.draw(st.sampled_from(everything))
    assert {f.id for f in r.history(scope, one)} == {
        i
        for i in seeded.allowed(scope)
        if i in {f["id"] for f in seeded.rows if f["entity_id"] == one}
    }
    attrs = data.draw(st.lists(st.sampled_from(ATTRIBUTES), unique=True, min_size=1))
    assert {f.id for f in r.owner_attributes(scope, attrs, now, limit=1000)} == seeded.allowed(
        scope, attrs
    )
    assert {f.id for f in r.recent(scope, attrs[0], now, limit=1000)} == seeded.allowed(
        scope, attrs[:1]
    )
    row = data.draw(st.sampled_from(seeded.rows))
    try:
        found = r.fact(scope, row["id"]).id == row["id"]
    except NotFound:
        found = False
    assert found is (row["id"] in seeded.allowed(scope))
    visible = (
        set()
        if scope.closed
        else {i for i, o in seeded.entities.items() if o == seeded.me or i in scope.shared}
    )
    assert {e.id for e in r.entities(scope, limit=100) if e.id in seeded.entities} == visible
    assert set(r.entities_by_ids(scope, everything)) == visible
    assert {i for i, _, _ in r.entity_names(scope)} & set(everything) == visible
    for entity_id in everything:
        try:
            seen = r.entity(scope, entity_id).id == entity_id
        except NotFound:
            seen = False
        assert seen is (entity_id in visible), entity_id


def _operators(plan: Any) -> list[tuple[str, str]]:
    out = [(plan.get("operatorType", ""), str(plan.get("args", {}).get("Details", "")))]
    for child in plan.get("children", []):
        out.extend(_operators(child))
    return out


@pytest.mark.parametrize(
    ("query", "indexes"),
    [
        (fc.FACTS_CURRENT, ["Fact(entity_id, retracted_at, valid_to)"]),
        (
            fc.OWNER_ATTRIBUTE_AS_OF,
            [
                "Fact(owner, attribute, retracted_at)",
                "Fact(entity_id, attribute, retracted_at, valid_to)",
            ],
        ),
        (
            fc.OWNER_EVENTS_BEFORE,
            [
                "Fact(owner, attribute, retracted_at)",
                "Fact(entity_id, attribute, retracted_at, valid_to)",
            ],
        ),
    ],
)
def test_scoped_reads_keep_their_seeks(
    neo4j_driver: Driver, query: str, indexes: list[str]
) -> None:
    """With shares, one entity's rows are still one seek per entity (ownership is a
    filter), and owner-wide reads seek the owner's rows and each shared entity's rows."""
    now = datetime.now(UTC)
    p = {
        **params(Scope("o", shared=("s1", "s2"))),
        "entity_ids": ["e"],
        "attributes": ["x"],
        "attribute": "x",
        "valid_at": now,
        "known_at": now,
        "far": FAR_FUTURE,
        "limit": 5,
    }
    with neo4j_driver.session() as session:
        plan = session.run("EXPLAIN " + query, p).consume().plan
    ops = _operators(plan)
    seeks = [details for op, details in ops if "IndexSeek" in op]
    for index in indexes:
        assert sum(index in d for d in seeks) == 1, (index, ops)
    assert len(seeks) == len(indexes), ops
    assert not any("LabelScan" in op or "AllNodesScan" in op for op, _ in ops), ops
