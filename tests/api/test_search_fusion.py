"""Reciprocal rank fusion of the semantic and full-text lists (api/chat/search.py), no database."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from api.chat.search import RRF_K, candidates, fulltext_ranks, fuse
from graph.read.search import Hit
from graph.records import EntityRecord, FactRecord
from graph.time import FAR_FUTURE

T = datetime(2024, 1, 1, tzinfo=UTC)
ANA = EntityRecord("ent_ana", "o", "Ana", "person", (), None, None, False, T)


def hit(fact_id: str, score: float, text: str | None = None) -> Hit:
    fact = FactRecord(
        fact_id,
        "o",
        ANA.id,
        "likes",
        fact_id,
        None,
        fact_id,
        "many",
        T,
        FAR_FUTURE,
        T,
        FAR_FUTURE,
        "active",
        "user_edit",
        None,
        None,
        1.0,
        None,
        None,
    )
    return Hit(fact, ANA, score, text)


def test_a_row_in_both_lists_beats_rows_in_one() -> None:
    """Second in both lists outranks first in one list only; scores are the RRF sums."""
    semantic = [hit("a", 0.9), hit("b", 0.8)]
    fulltext = [hit("c", 5.0), hit("b", 4.0)]
    fused = fuse(semantic, fulltext, 10)
    assert [f.fact.id for f in fused] == ["b", "a", "c"]
    assert fused[0].score == pytest.approx(2 / (RRF_K + 2))
    assert (fused[0].semantic, fused[0].fulltext) == (0.8, 4.0)
    assert (fused[1].semantic, fused[1].fulltext) == (0.9, None)


def test_equal_scores_are_ordered_by_fact_id_and_limit_cuts() -> None:
    """First of one list each: equal fused scores, ordered by id; `limit` keeps the best."""
    fused = fuse([hit("z", 0.9)], [hit("m", 3.0)], 10)
    assert [f.fact.id for f in fused] == ["m", "z"]
    assert [f.fact.id for f in fuse([hit("z", 0.9)], [hit("m", 3.0)], 1)] == ["m"]


def test_full_text_hits_matching_the_same_words_share_a_rank() -> None:
    """Competition ranking by matched words: every row about Ana ties on "ana"; a row
    that also has "porto" ranks above them; the shorter text's higher BM25 is ignored."""
    hits = [
        hit("a", 0.52, "Ana occupation nurse"),
        hit("b", 0.51, "Ana likes jazz music"),
        hit("c", 0.50, "Ana location Porto"),
        hit("d", 0.49, "Ana favorite Lapsang tea"),
    ]
    assert fulltext_ranks("where does Ana live", hits) == [1, 1, 1, 1]
    porto = [
        hit("c", 1.4, "Ana location Porto"),
        hit("a", 0.5, "Ana occupation nurse"),
        hit("b", 0.49, "Ana likes jazz music"),
    ]
    assert fulltext_ranks("is Ana in Porto", porto) == [1, 2, 2]
    assert fulltext_ranks("Zürich", [hit("x", 1.0, "Ana location Zurich")]) == [1]


def test_tied_full_text_ranks_leave_the_order_to_the_semantic_list() -> None:
    """With every full-text hit tied, the fused order is the semantic order."""
    semantic = [hit("c", 0.81), hit("a", 0.80), hit("b", 0.76)]
    fulltext = [
        hit("a", 0.52, "Ana occupation nurse"),
        hit("b", 0.51, "Ana likes jazz"),
        hit("c", 0.50, "Ana location Porto"),
    ]
    ranks = fulltext_ranks("where does Ana live", fulltext)
    assert [f.fact.id for f in fuse(semantic, fulltext, 3, ranks)] == ["c", "a", "b"]
    assert [f.fact.id for f in fuse(semantic, fulltext, 3)] == ["a", "c", "b"]


def test_candidates_per_list() -> None:
    """Twice the limit from each list, at most 200."""
    assert (candidates(1), candidates(10), candidates(100)) == (2, 20, 200)
