"""CONTRACT §7 for EVERY GET route of the app: nothing crosses between owners.

The world (seeded once for this module): owners A and B, each with a person "Bob" holding
different facts, a run (its message kept as an episode), a pending proposal and notes; a
group created by A with B as member, in which A shares one entity ("Atlas") with B. B has a
chat with memory access `none` and one `restricted` to the areas `place`, `conversation`
and `notes` and the sources `user_edit` and `user_stated` (the person's own words pass,
the assistant's do not; a note observed by the assistant does not either).

`CASES` has one row per GET route, keyed like `app.routes`; a route without a row fails
`test_every_get_route_has_a_case`, so a route added later cannot skip the suite. Each
case runs the same checks, from both sides (A probing B and B probing A):

* its own ids answer 200, and no response ever shows the other owner's unshared data
  (fact values, proposal values, unshared ids);
* the other owner's ids (guessed) answer 404 exactly as ids that do not exist;
* memory reads (`memory=True`: they read facts or entities and take `chat_id` and
  `known_at`): a `none` chat gets 403 problem+json; a `restricted` chat sees only the
  allowed areas x sources (a row it keeps out is a 404 like an unknown id); the shared
  entity answers like an own one for the member, and not at all with `known_at` before
  the share.

To cover a new route, add a row: `Case(memory=True)` for a read of facts or entities
(search, neighbors, diff, why, effects, ...), or `Case(memory=False, why=...)` saying why
chat access does not apply. Path parameters are filled from `World.ids` by name: add a
name there when a route takes a new kind of id.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from graph.time import utcnow
from tests.api.conftest import Api, app_routes, make_api

ALL = ("read", "write", "curate", "admin")
AT = "2024-03-10T09:00:00Z"


@dataclass(frozen=True)
class Case:
    """How one GET route is probed.

    Attributes:
        memory: it reads facts or entities: honours `chat_id` (memory access) and
            `known_at` (shares as known then).
        query: extra query parameters for every call.
        shared: for the member, the shared entity's ids answer like its own.
        shows_facts: the response for its own ids includes Bob's facts (so the
            restricted chat's filtering is visible in it).
        auth: needs a token.
        why: for a route with `memory=False`, why chat memory access does not apply.
    """

    memory: bool
    query: dict[str, str] = field(default_factory=dict)
    shared: bool = False
    shows_facts: bool = False
    auth: bool = True
    why: str = ""
    unshared: str = ""
    """Why a memory read has nothing a share could show (its ids are the owner's own
    events, never shared); empty for reads a share applies to."""


DOCS = "FastAPI's own docs: the API's schema, no data"
NOTES = "notes are shared as a group's notes, not by entity shares: tests/api/test_notes_groups.py"
DOCS_UNSHARED = (
    "knowledge documents are held by an owner or a group (tests/api/test_knowledge.py), "
    "never shared through an entity share"
)

CASES: dict[tuple[str, str], Case] = {
    ("GET", "/openapi.json"): Case(memory=False, auth=False, why=DOCS),
    ("GET", "/docs"): Case(memory=False, auth=False, why=DOCS),
    ("GET", "/docs/oauth2-redirect"): Case(memory=False, auth=False, why=DOCS),
    ("GET", "/redoc"): Case(memory=False, auth=False, why=DOCS),
    ("GET", "/healthz"): Case(memory=False, auth=False, why="store liveness, no data"),
    ("GET", "/readyz"): Case(memory=False, auth=False, why="readiness, no data"),
    ("GET", "/metrics"): Case(
        memory=False, auth=False, why="this process's prefetch counts, no owner's data"
    ),
    ("GET", "/v1/owners/me/export"): Case(
        memory=False, why="the caller's own owner, whole (admin): the owner's copy of itself"
    ),
    ("GET", "/v1/me"): Case(memory=False, why="the token's own owner and scopes"),
    ("GET", "/v1/entities"): Case(memory=True, query={"q": "bob"}),
    ("GET", "/v1/entities/{entity_id}"): Case(memory=True, shared=True, shows_facts=True),
    ("GET", "/v1/entities/{entity_id}/facts"): Case(memory=True, shared=True, shows_facts=True),
    ("GET", "/v1/entities/{entity_id}/history"): Case(memory=True, shared=True, shows_facts=True),
    ("GET", "/v1/entities/{entity_id}/history/{attribute}"): Case(memory=True, shared=True),
    ("GET", "/v1/facts/{fact_id}"): Case(memory=True, shared=True),
    ("GET", "/v1/runs/{run_id}"): Case(memory=False, why="a run's status and counts, no facts"),
    ("GET", "/v1/chats/{chat_id}/memory-access"): Case(
        memory=False, why="the setting itself: a chat must be able to learn it is `none`"
    ),
    ("GET", "/v1/profile/memory-access"): Case(memory=False, why="the owner's default setting"),
    ("GET", "/v1/proposals"): Case(memory=False, why="review by the person, owner-wide"),
    ("GET", "/v1/proposals/{proposal_id}"): Case(memory=False, why="review by the person"),
    ("GET", "/v1/notifications"): Case(memory=False, why="addressed to chats by the curator"),
    ("GET", "/v1/merge-suggestions"): Case(memory=False, why="review by the person"),
    ("GET", "/v1/groups"): Case(memory=False, why="group membership, not memory"),
    ("GET", "/v1/lookup"): Case(memory=True, query={"name": "bob"}),
    ("GET", "/v1/search"): Case(memory=True, query={"q": "bob"}),
    ("GET", "/v1/facts/{fact_id}/why"): Case(memory=True, shared=True),
    ("GET", "/v1/events/{event_id}/effects"): Case(
        memory=True, unshared="events are the owner's own: a member never reads the sharer's"
    ),
    ("GET", "/v1/entities/{entity_id}/neighbors"): Case(memory=True, shared=True),
    ("GET", "/v1/knowledge"): Case(memory=True, unshared=DOCS_UNSHARED),
    ("GET", "/v1/knowledge/{name:path}"): Case(memory=True, unshared=DOCS_UNSHARED),
    ("GET", "/v1/knowledge/{name:path}/versions"): Case(memory=True, unshared=DOCS_UNSHARED),
    ("GET", "/v1/access-log"): Case(
        memory=False, why="the remember gate's log of attempts (admin): no memory is read"
    ),
    ("GET", "/v1/state/{workflow}/{key}"): Case(
        memory=False, why="workflow state of scheduled work, read by no chat"
    ),
    ("GET", "/v1/shared-state/{group_id}/{workflow}/{key}"): Case(
        memory=False, why="workflow state of scheduled work, read by no chat"
    ),
    ("GET", "/v1/usage/summary"): Case(memory=False, why="usage numbers, never content"),
    ("GET", "/v1/chats/{chat_id}/history"): Case(
        memory=False,
        why="the chat is the path's own: its memory access applies to it "
        "(tests/api/test_chat_history.py), and episodes are never shared",
    ),
    ("GET", "/v1/episodes"): Case(
        memory=True, unshared="episodes are the owner's own: a group shares entities, not talk"
    ),
    ("GET", "/v1/episodes/{episode_id}"): Case(
        memory=True, unshared="episodes are the owner's own: a group shares entities, not talk"
    ),
    ("GET", "/v1/entities/{entity_id}/diff"): Case(
        memory=True,
        shared=True,
        query={
            "from": "2000-01-01T00:00:00Z",
            "to": "2030-01-01T00:00:00Z",
            "known_at": "2030-01-01T00:00:00Z",
        },
    ),
    ("GET", "/v1/notes"): Case(memory=True, unshared=NOTES),
    ("GET", "/v1/notes/search"): Case(memory=True, query={"q": "deploys"}, unshared=NOTES),
    ("GET", "/v1/notes/due"): Case(
        memory=True, query={"at": "2099-01-01T00:00:00Z"}, unshared=NOTES
    ),
    ("GET", "/v1/notes/overview"): Case(memory=True, unshared=NOTES),
    ("GET", "/v1/notes/{note_id}"): Case(memory=True, unshared=NOTES),
    ("GET", "/v1/notes/{note_id}/history"): Case(memory=True, unshared=NOTES),
    ("GET", "/v1/notes/{note_id}/why"): Case(memory=True, unshared=NOTES),
    ("GET", "/v1/memory"): Case(memory=True, unshared=NOTES),
}


@dataclass
class World:
    """The seeded owners and what each may and may not see.

    Attributes:
        api: "A" and "B", each bound to its owner's all-scope token.
        ids: per owner, the ids of its own things by path parameter name.
        shared_ids: ids of A's shared entity ("Atlas") and its fact, by parameter name.
        restricted_out: B's ids that B's restricted chat keeps out, by parameter name.
        private: per owner, values no other owner may ever see.
        shared_marks: values on the shared entity (B sees them, but not before the share).
        allowed, denied: B's fact values its restricted chat sees / must not see.
        before_share: an RFC 3339 instant after B's data and before A's share.
    """

    api: dict[str, Api]
    ids: dict[str, dict[str, str]]
    shared_ids: dict[str, str]
    restricted_out: dict[str, str]
    private: dict[str, list[str]]
    shared_marks: list[str]
    allowed: list[str]
    denied: list[str]
    before_share: str


UNKNOWN = {
    "entity_id": "ent_000000000000000000000000",
    "fact_id": "fct_000000000000000000000000",
    "run_id": "run-unknown",
    "event_id": "run-unknown",
    "proposal_id": "prp_000000000000000000000000",
    "group_id": "grp_000000000000000000000000",
    "note_id": "nte_000000000000000000000000",
    "name": "no/such-document",
    "episode_id": "epi_000000000000000000000000",
}
"""Ids that exist for nobody, in the shape of real ones."""

SAME_FOR_ALL = {"attribute": "location", "chat_id": "c-full", "workflow": "wf", "key": "k"}
"""Path parameters that are names, not ids: the same for every caller."""


def _seed_owner(api: Api, app: Any, tag: str, color: str) -> dict[str, Any]:
    bob = api.entity("Bob")
    location = api.fact(bob["id"], attribute="location", value=f"Porto-{tag}")["fact"]
    employer = api.fact(bob["id"], attribute="employer", value=f"Acme-{tag}")["fact"]
    api.fact(bob["id"], attribute="likes", value=f"tea-{tag}")
    run = {
        "id": f"run-{tag}",
        "chat_id": "c-full",
        "messages": [
            {
                "role": "assistant",
                "text": f"Noted: the user's favorite color is {color}.",
                "at": AT,
            },
            {"role": "user", "text": "Hello, just checking in.", "at": AT},
        ],
    }
    assert api.post("/v1/runs", run).status_code == 202
    app.state.curator.drain()
    [proposal] = api.get("/v1/proposals", params={"status": "pending"}).json()["items"]
    note = api.post(
        "/v1/notes",
        {
            "kind": "decision",
            "title": f"Deploys need the lock {tag}",
            "review_at": (utcnow() + timedelta(days=30)).isoformat(),
        },
    )
    observed = api.post(
        "/v1/notes",
        {"kind": "learning", "title": f"Deploys fail on Fridays {tag}", "known_by": "observed"},
    )
    assert note.status_code == observed.status_code == 201, note.text
    # Knowledge and state (issue 16): a document under a name of its own, a value under
    # names every owner uses, and a group of its own holding a document and a value.
    doc = f"notes/doc-{tag.lower()}"
    _put(api, f"/v1/knowledge/{doc}", {"description": f"about-{tag}", "body": f"body-{tag}"})
    _put(api, "/v1/state/wf/k", {"value": f"state-{tag}"})
    solo = api.post("/v1/groups", {"name": "solo"}).json()["id"]
    _put(api, f"/v1/knowledge/{doc}?group={solo}", {"body": f"team-body-{tag}"})
    _put(api, f"/v1/shared-state/{solo}/wf/k", {"value": f"team-state-{tag}"})
    api.post("/v1/usage", {"at": AT, "model": f"model-{tag}"})
    told, said = api.get("/v1/episodes", params={"run_id": run["id"]}).json()["items"]
    return {
        "bob": bob,
        "location": location,
        "employer": employer,
        "proposal": proposal,
        "doc": doc,
        "solo": solo,
        "episode": said,  # the person's own words
        "untrusted_episode": told,  # the assistant's
        "note": note.json()["note"],
        "observed": observed.json()["note"],
    }


def _put(api: Api, url: str, body: Any) -> None:
    r = api.client.put(url, json=body, headers=api.headers)
    assert r.status_code in (200, 201), r.text


@pytest.fixture(scope="module")
def world(app: Any, neo4j_driver: Any) -> Iterator[World]:
    """Seed A and B once; A shares Atlas with B through a group A created."""
    client = TestClient(app)
    tag = uuid.uuid4().hex[:8]
    a = make_api(client, neo4j_driver, f"iso-a-{tag}", ALL)
    b = make_api(client, neo4j_driver, f"iso-b-{tag}", ALL)
    seeds = {
        "A": _seed_owner(a, app, "A" + tag, "crimson" + tag),
        "B": _seed_owner(b, app, "B" + tag, "teal" + tag),
    }
    _put(b, "/v1/chats/c-none/memory-access", {"mode": "none"})
    _put(
        b,
        "/v1/chats/c-restricted/memory-access",
        {
            "mode": "restricted",
            "areas": ["place", "conversation", "knowledge", "notes"],
            "sources": ["user_edit", "user_stated"],
        },
    )
    atlas = a.entity("Atlas", kind="project")
    atlas_fact = a.fact(atlas["id"], attribute="location", value=f"Atlas-base-{tag}")["fact"]
    # Traversal across the share: Atlas -> HQ (shared too) is seen by the member;
    # A's Bob -> Atlas (Bob unshared) never is.
    hq = a.entity(f"Atlas-HQ-{tag}", kind="place")
    a.fact(atlas["id"], attribute="member_of", object_id=hq["id"])
    a.fact(seeds["A"]["bob"]["id"], attribute="works_on", object_id=atlas["id"])
    group = a.post("/v1/groups", {"name": "team"}).json()
    assert a.post(f"/v1/groups/{group['id']}/members", {"owner": b.owner}).status_code == 201
    before_share = utcnow().isoformat().replace("+00:00", "Z")
    for shared in (atlas, hq):
        assert (
            a.post(f"/v1/groups/{group['id']}/shares", {"entity_id": shared["id"]}).status_code
            == 201
        )

    def ids(seed: dict[str, Any], who: str) -> dict[str, str]:
        return {
            "entity_id": seed["bob"]["id"],
            "fact_id": seed["location"]["id"],
            "run_id": f"run-{who}{tag}",
            "event_id": f"run-{who}{tag}",
            "proposal_id": seed["proposal"]["id"],
            "group_id": seed["solo"],
            "name": seed["doc"],
            "note_id": seed["note"]["id"],
            "episode_id": seed["episode"]["id"],
        }

    def private(seed: dict[str, Any], who: str) -> list[str]:
        return [
            f"Porto-{who}{tag}",
            f"Acme-{who}{tag}",
            f"tea-{who}{tag}",
            seed["bob"]["id"],
            seed["location"]["id"],
            seed["employer"]["id"],
            seed["proposal"]["id"],
            seed["episode"]["id"],
            seed["untrusted_episode"]["id"],
            ("crimson" if who == "A" else "teal") + tag,
            seed["note"]["id"],
            f"Deploys need the lock {who}{tag}",
            f"Deploys fail on Fridays {who}{tag}",
            f"body-{who}{tag}",
            f"about-{who}{tag}",
            f"state-{who}{tag}",
            f"model-{who}{tag}",
            seed["solo"],
            seed["doc"],
        ]

    yield World(
        api={"A": a, "B": b},
        ids={"A": ids(seeds["A"], "A"), "B": ids(seeds["B"], "B")},
        shared_ids={"entity_id": atlas["id"], "fact_id": atlas_fact["id"]},
        # The assistant's words (`untrusted`) and a note it observed are out of the
        # restricted chat's sources.
        restricted_out={
            "fact_id": seeds["B"]["employer"]["id"],
            "episode_id": seeds["B"]["untrusted_episode"]["id"],
            "note_id": seeds["B"]["observed"]["id"],
        },
        private={"A": private(seeds["A"], "A"), "B": private(seeds["B"], "B")},
        shared_marks=[f"Atlas-base-{tag}", f"Atlas-HQ-{tag}"],
        allowed=[f"Porto-B{tag}"],
        denied=[f"Acme-B{tag}", f"tea-B{tag}", f"Deploys fail on Fridays B{tag}"],
        before_share=before_share,
    )


def _params(path: str) -> list[str]:
    return re.findall(r"{(\w+)(?::\w+)?}", path)


def _url(path: str, values: dict[str, str]) -> str | None:
    """Fill the path's parameters, or None when `values` lacks an id it needs."""
    out = path
    for name in _params(path):
        value = values.get(name, SAME_FOR_ALL.get(name))
        if value is None:
            return None
        out = re.sub("{" + name + r"(?::\w+)?}", lambda _, v=value: v, out)
    return out


