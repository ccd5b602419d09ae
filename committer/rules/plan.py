"""Plans for one write to one (entity, attribute): assert, forget/end, retract.

Pure functions over the attribute's *current* rows (`retracted_at` open). The plan says
which rows to retract and which rows to record; `committer.apply` executes it at the
commit time `t` in one transaction. Sources of each rule: CONTRACT §2.1 (assert),
§2.2 (forget, retract).

Row statuses: `active` (holds, or ends where the person said it ends), `superseded`
(ends because another value of a `one` attribute starts there, whichever arrived
first), `invalidated` (forgotten or stated to have ended).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from committer.rules.normalize import near_duplicate
from graph.errors import InvalidInterval
from graph.fields import Scalar
from graph.records import FactRecord
from graph.time import FAR_FUTURE

Provenance = dict[str, object]
"""source, evidence, reason, confidence, run_id, message_id, speaker_id (as stored on a row)."""


@dataclass(frozen=True, slots=True)
class NewValue:
    """The value part of an assertion, already normalized.

    Attributes:
        value: JSON scalar, or None for a relationship.
        object_id: object entity id for a relationship, else None.
        value_norm: see `committer.rules.normalize.value_norm`.
        cardinality: "one" or "many".
        provenance: stored on the rows this value produces.
        status: the status its row takes where the assertion's own end stands (a row
            moved by a merge or split keeps its `superseded` or `invalidated`); rule 3
            and coalescing decide it otherwise.
        near: a near-duplicate value (`committer.rules.normalize.near_duplicate`) of a
            `many` attribute counts as the same value for rule 1 (a statement from chat).
    """

    value: Scalar | None
    object_id: str | None
    value_norm: str
    cardinality: str
    provenance: Provenance
    status: str = "active"
    near: bool = False


@dataclass(frozen=True, slots=True)
class RowSpec:
    """A row to record at the commit time.

    Attributes:
        value: the value (copied from the assertion or from the row it continues).
        valid_from: start, aware UTC.
        valid_to: end, aware UTC (`FAR_FUTURE` = open).
        status: "active" | "superseded" | "invalidated".
        role: "asserted" (the row standing for the assertion), "remainder" (the
            untouched part of a row it retracted) or "restored" (CONTRACT §2.2 retract).
        replaces: ids of the retracted rows this row continues: the row it is a part
            of (a remainder), or the rows whose value it brings back (restored).
        supersedes: ids of the rows of other values this row pushed out.
        coalesces: ids of rows of the same value, stated before, that an asserted row
            folded into its window. A retract of this row brings back both these and
            the pushed-out rows (CONTRACT §2.2: the assertion is undone).
    """

    value: NewValue
    valid_from: datetime
    valid_to: datetime
    status: str
    role: str
    replaces: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    coalesces: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Plan:
    """What one write does.

    Attributes:
        effect: "created" | "duplicate" | "superseded" | "forgotten" | "retracted" | "none".
        retract: ids of current rows whose `retracted_at` becomes the commit time.
        record: rows to create; `record[primary]` stands for the assertion, if any.
        primary: index into `record`, or None.
        corroborates: for a duplicate, the id of the existing row that covers it.
        superseded: ids of rows of *other* values retracted by this write.
    """

    effect: str
    retract: tuple[str, ...] = ()
    record: tuple[RowSpec, ...] = ()
    primary: int | None = None
    corroborates: str | None = None
    superseded: tuple[str, ...] = ()


@dataclass(slots=True)
class Builder:
    """A plan being built: rows to retract and rows to record, in order."""

    retract: list[str] = field(default_factory=list)
    record: list[RowSpec] = field(default_factory=list)


def carried(row: FactRecord) -> NewValue:
    """The value of an existing row, to record a part of it again unchanged."""
    return NewValue(
        value=row.value,
        object_id=row.object_id,
        value_norm=row.value_norm,
        cardinality=row.cardinality,
        provenance={
            "source": row.source,
            "evidence": row.evidence,
            "reason": row.reason,
            "confidence": row.confidence,
            "run_id": row.run_id,
            "message_id": row.message_id,
            "speaker_id": row.speaker_id,
        },
    )


def _overlaps(row: FactRecord, start: datetime, end: datetime) -> bool:
    return row.valid_from < end and start < row.valid_to


def _touches(row: FactRecord, start: datetime, end: datetime) -> bool:
    """Overlapping or adjacent (CONTRACT §2.1 rule 1: such windows of one value coalesce)."""
    return row.valid_from <= end and start <= row.valid_to


def plan_assert(
    new: NewValue,
    valid_from: datetime,
    valid_to: datetime,
    rows: Sequence[FactRecord],
) -> Plan:
    """Plan an assertion N against the current rows of its (entity, attribute).

    Args:
        new: the value, its cardinality and provenance.
        valid_from: N's start, aware UTC (the caller defaults it to the commit time).
        valid_to: N's end, aware UTC, `FAR_FUTURE` when open.
        rows: every current row of the (entity, attribute), any value.

    Returns:
        The plan. Rules, in CONTRACT §2.1 order of effect: rule 3 (late knowledge)
        shortens an open N to the earliest later start; rule 1 (duplicate) returns
        "duplicate" when one row of the value covers N (for `new.near` and a `many`
        attribute, else when one row of a near-duplicate value covers it: the earliest
        such row); rule 2 (supersede, `one` only)
        retracts overlapping rows of other values and records their parts outside N;
        rule 1 again coalesces N with overlapping or adjacent rows of the same value;
        rule 4 makes `many` look only at rows of the same value.

    Raises:
        InvalidInterval: `valid_to <= valid_from`.
    """
    if valid_to <= valid_from:
        raise InvalidInterval()
    same = [r for r in rows if r.value_norm == new.value_norm]
    one = new.cardinality == "one"
    others = [r for r in rows if r.value_norm != new.value_norm] if one else []

    # Rule 3: an older fact arriving late never overrides newer knowledge.
    end, end_status = valid_to, "active" if valid_to >= FAR_FUTURE else new.status
    if valid_to >= FAR_FUTURE:
        later = [r.valid_from for r in (rows if one else same) if r.valid_from > valid_from]
        if later:
            end = min(later)
            end_status = "superseded" if any(r.valid_from == end for r in others) else "active"

    # Rule 1: a row of the same value already covers N.
    for r in same:
        if r.valid_from <= valid_from and end <= r.valid_to:
            return Plan(effect="duplicate", corroborates=r.id)
    if new.near and not one:  # ... or, said in chat, a row of a near-duplicate value
        for r in sorted(rows, key=lambda r: (r.valid_from, r.id)):
            if (
                r.valid_from <= valid_from
                and end <= r.valid_to
                and r.value_norm != new.value_norm
                and near_duplicate(r.value_norm, new.value_norm)
            ):
                return Plan(effect="duplicate", corroborates=r.id)

    plan = Builder()
    superseded: list[str] = []
    # Rule 2: supersede every overlapping row of another value.
    for r in sorted(others, key=lambda r: (r.valid_from, r.id)):
        if not _overlaps(r, valid_from, end):
            continue
        superseded.append(r.id)
        plan.retract.append(r.id)
        if r.valid_from < valid_from:
            plan.record.append(
                RowSpec(carried(r), r.valid_from, valid_from, "superseded", "remainder", (r.id,))
            )
        if r.valid_to > end:
            plan.record.append(RowSpec(carried(r), end, r.valid_to, r.status, "remainder", (r.id,)))

    start, stop, status, merged = _coalesce(same, valid_from, end, end_status, plan)
    plan.record.append(
        RowSpec(new, start, stop, status, "asserted", (), tuple(superseded), tuple(merged))
    )
    return Plan(
        effect="superseded" if superseded else "created",
        retract=tuple(plan.retract),
        record=tuple(plan.record),
        primary=len(plan.record) - 1,
        superseded=tuple(superseded),
    )


def _coalesce(
    same: Iterable[FactRecord],
    start: datetime,
    stop: datetime,
    status: str,
    plan: Builder,
) -> tuple[datetime, datetime, str, list[str]]:
    """Widen [start, stop) over every same-value row it overlaps or touches; retract those rows.

    Returns the widened window, the status of whichever row supplies the end, and the
    ids of the rows folded in.
    """
    merged: list[str] = []
    for r in sorted(same, key=lambda r: (r.valid_from, r.id)):
        if not _touches(r, start, stop):
            continue
        merged.append(r.id)
        plan.retract.append(r.id)
        start = min(start, r.valid_from)
        if r.valid_to > stop:
            stop, status = r.valid_to, r.status
    return start, stop, status, merged


def plan_end(row: FactRecord, until: datetime) -> Plan:
    """Plan ending a row at valid time `until` (CONTRACT §2.2 forget; "I no longer ...").

    Args:
        row: a current row.
        until: the first instant at which the fact no longer holds, aware UTC. Forget
            passes the commit time.

    Returns:
        Retract `row` and record it again with `valid_to = min(valid_to, until)`, status
        `invalidated`; nothing is recorded again when the row would start at or after
        `until` (it will never hold).
    """
    if row.valid_from >= until:
        return Plan(effect="forgotten", retract=(row.id,))
    spec = RowSpec(
        carried(row),
        row.valid_from,
        min(row.valid_to, until),
        "invalidated",
        "remainder",
        (row.id,),
    )
    return Plan(effect="forgotten", retract=(row.id,), record=(spec,), primary=0)
