"""`worldstate eval locomo`'s pure parts: reading a LoCoMo file, evidence ids, answer dates,
scoring, the baselines and the report (issue 12). No Neo4j: these read our own tiny file."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import httpx
import pytest

from api.eval.baselines import bm25_rank, dense_rank, document
from api.eval.locomo import (
    Question,
    Retrieved,
    answer_period,
    first_hit,
    normalize_evidence,
    on_answer_date,
    read_conversation,
)
from api.eval.report import Asked, FileResult, cutoffs, found_share, report, table
from api.eval.service import Imported, OwnerClient
from curator.locomo import LocomoFormatError
from graph.embedding import LocalEmbedder

TINY = Path(__file__).resolve().parents[1] / "data" / "locomo_tiny.json"


def _at(day: int, month: int = 6) -> datetime:
    return datetime(2023, month, day, tzinfo=UTC)


def test_malformed_evidence_entries_give_every_id_they_hold():
    """ "D8:6; D9:17" is two ids, "D:11:26" is D11:26, and "D" or "" add nothing."""
    assert normalize_evidence(["D8:6; D9:17", "D:11:26", "D", "", "D01:2"]) == {
        "D8:6", "D9:17", "D11:26", "D1:2",
    }  # fmt: skip


def test_reading_keeps_categories_one_to_four_with_evidence():
    """Category 5 is left out; a question without evidence is counted, not asked; turns keep
    their dialogue ids, speakers, words (a photo's caption is not the speaker's) and times."""
    c = read_conversation(TINY)
    assert c.name == "locomo_tiny"
    assert [q.category for q in c.questions] == [4, 4, 2, 1, 3]
    assert c.unusable == 1
    assert c.questions[3].evidence == {"D1:2", "D2:1"}
    assert [t.dia_id for t in c.turns] == [f"D1:{i}" for i in range(1, 6)] + [
        f"D2:{i}" for i in range(1, 5)
    ]
    assert c.turns[4].text == "Look at this."
    assert c.turns[0].speaker == "Lena" and c.turns[0].at == datetime(2023, 3, 3, 10, tzinfo=UTC)
    assert [r["id"] for r in c.runs] == ["locomo_tiny-session-1", "locomo_tiny-session-2"]


def test_a_file_without_questions_is_refused(tmp_path: Path):
    """A conversation with no `qa` list cannot be evaluated: LocomoFormatError names it."""
    bare = tmp_path / "bare.json"
    bare.write_text('{"speaker_a": "A", "speaker_b": "B"}')
    with pytest.raises(LocomoFormatError, match="qa"):
        read_conversation(bare)


@pytest.mark.parametrize(
    ("answer", "period"),
    [
        ("7 May 2023", (date(2023, 5, 7), date(2023, 5, 7))),
        ("19 January, 2023", (date(2023, 1, 19), date(2023, 1, 19))),
        ("February 24, 2023", (date(2023, 2, 24), date(2023, 2, 24))),
        ("June, 2023", (date(2023, 6, 1), date(2023, 6, 30))),
        ("December 2022", (date(2022, 12, 1), date(2022, 12, 31))),
        ("2022", (date(2022, 1, 1), date(2022, 12, 31))),
        ("The week before 9 June 2023", (date(2023, 5, 19), date(2023, 6, 16))),
        ("4 years", None),
        ("13 August", None),
    ],
)
def test_answer_period(answer: str, period: tuple[date, date] | None):
    """A temporal answer names a day, a month, a year, a span around a day, or nothing."""
    assert answer_period(answer) == period


def test_on_answer_date_compares_the_items_day():
    """An item dated in the answer's period is on its date; an undated one never is."""
    period = answer_period("19 June, 2023")
    assert on_answer_date(Retrieved("fact", frozenset(), _at(19)), period)
    assert not on_answer_date(Retrieved("episode", frozenset(), _at(20)), period)
    assert not on_answer_date(Retrieved("fact", frozenset(), None), period)


def test_first_hit_looks_at_the_first_k_items_only():
    """An evidence id at position 3 is found at k=3, not at k=2."""
    items = [Retrieved("fact", frozenset({f"D1:{i}"}), None) for i in (1, 2, 3)]
    assert first_hit(items, frozenset({"D1:3"}), 2) is None
    assert first_hit(items, frozenset({"D1:3", "D9:9"}), 3) is items[2]


def test_bm25_ranks_the_turn_with_the_rare_word_first():
    """BM25 over "<speaker>: <text>" puts the rowing turn first for a rowing question, and
    leaves out turns no word of the question matches."""
    turns = read_conversation(TINY).turns
    ranked = bm25_rank(turns, ["Which club did Omar join for rowing?", "zzz"], 5)
    assert ranked[0][0].dia_ids == {"D2:1"} and ranked[0][0].kind == "turn"
    assert ranked[1] == []
    assert document(turns[0]) == "Lena: I work as a nurse these days."