def _call(api: Api, case: Case, url: str, **query: str) -> Any:
    headers = api.headers if case.auth else {}
    return api.client.get(url, params={**case.query, **query}, headers=headers)


def _no_leak(response: Any, secrets: list[str], asked: list[str], where: str) -> None:
    text = response.text
    for echoed in asked:  # a 404 names the id it was asked for: that is not a leak
        text = text.replace(echoed, "")
    leaked = [s for s in secrets if s in text]
    assert not leaked, (where, leaked, response.text[:500])


def _same_as_unknown(api: Api, case: Case, path: str, ids: dict[str, str], where: str) -> None:
    """The other owner's ids answer exactly like ids that do not exist."""
    url = _url(path, ids)
    if url is None:
        return
    unknown = {name: UNKNOWN[name] for name in _params(path) if name in ids}
    probe, missing = _call(api, case, url), _call(api, case, _url(path, {**ids, **unknown}) or "")
    assert probe.status_code == 404 and missing.status_code == 404, (where, probe.text)
    text = probe.text
    for name, value in unknown.items():
        text = text.replace(ids[name], value)
    assert text == missing.text, (where, probe.text, missing.text)
    assert probe.headers["content-type"].startswith("application/problem+json")


def test_every_get_route_has_a_case(app: Any) -> None:
    """A GET route added without a row in CASES fails here (and a row for a route that
    no longer exists, too): every read is probed for isolation."""
    routes = {r for r in app_routes(app) if r[0] == "GET"}
    assert routes - CASES.keys() == set(), "add these routes to CASES"
    assert CASES.keys() - routes == set(), "these CASES name routes the app does not have"
    for key, case in CASES.items():
        assert case.memory or case.why, (key, "say why chat memory access does not apply")
        for name in _params(key[1]):
            assert name in UNKNOWN or name in SAME_FOR_ALL, (key, f"add {name!r} to World.ids")


