"""The store against the oracle (tests/oracle.py) over random histories (CONTRACT §2).

Each example is a fresh owner and entity and a sequence of up to 8 operations: assert
(a value from a small set, on the `one` attribute `location` or the `many` attribute
`likes`, over a window from a small grid of past and future dates, open ends
included), forget or retract (of a current row). Half the examples are instead *undo
chains* (`undo_chains`: issue 13's shape, a remnant retracted and then later assertions
joined and retracted, with retracts aimed at rows of a given value and random
operations between). The oracle is told the store's commit time of each operation.
After every operation both must hold the same rows, on both axes; at the end, random
reads at (valid_at, known_at) and histories must agree.
"""

from __future__ import annotations

import itertools
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, currently_in_test_context, event, example, given, settings
from hypothesis import strategies as st
from neo4j import Driver

from committer.apply import Committer
from committer.proposals import Assertion
from graph.read.reader import Reader
from graph.time import FAR_FUTURE, AsOf, utcnow
from tests.oracle import Oracle, Row, store_full_key, store_key

pytestmark = pytest.mark.slow

DAY = timedelta(days=1)
ANCHOR = datetime.now(UTC).replace(microsecond=0)
"""Every commit of this test session comes after ANCHOR and long before ANCHOR + 100 days."""
GRID = [ANCHOR + n * DAY for n in (-400, -300, -200, -100, 100, 200)]
"""Valid times: four in the past, two in the future (commits fall between them)."""
PAST, FUTURE = 4, 6
ATTRIBUTES = {"location": "one", "likes": "many"}
VALUES = ["Paris", "Berlin", "Rome", "paris"]


@dataclass(frozen=True)
class Assert:
    attribute: str
    value: str
    start: int | None  # index into GRID, None = the commit time
    stop: int | None  # index into GRID, None = open

    def window(self) -> tuple[datetime | None, datetime | None]:
        return (
            None if self.start is None else GRID[self.start],
            None if self.stop is None else GRID[self.stop],
        )


@dataclass(frozen=True)
class Forget:
    pick: int | None  # index into the current rows, modulo their number; None = the last
    # row an assertion returned, if it is still current (else the first current row)
    of: str | None = None  # only rows of this value, when there is one (else any row)


@dataclass(frozen=True)
class Retract:
    pick: int | None
    of: str | None = None


Op = Assert | Forget | Retract


@st.composite
def windows(draw: st.DrawFn) -> tuple[int | None, int | None]:
    """(start, stop) indexes into GRID: start None = the commit time, stop None = open."""
    start = draw(st.sampled_from([None, *range(FUTURE)]))
    first_end = PAST if start is None else start + 1
    ends = [None, *range(first_end, FUTURE)]
    stop = draw(st.sampled_from([None] * len(ends) + ends[1:]))  # open half of the time
    return start, stop


@st.composite
def asserts(draw: st.DrawFn) -> Assert:
    start, stop = draw(windows())
    # `location` three times out of four: supersede and restore need a `one` attribute.
    attribute = draw(st.sampled_from(["location", "location", "location", "likes"]))
    return Assert(attribute, draw(st.sampled_from(VALUES)), start, stop)


def _vary(sequence: list[Op]) -> list[Op]:
    """Shift each assertion's value by its position, so repeated operations differ in value."""
    out: list[Op] = []
    for i, original in enumerate(sequence):
        op = original
        if isinstance(original, Assert):
            op = Assert(
                original.attribute,
                VALUES[(VALUES.index(original.value) + i) % len(VALUES)],
                original.start,
                original.stop,
            )
        out.append(op)
    return out


ops = st.one_of(
    asserts(),
    asserts(),
    asserts(),
    st.builds(Forget, st.none() | st.integers(0, 7)),
    st.builds(Retract, st.none() | st.integers(0, 7)),
    st.builds(Retract, st.none() | st.integers(0, 7)),
)


random_sequences = st.tuples(asserts(), st.lists(ops, min_size=3, max_size=7)).map(
    lambda p: _vary([p[0], *p[1]])
)
"""Up to 8 operations, the first an assertion."""


