"""One exception root for worldstate, in a leaf module (STYLE: "One exception root").

`api/http/errors.py` maps each class once to an RFC 9457 problem+json response.
"""

from __future__ import annotations


class WorldstateError(Exception):
    """Root of every error worldstate raises on purpose."""


class NotFound(WorldstateError):
    """A resource does not exist *for this owner* (CONTRACT §7: another owner's ids look absent).

    Args:
        kind: what was looked for ("entity", "fact", "run", ...).
        ident: the id the caller gave.
    """

    def __init__(self, kind: str, ident: str) -> None:
        super().__init__(f"{kind} {ident!r} not found")
        self.kind = kind
        self.ident = ident


class InvalidInput(WorldstateError):
    """Input that is well-formed JSON but breaks a rule (maps to 422 naming `field`).

    Args:
        field: the request field at fault, e.g. "valid_to".
        detail: what a person can do about it.
    """

    def __init__(self, field: str, detail: str) -> None:
        super().__init__(f"{field}: {detail}")
        self.field = field
        self.detail = detail


class SecretRefused(InvalidInput):
    """Client text that carries a credential: worldstate never stores secrets (CONTRACT §3,
    §12; `committer.secrets`). Maps to 422 naming `field`; nothing was written.

    Args:
        field: the request field that holds it, e.g. "value".
    """

    def __init__(self, field: str) -> None:
        super().__init__(
            field,
            "holds what looks like a secret (a password, PIN, key, token or card number); "
            "worldstate never stores secrets",
        )


class InvalidInterval(InvalidInput):
    """A valid-time window whose end is not after its start (CONTRACT §2: intervals are
    half-open)."""

    def __init__(self, detail: str = "valid_to must be later than valid_from") -> None:
        super().__init__("valid_to", detail)


class NaiveTimestamp(InvalidInput):
    """A timestamp without a UTC offset (CONTRACT §2: rejected with 422 naming the field)."""

    def __init__(self, field: str) -> None:
        super().__init__(field, "timestamp needs a UTC offset, e.g. 2024-05-01T09:00:00Z or +02:00")


class InvalidBookmark(InvalidInput):
    """A bookmark a caller sent back that Neo4j cannot parse (graph/bookmarks.py; maps to
    422 naming where it came from).

    Args:
        field: where the bookmark came from, e.g. the request header's name.
    """

    def __init__(self, field: str = "bookmark") -> None:
        super().__init__(field, "not a bookmark this store issued; send back one it returned")


class Conflict(WorldstateError):
    """The request collides with existing state (maps to 409), e.g. a run id reused with
    other content."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class PreconditionFailed(WorldstateError):
    """A conditional write whose condition does not hold (maps to 412, CONTRACT §14): an
    `If-Match` naming another version than the current one, or `If-None-Match: *` on a
    value that exists. Nothing was written.

    Args:
        detail: what a person can do about it.
        current: the current version, or None when there is no value.
    """

    def __init__(self, detail: str, current: int | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.current = current


class Unauthenticated(WorldstateError):
    """No bearer token, or one that is unknown or revoked (CONTRACT §7; maps to 401).

    Args:
        detail: what a person can do about it.
    """

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class Forbidden(WorldstateError):
    """The caller may see the resource but not do this to it (maps to 403), e.g. a group
    member who is not its creator adding members (CONTRACT §7). Never used where the
    answer would reveal another owner's data: that is `NotFound`."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class MemoryOff(WorldstateError):
    """The chat's memory access is `none` (CONTRACT §7 clean room): read tools are refused
    (maps to 403 "memory is off in this chat").

    Args:
        chat_id: the chat the caller named.
    """

    def __init__(self, chat_id: str | None) -> None:
        super().__init__(f"memory is off in this chat ({chat_id!r})")
        self.chat_id = chat_id


class TooBusy(WorldstateError):
    """A bound on waiting work is reached, e.g. the owner's runs queued for the curator
    (maps to 429 with `Retry-After`; README "Bounds").

    Args:
        detail: what a person can do about it.
        retry_after: seconds after which trying again makes sense.
    """

    def __init__(self, detail: str, retry_after: float):
        super().__init__(detail)
        self.detail = detail
        self.retry_after = retry_after


class StoreUnavailable(WorldstateError):
    """Neo4j cannot be reached or answered with a transient failure (maps to 503, CONTRACT §9)."""


class QueryTimedOut(StoreUnavailable):
    """A read ran past its transaction's timeout (`Reader(timeout=...)`: prefetch's
    deadline) and Neo4j ended it; a plan it was making is not cached (api/chat/prefetch/warm.py)."""


class LimitExceeded(WorldstateError):
    """A configured limit is reached (CONTRACT §9, §13): an hourly reading ceiling of notes
    per token (429, with `retry_after`) or the notes an owner may hold (409).

    Args:
        limit: the limit's name, e.g. `notes_read_per_hour`.
        maximum: its configured value.
        used: how much is used (before the refused request).
        detail: what a person can do about it (names the setting).
        status: 429 (a ceiling that resets) or 409 (a capacity).
        retry_after: seconds until a ceiling resets, or None.
    """

    def __init__(
        self,
        limit: str,
        maximum: int,
        used: int,
        detail: str,
        *,
        status: int = 429,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(detail)
        self.limit = limit
        self.maximum = maximum
        self.used = used
        self.detail = detail
        self.status = status
        self.retry_after = retry_after
