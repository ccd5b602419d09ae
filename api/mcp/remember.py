"""The `remember` tool: the person asks the assistant to remember something (CONTRACT §3).

The one write among the assistant's tools, kept apart from the read tools (api/chat/tools.py
never imports the committer). What is remembered becomes proposals with source
`user_stated`, reviewed by the same risk table as any proposal (curator/statements.py) and
filed by the committer: clear, low-risk ones are committed at once, the rest wait as
`pending` (invisible to reads until kept) with a notification in the chat.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from api.chat.tools import Caller, scope_for
from api.http.schemas.proposals import ProposalPublic
from committer.apply import Committer
from curator.statements import Policy, Statement, review_statement
from graph.errors import InvalidInput
from graph.fields import Scalar
from graph.read.reader import Reader
from graph.time import to_utc, utcnow


def remember(
    reader: Reader,
    committer: Committer,
    policy: Policy,
    caller: Caller,
    *,
    text: str | None = None,
    entity: str | None = None,
    kind: str = "person",
    attribute: str | None = None,
    value: Scalar | None = None,
    valid_from: datetime | None = None,
) -> dict[str, Any]:
    """File what the person asked to remember, as told by them (source `user_stated`).

    Args:
        reader: for the chat's memory access.
        committer: files the proposals (the only writer).
        policy: the risk policy's settings.
        caller: the owner and the chat (the chat's memory access `none` refuses; held
            proposals are announced in that chat, or in the main chat when None).
        text: the person's own words ("I moved to Berlin in May"), read by the
            deterministic extractor; or
        entity, kind, attribute, value, valid_from: one assertion; `entity` is an
            entity id or a name (None: the person themselves), `valid_from` defaults
            to now.

    Returns:
        `{proposals: [Proposal]}` with `status` `committed` (low risk, written now) or
        `pending` (held for the person's yes), and `policy` naming the rule that decided.

    Raises:
        MemoryOff: memory access `none` in the chat.
        InvalidInput: neither or both of text and attribute/value; a bad field; no fact
            in the text; only a secret in it.
        NotFound: `entity` is an id that is not the owner's.
    """
    scope_for(reader, caller)
    structured = entity is not None or attribute is not None or value is not None
    if text is not None and (structured or valid_from is not None):
        raise InvalidInput("text", "give either text, or attribute and value (with entity)")
    statement = None
    if text is None:
        if attribute is None or value is None:
            raise InvalidInput(
                "attribute" if attribute is None else "value",
                "give text, or attribute and value (with entity)",
            )
        start = None if valid_from is None else to_utc(valid_from, "valid_from")
        statement = Statement(entity, kind, attribute, value, start)
    reviewed = review_statement(caller.owner, policy, utcnow(), text=text, statement=statement)
    stored = committer.file_proposals(caller.owner, caller.chat_id, reviewed)
    return {"proposals": [ProposalPublic.of(p).model_dump(mode="json") for p in stored]}
