"""The plan of a retract (CONTRACT §2.2 "Retract"): the assertion is undone, and what it had
pushed out or folded in comes back in the parts of its window no current row covers; a
value the person declared never true (a disowned row) never comes back, and what that row
had itself pushed out stands in for it.

Pure, like committer.rules.plan: current rows and predecessors in, a `Plan` out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from committer.rules.plan import Builder, Plan, RowSpec, carried
from graph.records import FactRecord


@dataclass(frozen=True, slots=True)
class Predecessor:
    """A retracted row that held before a row's assertion, as `plan_retract` needs it.

    Attributes:
        row: the retracted row (its old window and value).
        depth: how many REPLACES steps from the row being retracted to the row that
            pushed it out or folded it in (0: the row itself); for a row standing in for
            a disowned one, see `gather_predecessors`.
        disowned: the row is part of a claim a retract declared never true (CONTRACT
            §2.2): it is never brought back.
    """

    row: FactRecord
    depth: int
    disowned: bool = False


Found = tuple[str, FactRecord, int, bool]
"""(origin row id, a row its lineage pushed out or folded in, REPLACES depth, disowned)."""


def gather_predecessors(
    fact_id: str, lookup: Callable[[Sequence[str]], Iterable[Found]]
) -> list[Predecessor]:
    """What held before the claim of `fact_id`, through claims declared never true.

    A retract declares its row's claim never true for good: the row, the rows it continues,
    and their parts no longer current then (graph.cypher.fact_rows.PREDECESSORS says which
    rows are *disowned*). A disowned predecessor never comes back; in its place stand what
    held before it: the rows its own lineage pushed out or folded in, at its depth plus one
    plus theirs, and so on through disowned rows (so undoing the value that pushed out a
    retracted value brings back what that value had pushed out).

    Args:
        fact_id: the row being retracted.
        lookup: given row ids, yields `Found` for the rows each one's lineage pushed out
            or folded in (the store's query).

    Returns:
        Every row found, each once at its smallest depth, disowned ones flagged.
    """
    found: dict[str, Predecessor] = {}
    frontier = {fact_id: 0}
    while frontier:
        grown: dict[str, int] = {}
        for origin, row, depth, disowned in lookup(list(frontier)):
            at = frontier[origin] + depth
            if row.id in found and found[row.id].depth <= at:
                continue
            found[row.id] = Predecessor(row, at, disowned)
            if disowned:
                grown[row.id] = at + 1
        frontier = grown
    return list(found.values())


def plan_retract(
    row: FactRecord,
    lineage: Sequence[tuple[datetime, datetime]],
    predecessors: Sequence[Predecessor],
    rows: Sequence[FactRecord],
) -> Plan:
    """Plan retracting a row that was never true (CONTRACT §2.2 retract).

    Args:
        row: the current row to undo.
        lineage: the windows of `row` and of every row it continues (REPLACES, any
            depth): the claim this row is what remains of.
        predecessors: the rows that `row`, or a row it continues, pushed out (another
            value) or folded in (the same value, stated separately before), and those
            standing in for disowned ones (`gather_predecessors`).
        rows: the current rows of the (entity, attribute) that end at or after the
            lineage's earliest start, `row` included.

    Returns:
        Retract `row` with no replacement. Every part of the lineage's windows that no
        other current row covers goes back to what held there before the claim: the
        predecessor nearest in the lineage, then the most recently recorded, whose old
        window covers it; a disowned predecessor (declared never true by a retract)
        never comes back. Adjacent parts of one value are recorded as one row, coalesced
        with current rows of that value they touch; a row's status is that of the part
        supplying its end, and a part cut short where another value starts is
        `superseded` (`_piece_status`).
    """
    plan = Builder(retract=[row.id])
    remaining = [r for r in rows if r.id != row.id]
    gaps: list[tuple[datetime, datetime]] = []
    for start, stop in sorted(lineage):
        gaps = [*_subtract(gaps, start, stop), (start, stop)]
    for r in remaining:
        gaps = _subtract(gaps, r.valid_from, r.valid_to)
    pieces: list[tuple[datetime, datetime, FactRecord]] = []
    held = [p for p in predecessors if not p.disowned]
    order = sorted(held, key=lambda p: (p.depth, -p.row.recorded_at.timestamp(), p.row.id))
    for pred in order:
        old = pred.row
        for gap_start, gap_stop in sorted(gaps):
            start, stop = max(gap_start, old.valid_from), min(gap_stop, old.valid_to)
            if start < stop:
                pieces.append((start, stop, old))
                gaps = _subtract(gaps, start, stop)
    by_value: dict[str, list[tuple[datetime, datetime, str, FactRecord]]] = {}
    starts = [(r.valid_from, r.value_norm) for r in remaining]
    starts += [(start, old.value_norm) for start, _, old in pieces]
    for start, stop, old in pieces:
        by_value.setdefault(old.value_norm, []).append(
            (start, stop, _piece_status(stop, old, starts), old)
        )
    for norm in sorted(by_value):
        same = [r for r in remaining if r.value_norm == norm]
        for start, stop, status, carrier, continues in _join(by_value[norm], same):
            plan.retract.extend(i for i in continues if i in {r.id for r in same})
            plan.record.append(
                RowSpec(carried(carrier), start, stop, status, "restored", tuple(continues))
            )
    return Plan(effect="retracted", retract=tuple(plan.retract), record=tuple(plan.record))


def _piece_status(stop: datetime, old: FactRecord, starts: Sequence[tuple[datetime, str]]) -> str:
    """The status of a brought-back part of `old` ending at `stop`: `superseded` when it is
    cut short of `old`'s window where a row of another value starts (`starts`: (start,
    value_norm) of the current rows and of the other parts brought back), as rule 2 and 3
    record a row another value ends (CONTRACT §2.1); else `old`'s own status."""
    if stop < old.valid_to and any(at == stop and norm != old.value_norm for at, norm in starts):
        return "superseded"
    return old.status


