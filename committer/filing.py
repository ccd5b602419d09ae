"""Proposals a person keeps or discards, and the quiet "no" of a discard (CONTRACT §3).

The curator hands over reviewed proposals (`Reviewed`); here the committer stores them:
clear, low-risk ones are committed at once (status `committed`), the rest wait as
`pending`, invisible to every read path, with a notification in the run's chat.
Keep writes a pending proposal; discard records a suppression on its normalized
assertion, so it is never proposed again in any chat of that owner (suppressed
proposals are dropped before they are stored, and so is a proposal that carries a
credential: `committer.secrets.proposal_secret`, CONTRACT §3). Every function runs inside
the caller's write transaction, after `begin_commit` (the owner is locked).

Normalization of a suppression (CONTRACT §3): the subject is the entity's canonical id
(or, for an entity not known yet, "name:<kind>:<search key>", the name NFKD-stripped
of accents, case-folded, white space collapsed); the value is the committer's
`value_norm` (NFKC, case-folded, white space collapsed; numbers by value), or the object
entity's id (or name form) for a relationship.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from committer.curation import Applied, apply_proposals, lookup, name_form
from committer.episodes import Embedded, record_episodes, said_by, spoken_by
from committer.note_ops import MAX_NOTES, note_notices
from committer.proposals import (
    PRIVILEGED,
    EntityRef,
    NoteProposal,
    Proposal,
    Provenance,
    Reviewed,
    Said,
)
from committer.rules.normalize import value_norm
from committer.secrets import proposal_secret
from committer.trail import Trail
from graph.errors import Conflict, NotFound
from graph.records import ProposalRecord, RunRecord
from graph.time import to_utc
from graph.write.writer import WriteTx


@dataclass(frozen=True, slots=True)
class RunReview:
    """What storing a run's reviewed proposals did (CONTRACT §10 `GET /v1/runs/{id}`)."""

    proposals: int
    committed: int
    held: int
    entity_ids: tuple[str, ...]


def public_id(owner: str, proposal_id: str) -> str:
    """The stored id of a curator proposal: unique across owners, same input same id."""
    return "prp_" + hashlib.sha256(f"{owner}|{proposal_id}".encode()).hexdigest()[:24]


def _ref_keys(w: WriteTx, owner: str, self_id: str, ref: EntityRef) -> tuple[str | None, list[str]]:
    """(the entity id a ref resolves to without creating anything, or None; its key forms)."""
    found = lookup(w, owner, self_id, ref)
    forms = [f for f in (found, name_form(ref) if found != self_id else None) if f]
    return found, forms


def _keys(w: WriteTx, owner: str, self_id: str, p: Proposal) -> dict[str, Any]:
    subject, subjects = _ref_keys(w, owner, self_id, p.subject)
    if p.object is not None:
        obj, forms = _ref_keys(w, owner, self_id, p.object)
        values = [f"e:{f}" if not f.startswith("name:") else f for f in forms]
    else:
        obj, values = None, [] if p.value is None else [value_norm(p.value, None)]
    return {"subject": subject, "object": obj, "subjects": subjects, "values": values}


def stored_proposal(
    owner: str,
    chat_id: str | None,
    seq: int,
    r: Reviewed,
    keys: dict[str, Any],
    status: str,
    applied: Applied | None,
) -> dict[str, Any]:
    """The fields `WriteTx.create_proposals` stores for a reviewed proposal.

    Args:
        owner: the owner id.
        chat_id: the chat it surfaces in (None: the main chat).
        seq: its order among the proposals stored together.
        r: the proposal and its decision.
        keys: `subject` and `object` ids it resolved to so far (or None).
        status: `committed` or `pending`.
        applied: what committing it did, for a committed one.
    """
    p, prov = r.proposal, r.proposal.provenance
    obj = p.object
    return {
        "id": public_id(owner, p.id),
        "op": p.op,
        "status": status,
        "entity_id": applied.entity_id if applied else keys["subject"],
        "entity_name": p.subject.name,
        "entity_kind": p.subject.kind,
        "attribute": p.attribute,
        "value": p.value,
        "object_id": applied.object_id if applied else keys["object"],
        "object_name": obj.name if obj else None,
        "object_kind": obj.kind if obj else None,
        "valid_from": p.valid_from,
        "valid_to": p.valid_to,
        "cardinality": p.cardinality,
        "source": prov.source,
        "type": p.type,
        "confidence": prov.confidence,
        "evidence": prov.evidence,
        "reason": prov.reason,
        "policy": r.policy,
        "run_id": prov.run_id,
        "chat_id": chat_id,
        "message_id": prov.message_id,
        "seq": seq,
        "fact_id": applied.fact_id if applied else None,
        "note": None if p.note is None else p.note.model_dump_json(),
        "note_id": applied.note_id if applied else None,
        "reply": applied.reply if applied else None,
    }


