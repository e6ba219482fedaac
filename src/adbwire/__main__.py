"""`python -m adbwire` serves MCP over stdio, like `adbwire serve`; with arguments, the CLI."""

import sys

from adbwire.cli.main import main

sys.exit(main(sys.argv[1:] or ["serve"]))
