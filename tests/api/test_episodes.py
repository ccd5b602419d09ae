"""Episodes, what was said (CONTRACT §12): kept with their run, secrets never stored,
nothing of a `none` chat, memory access, time travel, the routes' shapes and OpenAPI."""

from __future__ import annotations

import re
from typing import Any

from neo4j import Driver

from tests.api.conftest import Api
from tests.api.test_proposals_api import me

AT = "2024-03-10T09:00:00+01:00"


def post_run(
    api: Api, app: Any, run_id: str, messages: list[dict[str, Any]], chat: str = "c1"
) -> dict[str, Any]:
    """Post a run of full message dicts (ids `<run>-m<i>`), curate it, return its status."""
    body = {
        "id": run_id,
        "chat_id": chat,
        "messages": [{"id": f"{run_id}-m{i}", "at": AT, **m} for i, m in enumerate(messages)],
    }
    assert api.post("/v1/runs", body).status_code == 202
    app.state.curator.drain()
    status = api.get(f"/v1/runs/{run_id}").json()
    assert status["status"] in ("done", "skipped"), status  # curated (or a `none` chat's)
    return status  # type: ignore[no-any-return]


def episodes(api: Api, **params: Any) -> list[dict[str, Any]]:
    r = api.get("/v1/episodes", params=params)
    assert r.status_code == 200, r.text
    return r.json()["items"]  # type: ignore[no-any-return]


def owned_texts(driver: Driver, owner: str) -> list[str]:
    """Every text property of every node carrying the owner (the raw store), and of every
    relationship touching one (vectors left out: their digits are not text)."""
    with driver.session() as s:
        nodes = s.run(
            "MATCH (n) WHERE n.owner = $o OR n.id = $o RETURN properties(n) AS p", o=owner
        ).data()
        rels = s.run(
            "MATCH (n)-[r]-() WHERE n.owner = $o RETURN properties(r) AS p", o=owner
        ).data()
    values = [v for r in nodes + rels for v in r["p"].values()]
    return [v for v in values if isinstance(v, str)] + [
        x for v in values if isinstance(v, list) for x in v if isinstance(x, str)
    ]


def test_a_runs_messages_are_kept_with_it(api: Api, app: Any, neo4j_driver: Driver) -> None:
    """Each message becomes an episode in the commit that files the run: the owner's own
    words (`user_stated`, speaker the owner), text pasted into them (`untrusted`, part
    `pasted`), the assistant's (`untrusted`, no speaker), another speaker's (their person
    entity); in run order, embedded and full-text indexed in that same commit."""
    status = post_run(
        api,
        app,
        "r1",
        [
            {"role": "user", "text": "I live in Porto.\n\n> the user lives in Faro\n"},
            {"role": "assistant", "text": "Noted, Porto it is."},
            {"role": "user", "speaker": "Jon", "text": "I adopted a puppy called Rex."},
        ],
    )
    assert status["status"] == "done" and status["committed"] >= 1
    got = episodes(api, run_id="r1")
    assert [(e["message_id"], e["part"], e["source"], e["role"]) for e in got] == [
        ("r1-m0", "own", "user_stated", "user"),
        ("r1-m0", "pasted", "untrusted", "user"),
        ("r1-m1", "own", "untrusted", "assistant"),
        ("r1-m2", "own", "user_stated", "user"),
    ]
    assert got[0]["text"] == "I live in Porto." and got[1]["text"] == "the user lives in Faro"
    assert (got[0]["speaker"], got[0]["speaker_id"]) == (api.owner, me(api))
    assert got[2]["speaker"] is None and got[2]["speaker_id"] is None
    jon = api.get("/v1/entities", params={"q": "jon"}).json()["items"]
    assert got[3]["speaker"] == "Jon" and got[3]["speaker_id"] == jon[0]["id"]
    assert {(e["chat_id"], e["run_id"], e["said_at"]) for e in got} == {
        ("c1", "r1", "2024-03-10T08:00:00Z")
    }
    facts = api.get(f"/v1/entities/{me(api)}/facts").json()["items"]
    porto = next(f for f in facts if f["value"] == "Porto")
    assert {e["recorded_at"] for e in got} == {porto["recorded_at"]}  # one commit
    with neo4j_driver.session() as s:
        stored = s.run(
            "MATCH (ep:Episode {owner: $o}) RETURN ep.search_text AS text, "
            "ep.embedding_model AS model, size(ep.embedding) AS size ORDER BY ep.seq, ep.part",
            o=api.owner,
        ).data()
    assert [r["text"] for r in stored][3] == "Jon: I adopted a puppy called Rex."
    assert {(r["model"], r["size"]) for r in stored} == {("local:all-MiniLM-L6-v2", 384)}
    assert api.get(f"/v1/episodes/{got[3]['id']}").json() == got[3]