def suppression_attribute(op: str, attribute: str) -> str:
    """The attribute part of a suppression key: an `end` ("I no longer like tea") is kept
    apart from the assertion of the same value, so discarding one never hides the other;
    so are a note (`note#note`) and the retiring of one (`note#retire_note`)."""
    return attribute if op == "assert" else f"{attribute}#{op}"


def describe(attribute: str, value: Any, object_name: str | None, op: str = "assert") -> str:
    """A short human phrase for a proposal or fact: "location: Berlin" / "no longer likes: tea"
    / "a note: Drop the Windows installer" / "retire the note about: the old pricing page"."""
    shown = object_name if object_name else value
    if op == "note":
        return f"a note: {shown}"
    if op == "retire_note":
        return f"retire the note about: {shown}"
    label = attribute.replace("_", " ")
    return f"no longer {label}: {shown}" if op == "end" else f"{label}: {shown}"


def withheld(reviewed: Sequence[Reviewed], said: Sequence[Said]) -> set[str]:
    """The ids of a run's messages to file withheld (CONTRACT §3: a statement waiting for
    a yes is invisible to prefetch and search): each message a held privileged statement
    was drawn from, and each other message of the run naming its value as a whole word,
    case-insensitively ("My diabetes makes the pastry club hard." beside a held
    `condition = diabetes`; found by a tester)."""
    held = [r.proposal for r in reviewed if r.action == "hold" and r.policy == PRIVILEGED]
    ids = {p.provenance.message_id for p in held if p.provenance.message_id}
    values = sorted({p.value for p in held if isinstance(p.value, str) and p.value.strip()})
    if values:
        named = re.compile(
            r"(?<!\w)(?:" + "|".join(re.escape(v) for v in values) + r")(?!\w)", re.IGNORECASE
        )
        ids |= {m.message_id for m in said if m.message_id and named.search(m.text)}
    return ids


def record_run(
    w: WriteTx,
    owner: str,
    self_id: str,
    run: RunRecord,
    reviewed: Sequence[Reviewed],
    t: datetime,
    trail: Trail,
    worker: str | None = None,
    said: Sequence[Said] = (),
    embedded: Embedded | None = None,
    note_limit: int = MAX_NOTES,
) -> RunReview:
    """Store a run's messages as episodes and its reviewed proposals: commit the low-risk
    ones, hold the rest (CONTRACT §3, §12).

    The messages (`said`, already redacted by the curator; `embedded`: their vectors,
    made before the transaction) become episodes first (committer/episodes.py), so each
    proposal's row names who said it (`speaker_id`); a message a privileged statement was
    drawn from and held (`PRIVILEGED`) is filed withheld.
    Suppressed proposals are dropped. Held ones get a `proposal` notification in the
    run's chat. Idempotent on proposal and episode id. Recorded as the chain run ->
    message (naming its episode) -> proposal, run -> curation (by `worker`) -> proposal
    -> decision -> commit (§8); the episodes are effects of the curation in the same
    commit (`WROTE {op: 'recorded'}`), so the run's effects list them.
    """
    run_event = trail.event(
        "run", event_id=run.id, at=run.created_at, chat_id=run.chat_id, surface=run.surface
    )
    curation = trail.event("curation", actor=worker, run_id=run.id, causes=[run_event])
    filed = record_episodes(w, owner, self_id, run, said, t, embedded, withheld(reviewed, said))
    trail.filed(filed.created, cause=curation)  # the run's effects list what was said (§8)
    reviewed = [spoken_by(r, filed.speakers) for r in reviewed]
    messages = _messages(run)

    def causes(r: Reviewed) -> list[str | None]:
        mid = r.proposal.provenance.message_id
        if mid is None:
            return [curation]
        at, role = messages.get(mid, (None, None))
        message = trail.event(
            "message",
            event_id=message_event_id(owner, run.id, mid),
            at=at,
            chat_id=run.chat_id,
            run_id=run.id,
            message_id=mid,
            role=role,
            episode_id=filed.episodes.get(mid),
            causes=[run_event],
        )
        return [curation, message]

    return store_reviewed(
        w, owner, self_id, run.chat_id, reviewed, t, trail, causes, note_limit=note_limit
    )


