"""Facts and episodes in one search ranking, the MCP tool layer alike, and prefetch's
section "From earlier conversations" (CONTRACT §6, §12)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from neo4j import Driver

from api.chat import tools
from graph.read.reader import Reader
from graph.time import utcnow
from tests.api.conftest import Api
from tests.api.test_episodes import post_run
from tests.api.test_search import without_bm25
from tests.conftest import Neo4jServer

ROOT = Path(__file__).resolve().parents[2]
EPISODE_KEYS = {"id", "text", "speaker", "said_at", "chat_id", "run_id", "message_id", "source"}


def talk(api: Api, app: Any) -> None:
    """A run about a trip and a cat, two speakers; a REST fact about the cat."""
    post_run(
        api,
        app,
        "r1",
        [
            {"role": "user", "text": "I went hiking in the Dolomites with my sister."},
            {"role": "user", "speaker": "Jon", "text": "My cat Miso hates thunderstorms."},
            {"role": "assistant", "text": "Thunderstorms scare many cats."},
        ],
    )
    miso = api.entity("Miso", kind="pet")
    api.fact(miso["id"], attribute="dislikes", value="thunderstorms")


def test_search_mixes_kinds_in_one_stable_ranking(api: Api, app: Any) -> None:
    """Facts and episodes come in one list, each with its `kind` and its shape; scores
    fall and say something (they differ, in [0, 1]); the same query answers the same
    order and scores again (ties by kind, then id)."""
    talk(api, app)
    first = api.get("/v1/search", params={"q": "cat thunderstorms", "limit": 10}).json()
    items = first["items"]
    assert {i["kind"] for i in items} == {"fact", "episode"}
    for i in items:
        if i["kind"] == "episode":
            assert set(i["episode"]) >= EPISODE_KEYS and "fact" not in i
        else:
            assert {"fact", "entity", "semantic_score", "fulltext_score"} <= set(i)
    scores = [i["score"] for i in items]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) > 1
    assert all(0 <= s <= 1 for s in scores)
    top = items[0]
    assert top["lexical_score"] == 1.0  # both words: Jon's episode, the fact, the answer
    again = api.get("/v1/search", params={"q": "cat thunderstorms", "limit": 10}).json()
    assert without_bm25(again) == without_bm25(first)
    jon = next(i for i in items if i["kind"] == "episode" and i["episode"]["speaker"] == "Jon")
    assert jon["episode"]["text"] == "My cat Miso hates thunderstorms."


def test_the_tool_layer_answers_alike(api: Api, app: Any, neo4j_driver: Driver) -> None:
    """The MCP `search` tool's function (api/chat/tools.py) gives the REST answer."""
    talk(api, app)
    rest = api.get("/v1/search", params={"q": "hiking trip"}).json()
    tool = tools.search(
        Reader(neo4j_driver), app.state.embedder, tools.Caller(api.owner), "hiking trip"
    )
    assert without_bm25(tool) == without_bm25(rest)
    assert rest["items"][0]["kind"] == "episode"
    assert "Dolomites" in rest["items"][0]["episode"]["text"]


_CHILD = """
import json, sys
from datetime import datetime
from api.chat.prefetch import block as prefetch
from graph.driver import connect
from graph.read.reader import Reader
uri, user, password, owner, at, message = sys.argv[1:]
with connect(uri, user or None, password or None) as driver:
    out = prefetch.build(Reader(driver, retry=False), owner, "c1", message,
                         datetime.fromisoformat(at), 2000, 40)
print(json.dumps({"block": out.block, "items": out.items}, sort_keys=True))
"""


def _in_child(server: Neo4jServer, owner: str, at: str, message: str, seed: str) -> str:
    user, password = server.auth or ("", "")
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, server.uri, user, password, owner, at, message],
        cwd=ROOT,
        env=dict(os.environ, PYTHONHASHSEED=seed),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


def test_the_prefetch_section_is_deterministic_across_processes(
    api: Api, app: Any, neo4j_server: Neo4jServer
) -> None:
    """Up to three snippets, each with date, speaker and chat, best matched first, their
    JSON items naming run and message; the same bytes twice over REST and in two other
    processes with other hash seeds."""
    post_run(
        api,
        app,
        "r1",
        [
            {
                "role": "user",
                "text": f"Day {i}: we talked about the garden and tomatoes.",
                "at": f"2024-03-0{i + 1}T09:00:00Z",
            }
            for i in range(4)
        ]
        + [{"role": "user", "speaker": "Jon", "text": "Tomatoes need sun. Basil too."}],
    )
    at = utcnow().isoformat()
    message = "Should I plant more tomatoes in the garden?"
    body = {"chat_id": "c1", "message": message, "at": at}
    first = api.post("/v1/prefetch", body).json()
    assert first["degraded"] is False and first == api.post("/v1/prefetch", body).json()
    said = [i for i in first["items"] if i["kind"] == "episode"]
    assert len(said) == 3 and {i["section"] for i in said} == {"from earlier conversations"}
    assert said[0]["text"] == "Day 3: we talked about the garden and tomatoes."  # newest
    assert [(i["run_id"], i["message_id"]) for i in said] == [("r1", f"r1-m{m}") for m in (3, 2, 1)]
    assert [i["line"][:29] for i in said] == [f"- 2024-03-0{d} you in chat c1: " for d in (4, 3, 2)]
    mine = json.dumps({"block": first["block"], "items": first["items"]}, sort_keys=True)
    assert _in_child(neo4j_server, api.owner, at, message, "1") == mine + "\n"
    assert _in_child(neo4j_server, api.owner, at, message, "2") == mine + "\n"


def test_the_section_does_not_repeat_what_a_fact_line_says(api: Api, app: Any) -> None:
    """A snippet whose only words in common with the message are already on a fact line
    is left out; one that adds a word of the message stays."""
    post_run(
        api,
        app,
        "r1",
        [
            {"role": "user", "text": "Miso is a grumpy cat."},
            {"role": "user", "text": "Miso was at the vet in March."},
        ],
    )
    miso = api.entity("Miso", kind="pet")
    api.fact(miso["id"], attribute="likes", value="grumpy mornings")
    body = {"chat_id": "c1", "message": "Is Miso still grumpy after the vet?"}
    out = api.post("/v1/prefetch", body).json()
    assert out["degraded"] is False  # past the test app's 2 s deadline on a loaded machine
    texts = [i["text"] for i in out["items"] if i["kind"] == "episode"]
    assert texts == ["Miso was at the vet in March."], out["block"]