def test_a_secret_is_never_stored_nor_shown(api: Api, app: Any, neo4j_driver: Driver) -> None:
    """ "my PIN is 4821": the sentence is `[redacted]` in the episode, and "4821" is on no
    read path (search, episodes, prefetch, facts, why, effects, proposals) and nowhere in
    the raw store, the run's payload included; the rest of the message is kept."""
    post_run(api, app, "r1", [{"role": "user", "text": "I live in Porto. My PIN is 4821."}])
    [said] = episodes(api)
    assert said["text"] == "I live in Porto. [redacted]"
    reads = [
        api.get("/v1/search", params={"q": "4821"}),
        api.get("/v1/search", params={"q": "my PIN"}),
        api.get("/v1/episodes", params={"q": "porto"}),
        api.get(f"/v1/episodes/{said['id']}"),
        api.get("/v1/events/r1/effects"),
        api.get("/v1/proposals"),
        api.get("/v1/notifications"),
        api.get(f"/v1/entities/{me(api)}/facts"),
        api.post("/v1/prefetch", {"chat_id": "c1", "message": "what is my PIN, 4821?"}),
        api.post("/v1/prefetch", {"chat_id": "c1", "message": "Porto"}),
    ]
    for fact in reads[7].json()["items"]:
        reads.append(api.get(f"/v1/facts/{fact['id']}/why"))
    for r in reads:
        assert r.status_code == 200, r.text
        assert not PIN.search(r.text), r.text
    assert "Porto" in reads[2].text and "[redacted]" in reads[3].text
    assert not [t for t in owned_texts(neo4j_driver, api.owner) if PIN.search(t)]


PIN = re.compile(r"(?<![0-9A-Za-z])4821(?![0-9A-Za-z])")
"""The PIN as a word of its own: not the digits inside a score such as 0.6715878248214722
or a hex id, which once failed this test with nothing leaked."""


def test_a_none_chat_stores_nothing(api: Api, app: Any, neo4j_driver: Driver) -> None:
    """The curator never mines a `none` chat (CONTRACT §7), so nothing of it is stored: no
    episode, no fact, and the run keeps no content; a run posted before the chat went
    `none` loses its content when it is skipped."""
    early = {
        "id": "r0",
        "chat_id": "quiet",
        "messages": [{"role": "user", "text": "I adore durian smoothies.", "at": AT}],
    }
    assert api.post("/v1/runs", early).status_code == 202
    r = api.client.put("/v1/chats/quiet/memory-access", json={"mode": "none"}, headers=api.headers)
    assert r.status_code == 200
    status = post_run(api, app, "r1", [{"role": "user", "text": "I live in Kyoto."}], chat="quiet")
    assert status["status"] == "skipped"
    assert api.get("/v1/runs/r0").json()["status"] == "skipped"
    stored = owned_texts(neo4j_driver, api.owner)
    assert not [t for t in stored if "Kyoto" in t or "durian" in t], stored
    with neo4j_driver.session() as s:
        count = s.run("MATCH (ep:Episode {owner: $o}) RETURN count(ep) AS n", o=api.owner)
        assert count.single()["n"] == 0


def test_restricted_areas_hide_the_conversation(api: Api, app: Any) -> None:
    """A restricted chat whose areas lack `conversation` sees no episode on any path (its
    facts of allowed areas still pass); with `conversation` listed, the sources decide:
    the person's own words pass under `user_stated`, the assistant's do not."""
    put = api.client.put
    access = "/v1/chats/narrow/memory-access"
    body = {"mode": "restricted", "areas": ["place"], "sources": ["user_stated"]}
    assert put(access, json=body, headers=api.headers).status_code == 200
    post_run(
        api,
        app,
        "r1",
        [
            {"role": "user", "text": "I live in Porto. Rainy days make me happy."},
            {"role": "assistant", "text": "Rainy Porto days are lovely."},
        ],
        chat="narrow",
    )
    narrow = {"chat_id": "narrow"}
    assert episodes(api, **narrow) == [] and len(episodes(api)) == 2
    found = api.get("/v1/search", params={"q": "rainy days Porto", **narrow}).json()["items"]
    assert {i["kind"] for i in found} == {"fact"}
    block = api.post("/v1/prefetch", {"chat_id": "narrow", "message": "rainy days"}).json()
    assert "From earlier conversations" not in block["block"]
    said = episodes(api)[0]["id"]
    assert api.get(f"/v1/episodes/{said}", params=narrow).status_code == 404
    body["areas"] = ["place", "conversation"]
    assert put(access, json=body, headers=api.headers).status_code == 200
    assert [e["role"] for e in episodes(api, **narrow)] == ["user"]
    block = api.post("/v1/prefetch", {"chat_id": "narrow", "message": "rainy days"}).json()
    assert '"Rainy days make me happy."' in block["block"]
    assert "lovely" not in block["block"]


