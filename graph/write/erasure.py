"""Write primitives of owner erasure (CONTRACT §9), for `committer` only.

A mixin of `graph.write.writer.WriteTx`: each method runs inside the caller's write
transaction; `committer.erasure` composes them, one bounded batch per transaction.
This is the one place where nodes are deleted.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from graph.cypher import erasure as xc
from graph.write.base import WriteBase


class ErasureWrites(WriteBase):
    """Erasure steps inside one transaction."""

    def start_erasure(self, owner: str, t: datetime) -> bool:
        """Mark the owner `erasing` under its commit lock; False when the owner is unknown.

        From then on no commit of the owner starts (`begin_commit` finds no owner).
        """
        return bool(self._run(xc.START_ERASURE, owner=owner, t=t, tx_id=uuid.uuid4().hex))

    def erase_batch(self, owner: str, label: str, batch: int) -> int:
        """Delete up to `batch` nodes of `label` owned by `owner`, with their relationships.

        Args:
            owner: the owner id.
            label: one of `graph.cypher.erasure.OWNED_LABELS`.
            batch: the most nodes to delete in this transaction.

        Returns:
            How many were deleted (fewer than `batch`: none of the label is left).
        """
        return int(self._run(xc.ERASE_BATCH[label], owner=owner, batch=batch)[0]["removed"])

    def erase_owner_node(self, owner: str) -> int:
        """Delete the Owner node itself (last); return 1, or 0 when it was gone."""
        return int(self._run(xc.ERASE_OWNER, owner=owner)[0]["removed"])

    def owner_remaining(self, owner: str) -> int:
        """Count every node still carrying `owner`, whatever its label, plus the Owner node."""
        return int(self._run(xc.REMAINING, owner=owner)[0]["remaining"])
