"""The fused score of facts and episodes (api/chat/search.py), no database.

A candidate's score is made of its own evidence (cosine to the query, share of the
query's content words it holds), whichever list found it; ranks and BM25 play no part.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from api.chat.search import (
    W_LEXICAL,
    W_SEMANTIC,
    candidates,
    content_words,
    fuse,
    fused,
    lexical,
)
from graph.read.episodes import EpisodeHit
from graph.read.search import Hit
from graph.records import EntityRecord, EpisodeRecord, FactRecord
from graph.time import FAR_FUTURE

T = datetime(2024, 1, 1, tzinfo=UTC)
ANA = EntityRecord("ent_ana", "o", "Ana", "person", (), None, None, False, T)


def hit(fact_id: str, score: float, text: str | None = None, semantic: float | None = None) -> Hit:
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
    return Hit(fact, ANA, score, text, semantic)


def said(episode_id: str, score: float, text: str, semantic: float | None) -> EpisodeHit:
    episode = EpisodeRecord(
        episode_id, "o", "c1", "r1", "m1", 0, "own", None, "user", None, None, text, T,
        "user_stated", T, FAR_FUTURE,
    )  # fmt: skip
    return EpisodeHit(episode, score, text, semantic)


def test_content_words_leave_question_words_out() -> None:
    """ "where does Ana live" counts "ana" and "live"; a question of nothing but question
    words keeps them all (else nothing would count)."""
    assert content_words("Where does Ana live?") == ["ana", "live"]
    assert content_words("what did you do") == ["what", "did", "you", "do"]


def test_lexical_is_the_share_of_content_words_held() -> None:
    """Words are folded ("Zürich" holds "zurich"); 1.0 holds them all, 0.0 none."""
    assert lexical(["ana", "live"], "Ana location Porto") == 0.5
    assert lexical(["zurich"], "Ana location Zürich") == 1.0
    assert lexical(["ana"], None) == 0.0 and lexical([], "Ana") == 0.0


def test_the_score_weighs_cosine_and_words() -> None:
    """Hybrid: 0.6 x max(cosine, 0) + 0.4 x lexical; a negative cosine counts as 0;
    full-text mode: lexical alone; rounded to 6 places."""
    assert fused(0.9, 0.5, True) == pytest.approx(W_SEMANTIC * 0.8 + W_LEXICAL * 0.5)
    assert fused(0.3, 1.0, True) == pytest.approx(W_LEXICAL)
    assert fused(None, 0.25, True) == pytest.approx(0.1)
    assert fused(0.9, 0.25, False) == 0.25
    assert fused(0.6000001234, 0.0, True) == 0.12


def test_evidence_not_ranks_orders_facts_and_episodes_together() -> None:
    """A row found by both lists keeps its cosine from the semantic list and its BM25 from
    the full-text one; an episode that matches more words and is as near outranks a fact;
    scores fall with the evidence, not with list positions."""
    facts = (
        [hit("a", 0.80, "Ana location Porto", 0.80), hit("b", 0.78, "Ana likes jazz", 0.78)],
        [hit("b", 3.0, "Ana likes jazz", 0.78)],
    )
    episodes = ([], [said("e1", 5.0, "Ana loves jazz concerts in Porto", 0.80)])
    out = fuse("jazz in Porto", facts, episodes, 10, True)
    assert [(f.kind, f.id) for f in out] == [("episode", "e1"), ("fact", "a"), ("fact", "b")]
    b = next(f for f in out if f.id == "b")
    assert (b.semantic, b.fulltext, b.lexical) == (0.78, 3.0, 0.5)
    a = next(f for f in out if f.id == "a")
    assert a.fulltext is None and a.lexical == 0.5
    assert out[0].score > out[1].score > out[2].score


def test_ties_go_to_facts_then_ids_and_limit_cuts() -> None:
    """Equal scores: facts before episodes, then by id; `limit` keeps the best."""
    facts = ([hit("z", 0.9, "x", 0.9), hit("m", 0.9, "x", 0.9)], [])
    episodes = ([said("e0", 0.9, "x", 0.9)], [])
    out = fuse("nothing matches", facts, episodes, 10, True)
    assert [f.id for f in out] == ["m", "z", "e0"]
    assert [f.id for f in fuse("nothing matches", facts, episodes, 1, True)] == ["m"]


def test_candidates_per_list() -> None:
    """Twice the limit from each list, at most 200."""
    assert (candidates(1), candidates(10), candidates(100)) == (2, 20, 200)
