"""The Memory page's routes, one module per part of the page, all under `/memory`.

Episodes (CONTRACT §12: a run's messages and "forget this conversation") are not here
yet: they land with the recall issue's `episodes` branch as `routes/episodes.py`, added
to `ROUTERS` below, with a link from `templates/event.html` (the run's page) and the
`episodes` block of `templates/base.html`'s navigation.
"""

from __future__ import annotations

from api.web.routes import account, actions, audit, auth, entities, history, home, notes

ROUTERS = (
    auth.router,
    home.router,
    entities.router,
    actions.router,
    history.router,
    audit.router,
    account.router,
    notes.router,
)
