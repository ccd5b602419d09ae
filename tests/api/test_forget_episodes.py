"""Forget a conversation (CONTRACT §12), `why` naming a fact's own cause, and provenance
tags naming who said it."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api
from tests.api.test_episodes import episodes, post_run
from tests.api.test_proposals_api import me

JAN = "2024-01-01T00:00:00Z"


def values(api: Api, attribute: str, **params: Any) -> list[Any]:
    """The values of `attribute` on the owner's own entity."""
    facts = api.get(f"/v1/entities/{me(api)}/facts", params=params).json()["items"]
    return sorted(f["value"] for f in facts if f["attribute"] == attribute)


def user(text: str, at: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"role": "user", "text": text, **({"at": at} if at else {}), **extra}


def test_forgetting_an_episode_keeps_its_facts_and_is_audited(api: Api, app: Any) -> None:
    """Without `facts` only the episode goes: out of the list and search from now on, still
    there as known before, readable by id with its `retracted_at`; the fact it gave stays.
    One action event; its effects list the episode, and so does the response."""
    post_run(api, app, "r1", [user("I live in Porto.")])
    [said] = episodes(api)
    r = api.delete(f"/v1/episodes/{said['id']}")
    assert r.status_code == 200, r.text
    out = r.json()
    assert (out["episodes"], out["retracted"], out["restored"]) == ([said["id"]], [], [])
    assert [(e["op"], e["change"], e["episode_id"]) for e in out["effects"]] == [
        ("forgotten", "ended", said["id"])
    ]
    assert out["effects"][0]["episode"] == {**said, "retracted_at": out["recorded_at"]}
    assert episodes(api) == [] and values(api, "location") == ["Porto"]
    hits = api.get("/v1/search", params={"q": "live in Porto"}).json()["items"]
    assert [i["kind"] for i in hits] == ["fact"]
    before = episodes(api, known_at=said["recorded_at"])
    assert [e["id"] for e in before] == [said["id"]]
    audit = api.get(f"/v1/events/{out['event_id']}/effects").json()
    assert audit["event"]["action"] == "forget_episodes"
    assert audit["event"]["episode_id"] == said["id"] and audit["items"] == out["effects"]
    assert api.delete(f"/v1/episodes/{said['id']}").status_code == 409
    assert api.delete("/v1/episodes/epi_000000000000000000000000").status_code == 404


