"""The one base of the write side: a write transaction to run Cypher in.

Every part of `graph.write.writer.WriteTx` (audit, erasure, groups, proposals, search)
subclasses `WriteBase`, so each calls the real `_run` and none re-declares it.
"""

from __future__ import annotations

from typing import Any

from neo4j import ManagedTransaction, Transaction

from graph.embedding import Embedder


class WriteBase:
    """Write primitives run inside one transaction; every query is scoped by `owner`.

    Args:
        tx: the write transaction (graph/transactions.py opens it).
        embedder: the process's embedder (or None), carried for the committer, which
            embeds the rows it creates in the same transaction; graph code never calls it.
    """

    def __init__(self, tx: Transaction | ManagedTransaction, embedder: Embedder | None = None):
        self._tx = tx
        self.embedder = embedder

    def _run(self, query: str, **params: Any) -> list[Any]:
        return list(self._tx.run(query, params))
