"""Bytes, packets and streams: the ADB protocol with no knowledge of apps or MCP."""
