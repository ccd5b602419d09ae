"""Merge suggestions (asked, never guessed) and merges (CONTRACT §4, §5)."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api
from tests.api.test_proposals_api import me, pending, run


def observe(api: Api, app: Any, run_id: str, name: str, attribute: str, value: str) -> None:
    run(
        api,
        app,
        run_id,
        [],
        observations=[
            {
                "integration": "crm",
                "entity": {"name": name, "kind": "person"},
                "attribute": attribute,
                "value": value,
                "valid_from": "2024-01-01T00:00:00Z",
            }
        ],
    )


def suggestions(api: Api, status: str = "open") -> list[dict[str, Any]]:
    return api.get("/v1/merge-suggestions", params={"status": status}).json()["items"]  # type: ignore[no-any-return]


def test_alike_names_raise_a_suggestion_and_decline_is_final(api: Api, app: Any) -> None:
    """ "Jon Smith" next to "John Smith" is asked about once; declined, it never returns."""
    john = api.entity("John Smith")
    observe(api, app, "r1", "Jon Smith", "employer", "Acme")
    [s] = suggestions(api)
    jon = next(i for i in s["entity_ids"] if i != john["id"])
    assert set(s["entity_ids"]) == {john["id"], jon} and "alike" in s["reason"]
    notes = [
        n for n in api.get("/v1/notifications").json()["items"] if n["kind"] == "merge_suggestion"
    ]
    assert len(notes) == 1 and notes[0]["suggestion_id"] == s["id"]
    assert "Are these the same?" in notes[0]["text"]
    declined = api.post(f"/v1/merge-suggestions/{s['id']}/decline")
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    assert api.post(f"/v1/merge-suggestions/{s['id']}/confirm").status_code == 409
    observe(api, app, "r2", "Jon Smith", "employer", "Acme")
    assert suggestions(api) == [] and len(suggestions(api, "declined")) == 1
    assert api.get(f"/v1/entities/{jon}").json()["entity"]["merged_into"] is None


def test_unrelated_names_raise_nothing(api: Api, app: Any) -> None:
    """Different people stay apart."""
    api.entity("Maria Lopez")
    observe(api, app, "r1", "Mark Chen", "employer", "Acme")
    assert suggestions(api) == []


def test_confirm_merges_and_time_travel_sees_both(api: Api, app: Any) -> None:
    """Confirm: facts move (deduplicated), the loser answers with the survivor, aliases carry
    over, relationships re-point; known_at before the merge sees two entities."""
    john = api.entity("John Smith", aliases=["JS"])
    api.fact(john["id"], attribute="employer", value="Acme", valid_from="2024-01-01T00:00:00Z")
    api.fact(me(api), attribute="knows", object_id=john["id"])
    observe(api, app, "r1", "Jon Smith", "employer", "Acme")
    observe(api, app, "r2", "Jon Smith", "hobby", "chess")
    [s] = suggestions(api)
    jon = next(i for i in s["entity_ids"] if i != john["id"])
    api.fact(me(api), attribute="knows", object_id=jon)
    before = api.get(f"/v1/entities/{jon}").json()
    r = api.post(f"/v1/merge-suggestions/{s['id']}/confirm")
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["entity"]["id"] == john["id"] and out["merged"]["merged_into"] == john["id"]
    assert set(out["entity"]["aliases"]) == {"JS", "Jon Smith"} and out["conflicts"] == []
    after = api.get(f"/v1/entities/{jon}").json()
    assert after["merged_from"] == jon and after["entity"]["id"] == john["id"]
    facts = {(f["attribute"], f["value"]) for f in after["facts"]}
    assert facts == {("employer", "Acme"), ("hobby", "chess")}
    assert len([f for f in after["facts"] if f["attribute"] == "employer"]) == 1
    mine = api.get(f"/v1/entities/{me(api)}/facts").json()["items"]
    assert [f["object_id"] for f in mine if f["attribute"] == "knows"] == [john["id"]]
    past = api.get(f"/v1/entities/{jon}", params={"known_at": before["facts"][0]["recorded_at"]})
    assert past.json()["merged_from"] is None
    assert past.json()["entity"]["merged_into"] is None
    assert {f["attribute"] for f in past.json()["facts"]} == {"employer"}
    found = api.get("/v1/entities", params={"q": "jon smith"}).json()["items"]
    assert john["id"] in [e["id"] for e in found]


def test_conflicting_one_values_become_a_question(api: Api, app: Any) -> None:
    """A `one` attribute with two different current values is not picked silently."""
    a = api.entity("Ana Silva")
    b = api.entity("Ana Sylva")
    api.fact(a["id"], attribute="location", value="Porto", valid_from="2024-01-01T00:00:00Z")
    api.fact(b["id"], attribute="location", value="Braga", valid_from="2024-01-01T00:00:00Z")
    r = api.post(f"/v1/entities/{b['id']}/merge", {"into": a["id"]})
    assert r.status_code == 200, r.text
    [pid] = r.json()["conflicts"]
    survivor = api.get(f"/v1/entities/{a['id']}/facts").json()["items"]
    assert [f["value"] for f in survivor if f["attribute"] == "location"] == ["Porto"]
    [p] = pending(api)
    assert p["id"] == pid and p["type"] == "merge_conflict" and p["value"] == "Braga"
    assert any(
        n["kind"] == "conflict" and n["proposal_id"] == pid
        for n in api.get("/v1/notifications").json()["items"]
    )
    api.post(f"/v1/proposals/{pid}/keep")
    survivor = api.get(f"/v1/entities/{a['id']}/facts").json()["items"]
    assert [f["value"] for f in survivor if f["attribute"] == "location"] == ["Braga"]


def test_merge_errors(api: Api, other: Api) -> None:
    """Into itself 422; the owner's own entity 409; twice 409; another owner's ids 404."""
    a, b = api.entity("Kim"), api.entity("Kym")
    assert api.post(f"/v1/entities/{a['id']}/merge", {"into": a["id"]}).status_code == 422
    assert api.post(f"/v1/entities/{me(api)}/merge", {"into": a["id"]}).status_code == 409
    assert other.post(f"/v1/entities/{a['id']}/merge", {"into": b["id"]}).status_code == 404
    assert api.post(f"/v1/entities/{a['id']}/merge", {"into": "ent_nope"}).status_code == 404
    assert api.post(f"/v1/entities/{a['id']}/merge", {"into": b["id"]}).status_code == 200
    assert api.post(f"/v1/entities/{a['id']}/merge", {"into": b["id"]}).status_code == 409
    assert other.get("/v1/merge-suggestions").json()["items"] == []
    assert api.post("/v1/merge-suggestions/mrg_nope/confirm").status_code == 404


def test_merged_id_stands_for_the_survivor_in_writes(api: Api, app: Any) -> None:
    """Facts asserted to a merged-away id land on the survivor; entities of different kinds
    cannot be merged; a suggestion made stale by a direct merge still confirms."""
    a = api.entity("Kate Mills")
    observe(api, app, "r1", "Katie Mills", "hobby", "go")
    [s] = suggestions(api)
    b = next(i for i in s["entity_ids"] if i != a["id"])
    project = api.entity("Mills Project", kind="project")
    assert api.post(f"/v1/entities/{a['id']}/merge", {"into": project["id"]}).status_code == 422
    assert api.post(f"/v1/entities/{b}/merge", {"into": a["id"]}).status_code == 200
    api.fact(b, attribute="hobby", value="chess")
    facts = api.get(f"/v1/entities/{a['id']}/facts").json()["items"]
    assert sorted((f["entity_id"], f["value"]) for f in facts) == [
        (a["id"], "chess"),
        (a["id"], "go"),
    ]
    confirmed = api.post(f"/v1/merge-suggestions/{s['id']}/confirm")
    assert confirmed.status_code == 200 and confirmed.json()["moved"] == 0
    assert suggestions(api) == []
