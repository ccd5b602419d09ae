"""Search reads an episode in its context: the messages next to it in its run that the
search found too (CONTRACT §6 "Pull", §12; api/chat/search.py `context`, `W_CONTEXT`), and
the messages next to its best results, which it reads when no list found them (`nearby`)."""

from __future__ import annotations

from typing import Any

import pytest

from api.chat.context import W_CONTEXT
from api.chat.search import search
from graph.records import MemoryAccess
from graph.scope import Scope
from graph.time import AsOf
from tests.api.conftest import Api
from tests.api.test_episodes import post_run

QUESTION = "Did you ever try that pottery class in Lisbon?"
REPLY = "Yes, last Friday, I loved it!"
AFTER = "The weather turned cold this week."


def said(api: Api, q: str, **params: Any) -> dict[str, dict[str, Any]]:
    """Episode text -> its search item, for `q`."""
    r = api.get("/v1/search", params={"q": q, "limit": 10, **params})
    assert r.status_code == 200, r.text
    return {i["episode"]["text"]: i for i in r.json()["items"] if i["kind"] == "episode"}


def test_a_reply_is_found_by_the_words_of_the_message_it_answers(api: Api, app: Any) -> None:
    """ "pottery class": the reply holds neither word, the question before it holds both,
    so the reply's lexical evidence is W_CONTEXT and it outranks the talk after it, which
    no message next to it ties to pottery."""
    post_run(
        api,
        app,
        "r1",
        [
            {"role": "user", "speaker": "Jon", "text": QUESTION},
            {"role": "user", "text": REPLY},
            {"role": "user", "speaker": "Jon", "text": AFTER},
            {"role": "user", "text": "I bought a new winter coat."},
        ],
    )
    found = said(api, "pottery class")
    assert found[QUESTION]["lexical_score"] == 1.0
    assert found[REPLY]["lexical_score"] == W_CONTEXT
    coat = found.get("I bought a new winter coat.")
    assert coat is None or (coat["lexical_score"] == 0.0 and coat["score"] < found[REPLY]["score"])


def test_a_neighbour_the_chat_may_not_see_lends_nothing(api: Api, app: Any) -> None:
    """The assistant asked (source `untrusted`): in a chat restricted to `user_stated` the
    question is not found, so the reply reads alone; with full access it has its context."""
    put = api.client.put
    body = {"mode": "restricted", "areas": ["conversation"], "sources": ["user_stated"]}
    assert put("/v1/chats/narrow/memory-access", json=body, headers=api.headers).status_code == 200
    post_run(
        api,
        app,
        "r2",
        [
            {"role": "assistant", "text": QUESTION},
            {"role": "user", "text": REPLY},
            {"role": "user", "text": AFTER},
        ],
    )
    narrow = said(api, "pottery class", chat_id="narrow")
    assert QUESTION not in narrow
    assert REPLY not in narrow or narrow[REPLY]["lexical_score"] == 0.0
    assert said(api, "pottery class")[REPLY]["lexical_score"] == W_CONTEXT


ROAD = "Where did you go on your road trip?"
TOWN = "Woodhaven, a small town in the Midwest."
LOVELY = "Sounds lovely!"
COAT = "I bought a new winter coat."


def lexical_of(app: Any, scope: Scope, q: str) -> dict[str, float]:
    """Episode text -> lexical evidence of each result of a full-text-only search (no
    embedder: only the full-text lists and the messages next to their best are read)."""
    items = search(app.state.reader, None, scope, q, AsOf.at(), 10).items
    return {f.episode.text: f.lexical for f in items if f.episode is not None}


def test_the_answer_to_a_found_question_is_read_though_no_list_found_it(api: Api, app: Any) -> None:
    """ "road trip": only the question holds the words, so the full-text list finds only
    it; the answer after it, and the reply after that, are read as its neighbours and
    scored with its words (W_CONTEXT, W_CONTEXT squared). Three places away is not read."""
    post_run(
        api,
        app,
        "trip",
        [
            {"role": "user", "speaker": "Jon", "text": ROAD},
            {"role": "assistant", "text": TOWN},
            {"role": "user", "speaker": "Jon", "text": LOVELY},
            {"role": "user", "text": COAT},
        ],
    )
    found = lexical_of(app, Scope(api.owner), "road trip")
    assert list(found) == [ROAD, TOWN, LOVELY]  # best first; the coat is not read
    assert found == {ROAD: 1.0, TOWN: W_CONTEXT, LOVELY: pytest.approx(W_CONTEXT**2)}


def test_a_neighbour_the_scope_may_not_see_is_not_read(api: Api, app: Any) -> None:
    """A chat restricted to `user_stated`: the assistant's answer next to the question is
    never read; the user's reply two places away still is."""
    post_run(
        api,
        app,
        "trip2",
        [
            {"role": "user", "speaker": "Jon", "text": ROAD},
            {"role": "assistant", "text": TOWN},
            {"role": "user", "speaker": "Jon", "text": LOVELY},
        ],
    )
    narrow = MemoryAccess("restricted", ("conversation",), ("user_stated",))
    found = lexical_of(app, Scope(api.owner, narrow), "road trip")
    assert found.keys() == {ROAD, LOVELY}
    assert lexical_of(app, Scope(api.owner), "road trip").keys() == {ROAD, TOWN, LOVELY}
