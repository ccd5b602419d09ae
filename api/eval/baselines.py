"""The two baselines of `worldstate eval locomo`, over the raw turns of the conversation:
BM25 (the `bm25s` library, English stop words, Snowball stemming) and dense cosine with the
service's own embedder (graph/embedding/). Each ranks the turns for every question; a
turn carries its own dialogue id and its time.

A turn's document is "<speaker>: <text>", as a store of messages keeps who said each one
(an episode carries its speaker too). Questions name people ("When did Jon lose his
job?") while turns say "I": without the name, dense recall@10 on the six shared
conversations falls from 0.55 to 0.33 and BM25's from 0.62 to 0.58.

Both are deterministic: ties are broken by turn order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from api.eval.locomo import Retrieved, Turn
from graph.embedding import Embedder


def document(turn: Turn) -> str:
    """The text a baseline indexes for a turn: "<speaker>: <text>"."""
    return f"{turn.speaker}: {turn.text}"


def _as_retrieved(turn: Turn) -> Retrieved:
    return Retrieved("turn", frozenset({turn.dia_id}), turn.at)


def _top(scores: np.ndarray, k: int) -> list[int]:
    """Indices of the `k` best positive scores, best first, ties by index."""
    order = np.lexsort((np.arange(len(scores)), -scores))[:k]
    return [int(i) for i in order if scores[i] > 0]


def bm25_rank(turns: Sequence[Turn], questions: Sequence[str], k: int) -> list[list[Retrieved]]:
    """Rank the turns for each question by BM25 (Okapi, bm25s defaults k1=1.5, b=0.75).

    Args:
        turns: the corpus, one document per turn (`document`).
        questions: the queries.
        k: how many turns per question at most; turns no query word matches are left out.

    Returns:
        One list per question, best first.
    """
    import bm25s  # No stubs or py.typed marker.
    import Stemmer  # A C extension without stubs.

    if not turns:
        return [[] for _ in questions]
    stemmer = Stemmer.Stemmer("english")
    corpus = bm25s.tokenize(
        [document(t) for t in turns], stopwords="en", stemmer=stemmer, show_progress=False
    )
    index = bm25s.BM25()
    index.index(corpus, show_progress=False)
    ranked: list[list[Retrieved]] = []
    for question in questions:
        tokens = bm25s.tokenize(
            [question], stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
        )[0]
        known = [t for t in tokens if t in corpus.vocab]
        if not known:
            ranked.append([])
            continue
        scores = np.asarray(index.get_scores(known), dtype=float)
        ranked.append([_as_retrieved(turns[i]) for i in _top(scores, k)])
    return ranked


def dense_rank(
    embedder: Embedder, turns: Sequence[Turn], questions: Sequence[str], k: int
) -> list[list[Retrieved]]:
    """Rank the turns for each question by cosine similarity of the embedder's vectors.

    Args:
        embedder: the service's embedder (the same model search uses).
        turns: the corpus, one vector per turn (`document`).
        questions: the queries.
        k: how many turns per question.

    Returns:
        One list per question, best first.

    Raises:
        EmbedderUnavailable: the embedder cannot embed.
    """
    if not turns:
        return [[] for _ in questions]
    docs = _unit(np.asarray(embedder.embed([document(t) for t in turns]), dtype=float))
    queries = _unit(np.asarray(embedder.embed(list(questions)), dtype=float))
    ranked: list[list[Retrieved]] = []
    for row in queries @ docs.T:
        # cosine is in [-1, 1]: shift it so `_top` keeps every turn, as a dense ranking does
        ranked.append([_as_retrieved(turns[i]) for i in _top(row + 2.0, k)])
    return ranked


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)
