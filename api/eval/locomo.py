"""Evidence recall on LoCoMo's own questions (issue 12): the core of `worldstate eval locomo`
and of `bench/locomo_recall.py`.

A LoCoMo file holds a conversation and its `qa`: questions with the dialogue ids of the
turns that answer them (`evidence`, e.g. "D3:7") and a `category` (1 multi-hop,
2 temporal, 3 open-domain, 4 single-hop, 5 adversarial). Categories 1-4 are asked; 5 has
no answer in the conversation by design.

A retrieved item *carries* a dialogue id when its provenance names that turn: a fact's
`message_id` or one of its corroborations' (`GET /v1/facts/{id}`), an episode's
`message_id` (the import keeps the LoCoMo `dia_id` as the message id, curator/locomo.py),
a baseline's turn itself. A question is *found* at k when one of the first k items
carries one of its evidence ids (a hit rate: "recall@k" in the issue's sense).

This module is pure: reading a file, scoring, the report. The service side is in
api/eval/service.py, the baselines in api/eval/baselines.py, the orchestration in
api/eval/run.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from curator.locomo import LocomoFormatError, RunPayload, load_locomo
from graph.time import FAR_PAST

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
"""The LoCoMo categories asked, by number (5, adversarial, is left out)."""
TEMPORAL = 2
_DIA_ID = re.compile(r"D:?(\d+):(\d+)")


@dataclass(frozen=True, slots=True)
class Question:
    """One LoCoMo question of categories 1-4.

    Attributes:
        text: the question.
        answer: the gold answer, as text.
        category: 1-4 (CATEGORIES).
        evidence: the dialogue ids of the turns that answer it, normalized ("D3:7").
    """

    text: str
    answer: str
    category: int
    evidence: frozenset[str]


@dataclass(frozen=True, slots=True)
class Turn:
    """One imported turn: its dialogue id, speaker, words and time (UTC)."""

    dia_id: str
    speaker: str
    text: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Conversation:
    """A LoCoMo file read for evaluation.

    Attributes:
        name: the file's stem ("30").
        runs: one `POST /v1/runs` payload per session (curator/locomo.py).
        turns: every imported turn, in order (the baselines' corpus).
        questions: categories 1-4 with at least one evidence id.
        unusable: questions of categories 1-4 left out for having no evidence id.
    """

    name: str
    runs: list[RunPayload]
    turns: list[Turn]
    questions: list[Question]
    unusable: int


@dataclass(frozen=True, slots=True)
class Retrieved:
    """One retrieved item, reduced to what scoring needs.

    Attributes:
        kind: `fact`, `episode`, `turn` (a baseline's), or another item kind of prefetch.
        dia_ids: the dialogue ids its provenance names (empty: it names none).
        at: the date it carries (a fact's `valid_from`, an episode's `said_at`), or None.
    """

    kind: str
    dia_ids: frozenset[str]
    at: datetime | None


def normalize_evidence(raw: Iterable[Any]) -> frozenset[str]:
    """Dialogue ids from a `qa` entry's `evidence`, as "D<session>:<turn>".

    The files hold a few malformed entries ("D8:6; D9:17", "D:11:26", "D"): every id found
    in each entry is kept, and an entry with none adds nothing.
    """
    found: set[str] = set()
    for entry in raw:
        for m in _DIA_ID.finditer(str(entry)):
            found.add(f"D{int(m.group(1))}:{int(m.group(2))}")
    return frozenset(found)


def read_conversation(path: Path) -> Conversation:
    """Read a LoCoMo-format file: its runs, turns and questions of categories 1-4.

    Args:
        path: a JSON object with the conversation (flat, or under `conversation`) and `qa`.

    Raises:
        LocomoFormatError: a session has no readable date (curator/locomo.py), or `qa` is
            missing or not a list.
        ValueError: the file is not JSON.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("qa"), list):
        raise LocomoFormatError(f"{path.name} has no `qa` list of questions")
    runs = load_locomo(data, stem=path.stem)
    turns = [
        Turn(m["id"], m["speaker"], m["text"], _parse_time(m["at"]))
        for run in runs
        for m in run["messages"]
    ]
    questions, unusable = [], 0
    for qa in data["qa"]:
        category = qa.get("category")
        if category not in CATEGORIES:
            continue
        evidence = normalize_evidence(qa.get("evidence") or [])
        if not evidence:
            unusable += 1
            continue
        questions.append(
            Question(str(qa["question"]), str(qa.get("answer", "")), category, evidence)
        )
    return Conversation(path.stem, runs, turns, questions, unusable)


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def first_hit(items: Sequence[Retrieved], evidence: frozenset[str], k: int) -> Retrieved | None:
    """The first of the top `k` items that carries an evidence id, or None."""
    for item in items[:k]:
        if item.dia_ids & evidence:
            return item
    return None


# --- dates of temporal answers ------------------------------------------------------------

_MONTH_NAMES = (
    "january february march april may june july august september october november december"
)
_MONTHS = {name: number for number, name in enumerate(_MONTH_NAMES.split(), start=1)}
_MONTH = rf"({_MONTH_NAMES.replace(' ', '|')})"
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})\s+{_MONTH}[\s,.]+(\d{{4}})\b")
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}}),?\s+(\d{{4}})\b")
_MONTH_YEAR = re.compile(rf"\b{_MONTH}[\s,.]+(\d{{4}})\b")
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")
_RELATIVE = re.compile(r"\b(before|week of|weekend of)\b")
RELATIVE_DAYS_BEFORE = 21
"""An answer such as "The week before 9 June 2023" names a day up to three weeks earlier."""
RELATIVE_DAYS_AFTER = 7
"""... and "The week of 23 August 2023" up to a week later."""


def answer_period(answer: str) -> tuple[date, date] | None:
    """The days (inclusive) a temporal gold answer names, or None when it names no date.

    "7 May 2023" and "May 7, 2023" name that day; "June, 2023" the month; "2022" the
    year. A relative answer ("The week before 9 June 2023", "The week of 23 August 2023")
    names the span from 21 days before its day to 7 days after. "4 years" or "13 August"
    (no year) name none.
    """
    text = answer.lower()
    day: date | None = None
    if m := _DAY_MONTH_YEAR.search(text):
        day = _day(int(m.group(3)), _MONTHS[m.group(2)], int(m.group(1)))
    elif m := _MONTH_DAY_YEAR.search(text):
        day = _day(int(m.group(3)), _MONTHS[m.group(1)], int(m.group(2)))
    if day is not None:
        if _RELATIVE.search(text):
            return (
                day - timedelta(days=RELATIVE_DAYS_BEFORE),
                day + timedelta(days=RELATIVE_DAYS_AFTER),
            )
        return day, day
    if m := _MONTH_YEAR.search(text):
        year, month = int(m.group(2)), _MONTHS[m.group(1)]
        following = date(year + month // 12, month % 12 + 1, 1)
        return date(year, month, 1), following - timedelta(days=1)
    if m := _YEAR.search(text):
        year = int(m.group(1))
        return date(year, 1, 1), date(year, 12, 31)
    return None


def _day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def dated(item: Retrieved) -> bool:
    """True when the item carries a real date (not the far-past "unknown" sentinel)."""
    return item.at is not None and item.at.year > FAR_PAST.year


def on_answer_date(item: Retrieved, period: tuple[date, date] | None) -> bool:
    """True when the item's date (UTC day) falls in the gold answer's period."""
    if period is None or not dated(item):
        return False
    assert item.at is not None
    return period[0] <= item.at.astimezone(UTC).date() <= period[1]
