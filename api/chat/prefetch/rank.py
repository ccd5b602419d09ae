"""Ranking a mentioned entity's relationships: personalized PageRank on its neighbourhood.

The neighbourhood is small (the mentioned entities, the entities their relationship rows
reach, and the relationship rows among those: at most ~65 nodes), so PageRank
personalized on the mentioned entities is solved exactly rather than iterated: with `P`
the column-stochastic transition matrix of the undirected neighbourhood graph (each row
between two entities adds 1 to their edge's weight), the scores are the solution of
`(I - a P) x = (1 - a) p`, `p` uniform on the mentioned entities, dangling columns jumping
back to `p`. This is the fixed point networkx's `pagerank(G, personalization=p)` iterates
towards (its scipy path costs milliseconds per call; this dense solve a fraction of one,
and needs numpy only); tests/api/test_prefetch_rank.py checks the two agree.

Deterministic: nodes are laid out sorted by id, and scores are rounded to 12 decimal
places before they are compared, so equal scores tie exactly and ties are broken by id.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

ALPHA = 0.85
"""The damping factor (the probability of following an edge rather than restarting)."""

DECIMALS = 12
"""Scores are rounded to this many decimal places, so float noise never breaks a tie."""


def personalized_pagerank(
    nodes: Iterable[str],
    edges: Iterable[tuple[str, str]],
    seeds: Sequence[str],
    alpha: float = ALPHA,
) -> dict[str, float]:
    """Personalized PageRank of every node, restarting uniformly at `seeds`.

    Args:
        nodes: the neighbourhood's entity ids (seeds and edge ends are added).
        edges: relationship rows as (subject, object); direction is ignored, each row
            adds 1 to its pair's weight, self-loops are ignored.
        seeds: the mentioned entity ids (the restart set); none -> uniform restart.
        alpha: damping factor in (0, 1).

    Returns:
        node id -> score in [0, 1], rounded to `DECIMALS` places; the scores sum to 1
        (up to rounding). Empty when there are no nodes.
    """
    pairs = [(a, b) for a, b in edges if a != b]
    order = sorted(set(nodes) | set(seeds) | {x for pair in pairs for x in pair})
    if not order:
        return {}
    index = {n: i for i, n in enumerate(order)}
    adjacency = np.zeros((len(order), len(order)))
    for a, b in pairs:
        adjacency[index[a], index[b]] += 1.0
        adjacency[index[b], index[a]] += 1.0
    degree = adjacency.sum(axis=0)
    restart = np.zeros(len(order))
    for seed in seeds:
        restart[index[seed]] = 1.0
    restart = restart / restart.sum() if restart.any() else np.full(len(order), 1 / len(order))
    dangling = degree == 0
    transition = adjacency / np.where(dangling, 1.0, degree)
    transition[:, dangling] = restart[:, None]
    scores = np.linalg.solve(np.eye(len(order)) - alpha * transition, (1 - alpha) * restart)
    return {n: round(float(s), DECIMALS) for n, s in zip(order, scores, strict=True)}
