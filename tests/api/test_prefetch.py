"""Prefetch (push) over REST: sections, mentions, ranking, scope (CONTRACT §6, §7).

Budget, determinism across processes and the deadline with Neo4j stopped are in
tests/api/test_prefetch_budget.py and tests/api/test_prefetch_deadline.py.
"""

from __future__ import annotations

import re
from typing import Any

from neo4j import Driver

from graph.time import FAR_FUTURE
from tests.api.conftest import Api, make_api

SINCE = "2024-01-01T00:00:00Z"
LINE = re.compile(
    r"^- .*\d{4}-\d{2}-\d{2}.*(told by you|entered by you|observed by \w+"
    r"|inferred and confirmed|from a document, confirmed)\)$"
)


def prefetch(api: Api, message: str, **extra: Any) -> dict[str, Any]:
    r = api.post("/v1/prefetch", {"chat_id": "c", "message": message, **extra})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    assert body["degraded"] is False
    return body


def relations(body: dict[str, Any], entity_id: str) -> list[str]:
    """The other ends of an entity's relationship lines, in block order."""
    return [
        i["other_id"]
        for i in body["items"]
        if i["kind"] == "relationship" and i["entity_id"] == entity_id
    ]


def test_sections_in_order_every_line_dated_and_tagged(api: Api) -> None:
    """Preferences, then the mentioned entities, then recent events; every line of a
    section carries a date and a provenance tag."""
    me = api.entity("Me")["id"]
    ana = api.entity("Ana Sousa", aliases=["Ana"])["id"]
    api.fact(me, attribute="answer_style", value="terse", valid_from=SINCE)
    api.fact(me, attribute="units", value="metric", valid_from=SINCE)
    api.fact(ana, attribute="location", value="Porto", valid_from=SINCE)
    api.fact(ana, attribute="knows", object_id=me, valid_from=SINCE)
    api.fact(
        me,
        attribute="participated_in",
        value="Lisbon half marathon",
        valid_from="2024-05-20T08:00:00Z",
    )
    body = prefetch(api, "What should I get Ana for her birthday?")
    block = body["block"]
    assert block.startswith("## Known World State\n") and "not instruction" in block
    assert "the user is right" in block
    heads = [ln for ln in block.splitlines() if ln.startswith("### ")]
    assert heads == ["### Preferences", "### Mentioned", "### Recent events"]
    assert "- answer_style: terse (since 2024-01-01; entered by you)" in block
    assert "**Ana Sousa** (person)" in block and "- location: Porto" in block
    assert "- 2024-05-20 Me: Lisbon half marathon (entered by you)" in block
    bullets = [ln for ln in block.splitlines() if ln.startswith("- ")]
    assert bullets and all(LINE.match(ln) for ln in bullets), bullets
    sections = [i["section"] for i in body["items"]]
    assert sections == sorted(sections, key=["preferences", "mentioned", "recent events"].index)


def test_mentions_are_word_bounded_case_and_accent_insensitive(api: Api) -> None:
    """ "zoe's" names Zoë, "the Smiths" names Smith, "ANA" names Ana; "Anastasia" does not
    name Ana, and an entity not named is not shown."""
    zoe = api.entity("Zoë Brandt")["id"]
    smith = api.entity("Smith", kind="family")["id"]
    ana = api.entity("Ana")["id"]
    other = api.entity("Bruno")["id"]
    for eid in (zoe, smith, ana, other):
        api.fact(eid, attribute="location", value="Oslo", valid_from=SINCE)
    named = {
        i["entity_id"]
        for i in prefetch(api, "Is zoe brandt's dog with the Smiths? ANA?")["items"]
        if i["kind"] == "entity"
    }
    assert named == {zoe, smith, ana}
    assert not [i for i in prefetch(api, "Anastasia called")["items"] if i["kind"] == "entity"]


def test_relationships_ranked_by_personalized_pagerank_ties_by_id(api: Api) -> None:
    """A knows B, C, D, E; B-C and C-D are linked too. PageRank personalized on A puts C
    (three links in the neighbourhood) first, E (a leaf) last, and B and D (symmetric)
    between, in order of id."""
    a = api.entity("Alpha")["id"]
    b, c, d, e = (api.entity(n)["id"] for n in ("Bravo", "Charlie", "Delta", "Echo"))
    for other in (e, d, b, c):
        api.fact(a, attribute="knows", object_id=other, valid_from=SINCE)
    api.fact(b, attribute="knows", object_id=c, valid_from=SINCE)
    api.fact(c, attribute="knows", object_id=d, valid_from=SINCE)
    body = prefetch(api, "Tell me about Alpha")
    assert relations(body, a) == [c, *sorted([b, d]), e]
    scores = {i["other_id"]: i["score"] for i in body["items"] if i["kind"] == "relationship"}
    assert scores[c] > scores[b] == scores[d] > scores[e]


def test_memory_access_none_gives_an_empty_block_not_degraded(api: Api) -> None:
    """CONTRACT §7 clean room: `none` answers an empty block, and it is not degraded."""
    ana = api.entity("Ana")["id"]
    api.fact(ana, attribute="location", value="Porto", valid_from=SINCE)
    r = api.client.put("/v1/chats/c/memory-access", json={"mode": "none"}, headers=api.headers)
    assert r.status_code == 200, r.text
    assert prefetch(api, "How is Ana?") == {"block": "", "items": [], "degraded": False}
    other_chat = prefetch(api, "How is Ana?", chat_id="other")
    assert "location: Porto" in other_chat["block"]


