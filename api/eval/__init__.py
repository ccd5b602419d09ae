"""Recall measured on labelled conversations (issue 12): `worldstate eval locomo` and
`bench/locomo_recall.py` share it. `locomo` reads a file and scores, `service` talks to the
REST API, `baselines` ranks the raw turns, `report` prints, `run` puts them together."""
