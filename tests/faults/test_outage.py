"""A store outage, for real (CONTRACT §6, §15; issue 13 "Deadlines that hold").

`worldstate serve` runs over a Neo4j of the fault tests' own (`NEO4J_URI` set), which is
killed with SIGKILL: prefetch answers degraded within its deadline plus 50 ms by the wall
clock, fifty at once included; every other route answers 503 problem+json within 2 s;
`/healthz` and `/readyz` within 1 s. Started again on its port, the store is found by
the driver by itself. The figures are printed (run with `-s` to see them).
"""

from __future__ import annotations

import statistics
import threading
import time
import uuid
from typing import Any

import httpx
import pytest

from tests.faults.harness import OwnNeo4j, Serve, token, wait_for

pytestmark = pytest.mark.slow
DEADLINE_S = 0.150
"""`WORLDSTATE_PREFETCH_DEADLINE_MS`'s default, which `faulty_serve` keeps."""
TURN = {"chat_id": "c", "message": "How is Ana doing with the K8s migration?"}


def timed(client: httpx.Client, method: str, url: str, **kw: Any) -> tuple[httpx.Response, float]:
    began = time.monotonic()
    r = client.request(method, url, **kw)
    return r, time.monotonic() - began


def served_in(r: httpx.Response) -> float:
    """The service's own time for a response, from its `Server-Timing: app;dur=` header (s)."""
    return float(r.headers["server-timing"].split("dur=")[1]) / 1000


def figure(name: str, seconds: list[float]) -> str:
    return (
        f"{name}: n={len(seconds)} p50={statistics.median(seconds) * 1000:.0f} ms "
        f"max={max(seconds) * 1000:.0f} ms"
    )


def test_outage_answers_within_its_bounds_and_recovers(  # noqa: PLR0915 - one scenario
    faulty_serve: Serve, restarted: OwnNeo4j
) -> None:
    """Neo4j SIGKILLed under a running API: 100 prefetches one after another and 50 at
    once all answer 200 degraded within 150 ms + 50 ms; reads and writes answer 503
    problem+json within 2 s; /healthz and /readyz 503 within 1 s. Neo4j started again on
    its port: the same requests succeed again without restarting the API."""
    owner = f"owner-{uuid.uuid4().hex}"
    secret = token(restarted.uri, owner)
    # A restarted Neo4j plans every query anew: the first commits after it can take
    # seconds each on a busy machine, hence the client's generous timeout.
    with faulty_serve.client(secret, timeout=120) as client:
        ana = client.post("/v1/entities", json={"name": "Ana", "kind": "person"}).json()
        assert (
            client.post(
                f"/v1/entities/{ana['id']}/facts", json={"attribute": "likes", "value": "tea"}
            ).status_code
            == 201
        )
        wait_for(
            lambda: client.post("/v1/prefetch", json=TURN).json()["degraded"] is False,
            30,
            "a served prefetch",
        )
        restarted.kill()

        sequential = []
        for _ in range(100):
            r, took = timed(client, "POST", "/v1/prefetch", json=TURN)
            assert r.status_code == 200 and r.json() == {"block": "", "items": [], "degraded": True}
            sequential.append(took)

        together: list[float] = []
        served: list[float] = []
        answers: list[dict[str, Any]] = []
        lock = threading.Lock()
        go = threading.Barrier(50)

        def one() -> None:
            with httpx.Client(base_url=faulty_serve.url, headers=client.headers, timeout=30) as c:
                c.get("/healthz")  # the connection is open before the clock starts
                go.wait()
                r, took = timed(c, "POST", "/v1/prefetch", json=TURN)
            with lock:
                together.append(took)
                served.append(served_in(r))
                answers.append(r.json())

        threads = [threading.Thread(target=one) for _ in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)

        unavailable: dict[str, list[float]] = {
            "GET entities": [],
            "POST entities": [],
            "POST facts": [],
        }
        for _ in range(5):
            for name, method, url, body in (
                ("GET entities", "GET", "/v1/entities", None),
                ("POST entities", "POST", "/v1/entities", {"name": "Bo", "kind": "person"}),
                (
                    "POST facts",
                    "POST",
                    f"/v1/entities/{ana['id']}/facts",
                    {"attribute": "likes", "value": "x"},
                ),
            ):
                r, took = timed(client, method, url, json=body)
                assert r.status_code == 503, (name, r.status_code, r.text)
                assert r.headers["content-type"].startswith("application/problem+json")
                unavailable[name].append(took)
        health = [timed(client, "GET", url) for url in ("/healthz", "/readyz") for _ in range(5)]

        restarted.start()
        reconnected = time.monotonic()
        wait_for(
            lambda: client.get("/v1/entities").status_code == 200, 60, "reads after the restart"
        )
        reconnect_s = time.monotonic() - reconnected
        assert (
            client.post(
                f"/v1/entities/{ana['id']}/facts", json={"attribute": "likes", "value": "coffee"}
            ).status_code
            == 201
        )
        wait_for(
            lambda: client.post("/v1/prefetch", json=TURN).json()["degraded"] is False,
            60,
            "a served prefetch",
        )

    print("\n" + figure("prefetch, store killed, one at a time", sequential))
    print(figure("prefetch, store killed, 50 at once (client's clock)", together))
    print(figure("prefetch, store killed, 50 at once (service's clock)", served))
    for name, seconds in unavailable.items():
        print(figure(f"{name} -> 503", seconds))
    print(figure("/healthz and /readyz -> 503", [took for _, took in health]))
    print(f"reads again {reconnect_s:.1f} s after Neo4j answered (driver reconnected by itself)")
    assert len(answers) == 50 and all(a["degraded"] for a in answers)
    assert max(sequential) <= DEADLINE_S + 0.050, figure("sequential", sequential)
    # Fifty client threads in this process share its interpreter: the client's clock
    # includes their own queueing; the service's clock (Server-Timing) is the promise.
    assert max(served) <= DEADLINE_S + 0.050, figure("together", served)
    assert all(max(s) < 2.0 for s in unavailable.values()), unavailable
    assert all(r.status_code == 503 and took < 1.0 for r, took in health)
