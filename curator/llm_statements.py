"""What the optional LLM extractor reads back: statements, validated strictly, and the
proposals they become (CONTRACT §3, §4). Pure: no endpoint, no store.

A statement is dropped (and logged without its text) when it is invalid, when its evidence
is not a quote of its message, or when it looks like a secret. Source follows the message's
role: `user` gives `user_stated` (or `inferred`), any other role `untrusted`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, field_validator

from committer.proposals import EntityRef, Proposal, Provenance
from committer.secrets import looks_secret
from graph.attributes import REGISTRY
from graph.errors import InvalidInput
from graph.time import to_utc

_SNAKE = re.compile(r"[a-z][a-z0-9_]{0,39}")
"""An attribute the registry does not know is kept only if it is short snake_case."""

_KIND = re.compile(r"[a-z][a-z0-9_]{0,29}")

_Text = Annotated[str, Field(min_length=1, max_length=200)]
"""A text value: 1 to 200 characters once stripped."""


class Statement(BaseModel):
    """One statement of the completion, validated strictly; invalid ones are dropped."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    message_index: int = Field(strict=True, ge=0)
    subject: str | None = Field(default=None, min_length=1, max_length=120)
    subject_kind: str = "person"
    op: Literal["assert", "end"] = "assert"
    attribute: str
    value: _Text | int | float | bool | None = None
    object: str | None = Field(default=None, min_length=1, max_length=120)
    object_kind: str = "person"
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    confidence: float = Field(strict=True, ge=0.0, le=1.0)
    evidence: str = Field(min_length=1, max_length=1000)
    reason: str | None = Field(default=None, max_length=500)
    inferred: bool = Field(default=False, strict=True)

    @field_validator("attribute")
    @classmethod
    def _attribute(cls, v: str) -> str:
        if v not in REGISTRY and not _SNAKE.fullmatch(v):
            raise ValueError("attribute must be a registry name or short snake_case")
        return v

    @field_validator("subject_kind", "object_kind", mode="before")
    @classmethod
    def _kind(cls, v: Any) -> Any:
        if v is None:
            return "person"
        if not isinstance(v, str) or not _KIND.fullmatch(v.strip().lower()):
            raise ValueError("kind must be a short lower-case word")
        return v.strip().lower()

    @field_validator("valid_from", "valid_to", mode="before")
    @classmethod
    def _timestamp(cls, v: Any) -> Any:
        # RFC 3339 text only: pydantic would read a number as Unix time in UTC.
        if v is not None and not isinstance(v, str):
            raise ValueError("a timestamp is RFC 3339 text with an offset")
        return v

    def check(self) -> None:
        """Raise ValueError when the fields do not make one assertion (CONTRACT §2.1).

        An `assert` has exactly one of value and object; an `end` at most one (none: the
        attribute ended whatever its value). Windows are half-open and before `LATEST`.
        """
        both = self.value is not None and self.object is not None
        if both or (self.op == "assert" and self.value is None and self.object is None):
            raise ValueError("an assertion has exactly one of value and object")
        try:
            for name in ("valid_from", "valid_to"):
                if (when := getattr(self, name)) is not None:
                    to_utc(when, name)
        except InvalidInput as exc:
            raise ValueError(str(exc)) from None
        if self.valid_from and self.valid_to and self.valid_to <= self.valid_from:
            raise ValueError("valid_to must come after valid_from")


@dataclass(frozen=True, slots=True)
class Message:
    """One message of the run as the model sees it: its index, id, role, speaker, text and
    time (aware; the offset is kept, days are the speaker's)."""

    index: int
    id: str | None
    role: str
    speaker: str | None
    text: str
    at: datetime


def _field(raw: Mapping[str, Any] | Any, name: str) -> Any:
    return raw.get(name) if isinstance(raw, Mapping) else getattr(raw, name, None)


