"""Note requests in chat, and what a note said in chat looks like (CONTRACT §13, issue 15).

Pure and offline, like the statement rules, but a note request is not a fact: it becomes a
note proposal (committer.proposals.NoteProposal). The phrasings, each a whole sentence:

* "Remember for this project only: the v1 endpoints are deprecated." (the run's project);
* "We decided to drop the Windows installer — note that down." ("write that down",
  "make a note of that");
* "The spring sale runs until Friday; check that note again next week." (a date to look
  again, resolved against the message time, towards the future; a note that states an
  expiry and no such date is looked at again on the day it expires);
* "Forget the note about the old pricing page, it's gone." (retire the note it names).

"Remember that X" / "Remember: X" with nothing the statement rules read in X is found by
`curator.rules.memory` (its `note` fallback); `note_of` shapes either into a note: its
kind read from the words (`kind_of`), a title from the clause (`title_of`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any, Literal

from committer.proposals import EntityRef, NoteProposal, Proposal, Provenance
from curator.rules.base import Found, Sentence
from curator.timeparse import find_all
from graph.notes import MAX_BODY, MAX_TITLE, is_claim

__all__ = [
    "NoteRequest",
    "as_note_proposal",
    "find_note_request",
    "kind_of",
    "note_proposal",
    "request_proposal",
    "title_of",
]

REQUEST_CONFIDENCE = 0.95
"""A note the person asks for in plain words is as sure as a memory request."""
CLAIM_REVIEW = timedelta(days=14)
"""A hypothesis or question said in chat without a date is looked at again 14 days out
(an open claim always carries one, CONTRACT §13)."""
MAX_REVIEW = timedelta(days=365)
"""A date to look again is at most this far out (CONTRACT §13: 1-365 days)."""
_EXPIRY = re.compile(
    r"\b(?:until|till|through|ends?|ending|expires?|expiring|runs?\s+out|valid\s+to)\s+"
    r"(?P<when>[^;:!?]+)",
    re.IGNORECASE,
)
"""An expiry said in a note's words ("runs until Friday", "the offer expires on 3 May")."""

_SEP = r"\s*(?:[;,:.!]|\s[-—–]+)\s*"
_PROJECT = re.compile(
    r"^(?:(?:ok|okay|also|and|so|please)[,!]?\s+)*(?:please\s+)?(?:remember|note|keep\s+in\s+mind)"
    r"\s+(?:for|in)\s+this\s+project(?:\s+only)?\s*(?:[:,—–-]\s*)?(?:that\s+)?(?P<clause>\S.*)$",
    re.IGNORECASE | re.DOTALL,
)
_NOTE_DOWN = re.compile(
    r"^(?P<clause>\S.*?)" + _SEP + r"(?:and\s+)?(?:please\s+)?(?:(?:note|write|jot|put)\s+"
    r"(?:that|this|it)\s+down|make\s+a\s+note\s+of\s+(?:that|this|it))(?:[\s,]+please)?\W*$",
    re.IGNORECASE | re.DOTALL,
)
_AGAIN = re.compile(
    r"^(?P<clause>\S.*?)" + _SEP + r"(?:and\s+)?(?:please\s+)?(?:check|revisit|look\s+at|review)"
    r"\s+(?:that|this|it)(?:\s+note)?\s+again\s+(?P<when>\S.*?)\W*$",
    re.IGNORECASE | re.DOTALL,
)
_FORGET = re.compile(
    r"^(?:please\s+)?(?:forget|retire|drop|delete|remove)\s+(?:the|my|our|that)\s+note\s+"
    r"(?:about|on|for|regarding|called|titled|that\s+says)\s+(?P<what>\S.*?)"
    r"(?:" + _SEP + r"(?:it|that|this|they)\b.*)?\W*$",
    re.IGNORECASE | re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class NoteRequest:
    """A note request found in a sentence.

    Attributes:
        op: `note` to keep a note, `retire_note` to retire the note `clause` names.
        clause: the words of the note (or of the note to retire).
        project_only: "for this project only": the note is scoped to the run's project.
        when: the words of a date to look again ("next week"), or None.
    """

    op: Literal["note", "retire_note"]
    clause: str
    project_only: bool = False
    when: str | None = None


def find_note_request(sentence: str) -> NoteRequest | None:
    """The note request `sentence` (one sentence, plain quotes) makes, or None."""
    text = sentence.strip()
    if m := _FORGET.match(text):
        return NoteRequest("retire_note", _clean(m["what"]))
    if m := _PROJECT.match(text):
        return NoteRequest("note", _clean(m["clause"]), project_only=True)
    if m := _NOTE_DOWN.match(text):
        return NoteRequest("note", _clean(m["clause"]))
    if m := _AGAIN.match(text):
        return NoteRequest("note", _clean(m["clause"]), when=m["when"].strip())
    return None


def _clean(text: str) -> str:
    return " ".join(text.split()).strip(" ,;:-—–.!")


_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        ("decision", r"\b(?:we|i)\s+(?:have\s+|'ve\s+)?decided\b|\bdecision\b|\bwe\s+agreed\b"),
        ("question", r"\?\s*$|\b(?:open\s+question|we\s+don'?t\s+know|nobody\s+knows|unclear)\b"),
        (
            "hypothesis",
            r"\b(?:maybe|might|probably|i\s+suspect|i\s+think|i\s+bet|hypothes\w*)\b",
        ),
        ("workaround", r"\b(?:workaround|work\s+around|get\s+around)\b"),
        ("playbook", r"\b(?:how\s+to|playbook|step\s+\d|first\b.*\bthen)\b"),
        ("convention", r"\b(?:always|never|convention|by\s+default|our\s+rule)\b"),
        ("learning", r"\b(?:learn(?:ed|t)|turns\s+out|lesson)\b"),
        ("insight", r"\b(?:insight|pattern|notic(?:e|ed))\b"),
    )
)


