"""Splitting facts off an entity into a new one (CONTRACT §5 "Split"), in one transaction.

The chosen rows must be current rows about the entity (it is their subject) or pointing
at it (it is their object). Each is retracted and recorded again through the
committer's rules on a new entity of the same kind (subject or object replaced), keeping
its window, status and provenance, so time travel before the split still sees them
where they were. Chosen aliases move too. Splitting back the rows a merge brought over
(`GET /v1/events/{merge}/effects` lists them) restores the state before the merge, and
merging a split-off entity back restores the state before the split.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from committer.batch import Batch
from committer.owners import live_entity, new_entity
from committer.proposals import Assertion, Provenance
from committer.rules.plan import Plan
from committer.trail import Trail
from graph.errors import InvalidInput, NotFound
from graph.names import search_key
from graph.records import EntityRecord, FactRecord
from graph.time import FAR_FUTURE, FAR_PAST
from graph.write.writer import WriteTx

MAX_SPLIT = 500
"""Rows one split may move (CONTRACT §9 bounds)."""


@dataclass(frozen=True, slots=True)
class SplitResult:
    """What a split did.

    Attributes:
        entity: the new entity, with the rows and aliases moved to it.
        source: the entity split, as it is now.
        moved: ids of the rows recorded on (or re-pointed at) the new entity.
        event_id: the action event that records the split (CONTRACT §8).
    """

    entity: EntityRecord
    source: EntityRecord
    moved: tuple[str, ...]
    event_id: str | None


def _chosen(
    w: WriteTx, owner: str, source: EntityRecord, fact_ids: Sequence[str]
) -> list[FactRecord]:
    """The chosen rows, checked: the owner's, current, about or pointing at `source`."""
    wanted = list(dict.fromkeys(fact_ids))
    if len(wanted) > MAX_SPLIT:
        raise InvalidInput("fact_ids", f"at most {MAX_SPLIT} rows per split")
    rows = {r.id: r for r in w.facts_by_ids(owner, wanted)}
    for fid in wanted:
        if fid not in rows:
            raise NotFound("fact", fid)
        row = rows[fid]
        if row.retracted_at < FAR_FUTURE:
            raise InvalidInput("fact_ids", f"fact {fid!r} is retracted; only current rows move")
        if source.id not in (row.entity_id, row.object_id):
            raise InvalidInput(
                "fact_ids", f"fact {fid!r} is neither about entity {source.id!r} nor points at it"
            )
    return sorted(rows.values(), key=lambda r: (r.attribute, r.valid_from, r.id))


def _aliases(
    source: EntityRecord, name: str, aliases: Sequence[str]
) -> tuple[list[str], list[str]]:
    """(the aliases that move, the aliases that stay): the chosen ones, and any alias of
    the source spelled like the new name (it names the new entity now)."""
    keys = {search_key(a) for a in aliases} | {search_key(name)}
    own = {search_key(a) for a in source.aliases}
    for alias in aliases:
        if search_key(alias) not in own:
            raise InvalidInput("aliases", f"{alias!r} is not an alias of {source.name!r}")
    moving = [
        a for a in source.aliases if search_key(a) in keys and search_key(a) != search_key(name)
    ]
    staying = [a for a in source.aliases if search_key(a) not in keys]
    return moving, staying


def split_entity(
    w: WriteTx,
    owner: str,
    entity_id: str,
    fact_ids: Sequence[str],
    name: str,
    aliases: Sequence[str],
    t: datetime,
    trail: Trail,
) -> SplitResult:
    """Move chosen rows (and aliases) of an entity to a new entity at commit time `t`.

    Args:
        w: the open write transaction (owner locked).
        owner: the owner id.
        entity_id: the entity to split (a merged id stands for its survivor).
        fact_ids: current rows about the entity or pointing at it.
        name: the new entity's name (its kind and area are the source's).
        aliases: aliases of the source that move to the new entity.
        t: the commit time.
        trail: the commit's record; `trail.cause` is the split action.

    Raises:
        NotFound: the entity or a fact id is not the owner's.
        InvalidInput: nothing chosen, a row not current or not about the entity
            (`fact_ids`), an alias the entity does not have (`aliases`), an empty name.
    """
    if not fact_ids and not aliases:
        raise InvalidInput("fact_ids", "choose at least one fact (or alias) to split off")
    source = live_entity(w, owner, entity_id)
    rows = _chosen(w, owner, source, fact_ids)
    moving, staying = _aliases(source, name, aliases)
    target = new_entity(w, owner, name, source.kind, moving, source.area, t)
    batch = Batch(w, owner, t, trail)
    for row in rows:
        batch.load([(row.entity_id, row.attribute, FAR_PAST)])
        batch.execute(
            Plan("retracted", retract=(row.id,)), row.entity_id, row.attribute, ended="moved"
        )
    moved = []
    for row in rows:
        subject = target.id if row.entity_id == source.id else row.entity_id
        obj = target.id if row.object_id == source.id else row.object_id
        result = batch.assert_(
            Assertion(
                entity_id=subject,
                attribute=row.attribute,
                value=row.value,
                object_id=obj,
                valid_from=row.valid_from,
                valid_to=None if row.valid_to >= FAR_FUTURE else row.valid_to,
                cardinality=row.cardinality,
                status=row.status,
                provenance=Provenance(
                    source=row.source,
                    evidence=row.evidence,
                    reason=row.reason,
                    confidence=row.confidence,
                    run_id=row.run_id,
                    message_id=row.message_id,
                    speaker_id=row.speaker_id,
                ),
            )
        )
        if result.effect != "duplicate":
            trail.moved(result.fact.id, row.id)
        moved.append(result.fact.id)
    trail.changed(target.id, "split")
    batch.flush()
    if moving or search_key(name) in {search_key(a) for a in source.aliases}:
        names = [source.name, *staying]
        w.set_names(
            owner,
            source.id,
            name=source.name,
            aliases=staying,
            search_names=list(dict.fromkeys(search_key(n) for n in names)),
            t=t,
        )
        source = w.entity(owner, source.id)  # names versioned: reads before t see the old
    return SplitResult(target, source, tuple(dict.fromkeys(map(batch.final, moved))), trail.cause)
