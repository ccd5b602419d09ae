"""The default extractor: first-person statements to proposals, deterministic and offline.

CONTRACT §4: the default extractor needs no model. It reads what a person wrote about
themselves ("I live in Berlin", "my sister Ana", "I went to a support group yesterday")
and proposes facts about the speaker (CONTRACT §3). Precision comes first — a wrong
memory is worse than a missing one — so a statement is mined only when

* its subject is the speaker ("I"; "we" / "Mel and I" for shared events and moves) at the
  start of a clause ("I love hiking", "Yesterday I went ...", "..., and I moved ..."),
  or it is a "my <relative>" mention, or a request to the assistant;
* the sentence is not a question (a tag like ", huh?" does not count; a polite request
  to the assistant may be one), and nothing before the statement in its sentence makes
  it hypothetical or reported ("if", "would", "wish", "maybe", "she said", "I think");
* the value is a short phrase, not a pronoun or a reaction ("I love it", "I love the
  colors you used" are skipped).

Beyond plain statements it reads endings ("I no longer work at Acme": an `end` of the
earlier fact), changes ("I switched to the night shift"), statements about other named
people ("my sister Ana lives in Porto": a fact about Ana), explicit memory requests
("remember that ...", "forget that ...": the inner clause is mined as if stated plainly,
see `curator.rules.memory`) and preferences about the assistant. A sentence that carries
a credential (`committer.secrets.looks_secret`: "remember that my PIN is 1234") gives
nothing at all (CONTRACT §3).

Relative times resolve against the message timestamp (`curator.timeparse`). Each rule
is a regular expression plus a builder, kept by area in `curator.rules` (word lists and
pattern fragments in `curator.lexicon`); this module is the driver: `extract_message`
splits a message into sentences, applies the rules sentence by sentence and turns what
they find into `Proposal`s, and `extract_run` does so for a run's user messages.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timedelta
from typing import Any

from committer.proposals import EntityRef, Proposal, Provenance
from committer.secrets import looks_secret
from curator.lexicon import REL_ATTR
from curator.rules import RULES, Found, Sentence, speaks_for_self
from curator.rules.memory import MemoryRequest, find_request, note_value
from curator.rules.notes import as_note_proposal, find_note_request, request_proposal
from curator.timeparse import day_window, find_all
from graph.time import to_utc

__all__ = ["extract_message", "extract_run", "split_sentences"]


# --- sentences -------------------------------------------------------------------------

_ABBREVIATION = re.compile(
    r"\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|vs|etc|e\.g|i\.e|approx)\.$", re.IGNORECASE
)
_SENTENCE_END = re.compile(r"[.!?…]+[\"')\]]*(?=\s|$)|\n+")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Split `text` into sentences.

    Returns:
        `(begin, end)` offsets of each sentence, trimmed of white space; its end
        punctuation stays with it. A period after "Dr", "St", "e.g." ... ends nothing.
    """
    spans: list[tuple[int, int]] = []
    begin = 0
    for m in _SENTENCE_END.finditer(text):
        if m.group().startswith(".") and _ABBREVIATION.search(text, begin, m.start() + 1):
            continue
        spans.append((begin, m.end()))
        begin = m.end()
    spans.append((begin, len(text)))
    out = []
    for b, e in spans:
        chunk = text[b:e]
        lead = len(chunk) - len(chunk.lstrip())
        if chunk.strip():
            out.append((b + lead, b + lead + len(chunk.strip())))
    return out


_TAG_QUESTION = re.compile(
    r"[,\-–—]\s*(?:huh|right|you\s+know|ya\s+know|eh|no|yeah|isn't\s+it|wasn't\s+it"
    r"|aren't\s+they|don't\s+you\s+think|(?:want\s+to|wanna)\s+see(?:\s+(?:it|them|one"
    r"|(?:a|the)\s+(?:pic|photo|picture)))?)\s*\?+\s*$",
    re.IGNORECASE,
)


def _apply(s: Sentence) -> Iterator[Found]:
    """Every statement the rules find in one sentence; a question holds only requests.

    Findings come in text order; two matches at one position keep the rules' order.
    """
    question = s.text.rstrip().endswith("?") and not _TAG_QUESTION.search(s.text)
    found: list[tuple[int, int, Found]] = []
    for order, rule in enumerate(RULES):
        pos = 0
        while not (question and rule.mode != "request") and (m := rule.pattern.search(s.text, pos)):
            if speaks_for_self(s, m.start(), rule.mode):
                found.extend((m.start(), order, f) for f in rule.builder(m, s))
            pos = m.start() + 1
    for _, _, f in sorted(found, key=lambda item: item[:2]):
        yield f


def _sentence(text: str, evidence: str, at: datetime) -> Sentence:
    return Sentence(
        text=text,
        evidence=evidence,
        at=at,
        past=find_all(text, at, prefer="past"),
        future=find_all(text, at, prefer="future"),
    )


