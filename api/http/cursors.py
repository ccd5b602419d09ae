"""Opaque page cursors (CONTRACT §10 "Lists are `{items, next}`").

A history cursor is the sort key of the last row served, the query it belongs to and the
knowledge instant the first page pinned, as URL-safe base64 JSON. Keyset, not offset: a
row recorded between two pages neither repeats nor pushes another row off a page, and
every page reads the same knowledge (`known_at` of the first page, now when not given).
A cursor from another query (another entity, attribute or audit flag), or altered, is
refused with 422 naming `cursor`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from graph.errors import InvalidInput, NotFound
from graph.read.lifecycle import HistoryKey
from graph.records import EpisodeRecord
from graph.time import EPOCH, from_micros

T = TypeVar("T")

KIND = "history/1"


@dataclass(frozen=True, slots=True)
class HistoryCursor:
    """A decoded history cursor.

    Attributes:
        known_at: the knowledge instant every page of this listing reads, aware UTC.
        after: the sort key of the last row of the previous page.
    """

    known_at: datetime
    after: HistoryKey


def pack(body: Any) -> str:
    """An opaque cursor: `body` as compact JSON in URL-safe base64, unpadded."""
    raw = json.dumps(body, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unpack(cursor: str) -> Any:
    """The body of a cursor `pack` made.

    Raises:
        ValueError: not base64 or not JSON (binascii.Error and JSONDecodeError are both
            ValueErrors); the caller refuses it as bad input naming `cursor`.
    """
    return json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))


def _micros(t: datetime) -> int:
    return (t - EPOCH) // (datetime.resolution)


def _query(entity_id: str, attribute: str | None, include_retracted: bool) -> list[Any]:
    return [entity_id, attribute, include_retracted]


def encode_history(
    entity_id: str,
    attribute: str | None,
    include_retracted: bool,
    known_at: datetime,
    last: HistoryKey,
) -> str:
    """The cursor of the page after `last` in this history listing."""
    body = {
        "k": KIND,
        "q": _query(entity_id, attribute, include_retracted),
        "t": _micros(known_at),
        "p": [_micros(last.valid_from), _micros(last.recorded_at), last.attribute, last.id],
    }
    return pack(body)


def decode_history(
    cursor: str, entity_id: str, attribute: str | None, include_retracted: bool
) -> HistoryCursor:
    """Decode a cursor given back for this history listing.

    Raises:
        InvalidInput: (field `cursor`) not a cursor, altered, or from another listing.
    """
    try:
        body = unpack(cursor)
        vf, ra, attr, row_id = body["p"]
        ok = (
            body["k"] == KIND
            and body["q"] == _query(entity_id, attribute, include_retracted)
            and all(isinstance(x, int) and not isinstance(x, bool) for x in (vf, ra, body["t"]))
            and isinstance(attr, str)
            and isinstance(row_id, str)
        )
        if ok:
            return HistoryCursor(
                from_micros(body["t"]), HistoryKey(from_micros(vf), from_micros(ra), attr, row_id)
            )
    except (ValueError, TypeError, KeyError, binascii.Error, OverflowError):
        pass
    raise InvalidInput(
        "cursor",
        "not a cursor of this listing (another entity, attribute or "
        "include_retracted, or altered); ask again without cursor",
    )


EPISODES_KIND = "episodes/1"


@dataclass(frozen=True, slots=True)
class EpisodeCursor:
    """A decoded episode-list cursor: the as-of point every page reads, and the sort key
    (said_at, run id, seq, part) of the last episode served."""

    valid_at: datetime
    known_at: datetime
    after: tuple[datetime, str, int, str]


def encode_episodes(
    query: list[Any], valid_at: datetime, known_at: datetime, last: EpisodeRecord
) -> str:
    """The cursor of the page after `last` in an episode listing.

    Args:
        query: the listing's filters ([chat_id, run_id, q]); a cursor serves only them.
        valid_at: the valid-time point the first page read (pinned).
        known_at: the knowledge instant the first page read (pinned).
        last: the last episode served.
    """
    body = {
        "k": EPISODES_KIND,
        "q": query,
        "v": _micros(valid_at),
        "t": _micros(known_at),
        "p": [_micros(last.said_at), last.run_id, last.seq, last.part],
    }
    return pack(body)


def decode_episodes(cursor: str, query: list[Any]) -> EpisodeCursor:
    """Decode a cursor given back for the episode listing with these filters.

    Raises:
        InvalidInput: (field `cursor`) not a cursor, altered, or from another listing.
    """
    try:
        body = unpack(cursor)
        said, run_id, seq, part = body["p"]
        numbers = (said, seq, body["v"], body["t"])
        ok = (
            body["k"] == EPISODES_KIND
            and body["q"] == query
            and all(isinstance(x, int) and not isinstance(x, bool) for x in numbers)
            and isinstance(run_id, str)
            and part in ("own", "pasted")
        )
        if ok:
            after = (from_micros(said), run_id, seq, part)
            return EpisodeCursor(from_micros(body["v"]), from_micros(body["t"]), after)
    except (ValueError, TypeError, KeyError, binascii.Error, OverflowError):
        pass
    raise InvalidInput(
        "cursor",
        "not a cursor of this listing (other chat_id, run_id or q, or altered); "
        "ask again without cursor",
    )


ENTITIES_KIND = "entities/1"


def _entity_query(q: str | None, kind: str | None, known_at: datetime | None) -> list[Any]:
    return [ENTITIES_KIND, q, kind, None if known_at is None else _micros(known_at)]


def encode_entities(
    q: str | None, kind: str | None, known_at: datetime | None, last_id: str
) -> str:
    """The cursor of the page after the entity `last_id` in the entity listing with these
    filters (`q`, `kind`, `known_at` or None for now); a cursor serves only them."""
    body = {"q": _entity_query(q, kind, known_at), "a": last_id}
    return pack(body)


def decode_entities(cursor: str, q: str | None, kind: str | None, known_at: datetime | None) -> str:
    """The id of the last entity served, from a cursor given back for the entity listing
    with these filters.

    Raises:
        InvalidInput: (field `cursor`) not a cursor, altered, or from another listing.
    """
    try:
        body = unpack(cursor)
        if body["q"] == _entity_query(q, kind, known_at) and isinstance(body["a"], str):
            return str(body["a"])
    except (ValueError, TypeError, KeyError, binascii.Error):
        pass
    raise InvalidInput(
        "cursor",
        "not a cursor of this listing (other q, kind or known_at, or altered); "
        "ask again without cursor",
    )


def cursor_row(find: Callable[[], T]) -> T:
    """The row a keyset cursor names, read by `find`; a cursor naming no row of the owner is
    bad input, not a missing resource (CONTRACT §9: 422 naming `cursor`).

    Raises:
        InvalidInput: `find` raised NotFound.
    """
    try:
        return find()
    except NotFound:
        raise InvalidInput(
            "cursor", "not a cursor this list gave; start again without it"
        ) from None
