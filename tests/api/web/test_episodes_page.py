"""A run's messages on its page, and "forget this conversation" (CONTRACT §12; issue 14)."""

from __future__ import annotations

import re
from typing import Any

from tests.api.web.conftest import Page, make_page

RUN = {
    "id": "r1",
    "chat_id": "c1",
    "messages": [
        {
            "role": "user",
            "speaker": "Omar",
            "text": "I moved to Lisbon last month.",
            "at": "2023-03-03T10:00:00Z",
        },
        {
            "role": "user",
            "speaker": "Omar",
            "text": "I love surfing.",
            "at": "2023-03-03T10:00:01Z",
        },
    ],
}


def _flash(html: str) -> str:
    found = re.search(r'<div class="flash" role="status">(.*?)</div>', html, re.S)
    assert found, html[-2000:]
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


def _curated(app: Any, rest: Any) -> None:
    assert rest.post("/v1/runs", RUN).status_code == 202
    app.state.curator.drain()


def test_a_run_page_shows_what_was_said(app: Any, web: Page, rest: Any) -> None:
    """The run's page lists its messages, who said them and when."""
    _curated(app, rest)
    html = web.get("/memory/events/r1").text
    assert "What was said" in html
    assert "I moved to Lisbon last month." in html and "I love surfing." in html
    assert "Forget this conversation" in html


def test_forget_this_conversation_with_its_facts(app: Any, web: Page, rest: Any) -> None:
    """Forgetting the conversation asks first, then forgets every message and, when asked,
    retracts the facts drawn only from it; the page says so."""
    _curated(app, rest)
    ask = web.post("/memory/runs/r1/forget", {"facts": "true"})
    assert "Forget this conversation?" in ask.text and "its 2 messages" in ask.text
    assert rest.get("/v1/episodes", params={"run_id": "r1"}).json()["items"]
    done = web.post("/memory/runs/r1/forget", {"facts": "true", "confirmed": "true"})
    said = _flash(done.text)
    assert said.startswith("forgot 2 messages; retracted")
    assert rest.get("/v1/episodes", params={"run_id": "r1"}).json()["items"] == []
    assert "What was said" not in done.text


def test_forget_one_message_keeps_its_facts(app: Any, web: Page, rest: Any) -> None:
    """Forgetting one message without `facts` forgets the words and keeps what was learned."""
    _curated(app, rest)
    items = rest.get("/v1/episodes", params={"run_id": "r1"}).json()["items"]
    surf = next(e for e in items if "surfing" in e["text"])
    done = web.post(f"/memory/episodes/{surf['id']}/forget", {"confirmed": "true"})
    assert _flash(done.text) == "forgot 1 message"
    assert "I love surfing." not in done.text and "Lisbon" in done.text


def test_a_read_token_cannot_forget_a_conversation(
    app: Any, rest: Any, neo4j_driver: Any, owner: str
) -> None:
    """A read token sees the messages, no forget control, and a forged post is a 403."""
    _curated(app, rest)
    reader = make_page(app, neo4j_driver, owner, ("read",))
    html = reader.get("/memory/events/r1").text
    assert "I love surfing." in html and "Forget this" not in html
    assert reader.post("/memory/runs/r1/forget", {"confirmed": "true"}).status_code == 403
    assert len(rest.get("/v1/episodes", params={"run_id": "r1"}).json()["items"]) == 2
