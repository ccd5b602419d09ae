"""Notes: the registry of note kinds, tiers and statuses, and the note record (CONTRACT §13).

A note is working knowledge the assistant keeps (a decision, a hypothesis with a date to look
again, a playbook, ...). Like a fact, each note version is a row on both time axes
(`valid_from`/`valid_to`, `recorded_at`/`retracted_at`); replacing a note supersedes its
version and keeps `first_learned_at`, retiring ends its validity, and only erasure deletes.

Pure data and pure arithmetic, kept in `graph` (which imports nothing of ours) so the
committer, the curator and the read path share one spelling of every rule.

Tiers and decay (the relevance of notes fades per session, issue 15): a note's standing
(`tier`, `relevance`) is bookkeeping of use, not knowledge, so it lives on one mutable
`NoteHead` node per note, never on the immutable version rows. Relevance is stored as a base
value and the owner's session count when it was set; `relevance_now` decays it by the
tier's rate for every session that ended since, so ending a session writes one counter.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta

NOTES_AREA = "notes"
"""The memory-access area of every note (graph/scope.py NOTE_VISIBLE): a restricted chat
lists it among its areas to read notes, or leaves it out to keep them out."""


@dataclass(frozen=True, slots=True)
class NoteKind:
    """How one kind of note behaves.

    Attributes:
        claim: an open claim (hypothesis, question): it starts `open`, must carry a
            `review_at` 1-365 days out while open, and is closed as `confirmed` or
            `rejected` with a reason; other kinds are `active` until retired.
        meaning: what the kind holds, for documentation and tool descriptions.
    """

    claim: bool
    meaning: str


KINDS: dict[str, NoteKind] = {
    "decision": NoteKind(False, "what was decided, and why"),
    "hypothesis": NoteKind(True, "what might be true, and when to check it again"),
    "question": NoteKind(True, "what nobody here could answer yet"),
    "playbook": NoteKind(False, "how a kind of work is done well, step by step"),
    "learning": NoteKind(False, "what a run or a person learned"),
    "insight": NoteKind(False, "a pattern noticed across work"),
    "workaround": NoteKind(False, "how to get around a known problem"),
    "context": NoteKind(False, "background worth knowing"),
    "convention": NoteKind(False, "how things are done here"),
}
"""The note kinds (a registry, like graph/attributes.py): CONTRACT §13."""

CLAIM_STATUSES = ("open", "confirmed", "rejected", "retired")
"""Statuses of hypotheses and questions."""
PLAIN_STATUSES = ("active", "retired")
"""Statuses of every other kind."""
CLOSED = ("confirmed", "rejected")
"""How an open claim is closed (`POST /v1/notes/{id}/close`)."""

KNOWN_BY = ("told", "observed", "inferred")
"""How a note is known; `source_of` maps it onto fact sources (CONTRACT §10 Fact.source)."""

TIERS = ("short", "mid", "long")
"""Tiers of standing; `mid` is the default, storing the same content again moves a note up."""
DECAY = {"short": 0.30, "mid": 0.10, "long": 0.02}
"""Relevance lost at each session end, by tier (issue 15: short 30%, mid 10%, long 2%)."""
SHORT_LIFE = timedelta(hours=24)
"""A short-tier note older than this is retired (not deleted) at the next brief."""
RECENCY_HALF_LIFE_DAYS = 30.0
"""Recency halves every this many days since a note was last written or stored again."""

MAX_TITLE = 200
MAX_BODY = 4_000
MAX_EVIDENCE = 4_000
MAX_KEY = 200
MAX_PROJECT = 200
MAX_REASON = 1_000
REVIEW_DAYS = (1, 365)
"""A date to look again lies 1 to 365 calendar days (UTC) after the day it is written."""


def is_claim(kind: str) -> bool:
    """Whether notes of `kind` are claims (open until confirmed or rejected)."""
    spec = KINDS.get(kind)
    return spec is not None and spec.claim


def initial_status(kind: str) -> str:
    """The status a new note of `kind` starts with: `open` for claims, else `active`."""
    return "open" if is_claim(kind) else "active"


def source_of(known_by: str, via: str) -> str:
    """The fact source a note's `known_by` maps onto, for memory access (CONTRACT §7, §10).

    Args:
        known_by: `told`, `observed` or `inferred`.
        via: `rest` (REST, MCP and page writes) or `chat` (a run's messages).

    Returns:
        told: `user_edit` (REST) or `user_stated` (chat); observed: `integration:assistant`
        (the assistant observed it at work); inferred: `inferred`.
    """
    if known_by == "observed":
        return "integration:assistant"
    if known_by == "inferred":
        return "inferred"
    return "user_stated" if via == "chat" else "user_edit"


_SPACE = re.compile(r"\s+")
_EDGE = re.compile(r"^[\W_]+|[\W_]+$")


def norm(text: str | None) -> str | None:
    """The normalized form of a key, a project or content: NFKC, case-folded, white space
    collapsed, punctuation trimmed at both ends; None for None or nothing left."""
    if text is None:
        return None
    folded = _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()
    folded = _EDGE.sub("", folded)
    return folded or None


def content_norm(title: str, body: str | None) -> str:
    """The normalized content two notes are compared by ("the same normalized content"
    is stored once: issue 15): title and body, each `norm`ed."""
    return f"{norm(title) or ''}\n{norm(body) or ''}"


def next_tier(tier: str) -> str:
    """The tier a note moves up to when its content is stored again (long stays long)."""
    return TIERS[min(TIERS.index(tier) + 1, len(TIERS) - 1)] if tier in TIERS else "mid"


def relevance_now(base: float, tier: str, sessions_since: int) -> float:
    """A note's relevance after `sessions_since` session ends at its tier's decay rate.

    Args:
        base: the relevance when it was last set (1.0 when written or stored again).
        tier: `short`, `mid` or `long`.
        sessions_since: session ends since then (0 or more).

    Returns:
        `base * (1 - DECAY[tier]) ** sessions_since`, rounded to 6 places.
    """
    rate = DECAY.get(tier, DECAY["mid"])
    return round(base * (1.0 - rate) ** max(sessions_since, 0), 6)


def recency(updated: datetime, at: datetime) -> float:
    """How recent a note is at `at`: 1.0 when just written, halving every
    `RECENCY_HALF_LIFE_DAYS` days since `updated`, rounded to 4 places."""
    days = max((at - updated).total_seconds(), 0.0) / 86_400.0
    return round(float(0.5 ** (days / RECENCY_HALF_LIFE_DAYS)), 4)


@dataclass(frozen=True, slots=True)
class NoteRecord:
    """One version row of a note (CONTRACT §13), with its standing when a read joined it.

    Attributes:
        id: the version's row id (`nov_...`).
        note_id: the note's id across its versions (`nte_...`).
        owner: the owner who wrote this version (a group note's author).
        group_id: the group that owns the note (an organization's note), or None.
        kind: a key of `KINDS`.
        title, body, evidence: what it says and the evidence for it.
        known_by: `told`, `observed` or `inferred`; source: the fact source it maps to.
        confidence: 0..1.
        key: the key it is upserted by, or None; project: its project scope, or None.
        status: `open`/`confirmed`/`rejected`/`retired` (claims), `active`/`retired`.
        review_at: the date to look again, or None; closed_at, close_reason: how a claim
            was closed.
        first_learned_at: when the note was first written (kept by every replacement).
        valid_from, valid_to, recorded_at, retracted_at: the two axes (open = FAR_FUTURE).
        row_status: `active`, `superseded` (a later version replaced it) or `retired`.
        version: 1 for the first version, one more per replacement.
        run_id, chat_id, message_id: where it was said, for notes from chat.
        agent_id, experiment_id: which agent and experiment a learning came from.
        tier, relevance_base, relevance_session, stored: the note's standing (NoteHead),
            defaults when not joined.
        sessions: the owner's session count when read (for `relevance_now`).
        tier_since: when the tier was last set (short-tier expiry), or None.
    """

    id: str
    note_id: str
    owner: str
    group_id: str | None
    kind: str
    title: str
    body: str
    evidence: str | None
    known_by: str
    source: str
    confidence: float
    key: str | None
    project: str | None
    status: str
    review_at: datetime | None
    closed_at: datetime | None
    close_reason: str | None
    first_learned_at: datetime
    valid_from: datetime
    valid_to: datetime
    recorded_at: datetime
    retracted_at: datetime
    row_status: str
    version: int
    run_id: str | None = None
    chat_id: str | None = None
    message_id: str | None = None
    agent_id: str | None = None
    experiment_id: str | None = None
    tier: str = "mid"
    relevance_base: float = 1.0
    relevance_session: int = 0
    stored: int = 1
    sessions: int = 0
    tier_since: datetime | None = None

    @property
    def relevance(self) -> float:
        """The decayed relevance (`relevance_now`) as of the owner's session count read."""
        return relevance_now(self.relevance_base, self.tier, self.sessions - self.relevance_session)

    @property
    def updated(self) -> datetime:
        """When this version started (the note's last change), for recency."""
        return self.valid_from


@dataclass(frozen=True, slots=True)
class NoteDraft:
    """What a writer asks the committer to keep (validated by committer/rules/notes.py).

    Attributes:
        kind, title, body, evidence, known_by, confidence, key, project, review_at:
            as `NoteRecord` (review_at aware UTC or None).
        status: the status to write (None: `initial_status(kind)`).
        tier: the tier of a new note (`mid` by default).
        group_id: write the note for this group (the writer must be a member), or None.
        source: the fact source (see `source_of`).
        run_id, chat_id, message_id, agent_id, experiment_id: provenance.
        valid_from: when it was said (a note from a message holds from the message's time,
            like a fact); None: from the commit time. Dates to look again count from it.
    """

    kind: str
    title: str
    body: str = ""
    evidence: str | None = None
    known_by: str = "told"
    confidence: float = 1.0
    key: str | None = None
    project: str | None = None
    review_at: datetime | None = None
    status: str | None = None
    tier: str = "mid"
    group_id: str | None = None
    source: str = "user_edit"
    run_id: str | None = None
    chat_id: str | None = None
    message_id: str | None = None
    agent_id: str | None = None
    experiment_id: str | None = None
    valid_from: datetime | None = None
