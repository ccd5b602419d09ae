"""The Memory page in a real browser (Debian's Chromium, driven by Playwright) against a
live `worldstate serve` subprocess on the real Neo4j (issue 14 "Tested in a real browser").

Screenshots of the main views are saved to tests/api/web/screenshots/ (gitignored).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.api.web.live import (
    CHROMIUM_FLAGS,
    SHOTS,
    NetworkLog,
    axe_violations,
    chromium_path,
    cli,
    serve,
)

playwright_api = pytest.importorskip("playwright.sync_api", reason="the `test` extra has it")
expect = playwright_api.expect
pytestmark = pytest.mark.slow
DATA = Path(__file__).resolve().parents[2] / "data" / "memory_page_locomo.json"
CHAT = "locomo-memory_page_locomo"


@pytest.fixture(scope="module")
def live(neo4j_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`worldstate serve` on a free loopback port."""
    with serve(neo4j_server, tmp_path_factory.mktemp("serve") / "serve.log") as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless."""
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        yield b
        b.close()


def _token(owner: str, neo4j_server: Any) -> str:
    out = cli(
        "token",
        "create",
        "--owner",
        owner,
        "--scopes",
        "read,write,curate,admin",
        neo4j_server=neo4j_server,
    )
    return out.strip().splitlines()[-1]


def _import(owner: str, token: str, live: str, neo4j_server: Any) -> None:
    cli(
        "import",
        "locomo",
        str(DATA),
        "--owner",
        owner,
        "--api",
        live,
        "--token",
        token,
        "--timeout",
        "120",
        neo4j_server=neo4j_server,
    )


def _context(browser: Any, log: NetworkLog, width: int = 1280) -> Any:
    # bypass_csp: axe is injected as a script, which the page's own policy forbids.
    ctx = browser.new_context(bypass_csp=True, viewport={"width": width, "height": 900})
    ctx.on("request", lambda r: log.urls.append(r.url))
    return ctx


def _sign_in(page: Any, live: str, token: str) -> None:
    page.goto(f"{live}/memory")
    assert urlsplit(page.url).path == "/memory/sign-in"
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="To confirm", level=1)).to_be_visible()


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _shown(page: Any) -> dict[str, list[str]]:
    """The facts the entity page shows: attribute -> values."""
    out: dict[str, list[str]] = {}
    for li in page.locator("li.fact").all():
        out.setdefault(li.locator(".attr").first.inner_text(), []).append(
            li.locator("strong.value").inner_text().strip()
        )
    return out


def _rest_facts(live: str, h: dict[str, str], entity_id: str, **at: str) -> dict[str, list[str]]:
    r = httpx.get(f"{live}/v1/entities/{entity_id}/facts", params=at, headers=h, timeout=60)
    assert r.status_code == 200, r.text
    names = {}
    out: dict[str, list[str]] = {}
    for f in r.json()["items"]:
        value = f["value"]
        if f["object_id"]:
            if f["object_id"] not in names:
                got = httpx.get(
                    f"{live}/v1/entities/{f['object_id']}", headers=h, timeout=60
                ).json()
                names[f["object_id"]] = got["entity"]["name"]
            value = names[f["object_id"]]
        out.setdefault(f["attribute"], []).append(str(value))
    return out


def _entity_id(live: str, h: dict[str, str], name: str) -> str:
    r = httpx.get(f"{live}/v1/entities", params={"q": name}, headers=h, timeout=60)
    return str(next(e["id"] for e in r.json()["items"] if e["name"] == name))


def _open_entity(page: Any, name: str) -> None:
    page.get_by_role("link", name="Entities").click()
    page.get_by_label("Name or alias").fill(name)
    page.get_by_role("button", name="Search").click()
    page.get_by_role("link", name=name, exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(name)


def _wait_run(live: str, h: dict[str, str], run_id: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if httpx.get(f"{live}/v1/runs/{run_id}", headers=h, timeout=60).json()["status"] == "done":
            return
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} not curated in 60 s")


def test_end_to_end(live: str, browser: Any, neo4j_server: Any, owner: str) -> None:  # noqa: PLR0915 - one walk through the page, step by step
    """Sign in; import a conversation and see its proposals; keep one and discard another
    (never proposed again); time travel on both axes matches REST; the history chart; forget
    a fact; a chat set to none; sign out. The browser asks no other host for anything."""
    token = _token(owner, neo4j_server)
    h = {"Authorization": f"Bearer {token}"}
    log = NetworkLog()
    page = _context(browser, log).new_page()

    # 1. sign in
    _sign_in(page, live, token)
    expect(page.get_by_text("Nothing is waiting for you.")).to_be_visible()

    # 2. import a conversation; its held proposals are at the top
    _import(owner, token, live, neo4j_server)
    page.reload()
    proposals = page.locator("section[aria-labelledby=proposals-h] li.card")
    expect(proposals).to_have_count(2)
    expect(proposals.filter(has_text="Porto")).to_contain_text("My sister Mia lives in Porto.")
    expect(proposals.filter(has_text="Berlin")).to_contain_text("another person's private detail")
    expect(page.locator("li.note.conflict")).to_contain_text("Lisbon → Madrid")
    _shot(page, "1-to-confirm")

    # 3. keep one, discard the other. `before_keep` is to the second, as the page's field
    # takes it: rounded up, so it is after every write of the import (truncated, it fell
    # before the import's last commit when that came less than a second earlier), and
    # the keep comes after it.
    before_keep = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=1)
    time.sleep(2.2)
    page.get_by_role("button", name="Keep location = Porto").click()
    expect(page.locator(".flash")).to_contain_text("kept location = Porto")
    page.get_by_role("button", name="Discard location = Berlin").click()
    expect(page.locator(".flash")).to_contain_text("will not be proposed again")
    expect(proposals).to_have_count(0)
    again = {
        "id": "again-1",
        "chat_id": CHAT,
        "messages": [
            {
                "role": "user",
                "speaker": "Omar",
                "text": "My brother Sam lives in Berlin.",
                "at": "2023-07-01T10:00:00Z",
            },
            {
                "role": "user",
                "speaker": "Omar",
                "text": "My cousin Ana lives in Rome.",
                "at": "2023-07-01T10:00:05Z",
            },
        ],
    }
    assert httpx.post(f"{live}/v1/runs", json=again, headers=h, timeout=60).status_code == 202
    _wait_run(live, h, "again-1")
    page.reload()
    expect(proposals).to_have_count(1)
    expect(proposals.first).to_contain_text("Rome")
    pending = httpx.get(
        f"{live}/v1/proposals", params={"status": "pending"}, headers=h, timeout=60
    ).json()
    assert [p["value"] for p in pending["items"]] == ["Rome"]

    # 4. an entity, as of a past valid_at and a past known_at, against REST
    _open_entity(page, "Lena")
    lena = _entity_id(live, h, "Lena")
    assert _shown(page) == _rest_facts(live, h, lena)
    page.get_by_label("True on (UTC)").fill("2023-04-01T00:00:00")
    page.get_by_role("button", name="Show").click()
    expect(page.locator("#asof")).to_contain_text("what was true on 1 April 2023")
    shown = _shown(page)
    assert shown.get("occupation") == ["nurse"]
    assert shown == _rest_facts(live, h, lena, valid_at="2023-04-01T00:00:00Z")

    _open_entity(page, "Mia")
    mia = _entity_id(live, h, "Mia")
    assert _shown(page).get("location") == ["Porto"]
    page.get_by_label("True on (UTC)").fill("2023-04-01T00:00:00")
    page.get_by_label("As known on (UTC)").fill(before_keep.strftime("%Y-%m-%dT%H:%M:%S"))
    page.get_by_role("button", name="Show").click()
    expect(page.locator("#asof")).to_contain_text(
        f"what was true on 1 April 2023, as the service knew it on {before_keep.day} "
    )
    known = before_keep.isoformat().replace("+00:00", "Z")
    shown = _shown(page)
    assert "location" not in shown
    assert shown == _rest_facts(live, h, mia, valid_at="2023-04-01T00:00:00Z", known_at=known)
    _shot(page, "2-entity-time-travel")

    # 5. the history chart of an attribute with a superseded value
    _open_entity(page, "Omar")
    page.locator("li.fact", has_text="Madrid").locator("summary").click()
    page.get_by_role("link", name="History of location").click()
    chart = page.locator("svg.chart")
    expect(chart).to_be_visible()
    expect(chart.locator("rect.row.superseded")).to_have_count(1)
    expect(chart.locator("rect.row.active")).to_have_count(1)
    expect(chart.locator("text.label")).to_have_count(2)
    _shot(page, "3-history-chart")

    # 6. forget a fact
    _open_entity(page, "Omar")
    page.locator("li.fact", has_text="Madrid").locator("summary").click()
    page.get_by_role("button", name="Forget location").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Forget a fact?")
    page.get_by_role("button", name="Forget", exact=True).click()
    expect(page.locator(".flash")).to_contain_text("ended Madrid: it held")
    omar = _entity_id(live, h, "Omar")
    assert "location" not in _rest_facts(live, h, omar)
    assert "location" not in _shown(page)

    # 7. a chat set to none
    page.get_by_role("link", name="Memory access").click()
    page.get_by_label("Chat id").fill(CHAT)
    page.get_by_role("button", name="Open chat").click()
    chat_form = page.locator("form.access").nth(1)
    chat_form.get_by_label("None: a clean room.").check()
    chat_form.get_by_role("button", name=f"Save chat {CHAT}").click()
    expect(page.locator(".flash")).to_contain_text(f"memory access of chat '{CHAT}' is now none")
    got = httpx.get(f"{live}/v1/chats/{CHAT}/memory-access", headers=h, timeout=60).json()
    assert got["mode"] == "none" and got["origin"] == "chat"

    # 8. sign out: the session is over
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in to your memory")).to_be_visible()
    page.goto(f"{live}/memory/entities")
    assert urlsplit(page.url).path == "/memory/sign-in"

    assert log.hosts() == {urlsplit(live).netloc}, log.urls


def _history_rows(live: str, h: dict[str, str]) -> tuple[str, str]:
    """Two entities over REST: one whose location was corrected, learned late and forgotten
    (every style of the chart), and one with 200 values of `location`."""
    made = httpx.post(
        f"{live}/v1/entities", json={"name": "Ada", "kind": "person"}, headers=h, timeout=60
    )
    ada = made.json()["id"]

    def fact(entity: str, value: str, start: str, **extra: Any) -> dict[str, Any]:
        body = {"attribute": "location", "value": value, "valid_from": start, **extra}
        r = httpx.post(f"{live}/v1/entities/{entity}/facts", json=body, headers=h, timeout=60)
        assert r.status_code == 201, r.text
        return r.json()["fact"]  # type: ignore[no-any-return]

    fact(ada, "Paris", "2021-01-01T00:00:00Z")
    berlin = fact(ada, "Berlin", "2022-06-01T00:00:00Z")
    httpx.delete(
        f"{live}/v1/facts/{berlin['id']}", params={"mode": "retract"}, headers=h, timeout=60
    )
    fact(ada, "Lyon", "2023-03-01T00:00:00Z")
    fact(ada, "Nice", "2020-01-01T00:00:00Z", valid_to="2021-01-01T00:00:00Z")  # learned late
    oslo = fact(ada, "Oslo", "2024-01-01T00:00:00Z")
    httpx.delete(f"{live}/v1/facts/{oslo['id']}", headers=h, timeout=60)
    made = httpx.post(
        f"{live}/v1/entities", json={"name": "Nomad", "kind": "person"}, headers=h, timeout=60
    )
    nomad = made.json()["id"]
    for i in range(200):
        fact(nomad, f"Town {i}", f"{2000 + i // 12:04d}-{i % 12 + 1:02d}-01T00:00:00Z")
    return ada, nomad


def test_views_are_accessible_offline_and_fit_a_phone(
    live: str, browser: Any, neo4j_server: Any, owner: str
) -> None:
    """Every main view passes axe-core's WCAG 2 A/AA rules at 1280 and 375 px, has no page
    wider than a 375 px phone, is reachable by keyboard with a visible focus, and the
    browser asks no host but the server for anything. Screenshots of each are saved."""
    token = _token(owner, neo4j_server)
    h = {"Authorization": f"Bearer {token}"}
    _import(owner, token, live, neo4j_server)
    ada, nomad = _history_rows(live, h)
    lena = _entity_id(live, h, "Lena")
    views = {
        "to-confirm": "/memory",
        "entities": "/memory/entities",
        "entity": f"/memory/entities/{lena}?open=",
        "entity-past": f"/memory/entities/{ada}?valid_at=2022-07-01T00:00:00Z&changes=known",
        "history": f"/memory/entities/{ada}/history/location?include_retracted=true",
        "history-1-row": f"/memory/entities/{lena}/history/occupation",
        "history-200-rows": f"/memory/entities/{nomad}/history/location?limit=200",
        "run": "/memory/events/memory_page_locomo-session-2",
        "access": f"/memory/access?chat={CHAT}",
        "erase": "/memory/erase",
    }
    log = NetworkLog()
    for width in (1280, 375):
        ctx = _context(browser, log, width)
        page = ctx.new_page()
        page.goto(f"{live}/memory/sign-in")
        assert axe_violations(page) == []
        _sign_in(page, live, token)
        for name, url in views.items():
            page.goto(f"{live}{url}")
            assert page.locator("h1").count() == 1, name
            assert axe_violations(page) == [], name
            if width == 375:
                wide = page.evaluate("document.documentElement.scrollWidth")
                assert wide <= 375, (name, wide)
            _shot(page, f"{name}-{width}")
        ctx.close()
    assert log.hosts() == {urlsplit(live).netloc}, sorted(set(log.urls))

    ctx = _context(browser, log)
    page = ctx.new_page()
    _sign_in(page, live, token)
    reached = []
    for _ in range(40):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "() => { const e = document.activeElement; const s = getComputedStyle(e);"
            " return [e.innerText || e.value || '', s.outlineStyle, s.outlineWidth]; }"
        )
        reached.append(focused)
    assert reached[0][0] == "Skip to content"
    texts = [r[0].strip() for r in reached]
    assert "Keep" in texts and "Discard" in texts and "Sign out" in texts
    keep = reached[texts.index("Keep")]
    assert keep[1] != "none" and keep[2] != "0px", keep
    ctx.close()
