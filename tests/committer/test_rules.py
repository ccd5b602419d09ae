"""Table-driven tests of the pure committer rules (CONTRACT §2.1, §2.2): no database, no mocks.

Months of 2024 stand for valid times; `None` as an end is open (`FAR_FUTURE`). A row is
written `(id, value, from_month, to_month | None, status)`; a planned row is
`(value, from_month, to_month | None, status, role)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from committer.rules.normalize import value_norm
from committer.rules.plan import NewValue, Plan, plan_assert, plan_end
from committer.rules.retract import Predecessor, gather_predecessors, plan_retract
from graph.errors import InvalidInterval
from graph.records import FactRecord
from graph.time import FAR_FUTURE
from tests.oracle import Oracle, Row

RECORDED = datetime(2024, 1, 1, tzinfo=UTC)
RowT = tuple[str, str, int, int | None, str]
SpecT = tuple[str, int, int | None, str, str]


def m(month: int | None) -> datetime:
    """Month `month` of 2024 (13 = January 2025), or open for None."""
    if month is None:
        return FAR_FUTURE
    year, index = divmod(month - 1, 12)
    return datetime(2024 + year, index + 1, 1, tzinfo=UTC)


def month_of(at: datetime) -> int | None:
    if at >= FAR_FUTURE:
        return None
    return (at.year - 2024) * 12 + at.month


def fact(
    spec: RowT, cardinality: str = "one", source: str = "user_edit", recorded: int = 0
) -> FactRecord:
    row_id, value, start, stop, status = spec
    return FactRecord(
        id=row_id,
        owner="o",
        entity_id="e",
        attribute="location" if cardinality == "one" else "likes",
        value=value,
        object_id=None,
        value_norm=value_norm(value, None),
        cardinality=cardinality,
        valid_from=m(start),
        valid_to=m(stop),
        recorded_at=RECORDED + timedelta(minutes=recorded),
        retracted_at=FAR_FUTURE,
        status=status,
        source=source,
        evidence=f"evidence of {row_id}",
        reason=None,
        confidence=1.0,
        run_id=None,
        message_id=None,
    )


def new(value: str, cardinality: str = "one", status: str = "active") -> NewValue:
    return NewValue(
        value=value,
        object_id=None,
        value_norm=value_norm(value, None),
        cardinality=cardinality,
        provenance={"source": "user_stated", "evidence": "new"},
        status=status,
    )


def specs(plan: Plan) -> list[SpecT]:
    return sorted(
        (str(r.value.value), m_or(r.valid_from), month_of(r.valid_to), r.status, r.role)
        for r in plan.record
    )


def m_or(at: datetime) -> int:
    month = month_of(at)
    assert month is not None
    return month


def ordered(items: list[SpecT]) -> list[SpecT]:
    return sorted(items, key=lambda s: (s[0], s[1], -1 if s[2] is None else s[2], s[3], s[4]))


@dataclass(frozen=True)
class AssertCase:
    name: str
    rows: list[RowT]
    value: str
    start: int
    stop: int | None
    effect: str
    retract: set[str] = field(default_factory=set)
    record: list[SpecT] = field(default_factory=list)
    superseded: set[str] = field(default_factory=set)
    corroborates: str | None = None
    cardinality: str = "one"


ASSERT_CASES = [
    AssertCase(
        "first value",
        [],
        "Paris",
        1,
        None,
        "created",
        record=[("Paris", 1, None, "active", "asserted")],
    ),
    AssertCase(
        "duplicate: covered by an open row",
        [("p", "Paris", 1, None, "active")],
        "Paris",
        3,
        None,
        "duplicate",
        corroborates="p",
    ),
    AssertCase(
        "duplicate: normalized value",
        [("p", "Paris", 1, None, "active")],
        "  PARIS ",
        3,
        None,
        "duplicate",
        corroborates="p",
    ),
    AssertCase(
        "duplicate: closed window inside",
        [("p", "Paris", 1, 6, "active")],
        "Paris",
        2,
        3,
        "duplicate",
        corroborates="p",
    ),
    AssertCase(
        "duplicate: exactly the same closed window",
        [("p", "Paris", 1, 6, "active")],
        "Paris",
        1,
        6,
        "duplicate",
        corroborates="p",
    ),
    AssertCase(
        "coalesce: overlapping windows of one value",
        [("p", "Paris", 1, 3, "active")],
        "Paris",
        2,
        5,
        "created",
        {"p"},
        [("Paris", 1, 5, "active", "asserted")],
    ),
    AssertCase(
        "coalesce: adjacent windows of one value",
        [("p", "Paris", 1, 3, "active")],
        "Paris",
        3,
        5,
        "created",
        {"p"},
        [("Paris", 1, 5, "active", "asserted")],
    ),
    AssertCase(
        "coalesce: bridging two rows",
        [("p1", "Paris", 1, 3, "active"), ("p2", "Paris", 4, 6, "active")],
        "Paris",
        3,
        4,
        "created",
        {"p1", "p2"},
        [("Paris", 1, 6, "active", "asserted")],
    ),
    AssertCase(
        "coalesce: status of the row that supplies the end",
        [("p", "Paris", 3, 5, "superseded"), ("b", "Berlin", 5, None, "active")],
        "Paris",
        1,
        4,
        "created",
        {"p"},
        [("Paris", 1, 5, "superseded", "asserted")],
    ),
    AssertCase(
        "coalesce: a longer new window keeps its own status",
        [("p", "Paris", 3, 5, "superseded")],
        "Paris",
        4,
        8,
        "created",
        {"p"},
        [("Paris", 3, 8, "active", "asserted")],
    ),
    AssertCase(
        "supersede: later open value",
        [("p", "Paris", 1, None, "active")],
        "Berlin",
        5,
        None,
        "superseded",
        {"p"},
        [("Berlin", 5, None, "active", "asserted"), ("Paris", 1, 5, "superseded", "remainder")],
        {"p"},
    ),
    AssertCase(
        "supersede: equal valid_from, the newer wins",
        [("p", "Paris", 1, None, "active")],
        "Berlin",
        1,
        None,
        "superseded",
        {"p"},
        [("Berlin", 1, None, "active", "asserted")],
        {"p"},
    ),
    AssertCase(
        "supersede: a closed window splits a row into before and after",
        [("p", "Paris", 1, None, "active")],
        "Berlin",
        3,
        5,
        "superseded",
        {"p"},
        [
            ("Berlin", 3, 5, "active", "asserted"),
            ("Paris", 1, 3, "superseded", "remainder"),
            ("Paris", 5, None, "active", "remainder"),
        ],
        {"p"},
    ),
    AssertCase(
        "supersede: the part after keeps its status",
        [("p", "Paris", 1, 6, "superseded"), ("r", "Rome", 6, None, "active")],
        "Berlin",
        3,
        5,
        "superseded",
        {"p"},
        [
            ("Berlin", 3, 5, "active", "asserted"),
            ("Paris", 1, 3, "superseded", "remainder"),
            ("Paris", 5, 6, "superseded", "remainder"),
        ],
        {"p"},
    ),
    AssertCase(
        "supersede: a closed window over several rows",
        [
            ("p", "Paris", 1, 3, "superseded"),
            ("r", "Rome", 3, 6, "superseded"),
            ("b", "Berlin", 6, None, "active"),
        ],
        "Oslo",
        2,
        7,
        "superseded",
        {"p", "r", "b"},
        [
            ("Berlin", 7, None, "active", "remainder"),
            ("Oslo", 2, 7, "active", "asserted"),
            ("Paris", 1, 2, "superseded", "remainder"),
        ],
        {"p", "r", "b"},
    ),
    AssertCase(
        "supersede: a closed window ignores later rows it does not overlap",
        [("b", "Berlin", 5, None, "active")],
        "Paris",
        1,
        3,
        "created",
        record=[("Paris", 1, 3, "active", "asserted")],
    ),
    AssertCase(
        "supersede: a closed window is not cut by late knowledge",
        [("b", "Berlin", 5, None, "active")],
        "Paris",
        1,
        6,
        "superseded",
        {"b"},
        [("Berlin", 6, None, "active", "remainder"), ("Paris", 1, 6, "active", "asserted")],
        {"b"},
    ),
    AssertCase(
        "late knowledge: an older value ends where the newer starts",
        [("b", "Berlin", 5, None, "active")],
        "Paris",
        1,
        None,
        "created",
        record=[("Paris", 1, 5, "superseded", "asserted")],
    ),
    AssertCase(
        "late knowledge: the earliest later start wins",
        [("r", "Rome", 8, None, "active"), ("b", "Berlin", 5, 8, "superseded")],
        "Paris",
        1,
        None,
        "created",
        record=[("Paris", 1, 5, "superseded", "asserted")],
    ),
    AssertCase(
        "late knowledge: a later row of the same value is joined, not superseded",
        [("p", "Paris", 5, None, "active")],
        "Paris",
        1,
        None,
        "created",
        {"p"},
        [("Paris", 1, None, "active", "asserted")],
    ),
    AssertCase(
        "late knowledge then supersede the row it starts inside",
        [("p", "Paris", 1, 5, "superseded"), ("b", "Berlin", 5, None, "active")],
        "Rome",
        3,
        None,
        "superseded",
        {"p"},
        [("Paris", 1, 3, "superseded", "remainder"), ("Rome", 3, 5, "superseded", "asserted")],
        {"p"},
    ),
    AssertCase(
        "late knowledge: a duplicate once cut short",
        [("p", "Paris", 1, 5, "superseded"), ("b", "Berlin", 5, None, "active")],
        "Paris",
        2,
        None,
        "duplicate",
        corroborates="p",
    ),
    AssertCase(
        "many: distinct values side by side",
        [("t", "tea", 1, None, "active")],
        "coffee",
        3,
        None,
        "created",
        record=[("coffee", 3, None, "active", "asserted")],
        cardinality="many",
    ),
    AssertCase(
        "many: other values never cut an open window",
        [("c", "coffee", 5, None, "active")],
        "tea",
        1,
        None,
        "created",
        record=[("tea", 1, None, "active", "asserted")],
        cardinality="many",
    ),
    AssertCase(
        "many: late knowledge looks at the same value",
        [("t", "tea", 5, None, "active"), ("c", "coffee", 3, None, "active")],
        "tea",
        1,
        None,
        "created",
        {"t"},
        [("tea", 1, None, "active", "asserted")],
        cardinality="many",
    ),
    AssertCase(
        "many: duplicate",
        [("t", "tea", 1, None, "active")],
        "Tea",
        4,
        6,
        "duplicate",
        corroborates="t",
        cardinality="many",
    ),
]


@pytest.mark.parametrize("case", ASSERT_CASES, ids=lambda c: c.name)
def test_plan_assert(case: AssertCase) -> None:
    """plan_assert applies rules 1-4 of CONTRACT §2.1 as the table says."""
    rows = [fact(r, case.cardinality) for r in case.rows]
    plan = plan_assert(new(case.value, case.cardinality), m(case.start), m(case.stop), rows)
    assert plan.effect == case.effect
    assert set(plan.retract) == case.retract
    assert len(plan.retract) == len(set(plan.retract))
    assert ordered(specs(plan)) == ordered(case.record)
    assert set(plan.superseded) == case.superseded
    assert plan.corroborates == case.corroborates
    if case.effect != "duplicate":
        assert plan.primary is not None
        assert plan.record[plan.primary].role == "asserted"
        assert plan.record[plan.primary].value.value == case.value


def test_plan_assert_lineage() -> None:
    """The asserted row names the rows it pushed out and the rows of its value it joined."""
    rows = [fact(("p", "Paris", 1, None, "active")), fact(("b", "Berlin", 8, None, "active"))]
    plan = plan_assert(new("Berlin"), m(5), FAR_FUTURE, rows)
    assert plan.primary is not None
    primary = plan.record[plan.primary]
    assert (m_or(primary.valid_from), month_of(primary.valid_to)) == (5, None)
    assert primary.supersedes == ("p",)
    assert primary.coalesces == ("b",)
    assert primary.replaces == ()
    assert primary.value.provenance["evidence"] == "new"
    remainder = next(r for r in plan.record if r.role == "remainder")
    assert remainder.replaces == ("p",)
    assert remainder.value.provenance["evidence"] == "evidence of p"


@pytest.mark.parametrize(("start", "stop"), [(5, 5), (5, 3)])
def test_plan_assert_rejects_empty_window(start: int, stop: int) -> None:
    """A window whose end is not after its start is InvalidInterval (CONTRACT §2: half-open)."""
    with pytest.raises(InvalidInterval):
        plan_assert(new("Paris"), m(start), m(stop), [])


END_CASES = [
    (
        "open row ends at the commit time",
        ("p", "Paris", 1, None, "active"),
        6,
        [("Paris", 1, 6, "invalidated", "remainder")],
    ),
    (
        "a row that already ended keeps its end",
        ("p", "Paris", 1, 3, "superseded"),
        6,
        [("Paris", 1, 3, "invalidated", "remainder")],
    ),
    ("a future row is not recorded again", ("p", "Paris", 8, None, "active"), 6, []),
    (
        "a row starting at the commit time is not recorded again",
        ("p", "Paris", 6, None, "active"),
        6,
        [],
    ),
]


@pytest.mark.parametrize(
    ("name", "row", "until", "record"), END_CASES, ids=[c[0] for c in END_CASES]
)
def test_plan_end(name: str, row: RowT, until: int, record: list[SpecT]) -> None:
    """Forget retracts the row and records [from, min(to, now)) invalidated (CONTRACT §2.2)."""
    plan = plan_end(fact(row), m(until))
    assert plan.effect == "forgotten"
    assert plan.retract == ("p",)
    assert specs(plan) == record
    assert plan.superseded == ()


@dataclass(frozen=True)
class RetractCase:
    """Retract `row`; `lineage` lists the windows of the rows it continues (its own is
    added); `before` the rows it (or a row it continues) pushed out or folded in, as
    (row, depth, minutes after RECORDED it was recorded); `others` the other current rows."""

    name: str
    row: RowT
    before: list[tuple[RowT, int, int]]
    others: list[RowT]
    retract: set[str]
    record: list[SpecT]
    lineage: list[tuple[int, int | None]] = field(default_factory=list)
    disowned: set[str] = field(default_factory=set)
    """Ids in `before` that a retract declared never true."""


RETRACT_CASES = [
    RetractCase(
        "nothing pushed out: retract only",
        ("x", "Berlin", 5, None, "active"),
        [],
        [("p", "Paris", 1, 5, "superseded")],
        {"x"},
        [],
    ),
    RetractCase(
        "the earlier value holds on after the scrapped move",
        ("x", "Berlin", 5, None, "active"),
        [(("p0", "Paris", 1, None, "active"), 0, 0)],
        [("p", "Paris", 1, 5, "superseded")],
        {"x", "p"},
        [("Paris", 1, None, "active", "restored")],
    ),
    RetractCase(
        "a closed window is filled back and joined on both sides",
        ("x", "Berlin", 3, 6, "active"),
        [(("p0", "Paris", 1, None, "active"), 0, 0)],
        [("p1", "Paris", 1, 3, "superseded"), ("p2", "Paris", 6, None, "active")],
        {"x", "p1", "p2"},
        [("Paris", 1, None, "active", "restored")],
    ),
    RetractCase(
        "only the part the old window shared comes back",
        ("x", "Berlin", 1, None, "active"),
        [(("p0", "Paris", 3, 6, "active"), 0, 0)],
        [],
        {"x"},
        [("Paris", 3, 6, "active", "restored")],
    ),
    RetractCase(
        "only the part no current row covers comes back, superseded where Rome starts",
        ("x", "Berlin", 3, None, "active"),
        [(("p0", "Paris", 1, None, "active"), 0, 0)],
        [("r", "Rome", 6, None, "active")],
        {"x"},
        [("Paris", 3, 6, "superseded", "restored")],
    ),
    RetractCase(
        "several values come back in order, each with its status",
        ("x", "Oslo", 2, 7, "active"),
        [
            (("p0", "Paris", 1, 3, "superseded"), 0, 0),
            (("r0", "Rome", 3, 6, "superseded"), 0, 0),
            (("b0", "Berlin", 6, None, "active"), 0, 0),
        ],
        [("p", "Paris", 1, 2, "superseded"), ("b", "Berlin", 7, None, "active")],
        {"x", "p", "b"},
        [
            ("Berlin", 6, None, "active", "restored"),
            ("Paris", 1, 3, "superseded", "restored"),
            ("Rome", 3, 6, "superseded", "restored"),
        ],
    ),
    RetractCase(
        "two brought-back parts of one value that touch are one row",
        ("x", "Berlin", 1, 12, "active"),
        [(("a1", "Paris", 1, 5, "active"), 0, 0), (("a2", "Paris", 5, 12, "active"), 0, 1)],
        [],
        {"x"},
        [("Paris", 1, 12, "active", "restored")],
    ),
    RetractCase(
        "a remainder undoes its whole claim: Paris holds until Rome supersedes it",
        ("x", "Berlin", 5, 8, "superseded"),
        [(("p0", "Paris", 1, None, "active"), 1, 0)],
        [("p", "Paris", 1, 5, "superseded"), ("r", "Rome", 8, None, "active")],
        {"x", "p"},
        [("Paris", 1, 8, "superseded", "restored")],
        lineage=[(5, None)],
    ),
    RetractCase(
        "a forgotten remnant undoes its whole claim",
        ("x", "Berlin", 5, 7, "invalidated"),
        [(("p0", "Paris", 1, None, "active"), 1, 0)],
        [("p", "Paris", 1, 5, "superseded")],
        {"x", "p"},
        [("Paris", 1, None, "active", "restored")],
        lineage=[(5, None)],
    ),
    RetractCase(
        "a row of the same value folded in comes back",
        ("x", "Paris", 1, None, "active"),
        [(("p0", "Paris", 3, None, "active"), 0, 0)],
        [],
        {"x"},
        [("Paris", 3, None, "active", "restored")],
    ),
    RetractCase(
        "the predecessor nearest in the lineage wins",
        ("x", "Berlin", 1, None, "active"),
        [(("far", "Rome", 1, None, "active"), 1, 5), (("near", "Paris", 1, None, "active"), 0, 0)],
        [],
        {"x"},
        [("Paris", 1, None, "active", "restored")],
        lineage=[(1, None)],
    ),
    RetractCase(
        "at equal depth the most recently recorded wins",
        ("x", "Berlin", 1, None, "active"),
        [(("old", "Rome", 1, None, "active"), 0, 1), (("new", "Paris", 3, None, "active"), 0, 2)],
        [],
        {"x"},
        [("Paris", 3, None, "active", "restored"), ("Rome", 1, 3, "superseded", "restored")],
    ),
    RetractCase(
        "parts of one value on both sides of a row of that value are one row",
        ("x", "Berlin", 1, 2, "superseded"),
        [(("p0", "Paris", 0, None, "active"), 1, 0)],
        [
            ("p1", "Paris", 0, 1, "superseded"),
            ("p2", "Paris", 2, 4, "active"),
            ("p3", "Paris", 5, None, "active"),
        ],
        {"x", "p1", "p2", "p3"},
        [("Paris", 0, None, "active", "restored")],
        lineage=[(1, 5)],
    ),
    RetractCase(
        # Issue 13: Berlin [1, 9), cut to [1, 7) by Paris from 7, then retracted; Paris
        # from 7 (brought back when a wider Paris was retracted) is retracted in turn.
        "a predecessor declared never true does not come back",
        ("x", "Paris", 7, None, "active"),
        [(("b1", "Berlin", 1, 9, "active"), 1, 0)],
        [],
        {"x"},
        [],
        lineage=[(7, None)],
        disowned={"b1"},
    ),
    RetractCase(
        "what a disowned predecessor had pushed out comes back in its place",
        ("x", "Paris", 5, None, "active"),
        [(("b1", "Berlin", 3, None, "active"), 0, 1), (("r0", "Rome", 1, None, "active"), 1, 0)],
        [("r", "Rome", 1, 5, "active")],
        {"x", "r"},
        [("Rome", 1, None, "active", "restored")],
        disowned={"b1"},
    ),
    RetractCase(
        "a predecessor nearer than a stand-in still wins",
        ("x", "Paris", 3, None, "active"),
        [
            (("b1", "Berlin", 3, None, "active"), 0, 1),
            (("o1", "Oslo", 5, 8, "active"), 0, 2),
            (("r0", "Rome", 1, None, "active"), 1, 0),
        ],
        [],
        {"x"},
        [
            ("Oslo", 5, 8, "active", "restored"),
            ("Rome", 3, 5, "superseded", "restored"),
            ("Rome", 8, None, "active", "restored"),
        ],
        disowned={"b1"},
    ),
]


@pytest.mark.parametrize("case", RETRACT_CASES, ids=lambda c: c.name)
def test_plan_retract(case: RetractCase) -> None:
    """Retract undoes the claim: what held before comes back where nothing covers it (§2.2)."""
    row = fact(case.row)
    lineage = [(row.valid_from, row.valid_to), *((m(a), m(b)) for a, b in case.lineage)]
    before = [
        Predecessor(fact(r, recorded=minutes), depth, r[0] in case.disowned)
        for r, depth, minutes in case.before
    ]
    plan = plan_retract(row, lineage, before, [row, *map(fact, case.others)])
    assert plan.effect == "retracted"
    assert set(plan.retract) == case.retract
    assert len(plan.retract) == len(set(plan.retract))
    assert ordered(specs(plan)) == ordered(case.record)


def test_plan_retract_restores_provenance() -> None:
    """A value that comes back carries its own provenance, not the retracted row's."""
    row = fact(("x", "Berlin", 5, None, "active"))
    old = fact(("p0", "Paris", 1, None, "active"), source="user_stated")
    plan = plan_retract(row, [(row.valid_from, row.valid_to)], [Predecessor(old, 0)], [row])
    (restored,) = plan.record
    assert restored.value.provenance["source"] == "user_stated"
    assert restored.value.provenance["evidence"] == "evidence of p0"
    assert "p0" in restored.replaces


