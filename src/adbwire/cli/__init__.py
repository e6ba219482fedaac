"""The `adbwire` command line: argument parsing and error reporting shared by every command."""

from adbwire.cli.main import main

__all__ = ["main"]
