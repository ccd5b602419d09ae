"""The commands that need the store: serve, curator, token create|list|revoke, import locomo
(CONTRACT §11).

Registered on the `worldstate` app in `api/cli/main.py`. Each finds its Neo4j the same way:
`NEO4J_URI` when set, else the local Neo4j already running in the data dir, else (for
`serve`) a local one started as a child of the process.
"""

from __future__ import annotations

import contextlib
import json
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from http import HTTPStatus
from pathlib import Path
from typing import Annotated, Any, NoReturn

import httpx
import typer
from neo4j import Driver
from neo4j.exceptions import AuthError, ServiceUnavailable

from api.cli.options import new_owner
from api.http.settings import Settings
from committer.apply import Committer
from graph.driver import connect
from graph.embedding import build_embedder, warm
from graph.errors import NotFound, WorldstateError
from graph.fields import z
from graph.local.server import LocalNeo4jError, Neo4jLocalSettings, find_running, start
from graph.local.supervisor import Supervisor
from graph.read.reader import Reader
from graph.schema import ensure_schema

token_app = typer.Typer(help="Bearer tokens (CONTRACT §7).", no_args_is_help=True)
import_app = typer.Typer(help="Import conversations.", no_args_is_help=True)
owner_app = typer.Typer(help="Owners: erasure (CONTRACT §9).", no_args_is_help=True)
SCOPES = ("read", "write", "curate", "admin")
log = logging.getLogger("worldstate.cli")


@contextlib.contextmanager
def open_store(settings: Settings, *, start_local: bool) -> Iterator[Driver]:
    """Yield a driver to this process's Neo4j, with the schema in place.

    Args:
        settings: the process settings.
        start_local: when no Neo4j is configured or running, start a local one as a child
            of this process, supervised (restarted on its data dir and port if it dies,
            graph/local/supervisor.py) and stopped when the block ends; else start it
            detached, so it outlives this command and later commands find it.

    Raises:
        typer.Exit: the local Neo4j could not be started (the reason is printed).
    """
    local = Neo4jLocalSettings()
    supervisor = None
    if settings.neo4j_uri:
        password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else None
        driver = connect(
            settings.neo4j_uri, settings.neo4j_user, password, settings.store_timeouts()
        )
    else:
        running = find_running(local.data_dir)
        if running is None:
            typer.echo(
                f"starting a local Neo4j in {local.data_dir} "
                "(the first start on a machine downloads it from Maven Central) ...",
                err=True,
            )
            began = time.monotonic()
            try:
                running = start(
                    local.data_dir,
                    heap=local.neo4j_heap,
                    page_cache_mb=local.neo4j_page_cache_mb,
                    cache_dir=local.neo4j_cache,
                    detach=not start_local,
                )
            except LocalNeo4jError as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(1) from exc
            if start_local:
                supervisor = Supervisor(
                    running,
                    heap=local.neo4j_heap,
                    page_cache_mb=local.neo4j_page_cache_mb,
                    cache_dir=local.neo4j_cache,
                )
                supervisor.start()
            typer.echo(
                f"Neo4j ready at {running.uri} in {time.monotonic() - began:.1f} s", err=True
            )
        driver = connect(running.uri, timeouts=settings.store_timeouts())
    try:
        try:
            ensure_schema(
                driver, settings.neo4j_database, vector_dimensions=settings.vector_dimensions
            )
        except (ServiceUnavailable, AuthError) as exc:
            where = settings.neo4j_uri or "the local Neo4j"
            hint = (
                "check NEO4J_URI, NEO4J_USER and NEO4J_PASSWORD, or unset NEO4J_URI to start "
                "a local Neo4j"
                if settings.neo4j_uri
                else "see `worldstate neo4j status`"
            )
            _fail(f"cannot reach Neo4j at {where}: {exc.message or exc}; {hint}")
        yield driver
    finally:
        driver.close()
        if supervisor is not None:
            supervisor.stop(stop_neo4j=True)


