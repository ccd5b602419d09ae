"""Reads of the pull tools (CONTRACT §6 "Pull"): scoped entities, lookup by name, an
entity's rows on both axes, and relationship traversal.

A mixin of `graph.read.reader.Reader`: READ transactions only. Every method takes a
`graph.scope.Scope` (resolved by `Reader.scope`) and every query ANDs the scope's
predicates, so memory access and group sharing hold here for every caller (CONTRACT §7).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from graph.cypher import facts as fc
from graph.cypher import pull as pc
from graph.names import search_key
from graph.read.base import ReadBase
from graph.read.paths import shortest_paths
from graph.records import EntityRecord, FactRecord
from graph.scope import Scope, params
from graph.time import FAR_FUTURE, FAR_PAST, AsOf

MAX_DEPTH = 3
"""The deepest relationship traversal (CONTRACT §6: depth <= 3)."""


class PullReads(ReadBase):
    """Scoped reads for the assistant's read tools."""

    def entities_named(
        self, scope: Scope, name: str, known_at: datetime, limit: int = 20
    ) -> list[EntityRecord]:
        """Return the visible entities called `name` (a name or an alias), compared after
        `graph.names.search_key` (case- and accent-insensitive, spaces collapsed), that
        existed unmerged at `known_at`; oldest first, at most `limit`."""
        rows = self._rows(
            pc.ENTITIES_NAMED,
            name=search_key(name),
            known_at=known_at,
            limit=limit,
            **params(scope),
        )
        return [pc.entity_from_row(r["e"]) for r in rows]

    def entity_rows(
        self,
        scope: Scope,
        entity_ids: list[str],
        known_at: datetime,
        valid_at: datetime | None,
    ) -> list[FactRecord]:
        """Return the rows of `entity_ids` the scope lets through, believed at `known_at`.

        Args:
            scope: what the caller may see.
            entity_ids: the entities.
            known_at: the knowledge to read (aware UTC).
            valid_at: the as-of point in the world (CONTRACT §2), or None for every row
                believed at `known_at` whatever its valid window (the history as known
                then, CONTRACT §2.3).

        Returns:
            Rows ordered by entity, attribute, valid_from, recorded_at, id.
        """
        lo = FAR_PAST if valid_at is None else valid_at
        hi = FAR_FUTURE if valid_at is None else valid_at
        return [
            fc.fact_from_record(r["row"])
            for r in self._rows(
                pc.ENTITY_ROWS,
                entity_ids=entity_ids,
                known_at=known_at,
                valid_lo=lo,
                valid_hi=hi,
                **params(scope),
            )
        ]

    def neighbors(
        self, scope: Scope, entity_id: str, depth: int, as_of: AsOf
    ) -> list[tuple[EntityRecord, tuple[FactRecord, ...]]]:
        """Return the entities reachable from `entity_id` through relationship rows, in
        either direction, within `depth` hops (CONTRACT §6, §10 neighbors).

        Only rows visible at `as_of` and under `scope` are followed, and only to entities
        the scope may see, so nothing is reached through or at an entity the caller
        cannot see. The expansion is one Cypher query per hop (`NEIGHBOR_ROWS`, at most
        `depth` of them) in one READ transaction; `graph.read.paths.shortest_paths` picks each
        entity's path.

        Args:
            scope: what the caller may see.
            entity_id: the start; it must be visible (a merged id is not followed here:
                the caller resolves it first).
            depth: 1 to `MAX_DEPTH` hops.
            as_of: the point on both axes.

        Returns:
            `(entity, path)` pairs ordered by path length, then entity id; `path` is the
            rows of a shortest path from the start, in order (ties: smallest fact ids).

        Raises:
            NotFound: the start is not visible at `as_of.known_at`.
            ValueError: `depth` outside 1..MAX_DEPTH (callers validate it first).
        """
        if not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"depth must be 1..{MAX_DEPTH}")
        with self.snapshot() as tx:
            start = tx.entity(scope, entity_id, as_of.known_at)  # graph/read/reader.py
            rows = _expand(tx._rows, scope, start.id, depth, as_of)
            paths = shortest_paths(start.id, rows, depth)
            found = tx.visible_entities(scope, sorted(paths), as_of.known_at)
        ordered = sorted(paths.items(), key=lambda item: (len(item[1]), item[0]))
        return [(found[eid], path) for eid, path in ordered if eid in found]

    def visible_entities(
        self, scope: Scope, entity_ids: list[str], known_at: datetime
    ) -> dict[str, EntityRecord]:
        """Return the entities among `entity_ids` the scope may see at `known_at`, by id
        (others left out; a merge later than `known_at` is not shown)."""
        rows = self._rows(
            pc.VISIBLE_ENTITIES, entity_ids=entity_ids, known_at=known_at, **params(scope)
        )
        out = {}
        for r in rows:
            found = pc.entity_from_row(r["e"])
            if found.merged_at is not None and known_at < found.merged_at:
                found = replace(found, merged_into=None, merged_at=None)
            out[found.id] = found
        return out


def _expand(
    run: Callable[..., list[Any]], scope: Scope, start: str, depth: int, as_of: AsOf
) -> list[FactRecord]:
    """Breadth-first, one hop per query: the relationship rows touching each frontier."""
    seen = {start}
    frontier = [start]
    rows: dict[str, FactRecord] = {}
    for _ in range(depth):
        if not frontier:
            break
        nxt: set[str] = set()
        for record in run(
            pc.NEIGHBOR_ROWS,
            frontier=frontier,
            fetched=sorted(rows),
            valid_at=as_of.valid_at,
            known_at=as_of.known_at,
            **params(scope),
        ):
            row = fc.fact_from_record(record["row"])
            rows[row.id] = row
            nxt.update(other for other in record["others"] if other not in seen)
        seen |= nxt
        frontier = sorted(nxt)
    return list(rows.values())