def _settle(found: list[Found]) -> list[Found]:
    """Drop what a sentence asserts and also ends, or says better elsewhere.

    An end of a value drops the assertion of that value ("my dog Rex died": no pet Rex
    from now); an end of any value of a relationship ("we broke up": `partner_of`) drops
    the mention of the relative ("my boyfriend and I broke up" asserts no boyfriend). A
    relative named in the sentence drops the unnamed mention of the same relative ("Ana,
    my sister, lives in Porto": `sibling_of -> Ana`, not also `family = sister`).
    """
    named = {f.attribute for f in found if f.obj is not None and f.op == "assert"}
    found = [
        f for f in found
        if not (f.attribute == "family" and f.obj is None and REL_ATTR.get(str(f.value)) in named)
    ]  # fmt: skip
    ends = [f for f in found if f.op == "end"]
    if not ends:
        return found

    def ended(f: Found) -> bool:
        value = f.value.casefold() if isinstance(f.value, str) else f.value
        for e in ends:
            if e.subject != f.subject:
                continue
            if e.value is None and (
                f.attribute == e.attribute
                or (f.attribute == "family" and REL_ATTR.get(str(f.value)) == e.attribute)
            ):
                return True
            e_value = e.value.casefold() if isinstance(e.value, str) else e.value
            if e.attribute == f.attribute and e_value == value:
                return True
        return False

    return [f for f in found if f.op == "end" or not ended(f)]


_MEMORY = "memory_request"


def _requested(request: MemoryRequest, s: Sentence) -> list[Found]:
    """What a memory request proposes (CONTRACT §3): its clause, mined as if said plainly.

    "Remember that X": every finding of X, typed `memory_request` with confidence 0.95;
    if X states nothing the rules read (passing mentions of a relative do not count), a
    `note` with X's words. "Forget that X": an end, at the message time, of what X
    states (never of a relationship), or of the note X.
    """
    clause = s.text[request.begin : request.end]
    inner = _sentence(clause, s.evidence, s.at)
    found = [f for f in _apply(inner) if not looks_secret(str(f.value))]
    statements = [f for f in found if not f.mention]
    out: list[Found] = []
    if request.op == "assert":
        out = [
            dataclasses.replace(
                f,
                type=_MEMORY,
                confidence=max(0.95, f.confidence),
                reason=f"asked to remember: {f.reason}",
            )
            for f in found
        ]
    else:
        out = [
            dataclasses.replace(f, op="end", type=_MEMORY, confidence=0.95, window=None,
                                dated=False, event=False, reason=f"asked to forget: {f.reason}")
            for f in statements if f.obj is None and f.op == "assert"
        ]  # fmt: skip
    if not statements and request.plain:
        note = note_value(clause)
        verb = "remember" if request.op == "assert" else "forget"
        out.append(Found("note", note, _MEMORY, f"asked to {verb}: {note}", 0.95, op=request.op))
    return out


def _mine(s: Sentence) -> list[Found]:
    """Everything one sentence states; nothing when it carries a credential."""
    if looks_secret(s.text):
        return []
    request = find_request(s.text)
    polite = re.match(r"^\W*(?:\w+[,!]\s+)?(?:can|could|would|will)\s+you\b|.*\bplease\b", s.text,
                      re.IGNORECASE)  # fmt: skip
    if request is not None and (not s.text.rstrip().endswith("?") or polite):
        found = _requested(request, s)
    else:
        found = list(_apply(s))
    return [f for f in _settle(found) if not looks_secret(str(f.value))]


# --- proposals -------------------------------------------------------------------------

_PLAIN = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def _valid_time(found: Found, at: datetime) -> tuple[datetime, datetime | None]:
    """The valid window of a statement (CONTRACT §4).

    An event covers its resolved window (a day, a week ...), else the message's day (the
    speaker's local day).
    A dated state or an end starts at its window's start; anything else at `at`.
    """
    w = found.window
    if found.event:
        return (w.start, w.end or w.start + timedelta(days=1)) if w else day_window(at)
    if w is not None and found.dated:
        return w.start, None
    return at, None


