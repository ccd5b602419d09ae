"""The store: the only package that speaks Cypher to Neo4j.

`graph.reader` runs read transactions only; `graph.writer` is for the committer.
"""
