"""The Model Context Protocol server: the read tools and `remember` (CONTRACT §6, §7)."""