def serve(
    host: Annotated[str, typer.Option(help="interface to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port")] = 8000,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            max=64,
            help="API processes sharing the port (uvicorn's workers), all on one Neo4j",
        ),
    ] = 1,
    access_log: Annotated[bool, typer.Option(help="log one line per request")] = True,
) -> None:
    """Run the REST API and an in-process curator; starts a local Neo4j when NEO4J_URI is unset.

    With `--workers N`, N processes serve the port: each has its own driver, prefetch
    warm-up and `/readyz`, abuse-limit counters and `/metrics` (README "Bounds"), and its
    own curator thread (claims are exactly-once across processes, CONTRACT §4). The
    Memory page's sessions then live in signed cookies, which every process reads with
    the secret `WORLDSTATE_WEB_SESSION_SECRET` (a random one per `serve` when unset).
    """
    import os
    import secrets

    import uvicorn

    settings = Settings()
    _check_port(host, port)
    log_to_stderr()
    # The app's imports and the embedder's load take seconds of their own: done in a
    # thread while the local Neo4j starts, they are off the time to ready. With workers,
    # this process serves nothing: each worker imports and loads its own.
    preload = None
    if workers == 1:
        preload = threading.Thread(target=_preload, args=(settings,), name="preload", daemon=True)
        preload.start()
    with open_store(settings, start_local=True) as driver:
        if preload is not None:
            preload.join()
            from api.http.app import create_app

            uvicorn.run(
                create_app(settings, driver, schema_ready=True),
                host=host,
                port=port,
                log_level="info",
                access_log=access_log,
            )
            return
        # The worker processes inherit this environment: the Neo4j found or started here
        # (its schema made above), and one session secret for all of them.
        if not settings.neo4j_uri:
            running = find_running(Neo4jLocalSettings().data_dir)
            if running is None:
                _fail("the local Neo4j stopped before the workers started")
            os.environ["NEO4J_URI"] = running.uri
        os.environ["WORLDSTATE_WEB_SESSIONS"] = "signed"
        if settings.web_session_secret is None:
            os.environ["WORLDSTATE_WEB_SESSION_SECRET"] = secrets.token_urlsafe(32)
        uvicorn.run(
            "api.http.app:app_from_environment",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level="info",
            access_log=access_log,
        )


def _check_port(host: str, port: int) -> None:
    """Fail at once, in one line, when `host:port` cannot be listened on (another `serve`
    holds it, or the address is not this machine's), before Neo4j starts or the app
    loads; uvicorn would otherwise report it after start-up, beside a traceback."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as e:
        _fail(f"cannot listen on {host}:{port}: {e.strerror or e}")
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as probe:
            # As uvicorn binds (asyncio sets SO_REUSEADDR): a port in TIME_WAIT is free.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as e:
                _fail(
                    f"cannot listen on {host}:{port}: {e.strerror or e}; is another "
                    "`worldstate serve` running? choose another port with --port"
                )


def _preload(settings: Settings) -> None:
    """Import the app and load the embedder (it is cached per process), for `serve`.
    A failure is left for start-up to raise and log where it belongs."""
    try:
        import api.http.app  # noqa: F401

        warm(build_embedder(settings))
    except Exception:
        log.debug("preload failed; start-up will report it", exc_info=True)


def log_to_stderr(level: int = logging.INFO) -> None:
    """Show the service's own log lines (loggers `worldstate.*`: time to ready, degraded
    turns, a restarted local Neo4j) on stderr, formatted like uvicorn's. The driver's and
    other libraries' loggers are left as they are."""
    logger = logging.getLogger("worldstate")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)-9s %(name)s: %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(level)


