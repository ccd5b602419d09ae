"""Response models of the read tools, shared by REST and MCP (CONTRACT §6 "Pull", §10)."""
