"""What callers hand the committer: assertions and proposals (CONTRACT §2.1, §3).

An `Assertion` names a known entity by id; a `Proposal` (from the curator) may name
entities by name, and the committer resolves or creates them.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from graph.fields import Scalar

Source = str
"""`user_stated`, `user_edit`, `integration:<name>`, `inferred` or `untrusted` (CONTRACT §10)."""


class Provenance(BaseModel):
    """Why a row exists (CONTRACT §1): who said it, what caused it, the evidence."""

    model_config = ConfigDict(frozen=True)

    source: Source = "user_edit"
    evidence: str | None = None
    reason: str | None = None
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    run_id: str | None = None
    message_id: str | None = None
    speaker_id: str | None = None
    """The person entity who said it (set by the committer from the message's episode,
    CONTRACT §12); None for what no message said."""


class Assertion(BaseModel):
    """N = (entity, attribute, value, [valid_from, valid_to)) (CONTRACT §2.1).

    Exactly one of `value` and `object_id` is set. Datetimes are aware; `valid_to=None`
    is open. `valid_from=None` means "the commit time". `status` is the status the row
    takes where its own end stands: `active`, except for a row a merge or split moves,
    which keeps its own (CONTRACT §5). `near_duplicates`: a near-duplicate value of a
    `many` attribute corroborates the row that covers it (for what a person said in chat;
    `committer.rules.normalize.near_duplicate`); REST, merges, splits and syncs compare
    values exactly.
    """

    model_config = ConfigDict(frozen=True)

    entity_id: str
    attribute: str
    value: Scalar | None = None
    object_id: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    cardinality: Literal["one", "many"] | None = None
    provenance: Provenance = Provenance()
    status: Literal["active", "superseded", "invalidated"] = "active"
    near_duplicates: bool = False


class EntityRef(BaseModel):
    """An entity named by a proposal: by id, or by name and kind (resolved by the committer)."""

    model_config = ConfigDict(frozen=True)

    id: str | None = None
    name: str | None = None
    kind: str = "person"


class NoteProposal(BaseModel):
    """The note a proposal keeps (op `note`), or the words that name the note to retire
    (op `retire_note`: `title` holds them, "the old pricing page"). CONTRACT §13; the
    committer checks it like any note (committer/rules/notes.py)."""

    model_config = ConfigDict(frozen=True)

    kind: str = "context"
    title: str
    body: str = ""
    key: str | None = None
    project: str | None = None
    review_at: datetime | None = None
    tier: str = "mid"


class Proposal(BaseModel):
    """A candidate change from the curator (CONTRACT §3).

    `op="assert"` proposes the fact; `op="end"` says a current fact of `attribute`
    (with `value`, or any value when `value` is None) stopped holding at `valid_from`.
    `op="note"` proposes the note `note` (attribute `note`, value its title; CONTRACT §13),
    `op="retire_note"` retiring the note `note.title` names.
    `subject=None` names the owner's own person entity (or the message's speaker,
    which the curator fills in).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    op: Literal["assert", "end", "note", "retire_note"] = "assert"
    subject: EntityRef
    attribute: str
    value: Scalar | None = None
    object: EntityRef | None = None
    valid_from: datetime
    valid_to: datetime | None = None
    cardinality: Literal["one", "many"] | None = None
    type: str
    provenance: Provenance
    note: NoteProposal | None = None


NOTE_OPS = ("note", "retire_note")
"""Proposal ops that keep or retire notes instead of facts."""


PRIVILEGED = "privileged category"
"""The risk rule (curator/policy.py) that holds a privileged statement (health, finances,
credentials: CONTRACT §3). The message it was drawn from is filed withheld: what was said
there is not pushed or found (prefetch, search) while the statement waits for a yes, nor
after (committer/episodes.py)."""


class Reviewed(BaseModel):
    """A proposal with the curator's risk decision (CONTRACT §3).

    `action="commit"`: clear and low-risk, the committer writes it now. `action="hold"`:
    it waits, pending, for the person to keep or discard it. `policy` names the rule of
    the risk table that decided (curator.policy).
    """

    model_config = ConfigDict(frozen=True)

    proposal: Proposal
    action: Literal["commit", "hold"]
    policy: str


class Said(BaseModel):
    """One message of a run as the curator hands it over to be kept as an episode
    (CONTRACT §12): what the committer stores, already cleared of secrets.

    Attributes:
        seq: the message's position in the run (from 0).
        part: `own` (the speaker's own words) or `pasted` (text pasted into a user
            message, not the speaker's words).
        message_id: the message's id in the run, or None.
        role: the message's role.
        speaker: the name the run gives the speaker (a `user` message's `speaker`), or
            None (the owner for a `user` message; nobody's for other roles).
        text: the words, each sentence carrying a credential already replaced by
            `[redacted]` (the committer never sees a secret).
        said_at: the message's time, aware.
        source: `user_stated` (the person's own words) or `untrusted` (assistant, tool,
            document or pasted text), as the curator rates the same words (CONTRACT §3).
    """

    model_config = ConfigDict(frozen=True)

    seq: int = Field(ge=0)
    part: Literal["own", "pasted"] = "own"
    message_id: str | None = None
    role: str
    speaker: str | None = None
    text: str
    said_at: datetime
    source: Literal["user_stated", "untrusted"]


class Candidate(BaseModel):
    """A pair of entities the curator thinks may be one (CONTRACT §4 merge suggestions)."""

    model_config = ConfigDict(frozen=True)

    entity_ids: tuple[str, str]
    reason: str
    score: float = Field(ge=0.0, le=100.0)


def pair_key(owner: str, a: str, b: str) -> str:
    """The stored key of a suggested pair: the owner and the two entity ids, order-free."""
    first, second = sorted((a, b))
    return hashlib.sha256(f"{owner}|{first}|{second}".encode()).hexdigest()
