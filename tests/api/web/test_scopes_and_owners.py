"""A read token sees no write controls and the server refuses forged actions anyway; another
owner's ids are 404s on the Memory page, as on REST (CONTRACT §7; issue 14)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.api.conftest import app_routes
from tests.api.web.conftest import Page, make_page

WRITE_CONTROLS = (
    "Keep",
    "Discard",
    "Forget",
    "Retract",
    "Edit",
    "Add a fact",
    "Split",
    "Merge into",
)


def _held_proposal(app: Any, rest: Any) -> dict[str, Any]:
    run = {
        "id": "r1",
        "chat_id": "c1",
        "messages": [
            {
                "role": "user",
                "speaker": "Omar",
                "text": "My sister Mia lives in Porto.",
                "at": "2023-03-03T10:00:00Z",
            }
        ],
    }
    assert rest.post("/v1/runs", run).status_code == 202
    app.state.curator.drain()
    items = rest.get("/v1/proposals", params={"status": "pending"}).json()["items"]
    assert items, "the curator held nothing"
    return items[0]  # type: ignore[no-any-return]


@pytest.fixture
def reader_page(app: Any, neo4j_driver: Any, owner: str) -> Page:
    """The test owner's page, signed in with a `read` token."""
    return make_page(app, neo4j_driver, owner, ("read",))


def test_a_read_token_sees_no_write_controls(app: Any, rest: Any, reader_page: Page) -> None:
    """Signed in with `read`: proposals, facts and settings show, but no control changes
    anything (no button, no enabled settings form)."""
    proposal = _held_proposal(app, rest)
    e = rest.entity("Ada")
    rest.fact(e["id"], attribute="location", value="Paris")
    home = reader_page.get("/memory").text
    assert "Porto" in home and "read only" in home
    entity = reader_page.get(f"/memory/entities/{e['id']}").text
    assert "Paris" in entity
    for html in (home, entity):
        for word in WRITE_CONTROLS:
            assert f">{word}<" not in html and f">{word}…" not in html, word
        assert 'method="post" action="/memory/sign-out"' in html
        assert html.count('method="post"') == 1
    access = reader_page.get("/memory/access").text
    assert "<fieldset disabled>" in access and "needs a token with the admin scope" in access
    assert proposal["status"] == "pending"


def test_a_forged_action_from_a_read_token_is_refused(
    app: Any, rest: Any, reader_page: Page
) -> None:
    """Posts a read token's page never offers (with a valid CSRF token) are 403s and
    change nothing."""
    proposal = _held_proposal(app, rest)
    e = rest.entity("Ada")
    fact = rest.fact(e["id"], attribute="location", value="Paris")["fact"]
    forged = [
        (f"/memory/proposals/{proposal['id']}/keep", {}),
        (f"/memory/proposals/{proposal['id']}/discard", {}),
        (f"/memory/facts/{fact['id']}/forget", {"confirmed": "true"}),
        (f"/memory/facts/{fact['id']}/retract", {"confirmed": "true"}),
        (
            f"/memory/entities/{e['id']}/facts",
            {"attribute": "location", "value": "Rome", "confirmed": "true"},
        ),
        ("/memory/access", {"chat": "c1", "mode": "none"}),
        ("/memory/erase", {"confirm": reader_page.owner}),
    ]
    for url, data in forged:
        r = reader_page.post(url, data)
        assert r.status_code == 403, (url, r.status_code, r.text[-500:])
        assert "lacks the" in r.text
    assert rest.get(f"/v1/proposals/{proposal['id']}").json()["status"] == "pending"
    facts = rest.get(f"/v1/entities/{e['id']}/facts").json()["items"]
    assert [f["value"] for f in facts] == ["Paris"]
    assert rest.get("/v1/chats/c1/memory-access").json()["mode"] == "full"