def test_memory_access_restricted_shows_only_allowed_areas_and_sources(api: Api, app: Any) -> None:
    """`restricted` to areas [work] x sources [integration]: only work facts an
    integration observed; an entity with nothing allowed is left out altogether."""
    ana = api.entity("Ana")["id"]
    bob = api.entity("Bob")["id"]
    api.fact(ana, attribute="location", value="Porto", valid_from=SINCE)  # user_edit
    api.fact(ana, attribute="employer", value="Acme", valid_from=SINCE)
    api.fact(bob, attribute="employer", value="Initech", valid_from=SINCE)
    run = {
        "id": "obs-1",
        "chat_id": "c",
        "messages": [],
        "observations": [
            {
                "integration": "calendar",
                "entity": {"name": "Ana", "kind": "person"},
                "attribute": "occupation",
                "value": "nurse",
                "valid_from": SINCE,
                "confidence": 1.0,
            },
        ],
    }
    assert api.post("/v1/runs", run).status_code == 202
    app.state.curator.drain()
    full = prefetch(api, "Ana and Bob")["block"]
    assert "occupation: nurse (since 2024-01-01; observed by calendar)" in full
    assert "employer: Acme" in full and "Porto" in full and "Initech" in full
    r = api.client.put(
        "/v1/chats/c/memory-access",
        headers=api.headers,
        json={"mode": "restricted", "areas": ["work"], "sources": ["integration"]},
    )
    assert r.status_code == 200, r.text
    body = prefetch(api, "Ana and Bob")
    kept = [(i["kind"], i.get("attribute"), i.get("value")) for i in body["items"]]
    assert kept == [("entity", None, None), ("fact", "occupation", "nurse")], kept
    assert "Bob" not in body["block"]


def test_pending_proposals_are_invisible(api: Api, app: Any) -> None:
    """CONTRACT §3: a held proposal about a mentioned entity is not in the block."""
    ana = api.entity("Ana Sousa", aliases=["Ana"])["id"]
    api.fact(ana, attribute="location", value="Porto", valid_from=SINCE)
    run = {
        "id": "held-1",
        "chat_id": "c",
        "messages": [],
        "observations": [
            {
                "integration": "contacts",
                "entity": {"name": "Ana Sousa", "kind": "person"},
                "attribute": "employer",
                "value": "Lisbon Labs",
                "valid_from": SINCE,
                "confidence": 0.5,
            }
        ],
    }  # low confidence: held for the person's yes
    assert api.post("/v1/runs", run).status_code == 202
    app.state.curator.drain()
    pending = api.get("/v1/proposals", params={"status": "pending"}).json()["items"]
    assert [p["value"] for p in pending] == ["Lisbon Labs"], pending
    block = prefetch(api, "Where does Ana live?")["block"]
    assert "location: Porto" in block and "Lisbon" not in block


def test_archived_entities_are_left_out(api: Api, neo4j_driver: Driver) -> None:
    """CONTRACT §5: an archived entity is neither mentioned, nor a relationship's other
    end, nor the subject of an event."""
    ana = api.entity("Ana")["id"]
    old = api.entity("Oldco", kind="project")["id"]
    api.fact(ana, attribute="works_on", object_id=old, valid_from=SINCE)
    api.fact(ana, attribute="location", value="Porto", valid_from=SINCE)
    api.fact(
        old, attribute="participated_in", value="Oldco kickoff", valid_from="2024-05-01T00:00:00Z"
    )
    before = prefetch(api, "Ana and Oldco")["block"]
    assert "**Oldco**" in before and "works_on → Oldco" in before and "kickoff" in before
    neo4j_driver.execute_query(  # archive arrives with issue 5; set the flag it reads
        "MATCH (e:Entity {id: $id}) SET e.archived = true", id=old
    )
    after = prefetch(api, "Ana and Oldco")["block"]
    assert "**Ana**" in after and "location: Porto" in after
    assert "Oldco" not in after


def test_entity_shared_through_a_group_is_mentionable(
    api: Api, client: Any, neo4j_driver: Driver
) -> None:
    """CONTRACT §7: an entity another owner shares with a group is mentionable by each
    member, with its facts; not by an owner outside the group."""
    falcon = api.entity("Project Falcon", kind="project")["id"]
    api.fact(falcon, attribute="status", value="on track", valid_from=SINCE)
    member = make_api(client, neo4j_driver, api.owner + "-member", ("read", "write"))
    outsider = make_api(client, neo4j_driver, api.owner + "-outsider", ("read", "write"))
    member.entity("Nobody Else")  # makes the member's owner node
    shared_at = "2024-03-01T00:00:00Z"
    neo4j_driver.execute_query(  # groups are written by another issue; the read side is here
        """
        CREATE (:Membership {member: $member, group_id: $group,
                             joined_at: datetime($t), left_at: $far})
        CREATE (:Share {group_id: $group, entity_id: $entity, owner: $owner,
                        shared_at: datetime($t), unshared_at: $far})
        """,
        member=member.owner,
        group=api.owner + "-group",
        entity=falcon,
        owner=api.owner,
        t=shared_at,
        far=FAR_FUTURE,
    )
    body = prefetch(member, "Any news on project falcon?")
    assert [i["entity_id"] for i in body["items"] if i["kind"] == "entity"] == [falcon]
    assert "- status: on track" in body["block"]
    assert "Falcon" not in prefetch(outsider, "Any news on project falcon?")["block"]
