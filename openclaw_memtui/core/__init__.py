"""The application layer: what every front end (TUI, CLI, MCP, plugin server) shares above the engine."""
