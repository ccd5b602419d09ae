"""Rows of what an owner or a group holds besides facts: knowledge documents, workflow state,
the access log of `remember`, usage records (CONTRACT §14; STYLE "Records inside").

A document or a state value is held by a `Holder`: one owner, or one group (a team's shared
knowledge and state, read by its members). Versions of documents and values are immutable
in transaction time (`recorded_at`, `retracted_at`, open ends `FAR_FUTURE`), like fact rows
(CONTRACT §2): an edit records a new version and retracts the one before. Datetimes are
aware UTC.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime

MAX_DOC_NAME = 200
"""A document's name (characters; CONTRACT §14, issue 16 bounds)."""
MAX_DOC_BODY = 100_000
"""A document's Markdown body (characters)."""
MAX_DOC_DESCRIPTION = 1_000
"""A document's one-paragraph description (characters)."""
MAX_DOCS = 1_000
"""Live documents per owner or per group."""
MAX_STATE_BYTES = 64 * 1024
"""A workflow state value, as compact UTF-8 JSON (bytes)."""
MAX_STATE_KEY = 200
"""A state key and a workflow name (characters)."""
MAX_TOPIC = 200
"""A `remember` topic (characters)."""


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds a document or a state value: an owner, or a group (CONTRACT §14).

    Attributes:
        owner: the owner id of an owner's own holder, else None.
        group_id: the group's id, else None.
    """

    owner: str | None = None
    group_id: str | None = None

    @property
    def key(self) -> str:
        """The stored `holder` property: `owner:<id>` or `group:<id>`."""
        return f"group:{self.group_id}" if self.group_id else f"owner:{self.owner}"

    @classmethod
    def of(cls, owner: str, group_id: str | None) -> Holder:
        """The group's holder when `group_id` is given, else the owner's own."""
        return cls(group_id=group_id) if group_id else cls(owner=owner)


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    """One version of a knowledge document (CONTRACT §14).

    Attributes:
        id: the version's id.
        holder: `owner:<id>` or `group:<id>`.
        group_id: the holding group, or None for an owner's own document.
        name: path-like slug, e.g. `billing/edge-cases`.
        version: 1, 2, ... per document; a retirement is a version too.
        description: one paragraph; "" for a retirement.
        body: Markdown; "" for a retirement.
        retired: this version retires the document (a file removed, a DELETE).
        recorded_at, retracted_at: transaction time (FAR_FUTURE while current).
        author: the owner who made the change.
        source: `edit` (REST), `sync` (a folder sync), `remember`, `restore`.
        reason: why, in words.
        path: the file it came from (sync), else None.
        cause: the id of the event that made it (an action or a sync, CONTRACT §8).
        restored_from: the version a restore copied, else None.
        digest: sha256 of description and body (a sync compares it).
        chars: the body's length in characters (a listing reads no body).
    """

    id: str
    holder: str
    group_id: str | None
    name: str
    version: int
    description: str
    body: str
    retired: bool
    recorded_at: datetime
    retracted_at: datetime
    author: str
    source: str
    reason: str | None
    path: str | None
    cause: str | None
    restored_from: int | None
    digest: str
    chars: int = 0


@dataclass(frozen=True, slots=True)
class StateRecord:
    """One version of a workflow state value (CONTRACT §14).

    Attributes:
        id: the version's id.
        holder: `owner:<id>` or `group:<id>`.
        group_id: the holding group, or None.
        workflow, key: what the value is of.
        version: 1, 2, ... per (holder, workflow, key), never reused (a delete is a
            version too), so `If-Match` cannot be fooled by a key deleted and set again.
        value: the JSON text; None for a deletion.
        deleted: this version deletes the value.
        recorded_at, retracted_at: transaction time.
        author: the owner who wrote it.
        idempotency_key: the key the write carried, or None.
        digest: sha256 of what the write asked (an idempotent retry must ask the same).
        cause: the action event that made it.
    """

    id: str
    holder: str
    group_id: str | None
    workflow: str
    key: str
    version: int
    value: str | None
    deleted: bool
    recorded_at: datetime
    retracted_at: datetime
    author: str
    idempotency_key: str | None
    digest: str
    cause: str | None


@dataclass(frozen=True, slots=True)
class AccessLogRecord:
    """One attempt to call the gated `remember` (CONTRACT §14), allowed or refused.

    Attributes:
        id: the entry's id.
        owner: the caller's owner.
        token_id: the caller's token id, or None (the command line).
        surface: the surface the call came from, or None.
        group_id: the group it was for, or None when none could be chosen.
        topic: the topic asked for (never the content).
        outcome: `allowed` or `refused`.
        reason: why: `ok`, or the refusal (`scope`, `surface`, `not_member`,
            `no_curator`, `invalid`, `limit`).
        document: the name written (`learned/<slug>`) when allowed, else None.
        version: the version written when allowed, else None.
        at: when it was recorded (transaction time).
    """

    id: str
    owner: str
    token_id: str | None
    surface: str | None
    group_id: str | None
    topic: str
    outcome: str
    reason: str
    document: str | None
    version: int | None
    at: datetime


@dataclass(frozen=True, slots=True)
class UsageRecord:
    """One turn's usage (never its content).

    Attributes:
        id: the record's id (the caller's, for an idempotent retry, or a new one).
        owner: the owner.
        at: when the turn happened.
        surface, chat_id, model: where and with what.
        input_tokens, output_tokens: token counts.
        cost: estimated cost (the caller's currency unit, e.g. USD).
        duration_ms: how long the turn took.
        recorded_at: when it was stored.
    """

    id: str
    owner: str
    at: datetime
    surface: str | None
    chat_id: str | None
    model: str | None
    input_tokens: int
    output_tokens: int
    cost: float
    duration_ms: int
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class UsageSum:
    """Usage summed over one group (a surface, a model or a UTC day)."""

    key: str | None
    turns: int
    input_tokens: int
    output_tokens: int
    cost: float
    duration_ms: int


RESERVED_LAST = ("versions", "restore")
"""Last segments a document name may not have: the routes `/v1/knowledge/{name}/versions`
and `/restore` would read them as a document's sub-resource."""
NAME_RULE = re.compile(r"^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$")
"""A document name: lower-case path segments of letters, digits, `.`, `_`, `-`, joined by
`/`, each starting with a letter or digit (no `..`, no empty segment)."""


def name_problem(name: str) -> str | None:
    """What is wrong with a document name, or None when it is valid (CONTRACT §14 bounds)."""
    if not name or len(name) > MAX_DOC_NAME:
        return f"must be 1 to {MAX_DOC_NAME} characters"
    if not NAME_RULE.fullmatch(name):
        return (
            "a path-like slug: lower-case segments of letters, digits, '.', '_' or '-' "
            "joined by '/', e.g. billing/edge-cases"
        )
    if name.rsplit("/", 1)[-1] in RESERVED_LAST:
        return f"the last segment may not be {' or '.join(RESERVED_LAST)}"
    return None


def slug(text: str, room: int = MAX_DOC_NAME) -> str:
    """A name segment for `text` (a `remember` topic): accents folded, lower case, runs of
    anything but letters and digits as one `-`, at most `room` characters; "" when nothing
    is left."""
    folded = unicodedata.normalize("NFKD", text)
    ascii_text = folded.encode("ascii", "ignore").decode().lower()
    out = re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")
    return out[:room].rstrip("-")


_WORD = re.compile(r"[^\W_]+")


def doc_words(text: str) -> list[str]:
    """The words of a name, a description or a message, as the `knowledge_words` index sees
    them: runs of letters and digits, accents and case folded, each once, in order."""
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).casefold()
    return list(dict.fromkeys(_WORD.findall(folded)))


def search_text(name: str, description: str) -> str:
    """What the pointer's full-text index holds of a document: its name's words (`billing/
    edge-cases` -> `billing edge cases`) and its description."""
    return " ".join(doc_words(name)) + "\n" + description
