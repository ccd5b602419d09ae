"""The store: the only package that speaks Cypher to Neo4j.

`graph.read.reader` runs read transactions only; `graph.write.writer` is for the committer.
"""
