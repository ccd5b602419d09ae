"""The fused score of facts and episodes (api/chat/search.py), no database.

A candidate's score is made of its own evidence (cosine to the query, share of the
query's content words it holds), whichever list found it; ranks and BM25 play no part.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from api.chat.context import CONTEXT_REACH, W_CONTEXT, context, semantic_context
from api.chat.lexical import asked, content_words, held, lexical, pool_weights, text_stems
from api.chat.search import (
    NEARBY_TOP,
    W_LEXICAL,
    W_SEMANTIC,
    W_SPEAKER,
    candidates,
    fuse,
    fused,
    nearby,
)
from graph.read.episodes import EpisodeHit
from graph.read.search import Hit
from graph.records import EntityRecord, EpisodeRecord, FactRecord
from graph.time import FAR_FUTURE

T = datetime(2024, 1, 1, tzinfo=UTC)
ANA = EntityRecord("ent_ana", "o", "Ana", "person", (), None, None, False, T)


def hit(
    fact_id: str,
    score: float,
    text: str | None = None,
    semantic: float | None = None,
    message: tuple[str, str] | None = None,
) -> Hit:
    """A fact row hit; `message` is the (run id, message id) it was drawn from."""
    run_id, message_id = message or (None, None)
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
        run_id,
        message_id,
    )
    return Hit(fact, ANA, score, text, semantic)


def said(
    episode_id: str,
    score: float,
    text: str,
    semantic: float | None,
    message: str = "m1",
    speaker: str | None = None,
    seq: int = 0,
) -> EpisodeHit:
    """An episode hit, message `message` (at `seq`) of run r1, said by `speaker`."""
    episode = EpisodeRecord(
        episode_id, "o", "c1", "r1", message, seq, "own", None, "user", None, speaker, text, T,
        "user_stated", T, FAR_FUTURE,
    )  # fmt: skip
    return EpisodeHit(episode, score, text, semantic)


def test_content_words_leave_question_words_out() -> None:
    """ "where does Ana live" counts "ana" and "live"; a question of nothing but question
    words keeps them all (else nothing would count)."""
    assert content_words("Where does Ana live?") == ["ana", "live"]
    assert content_words("what did you do") == ["what", "did", "you", "do"]


def test_content_words_are_stems() -> None:
    """The lexical evidence compares English stems: "researched" holds "research", and a
    question's "studies" is the text's "study"."""
    assert content_words("What did Caroline research?") == ["carolin", "research"]
    assert lexical(content_words("What did Caroline research?"), "Researching it, Caroline") == 1
    assert lexical(content_words("her studies"), "I study law") == 1.0


def test_lexical_reads_every_word_of_a_long_text() -> None:
    """A word past the first 32 distinct words of a text still counts (the full-text
    query's cap on terms is not the text's)."""
    long = " ".join(f"word{i}" for i in range(40)) + " adoption"
    assert lexical(["adopt"], long) == 1.0


def test_lexical_is_the_share_of_content_words_held() -> None:
    """Words are folded ("Zürich" holds "zurich"); 1.0 holds them all, 0.0 none."""
    assert lexical(["ana", "live"], "Ana location Porto") == 0.5
    assert lexical(["zurich"], "Ana location Zürich") == 1.0
    assert lexical(["ana"], None) == 0.0 and lexical([], "Ana") == 0.0


def test_the_score_weighs_cosine_words_and_speaker() -> None:
    """Hybrid: W_SEMANTIC x max(cosine, 0) + W_LEXICAL x lexical + W_SPEAKER when the query
    names the speaker; a negative cosine counts as 0; full-text mode: lexical and speaker
    alone; rounded to 6 places; the weights add up to 1, so a score is in [0, 1]."""
    assert round(W_SEMANTIC + W_LEXICAL + W_SPEAKER, 9) == 1.0
    assert fused(0.9, 0.5, True) == pytest.approx(W_SEMANTIC * 0.8 + W_LEXICAL * 0.5)
    assert fused(0.3, 1.0, True) == pytest.approx(W_LEXICAL)
    assert fused(None, 0.25, True) == pytest.approx(W_LEXICAL * 0.25)
    assert fused(1.0, 1.0, True, named=True) == pytest.approx(1.0)
    assert fused(0.9, 0.25, False) == pytest.approx((1 - W_SPEAKER) * 0.25)
    assert fused(0.9, 1.0, False, named=True) == pytest.approx(1.0)
    assert fused(0.5000001234, 0.0, True, named=True) == W_SPEAKER


def test_rare_words_weigh_more_among_the_candidates() -> None:
    """A word most candidates hold (a name) weighs less than a rare one: the text holding
    the rare word outranks the one holding the common word, at the same cosine."""
    weights = pool_weights(["ana", "adopt"], [{"ana", "x"}, {"ana", "adopt"}, {"ana"}, {"y"}])
    assert weights["adopt"] > weights["ana"] > 0
    episodes = (
        [
            said("e1", 0.7, "Ana went to the lake", 0.7, "m1"),
            said("e2", 0.7, "we adopted a dog", 0.7, "m2"),
            said("e3", 0.7, "Ana likes tea", 0.7, "m3"),
            said("e4", 0.7, "Ana again", 0.7, "m4"),
        ],
        [],
    )
    assert fuse("Did Ana adopt?", ([], []), episodes, 1, True)[0].id == "e2"


def test_a_question_naming_the_speaker_favours_what_they_said() -> None:
    """ "What did Caroline research?": her message about research outranks Mel's message
    that names her and says the same; her name does not count as a word she "holds"
    (every message of hers would)."""
    episodes = (
        [
            said("e1", 0.7, "Mel: Caroline is researching adoption", 0.7, "m1", "Mel"),
            said("e2", 0.7, "Caroline: researching adoption agencies", 0.7, "m2", "Caroline"),
            said("e3", 0.7, "Caroline: hi Mel", 0.7, "m3", "Caroline"),
        ],
        [],
    )
    out = fuse("What did Caroline research?", ([], []), episodes, 10, True)
    assert [f.id for f in out] == ["e2", "e1", "e3"]
    assert out[0].lexical == 1.0 and out[2].lexical == 0.0


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
    """Twice the limit from each list, at least 50, at most 200."""
    assert (candidates(1), candidates(10), candidates(40), candidates(100)) == (50, 50, 80, 200)


def test_one_message_takes_one_place() -> None:
    """A fact row and the episode of the message it was drawn from, or two rows drawn from
    one message, are one message: the better-scored one stands for it and the page goes
    on to the next message; a row of no message (a REST edit) stands for itself."""
    facts = (
        [
            hit("f1", 0.9, "Ana likes jazz", 0.9, ("r1", "m1")),
            hit("f2", 0.7, "Ana likes jazz clubs", 0.7, ("r1", "m1")),
            hit("f3", 0.6, "Ana likes jazz bars", 0.6),
        ],
        [],
    )
    episodes = (
        [
            said("e1", 0.95, "I love jazz", 0.95, "m1"),
            said("e2", 0.5, "jazz again", 0.5, "m2"),
        ],
        [],
    )
    out = fuse("jazz", facts, episodes, 10, True)
    assert [f.id for f in out] == ["e1", "f3", "e2"]
    assert [f.id for f in fuse("jazz", facts, episodes, 2, True)] == ["e1", "f3"]
    assert [f.id for f in fuse("jazz", facts, ([], []), 10, True)] == ["f1", "f3"]


def test_a_word_only_the_context_holds_counts_for_what_the_context_says() -> None:
    """A term the text holds counts 1, one only the messages near it hold what the context
    gives it (W_CONTEXT next to it), weighed like any other; context alone still counts;
    no terms count nothing."""
    near = {"class": W_CONTEXT}
    assert held(["pottery", "class"], {"pottery"}, None, near) == (1 + W_CONTEXT) / 2
    assert held(["pottery"], set(), None, {"pottery": W_CONTEXT}) == W_CONTEXT
    assert held(["pottery"], {"pottery"}, None, {"pottery": W_CONTEXT}) == 1.0
    assert held(["a", "b"], set(), {"a": 3.0, "b": 1.0}, {"a": W_CONTEXT}) == W_CONTEXT * 3 / 4
    assert held([], {"a"}, None, {"a": W_CONTEXT}) == 0.0


def test_context_lifts_a_reply_found_next_to_its_question() -> None:
    """ "Yes, I loved it!" right after a question about a pottery class (both found)
    outranks an unrelated message of the same cosine; a message three places away, or a
    fact, takes nothing from it."""
    episodes = (
        [
            said("q", 0.5, "Did Ana try the pottery class?", 0.5, "m1", seq=4),
            said("r", 0.6, "Yes, I loved it!", 0.6, "m2", seq=5),
            said("far", 0.6, "Cold today", 0.6, "m4", seq=7),
        ],
        [],
    )
    facts = ([hit("f1", 0.6, "Ana likes tea", 0.6, ("r1", "m9"))], [])
    out = {f.id: f for f in fuse("pottery class", facts, episodes, 10, True)}
    assert out["q"].lexical == 1.0 and out["r"].lexical == W_CONTEXT
    assert out["far"].lexical == 0.0 and out["f1"].lexical == 0.0
    assert out["r"].score > out["far"].score
    alone = ([episodes[0][1], episodes[0][2]], [])
    assert {f.id: f.lexical for f in fuse("pottery class", facts, alone, 10, True)}["r"] == 0.0


def test_context_two_places_away_counts_w_context_squared() -> None:
    """A question, its answer, and a reply to the answer: "Where did you go on the road
    trip?" / "Woodhaven, lovely!" / "I want to go too": the reply after the answer is two
    places from the question and takes its words at W_CONTEXT squared; the nearer message
    decides when both hold a word; three places away lends nothing (CONTEXT_REACH)."""
    assert CONTEXT_REACH == 2
    episodes = (
        [
            said("q", 0.5, "Where did you go on the road trip?", 0.5, "m1", seq=1),
            said("a", 0.5, "Woodhaven, lovely!", 0.5, "m2", seq=2),
            said("r", 0.5, "I want to go too", 0.5, "m3", seq=3),
            said("x", 0.5, "Sure, a road map helps", 0.5, "m4", seq=4),
            said("z", 0.5, "Anyway, dinner?", 0.5, "m5", seq=5),
        ],
        [],
    )
    around = context({(1, e.episode.id): e for e in episodes[0]}, ["road", "trip"])
    assert around[(1, "a")] == {"road": W_CONTEXT, "trip": W_CONTEXT}
    assert around[(1, "r")] == {"road": W_CONTEXT, "trip": W_CONTEXT**2}
    assert around[(1, "z")] == {"road": W_CONTEXT}
    out = {f.id: f for f in fuse("road trip", ([], []), episodes, 10, True)}
    assert out["a"].lexical == W_CONTEXT
    assert W_CONTEXT**2 < out["r"].lexical < W_CONTEXT  # "road" next to it, "trip" two away
    assert out["a"].score > out["r"].score > out["z"].score


def test_a_text_is_stemmed_once_and_scores_do_not_move() -> None:
    """Candidates' texts are immutable and come back search after search, so their stems
    are kept by text (`text_stems`): a second search reads them from the cache and
    answers the same items with the same scores."""
    facts = ([hit("a", 0.8, "Ana location Porto", 0.8)], [hit("b", 3.0, "Ana likes jazz", 0.7)])
    episodes = ([said("e1", 0.8, "Ana researched jazz concerts in Porto", 0.8)], [])
    text_stems.cache_clear()
    first = fuse("who researches jazz", facts, episodes, 10, True)
    misses = text_stems.cache_info().misses
    again = fuse("who researches jazz", facts, episodes, 10, True)
    assert text_stems.cache_info().misses == misses and text_stems.cache_info().hits >= 3
    assert again == first
    assert text_stems("Ana researched jazz concerts") == {"ana", "research", "jazz", "concert"}


def test_nearby_names_the_places_next_to_the_best_results_not_found_yet() -> None:
    """The places up to CONTEXT_REACH before and after each of the first NEARBY_TOP
    results (episodes only: a fact has no place), best result first, nearer first, each
    once, none before a run's first message, none the lists found already."""
    assert (CONTEXT_REACH, NEARBY_TOP) == (2, 5)
    episodes = (
        [
            said("q", 0.9, "road trip", 0.9, "m1", seq=0),
            said("p", 0.8, "pottery class", 0.8, "m7", seq=7),
        ],
        [],
    )
    facts = ([hit("f1", 0.95, "Ana likes road trips", 0.95, ("r1", "m9"))], [])
    best = fuse("road trip", facts, episodes, 10, True)
    assert [f.id for f in best] == ["f1", "q", "p"]
    found = {("r1", 0), ("r1", 7), ("r1", 8)}
    assert nearby(best, found) == [("r1", 1), ("r1", 2), ("r1", 6), ("r1", 5), ("r1", 9)]
    many = [said(f"e{i}", 0.9 - i / 100, "road trip", 0.9, f"m{i}", seq=10 * i) for i in range(7)]
    best = fuse("road trip", ([], []), (many, []), 10, True)
    assert {p[1] // 10 for p in nearby(best, set())} == set(range(NEARBY_TOP))


def test_a_reply_is_nearer_to_the_query_through_the_question_before_it() -> None:
    """Cosines are read in context too: the question (cosine 0.8) lends the reply after
    it (cosine 0.2) W_CONTEXT of the difference, and the message two places away
    W_CONTEXT squared of its own difference; a message nearer to the query than all
    around it keeps its own, as do facts and what is three places away; the item still
    reports its own `semantic`."""
    episodes = (
        [
            said("q", 0.9, "Did you go to the support group?", 0.9, "m1", seq=4),
            said("r", 0.6, "Yes, last Friday!", 0.6, "m2", seq=5),
            said("s", 0.55, "Glad to hear.", 0.55, "m3", seq=6),
            said("far", 0.6, "Cold today", 0.6, "m4", seq=7),
        ],
        [],
    )
    facts = ([hit("f1", 0.6, "Ana likes tea", 0.6, ("r1", "m9"))], [])
    rows = {(1, e.episode.id): e for e in episodes[0]}
    seen = {k: (e.semantic, None, e.text) for k, e in rows.items()}
    lifted = semantic_context(rows, seen)
    assert lifted.keys() == {(1, "r"), (1, "s")}  # q is the nearest; far is 3 from q
    assert lifted[(1, "r")] == pytest.approx((1 + 0.2 + W_CONTEXT * (0.8 - 0.2)) / 2)
    r_lends = W_CONTEXT * (0.2 - 0.1)  # r is 1 away from s, q is 2 away
    q_lends = W_CONTEXT**2 * (0.8 - 0.1)
    assert lifted[(1, "s")] == pytest.approx((1 + 0.1 + max(r_lends, q_lends)) / 2)
    out = {f.id: f for f in fuse("zzz", facts, episodes, 10, True)}
    assert out["r"].score == pytest.approx(W_SEMANTIC * (0.2 + W_CONTEXT * 0.6), abs=1e-6)
    assert out["r"].score > out["far"].score == out["f1"].score == round(W_SEMANTIC * 0.2, 6)
    assert out["r"].semantic == 0.6


def test_the_full_text_lists_are_asked_the_words_of_the_subject() -> None:
    """A question's own words (what, did, you, ...) and stop words are not asked of the
    full-text lists; the rest is asked as written (accents kept, for the episode index's
    both forms); a query of nothing else is asked whole."""
    assert asked("What did Ana say about Zürich?") == "Ana say Zürich"
    assert asked("When did you start the pottery class?") == "start pottery class"
    assert asked("new job") == "new job"
    assert asked("Who are you?") == "Who are you?"
