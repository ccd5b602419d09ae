"""Semantic recall: full-text and vector hits fused into one ranking (CONTRACT §6 "Pull",
§10 `GET /v1/search`).

A chat read path: it embeds the query (never a row) and never imports the committer.

Fusion is reciprocal rank fusion (Cormack et al., 2009): each list (semantic, full-text)
gives its top `candidates(limit)` rows; a row scores `sum(1 / (RRF_K + rank))` over the
lists it is in (rank from 1), so a row found by both ranks above one found by either
alone at the same rank, and neither list's raw score scale matters. Ties are broken by
fact id: the same store state and query give the same answer.

Full-text ranks are by the words matched: full-text hits that contain the same words of
the query share a rank (competition ranking, "1224"), groups ordered by their best
BM25 score. Every fact about Ana contains "Ana", so for "where does Ana live" BM25 would
order Ana's facts by nothing but the length of their text; sharing the rank leaves their
order to the semantic list, while a row that also contains a rarer word of the query
("Porto", "souchong") still ranks first in the full-text list.

Modes: `hybrid` (both lists) or `fulltext` (no embedder configured, or the embedder
failed: then `degraded` is true and `detail` says why). Never an error for either.
"""

from __future__ import annotations

from dataclasses import dataclass

from graph.embedding import Embedder, EmbedderUnavailable
from graph.read.reader import Reader
from graph.read.search import Hit, words
from graph.records import EntityRecord, FactRecord
from graph.scope import Scope
from graph.time import AsOf

RRF_K = 60
"""The reciprocal-rank-fusion constant (the value of the original paper)."""
MAX_CANDIDATES = 200
"""At most this many rows from each list."""


@dataclass(frozen=True, slots=True)
class Found:
    """One fused result.

    Attributes:
        fact: the row.
        entity: its subject entity.
        score: the fused score (reciprocal rank fusion), higher is better.
        semantic: the row's semantic similarity, (1 + cosine) / 2, or None when the
            semantic list did not return it.
        fulltext: its full-text (BM25) score, or None when the full-text list did not.
    """

    fact: FactRecord
    entity: EntityRecord
    score: float
    semantic: float | None
    fulltext: float | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a search answers (CONTRACT §10 `GET /v1/search`).

    Attributes:
        items: best first.
        mode: `hybrid` or `fulltext`.
        degraded: True when an embedder is configured but failed for this query.
        detail: why the mode is `fulltext`, for a person; None in `hybrid`.
        model: the embedder's model id, or None.
    """

    items: list[Found]
    mode: str
    degraded: bool
    detail: str | None
    model: str | None


def candidates(limit: int) -> int:
    """Rows taken from each list for `limit` results: twice as many, so a row ranked
    moderately in both lists can still make the cut, at most `MAX_CANDIDATES`."""
    return min(2 * limit, MAX_CANDIDATES)


def fulltext_ranks(q: str, hits: list[Hit]) -> list[int]:
    """The rank of each full-text hit (in the given order, best BM25 first): hits whose text
    contains the same words of `q` share the rank of the first of them (competition
    ranking); groups keep the order of their best hit."""
    wanted = set(words(q))
    groups: dict[frozenset[str], int] = {}
    ranks = []
    for position, hit in enumerate(hits, start=1):
        matched = frozenset(wanted.intersection(words(hit.text or "")))
        ranks.append(groups.setdefault(matched, position))
    return ranks


def fuse(
    semantic: list[Hit], fulltext: list[Hit], limit: int, fulltext_rank: list[int] | None = None
) -> list[Found]:
    """Fuse two ranked lists by reciprocal rank fusion; ties by fact id.

    Args:
        semantic: semantic hits, best first.
        fulltext: full-text hits, best first.
        limit: how many results.
        fulltext_rank: the rank of each full-text hit (`fulltext_ranks`); default its
            position.
    """
    scores: dict[str, float] = {}
    first: dict[str, Hit] = {}
    sem: dict[str, float] = {}
    txt: dict[str, float] = {}
    ft_ranks = fulltext_rank or list(range(1, len(fulltext) + 1))
    for hits, raw, ranks in (
        (semantic, sem, list(range(1, len(semantic) + 1))),
        (fulltext, txt, ft_ranks),
    ):
        for rank, hit in zip(ranks, hits, strict=True):
            key = hit.fact.id
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
            first.setdefault(key, hit)
            raw[key] = hit.score
    order = sorted(scores, key=lambda k: (-scores[k], k))[:limit]
    return [Found(first[k].fact, first[k].entity, scores[k], sem.get(k), txt.get(k)) for k in order]


def search(
    reader: Reader, embedder: Embedder | None, scope: Scope, q: str, as_of: AsOf, limit: int
) -> Outcome:
    """Search the facts `scope` sees at `as_of` for `q`.

    Args:
        reader: the read side.
        embedder: the process's embedder, or None (full-text only).
        scope: who reads (graph/scope.py); the caller has refused a closed one.
        q: the query text, non-blank.
        as_of: the point on both axes (CONTRACT §2).
        limit: how many results.

    The query is embedded first (outside any transaction); both lists are then read in
    one READ transaction, so they see the same store state.

    Raises:
        StoreUnavailable: Neo4j could not be reached.
    """
    n = candidates(limit)
    vector, failure = None, None
    if embedder is not None:
        try:
            vector = embedder.embed([q])[0]
        except EmbedderUnavailable as exc:
            failure = exc
    with reader.snapshot() as snap:  # both lists from one consistent view
        fulltext = snap.fulltext(scope, q, as_of, n)
        semantic = (
            snap.semantic(scope, vector, embedder.model, as_of, n)[0]
            if vector is not None and embedder is not None
            else []
        )
    fused = fuse(semantic, fulltext, limit, fulltext_ranks(q, fulltext))
    if embedder is None:
        return Outcome(
            fused,
            "fulltext",
            False,
            "No embedder is configured (WORLDSTATE_EMBEDDER=none): full-text results only.",
            None,
        )
    if failure is not None:
        return Outcome(
            fused,
            "fulltext",
            True,
            f"Semantic recall is unavailable right now ({failure}): full-text results only.",
            embedder.model,
        )
    return Outcome(fused, "hybrid", False, None, embedder.model)
