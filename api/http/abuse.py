"""Abuse limits of one API process (README "Bounds"): requests per token, bad tokens per client.

Sliding-window counters from the `limits` library, kept in this process's memory (each
process of a scaled-out deployment counts its own requests). Both answer 429 with
`Retry-After` (RFC 9110 §10.2.3, whole seconds; `graph.errors.TooBusy` in the one error
table, api/http/errors.py) when a budget is spent:

* `WORLDSTATE_RATE_LIMIT_PER_MINUTE` requests per token and minute, every route;
* `WORLDSTATE_BAD_TOKENS_PER_MINUTE` unknown or revoked tokens per client address and
  minute; past it, the client's requests with a token this process has not verified are
  refused before the token is even looked up, so guessing slows to that rate. A token
  verified earlier (in the token cache) still works from that address.

The per-owner bound on queued runs is the committer's (`committer.apply.Committer.
submit_run`), since it counts what is in the store.
"""

from __future__ import annotations

import time

from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import SlidingWindowCounterRateLimiter

from graph.errors import TooBusy


class AbuseLimits:
    """Per-token request rate and per-client bad-token rate.

    Args:
        per_token_per_minute: requests one token may make per minute (0: no limit).
        bad_tokens_per_minute: bad tokens one client may present per minute (0: no limit).
    """

    def __init__(self, per_token_per_minute: int, bad_tokens_per_minute: int):
        self._limiter = SlidingWindowCounterRateLimiter(MemoryStorage())
        self._per_token = RateLimitItemPerMinute(per_token_per_minute, namespace="token")
        self._bad = RateLimitItemPerMinute(max(bad_tokens_per_minute, 1), namespace="bad")
        self._token_on = per_token_per_minute > 0
        self._bad_on = bad_tokens_per_minute > 0

    def admit(self, token_id: str) -> None:
        """Count one request of a verified token.

        Raises:
            TooBusy: the token spent its requests of the last minute.
        """
        if self._token_on and not self._limiter.hit(self._per_token, token_id):
            raise TooBusy(
                f"This token made more than {self._per_token.amount} requests in a minute "
                "(WORLDSTATE_RATE_LIMIT_PER_MINUTE); retry after the Retry-After seconds.",
                self._wait(self._per_token, token_id),
            )

    def check_client(self, client: str) -> None:
        """Refuse a client that presented too many bad tokens lately (call before a lookup).

        Raises:
            TooBusy: the client is over its bad-token budget.
        """
        if self._bad_on and not self._limiter.test(self._bad, client):
            raise TooBusy(
                "Too many unknown or revoked tokens from this address; retry after the "
                "Retry-After seconds with a valid token.",
                self._wait(self._bad, client),
            )

    def bad_token(self, client: str) -> None:
        """Count one unknown or revoked token presented by `client`."""
        if self._bad_on:
            self._limiter.hit(self._bad, client)

    def _wait(self, item: RateLimitItemPerMinute, key: str) -> float:
        reset_at, _ = self._limiter.get_window_stats(item, key)
        return reset_at - time.time()