def read_messages(messages: Iterable[Mapping[str, Any] | Any]) -> list[Message]:
    """Read a run's messages (mappings or objects with `id, role, speaker, text, at`).

    Raises:
        NaiveTimestamp: a message time without an offset (CONTRACT §2).
    """
    out = []
    for index, raw in enumerate(messages):
        at = _field(raw, "at")
        if isinstance(at, str):
            at = datetime.fromisoformat(at)
        to_utc(at, "at")  # validates; the offset is kept (days are the speaker's)
        role, text = str(_field(raw, "role") or ""), _field(raw, "text") or ""
        out.append(Message(index, _field(raw, "id"), role, _field(raw, "speaker"), text, at))
    return out


_PLAIN = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
_SPACE = re.compile(r"\s+")


def _plain(text: str) -> str:
    """Text compared for quoting: typographic quotes made plain, white space collapsed."""
    return _SPACE.sub(" ", text.translate(_PLAIN)).strip()


def _quotes(evidence: str, text: str) -> bool:
    """Whether `evidence` is a quote of `text` (up to typographic quotes and white space)."""
    quote = _plain(evidence)
    return bool(quote) and quote in _plain(text)


def validate(item: Any, messages: Sequence[Message]) -> tuple[Statement, Message]:
    """Validate one raw statement against the run's messages.

    Returns:
        The statement and the message it quotes.

    Raises:
        ValueError: it must be dropped; the message says why, never what it said.
    """
    try:
        st = Statement.model_validate(item)
    except ValidationError as exc:
        # Only where and what: the input may hold message text (or a secret).
        problems = [(".".join(map(str, e["loc"])), e["type"]) for e in exc.errors()]
        raise ValueError(str(problems)) from None
    st.check()
    if st.message_index >= len(messages):
        raise ValueError("no such message")
    message = messages[st.message_index]
    if not _quotes(st.evidence, message.text):
        raise ValueError("evidence not in its message")
    texts = [st.evidence, st.reason, st.object, st.subject, st.value]
    if any(t is not None and not isinstance(t, bool) and looks_secret(str(t)) for t in texts):
        raise ValueError("looks like a secret")  # never proposed (CONTRACT §3)
    return st, message


def to_proposal(st: Statement, message: Message, run_id: str) -> Proposal:
    """The proposal of a valid statement: source from the message's role (CONTRACT §3)."""
    if message.role == "user":
        source = "inferred" if st.inferred else "user_stated"
    else:
        source = "untrusted"  # assistant, tool, document, web page ... (CONTRACT §3)
    if st.subject is not None:
        subject = EntityRef(name=st.subject, kind=st.subject_kind)
    elif message.role == "user" and message.speaker:
        subject = EntityRef(name=message.speaker, kind="person")
    else:
        subject = EntityRef()  # the owner's own person entity
    obj = EntityRef(name=st.object, kind=st.object_kind) if st.object is not None else None
    return Proposal(
        id=proposal_id_of(run_id, st, subject),
        op=st.op,
        subject=subject,
        attribute=st.attribute,
        value=st.value,
        object=obj,
        valid_from=st.valid_from or message.at,
        valid_to=st.valid_to if st.op == "assert" else None,
        type="llm",
        provenance=Provenance(
            source=source,
            evidence=st.evidence,
            reason=st.reason or "extracted by the LLM extractor",
            confidence=st.confidence,
            run_id=run_id,
            message_id=message.id,
        ),
    )


def proposal_id_of(run_id: str, st: Statement, subject: EntityRef) -> str:
    """sha256 over run, message index, subject, op, attribute, value or object, window."""
    value = f"@{st.object}" if st.object is not None else json.dumps(st.value)
    who = subject.name
    parts = (run_id, st.message_index, who, st.op, st.attribute, value, st.valid_from, st.valid_to)
    key = "llm|" + "|".join("" if part is None else str(part) for part in parts)
    return hashlib.sha256(key.encode()).hexdigest()[:24]