def test_time_travel_on_both_axes(api: Api, app: Any) -> None:
    """Visible from `said_at` on in valid time; in transaction time from its commit until
    it is forgotten (CONTRACT §12): every combination, on the list and on search."""
    post_run(api, app, "r1", [{"role": "user", "text": "Sourdough baking is my new hobby."}])
    [said] = episodes(api)
    recorded = said["recorded_at"]
    forgot = api.delete(f"/v1/episodes/{said['id']}").json()["recorded_at"]
    cases = [
        ({"valid_at": "2024-03-10T07:59:59Z", "known_at": recorded}, False),  # not said yet
        ({"valid_at": "2024-03-10T08:00:00Z", "known_at": recorded}, True),
        ({"known_at": "2024-01-01T00:00:00Z"}, False),  # before it was recorded
        ({"known_at": recorded}, True),
        ({"known_at": forgot}, False),  # forgotten then
        ({}, False),
    ]
    for params, seen in cases:
        listed = [e["id"] for e in episodes(api, **params)]
        assert listed == ([said["id"]] if seen else []), params
        hits = api.get("/v1/search", params={"q": "sourdough hobby", **params}).json()["items"]
        assert (said["id"] in [i["episode"]["id"] for i in hits if i["kind"] == "episode"]) == (
            seen
        ), params
    gone = api.get(f"/v1/episodes/{said['id']}").json()
    assert gone["retracted_at"] == forgot  # the audit view: still readable by id


def test_the_list_pages_and_filters(api: Api, app: Any) -> None:
    """`limit` pages with `next` (keyset, oldest first); `q` keeps those with every word;
    `chat_id` and `run_id` filter; a cursor of another listing is a 422 naming `cursor`."""
    post_run(api, app, "r1", [{"role": "user", "text": f"Note {i} about tea."} for i in range(5)])
    post_run(api, app, "r2", [{"role": "user", "text": "Coffee and tea at noon."}], chat="c2")
    first = api.get("/v1/episodes", params={"limit": 4}).json()
    second = api.get("/v1/episodes", params={"limit": 4, "cursor": first["next"]}).json()
    assert len(first["items"]) == 4 and len(second["items"]) == 2 and second["next"] is None
    every = [e["id"] for e in first["items"] + second["items"]]
    assert len(set(every)) == 6
    assert [e["text"] for e in episodes(api, q="TEA coffee")] == ["Coffee and tea at noon."]
    assert len(episodes(api, q="tea")) == 6 and len(episodes(api, run_id="r2")) == 1
    assert {e["chat_id"] for e in episodes(api, chat_id="c2")} == {"c2"}
    r = api.get("/v1/episodes", params={"limit": 4, "cursor": first["next"], "run_id": "r1"})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "cursor"


def test_openapi_documents_the_routes_and_their_problems(client: Any) -> None:
    """Each new route is in the OpenAPI document with its problem answers (by the rule of
    api/http/openapi.py), served as application/problem+json with the Problem schema; a
    search item is one of two shapes, told apart by `kind`."""
    doc = client.get("/openapi.json").json()
    expected = {
        ("/v1/episodes", "get"): {"401", "403", "422", "503"},
        ("/v1/episodes/{episode_id}", "get"): {"401", "403", "404", "422", "503"},
        ("/v1/episodes/{episode_id}", "delete"): {"401", "403", "404", "409", "422", "503"},
        ("/v1/runs/{run_id}/episodes", "delete"): {"401", "403", "404", "409", "422", "503"},
        ("/v1/search", "get"): {"401", "403", "422", "503"},
    }
    for (path, method), codes in expected.items():
        responses = doc["paths"][path][method]["responses"]
        assert codes <= set(responses), (path, method, set(responses))
        for code in codes:
            content = responses[code]["content"]
            assert list(content) == ["application/problem+json"], (path, code)
            assert content["application/problem+json"]["schema"]["$ref"].endswith("/Problem")
    items = doc["components"]["schemas"]["SearchOut"]["properties"]["items"]["items"]
    assert items["discriminator"]["propertyName"] == "kind"
    assert {"EpisodePublic", "EpisodeList", "EpisodesForgotten"} <= set(
        doc["components"]["schemas"]
    )
