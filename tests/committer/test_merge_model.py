"""Merges against the oracle (tests/oracle_merge.py) over random histories (CONTRACT §5).

Each example: a fresh owner with two people, Ada (the survivor) and Ada King (the loser),
each given a random history (assert, forget, retract, interleaved between the two);
then the loser is merged into the survivor; then a few more operations, written to
either id (the loser's id stands for the survivor), and perhaps the first held conflict
kept. After every operation both sides hold the same rows on both axes; at the end,
reads of each id at random (valid_at, known_at), histories (current and audit) as
known before and after the merge, and what each id stands for, must all agree.
"""

from __future__ import annotations

import itertools
import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j import Driver

from committer.apply import Committer
from committer.proposals import Assertion
from graph.read.reader import Reader
from graph.time import AsOf, utcnow
from tests.committer.test_model import (
    ATTRIBUTES,
    DAY,
    GRID,
    Assert,
    Forget,
    Op,
    Retract,
    asserts,
)
from tests.oracle import store_full_key, store_key
from tests.oracle_merge import MergeOracle

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class On:
    """An operation on entity `target` (0: the survivor, 1: the loser)."""

    target: int
    op: Op


def _ops() -> st.SearchStrategy[On]:
    op = st.one_of(
        asserts(),
        asserts(),
        asserts(),
        st.builds(Forget, st.none() | st.integers(0, 7)),
        st.builds(Retract, st.none() | st.integers(0, 7)),
    )
    return st.builds(On, st.integers(0, 1), op)


scenarios = st.tuples(
    asserts(),
    asserts(),  # each entity starts with a fact
    st.lists(_ops(), max_size=5),  # before the merge
    st.lists(_ops(), max_size=3),  # after it, written to either id
    st.booleans(),  # keep the first conflict the merge held back
)


class MergePair:
    """Store and oracle side by side for two entities of one owner."""

    def __init__(self, driver: Driver):
        self.committer, self.reader = Committer(driver), Reader(driver)
        self.owner = f"merge-{uuid.uuid4().hex[:16]}"
        self.committer.ensure_owner(self.owner)
        self.ids = [
            self.committer.create_entity(self.owner, "Ada", "person", ["A. L."]).id,
            self.committer.create_entity(self.owner, "Ada King", "person", ["Countess"]).id,
        ]
        self.start = utcnow()
        self.oracle = MergeOracle()
        self.commits: list[datetime] = []
        self.merged_at: datetime | None = None
        self.log: list[str] = []

    def trace(self) -> str:
        return "operations:\n  " + "\n  ".join(self.log)

    def _commit(self, t: datetime) -> None:
        assert not self.commits or self.commits[-1] < t, "commit times must strictly increase"
        self.commits.append(t)

    def current(self, entity: str) -> tuple[list[Any], list[Any]]:
        """Current rows of one entity on both sides, in one canonical order; they agree."""
        model = sorted(self.oracle.current(entity), key=lambda r: str(r.key()))
        stored = sorted(self.reader.history(self.owner, entity), key=lambda f: str(store_key(f)))
        assert [store_key(f) for f in stored] == [r.key() for r in model], self.trace()
        return model, stored

    def check(self) -> None:
        """Both entities: the same current rows, and the same rows on both axes."""
        for entity in self.ids:
            self.current(entity)
            audit = self.reader.history(self.owner, entity, include_retracted=True)
            model = self.oracle.history(entity, include_retracted=True)
            assert Counter(map(store_full_key, audit)) == Counter(r.full_key() for r in model), (
                self.trace()
            )

    def apply(self, on: On) -> None:
        asked = self.ids[on.target]
        entity = self.oracle.resolve(asked)
        op = on.op
        if isinstance(op, Assert):
            vf, vt = op.window()
            result = self.committer.assert_fact(
                self.owner,
                Assertion(
                    entity_id=asked,
                    attribute=op.attribute,
                    value=op.value,
                    valid_from=vf,
                    valid_to=vt,
                ),
            )
            self.log.append(f"{on.target}: assert {op} -> {result.effect}")
            self._commit(result.recorded_at)
            out = self.oracle.assert_(
                result.recorded_at, entity, op.attribute, op.value, vf, vt, ATTRIBUTES[op.attribute]
            )
            assert result.fact.entity_id == entity, "a merged id stands for its survivor"
            assert result.effect == out.effect, self.trace()
            return
        model, stored = self.current(entity)
        if not model:
            return
        index = (op.pick or 0) % len(model)
        if isinstance(op, Forget):
            done = self.committer.forget(self.owner, stored[index].id)
            self.log.append(f"{on.target}: forget {model[index].key()}")
            self._commit(done.recorded_at)
            self.oracle.forget(done.recorded_at, model[index].id)
        else:
            done = self.committer.retract(self.owner, stored[index].id)
            self.log.append(f"{on.target}: retract {model[index].key()}")
            self._commit(done.recorded_at)
            self.oracle.retract(done.recorded_at, model[index].id)

    def merge(self, keep_first: bool) -> None:
        survivor, loser = self.ids
        result = self.committer.merge(self.owner, loser, survivor)
        assert result.loser.merged_at is not None
        t = self.merged_at = result.loser.merged_at
        self._commit(t)
        held = self.oracle.merge(t, loser, survivor)
        self.log.append(f"merge -> held {[r.key() for r in held]}")
        pending = [self.reader.proposal(self.owner, pid) for pid in result.conflicts]
        assert sorted((p.attribute, p.value, p.valid_from) for p in pending) == sorted(
            (r.attribute, r.value, r.valid_from) for r in held
        ), self.trace()
        if keep_first and pending:
            first = min(pending, key=lambda p: p.valid_from)
            kept, _ = self.committer.keep_proposal(self.owner, first.id)
            assert kept.decided_at is not None
            self._commit(kept.decided_at)
            self.log.append(f"keep {first.attribute}={first.value}")
            self.oracle.assert_(
                kept.decided_at,
                survivor,
                first.attribute,
                first.value,
                first.valid_from,
                first.valid_to,
                "one",
            )

    def known_points(self) -> list[datetime | None]:
        """After both entities exist: every commit, points between commits, and now."""
        points: list[datetime | None] = [self.start]
        for earlier, later in itertools.pairwise(self.commits):
            points += [earlier, earlier + (later - earlier) / 2]
        return [*points, *self.commits[-1:], None]


