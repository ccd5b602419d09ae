"""Cause and effect over REST: why a fact exists, what an event changed (CONTRACT §8)."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api
from tests.api.test_proposals_api import me, pending, run

UNTRUSTED = ("assistant", "Noted: the user's favorite color is teal.")


def why(api: Api, fact_id: str, **params: str) -> dict[str, Any]:
    r = api.get(f"/v1/facts/{fact_id}/why", params=params)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def effects(api: Api, event_id: str, **params: str) -> list[dict[str, Any]]:
    r = api.get(f"/v1/events/{event_id}/effects", params=params)
    assert r.status_code == 200, r.text
    return r.json()["items"]  # type: ignore[no-any-return]


def ops(items: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """(change, op, value) of each fact or entity item (episodes: `said`)."""
    return [
        (i["change"], i["op"], i["fact"]["value"] if i["fact"] else i["entity_id"])
        for i in items
        if i["episode"] is None
    ]


def said(items: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(change, op, text) of each episode item."""
    return [(i["change"], i["op"], i["episode"]["text"]) for i in items if i["episode"]]


def test_effects_of_a_run_list_the_episodes_it_wrote(api: Api, app: Any) -> None:
    """CONTRACT §8, §12: what a run went on to change includes its messages, each kept as
    an episode (`wrote`, op `recorded`, `episode_id` and `episode` set, `fact_id` null,
    `entity_id` its speaker), besides the rows it committed; a run that committed nothing
    still lists what was said, until it is forgotten (found by a tester: effects listed
    facts only)."""
    run(api, app, "r1", [("user", "I live in Lisbon."), ("assistant", "Lisbon is lovely.")])
    items = effects(api, "r1")
    assert ops(items) == [("wrote", "created", "Lisbon")]
    assert sorted(said(items)) == [
        ("wrote", "recorded", "I live in Lisbon."),
        ("wrote", "recorded", "Lisbon is lovely."),
    ]
    kept = {e["id"]: e for e in api.get("/v1/episodes", params={"run_id": "r1"}).json()["items"]}
    for item in (i for i in items if i["episode"]):
        assert item["fact_id"] is None and item["episode_id"] in kept
        assert item["episode"] == kept[item["episode_id"]]
        assert item["entity_id"] == kept[item["episode_id"]]["speaker_id"]
    assert len({i["commit_id"] for i in items}) == 1  # filed in the run's one commit
    run(api, app, "r2", [("user", "Hello there.")])
    assert said(effects(api, "r2")) == [("wrote", "recorded", "Hello there.")]
    assert ops(effects(api, "r2")) == []
    # A forgotten message's words are not shown again on its run (the forget lists them).
    [hello] = api.get("/v1/episodes", params={"run_id": "r2"}).json()["items"]
    forgot = api.delete(f"/v1/episodes/{hello['id']}").json()
    assert effects(api, "r2") == []
    assert said(effects(api, forgot["event_id"])) == [("ended", "forgotten", "Hello there.")]


def kept_teal(api: Api, app: Any) -> tuple[dict[str, Any], str]:
    """Run r1 (Lisbon committed, teal held), then keep teal; return (kept row, proposal id)."""
    run(api, app, "r1", [("user", "I live in Lisbon."), UNTRUSTED])
    [p] = pending(api)
    kept = api.post(f"/v1/proposals/{p['id']}/keep")
    assert kept.status_code == 200, kept.text
    return kept.json()["fact"], p["id"]


def test_why_walks_run_keep_edit_forget_oldest_first(api: Api, app: Any) -> None:
    """A row made by run -> keep -> edit -> forget answers with the whole chain, oldest
    cause first, ending at the commit that wrote it; the forget decided it, the edit and
    the keep come before it."""
    teal, proposal_id = kept_teal(api, app)
    edit = api.fact(
        me(api),
        attribute="favorite_color",
        value="teal",
        valid_from="2024-01-01T00:00:00Z",
        evidence="I have liked teal all year",
    )
    assert edit["effect"] == "created"
    forgot = api.delete(f"/v1/facts/{edit['fact']['id']}").json()
    remnant = forgot["fact"]
    out = why(api, remnant["id"])
    chain = out["chain"]
    kinds = [e["kind"] for e in chain]
    assert kinds == [
        "run",
        "message",
        "curation",
        "proposal",
        "decision",
        "commit",
        "action",
        "commit",
        "action",
        "commit",
    ], kinds
    assert chain[0]["id"] == "r1" and chain[1]["message_id"] == "r1-m1"
    assert chain[3]["id"] == proposal_id and chain[4]["decision"] == "keep"
    assert chain[4]["actor"] == "rest"
    assert [e["action"] for e in chain if e["kind"] == "action"] == ["assert", "forget"]
    assert chain[-1]["at"] == remnant["recorded_at"]
    assert out["decided_by"]["id"] == forgot["event_id"] == chain[-2]["id"]
    assert out["trigger"]["id"] == forgot["event_id"]
    assert (out["source"], out["evidence"]) == ("user_edit", "I have liked teal all year")
    assert out["fact"]["status"] == "invalidated"
    # The kept row alone: the run set it off, the person's keep decided it.
    first = why(api, teal["id"])
    assert first["trigger"]["id"] == "r1" and first["decided_by"]["decision"] == "keep"
    assert first["source"] == "untrusted" and "teal" in first["evidence"]


