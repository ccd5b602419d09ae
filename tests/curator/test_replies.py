"""Reading short replies to surfaced proposals (curator.replies, CONTRACT §3)."""

from __future__ import annotations

import pytest

from curator.replies import Reading, read_reply


@pytest.mark.parametrize(
    ("text", "n", "expected"),
    [
        ("yes", 2, Reading(True, [0, 1], [])),
        ("Yes, remember that!", 2, Reading(True, [0, 1], [])),
        ("sure, thanks", 1, Reading(True, [0], [])),
        ("no", 2, Reading(True, [], [0, 1])),
        ("Don't.", 1, Reading(True, [], [0])),
        ("forget it", 3, Reading(True, [], [0, 1, 2])),
        ("keep the first one", 2, Reading(True, [0], [])),
        ("yes to the first, no to the second", 2, Reading(True, [0], [1])),
        ("only the second", 3, Reading(True, [1], [0, 2])),
        ("forget the last one", 3, Reading(True, [], [2])),
        ("the first one is right", 2, Reading(True, [0], [])),
    ],
)
def test_understood(text: str, n: int, expected: Reading) -> None:
    """Plain yes / no, for all or by position."""
    assert read_reply(text, n) == expected


@pytest.mark.parametrize(
    ("text", "n"),
    [
        ("maybe", 2),
        ("what do you mean?", 1),
        ("yes and no", 2),
        ("keep the third", 2),
        ("keep the first, forget the first", 2),
        ("yes", 0),
        ("no, keep the first", 2),
        ("I live in Paris", 1),
    ],
)
def test_not_understood_changes_nothing(text: str, n: int) -> None:
    """Anything unclear leaves every proposal pending."""
    assert read_reply(text, n) == Reading(False, [], [])
