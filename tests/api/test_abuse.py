"""Abuse limits (issue 13; README "Bounds"): requests per token, bad tokens per client,
runs waiting per owner. Each test builds an app of its own with small limits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.http.app import create_app
from api.http.settings import Settings
from committer.apply import Committer
from tests.api.conftest import Api, make_api


@pytest.fixture
def limited(neo4j_driver: Any) -> Iterator[TestClient]:
    """An app with 5 requests per token and minute, 3 bad tokens per client and minute,
    and 2 runs waiting per owner (no curator: posted runs stay queued)."""
    settings = Settings(
        curator_in_process=False,
        embedder="none",
        prefetch_keepalive_seconds=0,
        rate_limit_per_minute=5,
        bad_tokens_per_minute=3,
        runs_queued_per_owner=2,
    )
    with TestClient(create_app(settings, neo4j_driver)) as client:
        yield client


def assert_429(r: Any) -> None:
    assert r.status_code == 429, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert int(r.headers["retry-after"]) >= 1


def test_a_token_past_its_rate_gets_429_and_others_do_not(
    limited: TestClient, neo4j_driver: Any, owner: str
) -> None:
    """The sixth request of a token within a minute is 429 with Retry-After; another
    token of the same owner is counted on its own."""
    api = make_api(limited, neo4j_driver, owner, ("read",))
    second = make_api(limited, neo4j_driver, owner, ("read",))
    assert [api.get("/v1/me").status_code for _ in range(5)] == [200] * 5
    assert_429(api.get("/v1/me"))
    assert second.get("/v1/me").status_code == 200


def test_repeated_bad_tokens_are_slowed_down(
    limited: TestClient, neo4j_driver: Any, owner: str
) -> None:
    """Three unknown tokens answer 401; from then on this client's unverified tokens are
    refused with 429 before any lookup (guessing slows to the budget), while a token it
    used before keeps working."""
    known = make_api(limited, neo4j_driver, owner, ("read",))
    assert known.get("/v1/me").status_code == 200
    bad = {"Authorization": "Bearer not-a-token"}
    assert [limited.get("/v1/me", headers=bad).status_code for _ in range(3)] == [401] * 3
    assert_429(limited.get("/v1/me", headers=bad))
    fresh = make_api(limited, neo4j_driver, owner + "-2", ("read",))
    assert_429(fresh.get("/v1/me"))
    assert known.get("/v1/me").status_code == 200


def test_runs_waiting_per_owner_are_bounded(
    limited: TestClient, neo4j_driver: Any, owner: str
) -> None:
    """With two runs waiting, a third is 429 with Retry-After and nothing is stored; the
    same run posted again is still accepted (idempotent), and other owners are free."""
    secret, _ = Committer(neo4j_driver).create_token(owner, ["read", "write"])
    api = Api(limited, secret, owner)

    def post(run_id: str) -> Any:
        body = {
            "id": run_id,
            "chat_id": "c",
            "messages": [{"role": "user", "text": "I love tango.", "at": "2024-03-01T09:00:00Z"}],
        }
        return api.post("/v1/runs", body)

    assert post("r1").status_code == 202 and post("r2").status_code == 202
    refused = post("r3")
    assert_429(refused)
    assert "WORLDSTATE_RUNS_QUEUED_PER_OWNER" in json.loads(refused.text)["detail"]
    assert api.get("/v1/runs/r3").status_code == 404
    assert post("r1").status_code == 202
