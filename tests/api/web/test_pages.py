"""The Memory page's views and actions over the real app and Neo4j (issue 14): each action
asks first and then shows the committer's answer; reads match REST."""

from __future__ import annotations

import re
from typing import Any

from graph.attributes import known_areas
from tests.api.web.conftest import Page

JAN, JUN = "2024-01-01T00:00:00Z", "2024-06-01T00:00:00Z"


def _flash(html: str) -> str:
    found = re.search(r'<div class="flash" role="status">(.*?)</div>', html, re.DOTALL)
    assert found, html[-3000:]
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


def _paris(rest: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    e = rest.entity("Ada Lovelace", aliases=["Countess"])
    f = rest.fact(e["id"], attribute="location", value="Paris", valid_from=JAN)["fact"]
    return e, f


def test_edit_asks_then_supersedes_and_says_so(web: Page, rest: Any) -> None:
    """Edit shows what it may supersede and records only when confirmed; the answer is the
    committer's, e.g. "superseded Paris (2024-01-01 → 2024-06-01)"."""
    e, _ = _paris(rest)
    url = f"/memory/entities/{e['id']}/facts"
    form = {"attribute": "location", "value": "Berlin", "valid_from": "2024-06-01T00:00"}
    ask = web.post(url, form)
    assert ask.status_code == 200 and "It may supersede Paris" in ask.text
    assert [f["value"] for f in rest.get(f"/v1/entities/{e['id']}/facts").json()["items"]] == [
        "Paris"
    ]
    done = web.post(url, {**form, "confirmed": "true"})
    said = _flash(done.text)
    assert "superseded Paris (2024-01-01 → 2024-06-01)" in said
    assert "recorded location = Berlin (2024-06-01 → open)" in said


def test_forget_and_retract_answer_in_words(web: Page, rest: Any) -> None:
    """Forget ends a fact now; retract undoes an assertion and what it superseded comes back."""
    e, paris = _paris(rest)
    berlin = rest.fact(e["id"], attribute="location", value="Berlin", valid_from=JUN)["fact"]
    ask = web.post(f"/memory/facts/{berlin['id']}/retract")
    assert "Retract a fact?" in ask.text and "it was never true" in ask.text
    said = _flash(web.post(f"/memory/facts/{berlin['id']}/retract", {"confirmed": "true"}).text)
    assert "retracted Berlin" in said and "Paris holds again (2024-01-01 → open)" in said
    current = rest.get(f"/v1/entities/{e['id']}/facts").json()["items"]
    said = _flash(web.post(f"/memory/facts/{current[0]['id']}/forget", {"confirmed": "true"}).text)
    assert said.startswith("ended Paris: it held 2024-01-01 → 20")
    assert rest.get(f"/v1/entities/{e['id']}/facts").json()["items"] == []
    assert paris["value"] == "Paris"


def test_merge_into_finds_asks_and_merges(web: Page, rest: Any) -> None:
    """Merge into… lists the matches, merges the chosen one; the survivor's page says the
    merged id was merged into it, and the list marks the merged entity."""
    ada, _ = _paris(rest)
    dup = rest.entity("A. Lovelace")
    rest.fact(dup["id"], attribute="employer", value="Babbage & Co")
    found = web.post(f"/memory/entities/{dup['id']}/merge", {"find": "lovelace"})
    assert "Ada Lovelace" in found.text and 'name="into"' in found.text
    done = web.post(f"/memory/entities/{dup['id']}/merge", {"into": ada["id"], "confirmed": "true"})
    assert "merged A. Lovelace into Ada Lovelace" in _flash(done.text)
    assert "Babbage &amp; Co" in done.text
    page = web.get(f"/memory/entities/{dup['id']}").text
    assert "was merged into this one" in page and "<h1>Ada Lovelace" in page
    listing = web.get("/memory/entities?q=lovelace").text
    assert "merged into" in listing


def test_split_moves_the_chosen_facts(web: Page, rest: Any) -> None:
    """Split asks, then moves the chosen facts to a new entity."""
    e, paris = _paris(rest)
    job = rest.fact(e["id"], attribute="employer", value="Analytical Engines")["fact"]
    form = {"name": "Ada (work)", "fact_ids": [job["id"]]}
    ask = web.post(f"/memory/entities/{e['id']}/split", form)
    assert "Move 1 facts to a new entity called &#39;Ada (work)&#39;" in ask.text
    done = web.post(f"/memory/entities/{e['id']}/split", {**form, "confirmed": "true"})
    assert "split 1 facts off into Ada (work)" in _flash(done.text)
    assert "Analytical Engines" in done.text
    left = rest.get(f"/v1/entities/{e['id']}/facts").json()["items"]
    assert [f["value"] for f in left] == [paris["value"]]


def test_split_without_a_name_is_refused(web: Page, rest: Any) -> None:
    """A split with a blank name is a 422 naming `name`, and nothing moves (it once made an
    entity called "-")."""
    e, _ = _paris(rest)
    job = rest.fact(e["id"], attribute="employer", value="Analytical Engines")["fact"]
    r = web.post(
        f"/memory/entities/{e['id']}/split",
        {"name": " ", "fact_ids": [job["id"]], "confirmed": "true"},
    )
    assert r.status_code == 422 and "name" in r.text
    assert len(rest.get(f"/v1/entities/{e['id']}/facts").json()["items"]) == 2


def test_search_by_alias_and_kind_marks_archived_and_merged(web: Page, rest: Any) -> None:
    """Entities: `q` matches an alias accent-insensitively; `kind` filters."""
    _paris(rest)
    rest.entity("Zoë", kind="pet")
    assert "Ada Lovelace" in web.get("/memory/entities?q=countess").text
    pets = web.get("/memory/entities?kind=pet").text
    assert "Zoë" in pets and "Ada Lovelace" not in pets
    assert "Zoë" in web.get("/memory/entities?q=zoe").text


def test_time_travel_diff_and_why(web: Page, rest: Any) -> None:
    """The entity page at a past valid_at shows REST's facts then, says so in words, shows
    what changed between two times, and a fact's why chain links to its event."""
    e, _ = _paris(rest)
    rest.fact(e["id"], attribute="location", value="Berlin", valid_from=JUN)
    past = web.get(f"/memory/entities/{e['id']}?valid_at=2024-03-01T00:00").text
    assert "Showing what was true on 1 March 2024, as the service knows it now." in past
    assert ">Paris<" in past and ">Berlin<" not in past
    diff = web.get(
        f"/memory/entities/{e['id']}?changes=valid&from=2024-03-01T00:00&to=2024-07-01T00:00"
    ).text
    assert re.search(r"<del>Paris</del>\s*→\s*<ins>Berlin</ins>", diff)
    current = rest.get(f"/v1/entities/{e['id']}/facts").json()["items"][0]
    why = web.get(f"/memory/entities/{e['id']}?open={current['id']}").text
    assert "Why: the chain of events" in why and "/memory/events/" in why


def test_history_paginates_and_shows_retracted_rows(web: Page, rest: Any) -> None:
    """The history table pages by the REST cursor; include_retracted adds the audit rows."""
    e, _ = _paris(rest)
    for month in ("03", "06", "09"):
        rest.fact(
            e["id"],
            attribute="location",
            value=f"City {month}",
            valid_from=f"2024-{month}-01T00:00:00Z",
        )
    first = web.get(f"/memory/entities/{e['id']}/history/location?limit=2").text
    assert "2 rows" in first and "Next 2 rows" in first and "<svg" in first
    nxt = re.search(r'href="([^"]+cursor=[^"]+)"', first).group(1).replace("&amp;", "&")  # type: ignore[union-attr]
    second = web.get(nxt).text
    assert "City 06" in second or "City 09" in second
    audit = web.get(f"/memory/entities/{e['id']}/history/location?include_retracted=true").text
    rest_rows = rest.get(
        f"/v1/entities/{e['id']}/history/location", params={"include_retracted": "true"}
    ).json()["items"]
    assert f"{len(rest_rows)} rows" in audit and 'class="retracted"' in audit


def test_entity_list_pages_by_the_rest_cursor(web: Page, rest: Any) -> None:
    """The entity list's Next page link carries the REST listing's opaque cursor, bound to
    its name filter: following it lists the rest, each entity once."""
    for i in range(51):
        rest.entity(f"Pager {i:02d}")
    first = web.get("/memory/entities?q=pager").text
    nxt = re.search(r'href="([^"]+cursor=[^"]+)"', first).group(1).replace("&amp;", "&")  # type: ignore[union-attr]
    second = web.get(nxt).text
    shown = re.findall(r"Pager \d\d", first) + re.findall(r"Pager \d\d", second)
    assert sorted(shown) == [f"Pager {i:02d}" for i in range(51)]


def test_proposals_keep_discard_and_notes(app: Any, web: Page, rest: Any) -> None:
    """Held proposals are listed newest first with their evidence; keep writes, discard
    suppresses; a conflict note is acknowledged away."""
    run = {
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
                "text": "My sister Mia lives in Porto.",
                "at": "2023-03-03T10:00:01Z",
            },
            {
                "role": "user",
                "speaker": "Omar",
                "text": "My brother Sam lives in Berlin.",
                "at": "2023-03-03T10:00:02Z",
            },
            {
                "role": "user",
                "speaker": "Omar",
                "text": "I moved to Madrid last week.",
                "at": "2023-06-20T10:00:00Z",
            },
        ],
    }
    assert rest.post("/v1/runs", run).status_code == 202
    app.state.curator.drain()
    home = web.get("/memory").text
    assert home.index("Berlin") < home.index("Porto")  # newest first
    assert "My sister Mia lives in Porto." in home and "Lisbon → Madrid" in home
    pending = {
        p["value"]: p["id"]
        for p in rest.get("/v1/proposals", params={"status": "pending"}).json()["items"]
    }
    assert "kept location = Porto" in _flash(
        web.post(f"/memory/proposals/{pending['Porto']}/keep").text
    )
    assert "will not be proposed again" in _flash(
        web.post(f"/memory/proposals/{pending['Berlin']}/discard").text
    )
    note = rest.get("/v1/notifications").json()["items"]
    conflict = next(n for n in note if n["kind"] == "conflict")
    web.post(f"/memory/notes/{conflict['id']}/acknowledge")
    assert "Lisbon → Madrid" not in web.get("/memory").text