def message_event_id(owner: str, run_id: str, message_id: str) -> str:
    """The event id of a message of a run (CONTRACT §8): the same message, the same id."""
    return "msg_" + hashlib.sha256(f"{owner}|{run_id}|{message_id}".encode()).hexdigest()[:24]


def _messages(run: RunRecord) -> dict[str, tuple[datetime | None, str | None]]:
    """(timestamp in UTC, role) of each message of a run that has an id."""
    out: dict[str, tuple[datetime | None, str | None]] = {}
    for m in json.loads(run.payload or "{}").get("messages") or []:
        if m.get("id") is None:
            continue
        try:
            at: datetime | None = to_utc(datetime.fromisoformat(m["at"]))
        except (KeyError, TypeError, ValueError):
            at = None
        out[m["id"]] = (at, m.get("role"))
    return out


def store_reviewed(
    w: WriteTx,
    owner: str,
    self_id: str,
    chat_id: str | None,
    reviewed: Sequence[Reviewed],
    t: datetime,
    trail: Trail,
    causes: Callable[[Reviewed], list[str | None]],
    note_limit: int = MAX_NOTES,
) -> RunReview:
    """Store reviewed proposals of a run or a sync: commit the low-risk ones, hold the rest.

    Args:
        w: the open write transaction (owner locked).
        owner: the owner id.
        self_id: the owner's own entity.
        chat_id: the chat held proposals surface in (None: the main chat).
        reviewed: the proposals with the curator's decision, in order.
        t: the commit time.
        trail: the commit's cause-and-effect record.
        causes: the events each proposal came from (its curation and message, a sync).
        note_limit: notes one owner may hold (CONTRACT §13).

    A committed note proposal's one-line answer (what was kept and where) is kept on the
    proposal (`reply`, shown with the run) and said in a `note` notification. A proposal
    that carries a credential is dropped, never stored (CONTRACT §3): the curator's policy
    drops it first; this holds for every caller of the committer.
    """
    reviewed = [r for r in reviewed if proposal_secret(r.proposal) is None]
    keys = [_keys(w, owner, self_id, r.proposal) for r in reviewed]
    probe = [
        {
            "idx": i,
            "attribute": suppression_attribute(r.proposal.op, r.proposal.attribute),
            "subjects": k["subjects"],
            "values": k["values"],
        }
        for i, (r, k) in enumerate(zip(reviewed, keys, strict=True))
        if k["values"]
    ]
    suppressed = w.suppressed(owner, probe)
    # The person plainly stating it again is asserting it: that clears the suppression
    # (the batch's flush does) instead of being silenced by it.
    live = [
        (i, r, k)
        for i, (r, k) in enumerate(zip(reviewed, keys, strict=True))
        if i not in suppressed
        or (r.action == "commit" and r.proposal.provenance.source == "user_stated")
    ]
    for _, r, _ in live:
        trail.event(
            "proposal",
            event_id=public_id(owner, r.proposal.id),
            causes=causes(r),
            chat_id=chat_id,
            run_id=r.proposal.provenance.run_id,
            attribute=r.proposal.attribute,
            policy=r.policy,
        )
    auto = [(i, r, k) for i, r, k in live if r.action == "commit"]
    held = [(i, r, k) for i, r, k in live if r.action == "hold"]
    decisions = [
        trail.event(
            "decision",
            actor="policy",
            decision="commit",
            policy=r.policy,
            proposal_id=public_id(owner, r.proposal.id),
            causes=[public_id(owner, r.proposal.id)],
        )
        for _, r, _ in auto
    ]
    applied = apply_proposals(
        w, owner, self_id, [r.proposal for _, r, _ in auto], t, trail, decisions, note_limit
    )
    items = [
        stored_proposal(owner, chat_id, i, r, k, "committed", a)
        for (i, r, k), a in zip(auto, applied, strict=True)
    ]
    items += [stored_proposal(owner, chat_id, i, r, k, "pending", None) for i, r, k in held]
    created = w.create_proposals(owner, items, t)
    w.notify(
        owner,
        [
            {
                "id": "ntf_" + item["id"][4:],
                "kind": "proposal",
                "chat_id": item["chat_id"],
                "proposal_id": item["id"],
                "seq": item["seq"],
                "text": "Should I remember this? "
                + describe(item["attribute"], item["value"], item["object_name"], item["op"])
                + (f' (from: "{item["evidence"]}")' if item["evidence"] else ""),
            }
            for item in items
            if item["status"] == "pending" and item["id"] in created
        ]
        + note_notices(items, created),
        t,
    )
    trail.flush()
    touched = {a.entity_id for a in applied} | {a.object_id for a in applied if a.object_id}
    return RunReview(len(live), sum(a.changed for a in applied), len(held), tuple(sorted(touched)))


