"""The Memory page's routes, one module per part of the page, all under `/memory`.

Episodes (CONTRACT §12: a run's messages and "forget this conversation") are in
`routes/episodes.py`, shown on a run's cause-and-effect page (`templates/event.html`).
"""

from __future__ import annotations

from api.web.routes import (
    account,
    actions,
    audit,
    auth,
    entities,
    episodes,
    history,
    home,
    notes,
)

ROUTERS = (
    auth.router,
    home.router,
    entities.router,
    actions.router,
    history.router,
    audit.router,
    episodes.router,
    account.router,
    notes.router,
)
