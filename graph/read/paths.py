"""Shortest relationship paths over a fetched neighbourhood (CONTRACT §6 traversal).

Pure: relationship rows in, paths out; `graph.read.pull.PullReads.neighbors` fetches
the rows hop by hop in Cypher and hands them here. Relationship rows are undirected
edges between their subject (`entity_id`) and object (`object_id`): a traversal goes
through them in either direction. networkx gives the breadth-first layers; among the
shortest paths to an entity the one chosen is the lexicographically smallest sequence
of fact ids from the start (a deterministic tie-break by ids).
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from graph.records import FactRecord


def shortest_paths(
    start: str, rows: Iterable[FactRecord], max_depth: int
) -> dict[str, tuple[FactRecord, ...]]:
    """Return, for every entity within `max_depth` hops of `start`, the path reaching it.

    Args:
        start: the entity id the traversal starts from (not in the result).
        rows: relationship rows (each with an `object_id`); rows whose subject and object
            are the same entity are ignored (they lead nowhere).
        max_depth: the largest number of hops (>= 1).

    Returns:
        `{entity_id: (fact, ...)}`: the rows of a shortest path from `start`, in order;
        among several shortest paths, the one whose fact ids, read from the start, are
        lexicographically smallest.
    """
    graph: nx.MultiGraph[str] = nx.MultiGraph()
    graph.add_node(start)
    for row in rows:
        if row.object_id is not None and row.object_id != row.entity_id:
            graph.add_edge(row.entity_id, row.object_id, key=row.id, fact=row)
    best: dict[str, tuple[FactRecord, ...]] = {start: ()}
    previous: set[str] = {start}
    for depth, layer in enumerate(nx.bfs_layers(graph, [start])):
        if depth == 0:
            continue
        if depth > max_depth:
            break
        for node in layer:
            candidates = [
                best[parent] + (data["fact"],)
                for parent, edges in graph[node].items()
                if parent in previous
                for data in edges.values()
            ]
            best[node] = min(candidates, key=lambda path: [f.id for f in path])
        previous = set(layer)
    best.pop(start)
    return best