# -- what held before a claim, through claims declared never true ---------------------

GATHER_CASES = [
    (
        "nothing disowned: one lookup, depths as found",
        {"x": [("p", 0, False), ("q", 1, False)]},
        {"p": (0, False), "q": (1, False)},
    ),
    (
        "a disowned row gives way to what its lineage pushed out, one step further",
        {"x": [("b", 1, True)], "b": [("a", 0, False)]},
        {"b": (1, True), "a": (2, False)},
    ),
    (
        "through two disowned rows in a row",
        {"x": [("c", 0, True)], "c": [("b", 1, True)], "b": [("a", 0, False)]},
        {"c": (0, True), "b": (2, True), "a": (3, False)},
    ),
    (
        "a row found two ways keeps its smaller depth",
        {"x": [("b", 0, True), ("a", 3, False)], "b": [("a", 0, False)]},
        {"b": (0, True), "a": (1, False)},
    ),
]


@pytest.mark.parametrize(("name", "lineages", "expected"), GATHER_CASES, ids=lambda c: c)
def test_gather_predecessors(
    name: str,
    lineages: dict[str, list[tuple[str, int, bool]]],
    expected: dict[str, tuple[int, bool]],
) -> None:
    """A disowned predecessor is kept, flagged, and what its own lineage pushed out or
    folded in stands in for it at its depth plus one plus theirs (CONTRACT §2.2)."""
    asked: list[list[str]] = []

    def lookup(ids: list[str]) -> list[tuple[str, FactRecord, int, bool]]:
        asked.append(sorted(ids))
        return [
            (origin, fact((row, "V", 1, None, "active")), depth, disowned)
            for origin in ids
            for row, depth, disowned in lineages.get(origin, [])
        ]

    got = gather_predecessors("x", lookup)
    assert {p.row.id: (p.depth, p.disowned) for p in got} == expected
    assert asked[0] == ["x"]
    assert all(set(ids) <= {i for i, (_, d) in expected.items() if d} for ids in asked[1:])


