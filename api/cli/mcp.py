"""The `worldstate mcp` command (CONTRACT §6, §11): serve the MCP tools over stdio or
streamable HTTP (api/mcp/server.py). Registered on the `worldstate` app in api/cli/main.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from api.cli.store import open_store
from api.http.settings import Settings

# The mcp package and the store's modules are imported only when the command runs, so
# every other command starts without them.
if TYPE_CHECKING:
    from api.mcp.server import McpState

TRANSPORTS = ("stdio", "http")


def mcp(
    transport: Annotated[
        str, typer.Option(help="stdio, or http (streamable HTTP at /mcp)")
    ] = "stdio",
    host: Annotated[str, typer.Option(help="http: interface to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="http: TCP port")] = 8001,
    chat_id: Annotated[
        str | None,
        typer.Option("--chat-id", help="pin the chat whose memory access applies to every call"),
    ] = None,
    surface: Annotated[
        str | None,
        typer.Option(help="the surface this server answers for (the gated remember checks it)"),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            envvar="WORLDSTATE_TOKEN",
            show_default=False,
            help="stdio: the bearer token (prefer the WORLDSTATE_TOKEN variable)",
        ),
    ] = None,
) -> None:
    """Serve the read tools and `remember` over the Model Context Protocol.

    stdio authenticates with WORLDSTATE_TOKEN (checked now and on every call); http
    takes `Authorization: Bearer <token>` on every request. Scopes as over REST: the read
    tools need `read`; remember needs `write` for facts, and `curate` and an allowed
    --surface (or X-Worldstate-Surface header) for a learning. Uses NEO4J_URI, else the
    local Neo4j.
    """
    if transport not in TRANSPORTS:
        _fail(f"--transport must be one of {', '.join(TRANSPORTS)}", code=2)
    if transport == "stdio" and not (token and token.strip()):
        _fail("set WORLDSTATE_TOKEN to a token (see `worldstate token create`)", code=2)
    from api.http.deps import TokenCache
    from api.mcp.server import McpState, http_app
    from api.notes.limits import NoteLimits
    from committer.apply import Committer
    from committer.remember import SurfacePolicy
    from curator.statements import Policy
    from graph.embedding import build_embedder, warm
    from graph.read.reader import Reader

    settings = Settings()
    with open_store(settings, start_local=False) as driver:
        reader = Reader(driver, settings.neo4j_database)
        embedder = build_embedder(settings)
        warm(embedder)  # under a second for the local model; a wrong model file stops here
        committer = Committer(driver, settings.neo4j_database, embedder)
        committer.note_limit = settings.notes_max_per_owner
        state = McpState(
            reader=reader,
            # search embeds queries; remember's rows get their vectors like any other
            committer=committer,
            tokens=TokenCache(reader),
            policy=Policy(settings.auto_commit_threshold, tuple(settings.privileged_areas)),
            stdio_token=token.strip() if transport == "stdio" and token else None,
            chat_id=chat_id,
            embedder=embedder,
            notes=NoteLimits.from_settings(settings),
            surface=surface,
            surfaces=SurfacePolicy.of(
                settings.remember_restricted_surfaces, settings.remember_allow_no_surface
            ),
        )
        if transport == "stdio":
            _serve_stdio(state)
        else:
            import uvicorn

            typer.echo(f"MCP over streamable HTTP at http://{host}:{port}/mcp", err=True)
            uvicorn.run(http_app(state, host), host=host, port=port, log_level="warning")


def _serve_stdio(state: McpState) -> None:
    """Check the stdio token once before serving (a bad one exits 1, saying why)."""
    from api.mcp.server import build_server
    from graph.errors import StoreUnavailable
    from graph.names import token_hash

    assert state.stdio_token is not None
    try:
        found = state.tokens.lookup(token_hash(state.stdio_token))
    except StoreUnavailable:
        _fail("the memory store cannot be reached")
    if found is None:
        _fail("WORLDSTATE_TOKEN is unknown or revoked")
    typer.echo(f"MCP over stdio for owner {found.owner!r}", err=True)
    build_server(state).run("stdio")


def _fail(message: str, code: int = 1) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)
