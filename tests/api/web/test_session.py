"""Sign-in, the session cookie and CSRF on the Memory page (issue 14 "Sign-in")."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from committer.apply import Committer
from tests.api.web.conftest import CSRF, Page, make_page


def test_sign_in_sets_a_strict_http_only_cookie_and_no_token(
    app: Any, neo4j_driver: Any, owner: str
) -> None:
    """The session cookie is HttpOnly, SameSite=Strict, scoped to /memory, and holds no part
    of the token; over http it is not Secure."""
    secret, _ = Committer(neo4j_driver).create_token(owner, ("read",))
    page = Page(app, secret, owner)
    answer = page.sign_in()
    cookie = next(c for c in answer.headers.get_list("set-cookie") if c.startswith("ws_session="))
    flags = [p.strip().lower() for p in cookie.split(";")]
    assert "httponly" in flags and "samesite=strict" in flags and "path=/memory" in flags
    assert "secure" not in flags
    assert secret not in cookie and secret[-12:] not in cookie
    assert page.get("/memory").status_code == 200


def test_cookie_is_secure_over_https(app: Any, neo4j_driver: Any, owner: str) -> None:
    """Served over https, the session cookie carries Secure."""
    secret, _ = Committer(neo4j_driver).create_token(owner, ("read",))
    page = Page(app, secret, owner)
    page.client = TestClient(app, base_url="https://testserver")
    cookie = next(
        c for c in page.sign_in().headers.get_list("set-cookie") if c.startswith("ws_session=")
    )
    assert "secure" in [p.strip().lower() for p in cookie.split(";")]


def test_unknown_token_is_refused(app: Any) -> None:
    """A token the store does not know answers the form again with 401 and no session."""
    client = TestClient(app)
    csrf = CSRF.search(client.get("/memory/sign-in").text).group(1)  # type: ignore[union-attr]
    r = client.post("/memory/sign-in", data={"token": "ws_nope", "csrf": csrf})
    assert r.status_code == 401 and "unknown or revoked" in r.text
    assert "ws_session" not in r.cookies
    assert client.get("/memory", follow_redirects=False).status_code == 303


def test_sign_in_form_needs_its_csrf_token(app: Any, neo4j_driver: Any, owner: str) -> None:
    """A sign-in post without the form's token (a cross-site login) opens no session."""
    secret, _ = Committer(neo4j_driver).create_token(owner, ("read",))
    client = TestClient(app)
    r = client.post("/memory/sign-in", data={"token": secret}, follow_redirects=False)
    assert r.status_code == 403 and "ws_session" not in r.cookies


def test_every_form_carries_the_session_csrf_token(web: Page, rest: Any) -> None:
    """Every POST form on the pages carries the session's CSRF token."""
    e = rest.entity("Ada")
    rest.fact(e["id"], attribute="location", value="Paris")
    token = web.csrf()
    for url in ("/memory", f"/memory/entities/{e['id']}", "/memory/access", "/memory/erase"):
        html = web.get(url).text
        forms = html.count('method="post"')
        assert forms > 0, url
        assert html.count(f'name="csrf" value="{token}"') == forms, url


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(web: Page, rest: Any) -> None:
    """CSRF: a forged post (no token, or another session's) is a 403 and writes nothing."""
    e = rest.entity("Ada")
    fact = rest.fact(e["id"], attribute="location", value="Paris")["fact"]
    url = f"/memory/facts/{fact['id']}/forget"
    no_token = web.client.post(url, data={"confirmed": "true"})
    wrong = web.client.post(url, data={"confirmed": "true", "csrf": "x" * 43})
    assert no_token.status_code == 403 and wrong.status_code == 403
    assert "CSRF" in no_token.text
    facts = rest.get(f"/v1/entities/{e['id']}/facts").json()["items"]
    assert [f["value"] for f in facts] == ["Paris"]


def test_sign_out_ends_the_session_at_once(web: Page) -> None:
    """After sign-out the old session id no longer opens the page, even if replayed."""
    sid = web.client.cookies.get("ws_session")
    assert web.post("/memory/sign-out", follow_redirects=False).status_code == 303
    replay = TestClient(web.client.app)
    replay.cookies.set("ws_session", sid, path="/memory")
    r = replay.get("/memory", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/memory/sign-in")


def test_a_revoked_token_ends_its_session(web: Page, neo4j_driver: Any, owner: str) -> None:
    """Revoking the token signs its sessions out (within the token cache's seconds)."""
    app = web.client.app
    committer = Committer(neo4j_driver)
    tokens = app.state.reader.tokens(owner)
    for t in tokens:
        committer.revoke_token(t.id)
    app.state.token_cache._entries.clear()
    assert web.get("/memory", follow_redirects=False).status_code == 303


def test_pages_are_private_and_framed_by_nobody(web: Page) -> None:
    """Pages are no-store and carry a policy that allows only this server's files."""
    r = web.get("/memory")
    assert r.headers["cache-control"] == "no-store"
    policy = r.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy


def test_another_owner_sees_another_memory(app: Any, neo4j_driver: Any, owner: str) -> None:
    """Two signed-in owners in two browsers each see only their own name on the page."""
    mine = make_page(app, neo4j_driver, owner, ("read",))
    theirs = make_page(app, neo4j_driver, owner + "-other", ("read",))
    assert owner + "-other" not in mine.get("/memory").text
    assert owner + "-other" in theirs.get("/memory").text
