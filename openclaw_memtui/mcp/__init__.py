"""The MCP server (`memtui mcp`). The SDK is the external `mcp` package: import it absolutely."""