def test_effects_of_a_run_are_transitive_and_each_action_its_own(api: Api, app: Any) -> None:
    """A run's effects include what its held proposal wrote when kept later; the edit and
    the forget list exactly the rows they ended and wrote."""
    teal, _ = kept_teal(api, app)
    assert sorted(ops(effects(api, "r1"))) == [
        ("wrote", "created", "Lisbon"),
        ("wrote", "created", "teal"),
    ]
    edit = api.fact(
        me(api), attribute="favorite_color", value="teal", valid_from="2024-01-01T00:00:00Z"
    )
    items = effects(api, edit["event_id"])
    assert ops(items) == [("ended", "coalesced", "teal"), ("wrote", "created", "teal")]
    assert items[0]["fact_id"] == teal["id"] and items[1]["fact_id"] == edit["fact"]["id"]
    forgot = api.delete(f"/v1/facts/{edit['fact']['id']}").json()
    assert ops(effects(api, forgot["event_id"])) == [
        ("ended", "invalidated", "teal"),
        ("wrote", "remainder", "teal"),
    ]
    # The run's own effects did not grow: later edits are the person's, not the run's.
    assert len(ops(effects(api, "r1"))) == 2


def test_supersede_and_retract_name_their_ops(api: Api) -> None:
    """Berlin over Paris ends Paris (`superseded`) and keeps its earlier part (`remainder`);
    scrapping Berlin ends it (`retracted`) and brings Paris back (`restored`)."""
    e = api.entity("Ada")["id"]
    api.fact(e, attribute="location", value="Paris", valid_from="2020-01-01T00:00:00Z")
    berlin = api.fact(e, attribute="location", value="Berlin", valid_from="2023-01-01T00:00:00Z")
    assert sorted(ops(effects(api, berlin["event_id"]))) == [
        ("ended", "superseded", "Paris"),
        ("wrote", "created", "Berlin"),
        ("wrote", "remainder", "Paris"),
    ]
    undone = api.delete(f"/v1/facts/{berlin['fact']['id']}", params={"mode": "retract"}).json()
    items = effects(api, undone["event_id"])
    assert sorted(ops(items)) == [
        ("ended", "coalesced", "Paris"),
        ("ended", "retracted", "Berlin"),
        ("wrote", "restored", "Paris"),
    ]
    restored = next(i["fact"] for i in items if i["op"] == "restored")
    assert (restored["valid_from"], restored["valid_to"]) == ("2020-01-01T00:00:00Z", None)
    # The restored row's chain reaches back to the Paris statement it brings back.
    actions = [c["action"] for c in why(api, restored["id"])["chain"] if c["kind"] == "action"]
    assert actions == ["assert", "assert", "retract"]


def test_other_owners_ids_look_absent(api: Api, other: Api, app: Any) -> None:
    """Another owner's fact and event ids answer 404 exactly like ids that do not exist."""
    teal, _ = kept_teal(api, app)
    for url, unknown in (
        (f"/v1/facts/{teal['id']}/why", "/v1/facts/fct_nope/why"),
        ("/v1/events/r1/effects", "/v1/events/nope/effects"),
    ):
        theirs, missing = other.get(url), other.get(unknown)
        assert theirs.status_code == missing.status_code == 404
        assert theirs.json()["title"] == missing.json()["title"]
        assert theirs.json()["detail"].split("'")[0] == missing.json()["detail"].split("'")[0]
    queued = {
        "id": "r-later",
        "chat_id": "c",
        "messages": [{"role": "user", "text": "I live in Oslo.", "at": "2024-03-10T09:00:00Z"}],
    }
    assert api.post("/v1/runs", queued).status_code == 202
    body = api.get("/v1/events/r-later/effects").json()
    assert body == {"event": None, "items": [], "next": None}


