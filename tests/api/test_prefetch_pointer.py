"""Prefetch's pointer to knowledge documents (CONTRACT §14): one line naming documents whose
name or description the message matches, never a body; the caller's and its groups' only;
within the block's budgets; deterministic."""

from __future__ import annotations

from typing import Any

from neo4j import Driver

from api.chat.prefetch import pointer
from api.chat.prefetch.block import build
from graph.read.knowledge import pointer_lucene
from graph.read.reader import Reader
from graph.scope import Reach
from graph.time import utcnow
from tests.api.conftest import Api
from tests.api.test_groups import group_of

BODY = "Never refund after 30 days unless the invoice was wrong."


def doc(api: Api, name: str, description: str, group: str | None = None) -> None:
    url = f"/v1/knowledge/{name}" + (f"?group={group}" if group else "")
    r = api.client.put(url, json={"description": description, "body": BODY}, headers=api.headers)
    assert r.status_code == 200, r.text


def prefetch(api: Api, message: str, chat_id: str = "c1") -> dict[str, Any]:
    r = api.post("/v1/prefetch", {"chat_id": chat_id, "message": message})
    assert r.status_code == 200 and not r.json()["degraded"], r.text
    return r.json()  # type: ignore[no-any-return]


def test_a_matching_name_or_description_adds_one_pointer_line(api: Api) -> None:
    """A message with every word of a name, or two words of a description, gets one line
    `see knowledge: ...` at the end of the block (name matches first) and an item of kind
    `knowledge`; never the body; a message matching nothing gets no line; the same input
    gives the same bytes."""
    doc(api, "billing/edge-cases", "Refunds, proration and chargebacks")
    doc(api, "support/tone", "How we answer angry customers about refunds and chargebacks")
    out = prefetch(api, "A customer asks about billing edge cases and chargebacks refunds")
    last = out["block"].rstrip("\n").splitlines()[-1]
    assert last == "see knowledge: billing/edge-cases, support/tone"
    assert out["items"][-1]["kind"] == "knowledge"
    assert out["items"][-1]["names"] == ["billing/edge-cases", "support/tone"]
    assert BODY not in out["block"]
    assert "see knowledge" not in prefetch(api, "What is the weather like?")["block"]
    assert "see knowledge" not in prefetch(api, "billing")["block"]  # one word of three
    again = prefetch(api, "A customer asks about billing edge cases and chargebacks refunds")
    assert again["block"] == out["block"]


def test_only_the_callers_and_its_groups_documents(api: Api, other: Api) -> None:
    """A group's document points for its members; another owner's never does."""
    group = group_of(api, other)
    doc(api, "billing/edge-cases", "Refunds", group=group)
    doc(api, "private/salaries", "Salary bands")
    assert "billing/edge-cases" in prefetch(other, "billing edge cases?")["block"]
    assert "see knowledge" not in prefetch(other, "private salaries?")["block"]


def test_memory_access_keeps_it_out(api: Api) -> None:
    """No pointer in a chat restricted without the area `knowledge`; one with it."""
    doc(api, "billing/edge-cases", "Refunds")
    for chat, areas in (("c-places", ["place"]), ("c-docs", ["knowledge"])):
        access = {"mode": "restricted", "areas": areas, "sources": ["user_edit"]}
        url = f"/v1/chats/{chat}/memory-access"
        assert api.client.put(url, json=access, headers=api.headers).status_code == 200
    assert "see knowledge" not in prefetch(api, "billing edge cases", "c-places")["block"]
    assert "see knowledge" in prefetch(api, "billing edge cases", "c-docs")["block"]


def test_the_pointer_fits_the_budgets(api: Api, neo4j_driver: Driver) -> None:
    """With facts that fill a small budget, the block with its pointer stays within the
    characters and items allowed."""
    doc(api, "billing/edge-cases", "Refunds")
    bob = api.entity("Bob")
    for i in range(8):
        api.fact(bob["id"], attribute="likes", value=f"thing number {i} " + "x" * 40)
    for max_chars, max_items in ((400, 40), (2000, 3)):
        out = build(
            Reader(neo4j_driver),
            api.owner,
            "c1",
            "Bob billing edge cases",
            utcnow(),
            max_chars,
            max_items,
        )
        assert len(out.block) <= max_chars and len(out.items) <= max_items
        assert out.block.endswith("see knowledge: billing/edge-cases\n")


def test_choose_is_pure_and_ranked() -> None:
    """Name matches before description matches, then more words matched, each name once,
    at most three."""
    candidates = [
        ("z/refunds", "refunds policy for chargebacks", "owner:o", ""),
        ("a/other", "chargebacks refunds disputes", "owner:o", ""),
        ("billing", "", "owner:o", ""),
        ("billing", "", "group:g", ""),
        ("x/y", "nothing here", "owner:o", ""),
    ]
    said = "billing refunds chargebacks disputes"
    assert pointer.choose(candidates, said) == ["billing", "a/other", "z/refunds"]


def test_the_lookup_is_narrowed_to_the_callers_holders() -> None:
    """The full-text query names the caller's own holder and its groups' (other owners'
    documents are never read from the index); a holder key Lucene could not take as a
    phrase leaves it un-narrowed (the Cypher filter keeps the answer exact)."""
    reach = Reach("ana-1", ("grp_a", "grp_b"))
    assert pointer_lucene(["billing", "refunds"], reach) == (
        '+search_text:(billing refunds) +(holder:"owner:ana-1" holder:"group:grp_a" '
        'holder:"group:grp_b")'
    )
    assert pointer_lucene(["billing"], Reach('odd"owner')) == "+search_text:(billing)"


def test_it_names_current_documents_and_history_is_not_indexed(
    api: Api, neo4j_driver: Driver
) -> None:
    """The pointer names documents as they read now, whatever the prefetch's `at` (the
    assistant reads them now): an old description no longer matches and a retired
    document is never named. Only the current version of a document is in the full-text
    index, so its history never slows prefetch."""
    doc(api, "support/tone", "Angry customers and chargebacks")
    before = utcnow().isoformat()
    for description in ("Refund disputes", "Refund disputes, escalation", "Escalation paths"):
        doc(api, "support/tone", description)
    doc(api, "billing/edge-cases", "Refunds")
    api.delete("/v1/knowledge/billing/edge-cases")
    for at in (None, before):
        body = {"chat_id": "c1", "message": "billing edge cases: angry customers, chargebacks"}
        r = api.post("/v1/prefetch", body | ({"at": before} if at else {}))
        assert r.status_code == 200 and "see knowledge" not in r.json()["block"], at
    out = prefetch(api, "who handles escalation paths?")
    assert out["block"].rstrip("\n").endswith("see knowledge: support/tone")
    indexed = Reader(neo4j_driver).run_query(
        "MATCH (k:KnowledgeVersion {holder: $h}) WHERE k.search_text IS NOT NULL "
        "RETURN k.name AS name, k.version AS version ORDER BY name",
        h=f"owner:{api.owner}",
    )
    assert [(r["name"], r["version"]) for r in indexed] == [
        ("billing/edge-cases", 2),
        ("support/tone", 4),
    ]
