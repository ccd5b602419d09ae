"""Limits on notes (issue 15): hourly reading ceilings per token with an injected clock,
the notes one owner may hold, the warning before it. Each over-limit answer is a 4xx
problem naming the limit."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from api.notes.limits import NoteLimits
from committer.notes import Ceilings
from tests.api.conftest import Api, make_api

ROOT = Path(__file__).resolve().parents[2]
"""The checkout, the child process's working directory (its packages come first)."""


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, at: datetime):
        self.at = at

    def __call__(self) -> datetime:
        return self.at


@pytest.fixture
def clock(app: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    """The app's note limits with small ceilings (3 notes, 2,000 characters, 1 playbook per
    hour), 5 notes per owner with a warning from 3, and a clock the test moves."""
    c = Clock(datetime(2031, 3, 4, 10, 15, tzinfo=UTC))
    limits = replace(
        NoteLimits(), ceilings=Ceilings(3, 2_000, 1), max_per_owner=5, warn_from=3, clock=c
    )
    saved = app.state.note_limits  # starlette's State does not survive monkeypatch's undo
    app.state.note_limits = limits
    monkeypatch.setattr(app.state.committer, "note_limit", 5)
    try:
        yield c
    finally:
        app.state.note_limits = saved


def write(api: Api, title: str, kind: str = "learning", body: str = "") -> dict[str, Any]:
    r = api.post("/v1/notes", {"kind": kind, "title": title, "body": body})
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def test_notes_read_per_hour_per_token(
    api: Api, clock: Clock, client: Any, neo4j_driver: Driver
) -> None:
    """Three reads pass; the fourth is a 429 naming `notes_read_per_hour` with Retry-After
    until the hour ends; another token of the same owner has its own ceiling; the next
    hour reads again."""
    nid = write(api, "Cache the tokens for five seconds")["note"]["id"]
    for _ in range(3):
        assert api.get(f"/v1/notes/{nid}").status_code == 200
    refused = api.get(f"/v1/notes/{nid}")
    assert refused.status_code == 429, refused.text
    problem = refused.json()
    assert (
        problem["limit"] == "notes_read_per_hour" and problem["max"] == 3 and problem["used"] == 3
    )
    assert "WORLDSTATE_NOTES_READ_NOTES_PER_HOUR" in problem["detail"]
    assert refused.headers["retry-after"] == str(45 * 60) == str(problem["retry_after"])
    assert refused.headers["content-type"].startswith("application/problem+json")
    second = make_api(client, neo4j_driver, api.owner, ("read",))
    assert second.get(f"/v1/notes/{nid}").status_code == 200
    assert api.get("/v1/notes").status_code == 200  # lists serve no bodies: not counted
    assert api.get("/v1/notes/search", params={"q": "tokens"}).status_code == 200
    clock.at += timedelta(minutes=45)
    assert api.get(f"/v1/notes/{nid}").status_code == 200


def test_characters_and_playbooks_per_hour(api: Api, clock: Clock) -> None:
    """A long body counts its characters (1,200 + 1,200 > 2,000), a second playbook passes
    the playbook ceiling: each a 429 naming its own limit, nothing counted when refused."""
    long = write(api, "Onboarding checklist", kind="playbook", body="x " * 600)["note"]["id"]
    other = write(api, "Release checklist", kind="playbook", body="y")["note"]["id"]
    short = write(api, "Tea in the kitchen", body="y " * 600)["note"]["id"]
    assert api.get(f"/v1/notes/{long}").status_code == 200
    playbooks = api.get(f"/v1/notes/{other}")
    assert playbooks.status_code == 429 and playbooks.json()["limit"] == "playbooks_read_per_hour"
    chars = api.get(f"/v1/notes/{short}")
    assert chars.status_code == 429 and chars.json()["limit"] == "note_chars_read_per_hour"
    assert chars.json()["used"] == len("Onboarding checklist") + 1199


def test_notes_per_owner_with_a_warning_before(api: Api, clock: Clock) -> None:
    """From 3 notes responses carry a warning; the 6th new note is a 409 naming
    `notes_per_owner`; a new version of a kept note still passes; retiring makes room."""
    assert write(api, "One")["warning"] is None
    write(api, "Two")
    third = write(api, "Three")
    assert "you keep 3 notes" in third["warning"]
    write(api, "Four")
    fifth = write(api, "Five")
    assert "WORLDSTATE_NOTES_MAX_PER_OWNER" in fifth["warning"]
    refused = api.post("/v1/notes", {"kind": "learning", "title": "Six"})
    assert refused.status_code == 409, refused.text
    assert refused.json()["limit"] == "notes_per_owner" and refused.json()["max"] == 5
    assert api.get("/v1/notes/overview").json()["warning"] is not None
    assert api.get("/v1/notes").json()["warning"] is not None
    api.post(f"/v1/notes/{fifth['note']['id']}/retire")
    assert api.post("/v1/notes", {"kind": "learning", "title": "Six"}).status_code == 201


CHARGE = """
import sys
from datetime import datetime
from committer.apply import Committer
from committer.notes import Ceilings
from graph.driver import connect
uri, owner, token_id, hour = sys.argv[1:5]
with connect(uri, None, None) as driver:
    Committer(driver).charge_reads(
        owner, token_id, datetime.fromisoformat(hour), notes=3, chars=10, playbooks=0,
        ceilings=Ceilings(3, 2_000, 1), retry_after=1,
    )
"""


def test_ceilings_count_across_processes(
    api: Api, clock: Clock, app: Any, neo4j_server: Any
) -> None:
    """The ledger is in the store: reads charged by another process (another API worker,
    the MCP server) count against the same token's ceiling here."""
    if neo4j_server.auth is not None:
        pytest.skip("the child process connects without credentials")
    nid = write(api, "Prefer small pull requests")["note"]["id"]
    [token] = [t for t in app.state.reader.tokens(api.owner) if t.revoked_at is None]
    hour = clock.at.replace(minute=0).isoformat()
    args = [sys.executable, "-c", CHARGE, neo4j_server.uri, api.owner, token.id, hour]
    subprocess.run(args, check=True, cwd=ROOT, timeout=120)
    refused = api.get(f"/v1/notes/{nid}")
    assert refused.status_code == 429 and refused.json()["used"] == 3