def kind_of(clause: str) -> str:
    """The kind of note a clause reads as: the first of decision, question, hypothesis,
    workaround, playbook, convention, learning, insight whose words it holds, else
    `context`."""
    return next((kind for kind, pattern in _KINDS if pattern.search(clause)), "context")


_DECIDED = re.compile(
    r"^(?:so\s+|and\s+)?(?:we|i)\s+(?:have\s+|'ve\s+)?(?:decided|agreed)\s+(?:to\s+|that\s+|on\s+)?",
    re.IGNORECASE,
)


def title_of(clause: str) -> str:
    """A note's title from its clause: "we decided to" left out, the first letter capital,
    end punctuation dropped, at most 200 characters (cut at a word, with an ellipsis)."""
    text = _DECIDED.sub("", _clean(clause)) or _clean(clause)
    text = text[:1].upper() + text[1:]
    if len(text) <= MAX_TITLE:
        return text
    cut = text[: MAX_TITLE - 1]
    return (cut[: cut.rfind(" ")] if " " in cut else cut) + "…"


def expiry_of(clause: str) -> str | None:
    """The words of an expiry the clause states ("until Friday"), or None."""
    m = _EXPIRY.search(clause)
    return m["when"].strip() if m else None


def review_date(
    when: str | None, kind: str, at: datetime, clause: str | None = None
) -> datetime | None:
    """The date to look again: the start of what `when` says ("next week": its Monday),
    or, without `when`, of the expiry `clause` states ("runs until Friday": that Friday),
    resolved towards the future from the message time `at`, at least a day and at most
    365 days out; else 14 days out for a hypothesis or question; else None. An expiry on
    the message's own day ("open until 6pm") is a time of day, not an end: no date."""
    expiry = None if when or clause is None else expiry_of(clause)
    # "until Friday" and "until 2031" name a day and a year as "on Friday" and "in 2031" do
    said = [when] if when else [expiry, f"on {expiry}", f"in {expiry}"] if expiry else []
    for words in said:
        found = find_all(words, at, prefer="future")
        if found and not when and found[0].start.astimezone(at.tzinfo).date() <= at.date():
            break
        if found:
            start = min(max(found[0].start, at + timedelta(days=1)), at + MAX_REVIEW)
            # The speaker's calendar day, as that day's midnight in UTC (a date, CONTRACT §13).
            return datetime.combine(start.astimezone(at.tzinfo).date(), time(0), UTC)
    return at + CLAIM_REVIEW if is_claim(kind) else None


def note_proposal(
    clause: str,
    at: datetime,
    *,
    project: str | None = None,
    when: str | None = None,
    kind: str | None = None,
) -> NoteProposal:
    """The note a clause said in chat proposes: its kind (`kind_of` unless given), title,
    the whole clause as body when the title shortened it, a date to look again."""
    kind = kind or kind_of(clause)
    title = title_of(clause)
    body = _clean(clause)
    return NoteProposal(
        kind=kind,
        title=title,
        body="" if body.casefold() == title.casefold() else body[:MAX_BODY],
        project=project,
        review_at=review_date(when, kind, at, clause),
    )


def request_proposal(
    request: NoteRequest,
    sentence: Sentence,
    index: int,
    *,
    project: str | None,
    subject: EntityRef,
    message_id: str | None,
    run_id: str,
) -> Proposal:
    """The note proposal of a note request: told by the speaker (`user_stated`), for the
    run's project when asked "for this project only"; the same sentence of the same run
    gives the same id."""
    note = note_proposal(
        request.clause,
        sentence.at,
        project=project if request.project_only else None,
        when=request.when,
    )
    if request.op == "retire_note":
        note = note.model_copy(update={"title": request.clause, "body": "", "review_at": None})
    key = f"{run_id}|{message_id or ''}|{index}|{request.op}|{request.clause}"
    return Proposal(
        id=hashlib.sha256(key.encode()).hexdigest()[:24],
        op=request.op,
        subject=subject,
        attribute="note",
        value=note.title,
        valid_from=sentence.at,
        type="note_request",
        note=note,
        provenance=Provenance(
            source="user_stated",
            evidence=sentence.evidence,
            reason=f"asked to {'forget' if request.op == 'retire_note' else 'note'}: "
            + request.clause,
            confidence=REQUEST_CONFIDENCE,
            run_id=run_id,
            message_id=message_id,
        ),
    )


def as_note_proposal(found: Found, at: datetime) -> dict[str, Any]:
    """The fields that make a memory request's `note` fallback ("remember that X" with
    nothing the statement rules read in X) a note proposal: op `note` with X as the note,
    or `retire_note` naming the note X to retire; nothing for any other finding."""
    if found.attribute != "note" or found.obj is not None:
        return {}
    if found.op == "end":
        named = note_proposal(str(found.value), at)
        retire = named.model_copy(update={"title": str(found.value), "body": "", "review_at": None})
        return {"op": "retire_note", "note": retire}
    return {"op": "note", "note": note_proposal(str(found.value), at)}
