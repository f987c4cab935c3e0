"""Working with a real OpenClaw installation: its agents, settings and its own index (read-only)."""
