"""`worldstate backup FILE` and `worldstate restore FILE`: the local Neo4j (issue 13).

Neo4j's own `neo4j-admin database dump`/`load`, chosen over a logical export because a
dump is the store itself: every node, relationship, property type and nanosecond, the
schema and indexes included, consistent as of a clean shutdown, and loaded back far
faster than rows could be written again. The price is a short stop: a local Neo4j
running in the data dir is stopped, dumped or loaded, and started again on its port
(graph/local/backup.py). For one owner's memory, portable and online, use
`worldstate owner export` instead. A server at `NEO4J_URI` is not ours to stop: back it
up with its own `neo4j-admin`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from api.http.settings import Settings
from graph.local.backup import backup as dump
from graph.local.backup import restore as load
from graph.local.server import LocalNeo4jError, Neo4jLocalSettings

DataDir = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="Neo4j home (default: $WORLDSTATE_DATA_DIR, else ~/.local/share/worldstate/neo4j)",
        show_default=False,
    ),
]


def _local_only() -> None:
    if Settings().neo4j_uri:
        typer.echo(
            "error: NEO4J_URI is set: back up that server with its own neo4j-admin; "
            "`worldstate backup` covers the local Neo4j",
            err=True,
        )
        raise typer.Exit(1)


def backup(
    file: Annotated[Path, typer.Argument(help="the dump file to write (replaced if present)")],
    data_dir: DataDir = None,
) -> None:
    """Dump the local Neo4j to FILE (neo4j-admin database dump); a running one is stopped
    for the dump and started again on its port. Prints the file's size and the time taken."""
    _local_only()
    local = Neo4jLocalSettings()
    home = data_dir if data_dir is not None else local.data_dir
    try:
        done = dump(
            home,
            file,
            heap=local.neo4j_heap,
            page_cache_mb=local.neo4j_page_cache_mb,
            cache_dir=local.neo4j_cache,
        )
    except LocalNeo4jError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    again = "; Neo4j started again" if done.restarted else ""
    typer.echo(f"backed up {home} to {file} ({done.bytes} bytes) in {done.seconds:.1f} s{again}")


def restore(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="a dump file")],
    data_dir: DataDir = None,
    force: Annotated[
        bool, typer.Option(help="replace the database the data dir already holds")
    ] = False,
) -> None:
    """Load FILE (from `worldstate backup`) into the local Neo4j (neo4j-admin database
    load); a running one is stopped and started again. Refuses to replace an existing
    database without --force."""
    _local_only()
    local = Neo4jLocalSettings()
    home = data_dir if data_dir is not None else local.data_dir
    try:
        done = load(
            home,
            file,
            force=force,
            heap=local.neo4j_heap,
            page_cache_mb=local.neo4j_page_cache_mb,
            cache_dir=local.neo4j_cache,
        )
    except LocalNeo4jError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    again = "; Neo4j started again" if done.restarted else ""
    typer.echo(f"restored {file} into {home} in {done.seconds:.1f} s{again}")
