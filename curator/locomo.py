"""LoCoMo conversations as runs (CONTRACT §10 `POST /v1/runs`, §11 `import locomo`).

A LoCoMo file is one long conversation between two people: `speaker_a`, `speaker_b`,
and for N = 1, 2, ... a list of turns `session_N` (`speaker`, `dia_id`, `text`, sometimes
`img_url`, `blip_caption`, `query`) with its start `session_N_date_time`, e.g.
"1:56 pm on 8 May, 2023". The file gives no time zone: the times are taken as UTC.

Each session becomes one run payload. Both speakers are people talking about themselves,
so every turn is a `user` message with its `speaker` (CONTRACT §10: a message's speaker
names the person speaking).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import dateparser

from graph.fields import z

__all__ = ["RunPayload", "load_locomo", "parse_session_time"]

RunPayload = dict[str, Any]
"""A `POST /v1/runs` body: `{id, chat_id, surface, messages: [{id, role, speaker, text, at}]}`."""

_SESSION = re.compile(r"session_(\d+)")


class LocomoFormatError(ValueError):
    """The input is not a LoCoMo conversation (a missing key or an unreadable date)."""


def parse_session_time(text: str) -> datetime:
    """Parse a LoCoMo session time such as "1:56 pm on 8 May, 2023" as UTC.

    Raises:
        LocomoFormatError: the text is not a date and time.
    """
    parsed = dateparser.parse(
        text,
        languages=["en"],
        settings={
            "TIMEZONE": "UTC",
            "TO_TIMEZONE": "UTC",
            "RETURN_AS_TIMEZONE_AWARE": True,
            "STRICT_PARSING": True,
            "DATE_ORDER": "DMY",
        },
    )
    if not isinstance(parsed, datetime):
        raise LocomoFormatError(f"unreadable session time: {text!r}")
    return parsed.astimezone(UTC)


def _rfc3339(at: datetime) -> str:
    return z(at)


def _turn_text(turn: dict[str, Any]) -> str:
    """The turn's words; a shared photo's caption is not the speaker's own words, so left out."""
    return str(turn.get("text") or "").strip()


def load_locomo(source: str | Path | dict[str, Any], stem: str | None = None) -> list[RunPayload]:
    """Turn a LoCoMo conversation into one run payload per session, in session order.

    Args:
        source: a path to a LoCoMo JSON file, or the parsed object.
        stem: names the conversation in ids; defaults to the file's stem ("30" for
            "30.json"), or "conversation" for a dict.

    Returns:
        `[{"id": "<stem>-session-<N>", "chat_id": "locomo-<stem>", "surface": "locomo",
        "messages": [...]}]`. Message `at` is the session time (UTC, RFC 3339 with "Z")
        plus the turn's index in seconds, so turns keep their order with strictly
        increasing timestamps. A `session_N_date_time` without its `session_N` (the files
        have some) is skipped, as are turns without text.

    Raises:
        LocomoFormatError: no session, a session has no date, or its date cannot be read.
    """
    if isinstance(source, dict):
        data, stem = source, stem or "conversation"
    else:
        path = Path(source)
        data = json.loads(path.read_text(encoding="utf-8"))
        stem = stem or path.stem
    if "conversation" in data and isinstance(data["conversation"], dict):
        data = data["conversation"]  # the benchmark's wrapped form: {"conversation": {...}}
    numbers = sorted(
        int(m.group(1))
        for key, value in data.items()
        if (m := _SESSION.fullmatch(key)) and isinstance(value, list)
    )
    if not numbers:
        raise LocomoFormatError("no session: no key session_1, session_2, … holding turns")
    runs: list[RunPayload] = []
    for n in numbers:
        when = data.get(f"session_{n}_date_time")
        if not when:
            raise LocomoFormatError(f"session_{n} has no session_{n}_date_time")
        start = parse_session_time(str(when))
        messages = []
        for index, turn in enumerate(data[f"session_{n}"]):
            text = _turn_text(turn)
            if not text:
                continue
            messages.append(
                {
                    "id": str(turn.get("dia_id") or f"D{n}:{index + 1}"),
                    "role": "user",
                    "speaker": str(turn["speaker"]),
                    "text": text,
                    "at": _rfc3339(start + timedelta(seconds=index)),
                }
            )
        runs.append(
            {
                "id": f"{stem}-session-{n}",
                "chat_id": f"locomo-{stem}",
                "surface": "locomo",
                "messages": messages,
            }
        )
    return runs