def test_run_cause_and_effect(app: Any, web: Page, rest: Any) -> None:
    """A run's page says what it wrote and what it ended; a forget's page names the words
    it forgot (CONTRACT §12)."""
    run = {
        "id": "r2",
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
                "text": "I moved to Madrid last week.",
                "at": "2023-06-20T10:00:00Z",
            },
        ],
    }
    assert rest.post("/v1/runs", run).status_code == 202
    app.state.curator.drain()
    html = web.get("/memory/events/r2").text
    assert "Cause and effect of run r2" in html
    assert "wrote: created" in html and "recorded location = Lisbon" in html
    [said, _] = rest.get("/v1/episodes", params={"run_id": "r2"}).json()["items"]
    forgot = rest.delete(f"/v1/episodes/{said['id']}").json()["event_id"]
    html = web.get(f"/memory/events/{forgot}").text
    assert "ended: forgotten" in html and "said: “I moved to Lisbon last month.”" in html
    assert "forgot what Omar said: &#39;I moved to Lisbon last month.&#39;" in html


def test_memory_access_warns_and_stores(web: Page, rest: Any) -> None:
    """Restricted with empty lists is stored as such, under the product's warning."""
    page = web.get("/memory/access?chat=c9").text
    assert "an empty list means this chat sees nothing in that axis" in page
    done = web.post("/memory/access", {"chat": "c9", "mode": "restricted", "areas": ["work"]})
    assert "is now restricted (areas: work; sources: none)" in _flash(done.text)
    got = rest.get("/v1/chats/c9/memory-access").json()
    assert got == {"mode": "restricted", "areas": ["work"], "sources": [], "origin": "chat"}
    web.post("/memory/access", {"mode": "none"})
    assert rest.get("/v1/profile/memory-access").json()["mode"] == "none"


