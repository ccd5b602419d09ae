"""The `worldstate` command line (CONTRACT §11); entry point `main`.

Commands are grouped by what they act on, one sub-app per group, each registered on
`app` below. Settings are built inside each command, never at import.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from api.cli import backup as backup_commands
from api.cli import mcp as mcp_command
from api.cli import owners as _owners  # noqa: F401 - registers `owner export` and `owner import`
from api.cli import store as commands
from api.cli.embeddings import embeddings_app
from api.cli.eval import eval_app
from api.cli.knowledge import audit, knowledge_app
from api.http.settings import Settings
from graph.local.server import (
    LocalNeo4j,
    LocalNeo4jError,
    Neo4jLocalSettings,
    find_running,
    start,
    status,
    stop,
)

app = typer.Typer(
    name="worldstate",
    help="A bitemporal memory service for AI assistants, on Neo4j.",
    no_args_is_help=True,
    add_completion=False,
)
neo4j_app = typer.Typer(
    help="The local Neo4j 5.26 Community (no Docker; Java 17 and Maven, artifacts cached).",
    no_args_is_help=True,
)
app.add_typer(neo4j_app, name="neo4j")


def main() -> None:
    """Run the `worldstate` command line (the `worldstate` console script)."""
    app()


def resolve_neo4j_uri(
    settings: Settings | None = None, local: Neo4jLocalSettings | None = None
) -> tuple[str, LocalNeo4j | None] | None:
    """Find the Neo4j this process should use, without starting one.

    Args:
        settings: the process settings; read from the environment when None.
        local: the local-Neo4j settings; read from the environment when None.

    Returns:
        `(NEO4J_URI, None)` when `NEO4J_URI` is set (connect with `NEO4J_USER` and
        `NEO4J_PASSWORD`); else `(uri, instance)` for a local Neo4j already running in
        the data dir (connect with `auth=None`); else None: the caller may `start` one.
    """
    settings = settings if settings is not None else Settings()
    if settings.neo4j_uri:
        return settings.neo4j_uri, None
    local = local if local is not None else Neo4jLocalSettings()
    running = find_running(local.data_dir)
    return (running.uri, running) if running is not None else None


# --- worldstate neo4j start|stop|status -------------------------------------------------

DataDirOption = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="Neo4j home (default: $WORLDSTATE_DATA_DIR, else ~/.local/share/worldstate/neo4j)",
        show_default=False,
    ),
]


@neo4j_app.command("start")
def neo4j_start(
    data_dir: DataDirOption = None,
    port: Annotated[
        int | None, typer.Option(help="Bolt port on 127.0.0.1 (default: a free one)")
    ] = None,
) -> None:
    """Start the local Neo4j in the background; print its Bolt URI as the last line."""
    local = Neo4jLocalSettings()
    home = data_dir if data_dir is not None else local.data_dir
    running = find_running(home)
    if running is not None:
        typer.echo(f"already running in {running.data_dir} (pid {running.pid})")
        typer.echo(running.uri)
        return
    typer.echo(f"starting Neo4j in {home} (first run downloads from Maven Central) ...")
    try:
        instance = start(
            home,
            port=port,
            heap=local.neo4j_heap,
            page_cache_mb=local.neo4j_page_cache_mb,
            cache_dir=local.neo4j_cache,
            detach=True,
        )
    except LocalNeo4jError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(f"running (pid {instance.pid}); stop with: worldstate neo4j stop")
    typer.echo(instance.uri)


@neo4j_app.command("stop")
def neo4j_stop(data_dir: DataDirOption = None) -> None:
    """Stop the local Neo4j started by `worldstate neo4j start` (SIGTERM, then SIGKILL)."""
    home = data_dir if data_dir is not None else Neo4jLocalSettings().data_dir
    found = status(home)
    if found.instance is None:
        typer.echo(found.detail)
        return
    stop(found.instance)
    typer.echo(f"stopped (pid {found.instance.pid})")


@neo4j_app.command("status")
def neo4j_status(data_dir: DataDirOption = None) -> None:
    """Say whether the local Neo4j runs; exit code 0 when it answers over Bolt, else 1."""
    home = data_dir if data_dir is not None else Neo4jLocalSettings().data_dir
    found = status(home)
    typer.echo(found.detail)
    if not found.running:
        raise typer.Exit(1)


# --- serve, curator, token create, import locomo (api/cli/store.py) -------------------------

app.command("serve")(commands.serve)
app.command("curator")(commands.curator)
app.command("mcp")(mcp_command.mcp)
app.command("backup")(backup_commands.backup)
app.command("restore")(backup_commands.restore)
app.add_typer(commands.token_app, name="token")
app.add_typer(commands.import_app, name="import")
app.add_typer(commands.owner_app, name="owner")
app.add_typer(embeddings_app, name="embeddings")
app.add_typer(eval_app, name="eval")
app.add_typer(knowledge_app, name="knowledge")
app.command("audit")(audit)