@st.composite
def undo_chains(draw: st.DrawFn) -> list[Op]:
    """Issue 13's shape and its relatives, on `location` with three distinct values.

    X over a window, then Y over another (often cutting X into remnants); X's row is
    retracted (a remnant, when there is one); then Y or Z is asserted again (joining Y's
    row, or pushing rows out), that row is retracted, and rows of Y, then maybe of X or Z,
    are retracted too. Up to two further operations on these values go between the steps.
    """
    x, y, z = draw(st.permutations(["Paris", "Berlin", "Rome"]))
    picks = st.none() | st.integers(0, 3)

    def located(value: str) -> Assert:
        return Assert("location", value, *draw(windows()))

    value = st.sampled_from([x, y, z])
    step = st.one_of(
        st.tuples(value, windows()).map(lambda p: Assert("location", p[0], *p[1])),
        st.builds(Forget, picks, value),
        st.builds(Retract, picks, value),
    )

    def noise() -> list[Op]:
        return draw(st.lists(step, max_size=2))

    chain: list[Op] = [located(x), located(y), *noise(), Retract(draw(picks), x), *noise()]
    chain += [located(draw(st.sampled_from([y, y, z]))), Retract(None), *noise()]
    chain.append(Retract(draw(picks), y))
    if draw(st.booleans()):
        chain.append(Retract(draw(picks), draw(st.sampled_from([x, z]))))
    return chain


sequences = st.one_of(random_sequences, undo_chains())
"""Either up to 8 random operations, the first an assertion, or an undo chain."""