def curator(
    once: Annotated[bool, typer.Option(help="curate what is queued, then exit")] = False,
) -> None:
    """Run a standalone curator worker (CONTRACT §4) against the configured Neo4j.

    Any number of workers may share one Neo4j: each claims runs atomically with a lease
    (`WORLDSTATE_CURATOR_LEASE_SECONDS`). SIGTERM or Ctrl-C stops it cleanly: the current
    run is finished (or handed back to the queue), then the process exits 0.
    """
    from curator.worker import CuratorWorker

    settings = Settings()
    with open_store(settings, start_local=False) as driver:
        embedder = build_embedder(settings)
        warm(embedder)  # before the first claim: a run's lease must not pay for loading it
        policy = settings.retry_policy()
        worker = CuratorWorker.from_settings(
            Committer(driver, settings.neo4j_database, embedder, policy),
            settings,
            Reader(driver, settings.neo4j_database, policy=policy),
        )
        if once:
            typer.echo(f"curated {worker.drain()} runs")
            return
        _stop_on_signals(worker.stop)
        typer.echo(
            f"curator worker {worker.worker_id} running; SIGTERM or Ctrl-C to stop", err=True
        )
        worker.serve_forever()
        typer.echo(f"curator worker {worker.worker_id} stopped", err=True)


def _stop_on_signals(stop: Callable[[], None]) -> None:
    """Call `stop` on SIGTERM or SIGINT; a second Ctrl-C interrupts at once."""

    def handle(_signum: int, _frame: object) -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        stop()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)


@token_app.command("create")
def token_create(
    owner: Annotated[str, typer.Option(help="the owner the token is bound to", callback=new_owner)],
    scopes: Annotated[str, typer.Option(help="comma-separated: read,write,curate,admin")] = "read",
) -> None:
    """Create a bearer token; the token is the last line printed (only its hash is stored).

    An owner name that is empty, has whitespace at either end or holds a "/" is a usage
    error (exit 2, nothing written: graph.names.check_owner_name), as are unknown scopes.
    """
    chosen = [s.strip() for s in scopes.split(",") if s.strip()]
    unknown = sorted(set(chosen) - set(SCOPES))
    if unknown or not chosen:
        typer.echo(f"error: unknown scopes {unknown}; choose from {','.join(SCOPES)}", err=True)
        raise typer.Exit(2)
    settings = Settings()
    with open_store(settings, start_local=False) as driver:
        secret, record = Committer(driver, settings.neo4j_database).create_token(owner, chosen)
    typer.echo(f"token {record.id} for owner {owner!r} with scopes {','.join(record.scopes)}:")
    typer.echo(secret)


@token_app.command("list")
def token_list(
    owner: Annotated[str, typer.Option(help="the owner whose tokens to list")],
) -> None:
    """List an owner's tokens, oldest first: id, scopes, created_at, and `live` or
    `revoked <when>` (UTC). Secrets are never shown: only their hashes are stored."""
    settings = Settings()
    with open_store(settings, start_local=False) as driver:
        tokens = Reader(driver, settings.neo4j_database).tokens(owner)
    if not tokens:
        typer.echo(f"no tokens for owner {owner!r}")
        return
    for k in tokens:
        state = "live" if k.revoked_at is None else f"revoked {_utc(k.revoked_at)}"
        typer.echo(f"{k.id}  {','.join(k.scopes)}  {_utc(k.created_at)}  {state}")


@token_app.command("revoke")
def token_revoke(token_id: Annotated[str, typer.Argument(help="the token's id (tok_...)")]) -> None:
    """Revoke a token by id: new requests with it answer 401, in a running server within
    its token cache's 5 seconds (api/http/deps.py TokenCache). Exit 1 for an unknown id."""
    settings = Settings()
    with open_store(settings, start_local=False) as driver:
        try:
            record, now = Committer(driver, settings.neo4j_database).revoke_token(token_id)
        except NotFound:
            _fail(f"no token with id {token_id!r}")
    if now:
        typer.echo(f"revoked {record.id} of owner {record.owner!r}")
    else:
        typer.echo(f"{record.id} was already revoked at {_utc(record.revoked_at)}")


def _utc(value: datetime | None) -> str:
    return "-" if value is None else z(value)


