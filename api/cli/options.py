"""Options several commands share, validated once (STYLE "One model per concept at every
edge")."""

from __future__ import annotations

import typer

from graph.errors import InvalidInput
from graph.names import check_owner_name


def new_owner(value: str | None) -> str | None:
    """The `--owner NAME` of a command that makes an owner or writes for one (CONTRACT §11),
    checked by `graph.names.check_owner_name` before the command runs (so nothing is
    written); None when the option is optional and not given.

    Raises:
        typer.BadParameter: the name breaks the rule: a usage error, exit code 2, the
            message naming `--owner`.
    """
    if value is None:
        return None
    try:
        return check_owner_name(value)
    except InvalidInput as exc:
        raise typer.BadParameter(exc.detail) from exc
