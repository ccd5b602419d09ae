"""REST routes of the chat read path: prefetch, the pull tools and search."""
