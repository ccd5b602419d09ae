"""`worldstate owner export` and `worldstate owner import` (issue 13, data portability).

Registered on the `owner` sub-app of api/cli/store.py. The export is the same stream as
`GET /v1/owners/me/export` (graph/read/export.py); the import restores it into a new,
empty owner through the committer (committer/portability.py).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from api.cli.options import new_owner
from api.cli.store import _fail, open_store, owner_app
from api.http.settings import Settings
from committer.apply import Committer
from committer.portability import closing_line
from graph.errors import WorldstateError
from graph.read.export import export_lines
from graph.read.reader import Reader


@owner_app.command("export")
def owner_export(
    owner: Annotated[str, typer.Option(help="the owner whose memory is exported")],
    out: Annotated[
        Path | None, typer.Option(help="the file to write (default: standard output)")
    ] = None,
) -> None:
    """Write every row of an owner as JSON Lines (both time axes kept; no token secrets).
    A summary goes to standard error."""
    settings = Settings()
    began = time.monotonic()
    with open_store(settings, start_local=False) as driver:
        reader = Reader(driver, settings.neo4j_database, policy=settings.retry_policy())
        if reader.owner_last_tx(owner) is None:
            _fail(f"no owner {owner!r}")
        target = out.open("w", encoding="utf-8") if out else sys.stdout
        lines = 0
        try:
            for line in export_lines(reader, owner):
                target.write(line + "\n")
                lines += 1
        finally:
            if out:
                target.close()
    seconds = time.monotonic() - began
    typer.echo(f"exported {lines} lines of owner {owner!r} in {seconds:.1f} s", err=True)


@owner_app.command("import")
def owner_import(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="an owner export")],
    owner: Annotated[
        str, typer.Option(help="the new owner (must have no memory yet)", callback=new_owner)
    ],
) -> None:
    """Restore an export into a new owner with identical history (ids remapped, tokens and
    embeddings not carried: mint tokens with `token create`, then `embeddings backfill`).
    A bad owner name is a usage error, exit 2, as for `token create`."""
    settings = Settings()
    try:
        closing_line(file)
    except WorldstateError as exc:
        _fail(f"{file}: {exc}")
    began = time.monotonic()
    with open_store(settings, start_local=False) as driver, file.open(encoding="utf-8") as f:
        committer = Committer(driver, settings.neo4j_database, policy=settings.retry_policy())
        try:
            result = committer.import_owner(f, owner)
        except WorldstateError as exc:
            _fail(str(exc))
    seconds = time.monotonic() - began
    typer.echo(
        f"imported into owner {owner!r} in {seconds:.1f} s: nodes {result.nodes}, "
        f"relationships {result.relations}, left out {result.skipped}"
    )
