"""The read side: every query runs in a Neo4j READ transaction, so nothing here can write.

`Reader` (graph.read.reader) is the facade; its parts are grouped by what they read. Anyone
may import this package. Every read is scoped by owner and memory access (graph.scope)."""