@pytest.mark.parametrize("key", sorted(CASES), ids=[f"{m} {p}" for m, p in sorted(CASES)])
@pytest.mark.parametrize(("viewer", "other"), [("B", "A"), ("A", "B")])
def test_own_answers_and_the_other_owner_never_shows(
    world: World, key: tuple[str, str], viewer: str, other: str
) -> None:
    """Own ids answer 200 showing nothing of the other owner's; the other owner's ids are
    a 404 identical to an unknown id's."""
    case, path = CASES[key], key[1]
    api = world.api[viewer]
    own = _call(api, case, _url(path, world.ids[viewer]) or "")
    assert own.status_code == 200, (key, viewer, own.text)
    _no_leak(own, world.private[other], [], f"{key} own as {viewer}")
    if _params(path) and set(_params(path)) - set(SAME_FOR_ALL):
        _same_as_unknown(api, case, path, world.ids[other], f"{key} {viewer} probing {other}")
        guessed = _call(api, case, _url(path, world.ids[other]) or "")
        _no_leak(guessed, world.private[other], list(world.ids[other].values()), f"{key} guess")
    if case.shows_facts:
        mine = world.private[viewer][:3]
        assert all(v in own.text for v in mine), (key, viewer, "own facts missing")


MEMORY = sorted(k for k, c in CASES.items() if c.memory)