def test_dense_ranks_with_the_services_model():
    """Dense cosine with the local model finds the move to Lisbon for a question about
    where Omar lives, in k results at most, each dated by its turn."""
    turns = read_conversation(TINY).turns
    ranked = dense_rank(LocalEmbedder(), turns, ["Which city does Omar live in?"], 3)[0]
    assert len(ranked) == 3 and "D1:2" in {i for r in ranked for i in r.dia_ids}
    assert all(r.at is not None for r in ranked)


def test_search_and_prefetch_episode_items_carry_their_message():
    """An episode item (search's `episode`, or a prefetch item with `message_id`) names its
    message id and carries `said_at`; an episode of a run not in the conversation names
    none. No request is made for them."""

    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"unexpected request {request.url}")

    client = OwnerClient(
        httpx.Client(base_url="http://eval.invalid", transport=httpx.MockTransport(refuse)),
        {"c-session-2"},
    )
    episode = {
        "id": "ep_1",
        "text": "I lost my job",
        "speaker": "ent_1",
        "said_at": "2023-06-20T16:30:01Z",
        "chat_id": "locomo-c",
        "run_id": "c-session-2",
        "message_id": "D2:2",
        "source": "user_stated",
    }
    found = client.retrieved({"kind": "episode", "episode": episode, "score": 0.5})
    assert found == Retrieved(
        "episode", frozenset({"D2:2"}), _at(20).replace(hour=16, minute=30, second=1)
    )
    assert client.retrieved(
        {"kind": "episode", "section": "from earlier conversations", **episode}
    ).dia_ids == {"D2:2"}
    assert (
        client.retrieved({"kind": "episode", "episode": {**episode, "run_id": "other"}}).dia_ids
        == set()
    )
    assert client.retrieved({"kind": "entity", "entity_id": "ent_1"}).dia_ids == set()


def _asked(category: int, search_hit: bool, prefetch_hit: bool) -> Asked:

    gold = frozenset({"D1:1"})
    miss = Retrieved("fact", frozenset({"D9:9"}), _at(1))
    hit = Retrieved("episode", gold, _at(1))
    search = [miss] * 6 + [hit] if search_hit else [miss] * 7
    return Asked(
        Question("q", "1 June 2023", category, gold),
        {"search": search, "bm25": [hit], "dense": [miss]},
        [hit] if prefetch_hit else [miss],
        False,
    )


def test_shares_by_system_cutoff_and_category():
    """A hit at position 7 counts at 10, not at 5; categories split the shares."""
    asked = [_asked(4, True, True), _asked(4, False, False), _asked(2, True, False)]
    assert found_share(asked, "search", 5) == 0.0
    assert found_share(asked, "search", 10) == pytest.approx(2 / 3)
    assert found_share(asked, "search", 10, category=4) == 0.5
    assert found_share(asked, "prefetch", category=4) == 0.5
    assert found_share(asked, "bm25", 10) == 1.0 and found_share(asked, "dense", 10) == 0.0
    assert found_share(asked, "search", 10, category=3) is None
    assert cutoffs(10) == [5, 10] and cutoffs(3) == [3] and cutoffs(20) == [5, 10, 20]


def test_report_prints_each_system_and_the_temporal_dates():
    """The report has a row per system and cut-off, prefetch, and the temporal lines."""
    asked = [_asked(4, True, True), _asked(2, True, False)]
    result = FileResult(
        "tiny", "owner-x", 10, asked, Imported(8, 2, 0.5, 3, 2, 1, 0), rss_mb=900, peak_rss_mb=950
    )
    text = report(result)
    assert "import: 0.5 s to done, 16.0 turns/s; 3 proposals, 2 committed, 1 held" in text
    assert "RSS 900 MiB (peak 950 MiB)" in text
    rows = {line[:20].strip(): line[20:].split() for line in table(asked, 10)}
    assert rows["search @10"] == ["1.00", "-", "1.00", "-", "1.00"]
    assert rows["prefetch (block)"] == ["0.50", "-", "0.00", "-", "1.00"]
    assert "search @10     found 1/1; of those, dated 1, on the answer's date 1/1" in text


def test_a_rate_limited_answer_is_waited_out():
    """A 429 (a running server's per-token limit, `--api`) is retried after its
    `Retry-After`; the next answer is used."""
    answers = [
        httpx.Response(429, headers={"Retry-After": "0"}, json={"detail": "slow down"}),
        httpx.Response(429, headers={"Retry-After": "soon"}, json={"detail": "slow down"}),
        httpx.Response(200, json={"items": [], "mode": "hybrid"}),
    ]
    client = OwnerClient(
        httpx.Client(
            base_url="http://eval.invalid", transport=httpx.MockTransport(lambda _: answers.pop(0))
        ),
        set(),
    )
    assert client.search("anything", 10) == ([], "hybrid") and answers == []
