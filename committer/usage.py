"""Usage records as a committer command: a turn's time, surface, chat, model, tokens,
estimated cost and duration, never its content.

A part of `committer.apply.Committer`; one transaction per record. A record is a log line,
not memory: it changes nothing a read of memory shows, so no cause-and-effect events are
recorded for it (CONTRACT §8 is about what changed memory). A record posted again with the
same `id` is stored once (a retry); the same `id` with other fields is a 409.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime

from committer.base import CommitterBase
from committer.owners import ensure_owner
from graph.errors import Conflict
from graph.held import UsageRecord
from graph.time import to_utc, utcnow
from graph.write.writer import WriteTx, new_id


@dataclass(frozen=True, slots=True)
class UsageIn:
    """One turn's usage as a caller reports it (bounds checked at the edge:
    api/http/schemas/state.py `UsageCreate`)."""

    at: datetime
    surface: str | None
    chat_id: str | None
    model: str | None
    input_tokens: int
    output_tokens: int
    cost: float
    duration_ms: int
    id: str | None = None


class UsageCommands(CommitterBase):
    """Record usage."""

    def record_usage(self, owner: str, usage: UsageIn) -> tuple[UsageRecord, bool]:
        """Store one usage record for `owner`.

        Returns:
            (the stored record, True when stored now; False for a retry of a stored one).

        Raises:
            Conflict: a record with this `id` was stored with other fields.
        """
        at = to_utc(usage.at, "at")
        fields = [
            at.isoformat(),
            usage.surface,
            usage.chat_id,
            usage.model,
            usage.input_tokens,
            usage.output_tokens,
            usage.cost,
            usage.duration_ms,
        ]
        digest = hashlib.sha256(json.dumps(fields).encode()).hexdigest()
        record_id = usage.id or new_id("use")

        def work(w: WriteTx) -> tuple[UsageRecord, bool, str]:
            ensure_owner(w, owner)
            return w.record_usage(
                key=f"{owner}/{record_id}",
                id=record_id,
                owner=owner,
                at=at,
                day=at.date().isoformat(),
                surface=usage.surface,
                chat_id=usage.chat_id,
                model=usage.model,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cost=usage.cost,
                duration_ms=usage.duration_ms,
                digest=digest,
                t=utcnow(),
            )

        record, created, stored = self._writer.transaction(work)
        if not created and stored != digest:
            raise Conflict(f"A usage record {record_id!r} was stored with other fields.")
        return record, created
