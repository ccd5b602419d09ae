"""Archive and return over random sequences of integration syncs (CONTRACT §5, §8).

Each example is a fresh owner and a sequence of syncs of one integration, each naming a
random subset of five people (an `employer` observation each), full snapshots or not.
A small model says what must hold after each sync: an entity is archived once a full
snapshot leaves it out after it was reported, and back when reported again; its rows
never change by being archived; each sync's effects name exactly what it archived and
brought back, and its outcome says the same.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j import Driver

from committer.apply import Committer
from committer.proposals import EntityRef
from curator.propose import review_observations
from graph.names import search_key
from graph.read.reader import Reader
from graph.scope import Scope

pytestmark = pytest.mark.slow

PEOPLE = ["Ana", "Bo", "Cy", "Di", "Ed"]
AT = datetime(2024, 1, 1, tzinfo=UTC)

syncs = st.lists(st.tuples(st.sets(st.sampled_from(PEOPLE)), st.booleans()), min_size=1, max_size=6)
"""Each sync: the people it names, and whether it is a full snapshot."""


def apply(committer: Committer, owner: str, sync_id: str, names: set[str], full: bool) -> object:
    raw = [
        {
            "integration": "hr",
            "entity": {"name": n, "kind": "person"},
            "attribute": "employer",
            "value": f"{n} Ltd",
        }
        for n in sorted(names)
    ]
    reviewed = review_observations(owner, raw, sync_id, AT, threshold=0.8, privileged=[])
    return committer.apply_sync(
        owner,
        sync_id=sync_id,
        integration="hr",
        full_snapshot=full,
        digest=hashlib.sha256(repr((sorted(names), full)).encode()).hexdigest(),
        reviewed=reviewed,
        refs=[EntityRef(name=n, kind="person") for n in names],
    )


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sequence=syncs)
def test_archive_follows_what_full_snapshots_report(
    neo4j_driver: Driver, sequence: list[tuple[set[str], bool]]
) -> None:
    """Archived = reported before and missing from the latest full snapshot since its
    last report; rows are untouched; effects are exactly the archive changes."""
    committer, reader = Committer(neo4j_driver), Reader(neo4j_driver)
    owner = f"archive-{uuid.uuid4().hex[:16]}"
    reported: set[str] = set()
    archived: set[str] = set()
    for n, (names, full) in enumerate(sequence):
        came_back, first_time = archived & names, names - reported
        archived -= names
        reported |= names
        gone = (reported - names - archived) if full else set()
        archived |= gone
        outcome = apply(committer, owner, f"s{n}", names, full)
        keys = {search_key(p): p for p in PEOPLE}
        person_of = {
            eid: keys[k]
            for eid, names_, _ in reader.entity_names(owner)
            for k in names_
            if k in keys
        }
        assert {person_of[i] for i in outcome.archived} == gone
        assert {person_of[i] for i in outcome.unarchived} == came_back
        for entity_id, person in person_of.items():
            entity = reader.entity(owner, entity_id)
            assert entity.archived == (person in archived), (person, sequence[: n + 1])
            assert (entity.archived_at is not None) == entity.archived
            [row] = reader.history(owner, entity.id, include_retracted=True)
            assert row.value == f"{person} Ltd"
        _, items = reader.effects(Scope(owner), f"s{n}")
        changes = {(person_of[i.entity_id], i.op) for i in items if i.change == "changed"}
        assert changes == ({(p, "archived") for p in gone} | {(p, "unarchived") for p in came_back})
        wrote = {i.fact.value for i in items if i.change == "wrote" and i.fact is not None}
        assert wrote == {f"{p} Ltd" for p in first_time}
        assert not [i for i in items if i.change == "ended"]
