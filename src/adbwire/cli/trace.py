"""`adbwire trace show DIR [-o FILE]`: turn a recorded trace into one HTML page.

Traces are recorded by ``adbwire serve --trace DIR``, ``adbwire demo``, the pytest plugin
and ``serve_session(trace=...)`` (docs/trace.md). The page is self-contained: open it from
disk in any browser; it loads nothing from anywhere.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "trace",
        help="view a recorded agent session (serve --trace)",
        description="Work with the traces `adbwire serve --trace DIR` records.",
    )
    actions = parser.add_subparsers(dest="trace_action", metavar="ACTION", required=True)
    show = actions.add_parser(
        "show",
        help="write the trace as one self-contained HTML page and print its path",
        description="Write DIR's trace (or the newest trace inside DIR) as one HTML file "
        "with every step, its screens, arguments, result and log; open it in a browser.",
    )
    show.add_argument("directory", type=Path, metavar="DIR", help="a trace directory")
    show.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="where to write the page (default: DIR/trace.html)",
    )
    show.set_defaults(handler=run_show)


def run_show(args: argparse.Namespace) -> int:
    from adbwire.mcp.trace.viewer import write_html  # noqa: PLC0415 - only this command needs it

    print(write_html(args.directory, args.output).resolve())
    return 0