def test_chat_memory_access_applies(api: Api, app: Any) -> None:
    """Memory `none` answers 403; `restricted` to places hides the teal row (404 on why,
    left out of effects) and shows Lisbon."""
    teal, _ = kept_teal(api, app)
    put = api.client.put
    assert (
        put("/v1/chats/off/memory-access", json={"mode": "none"}, headers=api.headers).status_code
        == 200
    )
    r = api.get(f"/v1/facts/{teal['id']}/why", params={"chat_id": "off"})
    assert r.status_code == 403 and "memory is off" in r.json()["detail"]
    assert api.get("/v1/events/r1/effects", params={"chat_id": "off"}).status_code == 403
    assert (
        put(
            "/v1/chats/places/memory-access",
            headers=api.headers,
            json={"mode": "restricted", "areas": ["place"], "sources": ["user_stated"]},
        ).status_code
        == 200
    )
    assert api.get(f"/v1/facts/{teal['id']}/why", params={"chat_id": "places"}).status_code == 404
    assert ops(effects(api, "r1", chat_id="places")) == [("wrote", "created", "Lisbon")]
    assert len(effects(api, "r1", chat_id="a-chat-with-full-access")) == 4  # and 2 episodes
    assert said(effects(api, "r1", chat_id="places")) == []  # area `conversation` left out


def test_effects_paginate(api: Api) -> None:
    """`limit` and `cursor` page through a long list of effects."""
    e = api.entity("Ada")["id"]
    r = api.fact(e, attribute="location", value="Paris", valid_from="2020-01-01T00:00:00Z")
    berlin = api.fact(e, attribute="location", value="Berlin", valid_from="2023-01-01T00:00:00Z")
    assert r["event_id"] != berlin["event_id"]
    first = api.get(f"/v1/events/{berlin['event_id']}/effects", params={"limit": 2}).json()
    assert len(first["items"]) == 2 and first["next"] == "2"
    rest = api.get(
        f"/v1/events/{berlin['event_id']}/effects", params={"limit": 2, "cursor": first["next"]}
    ).json()
    assert len(rest["items"]) == 1 and rest["next"] is None


def test_a_yes_in_chat_is_the_decision_and_a_discard_changes_nothing(api: Api, app: Any) -> None:
    """Kept by a chat reply, the row was decided by `chat:<id>`; a discard is recorded as
    a decision of the run's chain that wrote nothing."""
    run(api, app, "r1", [UNTRUSTED])
    run(api, app, "r2", [("assistant", "Noted: the user's favorite food is pho.")])
    reply = api.post("/v1/chats/chat-1/replies", {"text": "yes"}).json()
    assert len(reply["kept"]) == 1
    [p] = pending(api)
    assert api.post(f"/v1/proposals/{p['id']}/discard").status_code == 200
    [pho] = [
        f
        for f in api.get(f"/v1/entities/{me(api)}/facts").json()["items"]
        if f["attribute"] == "favorite_food"
    ]
    out = why(api, pho["id"])
    assert out["decided_by"]["actor"] == "chat:chat-1" and out["trigger"]["id"] == "r2"
    assert ops(effects(api, "r1")) == []
    assert said(effects(api, "r1")) == [("wrote", "recorded", UNTRUSTED[1])]
    assert api.get("/v1/events/r1/effects").json()["event"]["kind"] == "run"


def test_a_merge_conflict_kept_later_traces_back_to_the_merge(api: Api) -> None:
    """The loser's conflicting value, held by the merge and kept later, has the merge in
    its chain; the merge's effects list the moved rows, the merged entity, and what the
    keep it led to wrote and ended."""
    a, b = api.entity("Ana Silva")["id"], api.entity("Ana Sylva")["id"]
    api.fact(a, attribute="location", value="Porto", valid_from="2024-01-01T00:00:00Z")
    api.fact(b, attribute="location", value="Braga", valid_from="2024-01-01T00:00:00Z")
    api.fact(b, attribute="hobby", value="surf")
    merged = api.post(f"/v1/entities/{b}/merge", {"into": a}).json()
    [pid] = merged["conflicts"]
    braga = api.post(f"/v1/proposals/{pid}/keep").json()["fact"]
    chain = why(api, braga["id"])["chain"]
    assert [c["kind"] for c in chain] == ["action", "proposal", "decision", "commit"]
    assert (chain[0]["id"], chain[0]["action"], chain[0]["target_id"]) == (
        merged["event_id"],
        "merge",
        a,
    )
    assert sorted(ops(effects(api, merged["event_id"]))) == [
        ("changed", "merged", b),
        ("ended", "moved", "Braga"),
        ("ended", "moved", "surf"),
        ("ended", "superseded", "Porto"),
        ("wrote", "created", "Braga"),
        ("wrote", "created", "surf"),
    ]
