"""The gated `remember(topic, content)`: a learning saved as a group's knowledge document
`learned/<slug of topic>`, by curators only, from allowed surfaces, every attempt logged
(CONTRACT §14).

A part of `committer.apply.Committer`. One attempt is one write transaction: the access-log
entry is recorded in it whatever the outcome, with the document's new version when allowed.
A refusal commits its log entry and then raises; the content of a refused call is never
stored (the log has no field for content).

The gate, in order (the first that fails names the reason):

| reason | refused when | answer |
|---|---|---|
| `scope` | the token has neither `curate` nor `admin` | 403 |
| `surface` | the surface is restricted (default slack, whatsapp, telegram) or missing | 403 |
| `invalid` | topic or content out of bounds, or no group given and not exactly one | 422 |
| `not_member` | the group is not one the owner belongs to now (or does not exist) | 404 |
| `no_curator` | no current member holds a live token with the `curate` scope itself | 403 |
| `limit` | a new document past the group's 1,000 | 409 |

`allowed` entries have the reason `ok` and name the document and version written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from committer.base import CommitterBase
from committer.holders import Author, Opened
from committer.knowledge import room_for_one, version_map, write_versions
from committer.owners import ensure_owner
from committer.secrets import REDACTED, looks_secret, secret_field
from graph.errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    SecretRefused,
    WorldstateError,
)
from graph.held import (
    MAX_DOC_BODY,
    MAX_DOC_NAME,
    MAX_TOPIC,
    AccessLogRecord,
    DocumentRecord,
    Holder,
    slug,
)
from graph.time import utcnow
from graph.write.writer import WriteTx, new_id

PREFIX = "learned/"
"""Where `remember` writes in the group's documents."""
DEFAULT_RESTRICTED = ("slack", "whatsapp", "telegram")


@dataclass(frozen=True, slots=True)
class SurfacePolicy:
    """Which surfaces may call `remember` (settings `WORLDSTATE_REMEMBER_RESTRICTED_SURFACES`,
    `WORLDSTATE_REMEMBER_ALLOW_NO_SURFACE`).

    Attributes:
        restricted: surfaces refused (compared case-insensitively).
        allow_no_surface: whether a call that names no surface is let through.
    """

    restricted: frozenset[str] = frozenset(DEFAULT_RESTRICTED)
    allow_no_surface: bool = False

    @classmethod
    def of(cls, restricted: Iterable[str], allow_no_surface: bool) -> SurfacePolicy:
        """Build from settings."""
        return cls(frozenset(s.strip().lower() for s in restricted), allow_no_surface)

    def allows(self, surface: str | None) -> bool:
        """Whether a call from `surface` may write."""
        if surface is None or not surface.strip():
            return self.allow_no_surface
        return surface.strip().lower() not in self.restricted


@dataclass(frozen=True, slots=True)
class RememberCall:
    """One call of the gated `remember`.

    Attributes:
        owner: the caller's owner.
        token_id: the caller's token id (None from the command line).
        scopes: the token's scopes.
        surface: the surface the request came from, or None.
        group_id: the group to write to, or None: the owner's only group.
        topic: what the learning is about (becomes the document's name).
        content: the learning, Markdown (the document's body).
        description: a one-line description; default the topic.
    """

    owner: str
    token_id: str | None
    scopes: frozenset[str]
    surface: str | None
    group_id: str | None
    topic: str
    content: str
    description: str | None = None


@dataclass(frozen=True, slots=True)
class RememberOutcome:
    """What one call did: its access-log entry, and the version written when allowed."""

    entry: AccessLogRecord
    document: DocumentRecord | None
    error: WorldstateError | None = field(default=None, compare=False)


def _refusal(reason: str, call: RememberCall, group_id: str | None) -> WorldstateError:
    """The error a refused call raises, after its log entry is committed."""
    match reason:
        case "scope":
            return Forbidden("remember refused (scope): this token lacks the 'curate' scope.")
        case "surface":
            where = f"from {call.surface!r}" if call.surface else "without a surface"
            return Forbidden(f"remember refused (surface): calls {where} may not save knowledge.")
        case "not_member":
            return NotFound("group", group_id or "")
        case "no_curator":
            return Forbidden(
                "remember refused (no_curator): no member of this group holds the 'curate' "
                "scope, so it accepts no learnings."
            )
    raise AssertionError(reason)  # pragma: no cover - every reason is matched above


