"""The `## Known World State` block pushed before each turn (CONTRACT §6 "Prefetch (push)")."""
