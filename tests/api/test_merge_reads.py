"""Reads of merged entities over time (CONTRACT §5): the loser's id answers with the
survivor and says so; `known_at` before the merge sees two entities as they were."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tests.api.conftest import Api
from tests.api.test_proposals_api import pending

JAN, MAR, JUN = "2024-01-01T00:00:00Z", "2024-03-01T00:00:00Z", "2024-06-01T00:00:00Z"


def parse(t: str) -> datetime:
    return datetime.fromisoformat(t)


def values(items: list[dict[str, Any]], attribute: str | None = None) -> list[tuple[Any, ...]]:
    return sorted(
        (f["attribute"], f["value"], f["valid_from"], f["valid_to"], f["status"])
        for f in items
        if attribute is None or f["attribute"] == attribute
    )


def two_people(api: Api) -> tuple[dict[str, Any], dict[str, Any], str]:
    """John Smith (JS) and Jon Smith (Johnny), each with a history; merged, Jon into John.

    John: employer Acme from Jan; location Porto from Jan, then Lisbon from Mar.
    Jon: employer Acme from Jan (a duplicate); location Braga from Jun (a conflict with
    Lisbon); likes chess from Jan, forgotten. Returns (john, jon, a known_at before the
    merge, after every write).
    """
    john = api.entity("John Smith", aliases=["JS"])
    jon = api.entity("Jon Smith", aliases=["Johnny"])
    api.fact(john["id"], attribute="employer", value="Acme", valid_from=JAN)
    api.fact(john["id"], attribute="location", value="Porto", valid_from=JAN)
    api.fact(john["id"], attribute="location", value="Lisbon", valid_from=MAR)
    api.fact(jon["id"], attribute="employer", value="Acme", valid_from=JAN)
    api.fact(jon["id"], attribute="location", value="Braga", valid_from=JUN)
    chess = api.fact(jon["id"], attribute="likes", value="chess", valid_from=JAN)["fact"]
    forgot = api.delete(f"/v1/facts/{chess['id']}").json()["fact"]
    before = forgot["recorded_at"]
    merged = api.post(f"/v1/entities/{jon['id']}/merge", {"into": john["id"]})
    assert merged.status_code == 200, merged.text
    return john, jon, before


def test_time_travel_before_and_after_a_merge(api: Api) -> None:
    """Before the merge: two entities with their own facts, histories and aliases. After:
    the survivor with the deduplicated union, the conflicting `one` value held as a
    question, and the loser's names among its aliases."""
    john, jon, before = two_people(api)
    past = {"known_at": before}
    old_john = api.get(f"/v1/entities/{john['id']}", params=past).json()
    old_jon = api.get(f"/v1/entities/{jon['id']}", params=past).json()
    assert old_john["entity"]["aliases"] == ["JS"] and old_john["merged_from"] is None
    assert old_jon["entity"]["id"] == jon["id"] and old_jon["entity"]["aliases"] == ["Johnny"]
    assert old_jon["entity"]["merged_into"] is None and old_jon["merged_from"] is None
    assert values(old_jon["facts"]) == [
        ("employer", "Acme", JAN, None, "active"),
        ("location", "Braga", JUN, None, "active"),
    ]
    jon_then = api.get(f"/v1/entities/{jon['id']}/history", params=past).json()
    assert jon_then["entity_id"] == jon["id"] and jon_then["merged_from"] is None
    assert [f["attribute"] for f in jon_then["items"]] == ["employer", "likes", "location"]

    now = api.get(f"/v1/entities/{john['id']}").json()
    assert sorted(now["entity"]["aliases"]) == ["JS", "Johnny", "Jon Smith"]
    assert values(now["facts"]) == [
        ("employer", "Acme", JAN, None, "active"),
        ("location", "Lisbon", MAR, None, "active"),
    ]
    history = api.get(f"/v1/entities/{john['id']}/history").json()["items"]
    assert values(history) == [
        ("employer", "Acme", JAN, None, "active"),
        ("likes", "chess", JAN, before, "invalidated"),  # moved, still forgotten
        ("location", "Lisbon", MAR, None, "active"),
        ("location", "Porto", JAN, MAR, "superseded"),
    ]
    [question] = pending(api)
    assert (question["type"], question["entity_id"], question["value"]) == (
        "merge_conflict",
        john["id"],
        "Braga",
    )


