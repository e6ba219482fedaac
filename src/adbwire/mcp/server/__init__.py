"""The server itself: the SDK wiring, stdio and HTTP transports, launching, sessions."""