@owner_app.command("erase")
def owner_erase(
    owner: Annotated[str, typer.Option(help="the owner whose memory is erased")],
    confirm: Annotated[str, typer.Option(help="the owner's name again, to confirm")],
) -> None:
    """Erase every node and relationship of an owner, for good (CONTRACT §9); the same as
    `DELETE /v1/owners/me?confirm=`. Prints `removed N, remaining 0`."""
    settings = Settings()
    with open_store(settings, start_local=False) as driver:
        try:
            result = Committer(driver, settings.neo4j_database).erase_owner(owner, confirm)
        except WorldstateError as exc:
            _fail(str(exc))
    typer.echo(f"removed {result.removed}, remaining {result.remaining}")
    if result.remaining:
        _fail("nodes of the owner remain: a label is missing from OWNED_LABELS")


@import_app.command("locomo")
def import_locomo(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="LoCoMo JSON file")],
    owner: Annotated[
        str, typer.Option(help="the owner whose memory receives it", callback=new_owner)
    ],
    api: Annotated[
        str,
        typer.Option(envvar="WORLDSTATE_API", help="base URL of a running `worldstate serve`"),
    ] = "http://127.0.0.1:8000",
    token: Annotated[
        str | None,
        typer.Option(envvar="WORLDSTATE_TOKEN", help="a write token (default: mint one)"),
    ] = None,
    wait: Annotated[
        bool, typer.Option(help="wait until the curator has processed every run")
    ] = True,
    timeout: Annotated[float, typer.Option(help="seconds to wait for the curator")] = 600.0,
) -> None:
    """Post each session of a LoCoMo conversation as a run (its date as the messages' time, UTC).

    A bad owner name is a usage error, exit 2, as for `token create`."""
    from curator.locomo import LocomoFormatError, load_locomo

    try:
        runs = load_locomo(file)
    except (LocomoFormatError, ValueError) as exc:
        _fail(f"{file} is not a LoCoMo conversation: {exc}")
    if token is None:
        settings = Settings()
        with open_store(settings, start_local=False) as driver:
            token, _ = Committer(driver, settings.neo4j_database).create_token(
                owner, ["read", "write"]
            )
    headers = {"Authorization": f"Bearer {token}"}
    try:
        with httpx.Client(base_url=api, headers=headers, timeout=60.0) as client:
            _post_runs(client, runs, file, owner, wait, timeout)
    except httpx.HTTPError as exc:
        _fail(
            f"cannot reach the worldstate API at {api} ({exc}); is `worldstate serve` "
            "running there? Use --api to point at it."
        )


def _post_runs(
    client: httpx.Client,
    runs: list[dict[str, Any]],
    file: Path,
    owner: str,
    wait: bool,
    timeout: float,
) -> None:
    """Post the runs, then (with `wait`) follow them until the curator has taken each."""
    me = client.get("/v1/me")
    if me.status_code != HTTPStatus.OK:
        _fail(f"the API refused the token: {me.status_code} {me.text}")
    if me.json()["owner"] != owner:
        _fail(f"the token belongs to owner {me.json()['owner']!r}, not {owner!r}")
    for run in runs:
        r = client.post("/v1/runs", json=run)
        if r.status_code != HTTPStatus.ACCEPTED:
            _fail(f"run {run['id']}: {r.status_code} {r.text}")
    typer.echo(f"posted {len(runs)} runs of {file.name} for owner {owner!r}")
    if not wait:
        return
    deadline = time.monotonic() + timeout
    pending = [run["id"] for run in runs]
    totals = {"proposals": 0, "committed": 0, "failed": 0}
    while pending and time.monotonic() < deadline:
        status = client.get(f"/v1/runs/{pending[0]}").json()
        if status["status"] in ("done", "failed", "skipped"):
            pending.pop(0)
            totals["proposals"] += status["proposals"]
            totals["committed"] += status["committed"]
            totals["failed"] += status["status"] == "failed"
        else:
            time.sleep(0.2)
    if pending:
        _fail(f"{len(pending)} runs still queued after {timeout:.0f} s")
    typer.echo(json.dumps(totals))


def _fail(message: str) -> NoReturn:
    """Print `error: message` on stderr and exit with status 1."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)
