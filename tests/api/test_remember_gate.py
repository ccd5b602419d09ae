"""The gated `remember(topic, content)` and its access log (CONTRACT §14): every refusal
reason, the log of each, never a refused call's content, a replaced learning with both
versions readable, and members of another group kept out."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import Driver
from typer.testing import CliRunner

import committer.knowledge
from api.cli.main import app as cli
from graph.read.reader import Reader
from tests.api.conftest import Api, make_api
from tests.api.test_groups import group_of

SECRET = "the-content-of-a-refused-call"
ALL = ("read", "write", "curate", "admin")


def learn(api: Api, group: str | None, **body: Any) -> Any:
    payload = {"topic": "Refund edge cases", "content": SECRET, "surface": "web", **body}
    if group is not None:
        payload["group"] = group
    return api.post("/v1/knowledge/remember", payload)


def log(api: Api, **params: str) -> list[dict[str, Any]]:
    r = api.get("/v1/access-log", params=params)
    assert r.status_code == 200, r.text
    return r.json()["items"]  # type: ignore[no-any-return]


def nothing_holds(driver: Driver, text: str) -> bool:
    """No node anywhere holds `text` in any property (the content was never stored)."""
    rows = Reader(driver).run_query(
        "MATCH (n) WHERE any(k IN keys(n) WHERE n[k] IS :: STRING AND n[k] CONTAINS $t) "
        "RETURN count(n) AS c",
        t=text,
    )
    return rows[0]["c"] == 0


@pytest.fixture
def team(api: Api, other: Api) -> str:
    """A group created by `api` (whose token holds `curate`), with `other` as member."""
    return group_of(api, other)


def test_an_allowed_call_writes_learned_slug_and_a_later_one_replaces_it(
    api: Api, team: str, other: Api, neo4j_driver: Driver
) -> None:
    """`learned/<slug>` is written as the group's; the same topic again replaces it in full
    as version 2; both versions read with `known_at`; members read it; both calls are
    logged `allowed` with the token id and the version."""
    first = learn(api, team, content="Refund within 30 days.")
    assert first.status_code == 200, first.text
    doc, access = first.json()["document"], first.json()["access"]
    assert (doc["name"], doc["group"], doc["version"]) == ("learned/refund-edge-cases", team, 1)
    assert (access["outcome"], access["reason"], access["document"]) == (
        "allowed",
        "ok",
        "learned/refund-edge-cases",
    )
    assert access["token_id"].startswith("tok_") and access["surface"] == "web"
    second = learn(api, None, topic="refund  EDGE cases!", content="Prorate instead.").json()
    assert second["document"]["version"] == 2 and second["document"]["body"] == "Prorate instead."
    url = "/v1/knowledge/learned/refund-edge-cases"
    assert other.get(url, params={"group": team}).json()["body"] == "Prorate instead."
    then = other.get(url, params={"group": team, "known_at": doc["recorded_at"]})
    assert then.json()["body"] == "Refund within 30 days."
    versions = other.get(url + "/versions", params={"group": team}).json()["items"]
    assert [(v["version"], v["source"]) for v in versions] == [(1, "remember"), (2, "remember")]
    entries = log(api, group=team)
    assert [(e["outcome"], e["version"]) for e in entries] == [("allowed", 2), ("allowed", 1)]
    assert not nothing_holds(neo4j_driver, "Prorate instead.")  # the probe finds content


def test_a_member_of_another_group_cannot_read_or_write_the_learning(
    api: Api, team: str, client: Any, neo4j_driver: Driver
) -> None:
    """A curator of another group reads the learning nowhere (404 as for an unknown name,
    absent from listings and from its prefetch) and cannot replace it: its `remember` on
    the group is refused `not_member` and logged, and the learning reads as before."""
    assert learn(api, team, content="Refund within 30 days.").status_code == 200
    stranger = make_api(client, neo4j_driver, api.owner + "-s", ALL)
    elsewhere = group_of(stranger)
    url = "/v1/knowledge/learned/refund-edge-cases"
    unknown = stranger.get("/v1/knowledge/learned/no-such", params={"group": team})
    for probe in (
        stranger.get(url, params={"group": team}),
        stranger.get(url),
        stranger.get(url + "/versions", params={"group": team}),
    ):
        assert probe.status_code == unknown.status_code == 404
        assert probe.json()["title"] == unknown.json()["title"]
    assert stranger.get("/v1/knowledge", params={"group": team}).json()["items"] == []
    assert stranger.get("/v1/knowledge").json()["items"] == []
    block = stranger.post("/v1/prefetch", {"chat_id": "c1", "message": "refund edge cases?"})
    assert "learned/refund-edge-cases" not in block.json()["block"]
    hijack = learn(stranger, team, content="Never refund.")
    assert hijack.status_code == 404
    [entry] = log(stranger)
    assert (entry["outcome"], entry["reason"], entry["group"]) == ("refused", "not_member", team)
    assert nothing_holds(neo4j_driver, "Never refund.")
    assert learn(stranger, elsewhere, content="Their own.").json()["document"]["version"] == 1
    assert api.get(url, params={"group": team}).json()["body"] == "Refund within 30 days."
    [v1] = api.get(url + "/versions", params={"group": team}).json()["items"]
    assert v1["version"] == 1


@pytest.mark.parametrize(
    ("reason", "status"),
    [
        ("scope", 403),
        ("surface", 403),
        ("no_surface", 403),
        ("invalid", 422),
        ("not_member", 404),
        ("no_curator", 403),
        ("limit", 409),
    ],
)
def test_each_refusal_is_answered_and_logged_without_content(
    reason: str,
    status: int,
    api: Api,
    team: str,
    client: Any,
    neo4j_driver: Driver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every refusal reason answers its status and leaves one `refused` entry naming the
    reason, the owner, token, surface, group and topic, and nowhere the content."""
    caller, group, body = api, team, {"content": SECRET + reason}
    logged = reason
    if reason == "scope":
        caller = make_api(client, neo4j_driver, api.owner, ("read", "write"))
    elif reason == "surface":
        body["surface"] = "Slack"
    elif reason == "no_surface":
        body["surface"] = None
        logged = "surface"
    elif reason == "invalid":
        body["topic"] = "!!!"
    elif reason == "not_member":
        outsider = make_api(client, neo4j_driver, api.owner + "-x", ALL)
        group = group_of(outsider)
    elif reason == "no_curator":
        writer = make_api(client, neo4j_driver, api.owner + "-w", ("read", "write", "admin"))
        group, caller = group_of(writer), writer
    elif reason == "limit":
        monkeypatch.setattr(committer.knowledge, "MAX_DOCS", 1)
        learn(api, team, topic="first")
    r = learn(caller, group, **body)
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    admin = make_api(client, neo4j_driver, caller.owner, ALL)
    [entry] = [e for e in log(admin) if e["outcome"] == "refused"]
    assert entry["reason"] == logged and entry["owner"] == caller.owner
    assert entry["token_id"].startswith("tok_") and entry["document"] is None
    assert entry["group"] == (None if reason == "invalid" and group is None else group)
    assert entry["surface"] == body.get("surface", "web")
    assert nothing_holds(neo4j_driver, SECRET + reason)


