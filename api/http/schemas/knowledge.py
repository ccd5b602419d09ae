"""Request and response models of knowledge documents, the gated `remember` and its access
log (CONTRACT §14). Bounds are graph.held's, stated once."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from graph.fields import RequestModel, UtcDatetime
from graph.held import (
    MAX_DOC_BODY,
    MAX_DOC_DESCRIPTION,
    MAX_TOPIC,
    AccessLogRecord,
    DocumentRecord,
)
from graph.time import shown_end

MAX_REASON = 1_000
MAX_SURFACE = 50
GroupField = Field(default=None, min_length=1, max_length=200)


class DocumentPut(RequestModel):
    """`PUT /v1/knowledge/{name}` body: the whole document (a new version)."""

    description: str = Field(default="", max_length=MAX_DOC_DESCRIPTION)
    body: str = Field(max_length=MAX_DOC_BODY)
    reason: str | None = Field(default=None, max_length=MAX_REASON)


class RestoreIn(RequestModel):
    """`POST /v1/knowledge/{name}/restore` body: the version to bring back."""

    version: int = Field(ge=1, le=2**31)
    reason: str | None = Field(default=None, max_length=MAX_REASON)


class RememberIn(RequestModel):
    """`POST /v1/knowledge/remember` body. Bounds of `topic` and `content` are checked by
    the gate (committer/remember.py), so an attempt out of bounds is logged too."""

    topic: str = Field(max_length=MAX_TOPIC * 10)
    content: str = Field(max_length=MAX_DOC_BODY * 2)
    group: str | None = GroupField
    surface: str | None = Field(default=None, max_length=MAX_SURFACE)
    description: str | None = Field(default=None, max_length=MAX_DOC_DESCRIPTION)


class DocumentSummary(BaseModel):
    """A document in a listing: never its body."""

    name: str
    group: str | None
    description: str
    version: int
    chars: int
    author: str
    source: str
    recorded_at: UtcDatetime

    @classmethod
    def of(cls, d: DocumentRecord) -> DocumentSummary:
        """Build from an internal record."""
        return cls(
            name=d.name,
            group=d.group_id,
            description=d.description,
            version=d.version,
            chars=d.chars,
            author=d.author,
            source=d.source,
            recorded_at=d.recorded_at,
        )


class _Version(DocumentSummary):
    """What every version of a document says about why it reads so."""

    reason: str | None
    path: str | None
    restored_from: int | None
    event_id: str | None
    retracted_at: UtcDatetime | None

    @staticmethod
    def fields_of(d: DocumentRecord) -> dict[str, Any]:
        """The summary's fields and the version's own, from an internal record."""
        return {
            **DocumentSummary.of(d).model_dump(),
            "reason": d.reason,
            "path": d.path,
            "restored_from": d.restored_from,
            "event_id": d.cause,
            "retracted_at": shown_end(d.retracted_at),
        }


class DocumentPublic(_Version):
    """A whole document (one version): its body, and why it reads so."""

    body: str

    @classmethod
    def of(cls, d: DocumentRecord) -> DocumentPublic:
        """Build from an internal record."""
        return cls(**cls.fields_of(d), body=d.body)


class VersionPublic(_Version):
    """One version in a document's history: who changed it, why, and when it stopped being
    current (`retracted_at`, null for the current one); a retirement has `retired: true`."""

    retired: bool

    @classmethod
    def of(cls, d: DocumentRecord) -> VersionPublic:
        """Build from an internal record."""
        return cls(**cls.fields_of(d), retired=d.retired)


class DocumentList(BaseModel):
    """`GET /v1/knowledge`: names and descriptions, by name."""

    items: list[DocumentSummary]
    next: str | None = None


class VersionList(BaseModel):
    """`GET /v1/knowledge/{name}/versions`: every version, oldest first."""

    items: list[VersionPublic]
    next: str | None = None


class DocumentWrite(BaseModel):
    """A write's answer: the current version, and whether this call recorded it."""

    document: DocumentPublic
    changed: bool


class AccessLogPublic(BaseModel):
    """One attempt of the gated `remember` (never its content)."""

    id: str
    owner: str
    token_id: str | None
    surface: str | None
    group: str | None
    topic: str
    outcome: str
    reason: str
    document: str | None
    version: int | None
    at: UtcDatetime

    @classmethod
    def of(cls, a: AccessLogRecord) -> AccessLogPublic:
        """Build from an internal record."""
        return cls(
            id=a.id,
            owner=a.owner,
            token_id=a.token_id,
            surface=a.surface,
            group=a.group_id,
            topic=a.topic,
            outcome=a.outcome,
            reason=a.reason,
            document=a.document,
            version=a.version,
            at=a.at,
        )


class AccessLogList(BaseModel):
    """`GET /v1/access-log`: entries, newest first."""

    items: list[AccessLogPublic]
    next: str | None = None


class RememberOut(BaseModel):
    """`POST /v1/knowledge/remember`: the document written and the attempt's log entry."""

    document: DocumentPublic
    access: AccessLogPublic
