"""No query of graph/cypher scans a whole label: each one starts from an index seek."""

from __future__ import annotations

import importlib
import pkgutil
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import Driver

import graph.cypher
from graph.cypher.events import RECORD_TRAIL
from graph.scope import Scope, note_params
from graph.scope import params as scope_params
from graph.time import FAR_FUTURE

MODULES = [
    importlib.import_module(f"graph.cypher.{m.name}")
    for m in pkgutil.iter_modules(graph.cypher.__path__)
]

EXEMPT = {
    "RAW_CREATE",  # the benchmark floor: creates only
    "REMAINING",  # erasure's proof: counts every label on purpose (graph/cypher/erasure.py)
    "OWNED_BESIDES_TOKENS",  # an import's emptiness check, same reason (cypher/portability.py)
}


def _constants(module: Any, name: str) -> list[tuple[str, str]]:
    """A query constant, or each query of a constant dict of them (keyed by label)."""
    value = getattr(module, name)
    if isinstance(value, dict):
        return [(f"{name}[{k}]", v) for k, v in value.items() if isinstance(v, str)]
    return [(name, value)] if isinstance(value, str) else []


QUERIES = [
    (f"{module.__name__}.{label}", query)
    for module in MODULES
    for name in dir(module)
    if name.isupper() and name not in EXEMPT
    for label, query in _constants(module, name)
    if "MATCH" in query or "MERGE" in query
]


def _operators(plan: Any) -> list[str]:
    out = [plan.get("operatorType", "")]
    for child in plan.get("children", []):
        out.extend(_operators(child))
    return out


@pytest.mark.parametrize(("name", "query"), QUERIES, ids=[n for n, _ in QUERIES])
def test_query_never_scans_a_label(neo4j_driver: Driver, name: str, query: str) -> None:
    """EXPLAIN shows no NodeByLabelScan or AllNodesScan (regression: HISTORY scanned every Fact)."""
    now = datetime.now(UTC)
    params = {
        "owner": "o",
        "entity_id": "e",
        "entity_ids": ["e"],
        "attribute": "location",
        "attributes": ["x"],
        "known_at": now,
        "valid_at": now,
        "include_retracted": False,
        "skip": 0,
        "limit": 10,
        "q": "x",
        "kind": "person",
        "after": None,
        "name": "x",
        "fact_id": "f",
        "key": "k",
        "hash": "h",
        "t": now,
        "far": FAR_FUTURE,
        "pairs": [],
        "group_id": "g",
        "member": "m",
        "id": "i",
        "batch": 10,
        "prefix": "o/",
        "rows": [],
        "edges": [],
        "props": {},
        **scope_params(Scope("o")),
        # Notes (graph/cypher/notes.py, note_rows.py, note_memory.py)
        "note_id": "n",
        "version_id": "v",
        "project": None,
        "status": None,
        "tier": None,
        "after_vf": None,
        "after_id": None,
        "at": now,
        "lucene": "x",
        "words": "x",
        "own": "",
        "k": 10,
        "max_notes": 3,
        "body_chars": 10,
        "notes_area": False,
        "groups": ["g"],
        "key_norm": "k",
        "content_norm": "c",
        "project_norm": None,
        "all_rows": False,
        "cutoff": now,
        "to": "p",
        "keys": ["k"],
        "tx_id": "x",
        "token_id": "t",
        "hour": now,
        "sessions": 0,
        "ids": ["i"],
        "note_ids": ["n"],
        "task": None,
    }
    # Prefetch's notes query takes its per-turn strings in one map (graph/cypher/notes.py).
    params["turn"] = {**note_params(Scope("o")), "words": "x", "own": "", "project": "p"}
    # Scoped reads: planned with shares, as a member of a group reads them (CONTRACT §7).
    params |= {
        k: v for k, v in scope_params(Scope("o", shared=("s1", "s2"))).items() if k != "owner"
    }
    with neo4j_driver.session() as session:
        plan = session.run("EXPLAIN " + query, params).consume().plan
    ops = _operators(plan)
    assert not [op for op in ops if "LabelScan" in op or "AllNodesScan" in op], (name, ops)


def test_the_trail_takes_its_lists_in_one_map_parameter() -> None:
    """Issue 12: Neo4j keys its plan cache by the statement and its parameters' types, and a
    list parameter's type carries its length (0, 1, up to 10, up to 100, ...). RECORD_TRAIL,
    with nine list parameters, was planned again (0.3-0.5 s of Neo4j's CPU) for each
    combination of their lengths. A map parameter's type has no length: one plan for all."""
    assert set(re.findall(r"\$(\w+)", RECORD_TRAIL)) == {"owner", "trail"}
