"""A LoCoMo conversation becomes one run per session (CONTRACT §10 `POST /v1/runs`, §11)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from curator.extract import extract_run
from curator.locomo import LocomoFormatError, load_locomo, parse_session_time

# A tiny conversation in the LoCoMo shape, written for these tests.
CONVERSATION = {
    "speaker_a": "Rosa",
    "speaker_b": "Ivan",
    "session_1_date_time": "9:05 am on 3 March, 2023",
    "session_1": [
        {"speaker": "Rosa", "dia_id": "D1:1", "text": "Hi Ivan! I moved to Valencia last month."},
        {"speaker": "Ivan", "dia_id": "D1:2", "text": "Nice! I went to a jazz night yesterday."},
        {
            "speaker": "Rosa",
            "dia_id": "D1:3",
            "text": "Look at this view.",
            "img_url": ["https://example.invalid/view.jpg"],
            "blip_caption": "a photo of a beach",
            "query": "beach view",
        },
    ],
    "session_2_date_time": "7:30 pm on 12 April, 2023",
    "session_2": [
        {"speaker": "Ivan", "dia_id": "D2:1", "text": "I joined a chess club!"},
        {"speaker": "Rosa", "dia_id": "D2:2", "text": "   "},
    ],
    "session_3_date_time": "1:00 pm on 1 May, 2023",
}


def test_one_run_per_session_with_dates():
    """Each session_N with turns is a run; a date with no session is skipped."""
    runs = load_locomo(CONVERSATION, stem="t1")
    assert [r["id"] for r in runs] == ["t1-session-1", "t1-session-2"]
    assert all(r["chat_id"] == "locomo-t1" and r["surface"] == "locomo" for r in runs)


def test_turns_are_user_messages_with_speaker_and_utc_time():
    """Every turn is a user message with its speaker; times are the session time in UTC,
    +1 s each."""
    first = load_locomo(CONVERSATION, stem="t1")[0]["messages"]
    assert first[0] == {
        "id": "D1:1",
        "role": "user",
        "speaker": "Rosa",
        "text": "Hi Ivan! I moved to Valencia last month.",
        "at": "2023-03-03T09:05:00Z",
    }
    assert [m["at"] for m in first] == [
        "2023-03-03T09:05:00Z", "2023-03-03T09:05:01Z", "2023-03-03T09:05:02Z",
    ]  # fmt: skip


def test_photo_fields_are_not_copied_into_text():
    """A shared photo's caption and query are not the speaker's words."""
    third = load_locomo(CONVERSATION, stem="t1")[0]["messages"][2]
    assert third["text"] == "Look at this view."
    assert set(third) == {"id", "role", "speaker", "text", "at"}


def test_empty_turns_are_dropped_but_times_keep_turn_order():
    """A turn without text is left out; the next one keeps its own offset."""
    second = load_locomo(CONVERSATION, stem="t1")[1]["messages"]
    assert [m["id"] for m in second] == ["D2:1"]


def test_loads_from_a_file_named_by_its_stem(tmp_path: Path):
    """A file path gives ids from the file's stem."""
    path = tmp_path / "77.json"
    path.write_text(json.dumps(CONVERSATION), encoding="utf-8")
    runs = load_locomo(path)
    assert runs[0]["id"] == "77-session-1" and runs[0]["chat_id"] == "locomo-77"


def test_wrapped_benchmark_form_is_accepted():
    """The benchmark's {"conversation": {...}} wrapper is unwrapped."""
    runs = load_locomo({"conversation": CONVERSATION, "qa": []}, stem="w")
    assert len(runs) == 2


def test_session_time_is_read_as_utc():
    """'1:56 pm on 8 May, 2023' is 13:56 UTC on 2023-05-08."""
    assert parse_session_time("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def test_session_without_date_is_an_error():
    """A session with turns but no date cannot be placed in time."""
    broken = {"speaker_a": "A", "speaker_b": "B", "session_1": [{"speaker": "A", "text": "hi"}]}
    with pytest.raises(LocomoFormatError):
        load_locomo(broken)


def test_a_file_with_no_session_is_an_error():
    """A file with no `session_N` list is not a conversation (found by a tester: the
    import posted 0 runs and exited 0)."""
    for empty in ({"speaker_a": "A", "speaker_b": "B"}, {"conversation": {}}, {"qa": []}):
        with pytest.raises(LocomoFormatError, match="no session"):
            load_locomo(empty)


def test_unreadable_date_is_an_error():
    """A date that does not parse is reported, not guessed."""
    broken = {"session_1_date_time": "sometime", "session_1": []}
    with pytest.raises(LocomoFormatError):
        load_locomo(broken)


def test_runs_feed_the_extractor():
    """Both speakers' statements are about themselves, dated from the session time."""
    runs = load_locomo(CONVERSATION, stem="t1")
    found = [p for run in runs for p in extract_run(run["messages"], run["id"])]
    summary = [
        (p.subject.name, p.attribute, p.value, p.valid_from.date().isoformat()) for p in found
    ]
    assert summary == [
        ("Rosa", "location", "Valencia", "2023-02-01"),
        ("Ivan", "participated_in", "jazz night", "2023-03-02"),
        ("Ivan", "member_of", "chess club", "2023-04-12"),
    ]
