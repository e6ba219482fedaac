"""The baseline of the MCP start-up row: the smallest stdio server on the same SDK (one tool)."""

from mcp.server.mcpserver import MCPServer

server: MCPServer = MCPServer("minimal")


@server.tool()
def echo(text: str) -> str:
    """Return the text."""
    return text


if __name__ == "__main__":
    server.run()
