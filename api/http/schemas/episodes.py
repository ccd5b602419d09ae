"""Response models of episodes, what was said (CONTRACT §12), for REST, search and MCP."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from graph.fields import UtcDatetime
from graph.records import EpisodeRecord
from graph.time import shown_end


class EpisodePublic(BaseModel):
    """One message of a curated run, kept as said (CONTRACT §12).

    `speaker` is the name of the person speaking (`speaker_id` their person entity; the
    owner's own for their own words), null for assistant, tool and system text. `text`
    has every sentence that carried a credential replaced by `[redacted]`. `source` is
    `user_stated` (the person's own words) or `untrusted` (assistant, tool or pasted
    text: `part` is `pasted` for text pasted into a user message). `said_at` is when it
    was said (visible from then on in valid time); `recorded_at`/`retracted_at` when the
    service kept and forgot it (null while kept). Times are UTC `Z`.
    """

    id: str
    text: str
    speaker: str | None
    speaker_id: str | None
    role: str
    said_at: UtcDatetime
    chat_id: str
    run_id: str
    message_id: str | None
    part: Literal["own", "pasted"]
    surface: str | None
    source: str
    recorded_at: UtcDatetime
    retracted_at: UtcDatetime | None

    @classmethod
    def of(cls, e: EpisodeRecord) -> EpisodePublic:
        """Build from an internal record (the FAR_FUTURE sentinel becomes null)."""
        return cls(
            id=e.id,
            text=e.text,
            speaker=e.speaker,
            speaker_id=e.speaker_id,
            role=e.role,
            said_at=e.said_at,
            chat_id=e.chat_id,
            run_id=e.run_id,
            message_id=e.message_id,
            part="pasted" if e.part == "pasted" else "own",
            surface=e.surface,
            source=e.source,
            recorded_at=e.recorded_at,
            retracted_at=shown_end(e.retracted_at),
        )


class EpisodeList(BaseModel):
    """`GET /v1/episodes`: `{items: [Episode], next}` (pass `next` as `cursor`)."""

    items: list[EpisodePublic]
    next: str | None = None
