"""Prefetch's budgets and determinism (CONTRACT §6: capped, byte-identical).

The budget property runs on `api.chat.prefetch.block.compose` over one view read from the store,
so hypothesis can try many budgets without a round trip each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from neo4j import Driver

from api.chat.prefetch import block as prefetch
from api.chat.prefetch.mentions import mention_keys
from graph.read.reader import Reader
from graph.scope import Scope
from graph.time import utcnow
from tests.api.conftest import Api
from tests.conftest import Neo4jServer

ROOT = Path(__file__).resolve().parents[2]
MESSAGE = "Lunch with Ana, Bruno and the K8s migration team; ask Carla about it."
SINCE = "2024-01-01T00:00:00Z"


def _populate(api: Api) -> None:
    """Preferences, three mentioned entities with facts and relationships, and events."""
    me = api.entity("Me")["id"]
    for attribute, value in (
        ("answer_style", "terse"),
        ("language", "Portuguese"),
        ("preference", "no emojis"),
        ("units", "metric"),
    ):
        api.fact(me, attribute=attribute, value=value, valid_from=SINCE)
    ana, bruno, carla = (api.entity(n)["id"] for n in ("Ana", "Bruno", "Carla"))
    k8s = api.entity("K8s migration", kind="project")["id"]
    for who, place, job in (
        (ana, "Porto", "nurse"),
        (bruno, "Braga", "chef"),
        (carla, "Faro", "engineer"),
    ):
        api.fact(who, attribute="location", value=place, valid_from=SINCE)
        api.fact(who, attribute="occupation", value=job, valid_from="2024-02-01T00:00:00Z")
        api.fact(who, attribute="likes", value="hiking", valid_from=SINCE)
        api.fact(who, attribute="works_on", object_id=k8s, valid_from=SINCE)
        api.fact(who, attribute="knows", object_id=me, valid_from=SINCE)
    api.fact(ana, attribute="knows", object_id=bruno, valid_from=SINCE)
    api.fact(k8s, attribute="status", value="blocked on DNS", valid_from="2024-04-01T00:00:00Z")
    for day in ("2024-03-01", "2024-04-01", "2024-05-01", "2024-05-15"):
        api.fact(
            me,
            attribute="participated_in",
            value=f"team offsite {day}",
            valid_from=f"{day}T09:00:00Z",
        )


def test_budget_keeps_a_prefix_by_rank_of_whole_lines(api: Api, neo4j_driver: Driver) -> None:
    """For any budget (characters and items) the block holds the first k lines of the
    global ranking, each whole, within both budgets, and the next line would not fit."""
    _populate(api)
    at = utcnow()
    with Reader(neo4j_driver).snapshot() as snap:
        view = prefetch.read_view(snap, Scope(api.owner), mention_keys(MESSAGE), at)
    full = prefetch.compose(view, at, 10**6, 10**6)
    ranked = [i["line"] for i in sorted(full.items, key=lambda i: i["rank"])]
    assert len(ranked) > 20 and len(full.block) > 1000

    @given(st.integers(200, len(full.block) + 50), st.integers(1, len(ranked) + 5))
    def check(max_chars: int, max_items: int) -> None:
        cut = prefetch.compose(view, at, max_chars, max_items)
        k = len(cut.items)
        assert len(cut.block) <= max_chars and k <= max_items
        assert sorted(i["rank"] for i in cut.items) == list(range(k))
        assert all(i["line"] == ranked[i["rank"]] for i in cut.items)
        body = [ln for ln in cut.block.splitlines()[2:] if ln and not ln.startswith("### ")]
        assert sorted(body) == sorted(ranked[:k])  # whole lines only, nothing else
        if k < len(ranked) and k < max_items:  # maximal: one more line would not fit
            assert len(prefetch.compose(view, at, 10**6, k + 1).block) > max_chars

    check()


_CHILD = """
import json, sys
from datetime import datetime
from api.chat.prefetch import block as prefetch
from graph.driver import connect
from graph.read.reader import Reader
uri, user, password, owner, at, message = sys.argv[1:]
with connect(uri, user or None, password or None) as driver:
    out = prefetch.build(Reader(driver, retry=False), owner, "c", message,
                         datetime.fromisoformat(at), 2000, 40)
print(json.dumps({"block": out.block, "items": out.items}, sort_keys=True))
"""


def _in_child(server: Neo4jServer, owner: str, at: datetime, seed: str) -> str:
    user, password = server.auth or ("", "")
    env = dict(os.environ, PYTHONHASHSEED=seed)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, server.uri, user, password, owner, at.isoformat(), MESSAGE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


def test_byte_identical_twice_and_across_processes(api: Api, neo4j_server: Neo4jServer) -> None:
    """Same store state and input: the same bytes, twice over REST and in two other
    processes with different hash seeds (no set or dict order leaks into the block)."""
    _populate(api)
    at = utcnow()
    body = {"chat_id": "c", "message": MESSAGE, "at": at.isoformat()}
    first = api.post("/v1/prefetch", body).json()
    second = api.post("/v1/prefetch", body).json()
    assert first["degraded"] is False and first == second
    mine = json.dumps({"block": first["block"], "items": first["items"]}, sort_keys=True)
    assert _in_child(neo4j_server, api.owner, at, "1") == mine + "\n"
    assert _in_child(neo4j_server, api.owner, at, "2") == mine + "\n"


def test_default_budget_for_five_entities_is_under_2000_characters(api: Api) -> None:
    """Five mentioned entities with many facts each: the default block stays under 2,000
    characters and still names every one of them."""
    names = ("Ana", "Bruno", "Carla", "Duarte", "Eva")
    ids = [api.entity(n)["id"] for n in names]
    for i, eid in enumerate(ids):
        for attribute in ("location", "occupation", "employer", "hometown", "likes", "hobby"):
            api.fact(eid, attribute=attribute, value=f"{attribute} value {i}", valid_from=SINCE)
        api.fact(eid, attribute="knows", object_id=ids[(i + 1) % 5], valid_from=SINCE)
    r = api.post("/v1/prefetch", {"chat_id": "c", "message": "Ana, Bruno, Carla, Duarte, Eva?"})
    block = r.json()["block"]
    assert len(block) < 2000 and all(f"**{n}**" in block for n in names), block


def _items(body: dict[str, Any]) -> list[str]:
    return [i["kind"] for i in body["items"]]


def test_max_items_counts_lines(api: Api) -> None:
    """`max_items` caps the items (lines); the first ones by rank are kept."""
    _populate(api)
    body = {"chat_id": "c", "message": MESSAGE}
    three = api.post("/v1/prefetch", dict(body, max_items=3)).json()
    assert _items(three) == ["preference"] * 3
    six = api.post("/v1/prefetch", dict(body, max_items=6)).json()
    assert _items(six) == ["preference"] * 4 + ["entity"] * 2
