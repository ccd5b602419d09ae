"""Integration syncs, applied by the committer in one transaction (CONTRACT §4, §5, §10).

A sync is what an integration reports at once: structured observations, reviewed by
the curator's risk policy like a run's (clear ones committed, the rest held in the main
chat), applied synchronously (no extraction is needed, and a full snapshot's archive
decision must see the whole snapshot at once). Its event id is its sync id; posting the
same sync again changes nothing and answers the same, posting other content under that
id is a conflict.

Every entity a sync names (subject or object of an observation, when it exists) is
marked as reported by the integration and, if archived, comes back. A sync that
declares itself a full snapshot archives the entities its integration reported before
and does not report now (never the owner's own entity): their facts stay, in history
and time travel, and prefetch leaves them out (CONTRACT §5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from committer.curation import lookup
from committer.filing import store_reviewed
from committer.proposals import EntityRef, Reviewed
from committer.trail import Trail
from graph.errors import Conflict
from graph.write.writer import WriteTx


@dataclass(frozen=True, slots=True)
class SyncOutcome:
    """What a sync did (CONTRACT §10 `POST /v1/syncs`).

    Attributes:
        id: the sync id (its event id).
        integration: the integration's name.
        full_snapshot: whether it declared itself a full snapshot.
        proposals: observations stored as proposals (suppressed ones dropped).
        committed: those that changed memory.
        held: those held for the person.
        archived: entities archived by this sync.
        unarchived: archived entities it reported again.
        created: False when the same sync was posted before (nothing changed now).
    """

    id: str
    integration: str
    full_snapshot: bool
    proposals: int
    committed: int
    held: int
    archived: tuple[str, ...]
    unarchived: tuple[str, ...]
    created: bool


def apply_sync(
    w: WriteTx,
    owner: str,
    self_id: str,
    *,
    sync_id: str,
    integration: str,
    full_snapshot: bool,
    digest: str,
    reviewed: Sequence[Reviewed],
    refs: Sequence[EntityRef],
    t: datetime,
    trail: Trail,
) -> SyncOutcome:
    """Apply a sync at commit time `t` (see the module docstring).

    Args:
        w: the open write transaction (owner locked).
        owner: the owner id.
        self_id: the owner's own entity (never archived).
        sync_id: the client's sync id, unique per owner among runs and syncs.
        integration: the integration's name.
        full_snapshot: archive what the integration reported before and not now.
        digest: sha256 of the sync's canonical body (idempotency).
        reviewed: its observations as reviewed proposals.
        refs: every entity its observations name (subjects and objects).
        t: the commit time.
        trail: the commit's cause-and-effect record.

    Raises:
        Conflict: the id was used by a run, or by a sync with other content.
    """
    existing = w.event(owner, sync_id)
    if existing is not None or w.run_exists(owner, sync_id):
        stored, out = w.stored_sync(owner, sync_id)
        if existing is None or existing.kind != "sync":
            raise Conflict(
                f"id {sync_id!r} is already a run's id; a sync's event id is its "
                "sync id, so runs and syncs need distinct ids"
            )
        if stored != digest:
            raise Conflict(f"sync {sync_id!r} was already posted with different content")
        return SyncOutcome(
            sync_id,
            str(existing.detail.get("integration")),
            bool(existing.detail.get("full_snapshot")),
            int(out["proposals"]),
            int(out["committed"]),
            int(out["held"]),
            tuple(out["archived"]),
            tuple(out["unarchived"]),
            created=False,
        )
    sync = trail.act(
        "sync",
        event_id=sync_id,
        actor=f"integration:{integration}",
        integration=integration,
        full_snapshot=full_snapshot,
    )
    review = store_reviewed(w, owner, self_id, None, reviewed, t, trail, lambda _: [sync])
    trail.cause = sync
    named = {lookup(w, owner, self_id, ref) for ref in refs}
    reported = sorted({i for i in named if i is not None} | set(review.entity_ids))
    unarchived = w.mark_reported(owner, integration, reported)
    archived = (
        w.archive_unreported(owner, integration, reported, self_id, t) if full_snapshot else []
    )
    for entity_id in unarchived:
        trail.changed(entity_id, "unarchived")
    for entity_id in archived:
        trail.changed(entity_id, "archived")
    trail.flush()
    w.set_sync_outcome(
        owner,
        sync_id,
        digest=digest,
        proposals=review.proposals,
        committed=review.committed,
        held=review.held,
        archived=archived,
        unarchived=unarchived,
    )
    return SyncOutcome(
        sync_id,
        integration,
        full_snapshot,
        review.proposals,
        review.committed,
        review.held,
        tuple(archived),
        tuple(unarchived),
        created=True,
    )