def test_forgetting_a_run_with_facts_retracts_only_what_nothing_else_says(
    api: Api, app: Any
) -> None:
    """`DELETE /v1/runs/{id}/episodes?facts=true`: every episode of the run goes, and each
    current row drawn only from its messages is retracted (CONTRACT §2.2); a row another
    run also stated stays (`kept`). One transaction: everything at one `recorded_at`."""
    post_run(api, app, "r1", [user("I live in Porto."), user("I love jazz.")])
    post_run(api, app, "r2", [user("I love jazz.")])
    porto_known = values(api, "location")
    r = api.delete("/v1/runs/r1/episodes", params={"facts": "true"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert len(out["episodes"]) == 2 and len(out["retracted"]) == 1 and len(out["kept"]) == 1
    assert values(api, "location") == [] and values(api, "likes") == ["jazz"]
    ended = {(e["op"], e["episode_id"] or e["fact_id"]) for e in out["effects"]}
    assert ended == {("forgotten", i) for i in out["episodes"]} | {
        ("retracted", out["retracted"][0])
    }
    assert {e["at"] for e in out["effects"]} == {out["recorded_at"]}
    assert [e["run_id"] for e in episodes(api)] == ["r2"]
    gone = api.get(f"/v1/facts/{out['retracted'][0]}").json()
    assert gone["retracted_at"] == out["recorded_at"]
    assert values(api, "location", known_at=gone["recorded_at"]) == porto_known
    assert api.get("/v1/runs/nope/episodes").status_code == 405  # DELETE only
    assert api.delete("/v1/runs/nope/episodes").status_code == 404


def test_retracting_brings_back_what_the_forgotten_words_pushed_out(api: Api, app: Any) -> None:
    """London entered over REST; a run says Paris, then Berlin: forgetting that run with
    its facts undoes both statements, so London holds again (what Berlin pushed out was
    Paris, itself only that run's words, so what Paris pushed out comes back)."""
    api.fact(me(api), attribute="location", value="London", valid_from=JAN)
    post_run(
        api,
        app,
        "r1",
        [
            user("I live in Paris.", at="2024-03-01T09:00:00Z"),
            user("I moved to Berlin.", at="2024-03-05T09:00:00Z"),
        ],
    )
    assert values(api, "location") == ["Berlin"]
    out = api.delete("/v1/runs/r1/episodes", params={"facts": "true"}).json()
    assert values(api, "location") == ["London"]
    assert [f["value"] for f in out["restored"]] == ["London"]


def test_forgetting_one_message_with_facts_leaves_the_others(api: Api, app: Any) -> None:
    """Forgetting one episode with `facts` retracts that message's rows only."""
    post_run(api, app, "r1", [user("I live in Porto."), user("I love jazz.")])
    jazz = next(e for e in episodes(api) if "jazz" in e["text"])
    out = api.delete(f"/v1/episodes/{jazz['id']}", params={"facts": "true"}).json()
    assert len(out["retracted"]) == 1
    assert values(api, "likes") == [] and values(api, "location") == ["Porto"]


def test_forgetting_each_run_that_said_it_retracts_it_in_either_order(api: Api, app: Any) -> None:
    """Two runs say the same thing: one row, the second run a corroboration. Forgetting
    one run with `facts` keeps the row (the other still says it); forgetting the other
    then retracts it, whichever run went first: evidence whose episode was forgotten
    earlier counts as forgotten, and a run that only corroborated a row is found too
    (found by a tester: the second forget left the row standing)."""
    post_run(api, app, "a1", [user("I love rock climbing.")])
    post_run(api, app, "a2", [user("I love rock climbing.")])
    post_run(api, app, "b1", [user("I love bouldering.")])
    post_run(api, app, "b2", [user("I love bouldering.")])
    assert values(api, "likes") == ["bouldering", "rock climbing"]
    for first, second, value in (("a1", "a2", "rock climbing"), ("b2", "b1", "bouldering")):
        out = api.delete(f"/v1/runs/{first}/episodes", params={"facts": "true"}).json()
        assert (len(out["retracted"]), len(out["kept"])) == (0, 1), out
        assert value in values(api, "likes")
        out = api.delete(f"/v1/runs/{second}/episodes", params={"facts": "true"}).json()
        assert (len(out["retracted"]), len(out["kept"])) == (1, 0), out
        assert value not in values(api, "likes")
    assert values(api, "likes") == []


def test_a_run_not_curated_yet_cannot_be_forgotten(api: Api) -> None:
    """Its episodes are written when it is curated: forgetting now would not hold (409)."""
    body = {"id": "r1", "chat_id": "c1", "messages": [user("Hi.", at=JAN)]}
    assert api.post("/v1/runs", body).status_code == 202
    r = api.delete("/v1/runs/r1/episodes")
    assert r.status_code == 409 and "queued" in r.json()["detail"]


def test_why_names_the_facts_own_cause(api: Api, app: Any) -> None:
    """A run of three statements: one fact's `why` holds its own message (naming its
    episode), proposal, decision and commit, not the run's other ones; `episodes` shows
    what was said."""
    post_run(
        api, app, "r1", [user("I live in Porto."), user("I love jazz."), user("I work at Acme.")]
    )
    facts = api.get(f"/v1/entities/{me(api)}/facts").json()["items"]
    jazz = next(f for f in facts if f["value"] == "jazz")
    why = api.get(f"/v1/facts/{jazz['id']}/why").json()
    kinds = [e["kind"] for e in why["chain"]]
    assert sorted(kinds) == sorted(["run", "message", "curation", "proposal", "decision", "commit"])
    message = next(e for e in why["chain"] if e["kind"] == "message")
    [said] = why["episodes"]
    assert message["message_id"] == jazz["message_id"] == said["message_id"]
    assert message["episode_id"] == said["id"] and said["text"] == "I love jazz."
    run_effects = api.get("/v1/events/r1/effects").json()["items"]
    assert len({e["fact_id"] for e in run_effects if e["fact_id"]}) == 3  # the others


def test_tags_name_who_said_it(api: Api, app: Any) -> None:
    """The owner's words read "told by you"; Jon's and Gina's statements about themselves
    read "told by Jon" / "told by Gina", in the block and in its JSON items."""
    post_run(
        api,
        app,
        "r1",
        [
            user("Please keep answers short."),
            user("I live in Berlin.", speaker="Jon"),
            user("I live in Lisbon.", speaker="Gina"),
        ],
    )
    out = api.post("/v1/prefetch", {"chat_id": "c1", "message": "How are Jon and Gina?"}).json()
    block = out["block"]
    assert "- location: Berlin (since 2024-03-10; told by Jon)" in block
    assert "- location: Lisbon (since 2024-03-10; told by Gina)" in block
    assert "told by you" in next(ln for ln in block.splitlines() if "answer_style" in ln)
    tags = {(i.get("value"), i.get("tag"), i.get("speaker")) for i in out["items"]}
    assert ("Berlin", "told by Jon", "Jon") in tags and ("Lisbon", "told by Gina", "Gina") in tags
    assert any(t == "told by you" and s == "you" for _, t, s in tags)
    said = api.post("/v1/prefetch", {"chat_id": "c1", "message": "Berlin or Lisbon?"}).json()
    snippets = [i for i in said["items"] if i["kind"] == "episode"]
    assert {(i["speaker"], i["tag"]) for i in snippets} == {
        ("Jon", "told by Jon"),
        ("Gina", "told by Gina"),
    }, said["block"]


def test_another_owners_episodes_cannot_be_forgotten(api: Api, app: Any, other: Api) -> None:
    """Another owner's episode id and run id answer 404 as unknown ids do (CONTRACT §7),
    with or without `facts`, and nothing of theirs is forgotten."""
    post_run(api, app, "r1", [user("I live in Porto.")])
    [said] = episodes(api)
    unknown = "epi_" + "0" * 24
    for theirs, none in ((said["id"], unknown), ("r1", "r0")):
        path = "/v1/episodes/{}" if theirs.startswith("epi_") else "/v1/runs/{}/episodes"
        for params in ({}, {"facts": "true"}):
            r = other.delete(path.format(theirs), params=params)
            gone = other.delete(path.format(none), params=params)
            assert (r.status_code, gone.status_code) == (404, 404), r.text
            assert r.json()["detail"] == gone.json()["detail"].replace(none, theirs)
    assert episodes(api) == [said] and values(api, "location") == ["Porto"]


def test_undoing_a_later_run_restores_a_fact_whose_message_was_forgotten_alone(
    api: Api, app: Any
) -> None:
    """Paris, then Kyoto, then "forget that I said Kyoto" without its facts (the fact
    stays, CONTRACT §12), then Hanoi; forgetting the Hanoi run with `facts` undoes Hanoi
    only (CONTRACT §2.2 retract): Kyoto, which Hanoi had pushed out, comes back, and Paris
    still ends where Kyoto starts. The earlier forget without facts never makes Kyoto
    "never true" (found by a tester, F6: Paris came back open and Kyoto never did)."""
    post_run(api, app, "A", [user("I live in Paris.", at="2024-03-01T09:00:00Z")])
    post_run(api, app, "B", [user("I live in Kyoto.", at="2024-03-05T09:00:00Z")])
    [kyoto_said] = episodes(api, run_id="B")
    assert api.delete(f"/v1/episodes/{kyoto_said['id']}").status_code == 200
    assert values(api, "location") == ["Kyoto"]
    post_run(api, app, "C", [user("I live in Hanoi.", at="2024-03-07T09:00:00Z")])
    assert values(api, "location") == ["Hanoi"]
    r = api.delete("/v1/runs/C/episodes", params={"facts": "true"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert [f["value"] for f in out["restored"]] == ["Kyoto"], out
    assert values(api, "location") == ["Kyoto"]
    history = api.get(f"/v1/entities/{me(api)}/history/location").json()["items"]
    windows = [(h["value"], h["valid_from"][:10], (h["valid_to"] or "")[:10]) for h in history]
    assert windows == [("Paris", "2024-03-01", "2024-03-05"), ("Kyoto", "2024-03-05", "")]


def test_forgetting_a_forgotten_run_again_is_a_conflict(
    api: Api, app: Any, neo4j_driver: Any, owner: str
) -> None:
    """A run whose episodes are all forgotten answers 409 as a forgotten episode does, with
    or without `facts`, and writes no new event (found by a tester, F8: 200 and an empty
    audit event)."""
    post_run(api, app, "r1", [user("I live in Porto.")])
    assert api.delete("/v1/runs/r1/episodes", params={"facts": "true"}).status_code == 200

    def actions() -> int:
        with neo4j_driver.session() as s:
            q = "MATCH (e:Event {owner: $o, kind: 'action'}) RETURN count(e) AS n"
            return int(s.run(q, o=owner).single()["n"])

    before = actions()
    for params in ({}, {"facts": "true"}):
        r = api.delete("/v1/runs/r1/episodes", params=params)
        assert r.status_code == 409, r.text
        assert "nothing left to forget" in r.json()["detail"]
    assert actions() == before


def test_forgetting_a_run_with_facts_keeps_what_an_earlier_forget_left_standing(
    api: Api, app: Any
) -> None:
    """One message of a run forgotten alone (its fact stays), then the rest of the run
    with `facts`: only the rest's facts are retracted; the earlier forget's fact still
    stands (CONTRACT §12: without `facts` the facts stay)."""
    post_run(api, app, "r1", [user("I live in Porto."), user("I love jazz.")])
    porto = next(e for e in episodes(api) if "Porto" in e["text"])
    assert api.delete(f"/v1/episodes/{porto['id']}").status_code == 200
    out = api.delete("/v1/runs/r1/episodes", params={"facts": "true"}).json()
    assert len(out["episodes"]) == 1 and len(out["retracted"]) == 1, out
    assert values(api, "location") == ["Porto"] and values(api, "likes") == []