def _join(
    pieces: Sequence[tuple[datetime, datetime, str, FactRecord]],
    rows: Sequence[FactRecord],
) -> list[tuple[datetime, datetime, str, FactRecord, list[str]]]:
    """Join restored pieces of one value (start, stop, status, the row it brings back) with
    each other and with current rows of that value that they overlap or touch, into
    maximal runs.

    Returns, per run that contains a piece: (start, stop, status, the row whose value
    and provenance it carries, the ids it continues: pieces' sources and folded rows).
    The status is that of the element supplying the end (a piece, on a tie).
    """
    items = [(s, e, status, old, old.id, True) for s, e, status, old in pieces]
    items += [(r.valid_from, r.valid_to, r.status, r, r.id, False) for r in rows]
    items.sort(key=lambda it: (it[0], not it[5], it[4]))
    runs: list[list[tuple[datetime, datetime, str, FactRecord, str, bool]]] = []
    for item in items:
        if runs and item[0] <= max(it[1] for it in runs[-1]):
            runs[-1].append(item)
        else:
            runs.append([item])
    out = []
    for run in runs:
        restored = [it for it in run if it[5]]
        if not restored:
            continue
        end = max(run, key=lambda it: (it[1], it[5]))
        continues = list(dict.fromkeys(it[4] for it in run))
        out.append((run[0][0], end[1], end[2], restored[0][3], continues))
    return out


def _subtract(
    gaps: list[tuple[datetime, datetime]], start: datetime, stop: datetime
) -> list[tuple[datetime, datetime]]:
    out: list[tuple[datetime, datetime]] = []
    for a, b in gaps:
        if stop <= a or b <= start:
            out.append((a, b))
            continue
        if a < start:
            out.append((a, start))
        if stop < b:
            out.append((stop, b))
    return out
