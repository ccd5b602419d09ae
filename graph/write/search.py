"""Write primitives for the search fields of fact rows (CONTRACT §6 semantic recall).

A mixin of `graph.write.writer.WriteTx` (for `committer` only): inside the caller's write
transaction, scoped by owner. They set only the derived fields `search_text`,
`embedding` and `embedding_model` (graph/cypher/search.py); no fact field is touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph.cypher import search as sc
from graph.cypher import vectors as vc
from graph.write.base import WriteBase


class SearchWrites(WriteBase):
    """Search-field writes inside one transaction."""

    def index_rows(self, owner: str, rows: Sequence[dict[str, Any]], model: str | None) -> None:
        """Set the search fields of rows of `owner`.

        Args:
            owner: the owner id.
            rows: maps {id, text, embedding (list of floats, or None)}.
            model: the id of the model that made the embeddings (None when there are none).
        """
        if rows:
            self._run(sc.INDEX_ROWS, owner=owner, rows=list(rows), model=model)

    def vectors_changed(self, owner: str) -> None:
        """Say that vectors were set on existing rows of `owner` outside a commit (the
        backfill): in-process caches of its vectors load it again (graph/read/vectors.py)."""
        self._run(vc.BUMP_SEARCH_REV, owner=owner)

    def unindexed_rows(self, owner: str, model: str | None, limit: int) -> list[dict[str, Any]]:
        """Return up to `limit` rows of `owner` (any axis) with no search text, or with no
        vector of `model` when `model` is given: maps {id, entity_name, attribute, value,
        object_name}, by id."""
        return [
            r.data() for r in self._run(sc.UNINDEXED_ROWS, owner=owner, model=model, limit=limit)
        ]

    def owner_ids(self) -> list[str]:
        """Return the id of every owner, sorted."""
        return [r["id"] for r in self._run(sc.OWNER_IDS)]
