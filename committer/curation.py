"""Committing proposals: a curated run's auto-committed ones, or one a person kept (§3, §4).

Entities named by the proposals are resolved by kind and normalized name, or created;
then every proposal goes through one `Batch`, so a run is one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from committer import note_ops
from committer.batch import Batch, start_of
from committer.owners import live_entity, new_entity
from committer.proposals import NOTE_OPS, Assertion, EntityRef, Proposal
from committer.rules.normalize import value_key, value_norm
from committer.rules.plan import plan_end
from committer.trail import Trail
from graph.errors import InvalidInput, LimitExceeded
from graph.names import search_key
from graph.notes import NoteDraft
from graph.time import FAR_PAST, to_utc
from graph.write.writer import WriteTx

CHAT_SOURCES = frozenset({"user_stated", "inferred", "untrusted"})
"""Sources of statements made in chat, whose values may be near-duplicates (§2.1 rule 1)."""


def lookup(w: WriteTx, owner: str, self_id: str, ref: EntityRef) -> str | None:
    """Return the entity id a proposal's EntityRef names, without creating anything.

    An id stands for what it is now (a merged entity's survivor, CONTRACT §5); no name,
    or a person named like the owner, is the owner's own entity; else the oldest live
    entity of that kind with that name or alias, or None when there is none yet.
    """
    if ref.id is not None:
        return live_entity(w, owner, ref.id).id
    if ref.name is None or not ref.name.strip():
        return self_id
    key = search_key(ref.name)
    if ref.kind == "person" and key == search_key(owner):
        return self_id
    found = w.find_entity(owner, ref.kind, key)
    return None if found is None else found.id


def name_form(ref: EntityRef) -> str | None:
    """The "name:<kind>:<search key>" form of a ref that names an entity, else None."""
    if ref.id is not None or ref.name is None or not ref.name.strip():
        return None
    return f"name:{ref.kind}:{search_key(ref.name)}"


def resolve(w: WriteTx, owner: str, self_id: str, ref: EntityRef, t: datetime) -> str:
    """Return the entity id a proposal's EntityRef names, creating a named entity if new
    (as `lookup`: no name, or a person named like the owner, is the owner's own entity)."""
    found = lookup(w, owner, self_id, ref)
    if found is not None:
        return found
    assert ref.name is not None  # lookup answers every ref without a name
    return new_entity(w, owner, ref.name, ref.kind, (), None, t).id


@dataclass(frozen=True, slots=True)
class Applied:
    """What one proposal did when committed.

    Attributes:
        entity_id: the subject entity it was resolved to (or created as).
        object_id: the object entity, for a relationship, else None.
        fact_id: the row standing for it (the covering row of a duplicate, the new row
            of an assertion, the ended row of an `end`), or None when an `end` found nothing.
        changed: whether memory changed (False for a duplicate or an empty `end`).
        note_id: the note a note proposal kept or retired, else None.
        reply: a note proposal's one-line answer (what was kept and where), else None.
    """

    entity_id: str
    object_id: str | None
    fact_id: str | None
    changed: bool
    note_id: str | None = None
    reply: str | None = None


def apply_proposals(
    w: WriteTx,
    owner: str,
    self_id: str,
    proposals: Sequence[Proposal],
    t: datetime,
    trail: Trail,
    causes: Sequence[str],
    note_limit: int = note_ops.MAX_NOTES,
) -> list[Applied]:
    """Commit proposals in one batch at commit time `t`; return what each one did.

    Note proposals (ops `note`, `retire_note`) keep or retire notes (CONTRACT §13,
    committer/note_ops.py); the others go through one `Batch` of facts.

    Args:
        w: the open write transaction (owner already locked).
        owner: the owner id.
        self_id: the owner's own person entity (for proposals about the speaker-owner).
        proposals: in message order; later ones see the effect of earlier ones.
        t: the commit time.
        trail: the commit's cause-and-effect record.
        causes: for each proposal, the decision event it is committed for (CONTRACT §8).
        note_limit: notes one owner may hold (a note past it is not kept, and says so).
    """
    pairs = list(zip(proposals, causes, strict=True))
    notes = {
        i: _apply_note(w, owner, self_id, p, t, trail, cause, note_limit)
        for i, (p, cause) in enumerate(pairs)
        if p.op in NOTE_OPS
    }
    rest = [pair for i, pair in enumerate(pairs) if i not in notes]
    facts = iter(_apply_facts(w, owner, self_id, rest, t, trail))
    return [notes[i] if i in notes else next(facts) for i in range(len(pairs))]


KNOWN_BY = {"user_stated": "told", "user_edit": "told", "inferred": "inferred"}
"""How a note proposal's source says it is known (else `observed`: an integration's or an
assistant's or a document's content)."""


def _apply_note(
    w: WriteTx,
    owner: str,
    self_id: str,
    p: Proposal,
    t: datetime,
    trail: Trail,
    cause: str,
    note_limit: int,
) -> Applied:
    """Keep or retire the note of a note proposal, with its one-line answer. A note the
    rules refuse (a title naming a moment, a bad date) or past the limit is not kept and
    the answer says why: one request never fails the run it came from."""
    trail.cause = cause
    assert p.note is not None  # NOTE_OPS proposals carry their note
    if p.op == "retire_note":
        done = note_ops.retire_matching(w, owner, p.note.title, t, trail)
        if done is None:
            return Applied(
                self_id, None, None, False,
                reply=f"No note matched “{p.note.title}”; nothing was retired.",
            )  # fmt: skip
        return Applied(
            self_id, None, None, True, note_id=done.note.note_id,
            reply=f"Retired the note “{done.note.title}”.",
        )  # fmt: skip
    prov = p.provenance
    draft = NoteDraft(
        kind=p.note.kind,
        title=p.note.title,
        body=p.note.body,
        evidence=prov.evidence,
        known_by=KNOWN_BY.get(prov.source, "observed"),
        confidence=prov.confidence,
        key=p.note.key,
        project=p.note.project,
        review_at=p.note.review_at,
        tier=p.note.tier,
        source=prov.source,
        run_id=prov.run_id,
        message_id=prov.message_id,
        valid_from=p.valid_from,
    )
    try:
        result = note_ops.keep_note(w, owner, draft, t, trail, max_notes=note_limit)
    except (InvalidInput, LimitExceeded) as exc:
        why = f"{exc.field}: {exc.detail}" if isinstance(exc, InvalidInput) else exc.detail
        return Applied(self_id, None, None, False, reply=f"Not kept: {why}.")
    return Applied(
        self_id, None, None, result.effect != "promoted", note_id=result.note.note_id,
        reply=note_ops.reply(result),
    )  # fmt: skip


def _apply_facts(
    w: WriteTx,
    owner: str,
    self_id: str,
    pairs: Sequence[tuple[Proposal, str]],
    t: datetime,
    trail: Trail,
) -> list[Applied]:
    """Commit fact proposals (with their decision events) in one batch."""
    proposals, causes = [p for p, _ in pairs], [c for _, c in pairs]
    resolved = []
    for p in proposals:
        subject = resolve(w, owner, self_id, p.subject, t)
        obj = resolve(w, owner, self_id, p.object, t) if p.object is not None else None
        resolved.append((p, subject, obj))
    batch = Batch(w, owner, t, trail)
    batch.load([(subject, p.attribute, start_of(p.valid_from, t)) for p, subject, _ in resolved])
    out = []
    for (p, subject, obj), cause in zip(resolved, causes, strict=True):
        trail.cause = cause
        if p.op == "end":
            ended, changed = _end(batch, subject, p)
            out.append(Applied(subject, obj, ended[0] if ended else None, changed))
            continue
        assertion = Assertion(
            entity_id=subject,
            attribute=p.attribute,
            value=p.value,
            object_id=obj,
            valid_from=p.valid_from,
            valid_to=p.valid_to,
            cardinality=p.cardinality,
            provenance=p.provenance,
            near_duplicates=p.provenance.source in CHAT_SOURCES,
        )
        result = batch.assert_(assertion)
        out.append(Applied(subject, obj, result.fact.id, result.effect != "duplicate"))
    batch.flush()
    return [replace(a, fact_id=batch.final(a.fact_id)) if a.fact_id else a for a in out]


def _end(batch: Batch, entity_id: str, p: Proposal) -> tuple[list[str], bool]:
    """End the current rows of `p.attribute` (of `p.value`, if given) at `p.valid_from`.

    A row of the value ends whatever function words or plural it was said with ("I gave up
    on my podcasts" ends "podcast"; `committer.rules.normalize.value_key`).

    Returns:
        (ids of the rows that now stand for the ended facts, whether memory changed).
    """
    until = to_utc(p.valid_from, "valid_from")
    norm = None if p.value is None else value_norm(p.value, None)
    key = None if norm is None else value_key(norm)
    rows = [
        r
        for r in batch.rows(entity_id, p.attribute, until)
        if (norm is None or r.value_norm == norm or (key and value_key(r.value_norm) == key))
        and r.valid_from < until < r.valid_to
        and r.status != "invalidated"
    ]
    ended: list[str] = []
    for row in rows:
        created = batch.execute(plan_end(row, until), entity_id, p.attribute)
        ended.extend(r.id for r in created if r.valid_to == until)
    if rows or p.value is None:
        return ended, bool(rows)
    # Known only by its end: it held until `until`, since some unknown time.
    assertion = Assertion(
        entity_id=entity_id,
        attribute=p.attribute,
        value=p.value,
        valid_from=FAR_PAST,
        valid_to=until,
        cardinality=p.cardinality,
        provenance=p.provenance,
    )
    result = batch.assert_(assertion)
    return [result.fact.id], result.effect != "duplicate"
