"""Write primitives of an owner import (issue 13), for `committer` only.

A mixin of `graph.write.writer.WriteTx`: each method runs inside the caller's write
transaction; `committer.portability` composes them, one bounded batch per transaction.
Nodes and relationships are written as the export carried them (remapped for the new
owner by the committer); nothing here decides anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graph.cypher import portability as pc
from graph.write.base import WriteBase


class RestoreWrites(WriteBase):
    """Import steps inside one transaction."""

    def owned_besides_tokens(self, owner: str) -> int:
        """Count the owner's nodes other than its tokens (an import target must have none)."""
        return int(self._run(pc.OWNED_BESIDES_TOKENS, owner=owner)[0]["owned"])

    def start_import(self, owner: str, props: dict[str, Any], t: datetime) -> None:
        """Create the owner if missing, set the exported owner's properties on it, and mark
        it `importing`: no commit of it starts until `end_import`."""
        self._run(pc.SET_OWNER, owner=owner, props=props, t=t)

    def end_import(self, owner: str) -> None:
        """Clear the `importing` mark."""
        self._run(pc.END_IMPORT, owner=owner)

    def restore_nodes(self, label: str, rows: Sequence[dict[str, Any]]) -> int:
        """Create nodes of kind `label` (one of `graph.portable.KINDS`) with these
        properties; return how many."""
        if not rows:
            return 0
        return int(self._run(pc.CREATE_NODES[label], rows=list(rows))[0]["created"])

    def restore_relations(self, owner: str, type_: str, edges: Sequence[dict[str, Any]]) -> int:
        """Create relationships of relation `type_` (a `graph.portable.RELATIONS` key) between
        nodes of `owner` named by their refs (maps: start, end, props); return how many
        (an edge whose end is missing is not created)."""
        if not edges:
            return 0
        return int(
            self._run(pc.CREATE_RELATIONS[type_], owner=owner, edges=list(edges))[0]["created"]
        )
