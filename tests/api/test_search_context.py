"""Search reads an episode in its context: the messages next to it in its run that the
search found too (CONTRACT §6 "Pull", §12; api/chat/search.py `context`, `W_CONTEXT`)."""

from __future__ import annotations

from typing import Any

from api.chat.search import W_CONTEXT
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
