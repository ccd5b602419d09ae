"""`worldstate eval locomo FILE... [--k 10]`: how much the service remembers of a
conversation, measured on its own questions (issue 12; the evaluation is api/eval/).

Registered on the `worldstate` app in api/cli/main.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from api.cli.store import open_store
from api.http.settings import Settings

eval_app = typer.Typer(help="Measure recall on labelled conversations.", no_args_is_help=True)


@eval_app.command("locomo")
def eval_locomo(
    files: Annotated[
        list[Path],
        typer.Argument(exists=True, dir_okay=False, help="LoCoMo-format JSON files (with `qa`)"),
    ],
    k: Annotated[int, typer.Option("--k", min=1, max=100, help="results per question")] = 10,
    api: Annotated[
        str | None,
        typer.Option(help="a running `worldstate serve` on the same Neo4j (default: in process)"),
    ] = None,
    timeout: Annotated[float, typer.Option(help="seconds to wait for the curator, per file")] = (
        1800.0
    ),
    keep: Annotated[bool, typer.Option(help="keep the evaluation owners (default: erase)")] = False,
    details_file: Annotated[
        Path | None,
        typer.Option("--details", help="write one JSON line per question to this file"),
    ] = None,
) -> None:
    """Import each conversation into a fresh owner and measure how often search and prefetch
    return a turn that answers LoCoMo's own questions, beside BM25 and dense baselines.

    Without `--api` the API and its curator are served in this process, against the
    configured Neo4j (a local one is started, and stopped at the end, when none runs).
    Prints one report per file, then all files pooled. Exit 1 with one line for a file
    that is not a LoCoMo conversation, or a service that refuses or times out.
    """
    from api.eval.locomo import read_conversation
    from api.eval.report import pooled, report, write_details
    from api.eval.run import run
    from api.eval.service import EvalError
    from curator.locomo import LocomoFormatError

    try:
        conversations = [read_conversation(f) for f in files]  # before anything starts
    except (LocomoFormatError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    settings = Settings()
    with open_store(settings, start_local=api is None) as driver:
        try:
            results = run(
                driver,
                settings,
                conversations,
                api=api,
                k=k,
                timeout=timeout,
                keep=keep,
                say=lambda line: typer.echo(line, err=True),
            )
        except EvalError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from exc
    for result in results:
        typer.echo(report(result) + "\n")
    if len(results) > 1:
        typer.echo(pooled(results))
    if details_file is not None:
        write_details(results, details_file)