def test_the_log_is_the_admins_own_and_its_groups(api: Api, other: Api, team: str) -> None:
    """The group's creator reads every attempt on the group; a member reads only its own;
    `outcome` filters; pages are newest first with `next`; without `admin`: 403."""
    learn(api, team, topic="a")
    learn(other, team, topic="b")  # other's token holds curate too: allowed
    learn(other, team, topic="c", surface="telegram")
    creator = log(api, group=team)
    assert [e["topic"] for e in creator] == ["c", "b", "a"]
    assert [e["topic"] for e in log(other)] == ["c", "b"]
    assert [e["topic"] for e in log(api, outcome="refused")] == ["c"]
    page = api.get("/v1/access-log", params={"limit": 2}).json()
    assert len(page["items"]) == 2 and page["next"]
    rest = api.get("/v1/access-log", params={"limit": 2, "cursor": page["next"]}).json()
    assert [e["topic"] for e in rest["items"]] == ["a"] and rest["next"] is None


def test_worldstate_audit_prints_the_groups_log(
    api: Api, team: str, neo4j_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`worldstate audit --group G` prints one line per attempt, newest first, with the
    outcome and reason and never content."""
    learn(api, team, topic="kept")
    learn(api, team, topic="dropped", surface="whatsapp")
    monkeypatch.setenv("NEO4J_URI", neo4j_uri)
    out = CliRunner().invoke(cli, ["audit", "--group", team])
    assert out.exit_code == 0, out.output
    lines = [line.split("\t") for line in out.output.strip().splitlines()]
    assert [(x[1], x[2], x[6]) for x in lines] == [
        ("refused", "surface", "dropped"),
        ("allowed", "ok", "kept"),
    ]
    assert SECRET not in out.output
    refused = CliRunner().invoke(cli, ["audit", "--group", team, "--outcome", "refused"])
    assert len(refused.output.strip().splitlines()) == 1
