"""What Android commands mean: operations over an `AdbClient`, one module per concern.

Each public module below takes a connected `AdbClient` as its first argument and returns
typed results (`parsers` holds the pure parsers of device output). Modules whose names
start with an underscore, and anything not listed, are internal.
"""

__all__ = [
    "activity_stack",
    "apps",
    "commands",
    "errors",
    "files",
    "forwards",
    "gestures",
    "heavy_jobs",
    "info",
    "input",
    "install",
    "instrumentation",
    "location",
    "logs",
    "network",
    "notifications",
    "output_cap",
    "packages",
    "parsers",
    "processes",
    "properties",
    "recording",
    "screen",
    "sdk",
    "settings",
    "system",
    "ui",
    "validate",
]
