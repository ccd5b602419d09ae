"""The `worldstate` command line (CONTRACT §11); `main` is the console script."""
