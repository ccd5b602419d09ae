"""The read side of the owner export (issue 13; format in graph/portable.py).

`export_lines(reader, owner)` yields the export's JSON lines one page at a time: each
page is its own short READ transaction of at most `page` nodes, so memory stays bounded
whatever the owner's size and no transaction outlives Neo4j's timeout. A reader sees
commits that land between pages (Neo4j reads are read-committed, not snapshots): the
owner's last commit time is read before and after, and the closing line says whether it
moved (`changed_during_export`); `worldstate owner import` refuses such a file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from graph.cypher import portability as pc
from graph.portable import FORMAT, KINDS, RELATIONS, VERSION, encode, node_line, rel_line
from graph.read.base import ReadBase
from graph.time import utcnow

PAGE = 1_000
"""Nodes per page (per READ transaction)."""


class ExportReads(ReadBase):
    """Pages of an owner's nodes and relationships, for `export_lines`."""

    def export_page(
        self, owner: str, label: str, after: str, limit: int
    ) -> list[tuple[dict[str, Any], str]]:
        """Return up to `limit` nodes of kind `label` of `owner` after cursor `after`, as
        (properties, cursor), in cursor order."""
        rows = self._rows(
            pc.EXPORT_PAGE[label], owner=owner, prefix=owner + "/", after=after, limit=limit
        )
        return [(dict(r["n"]), r["cursor"]) for r in rows]

    def export_relations(
        self, owner: str, type_: str, after: str, limit: int
    ) -> tuple[list[tuple[str, str, dict[str, Any]]], str | None, int]:
        """Return the relationships of relation `type_` (`Relation.key`) of up to `limit`
        start nodes after cursor
        `after`: ((start ref, end ref, properties) list, last cursor or None, nodes read)."""
        rows = self._rows(
            pc.EXPORT_RELATIONS[type_], owner=owner, prefix=owner + "/", after=after, limit=limit
        )
        edges = [(r["start"], e[0], dict(e[1])) for r in rows for e in r["edges"] if e]
        return edges, (rows[-1]["cursor"] if rows else None), len(rows)

    def owner_last_tx(self, owner: str) -> Any:
        """Return the owner's last commit time as stored, or None for an unknown owner."""
        rows = self._rows(pc.LAST_TX, owner=owner)
        return rows[0]["last_tx"] if rows else None


def export_lines(reader: ExportReads, owner: str, page: int = PAGE) -> Iterator[str]:
    """Yield the owner's export as JSON lines (graph/portable.py), page by page.

    Args:
        reader: the store's read side.
        owner: the owner id.
        page: nodes per READ transaction.

    Raises:
        StoreUnavailable: Neo4j could not be reached (the stream then ends without its
            closing line, which marks it as cut short).
    """
    before = reader.owner_last_tx(owner)
    header = {"format": FORMAT, "version": VERSION, "owner": owner}
    yield json.dumps(header | {"exported_at": encode(utcnow())})
    counts: dict[str, int] = {}
    for kind in KINDS:
        after = ""
        while True:
            rows = reader.export_page(owner, kind.label, after, page)
            for props, _ in rows:
                yield node_line(kind.label, props)
            counts[kind.label] = counts.get(kind.label, 0) + len(rows)
            if len(rows) < page:
                break
            after = rows[-1][1]
    for rel in RELATIONS:
        after = ""
        while True:
            edges, last, read = reader.export_relations(owner, rel.key, after, page)
            for start, end, props in edges:
                yield rel_line(rel.key, start, end, props)
            counts[rel.key] = counts.get(rel.key, 0) + len(edges)
            if read < page or last is None:
                break
            after = last
    changed = reader.owner_last_tx(owner) != before
    yield json.dumps({"end": True, "counts": counts, "changed_during_export": changed})
