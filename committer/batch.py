"""Several writes of one owner in one transaction at one commit time (CONTRACT §2.1).

`Batch` plans each write with the pure rules against an in-memory copy of the current
rows, so later writes in the batch see earlier ones, then writes everything in a few
round trips (`flush`). Used by every committer operation, from one REST assertion to a
run's worth of proposals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from committer.proposals import Assertion, Provenance
from committer.rules.normalize import value_norm
from committer.rules.plan import NewValue, Plan, RowSpec, plan_assert
from committer.search_index import index_new_rows
from committer.trail import Trail
from graph import attributes as registry
from graph.errors import InvalidInput
from graph.records import FactRecord
from graph.time import FAR_FUTURE, open_end, to_utc
from graph.write.writer import LINK_FIELDS, WriteTx, new_id


@dataclass(frozen=True, slots=True)
class CommitResult:
    """The outcome of one assertion (CONTRACT §10 `POST /v1/entities/{id}/facts`).

    Attributes:
        fact: the row standing for the assertion (the existing row for a duplicate).
        effect: "created" | "duplicate" | "superseded".
        superseded: ids of rows of other values that were retracted.
        retracted: every row id retracted by this commit.
        recorded_at: the commit's transaction time, aware UTC.
        event_id: the event it was committed for (the action, decision or sync; CONTRACT
            §8), or None.
    """

    fact: FactRecord
    effect: str
    superseded: tuple[str, ...]
    retracted: tuple[str, ...]
    recorded_at: datetime
    event_id: str | None = None


PERSON_SOURCES = frozenset({"user_stated", "user_edit"})
"""Sources of values the person stated themselves (CONTRACT §2.1 rule 5, §10)."""


def start_of(valid_from: datetime | None, t: datetime) -> datetime:
    """The instant a write starts touching valid time: its valid_from, or the commit time."""
    return t if valid_from is None else to_utc(valid_from, "valid_from")


def _provenance(prov: Provenance) -> dict[str, Any]:
    return {
        "source": prov.source,
        "evidence": prov.evidence,
        "reason": prov.reason,
        "confidence": prov.confidence,
        "run_id": prov.run_id,
        "message_id": prov.message_id,
        "speaker_id": prov.speaker_id,
    }


def _new_value(a: Assertion) -> NewValue:
    if (a.value is None) == (a.object_id is None):
        raise InvalidInput("value", "give exactly one of value and object_id")
    if isinstance(a.value, str) and not a.value.strip():
        raise InvalidInput("value", "must not be empty")
    return NewValue(
        value=a.value,
        object_id=a.object_id,
        value_norm=value_norm(a.value, a.object_id),
        cardinality=registry.cardinality(a.attribute, a.cardinality),
        provenance=_provenance(a.provenance),
        status=a.status,
        near=a.near_duplicates,
    )


WRITTEN = {"asserted": "created", "remainder": "remainder", "restored": "restored"}
"""The effect op of a recorded row, by its role in the plan (CONTRACT §8)."""


def ended_op(plan: Plan, row_id: str) -> str:
    """The effect op of a row a plan retracts: pushed out by another value (`superseded`),
    forgotten or ended (`invalidated`), undone (`retracted`), or folded into a row of its
    value (`coalesced`)."""
    if row_id in plan.superseded:
        return "superseded"
    if plan.effect == "forgotten":
        return "invalidated"
    if plan.effect == "retracted" and row_id == plan.retract[0]:
        return "retracted"
    return "coalesced"


class Batch:
    """Several writes in one transaction at one commit time `t`.

    Plans run against an in-memory copy of the current rows of each (entity, attribute),
    updated after every plan, so later writes in the batch see earlier ones. `flush`
    then records every new row and retracts every ended row in a few round trips. Only
    rows that end at or after the earliest instant a write touches are loaded (a
    supersede at the present reads one row, however deep the history). Every row
    recorded or retracted is noted on `trail` as an effect of its current cause, and
    written with the rows (CONTRACT §8).

    A row this batch recorded and a later write folds into a row of its value (a merge
    moving two windows that a survivor's row bridges; two adjacent windows asserted in
    one call) never existed on its own: it is not written, the row that folded it in
    takes over its links, corroborations and trail, and `final` names that row wherever
    a caller kept the first id. Nothing is recorded and retracted at one instant.
    """

    def __init__(self, w: WriteTx, owner: str, t: datetime, trail: Trail):
        self.w, self.owner, self.t, self.trail = w, owner, t, trail
        self._state: dict[tuple[str, str], list[FactRecord]] = {}
        self._since: dict[tuple[str, str], datetime] = {}
        self._creates: list[dict[str, Any]] = []
        self._retracts: list[str] = []
        self._corroborations: list[dict[str, Any]] = []
        self._asserted: list[tuple[str, str, str, str | None]] = []
        self._conflicts: list[dict[str, Any]] = []
        self._pending: dict[str, dict[str, Any]] = {}
        self._records: dict[str, FactRecord] = {}
        self._folded: dict[str, str] = {}

    def load(self, needs: Sequence[tuple[str, str, datetime]]) -> None:
        """Make sure each (entity, attribute) has its current rows ending at or after `since`."""
        wanted: dict[tuple[str, str], datetime] = {}
        for entity_id, attribute, since in needs:
            pair = (entity_id, attribute)
            if pair not in self._since or since < self._since[pair]:
                wanted[pair] = min(since, wanted.get(pair, since))
        if not wanted:
            return
        gone = set(self._retracts)
        for pair, fetched in self.w.current_rows_many(self.owner, wanted).items():
            known = {r.id for r in self._state.get(pair, [])}
            extra = [r for r in fetched if r.id not in known and r.id not in gone]
            rows = sorted([*self._state.get(pair, []), *extra], key=lambda r: (r.valid_from, r.id))
            self._state[pair] = rows
            self._since[pair] = wanted[pair]

    def rows(self, entity_id: str, attribute: str, since: datetime) -> list[FactRecord]:
        """The current rows of a pair ending at or after `since`, as this batch leaves them."""
        self.load([(entity_id, attribute, since)])
        return [r for r in self._state[(entity_id, attribute)] if r.valid_to >= since]

    def execute(
        self, plan: Plan, entity_id: str, attribute: str, ended: str | None = None
    ) -> list[FactRecord]:
        """Queue a plan's writes; return its new rows in plan order.

        Args:
            plan: the plan.
            entity_id: the entity its rows are recorded on.
            attribute: their attribute.
            ended: the effect op of the rows it retracts (default `ended_op`): `moved`
                for a merge or split.
        """
        specs = [_row(spec, entity_id, attribute) for spec in plan.record]
        ops = {i: ended or ended_op(plan, i) for i in plan.retract}
        folded = {i for i, op in ops.items() if op == "coalesced" and i in self._pending}
        self.trail.ended((i, op) for i, op in ops.items() if i not in folded)
        self.trail.wrote(
            (row["id"], WRITTEN[spec.role]) for row, spec in zip(specs, plan.record, strict=True)
        )
        for i in folded:
            self._fold(i, next(row for row in specs if _links_to(row, i)))
        records = [_record(self.owner, spec, self.t) for spec in specs]
        gone = set(plan.retract)
        pair = (entity_id, attribute)
        self._state[pair] = [r for r in self._state.get(pair, []) if r.id not in gone] + records
        self._creates.extend(specs)
        self._retracts.extend(i for i in plan.retract if i not in folded)
        self._pending.update((row["id"], row) for row in specs)
        self._records.update((r.id, r) for r in records)
        return records

    def _fold(self, row_id: str, into: dict[str, Any]) -> None:
        """Drop a row recorded earlier in this batch that `into` folds in: `into`
        continues, pushes out and folds in what it did, and takes its corroborations
        and its place in the trail."""
        gone = self._pending.pop(row_id)
        self._creates.remove(gone)
        for kind in LINK_FIELDS:
            into[kind] = list(dict.fromkeys([i for i in into[kind] if i != row_id] + gone[kind]))
        for c in self._corroborations:
            if c["fact_id"] == row_id:
                c["fact_id"] = into["id"]
        self.trail.fold(row_id, into["id"])
        self._folded[row_id] = into["id"]

    def final(self, fact_id: str) -> str:
        """The row that stands for `fact_id` once the batch is written: itself, or the
        row of its value that a later write of this batch folded it into."""
        while fact_id in self._folded:
            fact_id = self._folded[fact_id]
        return fact_id

    def standing(self, fact_id: str) -> FactRecord:
        """The record of the row that stands for a row this batch recorded (`final`)."""
        return self._records[self.final(fact_id)]

    def settle(self, result: CommitResult) -> CommitResult:
        """`result` with its row replaced by the row that stands for it (`final`)."""
        fact_id = self.final(result.fact.id)
        if fact_id == result.fact.id:
            return result
        return replace(result, fact=self._records[fact_id])

    def assert_(self, a: Assertion) -> CommitResult:
        """Plan and queue one assertion (CONTRACT §2.1 rules 1-4); `a.status` is its row's
        status where its own end stands (a row moved by a merge or split keeps its own)."""
        new = _new_value(a)
        valid_from = self.t if a.valid_from is None else to_utc(a.valid_from, "valid_from")
        rows = self.rows(a.entity_id, a.attribute, valid_from)
        plan = plan_assert(new, valid_from, open_end(a.valid_to), rows)
        self._asserted.append((a.entity_id, a.attribute, new.value_norm, a.object_id))
        if plan.effect == "duplicate":
            existing = next(r for r in rows if r.id == plan.corroborates)
            self._corroborations.append(
                {
                    "id": new_id("cor"),
                    "fact_id": existing.id,
                    "valid_from": valid_from,
                    "valid_to": open_end(a.valid_to),
                    "event_id": self.trail.cause,
                    **new.provenance,
                }
            )
            return CommitResult(existing, "duplicate", (), (), self.t, self.trail.cause)
        self._note_conflicts([r for r in rows if r.id in plan.superseded], a)
        created = self.execute(plan, a.entity_id, a.attribute)
        assert plan.primary is not None
        retracted = tuple(i for i in plan.retract if i not in self._folded)
        return CommitResult(
            created[plan.primary], plan.effect, plan.superseded, retracted, self.t, self.trail.cause
        )

    def _note_conflicts(self, superseded: list[FactRecord], a: Assertion) -> None:
        """CONTRACT §2.1 rule 5: a value the person stated themselves, now superseded, is
        said out loud in the main chat."""
        stated = [r for r in superseded if r.source in PERSON_SOURCES]
        if stated:
            self._conflicts.append(
                {
                    "old": stated,
                    "attribute": a.attribute,
                    "value": a.value,
                    "object_id": a.object_id,
                }
            )

    def flush(self) -> None:
        """Write everything queued: new rows first (with their search text and vector,
        committer/search_index.py), then `retracted_at` on the ended ones, then the
        corroborations of duplicates and the cause-and-effect record (§8), then clear
        suppressions of what was asserted (CONTRACT §3) and record conflict notifications
        (§2.1 rule 5)."""
        self.w.create(self.owner, self._creates, self.t)
        index_new_rows(self.w, self.owner, self._creates)
        self.w.retract(self.owner, self._retracts, self.t)
        self.w.corroborate(self.owner, self._corroborations, self.t)
        self.trail.flush()
        self._clear_suppressions()
        self._notify_conflicts()
        self._creates, self._retracts, self._corroborations = [], [], []
        self._asserted, self._conflicts, self._pending = [], [], {}

    def _clear_suppressions(self) -> None:
        self.w.clear_suppressions(
            self.owner,
            [
                {
                    "entity_id": entity_id,
                    "attribute": attribute,
                    "value_norm": norm,
                    "object_id": obj,
                }
                for entity_id, attribute, norm, obj in self._asserted
            ],
            self.t,
        )

    def _notify_conflicts(self) -> None:
        if not self._conflicts:
            return
        self_id = self.w.self_entity_id(self.owner)
        ids = {c["object_id"] for c in self._conflicts if c["object_id"]}
        ids |= {r.entity_id for c in self._conflicts for r in c["old"]}
        ids |= {r.object_id for c in self._conflicts for r in c["old"] if r.object_id}
        ids |= {r.speaker_id for c in self._conflicts for r in c["old"] if r.speaker_id}
        names = self.w.entity_names(self.owner, sorted(ids))
        items = []
        for c in self._conflicts:
            new = names.get(c["object_id"], c["object_id"]) if c["object_id"] else c["value"]
            olds = ", ".join(
                str(names.get(r.object_id, r.object_id) if r.object_id else r.value)
                for r in c["old"]
            )
            label = c["attribute"].replace("_", " ")
            whose = names.get(c["old"][0].entity_id, self.owner)
            label = label if whose == self.owner else f"{whose}'s {label}"
            items.append(
                {
                    "id": new_id("ntf"),
                    "kind": "conflict",
                    "chat_id": None,
                    "fact_ids": [r.id for r in c["old"]],
                    "text": (
                        f"I updated something {_who_said(c['old'], self_id, names)} "
                        f"differently before: {label} {olds} → {new}"
                    ),
                }
            )
        self.w.notify(self.owner, items, self.t)


def _who_said(rows: list[FactRecord], self_id: str | None, names: dict[str, str]) -> str:
    """Who had stated the superseded values, for a conflict's text (CONTRACT §2.1 rule 5):
    "you'd said" for the owner's own words (a row with no speaker is the owner's, entered
    or said), "Jon had said" for another speaker's, "you and Jon had said" for both."""
    others = sorted(
        {
            names[r.speaker_id]
            for r in rows
            if r.speaker_id and r.speaker_id != self_id and r.speaker_id in names
        }
    )
    mine = any(r.speaker_id is None or r.speaker_id == self_id for r in rows)
    if not others:
        return "you'd said"
    return f"{' and '.join((['you'] if mine else []) + others)} had said"


