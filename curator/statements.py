"""Proposals the person asks for directly: "remember that ..." (CONTRACT §3, §6).

The MCP `remember` tool hands over either free text (read by the deterministic extractor
as the person's own words) or one structured assertion (entity, attribute, value). Either
way the result is proposals with source `user_stated` (the person told it), each put
through the same risk table as a run's (`curator.policy.decide`): secrets are dropped,
privileged or low-confidence ones held for a yes, the rest committed by the committer
(`Committer.file_proposals`). Pure: no store access here.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime

from committer.proposals import EntityRef, Proposal, Provenance, Reviewed
from curator.extract import extract_message
from curator.policy import Context, decide
from graph.errors import InvalidInput
from graph.fields import Scalar

ENTITY_ID = re.compile(r"^ent_[0-9a-f]{24}$")
"""What an entity id looks like (graph.write.writer.new_id("ent")); anything else is a name."""
ATTRIBUTE = re.compile(r"^[a-z][a-z0-9_]{0,99}$")
MAX_TEXT = 20_000
MAX_NAME = 200


@dataclass(frozen=True, slots=True)
class Policy:
    """The risk policy's settings (`WORLDSTATE_AUTO_COMMIT_THRESHOLD`,
    `WORLDSTATE_PRIVILEGED_AREAS`)."""

    threshold: float
    privileged: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Statement:
    """One structured thing to remember.

    Attributes:
        entity: an entity id (`ent_...`), a name (resolved by kind and name, or created),
            or None for the person themselves.
        kind: the kind of a named entity (default `person`).
        attribute: snake_case, e.g. `location`.
        value: a JSON scalar.
        valid_from: since when it holds (aware), or None for now.
    """

    entity: str | None
    kind: str
    attribute: str
    value: Scalar
    valid_from: datetime | None = None


def _statement(s: Statement, now: datetime, ident: str) -> Proposal:
    if not ATTRIBUTE.match(s.attribute):
        raise InvalidInput("attribute", "snake_case, 1 to 100 characters, e.g. location")
    if isinstance(s.value, str) and not 0 < len(s.value.strip()) <= MAX_TEXT:
        raise InvalidInput("value", f"give 1 to {MAX_TEXT} characters")
    if s.entity is not None and not 0 < len(s.entity.strip()) <= MAX_NAME:
        raise InvalidInput("entity", f"an entity id or a name of 1 to {MAX_NAME} characters")
    if s.entity is None:
        subject = EntityRef()
    elif ENTITY_ID.match(s.entity):
        subject = EntityRef(id=s.entity)
    else:
        subject = EntityRef(name=s.entity.strip(), kind=s.kind)
    return Proposal(
        id=ident,
        subject=subject,
        attribute=s.attribute,
        value=s.value,
        valid_from=s.valid_from or now,
        type="remember",
        provenance=Provenance(
            source="user_stated",
            evidence=f"{s.attribute}: {s.value}",
            reason="the person asked to remember it",
            confidence=1.0,
        ),
    )


def _from_text(text: str, now: datetime, ident: str) -> list[Proposal]:
    if not 0 < len(text.strip()) <= MAX_TEXT:
        raise InvalidInput("text", f"give 1 to {MAX_TEXT} characters")
    found = extract_message(text, at=now, speaker=None, message_id=None, run_id=ident)
    if not found:
        raise InvalidInput(
            "text",
            "no fact could be read from it; say it plainly "
            '("I live in Berlin") or give entity, attribute and value',
        )
    return [
        p.model_copy(
            update={
                "provenance": p.provenance.model_copy(
                    update={"run_id": None, "reason": f"asked to remember; {p.provenance.reason}"}
                )
            }
        )
        for p in found
    ]


def review_statement(
    owner: str,
    policy: Policy,
    now: datetime,
    *,
    text: str | None = None,
    statement: Statement | None = None,
) -> list[Reviewed]:
    """Turn what the person asked to remember into reviewed proposals (CONTRACT §3).

    Args:
        owner: the owner id (a person named like it is the owner).
        policy: the risk policy's settings.
        now: the time it was said (aware UTC): the default `valid_from`, and the anchor
            of relative times in `text` ("since May").
        text: free text in the person's own words; or
        statement: one structured assertion. Exactly one of the two.

    Returns:
        The proposals with their decisions (`commit` or `hold`), in order; secrets
        dropped.

    Raises:
        InvalidInput: neither or both given; a bad field (named); text with no fact in it;
            nothing left once secrets are dropped (nothing is stored).
    """
    ident = "rmb_" + uuid.uuid4().hex[:24]
    if text is not None and statement is None:
        proposals = _from_text(text, now, ident)
    elif statement is not None and text is None:
        proposals = [_statement(statement, now, ident)]
    else:
        raise InvalidInput("text", "give either text, or attribute and value (with entity)")
    ctx = Context(
        owner=owner,
        speaker=None,
        threshold=policy.threshold,
        privileged=frozenset(policy.privileged),
    )
    out = []
    for p in proposals:
        rule = decide(p, ctx)
        if rule.action != "drop":
            out.append(Reviewed(proposal=p, action=rule.action, policy=rule.name))
    if not out:
        raise InvalidInput(
            "text" if text is not None else "value",
            "nothing was stored: it looks like a secret (passwords, keys, "
            "card numbers are never remembered)",
        )
    return out
