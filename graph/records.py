"""Internal rows (STYLE: "Records inside, pydantic at the edges").

Every row carries its `owner`. Datetimes are aware UTC; open ends are `FAR_FUTURE`
here and become `None` only at the API edge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.fields import Scalar


@dataclass(frozen=True, slots=True)
class EntityRecord:
    """An entity node (CONTRACT §10 "Entity")."""

    id: str
    owner: str
    name: str
    kind: str
    aliases: tuple[str, ...]
    area: str | None
    merged_into: str | None
    archived: bool
    created_at: datetime
    merged_at: datetime | None = None
    """When it was merged into `merged_into` (CONTRACT §5), or None."""
    names_since: datetime | None = None
    """When its current name and aliases were recorded (None: since `created_at`); reads
    with an earlier `known_at` see the names it had then (graph/cypher/lifecycle.py)."""
    archived_at: datetime | None = None
    """While `archived`: when a full integration sync stopped reporting it (CONTRACT §5)."""


@dataclass(frozen=True, slots=True)
class FactRecord:
    """One fact version, a "row" (CONTRACT §2, §10 "Fact").

    Immutable except `retracted_at`, which the committer sets at most once.
    """

    id: str
    owner: str
    entity_id: str
    attribute: str
    value: Scalar | None
    object_id: str | None
    value_norm: str
    cardinality: str
    valid_from: datetime
    valid_to: datetime
    recorded_at: datetime
    retracted_at: datetime
    status: str
    source: str
    evidence: str | None
    reason: str | None
    confidence: float
    run_id: str | None
    message_id: str | None
    speaker_id: str | None = None
    """Who said it: the person entity speaking in the message it was drawn from (the owner's
    own entity for the owner's words), or None when it came from no message of a run (REST,
    an integration) or was recorded before speakers were kept (CONTRACT §12)."""


@dataclass(frozen=True, slots=True)
class EpisodeRecord:
    """One message of a curated run, kept as said (CONTRACT §12 "Episodes").

    Immutable except `retracted_at` (set once, when the person forgets it). Visible at
    `(valid_at, known_at)` when `said_at <= valid_at` and `recorded_at <= known_at <
    retracted_at`.

    Attributes:
        id: `epi_` + 24 hex digits, derived from (owner, run id, seq, part): the same
            message of the same run always has the same id.
        owner: the owner id.
        chat_id: the run's chat.
        run_id: the run it came from.
        message_id: the message's id in the run, or None when the run gave none.
        seq: the message's position in the run (from 0).
        part: `own` (the speaker's own words) or `pasted` (text pasted into a user
            message: not the speaker's words).
        surface: where the run ran, or None.
        role: `user`, `assistant`, `tool`, `document` or `system`.
        speaker_id: the person entity speaking (a `user` message's speaker, else the
            owner's own entity), or None for assistant, tool and document text.
        speaker: that entity's name (as read), or None.
        text: what was said, every sentence carrying a credential replaced by
            `[redacted]` before it reached the store.
        said_at: the message's time, aware UTC.
        source: `user_stated` (the person's own words) or `untrusted` (assistant,
            tool, document or pasted text), as the curator rates the same words.
        recorded_at: the commit that wrote it, aware UTC.
        retracted_at: when it was forgotten (`FAR_FUTURE` while kept).
    """

    id: str
    owner: str
    chat_id: str
    run_id: str
    message_id: str | None
    seq: int
    part: str
    surface: str | None
    role: str
    speaker_id: str | None
    speaker: str | None
    text: str
    said_at: datetime
    source: str
    recorded_at: datetime
    retracted_at: datetime


@dataclass(frozen=True, slots=True)
class RunRecord:
    """A finished assistant run handed to the curator (CONTRACT §4)."""

    id: str
    owner: str
    chat_id: str
    surface: str | None
    status: str
    payload: str
    proposals: int
    committed: int
    held: int
    error: str | None
    created_at: datetime
    attempts: int = 0
    """How many times the run was claimed and not handed back on purpose (CONTRACT §4)."""
    lease_owner: str | None = None
    """The worker id (host-pid-random) that claimed it last, or None if never claimed."""
    lease_until: datetime | None = None
    """While `curating`: when the claim lapses unless heartbeats extend it (aware UTC)."""
    retry_at: datetime | None = None
    """While `queued` after a release: not claimed before this instant (aware UTC)."""
    finished_by: str | None = None
    """The worker id that closed it (done, failed or skipped), or None."""
    releases: int = 0
    """How many times a worker handed it back to the queue (drives the retry backoff)."""
    stripe: int = 0
    """Its stripe of the queue, fixed at creation from its owner: every change of its
    status or lease takes that stripe's lock (graph/cypher/runs.py LOCK_STRIPE)."""
    finished_at: datetime | None = None
    """When a worker closed it (done, failed or skipped; aware UTC), or None while open."""


@dataclass(frozen=True, slots=True)
class MemoryAccess:
    """The memory access of a chat, or an owner's default (CONTRACT §7 "Per-chat memory access").

    Attributes:
        mode: `none` (clean room: nothing read, the curator never mines the chat),
            `restricted` (a fact must pass both lists; an empty list lets nothing
            through) or `full`.
        areas: the life areas a fact may come from when `restricted`.
        sources: the sources (`user_stated`, `integration:<name>`, ...) allowed when
            `restricted`.
        origin: where the setting comes from: `chat` (the chat's own), `profile` (the
            owner's default) or `default` (nothing set: `full`).
    """

    mode: str
    areas: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    origin: str = "default"


MEMORY_MODES = ("none", "restricted", "full")
"""The memory access modes of CONTRACT §7, most closed first."""


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """A bearer token, stored hashed (CONTRACT §7); the secret itself is never stored."""

    id: str
    owner: str
    scopes: tuple[str, ...]
    created_at: datetime | None = None
    revoked_at: datetime | None = None
    """When it was revoked (aware UTC), or None while it is live."""


@dataclass(frozen=True, slots=True)
class ShareRecord:
    """An entity shared with a group by its owner (CONTRACT §7), in transaction time:
    members see it while `shared_at <= known_at < unshared_at` (FAR_FUTURE when open)."""

    group_id: str
    entity_id: str
    owner: str
    shared_at: datetime
    unshared_at: datetime


@dataclass(frozen=True, slots=True)
class GroupRecord:
    """A group of owners that share entities (CONTRACT §7 "or to a group").

    Attributes:
        id: the group id.
        name: its display name.
        owner: the creator, the one who adds and removes members.
        created_at: aware UTC.
        members: owner ids of its current members, the creator first.
        shares: its live shares, oldest first.
    """

    id: str
    name: str
    owner: str
    created_at: datetime
    members: tuple[str, ...]
    shares: tuple[ShareRecord, ...]


def run_key(owner: str, run_id: str) -> str:
    """The stored key of a run: run ids are the client's, unique per owner (CONTRACT §4)."""
    return f"{owner}/{run_id}"


def chat_key(owner: str, chat_id: str) -> str:
    """The stored key of a chat: chat ids are the client's, unique per owner (CONTRACT §7)."""
    return f"{owner}/{chat_id}"


@dataclass(frozen=True, slots=True)
class ProposalRecord:
    """A stored proposal (CONTRACT §3, §10 "Proposal").

    `entity_id` is None (with `entity_name`) while the entity it is about is not known
    yet; `status` is `pending`, `kept`, `discarded` or `committed` (auto-committed).
    """

    id: str
    owner: str
    op: str
    status: str
    entity_id: str | None
    entity_name: str | None
    entity_kind: str
    attribute: str
    value: Scalar | None
    object_id: str | None
    object_name: str | None
    object_kind: str | None
    valid_from: datetime
    valid_to: datetime | None
    cardinality: str | None
    source: str
    type: str
    confidence: float
    evidence: str | None
    reason: str | None
    policy: str | None
    run_id: str | None
    chat_id: str | None
    message_id: str | None
    seq: int
    fact_id: str | None
    created_at: datetime
    decided_at: datetime | None
    note: str | None = None
    """The JSON of a note proposal's note (op `note`/`retire_note`, CONTRACT §13), or None."""
    note_id: str | None = None
    """The note a committed or kept note proposal kept or retired."""
    reply: str | None = None
    """The one-line answer to a note request: what was kept and where."""


@dataclass(frozen=True, slots=True)
class NotificationRecord:
    """Something said out loud to the person (CONTRACT §2.1 rule 5, §3, §10)."""

    id: str
    owner: str
    kind: str
    text: str
    chat_id: str | None
    proposal_id: str | None
    suggestion_id: str | None
    fact_ids: tuple[str, ...]
    at: datetime
    acknowledged_at: datetime | None
    seq: int = 0


@dataclass(frozen=True, slots=True)
class MergeSuggestionRecord:
    """ "Are these the same?" about two entities of one owner (CONTRACT §4, §10)."""

    id: str
    owner: str
    entity_ids: tuple[str, str]
    reason: str
    score: float
    status: str
    created_at: datetime
    decided_at: datetime | None


def event_key(owner: str, event_id: str) -> str:
    """The stored key of an event: event ids are unique per owner (a run's event id is its
    run id, a sync's its sync id: CONTRACT §10)."""
    return f"{owner}/{event_id}"


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One link of a cause-and-effect chain (CONTRACT §8).

    Attributes:
        id: the event id (a run's is its run id, a sync's its sync id).
        owner: the owner id.
        kind: `run`, `message`, `curation`, `proposal`, `decision`, `action`, `sync`
            or `commit`.
        at: when it happened, aware UTC (a message's own timestamp; else commit time).
        actor: who acted: a worker id (curation), `policy` (an automatic decision),
            `rest` or `chat:<id>` (the person), `integration:<name>`, `committer`.
        detail: the kind's own fields that are set (chat_id, run_id, message_id, role,
            proposal_id, attribute, policy, decision, action, integration,
            full_snapshot, entity_id, fact_id, target_id, suggestion_id).
    """

    id: str
    owner: str
    kind: str
    at: datetime
    actor: str | None
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class EffectRecord:
    """One thing a commit did, as reached from an event (CONTRACT §8 effects).

    Attributes:
        commit_id: the commit event that did it.
        at: its commit time, aware UTC.
        change: `wrote` (a row recorded), `ended` (a row retracted) or `changed` (an
            entity archived, unarchived, merged or split off).
        op: what it was: created, remainder, restored (wrote); superseded, coalesced,
            invalidated, retracted, moved (ended); archived, unarchived, merged, split
            (changed).
        cause_id: the decision, action or sync the commit did it for.
        entity_id: the row's entity, or the entity changed, or the speaker of an episode
            (None for an episode of no person).
        fact: the row (None for an entity change or an episode).
        episode: the episode forgotten (op `forgotten`), else None (CONTRACT §12).
    """

    commit_id: str
    at: datetime
    change: str
    op: str
    cause_id: str
    entity_id: str | None
    fact: FactRecord | None
    episode: EpisodeRecord | None = None
