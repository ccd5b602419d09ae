"""Splits and merges undo each other, over random histories (CONTRACT §2, §5).

Each example builds a random history on one entity (the operations of
tests/committer/test_model.py, checked against the oracle as they go), adds a
relationship from another entity pointing at it, splits a random choice of the current
rows off into a new entity, and merges that entity back. The split must move exactly
the chosen rows (windows, statuses and provenance kept), leave time travel to before
it untouched, and the merge back must give the entity exactly its rows from before.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j import Driver

from committer.proposals import Assertion
from graph.records import FactRecord
from graph.scope import Scope
from tests.committer.test_model import GRID, Op, Pair, sequences

pytestmark = pytest.mark.slow


def content(fact: FactRecord, rename: dict[str, str] | None = None) -> tuple[Any, ...]:
    """A row without its id, entity and transaction times (objects through `rename`)."""
    rename = rename or {}
    return (
        fact.attribute,
        fact.value,
        rename.get(fact.object_id or "", fact.object_id),
        fact.valid_from,
        fact.valid_to,
        fact.status,
        fact.source,
        fact.evidence,
        fact.confidence,
        fact.cardinality,
    )


def current(pair: Pair, entity_id: str, rename: dict[str, str] | None = None) -> Counter[Any]:
    return Counter(content(f, rename) for f in pair.reader.history(pair.owner, entity_id))


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sequence=sequences, data=st.data())
def test_split_then_merge_back_restores_the_entity(
    neo4j_driver: Driver, sequence: list[Op], data: st.DataObject
) -> None:
    """Split moves exactly the chosen rows as they were; merging back restores the rest."""
    pair = Pair(neo4j_driver)
    for op in sequence:
        pair.apply(op)
        pair.current()
    friend = pair.committer.create_entity(pair.owner, "Bo", "person").id
    pair.committer.assert_fact(
        pair.owner, Assertion(entity_id=friend, attribute="knows", object_id=pair.entity)
    )
    rows = pair.reader.history(pair.owner, pair.entity) + [
        f for f in pair.reader.history(pair.owner, friend) if f.object_id == pair.entity
    ]
    chosen = data.draw(
        st.lists(st.sampled_from(rows), min_size=1, unique_by=lambda f: f.id), label="chosen"
    )
    before, friend_before = current(pair, pair.entity), current(pair, friend)
    ids = {f.id for f in chosen}

    split = pair.committer.split(pair.owner, pair.entity, [f.id for f in chosen], "Ada II")
    new = split.entity.id
    rename = {new: pair.entity}
    kept = Counter(content(f) for f in rows if f.id not in ids and f.entity_id == pair.entity)
    assert current(pair, pair.entity) == kept
    assert current(pair, new) == Counter(content(f) for f in chosen if f.entity_id == pair.entity)
    assert current(pair, friend, rename) == friend_before
    # Time travel to before the split sees the old picture.
    earlier = split.entity.created_at - (split.entity.created_at - pair.commits[-1]) / 2
    past = pair.reader.history(pair.owner, pair.entity, known_at=earlier)
    assert Counter(map(content, past)) == before

    merged = pair.committer.merge(pair.owner, new, pair.entity)
    assert merged.conflicts == ()
    assert current(pair, pair.entity) == before
    assert current(pair, friend) == friend_before


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sequence=sequences)
def test_merge_then_split_back_restores_both(neo4j_driver: Driver, sequence: list[Op]) -> None:
    """Splitting off exactly what a merge wrote (its effects) restores both entities and
    the relationship that pointed at the merged one."""
    pair = Pair(neo4j_driver)
    for op in sequence:
        pair.apply(op)
        pair.current()
    other = pair.committer.create_entity(pair.owner, "Ada Lovelace", "person").id
    pair.committer.assert_facts(
        pair.owner,
        [
            Assertion(entity_id=other, attribute="employer", value="Analytical Engines"),
            Assertion(
                entity_id=other,
                attribute="hobby",
                value="poetry",
                valid_from=GRID[0],
                valid_to=GRID[2],
            ),
        ],
    )
    friend = pair.committer.create_entity(pair.owner, "Bo", "person").id
    pair.committer.assert_fact(
        pair.owner, Assertion(entity_id=friend, attribute="knows", object_id=pair.entity)
    )
    before, other_before = current(pair, pair.entity), current(pair, other)
    friend_before = current(pair, friend)

    merged = pair.committer.merge(pair.owner, pair.entity, other)
    assert merged.conflicts == () and merged.event_id is not None
    _, items = pair.reader.effects(Scope(pair.owner), merged.event_id)
    brought = [i.fact.id for i in items if i.change == "wrote" and i.fact is not None]
    assert len(brought) == sum(before.values()) + 1  # the entity's rows and the friend's
    back = pair.committer.split(pair.owner, other, brought, "Ada").entity.id
    assert current(pair, other) == other_before
    assert current(pair, back) == before
    assert current(pair, friend, {back: pair.entity}) == friend_before
