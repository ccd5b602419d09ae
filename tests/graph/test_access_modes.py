"""On a cluster, reads go to any member and writes to the leader: every Reader method runs
in READ transactions only, and every commit in a WRITE transaction (graph/bookmarks.py).

Each public method of `Reader` has a row in `CALLS`; a method added later without a row
fails `test_every_reader_method_has_a_call`. Each row runs against the real Neo4j through
a driver that refuses any session that is not READ and any managed write, so a Reader
method that wrote, or asked for a WRITE session, would fail here (and Neo4j itself
refuses a write inside a READ transaction).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable
from typing import Any

import pytest
from neo4j import Driver

from api.chat.prefetch.block import LIMITS
from committer.apply import Committer
from committer.proposals import Assertion
from graph.cypher.portability import EXPORT_RELATIONS
from graph.errors import WorldstateError
from graph.held import Holder
from graph.read.reader import Reader
from graph.scope import Reach, Scope
from graph.time import AsOf, utcnow


class ModeCheckingDriver:
    """A driver whose sessions must declare READ (or WRITE when `mode` says so); every
    session opened and every transaction begun is recorded as (kind, mode)."""

    def __init__(self, real: Driver, mode: str):
        self._real = real
        self._mode = mode
        self.seen: list[tuple[str, str]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def session(self, **config: Any) -> Any:
        mode = config.get("default_access_mode", "WRITE")  # the driver's default
        self.seen.append(("session", mode))
        assert mode == self._mode, f"a {mode} session where only {self._mode} is allowed"
        assert config.get("bookmark_manager") is self._real.execute_query_bookmark_manager
        return _ModeCheckingSession(self._real.session(**config), self)


class _ModeCheckingSession:
    def __init__(self, real: Any, driver: ModeCheckingDriver):
        self._real = real
        self._driver = driver

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def __enter__(self) -> _ModeCheckingSession:
        self._real.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._real.__exit__(*exc)

    def execute_read(self, work: Any, *args: Any, **kw: Any) -> Any:
        self._driver.seen.append(("execute_read", "READ"))
        assert self._driver._mode == "READ", "a managed read where only writes are expected"
        return self._real.execute_read(work, *args, **kw)

    def execute_write(self, work: Any, *args: Any, **kw: Any) -> Any:
        self._driver.seen.append(("execute_write", "WRITE"))
        assert self._driver._mode == "WRITE", "a managed write in a read-only driver"
        return self._real.execute_write(work, *args, **kw)

    def begin_transaction(self, *args: Any, **kw: Any) -> Any:
        self._driver.seen.append(("begin_transaction", self._driver._mode))
        return self._real.begin_transaction(*args, **kw)


W = dict[str, Any]
_ANY_RELATION = sorted(EXPORT_RELATIONS)[0]
"""A relationship type the export pages through (graph/cypher/portability.py)."""
"""The seeded world a call reads: owner, scope, entity, fact ids."""


def _in_snapshot(reader: Reader, w: W) -> Any:
    with reader.snapshot() as snap:
        return snap.facts(w["owner"], w["ana"], AsOf.at())


CALLS: dict[str, Callable[[Reader, W], Any]] = {
    "access_log": lambda r, w: r.access_log(w["owner"], []),
    "chat_history": lambda r, w: r.chat_history(
        w["scope"], "c", before=utcnow(), oldest=w["past"], limit=5
    ),
    "document": lambda r, w: r.document(Reach(w["owner"]), "none"),
    "documents": lambda r, w: r.documents(Reach(w["owner"])),
    "group_creator": lambda r, w: r.group_creator("grp_000000000000000000000000"),
    "managed_groups": lambda r, w: r.managed_groups(w["owner"]),
    "pointers": lambda r, w: r.pointers(Reach(w["owner"]), "Porto"),
    "reach": lambda r, w: r.reach(w["owner"]),
    "state": lambda r, w: r.state(Reach(w["owner"]), Holder(owner=w["owner"]), "wf", "k"),
    "usage_summary": lambda r, w: r.usage_summary(w["owner"], w["past"], utcnow(), "day"),
    "versions": lambda r, w: r.versions(Reach(w["owner"]), Holder(owner=w["owner"]), "none"),
    "as_known": lambda r, w: r.as_known(r.entity(w["owner"], w["ana"]), w["past"]),
    "corroborations": lambda r, w: r.corroborations(w["owner"], w["fact"]),
    "effects": lambda r, w: r.effects(w["scope"], "run-none"),
    "entities": lambda r, w: r.entities(w["owner"], q="ana"),
    "entities_as_of": lambda r, w: r.entities_as_of(w["owner"], utcnow(), q="ana"),
    "entities_by_ids": lambda r, w: r.entities_by_ids(w["owner"], [w["ana"]]),
    "entities_named": lambda r, w: r.entities_named(w["scope"], "Ana", utcnow()),
    "entity": lambda r, w: r.entity(w["owner"], w["ana"]),
    "entity_names": lambda r, w: r.entity_names(w["owner"]),
    "entity_rows": lambda r, w: r.entity_rows(w["scope"], [w["ana"]], utcnow(), None),
    "episode": lambda r, w: r.episode(w["scope"], "epi_none"),
    "episode_fulltext": lambda r, w: r.episode_fulltext(w["scope"], "Porto", AsOf.at(), 5),
    "episode_semantic": lambda r, w: r.episode_semantic(
        w["scope"], [0.1] * 384, "local:none", AsOf.at(), 5
    ),
    "episodes": lambda r, w: r.episodes(w["scope"], AsOf.at()),
    "episodes_at": lambda r, w: r.episodes_at(w["scope"], [("r1", 0)], AsOf.at()),
    "event": lambda r, w: r.event(w["owner"], "run-none"),
    "export_page": lambda r, w: r.export_page(w["owner"], "Entity", "", 10),
    "export_relations": lambda r, w: r.export_relations(w["owner"], _ANY_RELATION, "", 10),
    "fact": lambda r, w: r.fact(w["owner"], w["fact"]),
    "facts": lambda r, w: r.facts(w["owner"], w["ana"], AsOf.at()),
    "facts_of_entities": lambda r, w: r.facts_of_entities(w["owner"], [w["ana"]], AsOf.at()),
    "fulltext": lambda r, w: r.fulltext(w["scope"], "Porto", AsOf.at(), 5),
    "group": lambda r, w: r.group(w["owner"], "grp_000000000000000000000000"),
    "groups": lambda r, w: r.groups(w["owner"]),
    "history": lambda r, w: r.history(w["owner"], w["ana"], "location"),
    "last_surfaced": lambda r, w: r.last_surfaced(w["owner"], "c"),
    "message_episodes": lambda r, w: r.message_episodes(w["scope"], "run-none", "m0"),
    "memory_access": lambda r, w: r.memory_access(w["owner"], "c"),
    "nearest": lambda r, w: r.nearest(w["scope"], [0.1] * 384, "local:none", AsOf.at(), 5),
    "plan_recall": lambda r, w: r.plan_recall("\x00nobody", [0.1] * 384, "local:none", AsOf.at()),
    "neighbors": lambda r, w: r.neighbors(w["scope"], w["ana"], 2, AsOf.at()),
    "notification": lambda r, w: r.notification(w["owner"], "ntf_none"),
    "notifications": lambda r, w: r.notifications(w["owner"]),
    "owner_last_tx": lambda r, w: r.owner_last_tx(w["owner"]),
    "owner_attributes": lambda r, w: r.owner_attributes(w["owner"], ["location"], AsOf.at()),
    "ping": lambda r, w: r.ping(),
    "prefetch_scope": lambda r, w: r.prefetch_scope(w["owner"], "c", utcnow()),
    "prefetch_view": lambda r, w: r.prefetch_view(
        w["scope"],
        {w["ana"]: 0},
        AsOf.at(),
        preference_attributes=["likes"],
        event_attribute="did",
        attribute_order={"location": 0},
        limits=LIMITS,
    ),
    "prefetch_turn": lambda r, w: r.prefetch_turn(
        w["scope"],
        {w["ana"]: 0},
        AsOf.at(),
        preference_attributes=["likes"],
        event_attribute="did",
        attribute_order={"location": 0},
        limits=LIMITS,
        message="Porto",
        reach=Reach(w["owner"]),
    ),
    "recall": lambda r, w: r.recall(w["scope"], "Porto", AsOf.at(), 5, [0.1] * 384, "local:none"),
    "note": lambda r, w: r.note(w["scope"], "not_none", AsOf.at()),
    "note_count": lambda r, w: r.note_count(w["owner"]),
    "note_groups": lambda r, w: r.note_groups(w["owner"], utcnow()),
    "note_history": lambda r, w: r.note_history(w["scope"], "not_none", utcnow()),
    "note_sessions": lambda r, w: r.note_sessions(w["owner"], utcnow(), 5),
    "note_task_stats": lambda r, w: r.note_task_stats(w["owner"]),
    "note_tasks": lambda r, w: r.note_tasks(w["owner"], status=None, task=None, limit=5),
    "note_why": lambda r, w: r.note_why(w["scope"], "not_none"),
    "notes": lambda r, w: r.notes(w["scope"], AsOf.at()),
    "notes_due": lambda r, w: r.notes_due(w["scope"], AsOf.at(), utcnow(), None, 5),
    "notes_overview": lambda r, w: r.notes_overview(w["scope"], AsOf.at(), utcnow(), None),
    "prefetch_notes": lambda r, w: r.prefetch_notes(
        w["scope"], "Porto", utcnow(), max_notes=3, body_chars=200
    ),
    "recent_episodes": lambda r, w: r.recent_episodes(w["scope"], AsOf.at()),
    "search_notes": lambda r, w: r.search_notes(w["scope"], "Porto", AsOf.at()),
    "proposal": lambda r, w: r.proposal(w["owner"], "prp_none"),
    "proposals": lambda r, w: r.proposals(w["owner"]),
    "recent": lambda r, w: r.recent(w["owner"], "location", AsOf.at()),
    "resolve": lambda r, w: r.resolve(w["owner"], w["ana"]),
    "run": lambda r, w: r.run(w["owner"], "run-none"),
    "run_query": lambda r, w: r.run_query("RETURN 1 AS one"),
    "scope": lambda r, w: r.scope(w["owner"], "c"),
    "self_entity_id": lambda r, w: r.self_entity_id(w["owner"]),
    "semantic": lambda r, w: r.semantic(w["scope"], [0.1] * 384, "local:none", AsOf.at(), 5),
    "snapshot": _in_snapshot,
    "suggested_keys": lambda r, w: r.suggested_keys(w["owner"], ["k"]),
    "suggestion": lambda r, w: r.suggestion(w["owner"], "sug_none"),
    "suggestions": lambda r, w: r.suggestions(w["owner"]),
    "token": lambda r, w: r.token("0" * 64),
    "tokens": lambda r, w: r.tokens(w["owner"]),
    "visible_entities": lambda r, w: r.visible_entities(w["scope"], [w["ana"]], utcnow()),
    "why": lambda r, w: r.why(w["scope"], w["fact"]),
}


def _public_methods() -> set[str]:
    return {n for n, _ in inspect.getmembers(Reader, inspect.isfunction) if not n.startswith("_")}


@pytest.fixture
def world(neo4j_driver: Driver, owner: str) -> W:
    committer = Committer(neo4j_driver)
    committer.create_token(owner, ("read",))
    past = utcnow()
    ana = committer.create_entity(owner, name="Ana", kind="person")
    fact = committer.assert_fact(
        owner, Assertion(entity_id=ana.id, attribute="location", value="Porto")
    )
    return {
        "owner": owner,
        "scope": Scope(owner),
        "ana": ana.id,
        "fact": fact.fact.id,
        "past": past,
    }


def test_every_reader_method_has_a_call() -> None:
    """A Reader method added later must be checked here too."""
    assert set(CALLS) == _public_methods()


@pytest.mark.parametrize("method", sorted(CALLS))
def test_reader_methods_run_in_read_transactions(
    neo4j_driver: Driver, world: W, method: str
) -> None:
    """The method opens READ sessions only (with the shared bookmark manager) and never a
    managed write; it may find nothing (NotFound), but never writes."""
    driver = ModeCheckingDriver(neo4j_driver, "READ")
    for retry in (True, False):
        reader = Reader(driver, retry=retry)  # type: ignore[arg-type]
        # An absent id is an answer: the access mode is what is checked.
        with contextlib.suppress(WorldstateError):
            CALLS[method](reader, world)
    assert driver.seen, "the call reached the store"
    assert {mode for _, mode in driver.seen} == {"READ"}


def test_commits_run_in_write_transactions(neo4j_driver: Driver, owner: str) -> None:
    """The committer opens WRITE sessions only, one explicit transaction each (retried on
    leader switches by graph/transactions.py), never a READ session."""
    driver = ModeCheckingDriver(neo4j_driver, "WRITE")
    committer = Committer(driver)  # type: ignore[arg-type]
    ana = committer.create_entity(owner, name="Ana", kind="person")
    committer.assert_fact(owner, Assertion(entity_id=ana.id, attribute="location", value="Porto"))
    kinds = [kind for kind, _ in driver.seen]
    assert kinds.count("session") == kinds.count("begin_transaction") >= 2
    assert "execute_read" not in kinds
