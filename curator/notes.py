"""Key facts of an ended session as note proposals (issue 15, `memory_end_session`).

The assistant hands over a session's summary and its key facts ("prices are in euros;
the beta ends in May"). Those are the assistant's account, not the person's words, so each
becomes a note proposal with source `inferred` and goes through the same risk table as
any proposal (`curator.policy.decide`): secrets are dropped, the rest is held for the
person's yes (rule "inferred"). Pure: the committer files them (`Committer.end_session`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime

from committer.proposals import EntityRef, Proposal, Provenance, Reviewed
from curator.policy import Context, decide
from curator.rules.notes import note_proposal
from curator.statements import Policy

SESSION_FACT_CONFIDENCE = 0.7
"""The confidence of a key fact the assistant reports (it is held for a yes anyway)."""


def split_facts(text: str) -> list[str]:
    """Key facts given as one string separated by semicolons: each trimmed, empty ones and
    repeats (case-insensitive) left out, in order."""
    seen: set[str] = set()
    out = []
    for part in text.split(";"):
        fact = " ".join(part.split()).strip(" .")
        if fact and fact.casefold() not in seen:
            seen.add(fact.casefold())
            out.append(fact)
    return out


def review_session_facts(
    owner: str, session_id: str, facts: Sequence[str], at: datetime, policy: Policy
) -> list[Reviewed]:
    """The key facts as reviewed note proposals (kind read from the words, `learning` when
    none fits better), in order; secrets dropped by the risk table.

    Args:
        owner: the owner id.
        session_id: the session that ended (in proposal ids and reasons).
        facts: the key facts.
        at: when the session ended, aware UTC (the notes' valid_from).
        policy: the risk policy's settings.
    """
    ctx = Context(
        owner=owner,
        speaker=None,
        threshold=policy.threshold,
        privileged=frozenset(policy.privileged),
    )
    out = []
    for index, fact in enumerate(facts):
        note = note_proposal(fact, at)
        if note.kind == "context":
            note = note_proposal(fact, at, kind="learning")
        key = f"session|{owner}|{session_id}|{index}|{fact}"
        p = Proposal(
            id="s" + hashlib.sha256(key.encode()).hexdigest()[:23],
            op="note",
            subject=EntityRef(),
            attribute="note",
            value=note.title,
            valid_from=at,
            type="session_fact",
            note=note,
            provenance=Provenance(
                source="inferred",
                evidence=fact,
                reason=f"a key fact of session {session_id}, as the assistant reported it",
                confidence=SESSION_FACT_CONFIDENCE,
            ),
        )
        rule = decide(p, ctx)
        if rule.action != "drop":
            out.append(Reviewed(proposal=p, action=rule.action, policy=rule.name))
    return out
