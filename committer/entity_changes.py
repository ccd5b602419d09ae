"""Splits and integration syncs, as committer commands (CONTRACT §4, §5, §8).

A mixin of `committer.apply.Committer`: each method is one write transaction that locks
the owner first (`begin_commit`), like every other commit, and records its cause and
effect in that transaction (`committer.trail`).
"""

from __future__ import annotations

from collections.abc import Sequence

from committer.base import CommitterBase
from committer.owners import ensure_owner
from committer.proposals import EntityRef, Reviewed
from committer.split import SplitResult, split_entity
from committer.syncs import SyncOutcome, apply_sync
from committer.trail import Trail
from graph.time import utcnow
from graph.write.writer import WriteTx


class EntityChangeCommands(CommitterBase):
    """Entity-level changes a person or an integration makes."""

    def split(
        self,
        owner: str,
        entity_id: str,
        fact_ids: Sequence[str],
        name: str,
        aliases: Sequence[str] = (),
        by: str = "rest",
    ) -> SplitResult:
        """Split chosen rows (and aliases) off an entity into a new one (CONTRACT §5).

        Recorded as one `split` action by `by`: the rows moved off the entity, the rows
        recorded on the new one, and the new entity `split` (CONTRACT §8).

        Raises:
            NotFound: the entity or a fact id is not the owner's.
            InvalidInput: see `committer.split.split_entity`.
        """

        def work(w: WriteTx) -> SplitResult:
            ensure_owner(w, owner)
            t = w.begin_commit(owner, utcnow())
            trail = Trail(w, owner, t)
            trail.act("action", actor=by, action="split", entity_id=entity_id)
            return split_entity(w, owner, entity_id, fact_ids, name, aliases, t, trail)

        return self._writer.transaction(work)

    def apply_sync(
        self,
        owner: str,
        *,
        sync_id: str,
        integration: str,
        full_snapshot: bool,
        digest: str,
        reviewed: Sequence[Reviewed],
        refs: Sequence[EntityRef],
    ) -> SyncOutcome:
        """Apply an integration sync in one transaction (CONTRACT §4, §5; see
        `committer.syncs`); idempotent on sync id.

        Raises:
            Conflict: the id is a run's, or a sync's with other content.
        """

        def work(w: WriteTx) -> SyncOutcome:
            self_id, _ = ensure_owner(w, owner)
            t = w.begin_commit(owner, utcnow())
            return apply_sync(
                w,
                owner,
                self_id,
                sync_id=sync_id,
                integration=integration,
                full_snapshot=full_snapshot,
                digest=digest,
                reviewed=reviewed,
                refs=refs,
                t=t,
                trail=Trail(w, owner, t),
            )

        return self._writer.transaction(work)
