"""Merging two entities of one owner (CONTRACT §5), run inside one write transaction.

The loser keeps its node, marked `merged_into` the survivor at the merge time. Its
current rows (every valid time, under current knowledge) are retracted and recorded
again on the survivor through the committer's rules, so duplicates corroborate and
adjacent windows coalesce (a moved row keeps its status where its own end closes it);
relationships that pointed at the loser point at the
survivor. A `one` attribute whose loser value overlaps a different survivor value is
not picked silently: the loser's value becomes a pending proposal (type
`merge_conflict`) and a conflict notification. The survivor's names change as a new
version (graph/cypher/lifecycle.py), so reads with `known_at` before the merge still see
two entities, each with its own facts and names: nothing is rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from committer.batch import Batch
from committer.filing import stored_proposal
from committer.proposals import Assertion, EntityRef, Proposal, Provenance, Reviewed
from committer.rules.plan import Plan
from committer.trail import Trail
from graph.errors import Conflict, InvalidInput
from graph.names import search_key
from graph.records import EntityRecord, FactRecord
from graph.time import FAR_FUTURE, FAR_PAST
from graph.write.writer import WriteTx, new_id


@dataclass(frozen=True, slots=True)
class MergeResult:
    """What a merge did.

    Attributes:
        survivor: the entity that remains, with the loser's names among its aliases.
        loser: the merged entity as it is now (`merged_into` set).
        moved: rows recorded again on the survivor (or re-pointed at it).
        conflicts: ids of the pending proposals raised for conflicting `one` values.
        event_id: the action or decision event that records the merge (CONTRACT §8).
    """

    survivor: EntityRecord
    loser: EntityRecord
    moved: int
    conflicts: tuple[str, ...]
    event_id: str | None = None


def _provenance(row: FactRecord) -> Provenance:
    return Provenance(
        source=row.source,
        evidence=row.evidence,
        reason=row.reason,
        confidence=row.confidence,
        run_id=row.run_id,
        message_id=row.message_id,
        speaker_id=row.speaker_id,
    )


def _open(t: datetime) -> datetime | None:
    return None if t >= FAR_FUTURE else t


def merge_entities(  # noqa: PLR0912  # one pass over the loser's rows, each case a step of CONTRACT §5
    w: WriteTx,
    owner: str,
    self_id: str,
    loser_id: str,
    survivor_id: str,
    t: datetime,
    trail: Trail,
) -> MergeResult:
    """Merge `loser_id` into `survivor_id` at commit time `t` (CONTRACT §5).

    Moved rows keep their status. Recorded as effects of `trail.cause` (the person's
    merge action or confirmation): the loser's rows `moved`, the rows recorded on the
    survivor, the loser `merged`; conflict proposals are caused by it (CONTRACT §8).

    Raises:
        NotFound: either entity is not the owner's.
        InvalidInput: the two ids are the same (field `into`).
        Conflict: either entity was merged already, or the loser is the owner's own
            person entity (merge the other one into it instead).
    """
    if loser_id == survivor_id:
        raise InvalidInput("into", "an entity cannot be merged into itself")
    loser, survivor = w.entity(owner, loser_id), w.entity(owner, survivor_id)
    for e in (loser, survivor):
        if e.merged_into is not None:
            raise Conflict(f"entity {e.id!r} was already merged into {e.merged_into!r}")
    if loser.kind != survivor.kind:
        raise InvalidInput(
            "into",
            f"cannot merge a {loser.kind} into a {survivor.kind}: "
            "only entities of one kind are the same thing",
        )
    if loser_id == self_id:
        raise Conflict(
            "the owner's own entity cannot be merged into another; merge the other entity into it"
        )
    own_ids, about_ids = w.current_row_ids(owner, loser_id)
    rows = sorted(
        w.facts_by_ids(owner, own_ids + about_ids), key=lambda r: (r.attribute, r.valid_from, r.id)
    )
    batch = Batch(w, owner, t, trail)
    for row in rows:
        batch.load([(row.entity_id, row.attribute, FAR_PAST)])
        batch.execute(
            Plan("retracted", retract=(row.id,)), row.entity_id, row.attribute, ended="moved"
        )
    attributes = sorted({r.attribute for r in rows if r.entity_id == loser_id})
    before = {a: batch.rows(survivor_id, a, FAR_PAST) for a in attributes}
    moved, held = 0, []
    for row in rows:
        subject = survivor_id if row.entity_id == loser_id else row.entity_id
        obj = survivor_id if row.object_id == loser_id else row.object_id
        if obj is not None and obj == subject:
            continue  # a relationship between the two merged entities: nothing to keep
        if (
            row.entity_id == loser_id
            and row.cardinality == "one"
            and any(
                r.value_norm != row.value_norm
                and r.valid_from < row.valid_to
                and row.valid_from < r.valid_to
                for r in before[row.attribute]
            )
        ):
            held.append(row)
            continue
        result = batch.assert_(
            Assertion(
                entity_id=subject,
                attribute=row.attribute,
                value=row.value,
                object_id=obj,
                valid_from=row.valid_from,
                valid_to=_open(row.valid_to),
                cardinality=row.cardinality,
                provenance=_provenance(row),
                status=row.status,
            )
        )
        if result.effect != "duplicate":
            trail.moved(result.fact.id, row.id)
        moved += 1
    trail.changed(loser_id, "merged")
    batch.flush()
    conflicts = _hold_conflicts(w, owner, loser, survivor, held, t, trail)
    names = [survivor.name, *survivor.aliases]
    keys = {search_key(n) for n in names}
    for n in (loser.name, *loser.aliases):
        if search_key(n) not in keys:
            names.append(n)
            keys.add(search_key(n))
    if len(names) > 1 + len(survivor.aliases):
        w.set_names(
            owner,
            survivor_id,
            name=survivor.name,
            aliases=names[1:],
            search_names=list(dict.fromkeys(search_key(n) for n in names)),
            t=t,
        )
    w.mark_merged(owner, loser_id, survivor_id, t)
    return MergeResult(
        w.entity(owner, survivor_id),
        w.entity(owner, loser_id),
        moved,
        tuple(conflicts),
        trail.cause,
    )


def _hold_conflicts(
    w: WriteTx,
    owner: str,
    loser: EntityRecord,
    survivor: EntityRecord,
    held: list[FactRecord],
    t: datetime,
    trail: Trail,
) -> list[str]:
    """Turn the loser's conflicting `one` values into pending proposals + notifications."""
    items, notes = [], []
    for seq, row in enumerate(held):
        reason = (
            f"{loser.name} had {row.attribute} = {row.value} when merged into "
            f"{survivor.name}, which holds another value"
        )
        proposal = Proposal(
            id=f"merge|{loser.id}|{row.id}",
            subject=EntityRef(id=survivor.id, name=survivor.name, kind=survivor.kind),
            attribute=row.attribute,
            value=row.value,
            object=EntityRef(id=row.object_id) if row.object_id else None,
            valid_from=row.valid_from,
            valid_to=_open(row.valid_to),
            cardinality=row.cardinality,
            type="merge_conflict",
            provenance=_provenance(row).model_copy(update={"reason": reason}),
        )
        item = stored_proposal(
            owner,
            None,
            seq,
            Reviewed(proposal=proposal, action="hold", policy="merge conflict"),
            {"subject": survivor.id, "object": row.object_id},
            "pending",
            None,
        )
        item["fact_id"] = row.id  # the loser's row it would bring back
        items.append(item)
        pid = item["id"]
        label = row.attribute.replace("_", " ")
        notes.append(
            {
                "id": new_id("ntf"),
                "kind": "conflict",
                "chat_id": None,
                "proposal_id": pid,
                "fact_ids": [row.id],
                "text": f"{loser.name} and {survivor.name} are now one, but you'd said different "
                f"things about their {label}: {loser.name} had {row.value}. Keep it?",
            }
        )
    for item in items:
        trail.event(
            "proposal",
            event_id=item["id"],
            causes=[trail.cause],
            attribute=item["attribute"],
            policy=item["policy"],
            entity_id=survivor.id,
        )
    trail.flush()
    w.create_proposals(owner, items, t)
    w.notify(owner, notes, t)
    return [i["id"] for i in items]
