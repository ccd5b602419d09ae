"""The `Worldstate-Bookmark` header (api/http/bookmarks.py): a write's response carries its
bookmark; a request sending it back waits until the serving member has applied it."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from api.http.app import create_app
from api.http.bookmarks import HEADER, MAX_BOOKMARKS, parse
from api.http.settings import Settings
from committer.apply import Committer
from graph.time import utcnow
from tests.api.conftest import Api
from tests.graph.test_routing import next_bookmark, tx_of, wait_alive


def test_a_write_answers_its_bookmark_and_a_read_answers_none(api: Api) -> None:
    """POST answers `Worldstate-Bookmark`; a GET sending it back is served (200) and adds
    no bookmark of its own."""
    made = api.post("/v1/entities", {"name": "Ana", "kind": "person"})
    assert made.status_code == 201
    sent = made.headers[HEADER]
    assert parse(sent)
    read = api.client.get(
        f"/v1/entities/{made.json()['id']}", headers={**api.headers, HEADER: sent}
    )
    assert read.status_code == 200 and read.json()["entity"]["name"] == "Ana"
    assert HEADER not in read.headers


@pytest.mark.parametrize("value", ["not a bookmark!", ",".join(["FB:a"] * (MAX_BOOKMARKS + 1))])
def test_a_malformed_header_is_a_422_naming_it(api: Api, value: str) -> None:
    """A value that is not a list of bookmarks never reaches the store."""
    r = api.client.get("/v1/me", headers={**api.headers, HEADER: value})
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["errors"] == [{"field": HEADER, "message": "not a list of bookmarks"}]


def test_a_bookmark_the_store_cannot_parse_is_a_422_naming_the_header(api: Api) -> None:
    """Well-formed characters, but not a bookmark Neo4j issued: Neo4j refuses it, and the
    answer is the same 422, naming the header (the bookmark reached the store)."""
    r = api.client.get("/v1/entities", headers={**api.headers, HEADER: "FB:zzzz"})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == HEADER


def test_parse_reads_comma_separated_bookmarks() -> None:
    assert parse(None) == () and parse(" ") == ()
    assert parse("FB:a, FB:b") == ("FB:a", "FB:b")
    assert parse("FB:a;b") is None


@pytest.mark.slow
def test_a_request_sending_a_bookmark_back_waits_for_that_write(
    own_routed: Driver, owner: str
) -> None:
    """Over HTTP through `neo4j://`: a GET sent with the bookmark of a write not applied
    yet is answered only after that write commits, and shows it (it asks about a moment a
    minute ahead: sent before the write, "now" would be before it on the time axis)."""
    app = create_app(Settings(curator_in_process=False), own_routed)
    with TestClient(app) as client:
        secret, _ = Committer(own_routed).create_token(owner, ("read", "write"))
        auth = {"Authorization": f"Bearer {secret}"}
        for name in ("Warm", "Ana"):  # the first round creates Neo4j's new tokens (test_routing)
            made = client.post("/v1/entities", json={"name": name, "kind": "person"}, headers=auth)
            assert made.status_code == 201
            if name == "Warm":
                fact = {"attribute": "city", "value": "X"}
                client.post(f"/v1/entities/{made.json()['id']}/facts", json=fact, headers=auth)
        ana, [last] = made.json()["id"], made.headers[HEADER].split(",")
        ahead = next_bookmark(last)
        answers: list[Any] = []
        began = time.monotonic()

        def get() -> None:
            later = (utcnow() + timedelta(minutes=1)).isoformat()
            url = f"/v1/entities/{ana}/facts"
            answers.append(
                client.get(
                    url,
                    params={"known_at": later, "valid_at": later},
                    headers={**auth, HEADER: ahead},
                )
            )

        reading = threading.Thread(target=get)
        reading.start()
        assert wait_alive(reading, 1.5), "the GET did not wait for the bookmark"
        posted = client.post(
            f"/v1/entities/{ana}/facts", json={"attribute": "city", "value": "Porto"}, headers=auth
        )
        assert posted.status_code == 201
        assert [tx_of(b) for b in posted.headers[HEADER].split(",")] == [tx_of(ahead)]
        assert not wait_alive(reading, 20)
        [answer] = answers
        assert answer.status_code == 200 and time.monotonic() - began >= 1.5
        assert [f["value"] for f in answer.json()["items"]] == ["Porto"]
