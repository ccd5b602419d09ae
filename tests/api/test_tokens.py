"""Tokens (CONTRACT §7): listed without their secrets, revoked for good, and a revoked
token stops working in a running server within its cache's bound."""

from __future__ import annotations

import time
from typing import Any

import pytest
from neo4j import Driver
from typer.testing import CliRunner

from api.cli.main import app as cli
from api.http.deps import TOKEN_CACHE_SECONDS, TokenCache
from committer.apply import Committer
from graph.names import token_hash
from graph.read.reader import Reader
from tests.api.conftest import Api


def _env(neo4j_server: Any) -> dict[str, str]:
    env = {"NEO4J_URI": neo4j_server.uri}
    if neo4j_server.auth:
        env |= {"NEO4J_USER": neo4j_server.auth[0], "NEO4J_PASSWORD": neo4j_server.auth[1]}
    return env


def test_list_shows_tokens_never_secrets_and_revoke_is_final(neo4j_server: Any, owner: str) -> None:
    """`token list` prints id, scopes, created_at and live/revoked, never the secret;
    `token revoke` revokes once (a second revoke says so), an unknown id exits 1."""
    runner, env = CliRunner(), _env(neo4j_server)
    made = runner.invoke(
        cli, ["token", "create", "--owner", owner, "--scopes", "read,curate"], env=env
    )
    assert made.exit_code == 0, made.output
    secret = made.output.strip().splitlines()[-1]
    token_id = made.output.split()[1]
    runner.invoke(cli, ["token", "create", "--owner", owner + "-x"], env=env)

    listed = runner.invoke(cli, ["token", "list", "--owner", owner], env=env)
    assert listed.exit_code == 0, listed.output
    [line] = listed.output.strip().splitlines()
    tid, scopes, created, state = line.split()
    assert (tid, scopes, state) == (token_id, "read,curate", "live")
    assert created.endswith("Z")
    assert secret not in listed.output and token_hash(secret) not in listed.output

    revoked = runner.invoke(cli, ["token", "revoke", token_id], env=env)
    assert revoked.exit_code == 0 and f"revoked {token_id}" in revoked.output
    again = runner.invoke(cli, ["token", "revoke", token_id], env=env)
    assert again.exit_code == 0 and "already revoked" in again.output
    line = runner.invoke(cli, ["token", "list", "--owner", owner], env=env).output.strip()
    assert line.split()[3] == "revoked" and line.split()[4].endswith("Z")
    unknown = runner.invoke(cli, ["token", "revoke", "tok_nope"], env=env)
    assert unknown.exit_code == 1 and "no token" in unknown.output
    empty = runner.invoke(cli, ["token", "list", "--owner", owner + "-none"], env=env)
    assert empty.exit_code == 0 and "no tokens" in empty.output


def test_revocation_takes_effect_within_the_cache_bound(
    api: Api, app: Any, neo4j_driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token revoked from another process still works while the server's cache entry
    is fresh, and answers 401 once the entry is older than TOKEN_CACHE_SECONDS (5 s)."""
    now = [1000.0]
    # setitem on State's dict: monkeypatch.setattr looks the old value up in the instance's
    # __dict__, misses it (State keeps attributes in `_state`) and so deletes the cache on
    # undo, breaking every later test of the session's app.
    monkeypatch.setitem(
        app.state._state, "token_cache", TokenCache(app.state.reader, clock=lambda: now[0])
    )
    assert api.get("/v1/me").status_code == 200  # now cached
    [token] = Reader(neo4j_driver).tokens(api.owner)
    Committer(neo4j_driver).revoke_token(token.id)
    now[0] += TOKEN_CACHE_SECONDS - 0.1
    assert api.get("/v1/me").status_code == 200
    now[0] += 0.2
    r = api.get("/v1/me")
    assert r.status_code == 401 and "revoked" in r.json()["detail"]
    assert TOKEN_CACHE_SECONDS <= 5


def test_cache_checks_the_store_after_its_ttl(neo4j_driver: Driver, owner: str) -> None:
    """TokenCache: a fresh entry is served from memory; past `ttl` the store decides."""
    secret, record = Committer(neo4j_driver).create_token(owner, ["read"])
    cache = TokenCache(Reader(neo4j_driver), ttl=0.2)
    assert cache.lookup(token_hash(secret)) == record
    Committer(neo4j_driver).revoke_token(record.id)
    assert cache.lookup(token_hash(secret)) == record
    time.sleep(0.25)
    assert cache.lookup(token_hash(secret)) is None
