"""The local Neo4j: a real Neo4j 5.26 Community on this machine, without Docker (CONTRACT §11).

`server` starts, finds and stops it; `provision` resolves its jars from Maven Central and
compiles the small Java launcher in `launcher/`."""
