"""How the block writes a line (CONTRACT §6 push): dates, values, provenance tags, items.

Pure text helpers of api/chat/prefetch/block.py. Every line carries a date ("since",
"until", "noted") and a short provenance tag naming who said it (CONTRACT §12): "told by
you" for the owner's own words, "told by Jon" for another speaker's, "shared by alice" for
what a group member shares.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from graph.fields import z
from graph.read.prefetch import PrefetchView, Row
from graph.time import EPOCH, FAR_FUTURE, FAR_PAST

MAX_VALUE_CHARS = 120
"""A value longer than this is cut with an ellipsis."""
_FAR_PAST_US = (FAR_PAST - EPOCH) // timedelta(microseconds=1)
_FAR_FUTURE_US = (FAR_FUTURE - EPOCH) // timedelta(microseconds=1)


def day(value: datetime) -> str:
    """The date of `value` (UTC), `YYYY-MM-DD`."""
    return value.date().isoformat()


def clip(text: str) -> str:
    """`text` with white space collapsed, cut to `MAX_VALUE_CHARS` with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_VALUE_CHARS else flat[: MAX_VALUE_CHARS - 1] + "…"


def scalar(value: Any) -> str:
    """A fact value as the block shows it (booleans as yes/no), clipped."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return clip(str(value))


def tag(source: str, speaker: str | None = None) -> str:
    """A short provenance tag for a fact's `source` (CONTRACT §10 Fact.source) and who said
    it (CONTRACT §12): `speaker` is the name of the person whose message it came from, or
    None for the owner's own words ("told by you")."""
    if source == "user_stated":
        return f"told by {clip(speaker)}" if speaker else "told by you"
    if source == "user_edit":
        return "entered by you"
    if source.startswith("integration:"):
        return f"observed by {source.split(':', 1)[1]}"
    if source == "inferred":
        return "inferred and confirmed"
    return "from a document, confirmed"


def when(row: Row) -> str:
    """A row's dates: "since <day>" (or "noted <day>" when its start is unknown), and
    " until <day>" when it ends."""
    start = (
        f"noted {day(row.recorded_at)}"
        if row.vf <= _FAR_PAST_US
        else f"since {day(row.valid_from)}"
    )
    return start + ("" if row.vt >= _FAR_FUTURE_US else f" until {day(row.valid_to)}")


def speaker_of(view: PrefetchView, row: Row) -> str | None:
    """Who said a row, for its tag: None for the owner (or no message), else the name of
    the person whose message it came from ("someone else" when that entity is not
    visible to this read)."""
    if row.speaker_id is None or row.speaker_id == view.self_id:
        return None
    return view.speakers.get(row.speaker_id, "someone else")


def shared_by(view: PrefetchView, row: Row) -> str | None:
    """The owner who shares the row's entity with this read through a group (CONTRACT §7),
    or None for the reader's own row."""
    if row.owner is None or view.owner is None or row.owner == view.owner:
        return None
    return row.owner


def row_tag(view: PrefetchView, row: Row) -> str:
    """The provenance tag of a row (`tag` with the row's speaker). A row shared with the
    reader names its sharer, never "you": "shared by alice" for what the sharer said or
    entered (or someone this read may not see said), "told by Jon, shared by alice" for a
    speaker it may see, "observed by calendar, shared by alice"."""
    sharer = shared_by(view, row)
    if sharer is None:
        return tag(row.source, speaker_of(view, row))
    named = view.speakers.get(row.speaker_id) if row.speaker_id is not None else None
    if row.source in ("user_stated", "user_edit") and named is None:
        return f"shared by {clip(sharer)}"
    return f"{tag(row.source, named)}, shared by {clip(sharer)}"


def visible_speaker_id(view: PrefetchView, row: Row) -> str | None:
    """The row's `speaker_id` when this read may name it (the owner's own person entity, or
    a speaker visible to the read), else None: a shared entity's fact said by its sharer
    must not hand a member the sharer's person entity (CONTRACT §7)."""
    if row.speaker_id == view.self_id or row.speaker_id in view.speakers:
        return row.speaker_id
    return None


def item(kind: str, row: Row, value: str, view: PrefetchView, **extra: Any) -> dict[str, Any]:
    """The JSON item of a line showing `row` (CONTRACT §6: the same items as the block);
    `speaker_id` only when the read may see that person (`visible_speaker_id`);
    `shared_by` names the owner who shares the row through a group, else null."""
    speaker = speaker_of(view, row)
    sharer = shared_by(view, row)
    if sharer is not None and speaker is None:
        speaker = sharer  # entered by the sharer: never "you"
    return {
        "kind": kind,
        "fact_id": row.id,
        "entity_id": row.entity_id,
        "attribute": row.attribute,
        "value": value,
        "object_id": row.object_id,
        "valid_from": z(row.valid_from),
        "valid_to": None if row.vt >= _FAR_FUTURE_US else z(row.valid_to),
        "recorded_at": z(row.recorded_at),
        "source": row.source,
        "tag": row_tag(view, row),
        "speaker": "you" if speaker is None and row.speaker_id is not None else speaker,
        "speaker_id": visible_speaker_id(view, row),
        "shared_by": sharer,
        **extra,
    }
