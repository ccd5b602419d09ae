"""Workflow state as committer commands (CONTRACT §14: JSON per (owner, workflow, key) or per
group; compare-and-set with `If-Match`, idempotency keys, history by `known_at`).

A part of `committer.apply.Committer`. Each write is one transaction under the holder's
lock (committer/holders.py), so two writers of one key are serialized: the second sees the
first's version, and its `If-Match` fails with 412 when it read an older one. Order inside
the transaction:

1. an idempotency key seen before for this (holder, workflow, key) answers what that write
   made, and writes nothing (a retry asking something else is a 409);
2. the preconditions: `If-Match: <version>` must name the current version of a value that
   exists, `If-None-Match: *` requires that none exists (else 412, nothing written);
3. a new version is recorded (the current one retracted at the same instant), with its
   cause and effect (an `action` event, a `commit` event, CONTRACT §8).

Bounds: a value is at most 64 KB as compact UTF-8 JSON, workflow and key 1-200 characters,
an idempotency key 1-200 characters (README "Bounds").
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from committer.base import CommitterBase
from committer.holders import Author, open_holder, record_cause
from committer.secrets import refuse_secrets
from graph.errors import Conflict, InvalidInput, NotFound, PreconditionFailed
from graph.held import MAX_STATE_BYTES, MAX_STATE_KEY, StateRecord
from graph.write.writer import WriteTx, new_id


def compact(value: Any) -> str:
    """A JSON value as the compact text stored (keys kept in their order).

    Raises:
        InvalidInput: (field `value`) over 64 KB as UTF-8, or not JSON (NaN, Infinity).
    """
    try:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError as exc:
        raise InvalidInput("value", "must be JSON (no NaN or Infinity)") from exc
    if len(text.encode("utf-8")) > MAX_STATE_BYTES:
        raise InvalidInput("value", f"at most {MAX_STATE_BYTES} bytes as compact UTF-8 JSON")
    return text


@dataclass(frozen=True, slots=True)
class Conditions:
    """A write's preconditions and retry key.

    Attributes:
        if_match: the version the writer read (`If-Match`), or None.
        if_none_match: `If-None-Match: *`: only when no value exists.
        idempotency_key: the write's `Idempotency-Key`, or None.
    """

    if_match: int | None = None
    if_none_match: bool = False
    idempotency_key: str | None = None


@dataclass(frozen=True, slots=True)
class StateWrite:
    """What a write did: the version now current (or the deletion), whether a value was
    created (none existed before), and whether it replayed an earlier write with the same
    idempotency key (nothing written now)."""

    state: StateRecord
    created: bool
    replayed: bool


def _check_names(workflow: str, key: str, conditions: Conditions) -> None:
    for field, text in (("workflow", workflow), ("key", key)):
        if not text or len(text) > MAX_STATE_KEY or "/" in text:
            raise InvalidInput(field, f"1 to {MAX_STATE_KEY} characters, no '/'")
    idem = conditions.idempotency_key
    if idem is not None and not 1 <= len(idem) <= MAX_STATE_KEY:
        raise InvalidInput("Idempotency-Key", f"1 to {MAX_STATE_KEY} characters")


def _precondition(current: StateRecord | None, conditions: Conditions) -> None:
    live = current is not None and not current.deleted
    version = current.version if live and current is not None else None
    if conditions.if_none_match and live:
        raise PreconditionFailed(f"A value exists (version {version}); If-None-Match: *.", version)
    if conditions.if_match is not None and version != conditions.if_match:
        found = "no value" if version is None else f"version {version}"
        raise PreconditionFailed(
            f"If-Match names version {conditions.if_match}, the value is at {found}; "
            "read it again and retry.",
            version,
        )


class StateCommands(CommitterBase):
    """Set and delete workflow state values."""

    def _write(
        self,
        author: Author,
        workflow: str,
        key: str,
        group_id: str | None,
        conditions: Conditions,
        value: str | None,
    ) -> StateWrite:
        _check_names(workflow, key, conditions)
        op = "delete" if value is None else "put"
        asked = hashlib.sha256(json.dumps([op, value]).encode()).hexdigest()

        def work(w: WriteTx) -> StateWrite:
            opened = open_holder(w, author.owner, group_id)
            holder = opened.holder.key
            idem = None
            if conditions.idempotency_key is not None:
                idem = json.dumps([holder, workflow, key, conditions.idempotency_key])
                earlier = w.state_by_idempotency(idem)
                if earlier is not None:
                    if earlier.digest != asked:
                        raise Conflict(
                            "This Idempotency-Key was used for another request on this key; "
                            "use a new key for a new write."
                        )
                    return StateWrite(earlier, False, True)
            current = w.current_state(holder, workflow, key)
            _precondition(current, conditions)
            if value is None and (current is None or current.deleted):
                raise NotFound("state", f"{workflow}/{key}")
            events = record_cause(
                w,
                author.owner,
                opened.t,
                "action",
                action="state_delete" if value is None else "state_put",
                target_id=f"{workflow}/{key}",
            )
            state, ended = w.record_state(
                id=new_id("stv"),
                holder=holder,
                owner=opened.erased_with,
                group_id=opened.holder.group_id,
                workflow=workflow,
                key=key,
                version=1 if current is None else current.version + 1,
                value=value,
                deleted=value is None,
                t=opened.t,
                author=author.owner,
                idem=idem,
                idempotency_key=conditions.idempotency_key,
                digest=asked,
                cause=events.cause,
            )
            w.link_state_effects(author.owner, events.commit_key, events.cause, [state.id], ended)
            created = value is not None and (current is None or current.deleted)
            return StateWrite(state, created, False)

        return self._writer.transaction(work)

    def put_state(
        self,
        author: Author,
        workflow: str,
        key: str,
        value: Any,
        *,
        group_id: str | None = None,
        conditions: Conditions = Conditions(),
    ) -> StateWrite:
        """Set a value (a new version in transaction time).

        Args:
            author: the writer.
            workflow, key: what the value is of (1-200 characters each, no '/').
            value: any JSON value, at most 64 KB compact.
            group_id: a group the author belongs to (shared state), or None (its own).
            conditions: `If-Match`, `If-None-Match: *`, `Idempotency-Key`.

        Raises:
            InvalidInput: out of bounds (field named).
            SecretRefused: a string in the value, or a scalar under its key (`{"pin":
                4821}`), carries a credential (field `value`; nothing written).
            PreconditionFailed: a condition does not hold (412; nothing written).
            Conflict: the idempotency key was used for another request (409).
            NotFound: `group_id` is not a group the author belongs to.
        """
        packed = compact(value)  # bounds first: the scan reads a value of at most 64 KB
        refuse_secrets({"value": value})
        return self._write(author, workflow, key, group_id, conditions, packed)

    def delete_state(
        self,
        author: Author,
        workflow: str,
        key: str,
        *,
        group_id: str | None = None,
        conditions: Conditions = Conditions(),
    ) -> StateWrite:
        """Delete a value: a version saying so; reads with `known_at` before now still see
        the value, and its version numbers continue if it is set again.

        Raises:
            NotFound: no value (or not a group of the author's).
            PreconditionFailed: `If-Match` names another version.
        """
        return self._write(author, workflow, key, group_id, conditions, None)
