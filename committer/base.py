"""The one base of the committer's command groups: the writer they all run their
transactions through.

`committer.apply.Committer` is built from command groups (decisions, groups, erasure,
entity changes), each a subclass of `CommitterBase`, so each uses the real `_writer`.
"""

from __future__ import annotations

from neo4j import Driver

from committer.note_ops import MAX_NOTES
from graph.embedding import Embedder
from graph.transactions import DEFAULT_RETRY, RetryPolicy
from graph.write.writer import Writer


class CommitterBase:
    """Owns the writer every command runs its one transaction through.

    Args:
        driver: a connected neo4j driver.
        database: the Neo4j database, or None for the default.
        embedder: embeds each new row in the transaction that writes it (CONTRACT §6
            semantic recall; committer/search_index.py), or None: rows get their search
            text only.
        policy: how long a commit is retried while the store does not answer or under
            contention (graph/transactions.py; `Settings.retry_policy()`).
    """

    def __init__(
        self,
        driver: Driver,
        database: str | None = None,
        embedder: Embedder | None = None,
        policy: RetryPolicy = DEFAULT_RETRY,
    ):
        self._writer = Writer(driver, database, embedder, policy)

    note_limit: int = MAX_NOTES
    """Notes one owner may hold (CONTRACT §13); the process sets it from
    `WORLDSTATE_NOTES_MAX_PER_OWNER`. Every path that keeps notes (REST, MCP, a run's
    proposals, a kept proposal) applies it."""
