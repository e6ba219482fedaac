"""How tests start `adbwire serve` as a separate process."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from adbwire.cli.main import build_parser

# Until `serve` is registered in adbwire.cli.main, register it in the child process the way
# the lead will: the command line and behaviour are the same.
_SHIM = (
    "import sys, importlib; m = importlib.import_module('adbwire.cli.main'); "
    "from adbwire.cli import serve; "
    "m.COMMANDS = m.COMMANDS if serve in m.COMMANDS else (*m.COMMANDS, serve); "
    "sys.exit(m.main(sys.argv[1:]))"
)


def serve_registered() -> bool:
    parser = build_parser()
    actions = [a for a in parser._actions if a.dest == "command"]
    return bool(actions) and "serve" in (actions[0].choices or {})


def serve_argv(*arguments: str) -> list[str]:
    """argv of `adbwire serve ARGUMENTS...` run with this interpreter."""
    if serve_registered():
        return [sys.executable, "-m", "adbwire", "serve", *arguments]
    return [sys.executable, "-c", _SHIM, "serve", *arguments]


def environment(tmp_path: Path) -> dict[str, str]:
    """A child environment whose home and state live under `tmp_path`.

    PYTHONPATH passes through, so the child runs the code under test: scripts/mutate.py
    puts its private, mutated copy of src/ there."""
    env = {
        "HOME": str(tmp_path / "home"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "PATH": os.environ.get("PATH", ""),
    }
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def request(number: int, method: str, params: Mapping[str, object]) -> bytes:
    """One JSON-RPC request line."""
    return (
        json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}).encode()
        + b"\n"
    )