def test_names_are_searched_as_they_were(api: Api) -> None:
    """`GET /v1/entities?q=` with `known_at` before the merge matches each entity on its
    own names then; now the survivor matches the loser's names too."""
    john, jon, before = two_people(api)
    then = api.get("/v1/entities", params={"q": "johnny", "known_at": before}).json()["items"]
    assert [(e["id"], e["merged_into"]) for e in then] == [(jon["id"], None)]
    then_js = api.get("/v1/entities", params={"q": "js", "known_at": before}).json()["items"]
    assert [(e["id"], e["aliases"]) for e in then_js] == [(john["id"], ["JS"])]
    now = {e["id"]: e for e in api.get("/v1/entities", params={"q": "johnny"}).json()["items"]}
    assert set(now) == {john["id"], jon["id"]} and now[jon["id"]]["merged_into"] == john["id"]
    before_any = api.get("/v1/entities", params={"known_at": "2000-01-01T00:00:00Z"}).json()
    assert before_any["items"] == []


def test_merged_id_reads_answer_for_the_survivor(api: Api) -> None:
    """/facts, /history and /history/{attribute} of the loser's id answer with the
    survivor's rows and say so (`entity_id`, `merged_from`); before the merge, its own."""
    john, jon, before = two_people(api)
    for path in ("facts", "history", "history/location"):
        own = api.get(f"/v1/entities/{john['id']}/{path}").json()
        via = api.get(f"/v1/entities/{jon['id']}/{path}").json()
        assert via["items"] == own["items"] and via["items"], path
        assert (via["entity_id"], via["merged_from"]) == (john["id"], jon["id"]), path
        assert (own["entity_id"], own["merged_from"]) == (john["id"], None), path
        then = api.get(f"/v1/entities/{jon['id']}/{path}", params={"known_at": before}).json()
        assert (then["entity_id"], then["merged_from"]) == (jon["id"], None), path
        assert {f["entity_id"] for f in then["items"]} == {jon["id"]}, path
    located = api.get(
        f"/v1/entities/{jon['id']}/history/location", params={"known_at": before}
    ).json()["items"]
    assert [f["value"] for f in located] == ["Braga"]


def test_audit_view_of_the_survivor_shows_the_merged_rows(api: Api) -> None:
    """`include_retracted=true` on the survivor lists the loser's rows too, retracted at
    the merge; as known before the merge, it lists only the survivor's own."""
    john, jon, before = two_people(api)
    audit = api.get(
        f"/v1/entities/{john['id']}/history", params={"include_retracted": "true"}
    ).json()["items"]
    theirs = [f for f in audit if f["entity_id"] == jon["id"]]
    assert {f["value"] for f in theirs} == {"Acme", "Braga", "chess"}
    assert all(f["retracted_at"] is not None for f in theirs)
    old = api.get(
        f"/v1/entities/{john['id']}/history",
        params={"include_retracted": "true", "known_at": before},
    ).json()["items"]
    assert {f["entity_id"] for f in old} == {john["id"]}
    assert all(parse(f["recorded_at"]) <= parse(before) for f in old)


def test_merge_chain_is_followed(api: Api) -> None:
    """a into b, then b into c: a's id answers with c, with `merged_from` a."""
    a, b, c = api.entity("Kim Lee"), api.entity("Kim Li"), api.entity("Kimberly Lee")
    api.fact(a["id"], attribute="hobby", value="go")
    assert api.post(f"/v1/entities/{a['id']}/merge", {"into": b["id"]}).status_code == 200
    assert api.post(f"/v1/entities/{b['id']}/merge", {"into": c["id"]}).status_code == 200
    got = api.get(f"/v1/entities/{a['id']}/facts").json()
    assert (got["entity_id"], got["merged_from"]) == (c["id"], a["id"])
    assert [f["value"] for f in got["items"]] == ["go"]
    assert api.get(f"/v1/entities/{a['id']}").json()["entity"]["id"] == c["id"]


def test_prefetch_before_a_merge_knows_the_loser_by_its_own_names(api: Api) -> None:
    """A prefetch `at` before the merge finds the loser by its alias, as itself; now the
    same words find the survivor."""
    before = two_people(api)[2]
    body = {"chat_id": "c", "message": "Any news from Johnny?"}
    then = api.post("/v1/prefetch", {**body, "at": before}).json()
    assert then["degraded"] is False and "**Jon Smith**" in then["block"]
    assert "**John Smith**" not in then["block"]
    now = api.post("/v1/prefetch", body).json()
    assert now["degraded"] is False and "**John Smith**" in now["block"]
    assert "**Jon Smith**" not in now["block"]
