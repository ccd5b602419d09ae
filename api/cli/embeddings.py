"""`worldstate embeddings backfill`: search fields for rows written without them.

Rows committed while no embedder was configured (or while its endpoint was down), rows
from before search existed, and rows embedded by another model than the configured one
get their text and a vector of the configured model (CONTRACT §6 semantic recall).
"""

from __future__ import annotations

from typing import Annotated

import typer

from api.cli.store import open_store
from api.http.settings import Settings
from committer.search_index import BACKFILL_BATCH, backfill
from graph.embedding import EmbedderUnavailable, build_embedder

embeddings_app = typer.Typer(
    help="Search fields of fact rows (semantic recall).", no_args_is_help=True
)


@embeddings_app.command("backfill")
def embeddings_backfill(
    batch: Annotated[int, typer.Option(min=1, max=10_000, help="rows per transaction")] = (
        BACKFILL_BATCH
    ),
    owner: Annotated[
        list[str] | None,
        typer.Option(help="only this owner (repeat for several); default every owner"),
    ] = None,
) -> None:
    """Embed every row that has no vector of the configured model (WORLDSTATE_EMBEDDER);
    with WORLDSTATE_EMBEDDER=none, set the full-text field only. Prints how many rows."""
    settings = Settings()
    embedder = build_embedder(settings)
    with open_store(settings, start_local=False) as driver:
        try:
            done = backfill(driver, settings.neo4j_database, embedder, batch, owner or None)
        except EmbedderUnavailable as exc:
            typer.echo(f"error: {exc} (rows done so far are kept; run it again)", err=True)
            raise typer.Exit(1) from exc
    what = f"embedded with {embedder.model}" if embedder is not None else "given their text"
    typer.echo(f"{done} rows {what}")