def test_memory_access_offers_every_area(web: Page, rest: Any) -> None:
    """The page offers a box for every area a memory access may list, `conversation`
    (episodes) and `knowledge` among them, so a restricted chat set here can let what was
    said through (found in review: the page listed the registry's areas only)."""
    page = web.get("/memory/access").text
    for area in sorted(known_areas()):
        assert f'name="areas" value="{area}"' in page, area
    done = web.post(
        "/memory/access", {"chat": "c7", "mode": "restricted", "areas": ["conversation"]}
    )
    assert "areas: conversation" in _flash(done.text), done.text


def test_memory_access_full_with_boxes_still_checked(web: Page, rest: Any) -> None:
    """The form keeps the restricted boxes checked when the mode is switched to full or
    none: the page stores the mode without the lists (they apply only under `restricted`,
    CONTRACT §7) instead of failing."""
    for mode in ("full", "none"):
        done = web.post(
            "/memory/access",
            {"chat": "c8", "mode": mode, "areas": ["work"], "sources": ["user_stated"]},
        )
        assert f"is now {mode}" in _flash(done.text), done.text
        got = rest.get("/v1/chats/c8/memory-access").json()
        assert got == {"mode": mode, "areas": [], "sources": [], "origin": "chat"}


def test_erase_needs_the_owner_name_then_reports_zero(web: Page, rest: Any) -> None:
    """A wrong name erases nothing (422); the right one reports remaining 0 and signs out."""
    e, _ = _paris(rest)
    wrong = web.post("/memory/erase", {"confirm": "someone else"})
    assert wrong.status_code == 422 and "confirm" in wrong.text
    assert rest.get(f"/v1/entities/{e['id']}").status_code == 200
    done = web.post("/memory/erase", {"confirm": web.owner})
    assert done.status_code == 200 and '<strong id="remaining">0</strong>' in done.text
    assert web.get("/memory", follow_redirects=False).status_code == 303
