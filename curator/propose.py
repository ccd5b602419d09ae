"""Reviewing a finished run: every extractor, then the risk policy (CONTRACT §3, §4).

`review_run` turns a run's payload into `Reviewed` proposals for the committer:

* the person's own words (user messages minus pasted content) through the deterministic
  extractor (`curator.extract`), source `user_stated`;
* untrusted content (assistant and tool messages, documents, pasted text) through
  `curator.untrusted`, source `untrusted`;
* integration observations, source `integration:<name>`;
* the optional LLM extractor (`curator.llm`) when configured; what it finds that the
  deterministic extractor also found is proposed once.

Each proposal then goes through `curator.policy.decide`: secrets are dropped, the rest
is committed or held.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from pydantic import ValidationError

from committer.proposals import EntityRef, Proposal, Provenance, Reviewed
from curator.extract import extract_run
from curator.observations import Observation, ObservedEntity
from curator.policy import Context, decide
from curator.untrusted import extract_untrusted, split_pasted
from graph.records import RunRecord

log = logging.getLogger("worldstate.curator")


class Extractor(Protocol):
    """An extractor of proposals from a run's messages (the LLM extractor is one)."""

    def extract_run(self, messages: Sequence[Mapping[str, Any]], run_id: str) -> list[Proposal]:
        """Propose facts from a run's messages."""
        ...


def _messages(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{**m, "at": datetime.fromisoformat(m["at"])} for m in payload.get("messages", [])]


def _observations(raw: Sequence[Any], run_id: str, default_at: datetime | None) -> list[Proposal]:
    out = []
    for index, item in enumerate(raw):
        try:
            o = Observation.model_validate(item)
        except ValidationError as exc:
            log.warning("run %s: observation %d skipped: %s", run_id, index, exc)
            continue
        if (o.valid_from or default_at) is None:
            log.warning("run %s: observation %d needs a time", run_id, index)
            continue
        key = f"{run_id}|obs|{index}|{o.attribute}|{o.value}|{o.object}"
        out.append(
            Proposal(
                id="o" + hashlib.sha256(key.encode()).hexdigest()[:23],
                subject=_ref(o.entity),
                attribute=o.attribute,
                value=o.value,
                object=None if o.object is None else _ref(o.object),
                valid_from=o.valid_from or default_at,
                valid_to=o.valid_to,
                type="observation",
                provenance=Provenance(
                    source=f"integration:{o.integration}",
                    evidence=o.evidence,
                    reason=f"observed by {o.integration}",
                    confidence=o.confidence,
                    run_id=run_id,
                ),
            )
        )
    return out


def _ref(entity: ObservedEntity) -> EntityRef:
    return EntityRef(name=entity.name, kind=entity.kind)


def _across_extractors_key(p: Proposal) -> tuple[Any, ...]:
    """The key under which the LLM extractor's proposal repeats the deterministic one's:
    subject and object compared by name, since each extractor resolves names itself."""
    value = p.value.casefold() if isinstance(p.value, str) else p.value
    obj = p.object.name.casefold() if p.object and p.object.name else p.object
    return (p.subject.name or "", p.op, p.attribute, value, obj)


def review_run(
    run: RunRecord,
    *,
    threshold: float,
    privileged: Sequence[str],
    llm: Extractor | None = None,
) -> list[Reviewed]:
    """Propose and review everything a run holds (CONTRACT §3, §4).

    Args:
        run: the claimed run (its payload is the `POST /v1/runs` body as JSON text).
        threshold: auto-commit confidence threshold.
        privileged: privileged categories (areas) that are always held.
        llm: the optional LLM extractor; its `ExtractorUnavailable` propagates, so the
            caller can put the run back to retry later.

    Returns:
        The proposals to store, in run order, each with its decision; dropped ones
        (secrets) are left out.
    """
    payload = json.loads(run.payload)
    messages = _messages(payload)
    own = [
        {**m, "text": split_pasted(m["text"])[0]} if m.get("role") == "user" else m
        for m in messages
    ]
    proposals = extract_run(own, run.id, payload.get("project"))
    proposals += extract_untrusted(messages, run.id)
    first_at = messages[0]["at"] if messages else run.created_at
    proposals += _observations(payload.get("observations") or [], run.id, first_at)
    if llm is not None:
        seen = {_across_extractors_key(p) for p in proposals}
        proposals += [
            p for p in llm.extract_run(messages, run.id) if _across_extractors_key(p) not in seen
        ]
    speakers = {m.get("id"): m.get("speaker") for m in messages}
    out = []
    for p in proposals:
        ctx = Context(
            owner=run.owner,
            speaker=speakers.get(p.provenance.message_id),
            threshold=threshold,
            privileged=frozenset(privileged),
        )
        rule = decide(p, ctx)
        if rule.action == "drop":
            log.info("run %s: proposal dropped by rule %r", run.id, rule.name)
            continue
        out.append(Reviewed(proposal=p, action=rule.action, policy=rule.name))
    return out


def review_observations(
    owner: str,
    raw: Sequence[Mapping[str, Any]],
    sync_id: str,
    at: datetime,
    *,
    threshold: float,
    privileged: Sequence[str],
) -> list[Reviewed]:
    """Review an integration sync's observations like a run's (CONTRACT §3, §4).

    Args:
        owner: the owner id.
        raw: observations in the `POST /v1/runs` shape (already validated at the edge).
        sync_id: the sync's id (proposal ids derive from it; the rows' provenance names no
            run: the sync's event records the cause, CONTRACT §8).
        at: the default `valid_from` (the sync's time), aware.
        threshold: auto-commit confidence threshold.
        privileged: privileged categories (areas) that are always held.

    Returns:
        The proposals to store, in order, each with its decision (secrets dropped).
    """
    out = []
    for observed in _observations(raw, sync_id, at):
        p = observed.model_copy(
            update={"provenance": observed.provenance.model_copy(update={"run_id": None})}
        )
        rule = decide(
            p,
            Context(
                owner=owner, speaker=None, threshold=threshold, privileged=frozenset(privileged)
            ),
        )
        if rule.action == "drop":
            log.info("sync %s: observation dropped by rule %r", sync_id, rule.name)
            continue
        out.append(Reviewed(proposal=p, action=rule.action, policy=rule.name))
    return out
