"""The HTTP app: `create_app`, request dependencies, errors, settings, limits, cursors,
the REST routes and their schemas. Only `api` imports it."""