def _links_to(row: dict[str, Any], row_id: str) -> bool:
    return any(row_id in row[kind] for kind in LINK_FIELDS)


def _row(spec: RowSpec, entity_id: str, attribute: str) -> dict[str, Any]:
    v = spec.value
    return {
        "id": new_id("fct"),
        "entity_id": entity_id,
        "attribute": attribute,
        "value": v.value,
        "object_id": v.object_id,
        "value_norm": v.value_norm,
        "cardinality": v.cardinality,
        "valid_from": spec.valid_from,
        "valid_to": spec.valid_to,
        "status": spec.status,
        **v.provenance,
        "replaces": list(spec.replaces),
        "supersedes": list(spec.supersedes),
        "coalesces": list(spec.coalesces),
    }


def _record(owner: str, row: dict[str, Any], t: datetime) -> FactRecord:
    return FactRecord(
        id=row["id"],
        owner=owner,
        entity_id=row["entity_id"],
        attribute=row["attribute"],
        value=row["value"],
        object_id=row["object_id"],
        value_norm=row["value_norm"],
        cardinality=row["cardinality"],
        valid_from=row["valid_from"],
        valid_to=row["valid_to"],
        recorded_at=t,
        retracted_at=FAR_FUTURE,
        status=row["status"],
        source=row["source"],
        evidence=row["evidence"],
        reason=row["reason"],
        confidence=float(row["confidence"]),
        run_id=row["run_id"],
        message_id=row["message_id"],
        speaker_id=row.get("speaker_id"),
    )