# -- the oracle on retracts ---------------------------------------------------------

ORACLE_RETRACT_CASES = [
    (
        "issue 13: a value retracted as a remnant does not come back through later undos",
        [
            ("assert", "Berlin", 1, 9),
            ("assert", "Paris", 7, None),
            ("retract", "Berlin", 1),
            ("assert", "Paris", 3, 11),
            ("retract", "Paris", 3),
            ("retract", "Paris", 7),
        ],
        [],
    ),
    (
        "what the retracted value had pushed out comes back in its place",
        [
            ("assert", "Rome", 1, None),
            ("assert", "Berlin", 3, None),
            ("assert", "Paris", 5, None),
            ("retract", "Berlin", 3),
            ("retract", "Paris", 5),
        ],
        [("Rome", 1, None, "active")],
    ),
    (
        "a part recorded again and pushed out before the retract stays out",
        [
            ("assert", "Berlin", 1, 9),
            ("assert", "Paris", 3, 5),
            ("assert", "Rome", 7, None),
            ("retract", "Berlin", 1),
            ("retract", "Rome", 7),
        ],
        [("Berlin", 5, 7, "superseded"), ("Paris", 3, 5, "active")],
    ),
    (
        "a part still current after the retract comes back when its pusher is undone",
        [
            ("assert", "Berlin", 1, 9),
            ("assert", "Paris", 3, 5),
            ("retract", "Berlin", 1),
            ("assert", "Rome", 7, None),
            ("retract", "Rome", 7),
        ],
        [("Berlin", 5, 9, "active"), ("Paris", 3, 5, "active")],
    ),
    (
        "forget disowns nothing: the forgotten move's remnant, retracted, brings Paris back",
        [
            ("assert", "Paris", 1, None),
            ("assert", "Berlin", 3, None),
            ("forget", "Berlin", 3),
            ("retract", "Berlin", 3),
        ],
        [("Paris", 1, None, "active")],
    ),
]


