"""Recall: facts and episodes fused into one ranking (CONTRACT §6 "Pull", §10 `GET /v1/search`,
§12 episodes).

A chat read path: it embeds the query (never a row) and never imports the committer.

Candidates come from four lists read in one READ transaction: the full-text and the
semantic hits among fact rows, and the same among episodes (graph/read/search.py,
graph/read/episodes.py). Every candidate is then scored on the evidence itself, not on
its rank in a list, so a score means the same across queries, kinds and stores:

    score = W_SEMANTIC * max(cosine, 0) + W_LEXICAL * lexical        (hybrid)
    score = lexical                                                   (full-text only)

* `cosine` is the candidate's cosine similarity to the query, computed for every
  candidate, whichever list found it (a full-text hit's too, in the same query);
* `lexical` is the share of the query's content words (its words less stop words and
  question words, `content_words`) that the candidate's text contains, accents and case
  folded: 1.0 when it holds every one.

Both are functions of the candidate and the query alone. BM25 (`fulltext_score`) only
chooses the full-text candidates: its value depends on every owner's texts in the shared
index (document frequencies), so it moves when anyone writes, and would make the order
of one owner's results depend on other owners. Scores are rounded to `DECIMALS` places;
ties are broken by kind (facts first) and id: the same store state and query give the
same answer, in any process. The raw signals are returned with each item
(`semantic_score`, `fulltext_score`, `lexical_score`).

Modes: `hybrid` (an embedder answered) or `fulltext` (no embedder configured, or it
failed: then `degraded` is true and `detail` says why). Never an error for either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from graph.embedding import Embedder, EmbedderUnavailable
from graph.read.episodes import EpisodeHit
from graph.read.reader import Reader
from graph.read.search import Hit, words
from graph.records import EntityRecord, EpisodeRecord, FactRecord
from graph.scope import Scope
from graph.time import AsOf

W_SEMANTIC = 0.6
"""Weight of the semantic evidence (cosine, clipped at 0) in a hybrid score."""
W_LEXICAL = 0.4
"""Weight of the lexical evidence (share of the query's content words found)."""
DECIMALS = 6
"""Scores are rounded to this many places before they are compared."""
MAX_CANDIDATES = 200
"""At most this many candidates from each list."""

_QUESTIONS = """what when where who whom whose which why how does do did done am is are was were be
    been being has have had i me my mine myself you your yours we us our ours he him his
    she her hers they them their theirs can could would should shall will may might must
    tell know remember about any some please"""
QUESTION_WORDS = frozenset(_QUESTIONS.split())
"""Words a question carries whatever it asks about: left out of the lexical evidence (the
full-text candidates still match them; BM25 weighs them down)."""

Kind = Literal["fact", "episode"]


@dataclass(frozen=True, slots=True)
class Found:
    """One result of the fused ranking.

    Attributes:
        kind: `fact` or `episode`.
        score: the fused score in [0, 1], higher is better (see the module docstring).
        semantic: (1 + cosine) / 2 against the query, or None (no vector).
        fulltext: BM25 from the full-text list, or None when that list did not find it.
        lexical: the share of the query's content words its text holds, in [0, 1].
        fact: the row (a fact), else None.
        entity: the row's subject entity (a fact), else None.
        episode: the episode (an episode), else None.
    """

    kind: Kind
    score: float
    semantic: float | None
    fulltext: float | None
    lexical: float
    fact: FactRecord | None = None
    entity: EntityRecord | None = None
    episode: EpisodeRecord | None = None

    @property
    def id(self) -> str:
        """The fact's or the episode's id."""
        if self.fact is not None:
            return self.fact.id
        assert self.episode is not None
        return self.episode.id


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
    """Candidates taken from each list for `limit` results: twice as many, so an item
    moderately placed in a list can still make the cut, at most `MAX_CANDIDATES`."""
    return min(2 * limit, MAX_CANDIDATES)


def content_words(q: str) -> list[str]:
    """The words of `q` the lexical evidence counts: `words(q)` less `QUESTION_WORDS` (all
    of `words(q)` when nothing else is left)."""
    found = words(q)
    return [w for w in found if w not in QUESTION_WORDS] or found


def lexical(terms: list[str], text: str | None) -> float:
    """The share of `terms` (content words of a query) that `text` contains as words."""
    if not terms or not text:
        return 0.0
    have = set(words(text))
    return sum(t in have for t in terms) / len(terms)


def fused(semantic: float | None, lexical_share: float, hybrid: bool) -> float:
    """The score of one candidate (module docstring), rounded to `DECIMALS` places.

    Args:
        semantic: (1 + cosine) / 2, or None (no vector for it: no semantic evidence).
        lexical_share: the share of content words found, in [0, 1].
        hybrid: whether the search had a vector.
    """
    if not hybrid:
        return round(lexical_share, DECIMALS)
    cosine = 0.0 if semantic is None else max(2 * semantic - 1, 0.0)
    return round(W_SEMANTIC * cosine + W_LEXICAL * lexical_share, DECIMALS)


def fuse(
    q: str,
    facts: tuple[list[Hit], list[Hit]],
    episodes: tuple[list[EpisodeHit], list[EpisodeHit]],
    limit: int,
    hybrid: bool,
) -> list[Found]:
    """Score every candidate on its own evidence and keep the `limit` best.

    Args:
        q: the query.
        facts: (semantic hits, full-text hits) among fact rows.
        episodes: (semantic hits, full-text hits) among episodes.
        limit: how many results.
        hybrid: whether the search had a vector (else scores are lexical alone).

    Returns:
        Best first; ties by kind (facts first), then id.
    """
    terms = content_words(q)
    out: dict[tuple[int, str], Found] = {}
    for hits, from_text in ((facts[0], False), (facts[1], True)):
        for h in hits:
            key = (0, h.fact.id)
            seen = out.get(key)
            semantic, bm25 = _merged(seen, h.semantic, h.score if from_text else None)
            share = lexical(terms, h.text)
            out[key] = Found(
                "fact", fused(semantic, share, hybrid), semantic, bm25, share, h.fact, h.entity
            )
    for ehits, from_text in ((episodes[0], False), (episodes[1], True)):
        for e in ehits:
            key = (1, e.episode.id)
            seen = out.get(key)
            semantic, bm25 = _merged(seen, e.semantic, e.score if from_text else None)
            share = lexical(terms, e.text)
            out[key] = Found(
                "episode",
                fused(semantic, share, hybrid),
                semantic,
                bm25,
                share,
                episode=e.episode,
            )
    order = sorted(out, key=lambda k: (-out[k].score, k))
    return [out[k] for k in order[:limit]]


def _merged(
    seen: Found | None, semantic: float | None, bm25: float | None
) -> tuple[float | None, float | None]:
    """(cosine evidence, BM25) of a candidate another list may have found already."""
    if seen is None:
        return semantic, bm25
    return (
        semantic if semantic is not None else seen.semantic,
        bm25 if bm25 is not None else seen.fulltext,
    )


def search(
    reader: Reader, embedder: Embedder | None, scope: Scope, q: str, as_of: AsOf, limit: int
) -> Outcome:
    """Search the facts and episodes `scope` sees at `as_of` for `q`.

    Args:
        reader: the read side.
        embedder: the process's embedder, or None (full-text only).
        scope: who reads (graph/scope.py); the caller has refused a closed one.
        q: the query text, non-blank.
        as_of: the point on both axes (CONTRACT §2, §12).
        limit: how many results.

    The query is embedded first (outside any transaction); the four lists are then read
    in one READ transaction, so they see the same store state.

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
    model = embedder.model if embedder is not None else None
    with reader.snapshot() as snap:  # every list from one consistent view
        fact_text = snap.fulltext(scope, q, as_of, n, vector, model)
        said_text = snap.episode_fulltext(scope, q, as_of, n, vector, model)
        fact_near: list[Hit] = []
        said_near: list[EpisodeHit] = []
        if vector is not None and model is not None:
            fact_near = snap.semantic(scope, vector, model, as_of, n)[0]
            said_near = snap.episode_semantic(scope, vector, model, as_of, n)[0]
    items = fuse(q, (fact_near, fact_text), (said_near, said_text), limit, vector is not None)
    if embedder is None:
        return Outcome(
            items,
            "fulltext",
            False,
            "No embedder is configured (WORLDSTATE_EMBEDDER=none): full-text results only.",
            None,
        )
    if failure is not None:
        return Outcome(
            items,
            "fulltext",
            True,
            f"Semantic recall is unavailable right now ({failure}): full-text results only.",
            embedder.model,
        )
    return Outcome(items, "hybrid", False, None, embedder.model)