@pytest.mark.parametrize("key", MEMORY, ids=[f"{m} {p}" for m, p in MEMORY])
def test_memory_access_of_the_chat_applies(world: World, key: tuple[str, str]) -> None:
    """A memory read from a `none` chat is 403 problem+json; from a `restricted` chat it
    shows only allowed areas x sources, and a row kept out is a 404 like an unknown id."""
    case, path = CASES[key], key[1]
    b = world.api["B"]
    url = _url(path, world.ids["B"]) or ""
    closed = _call(b, case, url, chat_id="c-none")
    assert closed.status_code == 403, (key, closed.text)
    assert closed.headers["content-type"].startswith("application/problem+json")
    assert "memory is off" in closed.json()["detail"]
    narrow = _call(b, case, url, chat_id="c-restricted")
    assert narrow.status_code == 200, (key, narrow.text)
    _no_leak(narrow, world.denied, [], f"{key} restricted")
    if case.shows_facts:
        assert all(v in narrow.text for v in world.allowed), (key, narrow.text[:300])
    out = _url(path, world.restricted_out)
    id_params = set(_params(path)) - set(SAME_FOR_ALL)
    if out is not None and id_params and id_params <= set(world.restricted_out):
        kept_out = _call(b, case, out, chat_id="c-restricted")
        unknown = _call(b, case, _url(path, UNKNOWN) or "", chat_id="c-restricted")
        assert kept_out.status_code == 404 and unknown.status_code == 404, (key, kept_out.text)
        assert kept_out.json()["title"] == unknown.json()["title"]
    full = _call(b, case, url, chat_id="c-full")
    assert full.status_code == 200 and full.text == _call(b, case, url).text, key