class Pair:
    """The store and the oracle side by side, for one owner and one entity."""

    def __init__(self, driver: Driver):
        self.committer = Committer(driver)
        self.reader = Reader(driver)
        self.owner = f"model-{uuid.uuid4().hex[:16]}"
        self.committer.ensure_owner(self.owner)
        self.entity = self.committer.create_entity(self.owner, "Ada", "person").id
        self.oracle = Oracle()
        self.start = utcnow()
        self.commits: list[datetime] = []
        self.log: list[str] = []
        self.last: str | None = None

    def _commit_time(self, t: datetime) -> None:
        assert not self.commits or self.commits[-1] < t, "commit times must strictly increase"
        self.commits.append(t)

    def current(self) -> tuple[list[Row], list[Any]]:
        """Current rows of both sides, in the same canonical order; they must agree."""
        model = sorted(self.oracle.current(self.entity), key=_order(lambda r: r.key()))
        stored = self.reader.history(self.owner, self.entity, None)
        stored = sorted(stored, key=_order(store_key))
        assert [store_key(f) for f in stored] == [r.key() for r in model], self.trace()
        return model, stored

    def trace(self) -> str:
        return "operations:\n  " + "\n  ".join(self.log)

    def apply(self, op: Op) -> None:
        if isinstance(op, Assert):
            vf, vt = op.window()
            result = self.committer.assert_fact(
                self.owner,
                Assertion(
                    entity_id=self.entity,
                    attribute=op.attribute,
                    value=op.value,
                    valid_from=vf,
                    valid_to=vt,
                ),
            )
            self.log.append(
                f"assert {op.attribute}={op.value} [{_d(vf)}, {_d(vt)}) at "
                f"{_d(result.recorded_at)} -> {result.effect}"
            )
            self._commit_time(result.recorded_at)
            self.last = result.fact.id
            outcome = self.oracle.assert_(
                result.recorded_at,
                self.entity,
                op.attribute,
                op.value,
                vf,
                vt,
                ATTRIBUTES[op.attribute],
            )
            _event(f"assert {ATTRIBUTES[op.attribute]}: {outcome.effect}")
            assert result.effect == outcome.effect, self.trace()
            assert outcome.fact is not None
            assert store_key(result.fact) == outcome.fact.key(), self.trace()
            assert Counter(self._keys_of(result.superseded)) == Counter(
                r.key() for r in outcome.superseded
            ), self.trace()
            return
        model, stored = self.current()
        if not model:
            return
        if any(r.value == op.of for r in model):  # the two lists are in one order
            kept = [i for i, r in enumerate(model) if r.value == op.of]
            model, stored = [model[i] for i in kept], [stored[i] for i in kept]
        index = op.pick or 0
        if op.pick is None and self.last is not None:
            index = next((i for i, f in enumerate(stored) if f.id == self.last), 0)
        target, row = stored[index % len(stored)], model[index % len(model)]
        if isinstance(op, Forget):
            forgot = self.committer.forget(self.owner, target.id)
            self.log.append(f"forget {_row(row)} at {_d(forgot.recorded_at)}")
            self._commit_time(forgot.recorded_at)
            out = self.oracle.forget(forgot.recorded_at, row.id)
            assert forgot.retracted == tuple(target.id for r in out.retracted if r.id == row.id), (
                self.trace()
            )
            got = None if forgot.fact is None else store_key(forgot.fact)
            assert got == (None if out.fact is None else out.fact.key()), self.trace()
        else:
            undone = self.committer.retract(self.owner, target.id)
            self.log.append(f"retract {_row(row)} at {_d(undone.recorded_at)}")
            self._commit_time(undone.recorded_at)
            out = self.oracle.retract(undone.recorded_at, row.id)
            _event(f"retract brought back {min(len(out.recorded), 2)}+ rows")
            x = self.oracle.row(row.id)
            if any(
                i in self.oracle.disowned
                for r, _ in self.oracle.lineage(x)
                for i in (*r.pushed, *r.folded)
            ):
                _event("retract met a predecessor declared never true")
            assert undone.fact is None
            assert target.id in undone.retracted

    def _keys_of(self, ids: Sequence[str]) -> list[tuple[Any, ...]]:
        return [store_key(self.reader.fact(self.owner, i)) for i in ids]

    def check_all_rows(self) -> None:
        """Every row on both axes, with its recorded_at and retracted_at."""
        stored = self.reader.history(self.owner, self.entity, None, include_retracted=True)
        model = self.oracle.history(self.entity, None, include_retracted=True)
        assert Counter(map(store_full_key, stored)) == Counter(r.full_key() for r in model), (
            self.trace()
        )
        order = [(f.valid_from, f.recorded_at) for f in stored]
        assert order == sorted(order), "history is ordered by valid_from, then recorded_at"

    def known_points(self) -> list[datetime | None]:
        """Before the first commit, every commit, between commits, and now (None)."""
        points: list[datetime | None] = [self.start]
        for earlier, later in itertools.pairwise(self.commits):
            points += [earlier, earlier + (later - earlier) / 2]
        points += self.commits[-1:]
        return [*points, None]

    def valid_points(self) -> list[datetime | None]:
        """Grid dates, points between them, commit times, and now (None)."""
        between = [a + (b - a) / 2 for a, b in itertools.pairwise(GRID)]
        return [*GRID, *between, GRID[0] - DAY, GRID[-1] + DAY, *self.commits, None]

    def compare_read(self, valid_at: datetime | None, known_at: datetime | None) -> None:
        as_of = AsOf.at(valid_at=valid_at, known_at=known_at)
        stored = self.reader.facts(self.owner, self.entity, as_of)
        model = self.oracle.read(self.entity, as_of.valid_at, as_of.known_at)
        assert Counter(map(store_key, stored)) == Counter(r.key() for r in model), (
            f"read valid_at={_d(valid_at)} known_at={_d(known_at)}\n{self.trace()}"
        )

    def compare_history(self, attribute: str, known_at: datetime | None) -> None:
        stored = self.reader.history(self.owner, self.entity, attribute, known_at=known_at)
        model = self.oracle.history(self.entity, attribute, known_at=known_at)
        assert Counter(map(store_key, stored)) == Counter(r.key() for r in model), (
            f"history {attribute} known_at={_d(known_at)}\n{self.trace()}"
        )


def _event(name: str) -> None:
    """Count `name` in `--hypothesis-show-statistics` (no-op outside a @given test)."""
    if currently_in_test_context():
        event(name)


def _order(key: Any) -> Any:
    return lambda r: tuple("" if v is None else str(v) for v in key(r))


def _d(t: datetime | None) -> str:
    if t is None:
        return "-"
    for i, g in enumerate(GRID):
        if t == g:
            return f"G{i}"
    return t.isoformat(timespec="microseconds")


def _row(r: Row) -> str:
    return f"{r.attribute}={r.value} [{_d(r.valid_from)}, {_d(r.valid_to)}) {r.status}"


