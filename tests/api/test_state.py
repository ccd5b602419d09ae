"""Workflow state over REST (CONTRACT §14): scoped JSON values, compare-and-set with
If-Match (412), idempotency keys, every value's history by `known_at`, shared state of a
group, erasure."""

from __future__ import annotations

from typing import Any

from neo4j import Driver

from tests.api.conftest import Api, make_api
from tests.api.test_erasure import inventory
from tests.api.test_groups import group_of

URL = "/v1/state/nightly-import/cursor"


def put(api: Api, url: str, value: Any, **headers: str) -> Any:
    return api.client.put(url, json={"value": value}, headers={**api.headers, **headers})


def test_set_read_and_compare_and_set(api: Api) -> None:
    """PUT creates (201, ETag "1"), then updates (200) a JSON value; If-Match with the
    current version applies, with an old one is a 412 naming the current version and
    writes nothing; If-None-Match: * creates only."""
    created = put(api, URL, {"page": 1, "done": ["a"]})
    assert created.status_code == 201 and created.headers["etag"] == '"1"'
    body = created.json()
    assert (body["value"], body["version"], body["group"]) == ({"page": 1, "done": ["a"]}, 1, None)
    assert put(api, URL, {"page": 2}, **{"If-Match": '"1"'}).status_code == 200
    stale = put(api, URL, {"page": 99}, **{"If-Match": '"1"'})
    assert stale.status_code == 412 and stale.json()["current"] == 2
    assert stale.headers["content-type"].startswith("application/problem+json")
    read = api.get(URL)
    assert read.json()["value"] == {"page": 2} and read.headers["etag"] == '"2"'
    assert put(api, URL, 0, **{"If-None-Match": "*"}).status_code == 412
    assert put(api, "/v1/state/nightly-import/new", 0, **{"If-None-Match": "*"}).status_code == 201
    bad = put(api, URL, 1, **{"If-Match": "yesterday"})
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "If-Match"


def test_a_retried_put_with_the_same_idempotency_key_applies_once(api: Api) -> None:
    """The same PUT sent twice with one Idempotency-Key records one version: the retry
    answers the first write's version (Idempotent-Replayed) even after later writes; the
    key reused for another value is a 409."""
    first = put(api, URL, {"n": 1}, **{"Idempotency-Key": "run-42"})
    again = put(api, URL, {"n": 1}, **{"Idempotency-Key": "run-42"})
    assert first.status_code == 201 and again.status_code == 200
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json()["version"] == first.json()["version"] == 1
    assert api.get(URL).json()["version"] == 1
    put(api, URL, {"n": 2})
    late = put(api, URL, {"n": 1}, **{"Idempotency-Key": "run-42", "If-Match": '"1"'})
    assert late.status_code == 200 and late.json()["version"] == 1
    now = api.get(URL).json()
    assert (now["version"], now["value"]) == (2, {"n": 2})
    reused = put(api, URL, {"n": 3}, **{"Idempotency-Key": "run-42"})
    assert reused.status_code == 409


def test_every_value_is_kept_in_transaction_time(api: Api) -> None:
    """`known_at` reads each earlier value; DELETE answers 404 from then on while the
    history stays; the version numbers go on after a delete."""
    v1 = put(api, URL, "one").json()
    put(api, URL, "two")
    gone = api.delete(URL)
    assert gone.status_code == 200 and gone.json()["version"] == 3
    assert api.get(URL).status_code == 404
    assert api.get(URL, params={"known_at": v1["recorded_at"]}).json()["value"] == "one"
    assert api.delete(URL).status_code == 404
    again = put(api, URL, "three")
    assert again.status_code == 201 and again.json()["version"] == 4
    assert put(api, URL, "x", **{"If-Match": '"2"'}).status_code == 412


def test_another_owners_workflow_of_the_same_name_starts_empty(api: Api, other: Api) -> None:
    """Keys are scoped to (owner, workflow): another owner reads 404 for the same names and
    its own writes start at version 1."""
    put(api, URL, "mine")
    assert other.get(URL).status_code == 404
    theirs = put(other, URL, "theirs")
    assert theirs.status_code == 201 and theirs.json()["version"] == 1
    assert api.get(URL).json()["value"] == "mine"


def test_shared_state_is_the_groups_members_only(
    api: Api, other: Api, client: Any, neo4j_driver: Driver
) -> None:
    """A group's value is read and written by every member (compare-and-set across them);
    an outsider (a member of another group) gets 404 as for an unknown group, and its own
    group's value of the same names is its own."""
    group = group_of(api, other)
    shared = f"/v1/shared-state/{group}/digest/last-sent"
    assert put(api, shared, "2024-05-01").status_code == 201
    assert put(other, shared, "2024-05-02", **{"If-Match": '"1"'}).status_code == 200
    assert put(api, shared, "stale", **{"If-Match": '"1"'}).status_code == 412
    assert api.get(shared).json() | {"recorded_at": None} == other.get(shared).json() | {
        "recorded_at": None
    }
    assert api.get(shared).json()["author"] == other.owner
    outsider = make_api(client, neo4j_driver, api.owner + "-out", ("read", "write"))
    elsewhere = group_of(outsider)
    unknown = outsider.get(f"/v1/shared-state/{group}x/digest/last-sent")
    for probe in (
        outsider.get(shared),
        put(outsider, shared, "hijack"),
        put(outsider, shared, "hijack", **{"If-Match": '"2"'}),
        outsider.delete(shared),
    ):
        assert probe.status_code == unknown.status_code == 404
        assert probe.json()["title"] == unknown.json()["title"]
    own = put(outsider, f"/v1/shared-state/{elsewhere}/digest/last-sent", "mine")
    assert own.status_code == 201 and own.json()["version"] == 1
    assert other.get(shared).json()["value"] == "2024-05-02"


def test_bounds(api: Api) -> None:
    """A value over 64 KB as compact JSON is a 422 naming `value`; a key over 200
    characters a 422; nothing written."""
    big = put(api, URL, "x" * (64 * 1024))
    assert big.status_code == 422 and big.json()["errors"][0]["field"] == "value"
    assert put(api, "/v1/state/wf/" + "k" * 201, 1).status_code == 422
    assert put(api, URL, "x" * 60_000).status_code == 201
    assert api.get("/v1/state/wf/" + "k" * 200).status_code == 404


def test_erasure_removes_state(api: Api, neo4j_driver: Driver) -> None:
    """Erasing the owner removes its values with their whole history."""
    put(api, URL, 1)
    put(api, URL, 2)
    assert inventory(neo4j_driver, api.owner)["node:StateVersion"] == 2
    r = api.delete("/v1/owners/me", params={"confirm": api.owner})
    assert r.status_code == 200 and r.json()["remaining"] == 0
    assert "node:StateVersion" not in inventory(neo4j_driver, api.owner)
