"""Limits on notes (issue 15): hourly reading ceilings per token, notes per owner.

Configured by settings (api/http/settings.py: `WORLDSTATE_NOTES_READ_NOTES_PER_HOUR` 40,
`_READ_CHARS_PER_HOUR` 120,000, `_READ_PLAYBOOKS_PER_HOUR` 6, `WORLDSTATE_NOTES_MAX_PER_OWNER`
600, `WORLDSTATE_NOTES_WARN_FROM` 240); every over-limit answer is a 4xx naming the limit
(429 with `Retry-After` for a ceiling, 409 for the notes an owner may hold).

Where the ceilings are counted: in the store (`NoteReadLedger`, one node per token and
hour, charged by the committer under that node's lock), not in a process. Several API
processes (`serve` behind a load balancer, `--workers N`) and the MCP server all serve the
same tokens; an in-process counter would let each of N processes grant the whole ceiling
(N times the limit), and would forget it on restart. The price is one small write
transaction per read that serves note bodies (`GET /v1/notes/{id}`, `read_context`,
`memory_recall`, `memory_brief`, the notes of `GET /v1/memory`); lists, search extracts,
due dates, overviews and prefetch serve no bodies and are not counted.

What counts as read: each note whose body is served is one note, its title and body its
characters, a playbook also one playbook; a read that would pass a ceiling is refused
whole (nothing is served, nothing counted). The hour is the UTC hour of `clock()`, which
tests inject.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from committer.apply import Committer
from committer.notes import Ceilings
from graph.notes import NoteRecord
from graph.time import utcnow


@dataclass(frozen=True, slots=True)
class NoteLimits:
    """The process's limits on notes.

    Attributes:
        ceilings: per token and hour: notes, characters, playbooks read.
        max_per_owner: notes one owner may hold (the committer refuses more, 409).
        warn_from: from this many notes, writes and overviews carry a warning.
        clock: the current time, aware UTC (tests inject one).
    """

    ceilings: Ceilings = field(default_factory=Ceilings)
    max_per_owner: int = 600
    warn_from: int = 240
    clock: Callable[[], datetime] = utcnow

    @classmethod
    def from_settings(cls, settings: Any) -> NoteLimits:
        """The limits of `Settings` (api/http/settings.py)."""
        return cls(
            Ceilings(
                settings.notes_read_notes_per_hour,
                settings.notes_read_chars_per_hour,
                settings.notes_read_playbooks_per_hour,
            ),
            settings.notes_max_per_owner,
            settings.notes_warn_from,
        )

    def warning(self, held: int) -> str | None:
        """The warning a response carries when the owner keeps `held` notes, or None."""
        if held < self.warn_from:
            return None
        return (
            f"you keep {held} notes; from {self.max_per_owner} new notes are refused "
            "(WORLDSTATE_NOTES_MAX_PER_OWNER): retire those that no longer help"
        )


def charge(
    committer: Committer,
    limits: NoteLimits,
    owner: str,
    token_id: str | None,
    notes: Sequence[NoteRecord],
) -> None:
    """Count `notes` (served with their bodies) against the token's ceilings this hour.

    Args:
        committer: writes the ledger.
        limits: the ceilings and the clock.
        owner: the token's owner.
        token_id: the token (None: a caller with no token, e.g. a test double; not counted).
        notes: the notes about to be served.

    Raises:
        LimitExceeded: 429 naming the ceiling; nothing is served.
    """
    if not notes or token_id is None:
        return
    now = limits.clock()
    hour = now.replace(minute=0, second=0, microsecond=0)
    retry = max(int((hour + timedelta(hours=1) - now).total_seconds()), 1)
    committer.charge_reads(
        owner,
        token_id,
        hour,
        notes=len(notes),
        chars=sum(len(n.title) + len(n.body) for n in notes),
        playbooks=sum(n.kind == "playbook" for n in notes),
        ceilings=limits.ceilings,
        retry_after=retry,
    )
