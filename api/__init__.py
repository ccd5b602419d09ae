"""The REST API (FastAPI) and the `worldstate` command line. Nothing imports this package."""
