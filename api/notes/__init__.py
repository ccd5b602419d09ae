"""Notes' tool layer (CONTRACT §13, issue 15): one set of functions the REST routes
(api/http/routes/notes.py, memory.py) and the MCP tools (api/mcp/notes.py) share, so both
answer alike. It reads through the `Reader` and writes through the `Committer` (never
`graph.write`), so it lives beside, not inside, the chat read path (api/chat never imports
the committer)."""