@pytest.mark.parametrize("key", MEMORY, ids=[f"{m} {p}" for m, p in MEMORY])
def test_the_shared_entity_shows_to_the_member_and_not_before_the_share(
    world: World, key: tuple[str, str]
) -> None:
    """The member reads the shared entity like its own; with `known_at` before the share
    it is a 404 like an unknown id, and lists show nothing of it."""
    case, path = CASES[key], key[1]
    if case.unshared:
        pytest.skip(case.unshared)
    b = world.api["B"]
    before = {"known_at": world.before_share}
    if not case.shared:  # a list or lookup: the shared entity is in it now, not before
        now, then = _call(b, case, _url(path, world.ids["B"]) or ""), None
        term = next((k for k in ("q", "name") if k in case.query), None)
        if term is not None:  # a search or lookup: ask for the shared entity by name
            now = _call(b, case, _url(path, world.ids["B"]) or "", **{term: "atlas"})
            then = _call(b, case, _url(path, world.ids["B"]) or "", **{term: "atlas"}, **before)
        else:
            then = _call(b, case, _url(path, world.ids["B"]) or "", **before)
        assert now.status_code == 200 and world.shared_ids["entity_id"] in now.text, key
        assert then.status_code == 200, (key, then.text)
        _no_leak(then, [world.shared_ids["entity_id"], *world.shared_marks], [], f"{key} before")
        return
    url = _url(path, {**world.ids["B"], **world.shared_ids})
    if url is None:
        pytest.skip("the shared entity has no id of this kind")
    seen = _call(b, case, url)
    assert seen.status_code == 200, (key, seen.text)
    assert any(m in seen.text for m in world.shared_marks), (key, seen.text[:300])
    then = _call(b, case, url, **before)
    unknown = _call(b, case, _url(path, {**world.ids["B"], **UNKNOWN}) or "", **before)
    assert then.status_code == 404 and unknown.status_code == 404, (key, then.text)
    assert then.json()["title"] == unknown.json()["title"]
    _no_leak(then, world.shared_marks, [], f"{key} before the share")


def test_the_other_owner_sees_nothing_shared(world: World) -> None:
    """Only members see a share: A's Atlas is in B's lists, B's things are in nobody
    else's, and the owner itself (A) lists Atlas as its own."""
    a, b = world.api["A"], world.api["B"]
    atlas = world.shared_ids["entity_id"]
    assert atlas in b.get("/v1/entities").text
    assert atlas in a.get("/v1/entities").text
    assert [e["name"] for e in b.get("/v1/entities", params={"q": "bob"}).json()["items"]] == [
        "Bob"
    ]
    [group] = [g for g in b.get("/v1/groups").json()["items"] if g["name"] == "team"]
    assert atlas in [s["entity_id"] for s in group["shares"]] and len(group["shares"]) == 2