def _valid_points(pair: MergePair) -> list[datetime | None]:
    between = [a + (b - a) / 2 for a, b in itertools.pairwise(GRID)]
    return [*GRID, *between, GRID[0] - DAY, *pair.commits, None]


@settings(
    max_examples=max(60, settings().max_examples // 2),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(scenario=scenarios, data=st.data())
def test_merge_agrees_with_oracle(neo4j_driver: Driver, scenario: Any, data: Any) -> None:
    """Two entities with histories, merged: before the merge every read sees two
    entities with their own rows; after it the survivor holds the deduplicated union,
    conflicting `one` values held as questions; the loser's id stands for the survivor
    from the merge on; store and oracle agree on every row, read and history."""
    first_a, first_b, before, after, keep_first = scenario
    pair = MergePair(neo4j_driver)
    for on in [On(0, first_a), On(1, first_b), *before]:
        pair.apply(on)
        pair.check()
    pair.merge(keep_first)
    pair.check()
    for on in after:
        pair.apply(on)
        pair.check()
    knowns, valids = pair.known_points(), _valid_points(pair)
    loser = pair.ids[1]
    for known_at in knowns:
        for entity in pair.ids:  # what each id stands for at known_at (CONTRACT §5)
            resolved = pair.reader.resolve(pair.owner, entity, known_at)
            assert resolved.entity.id == pair.oracle.resolve(entity, known_at), pair.trace()
            assert (resolved.merged_from == entity) == (resolved.entity.id != entity)
    for _ in range(data.draw(st.integers(3, 6), label="reads")):
        as_of = AsOf.at(data.draw(st.sampled_from(valids)), data.draw(st.sampled_from(knowns)))
        for entity in pair.ids:
            stored = pair.reader.facts(pair.owner, entity, as_of)
            model = pair.oracle.read(entity, as_of.valid_at, as_of.known_at)
            assert Counter(map(store_key, stored)) == Counter(r.key() for r in model), (
                f"read {entity} at {as_of}\n{pair.trace()}"
            )
    assert pair.merged_at is not None
    for known_at in (pair.merged_at - (pair.merged_at - pair.start) / 2, pair.merged_at, None):
        for entity in pair.ids:
            for audit in (False, True):
                stored = pair.reader.history(pair.owner, entity, None, known_at, audit)
                model = pair.oracle.history(entity, None, known_at, audit)
                assert Counter(map(store_full_key, stored)) == Counter(
                    r.full_key() for r in model
                ), f"history {entity} {known_at} {audit}"
    assert pair.reader.history(pair.owner, loser) == [], "the loser keeps no current row"