def run(driver: Driver, sequence: Sequence[Op], data: st.DataObject | None) -> Pair:
    pair = Pair(driver)
    for op in sequence:
        pair.apply(op)
        pair.current()
        pair.check_all_rows()
    if data is not None and pair.commits:
        knowns, valids = pair.known_points(), pair.valid_points()
        for _ in range(data.draw(st.integers(3, 8), label="reads")):
            valid_at = data.draw(st.sampled_from(valids))
            pair.compare_read(valid_at, data.draw(st.sampled_from(knowns)))
        for attribute in ATTRIBUTES:
            pair.compare_history(attribute, None)
            pair.compare_history(attribute, data.draw(st.sampled_from(knowns)))
    return pair


@settings(
    max_examples=max(200, settings().max_examples),  # the suite's profile may ask for more
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(sequence=sequences, data=st.data())
@example(  # Forgetting a forgotten row changes nothing.
    sequence=[Assert("location", "Paris", None, None), Forget(None), Forget(None)],
    data=None,
)
@example(  # CONTRACT §2.2: said "Berlin from G1", then "scrap that": Paris holds on.
    sequence=[
        Assert("location", "Paris", 0, None),
        Assert("location", "Berlin", 1, None),
        Retract(None),
    ],
    data=None,
)
@example(  # A closed window over three values, then scrapped: all three come back.
    sequence=[
        Assert("location", "Paris", 0, None),
        Assert("location", "Rome", 1, None),
        Assert("location", "Berlin", 3, None),
        Assert("location", "Oslo", 0, 4),
        Retract(None),
    ],
    data=None,
)
@example(  # Berlin, scrapped after Rome cut it short: Paris holds until Rome.
    sequence=[
        Assert("location", "Paris", 0, None),
        Assert("location", "Berlin", 1, None),
        Assert("location", "Rome", 2, None),
        Retract(0),
    ],
    data=None,
)
@example(  # Issue 13: Berlin, retracted as a remnant, never comes back through Paris's undos.
    sequence=[
        Assert("location", "Berlin", 0, 3),
        Assert("location", "Paris", 2, None),
        Retract(0, of="Berlin"),
        Assert("location", "Paris", 1, 4),
        Retract(None),
        Retract(None, of="Paris"),
    ],
    data=None,
)
def test_store_agrees_with_oracle(neo4j_driver: Driver, sequence: list[Op], data: Any) -> None:
    """Store and oracle hold the same rows and answer every read alike (CONTRACT §2)."""
    run(neo4j_driver, sequence, data)


def test_retract_undoes_only_the_last_assertion(neo4j_driver: Driver) -> None:
    """Scrapping a row that joined an earlier statement of its value brings that one back.

    Paris [G0, G2); Berlin [G0, G2) pushes it out; Paris [G2, G4); Berlin [G2, G4) pushes
    that out and joins the first Berlin. Scrapping the joined Berlin undoes the last
    statement only: Berlin [G0, G2) and Paris [G2, G4), as before it.
    """
    pair = run(
        neo4j_driver,
        [
            Assert("location", "Paris", 0, 2),
            Assert("location", "Berlin", 0, 2),
            Assert("location", "Paris", 2, 4),
            Assert("location", "Berlin", 2, 4),
            Retract(0),
        ],
        None,
    )
    assert sorted(r.key() for r in pair.oracle.current()) == [
        ("location", "Berlin", GRID[0], GRID[2], "active"),
        ("location", "Paris", GRID[2], GRID[4], "active"),
    ]


def test_forgotten_then_retracted_undoes_the_whole_claim(neo4j_driver: Driver) -> None:
    """Scrapping the remnant of a forgotten move undoes the move: Paris holds on, open."""
    pair = run(
        neo4j_driver,
        [
            Assert("location", "Paris", 0, None),
            Assert("location", "Berlin", 1, None),
            Forget(0),
            Retract(0),
        ],
        None,
    )
    assert [r.key() for r in pair.oracle.current()] == [
        ("location", "Paris", GRID[0], FAR_FUTURE, "active")
    ]


def test_parts_around_a_row_of_their_value_are_one_row(neo4j_driver: Driver) -> None:
    """Parts brought back on both sides of a current row of their value join it (§2.1 rule 1).

    Paris from G0; Berlin [G1, G5) splits it; Paris [G2, G4) splits Berlin; the future
    Berlin part [G4, G5) is forgotten (nothing recorded); scrapping Berlin [G1, G2)
    brings Paris back over [G1, G2) and [G4, G5): Paris holds from G0 on, one row.
    """
    pair = run(
        neo4j_driver,
        [
            Assert("location", "Paris", 0, None),
            Assert("location", "Berlin", 1, 5),
            Assert("location", "Paris", 2, 4),
            Forget(1),
            Retract(0),
        ],
        None,
    )
    assert [r.key() for r in pair.oracle.current()] == [
        ("location", "Paris", GRID[0], FAR_FUTURE, "active")
    ]


def _current_keys(pair: Pair) -> list[tuple[Any, ...]]:
    """The store's current rows as `Row.key()` tuples, sorted (run() already checked that
    the oracle holds the same)."""
    return sorted(store_key(f) for f in pair.reader.history(pair.owner, pair.entity, None))


def test_a_retracted_value_does_not_come_back_through_a_later_undo(neo4j_driver: Driver) -> None:
    """Issue 13: Berlin [G0, G3); Paris from G2 cuts it to [G0, G2); that Berlin row is
    retracted (never true); Paris [G1, G4) joins Paris from G2 into Paris from G1; that row
    is retracted (Paris from G2 comes back), then Paris from G2 too. Nothing holds: Berlin,
    declared never true, does not come back for [G2, G3) through Paris's undo."""
    pair = run(
        neo4j_driver,
        [
            Assert("location", "Berlin", 0, 3),
            Assert("location", "Paris", 2, None),
            Retract(0, of="Berlin"),
            Assert("location", "Paris", 1, 4),
            Retract(None),
            Retract(None, of="Paris"),
        ],
        None,
    )
    assert _current_keys(pair) == []
    assert pair.reader.facts(pair.owner, pair.entity, AsOf.at(valid_at=GRID[2])) == []


def test_what_a_retracted_value_pushed_out_comes_back_in_its_place(neo4j_driver: Driver) -> None:
    """Rome from G0; Berlin from G1 pushes it out; Paris from G2 pushes Berlin out. Berlin's
    row is retracted (Rome comes back over [G1, G2)), then Paris: Berlin, never true, does
    not come back from G2; Rome, which Berlin had pushed out, does: Rome from G0, one row."""
    pair = run(
        neo4j_driver,
        [
            Assert("location", "Rome", 0, None),
            Assert("location", "Berlin", 1, None),
            Assert("location", "Paris", 2, None),
            Retract(0, of="Berlin"),
            Retract(0, of="Paris"),
        ],
        None,
    )
    assert _current_keys(pair) == [("location", "Rome", GRID[0], FAR_FUTURE, "active")]


def test_a_part_recorded_again_and_pushed_out_before_the_retract_stays_out(
    neo4j_driver: Driver,
) -> None:
    """Berlin [G0, G4); Paris [G1, G2) splits it into [G0, G1) and [G2, G4); Rome from G3
    cuts the second part to [G2, G3). Retracting Berlin [G0, G1) declares the Berlin claim
    never true, including its part [G2, G4) no longer believed then; undoing Rome leaves
    [G3, G4) empty. The part still believed, Berlin [G2, G3), stays as it was."""
    pair = run(
        neo4j_driver,
        [
            Assert("location", "Berlin", 0, 4),
            Assert("location", "Paris", 1, 2),
            Assert("location", "Rome", 3, None),
            Retract(0, of="Berlin"),
            Retract(0, of="Rome"),
        ],
        None,
    )
    assert _current_keys(pair) == [
        ("location", "Berlin", GRID[2], GRID[3], "superseded"),
        ("location", "Paris", GRID[1], GRID[2], "active"),
    ]


def test_a_part_still_believed_after_the_retract_comes_back_when_its_pusher_is_undone(
    neo4j_driver: Driver,
) -> None:
    """Berlin [G0, G4); Paris [G1, G2) splits it; retracting Berlin [G0, G1) leaves Berlin
    [G2, G4) current (the retract ends only its row). Rome from G3 then cuts that part
    short, and undoing Rome brings it back whole: it was believed when Rome came."""
    pair = run(
        neo4j_driver,
        [
            Assert("location", "Berlin", 0, 4),
            Assert("location", "Paris", 1, 2),
            Retract(0, of="Berlin"),
            Assert("location", "Rome", 3, None),
            Retract(0, of="Rome"),
        ],
        None,
    )
    assert _current_keys(pair) == [
        ("location", "Berlin", GRID[2], GRID[4], "active"),
        ("location", "Paris", GRID[1], GRID[2], "active"),
    ]
