"""The four bitemporal quadrants against a real Neo4j (CONTRACT §2, §2.1, §2.2).

Each story captures "Monday" as a real instant K between two commits: `known_at=K` is
"what did you know on Monday", `valid_at=K` is "what was true on Monday". Every story
is asked at the four combinations of valid_at in {K, now} and known_at in {K, now},
each with an explicit expected answer: a set of (value, status) for `location`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest
from neo4j import Driver

from committer.apply import CommitResult, Committer
from committer.proposals import Assertion
from graph.read.reader import Reader
from graph.time import FAR_FUTURE, AsOf, utcnow

DAY = timedelta(days=1)
Answer = set[tuple[str, str]]


@dataclass
class Story:
    """One owner, one entity, a committer and a reader, and the "Monday" instant K."""

    owner: str
    entity: str
    committer: Committer
    reader: Reader
    monday: datetime | None = None

    def say(
        self,
        value: str,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        entity: str | None = None,
    ) -> CommitResult:
        return self.committer.assert_fact(
            self.owner,
            Assertion(
                entity_id=entity or self.entity,
                attribute="location",
                value=value,
                valid_from=valid_from,
                valid_to=valid_to,
            ),
        )

    def mark_monday(self) -> datetime:
        """Capture K: after every commit so far, before every later one."""
        time.sleep(0.002)
        self.monday = utcnow()
        time.sleep(0.002)
        return self.monday

    def location(
        self, valid_at: datetime | None, known_at: datetime | None, entity: str | None = None
    ) -> Answer:
        rows = self.reader.facts(
            self.owner, entity or self.entity, AsOf.at(valid_at=valid_at, known_at=known_at)
        )
        return {(str(r.value), r.status) for r in rows if r.attribute == "location"}

    def quadrants(self, entity: str | None = None) -> dict[str, Answer]:
        """Ask at (valid Monday | now) x (known Monday | now)."""
        k = self.monday
        assert k is not None
        return {
            "true Monday, known Monday": self.location(k, k, entity),
            "true Monday, known now": self.location(k, None, entity),
            "true now, known Monday": self.location(None, k, entity),
            "true now, known now": self.location(None, None, entity),
        }

    def history(self, known_at: datetime | None = None) -> list[tuple[Any, ...]]:
        rows = self.reader.history(self.owner, self.entity, "location", known_at=known_at)
        return [(str(r.value), r.valid_from, r.valid_to, r.status) for r in rows]


@pytest.fixture
def story(neo4j_driver: Driver, owner: str) -> Iterator[Story]:
    committer = Committer(neo4j_driver)
    committer.ensure_owner(owner)
    entity = committer.create_entity(owner, "Ada", "person")
    yield Story(owner, entity.id, committer, Reader(neo4j_driver))


def test_learned_late(story: Story) -> None:
    """A move true on Monday but learned after Monday: Monday's knowledge still says Paris."""
    long_ago = utcnow() - 30 * DAY
    first = story.say("Paris", valid_from=long_ago)
    k = story.mark_monday()
    moved = k - timedelta(hours=1)  # true on Monday ...
    late = story.say("Berlin", valid_from=moved)  # ... known only after it
    assert first.recorded_at < k < late.recorded_at
    assert late.effect == "superseded"

    assert story.quadrants() == {
        "true Monday, known Monday": {("Paris", "active")},
        "true Monday, known now": {("Berlin", "active")},
        "true now, known Monday": {("Paris", "active")},
        "true now, known now": {("Berlin", "active")},
    }
    assert story.history() == [
        ("Paris", long_ago, moved, "superseded"),
        ("Berlin", moved, FAR_FUTURE, "active"),
    ]
    assert story.history(known_at=k) == [("Paris", long_ago, FAR_FUTURE, "active")]


def test_older_fact_learned_late_does_not_override(story: Story) -> None:
    """An older value arriving after Monday fills only the time before the known one (rule 3)."""
    since = utcnow() - 30 * DAY
    story.say("Paris", valid_from=since)
    k = story.mark_monday()
    older = story.say("Rome", valid_from=since - 10 * DAY)  # open, but older than Paris
    assert older.effect == "created"
    assert older.fact.valid_to == since
    assert older.fact.status == "superseded"

    assert story.quadrants() == {
        "true Monday, known Monday": {("Paris", "active")},
        "true Monday, known now": {("Paris", "active")},
        "true now, known Monday": {("Paris", "active")},
        "true now, known now": {("Paris", "active")},
    }
    before = since - DAY
    assert story.location(before, k) == set()
    assert story.location(before, None) == {("Rome", "superseded")}


