"""The simulated assistants of bench/load.py (a locustfile; run by load.py, not by hand).

Each locust user is one assistant of one seeded owner, in conversations of
`LOAD_TURNS` turns. Per turn: a prefetch (`POST /v1/prefetch`), a search one turn in
three (`GET /v1/search`); now and then (`LOAD_DECIDE_SHARE` of turns) it lists the
owner's pending proposals and keeps or discards one of its share; at the end of each
conversation it posts the conversation as a run (`POST /v1/runs`) and reads the chat's
history (`GET /v1/chats/{id}/history`). The user lines come from the demo conversation
(docs/demo/conversation.json), so prefetch and search meet the seeded memory.

Environment (set by load.py): `LOAD_SEED` (JSON: `{"owners": [{"owner", "token"}],
"lines": [str]}`), `LOAD_OUT` (where the tallies are written as JSON at the end),
`LOAD_TURNS`, `LOAD_THINK_S`, `LOAD_DECIDE_SHARE`.

Tallies beside locust's own statistics: prefetches answered degraded, runs posted
(id and owner, for the curator lag read afterwards), keeps and discards, and 409s of a
keep or discard (a proposal another assistant of the owner decided first; expected,
counted apart, not an error).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from locust import HttpUser, between, events, task

SEED: dict[str, Any] = json.loads(os.environ.get("LOAD_SEED", '{"owners": [], "lines": []}'))
TURNS = int(os.environ.get("LOAD_TURNS", "6"))
THINK = float(os.environ.get("LOAD_THINK_S", "0.5"))
DECIDE_SHARE = float(os.environ.get("LOAD_DECIDE_SHARE", "0.1"))

TALLY: dict[str, Any] = {
    "prefetch": 0,
    "degraded": 0,
    "runs": [],
    "kept": 0,
    "discarded": 0,
    "decide_conflicts": 0,
}
_slots = itertools.count()


@events.quitting.add_listener
def _write_tally(environment: Any, **_: Any) -> None:
    """Write the tallies for load.py once the run is over."""
    out = os.environ.get("LOAD_OUT")
    if out:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(TALLY, f)


class Assistant(HttpUser):
    """One assistant: its owner's token, a fresh chat per conversation."""

    wait_time = between(THINK / 2, THINK * 1.5)

    def on_start(self) -> None:
        """Take the next owner round-robin, and its slot among that owner's assistants."""
        n = next(_slots)
        owners = SEED["owners"]
        self.owner = owners[n % len(owners)]
        self.slot = n // len(owners)
        self.slots = max(1, -(-int(os.environ.get("LOAD_USERS", "1")) // len(owners)))
        self.headers = {"Authorization": f"Bearer {self.owner['token']}"}
        self.rng = random.Random(n)
        self._new_conversation()

    def _new_conversation(self) -> None:
        self.chat_id = f"load-{uuid.uuid4().hex[:12]}"
        self.turn = 0
        self.said: list[str] = []

    @task
    def one_turn(self) -> None:
        """One turn: prefetch, maybe search, maybe a decision; the last posts the run."""
        line = self.rng.choice(SEED["lines"])
        self.said.append(line)
        with self.client.post(
            "/v1/prefetch",
            json={"chat_id": self.chat_id, "message": line},
            headers=self.headers,
            name="POST /v1/prefetch",
            catch_response=True,
        ) as r:
            if r.status_code == 200:
                TALLY["prefetch"] += 1
                TALLY["degraded"] += bool(r.json().get("degraded"))
                r.success()
            else:
                r.failure(f"{r.status_code} {r.text[:200]}")
        if self.turn % 3 == 0:
            words = [w for w in line.split() if len(w) > 3][:4] or ["memory"]
            self.client.get(
                "/v1/search",
                params={"q": " ".join(words), "chat_id": self.chat_id, "limit": 10},
                headers=self.headers,
                name="GET /v1/search",
            )
        if self.rng.random() < DECIDE_SHARE:
            self._decide()
        self.turn += 1
        if self.turn >= TURNS:
            self._end_conversation()

    def _decide(self) -> None:
        """Keep or discard one pending proposal of this assistant's share of the owner's."""
        r = self.client.get(
            "/v1/proposals",
            params={"status": "pending", "limit": 50},
            headers=self.headers,
            name="GET /v1/proposals",
        )
        if r.status_code != 200:
            return
        mine = [p["id"] for p in r.json()["items"] if hash(p["id"]) % self.slots == self.slot]
        if not mine:
            return
        verb = "keep" if self.rng.random() < 0.5 else "discard"
        with self.client.post(
            f"/v1/proposals/{self.rng.choice(mine)}/{verb}",
            headers=self.headers,
            name=f"POST /v1/proposals/:id/{verb}",
            catch_response=True,
        ) as d:
            if d.status_code == 200:
                TALLY["kept" if verb == "keep" else "discarded"] += 1
                d.success()
            elif d.status_code == 409:
                TALLY["decide_conflicts"] += 1
                d.success()
            else:
                d.failure(f"{d.status_code} {d.text[:200]}")

    def _end_conversation(self) -> None:
        """Post the conversation as a run, then read the chat's history."""
        start = datetime.now(UTC) - timedelta(minutes=len(self.said))
        messages = []
        for i, text in enumerate(self.said):
            at = (start + timedelta(minutes=i)).isoformat()
            messages.append({"id": f"u{i}", "role": "user", "text": text, "at": at})
            messages.append(
                {"id": f"a{i}", "role": "assistant", "text": "Noted, thank you.", "at": at}
            )
        run_id = f"run-{self.chat_id}"
        r = self.client.post(
            "/v1/runs",
            json={"id": run_id, "chat_id": self.chat_id, "messages": messages},
            headers=self.headers,
            name="POST /v1/runs",
        )
        if r.status_code == 202:
            TALLY["runs"].append({"id": run_id, "owner": self.owner["owner"]})
        self.client.get(
            f"/v1/chats/{self.chat_id}/history",
            headers=self.headers,
            name="GET /v1/chats/:id/history",
        )
        self._new_conversation()
