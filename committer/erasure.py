"""Erasure of an owner (CONTRACT §9, §10 `DELETE /v1/owners/me`): the only hard delete.

A mixin of `committer.apply.Committer`. The owner is first marked `erasing` under its
commit lock, so no commit of it starts any more; then every node it owns is deleted,
label by label (`graph.cypher.erasure.OWNED_LABELS`), in bounded batches, each batch
its own transaction (an owner's memory can be far larger than one transaction should
hold); the Owner node goes last. Passes repeat until one deletes nothing (a token or a
run stored meanwhile, which take no commit lock, is caught). Finally the nodes still
carrying the owner are counted without the label list: the proof, `remaining`, is 0
unless a label was forgotten. Nodes of other owners are never matched: every delete
is filtered on `owner`; relationships go only with a deleted node.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from committer.base import CommitterBase
from graph.cypher.erasure import OWNED_LABELS
from graph.errors import InvalidInput, NotFound
from graph.time import utcnow
from graph.write.writer import WriteTx

BATCH = 1_000
"""Nodes deleted per transaction."""
MAX_PASSES = 5
"""Passes over `OWNED_LABELS` at most (each after the first only mops up stragglers)."""


@dataclass(frozen=True, slots=True)
class ErasureResult:
    """What an erasure removed (CONTRACT §10 `{removed, remaining}`).

    Attributes:
        removed: nodes deleted, the Owner node included.
        remaining: nodes still carrying the owner afterwards, counted on every label (0).
        by_label: nodes deleted per label.
    """

    removed: int
    remaining: int
    by_label: dict[str, int]


class ErasureCommands(CommitterBase):
    """Owner erasure."""

    def erase_owner(self, owner: str, confirm: str | None, batch: int = BATCH) -> ErasureResult:
        """Delete every node and relationship of `owner`, and nothing of anyone else.

        Args:
            owner: the owner id (the token's).
            confirm: must equal `owner`: the explicit confirmation (CONTRACT §10).
            batch: nodes deleted per transaction (at least 1).

        Returns:
            The counts; `remaining` is 0 when every owned label is in `OWNED_LABELS`.

        Raises:
            InvalidInput: `confirm` is missing or is not the owner's name (field `confirm`).
            NotFound: the owner does not exist (erased already).
        """
        if confirm != owner:
            raise InvalidInput(
                "confirm",
                f"must be the owner's name, {owner!r}, to erase all "
                "of its memory; nothing was deleted",
            )
        if not self._writer.transaction(lambda w: w.start_erasure(owner, utcnow())):
            raise NotFound("owner", owner)
        by_label = dict.fromkeys(OWNED_LABELS, 0)
        for _ in range(MAX_PASSES):
            swept = 0
            for label in OWNED_LABELS:
                while True:
                    n = self._writer.transaction(
                        partial(_erase_batch, owner=owner, label=label, size=max(batch, 1))
                    )
                    by_label[label] += n
                    swept += n
                    if n < max(batch, 1):
                        break
            if swept == 0:
                break
        by_label["Owner"] = self._writer.transaction(lambda w: w.erase_owner_node(owner))
        remaining = self._writer.transaction(lambda w: w.owner_remaining(owner))
        return ErasureResult(sum(by_label.values()), remaining, by_label)


def _erase_batch(w: WriteTx, *, owner: str, label: str, size: int) -> int:
    """One batch of erasure: up to `size` nodes of `label` of `owner` (CONTRACT §9)."""
    return w.erase_batch(owner, label, size)
