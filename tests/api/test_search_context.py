"""Search reads an episode in its context: the messages next to it in its run (CONTRACT §6
"Pull", §12; api/chat/search.py `W_CONTEXT`, graph/cypher/context.py)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from neo4j import Driver

from api.chat.search import W_CONTEXT
from graph.read.reader import Reader
from graph.records import MemoryAccess
from graph.scope import Scope
from graph.time import AsOf, utcnow
from tests.api.conftest import Api
from tests.api.test_episodes import post_run

QUESTION = "Did you ever try that pottery class in Lisbon?"
REPLY = "Yes, last Friday, I loved it!"


def pottery(api: Api, app: Any) -> None:
    """Jon asks about a pottery class, the owner answers without naming it, more talk."""
    post_run(
        api,
        app,
        "r1",
        [
            {"role": "user", "speaker": "Jon", "text": QUESTION},
            {"role": "user", "text": REPLY},
            {"role": "user", "speaker": "Jon", "text": "The weather turned cold this week."},
            {"role": "user", "text": "I bought a new winter coat."},
        ],
    )


def test_a_reply_is_found_by_the_words_of_the_message_it_answers(api: Api, app: Any) -> None:
    """ "pottery class": the reply holds neither word, the question before it holds both,
    so the reply's lexical evidence is W_CONTEXT and it outranks the talk after it, which
    no message next to it ties to pottery."""
    pottery(api, app)
    items = api.get("/v1/search", params={"q": "pottery class", "limit": 10}).json()["items"]
    said = {i["episode"]["text"]: i for i in items if i["kind"] == "episode"}
    assert said[QUESTION]["lexical_score"] == 1.0
    assert said[REPLY]["lexical_score"] == W_CONTEXT
    coat = said.get("I bought a new winter coat.")
    assert coat is None or (coat["lexical_score"] == 0.0 and coat["score"] < said[REPLY]["score"])


def test_only_neighbours_the_reader_may_see_lend_context(
    api: Api, app: Any, neo4j_driver: Driver
) -> None:
    """The context is the messages just before and after, read like any episode: an
    assistant's message (source `untrusted`) lends nothing to a chat restricted to
    `user_stated`, a `none` chat reads none, and nothing recorded after `known_at` counts."""
    post_run(
        api,
        app,
        "r2",
        [
            {"role": "assistant", "text": QUESTION},
            {"role": "user", "text": REPLY},
            {"role": "user", "text": "The weather turned cold this week."},
        ],
    )
    reader = Reader(neo4j_driver)
    full = Scope(api.owner)
    now = AsOf.at()
    reply = next(e for e in reader.episodes(full, now, run_id="r2") if e.text == REPLY)
    assert reader.neighbour_texts(full, [reply], now) == {
        reply.id: [QUESTION, "The weather turned cold this week."]
    }
    users_only = Scope(api.owner, MemoryAccess("restricted", ("conversation",), ("user_stated",)))
    assert reader.neighbour_texts(users_only, [reply], now) == {
        reply.id: ["The weather turned cold this week."]
    }
    assert reader.neighbour_texts(Scope(api.owner, MemoryAccess("none")), [reply], now) == {}
    before = AsOf.at(known_at=utcnow() - timedelta(days=1))
    assert reader.neighbour_texts(full, [reply], before) == {}
    assert reader.neighbour_texts(full, [], now) == {}
