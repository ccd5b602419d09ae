"""Cause and effect against the oracle over random histories (CONTRACT §2, §8).

The histories of tests/committer/test_model.py (asserts, forgets and retracts of a
`one` and a `many` attribute) run against the store and the oracle. After each
operation, the operation's event must have as effects exactly the rows the oracle
recorded and retracted at its commit time; at the end, every row's why chain must end
at the commit that wrote it, be decided by the operation that wrote it, and hold the
actions of exactly the rows the oracle says it continues (what it remains of, brings
back or folded in), oldest first.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from neo4j import Driver

from graph.scope import Scope
from tests.committer.test_model import Assert, Forget, Op, Pair, Retract, sequences
from tests.oracle import Row, store_key

pytestmark = pytest.mark.slow


class Audited(Pair):
    """A Pair that remembers the event id of each commit, by commit time."""

    def __init__(self, driver: Driver):
        super().__init__(driver)
        self.events: dict[datetime, str] = {}
        for name in ("assert_fact", "forget", "retract"):
            setattr(self.committer, name, self._recording(getattr(self.committer, name)))

    def _recording(self, method: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            result = method(*args, **kwargs)
            assert result.event_id is not None
            self.events[result.recorded_at] = result.event_id
            return result

        return call

    def check_effects(self, t: datetime) -> None:
        """The event of the commit at `t` wrote and ended exactly what the oracle did."""
        _, items = self.reader.effects(Scope(self.owner), self.events[t])
        wrote = Counter(store_key(i.fact) for i in items if i.change == "wrote")
        ended = Counter(store_key(i.fact) for i in items if i.change == "ended")
        assert wrote == Counter(r.key() for r in self.oracle.rows if r.recorded_at == t), (
            self.trace()
        )
        assert ended == Counter(r.key() for r in self.oracle.rows if r.retracted_at == t), (
            self.trace()
        )
        assert {i.cause_id for i in items} <= {self.events[t]}

    def check_why(self) -> None:
        """Every row's chain ends at its commit, decided by the operation that wrote it,
        with the actions of the rows it continues, in commit order."""
        model = {r.full_key(): r for r in self.oracle.rows}
        stored = self.reader.history(self.owner, self.entity, None, include_retracted=True)
        for fact in stored:
            found = self.reader.why(Scope(self.owner), fact.id)
            assert found.chain[-1].kind == "commit", self.trace()
            assert found.chain[-1].at == fact.recorded_at, self.trace()
            assert found.cause is not None and found.cause.id == self.events[fact.recorded_at]
            row = model[(*store_key(fact), fact.recorded_at, fact.retracted_at)]
            lineage = _lineage(self.oracle.rows, row)
            actions = [e for e in found.chain if e.kind == "action"]
            expected = sorted({r.recorded_at for r in lineage})
            assert [e.at for e in actions] == expected, self.trace()
            assert [e.id for e in actions] == [self.events[t] for t in expected]


def _lineage(rows: list[Row], row: Row) -> list[Row]:
    """The row and every row it continues or folded in, transitively (the oracle's view)."""
    by_id = {r.id: r for r in rows}
    seen, todo = {row.id}, [row]
    while todo:
        r = todo.pop()
        for i in (*r.continues, *r.folded):
            if i not in seen:
                seen.add(i)
                todo.append(by_id[i])
    return [by_id[i] for i in seen]


def replay(driver: Driver, sequence: list[Op]) -> Audited:
    pair = Audited(driver)
    for op in sequence:
        done = len(pair.commits)
        pair.apply(op)
        pair.current()
        if len(pair.commits) > done:
            pair.check_effects(pair.commits[-1])
    pair.check_why()
    return pair


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sequence=sequences)
@example(
    sequence=[
        Assert("location", "Paris", 0, None),
        Assert("location", "Berlin", 1, None),
        Forget(None),
        Retract(None),
    ]
)
@example(
    sequence=[
        Assert("location", "Paris", 0, 2),
        Assert("location", "Berlin", 0, 2),
        Assert("location", "Paris", 2, 4),
        Assert("location", "Berlin", 2, 4),
        Retract(0),
    ]
)
def test_effects_and_why_agree_with_the_oracle(neo4j_driver: Driver, sequence: list[Op]) -> None:
    """Each operation's effects are exactly the rows it wrote and ended; each row's why
    chain ends at its own commit and holds the operations of the rows it continues."""
    replay(neo4j_driver, sequence)


def test_a_chain_of_four_actions_is_ordered(neo4j_driver: Driver) -> None:
    """Paris [G0, G2), widened to [G0, G3), cut short by Berlin from G2, then forgotten:
    the forgotten remnant continues all four operations' rows, oldest first; Berlin's
    own chain is its assertion alone."""
    pair = replay(
        neo4j_driver,
        [
            Assert("location", "Paris", 0, 2),
            Assert("location", "Paris", 1, 3),
            Assert("location", "Berlin", 2, None),
            Forget(1),
        ],
    )
    berlin, paris = sorted(
        pair.reader.history(pair.owner, pair.entity, None), key=lambda f: str(f.value)
    )
    assert (paris.value, paris.status) == ("Paris", "invalidated")
    found = pair.reader.why(Scope(pair.owner), paris.id)
    actions = [e.detail["action"] for e in found.chain if e.kind == "action"]
    assert actions == ["assert", "assert", "assert", "forget"]
    assert [e.kind for e in found.chain] == ["action", "commit"] * 4
    assert found.trigger == found.cause and found.cause.detail["action"] == "forget"
    alone = pair.reader.why(Scope(pair.owner), berlin.id)
    assert [e.kind for e in alone.chain] == ["action", "commit"]