@pytest.mark.parametrize(("name", "ops", "expected"), ORACLE_RETRACT_CASES, ids=lambda c: c)
def test_oracle_retract(
    name: str,
    ops: list[tuple[Any, ...]],
    expected: list[tuple[str, int, int | None, str]],
) -> None:
    """The oracle (tests/oracle.py) on its own: a value a retract declared never true never
    comes back through a later retract; what it had pushed out may (CONTRACT §2.2)."""
    oracle = Oracle()
    t = iter(datetime(2030, 1, 1, second=i, tzinfo=UTC) for i in range(60))
    for op, value, start, *stop in ops:
        if op == "assert":
            oracle.assert_(next(t), "e", "location", value, m(start), m(stop[0]))
            continue
        (row,) = [r for r in oracle.current() if r.value == value and r.valid_from == m(start)]
        getattr(oracle, op)(next(t), row.id)
    got = sorted(
        (r.value, m_or(r.valid_from), month_of(r.valid_to), r.status) for r in oracle.current()
    )
    assert got == expected


# -- plan_assert against the oracle, over states the oracle reaches --------------------

GRID = [1, 2, 3, 5, 8, None]


@st.composite
def steps(draw: st.DrawFn) -> tuple[str, int, int | None]:
    value = draw(st.sampled_from(["Paris", "Berlin", "Rome", "paris"]))
    start = draw(st.sampled_from([g for g in GRID if g is not None]))
    stop = draw(st.sampled_from([g for g in GRID if g is None or g > start]))
    return value, start, stop


