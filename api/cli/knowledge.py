"""`worldstate knowledge sync DIR --group G` and `worldstate audit --group G` (CONTRACT §11,
§14). Registered on the `worldstate` app in api/cli/main.py.

A synced folder is a team's documents kept in git and reviewed like code: each `*.md` file
(hidden folders such as `.git` skipped) is Markdown with YAML front matter, parsed with
python-frontmatter (PyYAML underneath):

    ---
    name: billing/edge-cases        # optional: default the file's path without `.md`
    description: Refunds, proration and the odd cases
    ---
    # Billing edge cases
    ...

The sync records a new version for each new or changed file (its path and the sync as the
cause) and retires the documents an earlier sync wrote whose files are gone, in one
transaction; a folder that matches the store changes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import frontmatter
import typer
import yaml

from api.cli.options import new_owner
from api.cli.store import open_store
from api.http.settings import Settings
from committer.apply import Committer
from committer.holders import Author
from committer.knowledge import SyncFile
from graph.errors import WorldstateError
from graph.fields import z
from graph.held import slug
from graph.read.reader import Reader

knowledge_app = typer.Typer(help="Knowledge documents (CONTRACT §14).", no_args_is_help=True)


class FolderError(Exception):
    """A file of the folder cannot be read as a document (the message names it)."""


def read_file(root: Path, path: Path) -> SyncFile:
    """Parse one Markdown file with YAML front matter into a `SyncFile`.

    Raises:
        FolderError: not UTF-8, bad YAML, or front matter of the wrong shape.
    """
    rel = path.relative_to(root).as_posix()
    try:
        post = frontmatter.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise FolderError(f"{rel}: {exc}") from exc
    meta: dict[str, Any] = dict(post.metadata)
    name = meta.get("name")
    description = meta.get("description", "")
    if name is None:
        stem = rel.removesuffix(".md")
        name = "/".join(slug(part) for part in stem.split("/"))
    if not isinstance(name, str) or not isinstance(description, str):
        raise FolderError(f"{rel}: front matter `name` and `description` must be text")
    return SyncFile(path=rel, name=name.strip(), description=description.strip(), body=post.content)


def read_folder(root: Path) -> list[SyncFile]:
    """Every `*.md` file under `root` (hidden folders left out), by path.

    Raises:
        FolderError: `root` is not a folder, or a file cannot be parsed.
    """
    if not root.is_dir():
        raise FolderError(f"{root}: not a folder")
    files = sorted(
        p
        for p in root.rglob("*.md")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )
    return [read_file(root, p) for p in files]


@knowledge_app.command("sync")
def sync(
    folder: Annotated[Path, typer.Argument(help="a folder of Markdown files with front matter")],
    group: Annotated[str | None, typer.Option(help="the group whose documents these are")] = None,
    owner: Annotated[
        str | None,
        typer.Option(
            help="the owner whose own documents these are (instead of --group)",
            callback=new_owner,
        ),
    ] = None,
) -> None:
    """Make a group's (or an owner's) synced documents match FOLDER, in one transaction.

    Prints what was created, changed and retired; running it again changes nothing.
    Exit code 1 when a file cannot be read or is out of bounds (nothing written).
    """
    if (group is None) == (owner is None):
        typer.echo("error: give exactly one of --group and --owner", err=True)
        raise typer.Exit(2)
    try:
        files = read_folder(folder)
    except FolderError as exc:
        typer.echo(f"error: {exc}; nothing was written", err=True)
        raise typer.Exit(1) from exc
    settings = Settings()
    with open_store(settings, start_local=False) as driver:
        actor = owner
        if group is not None:
            actor = Reader(driver, settings.neo4j_database).group_creator(group)
            if actor is None:
                typer.echo(f"error: no group {group!r}", err=True)
                raise typer.Exit(1)
        assert actor is not None
        committer = Committer(driver, settings.neo4j_database)
        try:
            result = committer.sync_documents(Author(actor), files, group_id=group)
        except WorldstateError as exc:
            typer.echo(f"error: {exc}; nothing was written", err=True)
            raise typer.Exit(1) from exc
    for label, names in (
        ("created", result.created),
        ("changed", result.changed),
        ("retired", result.retired),
    ):
        for name in names:
            typer.echo(f"{label}: {name}")
    typer.echo(
        f"{len(result.created)} created, {len(result.changed)} changed, "
        f"{len(result.retired)} retired, {len(result.unchanged)} unchanged"
        + (f" (sync {result.sync_id})" if result.sync_id else "")
    )


def audit(
    group: Annotated[str, typer.Option(help="the group whose access log to print")],
    outcome: Annotated[str | None, typer.Option(help="allowed or refused")] = None,
    limit: Annotated[int, typer.Option(min=1, max=10_000, help="most entries")] = 100,
) -> None:
    """Print the access log of `remember` for a group, newest first (CONTRACT §14): one
    line per attempt, tab-separated: at, outcome, reason, owner, token, surface, topic,
    document@version. Never content."""
    if outcome not in (None, "allowed", "refused"):
        typer.echo("error: --outcome must be allowed or refused", err=True)
        raise typer.Exit(2)
    settings = Settings()
    with open_store(settings, start_local=False) as driver:
        reader = Reader(driver, settings.neo4j_database)
        entries = reader.access_log("", [group], group_id=group, outcome=outcome, limit=limit)
    for e in entries:
        written = f"{e.document}@{e.version}" if e.document else "-"
        fields = [z(e.at), e.outcome, e.reason, e.owner, e.token_id or "-", e.surface or "-"]
        typer.echo("\t".join([*fields, e.topic, written]))
