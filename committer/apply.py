"""The only executor of writes (STYLE: "committer/apply.py (the only executor)").

Each public method is one Neo4j transaction: it locks the owner (serializing commits of
one owner, CONTRACT §2.1 rule 6), takes the commit time, reads the current rows it
needs, plans with the pure rules in `committer.rules.plan`, and writes the plan. Either
all of it lands or none of it does (STYLE: "one commit is one Neo4j transaction").
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from committer.batch import Batch, CommitResult, start_of
from committer.decisions import DecisionCommands
from committer.entity_changes import EntityChangeCommands
from committer.episodes import EpisodeCommands
from committer.erasure import ErasureCommands
from committer.groups import GroupCommands
from committer.knowledge import KnowledgeCommands
from committer.notes import NoteCommands
from committer.owners import ensure_owner, live_entity, new_entity
from committer.portability import PortabilityCommands
from committer.proposals import Assertion
from committer.remember import RememberCommands
from committer.rules.plan import plan_end
from committer.rules.retract import gather_predecessors, plan_retract
from committer.runs import RunCommands
from committer.secrets import refuse_secrets
from committer.state import StateCommands
from committer.trail import Trail
from committer.usage import UsageCommands
from graph.attributes import known_areas
from graph.errors import Conflict, InvalidInput
from graph.names import check_owner_name, token_hash
from graph.records import (
    MEMORY_MODES,
    EntityRecord,
    FactRecord,
    MemoryAccess,
    TokenRecord,
)
from graph.time import FAR_FUTURE, utcnow
from graph.write.writer import WriteTx, new_id


@dataclass(frozen=True, slots=True)
class RetractResult:
    """The outcome of forget or retract (CONTRACT §10 `DELETE /v1/facts/{id}`).

    Attributes:
        retracted: ids of rows whose retracted_at became `recorded_at`.
        fact: the new `invalidated` row of a forget, or None.
        restored: rows recorded again by a retract (values it had pushed out).
        recorded_at: the commit's transaction time, aware UTC.
        event_id: the action event that records it (CONTRACT §8).
    """

    retracted: tuple[str, ...]
    fact: FactRecord | None
    restored: tuple[FactRecord, ...]
    recorded_at: datetime
    event_id: str | None = None


SOURCES = ("user_stated", "user_edit", "inferred", "untrusted", "integration")
"""Sources a restricted memory access may list (CONTRACT §10 Fact.source; `integration`
admits every `integration:<name>`, graph/scope.py)."""


class Committer(
    DecisionCommands,
    GroupCommands,
    ErasureCommands,
    EntityChangeCommands,
    RunCommands,
    NoteCommands,
    KnowledgeCommands,
    RememberCommands,
    StateCommands,
    UsageCommands,
    EpisodeCommands,
    PortabilityCommands,
):
    """The only writer of facts (CONTRACT §1): the facade of the command groups, on one base
    (committer.base.CommitterBase, whose arguments it takes)."""

    # --- owners, entities, tokens --------------------------------------------------------

    def ensure_owner(self, owner: str) -> str:
        """Create the owner and its own person entity if missing; return that entity's id."""
        return self._writer.transaction(lambda w: ensure_owner(w, owner)[0])

    def create_entity(
        self,
        owner: str,
        name: str,
        kind: str,
        aliases: Sequence[str] = (),
        area: str | None = None,
    ) -> EntityRecord:
        """Create an entity (CONTRACT §10 `POST /v1/entities`); the owner is created if new.

        Args:
            owner: the owner id.
            name: display name (non-empty).
            kind: person, project, place, ... (free text, lower case by convention).
            aliases: other names it goes by.
            area: the life area for access policies, or None.
        """

        def work(w: WriteTx) -> EntityRecord:
            ensure_owner(w, owner)
            t = w.begin_commit(owner, utcnow())
            return new_entity(w, owner, name, kind, aliases, area, t)

        return self._writer.transaction(work)

    def create_token(self, owner: str, scopes: Sequence[str]) -> tuple[str, TokenRecord]:
        """Create a bearer token for `owner` (created if new); return (secret, record).

        Only the sha256 of the secret is stored (CONTRACT §7).

        Raises:
            InvalidInput: field `owner`, a name `graph.names.check_owner_name` refuses
                (nothing written).
        """
        check_owner_name(owner)
        secret = "ws_" + secrets.token_urlsafe(32)

        def work(w: WriteTx) -> TokenRecord:
            ensure_owner(w, owner)
            return w.create_token(
                owner,
                token_id=new_id("tok"),
                token_hash=token_hash(secret),
                scopes=list(scopes),
                now=utcnow(),
            )

        return secret, self._writer.transaction(work)

    # --- facts ---------------------------------------------------------------------------

    def assert_fact(self, owner: str, assertion: Assertion, by: str = "rest") -> CommitResult:
        """Commit one assertion by CONTRACT §2.1 rules 1-4 and 6, in one transaction.

        `by` names who asserted it (`rest`, `chat:<id>`), recorded on its action event.

        Raises:
            NotFound: the entity (or object entity) is not the owner's.
            InvalidInterval: valid_to is not after valid_from.
            InvalidInput: neither or both of value and object_id are given.
            SecretRefused: the value, evidence or reason carries a credential.
        """

        return self.assert_facts(owner, [assertion], by)[0]

    def assert_facts(
        self, owner: str, assertions: Sequence[Assertion], by: str = "rest"
    ) -> list[CommitResult]:
        """Commit several assertions in one transaction at one commit time, in order.

        Later assertions see the effect of earlier ones (CONTRACT §2.1 applies to each
        in turn). Either all land or none does. One `action` event (`assert`, actor
        `by`) records them (CONTRACT §8).

        Raises:
            NotFound: an entity (or object entity) is not the owner's.
            InvalidInterval: a valid_to is not after its valid_from.
            InvalidInput: neither or both of value and object_id are given.
            SecretRefused: a value (read under its attribute), evidence or reason carries a
                credential: nothing is written (CONTRACT §3, `committer.secrets`).
        """
        for a in assertions:
            p = a.provenance
            fields = {"value": a.value, "evidence": p.evidence, "reason": p.reason}
            refuse_secrets(fields, {"value": a.attribute})

        def work(w: WriteTx) -> list[CommitResult]:
            t = w.begin_commit(owner, utcnow())
            # A merged entity's id stands for its survivor (CONTRACT §5).
            merged = w.require_entities(
                owner,
                [a.entity_id for a in assertions]
                + [a.object_id for a in assertions if a.object_id],
            )
            live = {i: live_entity(w, owner, i).id for i in merged}
            current = [
                a.model_copy(
                    update={
                        "entity_id": live.get(a.entity_id, a.entity_id),
                        "object_id": live.get(a.object_id, a.object_id) if a.object_id else None,
                    }
                )
                for a in assertions
            ]
            trail = Trail(w, owner, t)
            trail.act(
                "action",
                actor=by,
                action="assert",
                entity_id=current[0].entity_id if current else None,
            )
            batch = Batch(w, owner, t, trail)
            batch.load([(a.entity_id, a.attribute, start_of(a.valid_from, t)) for a in current])
            results = [batch.assert_(a) for a in current]
            batch.flush()
            return [batch.settle(r) for r in results]

        return self._writer.transaction(work)

    def forget(self, owner: str, fact_id: str, by: str = "rest") -> RetractResult:
        """Forget a fact: it no longer holds from now on (CONTRACT §2.2).

        Forgetting a row that is already `invalidated` and ended changes nothing: the
        result names no retracted row and returns that row. The person's `action` event
        (`forget`, actor `by`) is recorded either way (CONTRACT §8).

        Raises:
            NotFound: no such row for this owner.
            Conflict: the row is already retracted (it is not current knowledge).
        """

        def work(w: WriteTx) -> RetractResult:
            t = w.begin_commit(owner, utcnow())
            row = _current(w, owner, fact_id)
            trail = Trail(w, owner, t)
            act = trail.act(
                "action", actor=by, action="forget", fact_id=fact_id, entity_id=row.entity_id
            )
            if row.status == "invalidated" and row.valid_to <= t:
                trail.flush()
                return RetractResult((), row, (), t, act)  # already forgotten: no change
            batch = Batch(w, owner, t, trail)
            created = batch.execute(plan_end(row, t), row.entity_id, row.attribute)
            batch.flush()
            return RetractResult((row.id,), created[0] if created else None, (), t, act)

        return self._writer.transaction(work)

    def retract(self, owner: str, fact_id: str, by: str = "rest") -> RetractResult:
        """Retract a fact: it was never true; what it pushed out comes back (CONTRACT §2.2).

        Its claim stays declared never true: no later retract brings back any part of it
        that was not current when it was retracted (`committer.rules.plan.gather_predecessors`).
        Recorded as the person's `action` event (`retract`, actor `by`; CONTRACT §8); its
        `ENDED {op: "retracted"}` edge is what marks the claim.

        Raises:
            NotFound: no such row for this owner.
            Conflict: the row is already retracted.
        """

        def work(w: WriteTx) -> RetractResult:
            t = w.begin_commit(owner, utcnow())
            row = _current(w, owner, fact_id)
            lineage = w.lineage(owner, row.id)
            trail = Trail(w, owner, t)
            act = trail.act(
                "action", actor=by, action="retract", fact_id=fact_id, entity_id=row.entity_id
            )
            batch = Batch(w, owner, t, trail)
            rows = batch.rows(row.entity_id, row.attribute, min(start for start, _ in lineage))
            predecessors = gather_predecessors(
                row.id, lambda ids: w.predecessors(owner, ids, undoing=row.id)
            )
            plan = plan_retract(row, lineage, predecessors, rows)
            created = batch.execute(plan, row.entity_id, row.attribute)
            batch.flush()
            return RetractResult(plan.retract, None, tuple(created), t, act)

        return self._writer.transaction(work)

    # --- memory access -------------------------------------------------------------------

    def set_memory_access(
        self,
        owner: str,
        chat_id: str | None,
        mode: str,
        areas: Sequence[str] = (),
        sources: Sequence[str] = (),
    ) -> MemoryAccess:
        """Set a chat's memory access, or the owner's default with `chat_id` None (CONTRACT §7).

        Args:
            owner: the owner id (created if new).
            chat_id: the chat, or None for the owner's profile default.
            mode: `none`, `restricted` or `full`.
            areas: areas a fact may come from under `restricted` (empty: none passes);
                empty under the other modes.
            sources: sources allowed under `restricted` (empty: none passes); empty
                under the other modes.

        Returns:
            The stored setting.

        Raises:
            InvalidInput: an unknown mode, area (graph/attributes.py) or source; or a
                list that names anything with mode `full` or `none` (the lists apply only
                under `restricted`, CONTRACT §7: stored, they would read as a restriction
                that is not there), naming `areas` or `sources`.
            Conflict: the chat id collides with another owner's chat key.
        """
        if mode not in MEMORY_MODES:
            raise InvalidInput("mode", f"must be one of {', '.join(MEMORY_MODES)}")
        if mode != "restricted":
            for name, given in (("areas", areas), ("sources", sources)):
                if given:
                    raise InvalidInput(
                        name,
                        f"applies only with mode `restricted`; with mode `{mode}` "
                        "leave it out (or empty)",
                    )
        known = known_areas()
        for area in areas:  # a typo would silently let nothing through (fail-closed)
            if area not in known:
                raise InvalidInput(
                    "areas", f"unknown area {area!r}; known: {', '.join(sorted(known))}"
                )
        for source in sources:
            if source not in SOURCES and not (
                source.startswith("integration:") and len(source) > len("integration:")
            ):
                raise InvalidInput(
                    "sources",
                    f"unknown source {source!r}; known: {', '.join(SOURCES)}, integration:<name>",
                )

        def work(w: WriteTx) -> MemoryAccess:
            ensure_owner(w, owner)
            return w.set_memory_access(
                owner, chat_id, mode=mode, areas=list(areas), sources=list(sources), now=utcnow()
            )

        return self._writer.transaction(work)


def _current(w: WriteTx, owner: str, fact_id: str) -> FactRecord:
    row = w.fact(owner, fact_id)
    if row.retracted_at < FAR_FUTURE:
        raise Conflict(f"fact {fact_id!r} is already retracted; only current rows change")
    return row