def _pending(w: WriteTx, owner: str, proposal_id: str) -> ProposalRecord:
    found = w.proposal(owner, proposal_id)
    if found is None:
        raise NotFound("proposal", proposal_id)
    if found.status != "pending":
        raise Conflict(f"proposal {proposal_id!r} is already {found.status}")
    return found


def as_proposal(rec: ProposalRecord) -> Proposal:
    """Rebuild the `Proposal` a stored proposal stands for (to commit it on keep)."""
    subject = (
        EntityRef(id=rec.entity_id)
        if rec.entity_id
        else EntityRef(name=rec.entity_name, kind=rec.entity_kind)
    )
    obj = None
    if rec.object_id or rec.object_name:
        obj = (
            EntityRef(id=rec.object_id)
            if rec.object_id
            else EntityRef(name=rec.object_name, kind=rec.object_kind or "person")
        )
    return Proposal(
        id=rec.id,
        op=rec.op,
        note=None if rec.note is None else NoteProposal.model_validate_json(rec.note),
        subject=subject,
        attribute=rec.attribute,
        value=rec.value,
        object=obj,
        valid_from=rec.valid_from,
        valid_to=rec.valid_to,
        cardinality=rec.cardinality,
        type=rec.type,
        provenance=Provenance(
            source=rec.source,
            evidence=rec.evidence,
            reason=rec.reason,
            confidence=rec.confidence,
            run_id=rec.run_id,
            message_id=rec.message_id,
        ),
    )


def keep(
    w: WriteTx,
    owner: str,
    self_id: str,
    proposal_id: str,
    by: str,
    t: datetime,
    trail: Trail,
    note_limit: int = MAX_NOTES,
) -> tuple[ProposalRecord, str | None]:
    """Commit a pending proposal the person kept; return (proposal now `kept`, fact id).

    The fact keeps the proposal's source (`inferred`, `untrusted`, ...: CONTRACT §10).
    Keeping clears a suppression of the same assertion (via the batch's flush). Recorded
    as a `keep` decision by `by`, caused by the proposal's event (CONTRACT §8).

    Raises:
        NotFound: no such proposal for this owner.
        Conflict: it is not pending any more.
    """
    rec = _pending(w, owner, proposal_id)
    decision = trail.event(
        "decision", actor=by, decision="keep", proposal_id=proposal_id, causes=[proposal_id]
    )
    proposal = said_by(w, owner, as_proposal(rec))
    applied = apply_proposals(w, owner, self_id, [proposal], t, trail, [decision], note_limit)[0]
    done = w.decide_proposal(
        owner,
        proposal_id,
        status="kept",
        by=by,
        fact_id=applied.fact_id,
        entity_id=applied.entity_id,
        object_id=applied.object_id,
        t=t,
        note_id=applied.note_id,
        reply=applied.reply,
    )
    assert done is not None  # pending was checked under the owner's lock
    w.acknowledge(owner, proposal_ids=[proposal_id], t=t)
    return done, applied.fact_id


def discard(
    w: WriteTx, owner: str, self_id: str, proposal_id: str, by: str, t: datetime, trail: Trail
) -> ProposalRecord:
    """Discard a pending proposal and suppress its normalized assertion (CONTRACT §3).

    Recorded as a `discard` decision by `by` (no rows change; CONTRACT §8).

    Raises:
        NotFound: no such proposal for this owner.
        Conflict: it is not pending any more.
    """
    rec = _pending(w, owner, proposal_id)
    trail.event(
        "decision", actor=by, decision="discard", proposal_id=proposal_id, causes=[proposal_id]
    )
    trail.flush()
    k = _keys(w, owner, self_id, as_proposal(rec))
    if k["values"]:
        w.suppress(
            owner,
            [
                {
                    "subject": k["subjects"][0],
                    "attribute": suppression_attribute(rec.op, rec.attribute),
                    "value_key": k["values"][0],
                    "proposal_id": rec.id,
                }
            ],
            t,
        )
    done = w.decide_proposal(
        owner,
        proposal_id,
        status="discarded",
        by=by,
        fact_id=None,
        entity_id=None,
        object_id=None,
        t=t,
    )
    assert done is not None
    w.acknowledge(owner, proposal_ids=[proposal_id], t=t)
    return done