def _precheck(call: RememberCall, policy: SurfacePolicy) -> tuple[str, WorldstateError] | None:
    """The checks that need no store: scope, surface, bounds."""
    if "curate" not in call.scopes and "admin" not in call.scopes:
        return "scope", _refusal("scope", call, None)
    if not policy.allows(call.surface):
        return "surface", _refusal("surface", call, None)
    room = MAX_DOC_NAME - len(PREFIX)
    if not call.topic.strip() or len(call.topic) > MAX_TOPIC or not slug(call.topic, room):
        return "invalid", InvalidInput(
            "topic", f"1 to {MAX_TOPIC} characters, with at least one letter or digit"
        )
    if not call.content.strip() or len(call.content) > MAX_DOC_BODY:
        return "invalid", InvalidInput("content", f"1 to {MAX_DOC_BODY} characters")
    found = secret_field(
        {"topic": call.topic, "content": call.content, "description": call.description}
    )
    if found is not None:  # logged as `invalid`, its topic redacted when it holds the secret
        return "invalid", SecretRefused(found)
    return None


class RememberCommands(CommitterBase):
    """The gated `remember` and its access log."""

    def remember_learning(self, call: RememberCall, policy: SurfacePolicy) -> RememberOutcome:
        """Run the gate and, when it passes, save `learned/<slug of topic>` in the group
        (replacing an earlier learning on the same topic in full, as a new version); log
        the attempt either way.

        Returns:
            The allowed outcome (entry and document).

        Raises:
            Forbidden: refused for `scope`, `surface` or `no_curator` (logged).
            NotFound: `not_member` (logged; an unknown group looks the same).
            InvalidInput: `invalid` (logged), naming `topic`, `content` or `group`; a
                `SecretRefused` for a credential in the topic, content or description
                (logged without it: a topic that holds it is logged as `[redacted]`).
            Conflict: `limit` (logged).
        """
        early = _precheck(call, policy)
        name = PREFIX + slug(call.topic, MAX_DOC_NAME - len(PREFIX))

        def work(w: WriteTx) -> RememberOutcome:
            group_id = call.group_id
            failed = early
            t = utcnow()  # a refusal that needs no store takes no lock: only its entry
            if failed is None:
                ensure_owner(w, call.owner)
                t = w.begin_commit(call.owner, t)
            if failed is None and group_id is None:
                mine = w.groups_now(call.owner)
                if len(mine) == 1:
                    group_id = mine[0]
                else:
                    failed = (
                        "invalid",
                        InvalidInput(
                            "group", f"name the group: the owner belongs to {len(mine)} groups"
                        ),
                    )
            opened = None
            if failed is None:
                assert group_id is not None
                clock = w.group_clock(call.owner, group_id, t)
                if clock is None or not w.is_member(group_id, call.owner):
                    failed = "not_member", _refusal("not_member", call, group_id)
                elif not w.group_has_curator(group_id):
                    failed = "no_curator", _refusal("no_curator", call, group_id)
                else:
                    t = clock[1]
                    opened = Opened(Holder(group_id=group_id), clock[0], t)
            document = None
            if failed is None and opened is not None:
                current = w.current_document(opened.holder.key, name)
                try:
                    room_for_one(w, opened.holder.key, current)
                except Conflict as exc:
                    failed = "limit", exc
                else:
                    doc = version_map(
                        name,
                        1 if current is None else current.version + 1,
                        call.description or call.topic.strip()[:MAX_TOPIC],
                        call.content,
                        source="remember",
                        reason=f"remember: {call.topic.strip()}",
                    )
                    author = Author(call.owner, call.token_id)
                    [document] = write_versions(
                        w,
                        opened,
                        author,
                        [doc],
                        action="remember",
                        target_id=name,
                        surface=call.surface,
                    )
            record = AccessLogRecord(
                id=new_id("acl"),
                owner=call.owner,
                token_id=call.token_id,
                surface=call.surface,
                group_id=group_id,
                topic=REDACTED if looks_secret(call.topic) else call.topic[:MAX_TOPIC],
                outcome="refused" if failed else "allowed",
                reason=failed[0] if failed else "ok",
                document=None if failed else name,
                version=None if document is None else document.version,
                at=t,
            )
            w.record_attempt(record)
            return RememberOutcome(record, document, None if failed is None else failed[1])

        outcome = self._writer.transaction(work)
        if outcome.error is not None:
            raise outcome.error
        return outcome
