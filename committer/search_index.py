"""The search fields of the rows the committer writes (CONTRACT §6 semantic recall).

`index_new_rows` runs in the transaction that creates the rows (`Batch.flush`): each new
row gets its text ("<entity> <attribute> <value or object name>") for the full-text
index and, when the process has an embedder, its vector, the commit's rows embedded in
one batch. An embedder that fails does not fail the commit: the rows are written with
their text and no vector, and `backfill` adds the vectors later. The read side never
embeds a row; the prefetch path never embeds at all.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import partial
from typing import Any

from neo4j import Driver

from graph.embedding import Embedder, EmbedderUnavailable, fact_text
from graph.write.writer import Writer, WriteTx

log = logging.getLogger("worldstate.committer")

BACKFILL_BATCH = 256
"""Rows embedded and written per transaction by `backfill`."""


def index_new_rows(w: WriteTx, owner: str, rows: Sequence[dict[str, Any]]) -> None:
    """Set the search text and vector of rows just created in this transaction.

    Args:
        w: the open write transaction (its `embedder` is used, if any).
        owner: the owner id.
        rows: the created rows as `WriteTx.create` took them (id, entity_id, attribute,
            value, object_id, ...).
    """
    if not rows:
        return
    ids = {r["entity_id"] for r in rows} | {r["object_id"] for r in rows if r.get("object_id")}
    names = w.entity_names(owner, sorted(ids))
    texts = [
        fact_text(
            names.get(r["entity_id"], ""),
            r["attribute"],
            names.get(r["object_id"], r["object_id"]) if r.get("object_id") else r["value"],
        )
        for r in rows
    ]
    vectors = embed_texts(w.embedder, texts)
    model = w.embedder.model if w.embedder is not None and vectors is not None else None
    w.index_rows(
        owner,
        [
            {"id": r["id"], "text": text, "embedding": None if vectors is None else vectors[i]}
            for i, (r, text) in enumerate(zip(rows, texts, strict=True))
        ],
        model,
    )


class Prepared:
    """An embedder that answers from vectors made before the transaction opened, and asks
    the real one only for texts it was not given (issue 12: a run's texts are embedded in
    one call, outside the transaction that writes them).

    A text's vector does not depend on the texts embedded beside it, so a row gets the
    vector it would have got from its own call.

    Args:
        inner: the process's embedder (for texts not prepared).
        vectors: text -> its vector, made by `inner`.
    """

    def __init__(self, inner: Embedder, vectors: dict[str, list[float]]):
        self._inner = inner
        self._vectors = vectors

    @property
    def model(self) -> str:
        """The inner embedder's model id."""
        return self._inner.model

    @property
    def dimensions(self) -> int:
        """The inner embedder's vector size."""
        return self._inner.dimensions

    def warm(self) -> None:
        """Warm the inner embedder."""
        self._inner.warm()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order: a prepared one, else the inner embedder's.

        Raises:
            EmbedderUnavailable: the inner embedder failed on the texts not prepared.
        """
        missing = sorted({t for t in texts if t not in self._vectors})
        if missing:
            made = dict(zip(missing, self._inner.embed(missing), strict=True))
            return [self._vectors[t] if t in self._vectors else made[t] for t in texts]
        return [self._vectors[t] for t in texts]


def embed_texts(embedder: Embedder | None, texts: list[str]) -> list[list[float]] | None:
    """Embed `texts` in one call, or None without an embedder or when it fails (logged:
    what is written gets its text now and its vector from `backfill` later)."""
    if embedder is None:
        return None
    try:
        return embedder.embed(texts)
    except EmbedderUnavailable as exc:
        log.warning(
            "rows written without vectors (%s); `worldstate embeddings backfill` adds them later",
            exc,
        )
        return None


def backfill(
    driver: Driver,
    database: str | None,
    embedder: Embedder | None,
    batch: int = BACKFILL_BATCH,
    owners: Sequence[str] | None = None,
) -> int:
    """Give every row of every owner its search text and, with an embedder, a vector of
    the embedder's model (rows written before an embedder was configured, rows whose
    commit found the embedder down, rows embedded by another model); and every episode
    a vector of that model (CONTRACT §12).

    One transaction per batch of one owner; safe to interrupt and run again.

    Args:
        driver: a connected driver.
        database: the Neo4j database, or None for the default.
        embedder: the process's embedder, or None to set texts only.
        batch: rows per transaction.
        owners: only these owners (default every owner).

    Returns:
        How many rows and episodes were updated.

    Raises:
        EmbedderUnavailable: the embedder failed (what was done so far is kept).
    """
    writer = Writer(driver, database)
    model = embedder.model if embedder is not None else None
    done = 0
    chosen = list(owners) if owners is not None else writer.transaction(lambda w: w.owner_ids())
    for owner in chosen:
        while True:
            count = writer.transaction(
                partial(_backfill_batch, owner=owner, embedder=embedder, model=model, batch=batch)
            )
            done += count
            if count < batch:
                break
        while embedder is not None:
            count = writer.transaction(
                partial(_backfill_episodes, owner=owner, embedder=embedder, batch=batch)
            )
            done += count
            if count < batch:
                break
    return done


def _backfill_episodes(w: WriteTx, owner: str, embedder: Embedder, batch: int) -> int:
    """Embed up to `batch` episodes of `owner` with no vector of the embedder's model, and
    say so (`vectors_changed`: in-process caches of its episode vectors load it again)."""
    rows = w.unembedded_episodes(owner, embedder.model, batch)
    if rows:
        vectors = embedder.embed([r["text"] or "" for r in rows])
        w.embed_episodes(
            owner,
            [{"id": r["id"], "embedding": v} for r, v in zip(rows, vectors, strict=True)],
            embedder.model,
        )
        w.vectors_changed(owner)
    return len(rows)


def _backfill_batch(
    w: WriteTx, owner: str, embedder: Embedder | None, model: str | None, batch: int
) -> int:
    rows = w.unindexed_rows(owner, model, batch)
    if not rows:
        return 0
    texts = [
        fact_text(
            r["entity_name"] or "",
            r["attribute"],
            r["object_name"] if r["object_name"] is not None else r["value"],
        )
        for r in rows
    ]
    vectors = embedder.embed(texts) if embedder is not None else None
    w.index_rows(
        owner,
        [
            {"id": r["id"], "text": text, "embedding": None if vectors is None else vectors[i]}
            for i, (r, text) in enumerate(zip(rows, texts, strict=True))
        ],
        model,
    )
    if vectors is not None:
        w.vectors_changed(owner)
    return len(rows)