def _proposal_id(
    run_id: str, message_id: str | None, index: int, found: Found, speaker: str | None
) -> str:
    """A proposal's id: the same statement in the same run gives the same id (idempotent
    re-curation); the speaker is part of it, so two people saying the same words in one
    run are two proposals, not one (messages need not carry ids)."""
    value = found.value if found.obj is None else f"@{found.obj.name}"
    about = f"{found.subject.name}|" if found.subject is not None else f"~{speaker or ''}|"
    key = f"{run_id}|{message_id or ''}|{index}|{about}{found.op}|{found.attribute}|{value}"
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def extract_message(
    text: str,
    *,
    at: datetime,
    speaker: str | None,
    message_id: str | None,
    run_id: str,
    project: str | None = None,
) -> list[Proposal]:
    """Propose facts from one message in which the speaker talks about themselves.

    Args:
        text: the message text.
        at: when it was written, aware, in the speaker's own offset: relative times
            resolve against the speaker's day, and it is the default `valid_from`.
        speaker: the person speaking (subject `EntityRef(name=speaker)`), or None for
            the owner (`EntityRef()`, the owner's own person entity).
        message_id: the message's id, kept in provenance and in the proposal ids.
        run_id: the run being curated.
        project: the run's project, for a note asked "for this project only".

    Returns:
        Proposals in text order with deterministic ids (same input, same ids), source
        `user_stated`, the quoted sentence as evidence. A statement repeated within the
        message is proposed once. A note request (curator.rules.notes) or a memory request
        with nothing but a note in it proposes a note (ops `note`, `retire_note`).

    Raises:
        graph.errors.NaiveTimestamp: `at` has no offset.
    """
    to_utc(at, "at")  # validates; the offset is kept: days are the speaker's (timeparse)
    subject = EntityRef(name=speaker, kind="person") if speaker else EntityRef()
    plain = text.translate(_PLAIN)
    out: list[Proposal] = []
    seen: set[tuple[Any, ...]] = set()
    for begin, end in split_sentences(plain):
        sentence = _sentence(plain[begin:end], text[begin:end], at)
        request = None if looks_secret(sentence.text) else find_note_request(sentence.text)
        if request is not None:
            out.append(
                request_proposal(
                    request,
                    sentence,
                    len(out),
                    project=project,
                    subject=subject,
                    message_id=message_id,
                    run_id=run_id,
                )
            )
            continue
        for found in _mine(sentence):
            value = found.value.casefold() if isinstance(found.value, str) else found.value
            key = (found.subject, found.op, found.attribute, value, found.obj)
            if key in seen:
                continue
            seen.add(key)
            valid_from, valid_to = _valid_time(found, at)
            provenance = Provenance(
                source="user_stated",
                evidence=sentence.evidence,
                reason=f"stated: {found.reason}",
                confidence=found.confidence,
                run_id=run_id,
                message_id=message_id,
            )
            as_note = as_note_proposal(found, sentence.at)
            out.append(
                Proposal(
                    id=_proposal_id(run_id, message_id, len(out), found, speaker),
                    op=as_note.pop("op", found.op),
                    subject=found.subject or subject,
                    attribute=found.attribute,
                    value=found.value,
                    object=found.obj,
                    valid_from=valid_from,
                    valid_to=valid_to,
                    type=found.type,
                    provenance=provenance,
                    **as_note,
                )
            )
    return out


def _field(raw: Mapping[str, Any] | Any, name: str) -> Any:
    return raw.get(name) if isinstance(raw, Mapping) else getattr(raw, name, None)


def fact_key(p: Proposal) -> tuple[Any, ...]:
    """The key under which one extractor proposes a statement once per run: subject, op,
    attribute, case-folded value, object, and the window for an event or an ending."""
    value = p.value.casefold() if isinstance(p.value, str) else p.value
    key: tuple[Any, ...] = (p.subject, p.op, p.attribute, value, p.object)
    # An event (closed window) is its own fact; an open-ended state said twice is one.
    return key + ((p.valid_from, p.valid_to) if p.valid_to is not None or p.op == "end" else ())


def extract_run(
    messages: Iterable[Mapping[str, Any] | Any], run_id: str, project: str | None = None
) -> list[Proposal]:
    """Propose facts from a finished run (CONTRACT §4).

    Only `role == "user"` messages are mined: a user speaks for themselves, while
    assistant and tool text is untrusted and never becomes a `user_stated` fact (§3).

    Args:
        messages: mappings or objects with `role`, `text`, `at` (an aware datetime or an
            RFC 3339 string with an offset) and optional `speaker` and `id`, in run order.
        run_id: the run's id, kept in every proposal's provenance and id.
        project: the run's project (a note asked "for this project only" is scoped to it).

    Returns:
        The proposals of every user message in order; an open-ended state stated again
        later in the run (same subject, attribute and value) is proposed once, first time.

    Raises:
        graph.errors.NaiveTimestamp: a message's `at` has no offset.
    """
    out: list[Proposal] = []
    seen: set[tuple[Any, ...]] = set()
    for raw in messages:
        text = _field(raw, "text") or ""
        if _field(raw, "role") != "user" or not text.strip():
            continue
        at = _field(raw, "at")
        if isinstance(at, str):
            at = datetime.fromisoformat(at)
        found = extract_message(
            text,
            at=at,
            speaker=_field(raw, "speaker"),
            message_id=_field(raw, "id"),
            run_id=run_id,
            project=project,
        )
        for proposal in found:
            key = fact_key(proposal)
            if key not in seen:
                seen.add(key)
                out.append(proposal)
    return out