def test_another_owners_ids_are_404s(
    app: Any, rest: Any, web: Page, neo4j_driver: Any, owner: str
) -> None:
    """A guessed entity, fact, history, run or proposal URL of another owner is a 404, the
    same page as an id that does not exist, and a post to one changes nothing."""
    theirs = make_page(app, neo4j_driver, owner + "-other", ("read", "write", "curate", "admin"))
    e = rest.entity("Ada")
    fact = rest.fact(e["id"], attribute="location", value="Paris")["fact"]
    proposal = _held_proposal(app, rest)
    for url in (
        f"/memory/entities/{e['id']}",
        f"/memory/entities/{e['id']}?valid_at=2020-01-01T00:00",
        f"/memory/entities/{e['id']}/history/location",
        f"/memory/entities/{e['id']}?open={fact['id']}",
        "/memory/events/r1",
    ):
        r = theirs.get(url)
        assert r.status_code == 404, (url, r.status_code)
        assert "Paris" not in r.text and "Ada" not in r.text
    missing = theirs.get("/memory/entities/ent_doesnotexist")
    assert missing.status_code == 404
    for url, data in (
        (f"/memory/facts/{fact['id']}/forget", {"confirmed": "true"}),
        (f"/memory/proposals/{proposal['id']}/keep", {}),
    ):
        assert theirs.post(url, data).status_code == 404, url
    assert [f["value"] for f in rest.get(f"/v1/entities/{e['id']}/facts").json()["items"]] == [
        "Paris"
    ]
    assert web.get(f"/memory/entities/{e['id']}").status_code == 200


READS = {
    ("GET", "/memory/sign-in"),
    ("GET", "/memory"),
    ("GET", "/memory/entities"),
    ("GET", "/memory/entities/{entity_id}"),
    ("GET", "/memory/entities/{entity_id}/history/{attribute}"),
    ("GET", "/memory/events/{event_id}"),
    ("GET", "/memory/access"),
    ("GET", "/memory/erase"),
    ("GET", "/memory/notes"),
}
"""Every page that shows something (ids in them are checked for isolation above)."""
POSTS = {
    ("POST", "/memory/sign-in"): None,
    ("POST", "/memory/sign-out"): None,
    ("POST", "/memory/proposals/{proposal_id}/keep"): "curate",
    ("POST", "/memory/proposals/{proposal_id}/discard"): "curate",
    ("POST", "/memory/notes/{notification_id}/acknowledge"): "curate",
    ("POST", "/memory/suggestions/{suggestion_id}/confirm"): "curate",
    ("POST", "/memory/suggestions/{suggestion_id}/decline"): "curate",
    ("POST", "/memory/entities/{entity_id}/facts"): "write",
    ("POST", "/memory/facts/{fact_id}/forget"): "curate",
    ("POST", "/memory/facts/{fact_id}/retract"): "curate",
    ("POST", "/memory/runs/{run_id}/forget"): "curate",
    ("POST", "/memory/episodes/{episode_id}/forget"): "curate",
    ("POST", "/memory/entities/{entity_id}/merge"): "curate",
    ("POST", "/memory/entities/{entity_id}/split"): "curate",
    ("POST", "/memory/access"): "admin",
    ("POST", "/memory/erase"): "admin",
}
"""Every action, with the scope it needs (None: none; sign-in has its own CSRF cookie)."""
FORM = {"attribute": "location", "value": "x", "mode": "none", "confirm": "x", "name": "x"}


def _url(path: str) -> str:
    return re.sub(r"\{attribute\}", "location", re.sub(r"\{[a-z_]+_id\}", "zz_unknown", path))


def test_every_page_route_has_a_row(app: Any) -> None:
    """A Memory page route added without a row here fails: every action's CSRF and scope
    are probed below."""
    routes = app_routes(app, memory_page=True)
    assert routes == READS | POSTS.keys()


def test_every_action_needs_the_csrf_token(web: Page) -> None:
    """Each action posted without the session's CSRF token is a 403 (before any lookup)."""
    for (_, path), _scope in sorted(POSTS.items()):
        if path == "/memory/sign-in":
            continue
        r = web.client.post(_url(path), data=FORM)
        assert r.status_code == 403, (path, r.status_code)


def test_every_action_needs_its_scope(reader_page: Page) -> None:
    """Each action that needs a scope is a 403 naming it for a `read` token, whatever the id."""
    for (_, path), scope in sorted(POSTS.items()):
        if scope is None:
            continue
        r = reader_page.post(_url(path), FORM)
        assert r.status_code == 403 and f"lacks the &#39;{scope}&#39; scope" in r.text, path
