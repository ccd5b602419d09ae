"""Cypher text, one module per aggregate, with the parser of its records beside it."""