step = steps()


def _as_fact(row: object, cardinality: str) -> FactRecord:

    assert isinstance(row, Row)
    return FactRecord(
        id=row.id,
        owner="o",
        entity_id="e",
        attribute=row.attribute,
        value=row.value,
        object_id=None,
        value_norm=value_norm(row.value, None),
        cardinality=cardinality,
        valid_from=row.valid_from,
        valid_to=row.valid_to,
        recorded_at=row.recorded_at,
        retracted_at=row.retracted_at,
        status=row.status,
        source="user_edit",
        evidence=None,
        reason=None,
        confidence=1.0,
        run_id=None,
        message_id=None,
    )


@settings(max_examples=300, deadline=None)
@given(
    history=st.lists(step, max_size=6),
    last=step,
    cardinality=st.sampled_from(["one", "many"]),
)
def test_plan_assert_agrees_with_oracle(
    history: list[tuple[str, int, int | None]],
    last: tuple[str, int, int | None],
    cardinality: str,
) -> None:
    """Over any state reached by assertions, plan_assert does what the oracle does."""
    oracle = Oracle()
    t = iter(datetime(2030, 1, 1, second=i, tzinfo=UTC) for i in range(60))
    for value, start, stop in history:
        oracle.assert_(next(t), "e", "a", value, m(start), m(stop), cardinality)
    rows = [_as_fact(r, cardinality) for r in oracle.current()]
    value, start, stop = last
    plan = plan_assert(new(value, cardinality), m(start), m(stop), rows)
    outcome = oracle.assert_(next(t), "e", "a", value, m(start), m(stop), cardinality)
    assert plan.effect == outcome.effect
    if outcome.effect == "duplicate":
        assert outcome.fact is not None
        assert plan.corroborates == outcome.fact.id
        return
    assert set(plan.retract) == {r.id for r in outcome.retracted}
    assert set(plan.superseded) == {r.id for r in outcome.superseded}
    planned = sorted((str(r.value.value), r.valid_from, r.valid_to, r.status) for r in plan.record)
    modelled = sorted((str(r.value), r.valid_from, r.valid_to, r.status) for r in outcome.recorded)
    assert planned == modelled


@pytest.mark.parametrize(
    ("rows", "window", "expected"),
    [
        ([], (1, 3), [("Paris", 1, 3, "superseded", "asserted")]),  # its own end: kept
        ([], (1, None), [("Paris", 1, None, "active", "asserted")]),  # open: active
        # Coalesced with a longer row of its value: that row's end, that row's status.
        ([("r1", "Paris", 2, 5, "active")], (1, 3), [("Paris", 1, 5, "active", "asserted")]),
        # Cut short by a later row of another value (rule 3 does not apply: closed).
        ([("r1", "Rome", 3, None, "active")], (1, 3), [("Paris", 1, 3, "superseded", "asserted")]),
    ],
)
def test_a_moved_row_keeps_its_status_where_its_own_end_closes_it(
    rows: list[RowT], window: tuple[int, int | None], expected: list[SpecT]
) -> None:
    """`NewValue.status` (a row moved by a merge, CONTRACT §5) is the new row's status when
    its own closed end ends it, as for a row recorded again; otherwise the rules decide."""
    plan = plan_assert(
        new("Paris", status="superseded"), m(window[0]), m(window[1]), [fact(r) for r in rows]
    )
    assert specs(plan) == expected