def test_correction(story: Story) -> None:
    """Believed on Monday, retracted since: Monday's knowledge keeps it; today's has Paris back."""
    since = utcnow() - 30 * DAY
    moved = since + 10 * DAY
    story.say("Paris", valid_from=since)
    berlin = story.say("Berlin", valid_from=moved)
    k = story.mark_monday()
    undone = story.committer.retract(story.owner, berlin.fact.id)
    assert berlin.recorded_at < k < undone.recorded_at
    assert undone.fact is None
    assert berlin.fact.id in undone.retracted

    assert story.quadrants() == {
        "true Monday, known Monday": {("Berlin", "active")},
        "true Monday, known now": {("Paris", "active")},
        "true now, known Monday": {("Berlin", "active")},
        "true now, known now": {("Paris", "active")},
    }
    assert story.history() == [("Paris", since, FAR_FUTURE, "active")]
    assert story.history(known_at=k) == [
        ("Paris", since, moved, "superseded"),
        ("Berlin", moved, FAR_FUTURE, "active"),
    ]
    audit = story.reader.history(story.owner, story.entity, "location", include_retracted=True)
    (old,) = [r for r in audit if r.id == berlin.fact.id]
    assert old.retracted_at == undone.recorded_at


def test_supersede_with_past_valid_from(story: Story) -> None:
    """A move dated after Monday but before it was told: Monday stays Paris on both knowledges."""
    since = utcnow() - 30 * DAY
    story.say("Paris", valid_from=since)
    k = story.mark_monday()
    moved = utcnow()  # after Monday, in the past by the time it is committed
    time.sleep(0.002)
    berlin = story.say("Berlin", valid_from=moved)
    assert k < moved < berlin.recorded_at
    assert berlin.effect == "superseded"
    assert len(berlin.superseded) == 1

    assert story.quadrants() == {
        "true Monday, known Monday": {("Paris", "active")},
        "true Monday, known now": {("Paris", "superseded")},
        "true now, known Monday": {("Paris", "active")},
        "true now, known now": {("Berlin", "active")},
    }
    assert story.history() == [
        ("Paris", since, moved, "superseded"),
        ("Berlin", moved, FAR_FUTURE, "active"),
    ]


def test_forget_versus_retract(story: Story) -> None:
    """Forget ends a fact (still true on Monday); retract unsays it (never true, Paris back)."""
    since = utcnow() - 30 * DAY
    moved = since + 10 * DAY
    other = story.committer.create_entity(story.owner, "Bob", "person").id
    berlins = {}
    for entity in (story.entity, other):
        story.say("Paris", valid_from=since, entity=entity)
        berlins[entity] = story.say("Berlin", valid_from=moved, entity=entity).fact
    k = story.mark_monday()
    forgotten = story.committer.forget(story.owner, berlins[story.entity].id)
    retracted = story.committer.retract(story.owner, berlins[other].id)
    assert k < forgotten.recorded_at < retracted.recorded_at

    assert forgotten.retracted == (berlins[story.entity].id,)
    assert forgotten.fact is not None
    assert (forgotten.fact.valid_from, forgotten.fact.valid_to) == (moved, forgotten.recorded_at)
    assert forgotten.fact.status == "invalidated"
    assert retracted.fact is None

    assert story.quadrants(story.entity) == {
        "true Monday, known Monday": {("Berlin", "active")},
        "true Monday, known now": {("Berlin", "invalidated")},
        "true now, known Monday": {("Berlin", "active")},
        "true now, known now": set(),  # forget never brings Paris back
    }
    assert story.quadrants(other) == {
        "true Monday, known Monday": {("Berlin", "active")},
        "true Monday, known now": {("Paris", "active")},
        "true now, known Monday": {("Berlin", "active")},
        "true now, known now": {("Paris", "active")},
    }


def test_forget_a_future_fact(story: Story) -> None:
    """A forgotten fact that had not started yet is not recorded again: it will never hold."""
    start = utcnow() + 10 * DAY
    planned = story.say("Lisbon", valid_from=start)
    k = story.mark_monday()
    forgotten = story.committer.forget(story.owner, planned.fact.id)
    assert forgotten.fact is None
    assert forgotten.retracted == (planned.fact.id,)
    assert story.location(start + DAY, k) == {("Lisbon", "active")}
    assert story.location(start + DAY, None) == set()
    assert story.history() == []
